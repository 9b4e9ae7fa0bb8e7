"""A fresh database per attempt, restored from an image built once per worker.

SQLite in memory: the domain's schema and base records are built once into an
in-memory database, serialized to bytes (the image), and every attempt
deserializes those bytes into a new private connection. Restoring costs well
under a millisecond and never re-runs ``create_all`` or the base seed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy import MetaData, create_engine
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


def _session_on(connection: sqlite3.Connection) -> Session:
    engine = create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)
    return Session(engine)


def build_image(metadata: MetaData, seed: Callable[[Session], None] | None = None) -> bytes:
    """Create the schema and the base records once; return the database as bytes."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    session = _session_on(connection)
    try:
        metadata.create_all(session.connection())
        if seed is not None:
            seed(session)
        session.commit()
        return connection.serialize()
    finally:
        session.close()
        session.get_bind().dispose()
        connection.close()


def restore(image: bytes) -> Session:
    """A new session on a private in-memory database holding exactly `image`."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.deserialize(image)
    return _session_on(connection)


def dump(session: Session) -> bytes:
    """The committed state of an attempt's database as an image (for a scratch copy)."""
    session.commit()
    return session.connection().connection.driver_connection.serialize()


def close(session: Session) -> None:
    """Close an attempt's session and free its database."""
    engine = session.get_bind()
    session.close()
    engine.dispose()
