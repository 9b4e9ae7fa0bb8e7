"""What every backend shares: the attempt's bound session and databases reused per schema."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Engine, MetaData, inspect
from sqlalchemy.orm import Session

from ..errors import HarnessError
from ..state import Delta
from .tracking import changes as tracked_changes
from .tracking import forget, set_aside

_current: ContextVar[Session] = ContextVar("thinkingbox_session")


def current_session() -> Session:
    """The session of the attempt (or golden replay) running now."""
    try:
        return _current.get()
    except LookupError:
        raise HarnessError(
            "backend",
            "no attempt database is bound: use factories and tools inside a task that requests the `tb` fixture",
        ) from None


@contextmanager
def bind_session(session: Session) -> Iterator[Session]:
    """Make `session` the one that factories and tools use, for the block."""
    token = _current.set(session)
    try:
        yield session
    finally:
        _current.reset(token)


class ReusedDatabases:
    """Databases kept per schema and reused, each brought back to its image when it is released.

    A restore takes an idle database of the image's schema and loads the
    image into it (`_load`). A backend whose load grows with the rows of the
    image (`undoes_writes`) instead brings a database last restored from the
    same image back by undoing what was written since (`_undo`: the change
    tracking kept each written row's value then), at a cost that grows with
    the rows written. A backend subclasses it and says how to make a new
    database (`_new_database`) and load an image into one.
    """

    undoes_writes = False  # bring a database back to its last image by undoing the writes since
    probes_keys = False  # read written rows by probing each key (PostgreSQL; see tracking.changes)
    replays_rows = False  # writes the rows an arrange step wrote again without the ORM (rows_to_replay, replay)

    def __init__(self) -> None:
        self._idle: dict[MetaData, list[Engine]] = {}
        self._schema_of: dict[Engine, MetaData] = {}
        self._restored_from: dict[Engine, Any] = {}  # the image each database was last restored from

    def restore(self, image: Any) -> Session:
        """A session on a private database holding exactly `image`.

        Only this session writes to its database, so committed objects need not
        be reloaded (``expire_on_commit=False``); a rollback still expires them.
        """
        idle = self._idle.setdefault(image.metadata, [])
        same = [engine for engine in idle if self.undoes_writes and self._restored_from.get(engine) is image]
        engine = same[-1] if same else self._take(image.metadata)
        if same:
            idle.remove(engine)
            try:
                self._undo(engine, image)
                return Session(engine, expire_on_commit=False)
            except Exception:
                pass
        self._restored_from.pop(engine, None)
        session = Session(engine, expire_on_commit=False)
        self._load(session, image)
        self._restored_from[engine] = image
        return session

    def release(self, session: Session) -> None:
        """Close a session; its database waits, idle, for the next restore of the same schema."""
        engine = engine_of(session)
        session.close()
        self._idle.setdefault(self._schema_of[engine], []).append(engine)

    def hold(self, session: Session) -> Any:
        """Keep what `session` committed, and what it wrote since its baseline, for a `take_over` later.

        Once this returns, the session is given up to what it returns, which
        `drop` frees if it is not taken over. Here the database itself is
        kept, with the session.
        """
        session.commit()
        return session

    def drop(self, held: Any) -> None:
        """Free a state kept by `hold` that will not be taken over."""
        self.release(held)

    def take_over(self, session: Session, held: Any) -> None:
        """Give `session` the state `hold` kept (of the same schema), in place of its own.

        Here the session moves onto the database kept, and its own database
        waits, idle, for the next restore.
        """
        mine, theirs = engine_of(session), engine_of(held)
        if self._schema_of[mine] is not self._schema_of[theirs]:
            raise HarnessError("backend", "a session can only take over a state of its own schema")
        held.close()
        session.commit()
        session.bind = theirs
        self._idle.setdefault(self._schema_of[mine], []).append(mine)
        self._reload(session)

    def _reload(self, session: Session) -> None:
        """After a take-over: the session's objects load again, except those whose rows are gone.

        Those are detached with the values they had, as a delete made through
        the session would have left them.
        """
        written = self.changes(session)
        gone = {(table, key) for table, rows in written.items() for key, (_, now) in rows.items() if now is None}
        for instance in list(session.identity_map.values()):
            state = inspect(instance)
            key = "|".join(str(value) for value in state.identity or ())  # as tracking renders keys
            if (str(state.mapper.local_table.name), key) in gone:
                session.expunge(instance)
            else:
                session.expire(instance)

    @contextmanager
    def scratch(self, session: Session) -> Iterator[Session]:
        """A session on a database holding `session`'s committed state, to write to and throw away.

        Here a copy: the state dumped and restored into another database. A
        backend whose copy grows with the rows (`undoes_writes`) lends the
        session itself and undoes what was written in the block.
        """
        copy = self.restore(self.dump(session))
        try:
            yield copy
        finally:
            self.release(copy)

    def dump(self, session: Session) -> Any:
        """The committed state of a session's database as an image."""
        raise NotImplementedError

    def _load(self, session: Session, image: Any) -> None:
        """Replace the whole content of the session's database with `image`."""
        raise NotImplementedError

    def _undo(self, engine: Engine, image: Any) -> None:
        """Bring an idle database back to `image`, which it was last restored from; raise if it cannot."""
        raise NotImplementedError(f"{type(self).__name__} loads the image for every restore")

    def take_changes(self, session: Session) -> Delta:
        """The rows written since the last restore or take, with their values then and now; commits.

        What is read becomes the new baseline, so the next call reports only
        what is written after this one.
        """
        session.commit()  # the ORM's pending writes first; and a later rollback must not bring back the baseline
        cursor = session.connection().connection.cursor()
        try:
            delta = tracked_changes(cursor, self._schema(session), self.probes_keys)
            if self.undoes_writes:  # the writes before the new baseline must stay undoable
                set_aside(cursor, self._schema(session), list(delta))
            else:
                forget(cursor, list(delta))
        finally:
            cursor.close()
        session.commit()
        return delta

    def written_since_restore(self, session: Session) -> bool:
        """Whether anything may have been written to the session's database since its restore (or load)."""
        return True  # a backend that cannot tell says yes

    def rows_to_replay(self, session: Session) -> Any | None:
        """The rows written since the restore, as `replay` writes them again; None where it cannot. Commits."""
        return None

    def replay(self, session: Session, rows: Any) -> None:
        """Write `rows` (`rows_to_replay` of a database restored from the same image) as the new baseline."""
        raise NotImplementedError(f"{type(self).__name__} cannot replay rows")

    def changes(self, session: Session) -> Delta:
        """The rows written since the last restore or take (`take_changes`), with their values then and now."""
        cursor = session.connection().connection.cursor()
        try:
            return tracked_changes(cursor, self._schema(session), self.probes_keys)
        finally:
            cursor.close()

    def _take(self, metadata: MetaData) -> Engine:
        idle = self._idle.get(metadata)
        return idle.pop() if idle else self._add(metadata)

    def _add(self, metadata: MetaData) -> Engine:
        engine = self._new_database(metadata)
        self._schema_of[engine] = metadata
        return engine

    def _schema(self, session: Session) -> MetaData:
        return self._schema_of[engine_of(session)]

    def _new_database(self, metadata: MetaData) -> Engine:
        raise NotImplementedError


@contextmanager
def deferred_foreign_keys(metadata: MetaData) -> Iterator[None]:
    """Within the block (``create_all``), `metadata`'s foreign keys are ``DEFERRABLE INITIALLY DEFERRED``.

    Foreign keys of an attempt's database are checked when a transaction
    commits, on every backend: the arrange step's rows together (factories
    may write a child before its parent), a tool's writes at the end of its
    call. A key the model declares deferrable or not keeps its declaration;
    the model is put back as it was after the block.
    """
    declared = {
        fk: fk.initially
        for table in metadata.tables.values()
        for fk in table.foreign_key_constraints
        if fk.deferrable is None
    }
    for fk in declared:
        fk.deferrable, fk.initially = True, "DEFERRED"
    try:
        yield
    finally:
        for fk, initially in declared.items():
            fk.deferrable, fk.initially = None, initially


def engine_of(session: Session) -> Engine:
    """The engine a session is bound to."""
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    return engine


def driver_connection(session: Session) -> Any:
    """The database driver's own connection under a session (sqlite3's or psycopg's)."""
    return session.connection().connection.driver_connection


def forget_compiled(dialects: set[Any]) -> None:
    """Drop the statements ORM mappers compiled for these engines' dialects.

    Each mapper keeps the INSERT and UPDATE statements it compiled, per dialect,
    in a cache that outlives the engines; a process that opens and closes many
    backends (the environment server) would otherwise hold on to them.
    """
    from sqlalchemy.orm import mapperlib

    for registry in list(mapperlib._mapper_registries):  # no public way to reach every mapper's cache
        for mapper in registry.mappers:
            cache = mapper._compiled_cache
            for key in [k for k in list(cache) if isinstance(k, tuple) and k and k[0] in dialects]:
                cache.pop(key, None)
