"""A fresh database per attempt, restored from an image built once per worker.

`open_backend` picks the backend: SQLite in memory by default, PostgreSQL
(`postgres.PostgresBackend`) when a URL is given. Both build an image once,
restore it into a private database per attempt, dump a database for a scratch
copy, and release it when the attempt ends.

SQLite in memory: the domain's schema and base records are built once into an
in-memory database, serialized to bytes (the image), and every attempt
deserializes those bytes into a private connection: a new one, or one an
earlier attempt released, whose whole content the image replaces. Restoring
costs well under a millisecond and never re-runs ``create_all`` or the seed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from .errors import HarnessError

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


def open_backend(url: str | None) -> Any:
    """The backend for a database URL: SQLite in memory when `url` is empty, else PostgreSQL."""
    if not url:
        return SQLiteBackend()
    from .postgres import PostgresBackend

    return PostgresBackend(url)


@dataclass(frozen=True)
class Image:
    """A SQLite database as bytes, with the schema it holds."""

    metadata: MetaData
    data: bytes


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
        self._idle.setdefault(self._schema_of[engine], []).append(engine)

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


class SQLiteBackend(ReusedDatabases):
    """In-memory SQLite databases for one worker, restored from images.

    Engines are kept and reused (each owns one connection), so SQLAlchemy's
    compiled-statement cache stays warm across attempts; restoring an image
    replaces the whole content of a reused connection's database. A connection
    is only reused for the same schema: SQLite's cached prepared statements
    survive a restore, and under another schema with the same schema version
    number they would read the wrong pages.
    """

    def build_image(self, metadata: MetaData, seed: Callable[[Session], None] | None = None) -> Image:
        """Create the schema and the base records once; return the database as an image."""
        session = Session(self._add(metadata))
        try:
            metadata.create_all(session.connection())
            session.commit()
            self.defer_foreign_keys(session)
            if seed is not None:
                seed(session)
            return self.dump(session)
        finally:
            self.release(session)

    def restore(self, image: Image) -> Session:
        """A session on a private database holding exactly `image`.

        Only this session writes to its database, so committed objects need not
        be reloaded (``expire_on_commit=False``); a rollback still expires them.
        """
        engine = self._take(image.metadata)
        with engine.connect() as connection:
            raw: Any = connection.connection.driver_connection
            raw.deserialize(image.data)
        return Session(engine, expire_on_commit=False)

    def dump(self, session: Session) -> Image:
        """The committed state of a session's database as an image (for a scratch copy)."""
        session.commit()
        return Image(self._schema(session), driver_connection(session).serialize())

    def defer_foreign_keys(self, session: Session) -> None:
        """Check foreign keys when the session's transaction commits, so rows may be written in any order."""
        raw = driver_connection(session)
        if not raw.in_transaction:
            raw.execute("BEGIN")  # the pragma lasts until the transaction ends: open it now, not at the first write
        raw.execute("PRAGMA defer_foreign_keys = ON")

    def close(self) -> None:
        """Nothing to drop: in-memory databases vanish with their connections."""

    def _new_database(self, metadata: MetaData) -> Engine:
        # The schema arrives with the image (create_all in build_image, else deserialize).
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        connection.execute("PRAGMA foreign_keys = ON")  # enforced as on PostgreSQL, so tasks stay portable
        return create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)


def engine_of(session: Session) -> Engine:
    """The engine a session is bound to."""
    engine = session.get_bind()
    assert isinstance(engine, Engine)
    return engine


def driver_connection(session: Session) -> Any:
    """The database driver's own connection under a session (sqlite3's or psycopg's)."""
    return session.connection().connection.driver_connection
