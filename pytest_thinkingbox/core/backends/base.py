"""What every backend shares: the attempt's bound session and databases reused per schema."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Engine, MetaData
from sqlalchemy.orm import Session

from ..errors import HarnessError
from ..state import Delta
from .tracking import changes as tracked_changes
from .tracking import forget

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
    """Databases kept per schema and reused: one is taken for a restore and given back on release.

    A backend subclasses it and says how to make a new database (`_new_database`).
    """

    def __init__(self) -> None:
        self._idle: dict[MetaData, list[Engine]] = {}
        self._schema_of: dict[Engine, MetaData] = {}

    def release(self, session: Session) -> None:
        """Close a session; its database waits, idle, for the next restore of the same schema."""
        engine = engine_of(session)
        session.close()
        self._reset(engine)
        self._idle.setdefault(self._schema_of[engine], []).append(engine)

    def _reset(self, engine: Engine) -> None:
        """Prepare a released database for its next restore (nothing, where a restore replaces everything)."""

    def take_changes(self, session: Session) -> Delta:
        """The rows written since the last restore or take, with their values then and now; commits.

        What is read becomes the new baseline, so the next call reports only
        what is written after this one.
        """
        session.commit()  # the ORM's pending writes first; and a later rollback must not bring back the baseline
        cursor = session.connection().connection.cursor()
        try:
            delta = tracked_changes(cursor, self._schema(session))
            self._move_baseline(cursor, list(delta))
        finally:
            cursor.close()
        session.commit()
        return delta

    def changes(self, session: Session) -> Delta:
        """The rows written since the last restore or take (`take_changes`), with their values then and now."""
        cursor = session.connection().connection.cursor()
        try:
            return tracked_changes(cursor, self._schema(session))
        finally:
            cursor.close()

    def _move_baseline(self, cursor: Any, tables: list[str]) -> None:
        """Make the present the baseline of `tables` (what `take_changes` does once it has read them)."""
        forget(cursor, tables)

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
