"""SQLite in memory: the default backend.

The domain's schema and base records are built once into an in-memory
database, serialized to bytes (the image), and every attempt deserializes those
bytes into a private connection: a new one, or one an earlier attempt released,
whose whole content the image replaces. Restoring costs well under a
millisecond (0.03 ms for retail's image, 3-4 ms at 100,000 extra rows) and
never re-runs ``create_all`` or the seed. Undoing an attempt's writes instead,
as the PostgreSQL backend does, measured 3-5 ms for a retail attempt: more
than it saves (the deserialize, and compiling the statements again after it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Engine, MetaData, create_engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from ..errors import HarnessError
from .base import ReusedDatabases, deferred_foreign_keys, driver_connection, engine_of, forget_compiled
from .tracking import Rows, forget, insert_again, new_rows, sqlite_ddl, touched_tables


@dataclass(frozen=True)
class Image:
    """A SQLite database as bytes, with the schema it holds.

    The bytes hold the change tracking's shadow tables too; `written` names
    those that were not empty, which a restore empties (a restored state is
    its own baseline).
    """

    metadata: MetaData
    data: bytes
    written: tuple[str, ...] = ()


class SQLiteBackend(ReusedDatabases):
    """In-memory SQLite databases for one worker, restored from images.

    Engines are kept and reused (each owns one connection), so SQLAlchemy's
    compiled-statement cache stays warm across attempts. A connection is only
    reused for the same schema: SQLite's cached prepared statements survive a
    deserialize, and under another schema with the same schema version number
    they would read the wrong pages.
    """

    replays_rows = True

    def __init__(self) -> None:
        super().__init__()
        self._changes_at_load: dict[Engine, int] = {}  # each connection's count of rows written, after its last load

    def build_image(self, metadata: MetaData, seed: Callable[[Session], None] | None = None) -> Image:
        """Create the schema and the base records once; return the database as an image."""
        session = Session(self._add(metadata))
        try:
            # Deferred in the schema, not per transaction: PRAGMA defer_foreign_keys expires every prepared
            # statement and, after a deserialize, makes SQLite parse the whole schema again (shadows and
            # triggers included): about 5 ms of a retail attempt.
            with deferred_foreign_keys(metadata):
                metadata.create_all(session.connection())
            raw = driver_connection(session)
            for statement in sqlite_ddl(metadata):
                raw.execute(statement)
            session.commit()
            if seed is not None:
                seed(session)
            self.take_changes(session)  # the seed is the image: nothing is written yet
            return self.dump(session)
        finally:
            self.release(session)

    def _load(self, session: Session, image: Image) -> None:
        """Replace the database's whole content with the image's bytes."""
        raw = driver_connection(session)
        raw.deserialize(image.data)
        if image.written:
            forget(raw, list(image.written))
            raw.commit()
        self._changes_at_load[engine_of(session)] = raw.total_changes

    def written_since_restore(self, session: Session) -> bool:
        """SQLite counts every row a connection writes (its triggers' too): a count moved since the load."""
        return driver_connection(session).total_changes != self._changes_at_load.get(engine_of(session))

    def rows_to_replay(self, session: Session) -> Rows | None:
        """The rows written since the restore, as SQLite holds them, if all are new rows. Commits."""
        session.commit()
        cursor = session.connection().connection.cursor()
        try:
            return new_rows(cursor, self._schema(session))
        finally:
            cursor.close()

    def replay(self, session: Session, rows: Rows) -> None:
        """Insert `rows` again, with their rowids, and make them the baseline, as `take_changes` would."""
        session.commit()
        cursor = session.connection().connection.cursor()
        try:
            insert_again(cursor, rows)
            forget(cursor, [name for name, _, _ in rows])
        finally:
            cursor.close()
        session.commit()

    def dump(self, session: Session) -> Image:
        """The committed state of a session's database as an image (for a scratch copy)."""
        session.commit()
        metadata, raw = self._schema(session), driver_connection(session)
        cursor = raw.cursor()
        try:
            written = touched_tables(cursor, metadata)
        finally:
            cursor.close()
        return Image(metadata, raw.serialize(), tuple(written))

    def hold(self, session: Session) -> Image:
        """The session's committed state as bytes, tracking included; its database is released at once.

        Only for `take_over`: its shadows still hold what was written since the
        baseline, which a restore would take for the image's own state.
        """
        session.commit()
        held = Image(self._schema(session), driver_connection(session).serialize())
        self.release(session)
        return held

    def drop(self, held: Image) -> None:
        pass  # only bytes

    def take_over(self, session: Session, held: Image) -> None:
        """Load the state `hold` kept into the session's own database (its whole content)."""
        if held.metadata is not self._schema(session):
            raise HarnessError("backend", "a session can only take over a state of its own schema")
        session.commit()
        driver_connection(session).deserialize(held.data)  # the shadows too: what was written since the baseline
        self._reload(session)

    def close(self) -> None:
        """Close the databases (in-memory: they vanish) and forget what ORM mappers compiled for them."""
        for engine in self._schema_of:
            engine.dispose()
        forget_compiled({engine.dialect for engine in self._schema_of})

    def _new_database(self, metadata: MetaData) -> Engine:
        # The schema arrives with the image (create_all in build_image, else deserialize).
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        connection.execute("PRAGMA foreign_keys = ON")  # enforced as on PostgreSQL, so tasks stay portable
        connection.execute("PRAGMA recursive_triggers = ON")  # rows INSERT OR REPLACE deletes are tracked too
        return create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)
