"""A fresh PostgreSQL database state per attempt, on databases a worker creates and reuses.

The server named by ``--tb-db`` is used only to create and drop databases.
Each worker creates its own databases (with the domain's schema) as it needs
them and restores an image into one per attempt: every other connection to it
is ended, and the database is brought back to the image, so commits,
sequences and extra connections cannot leak from one attempt into the next.
A database that last held the same image is brought back by undoing the rows
written since (kept by the change tracking), at a cost that grows with what
the attempt wrote; any other is emptied and the image's rows copied in.
Names carry a per-process run id, and every connection of the run carries it
as its application name: a later run drops the databases of runs that are no
longer connected (a crash leaves nothing for long).
"""

from __future__ import annotations

import re
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from ..errors import ThinkingboxError
from ..values import quote_identifier
from .base import ReusedDatabases, deferred_foreign_keys, driver_connection, engine_of, forget_compiled
from .tracking import RESTORING, forget_set_aside, postgres_ddl, undo_to_baseline, undo_to_restored

PREFIX = "thinkingbox_"
_RUN_NAME = re.compile(rf"^{PREFIX}([0-9a-f]{{10}})_")


class StaleDatabaseWarning(UserWarning):
    """Databases left by killed runs of another role, which this run may not drop."""


class PostgresError(ThinkingboxError):
    """The server cannot serve the run: unreachable, or no permission to create databases."""


def server_url(url: str) -> URL:
    """`url` with the psycopg (3) driver, or a `ValueError` that says what is accepted."""
    try:
        parsed = make_url(url)
    except Exception:
        raise ValueError(f"{url!r} is not a database URL; use postgresql://user@host:port/dbname") from None
    if parsed.get_backend_name() != "postgresql" or parsed.get_driver_name() not in ("psycopg", "psycopg2"):
        raise ValueError(
            f"{url!r} is not a PostgreSQL URL this plugin can use; use postgresql://user@host:port/dbname "
            "(or postgresql+psycopg://...)"
        )
    return parsed.set(drivername="postgresql+psycopg")


def check_server(url: URL) -> None:
    """Connect once and check the role may create databases; `PostgresError` saying why not."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            allowed = connection.scalar(
                text("SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user")
            )
    except Exception as exc:
        raise PostgresError(
            f"cannot connect to PostgreSQL at {url.render_as_string(hide_password=True)}: {_first_line(exc)}"
        ) from None
    finally:
        engine.dispose()
    if not allowed:
        raise PostgresError(
            f"the role {url.username!r} may not create databases on {url.host}:{url.port or 5432}; "
            f"grant it with: ALTER ROLE {url.username} CREATEDB"
        )


@dataclass(frozen=True)
class Image:
    """A database state to restore: each table's rows as COPY text (parents first) and the sequences."""

    metadata: MetaData
    tables: tuple[tuple[str, bytes], ...]
    sequences: tuple[tuple[str, int, bool], ...]


class PostgresBackend(ReusedDatabases):
    """PostgreSQL databases for one worker, each restored from an image per attempt.

    Same contract as `SQLiteBackend`. A database is created (with the domain's
    schema) once per concurrent use, then reused (`ReusedDatabases`): a
    restore of the image it last held ends its other connections and undoes
    what was written since, sequences included; any other restore empties
    every table, resets the sequences and copies the image's rows in, in one
    transaction. Both cost milliseconds at the bundled domains' size, where
    ``CREATE DATABASE ... TEMPLATE`` costs hundreds on a busy disk
    (bench/postgres.py measures them).
    """

    undoes_writes = True  # a load deletes and copies every row; an undo touches only the rows written
    probes_keys = True

    def __init__(self, url: str | URL) -> None:
        super().__init__()
        self._url = server_url(str(url)) if isinstance(url, str) else url
        self.run_id = uuid.uuid4().hex[:10]
        self._connect_args = {
            "application_name": PREFIX + self.run_id,  # how a later run sees that this one is alive
            "options": "-c synchronous_commit=off",  # throwaway databases need no durable commits
        }
        self._databases: list[str] = []
        # Held open for the whole run; unpooled, so that closing it at the end closes the server connection.
        self._admin = create_engine(
            self._url, isolation_level="AUTOCOMMIT", poolclass=NullPool, connect_args=self._connect_args
        ).connect()
        self.sweep()

    def build_image(self, metadata: MetaData, seed: Callable[[Session], None] | None = None) -> Image:
        """Create the schema and the base records once; return them as an image."""
        session = Session(self._add(metadata))
        try:
            # The seed is the image, not a write to track: recorded, it would leave shadows of dead rows
            # that make the planner think them large.
            session.execute(text(f"SET {RESTORING} = 'on'"))
            if seed is not None:
                seed(session)
            session.commit()
            session.execute(text(f"RESET {RESTORING}"))
            image = self.dump(session)
            # This database holds the image already: its first restore undoes nothing instead of copying it in.
            self._restored_from[engine_of(session)] = image
            return image
        finally:
            self.release(session)

    def _load(self, session: Session, image: Image) -> None:
        """Empty every table, copy the image's rows in and reset the sequences, in one transaction."""
        raw = driver_connection(session)
        with raw.cursor() as cursor:
            _end_other_connections(cursor)
            # The copy is not a write of the attempt: the triggers skip it, and the restored state is the baseline.
            cursor.execute(f"SET LOCAL {RESTORING} = 'on'")
            forget_set_aside(cursor, [name for name, _ in image.tables])
            # DELETE, children first, not TRUNCATE: on small tables it skips creating and syncing new files.
            for name, _ in reversed(image.tables):
                cursor.execute(f"DELETE FROM {quote_identifier(name)}")
            for name, rows in image.tables:
                if rows:
                    with cursor.copy(f"COPY {quote_identifier(name)} FROM STDIN") as copy:
                        copy.write(rows)
            _set_sequences(cursor, image.sequences)
        session.commit()

    def _undo(self, engine: Engine, image: Image) -> None:
        """Put back the rows written since the restore, and the sequences."""
        with engine.connect() as connection:
            raw: Any = connection.connection.driver_connection
            with raw.cursor() as cursor:
                _prepare_undo(cursor)
                undo_to_restored(cursor, self._schema_of[engine])
                _set_sequences(cursor, image.sequences)
            raw.commit()

    def dump(self, session: Session) -> Image:
        """The committed state of a session's database as an image (for a scratch copy)."""
        session.commit()
        metadata = self._schema(session)
        raw = driver_connection(session)
        tables = []
        with raw.cursor() as cursor:
            for table in metadata.sorted_tables:
                with cursor.copy(f"COPY {quote_identifier(table.name)} TO STDOUT") as copy:
                    tables.append((str(table.name), b"".join(bytes(block) for block in copy)))
            sequences = _sequences(cursor)
        session.commit()
        return Image(metadata, tuple(tables), sequences)

    @contextmanager
    def scratch(self, session: Session) -> Iterator[Session]:
        """The session itself: what the block writes is undone after it, sequences included.

        A copy would dump and load every row of the database (seconds at
        100,000 rows); the undo touches only the rows the block wrote.
        """
        session.commit()
        with driver_connection(session).cursor() as cursor:
            sequences = _sequences(cursor)
        try:
            yield session
        finally:
            session.rollback()  # what the block left uncommitted; the committed rest is undone below
            with driver_connection(session).cursor() as cursor:
                _prepare_undo(cursor)
                undo_to_baseline(cursor, self._schema(session))
                _set_sequences(cursor, sequences)
            session.commit()

    def close(self) -> None:
        """Drop every database this run created and end the run."""
        for engine in self._schema_of:
            engine.dispose()
        forget_compiled({engine.dialect for engine in self._schema_of})
        for name in self._databases:
            self._drop(name)
        self._databases.clear()
        self._admin.close()

    def sweep(self) -> list[str]:
        """Drop the databases that runs which are no longer connected left behind; return their names."""
        pattern = {"pattern": PREFIX.replace("_", r"\_") + "%"}
        names = self._admin.scalars(
            text("SELECT datname FROM pg_database WHERE datname LIKE :pattern ORDER BY datname"), pattern
        ).all()
        alive = set(
            self._admin.scalars(
                text("SELECT application_name FROM pg_stat_activity WHERE application_name LIKE :pattern"), pattern
            ).all()
        )
        stale = [n for n in names if (m := _RUN_NAME.match(n)) and PREFIX + m.group(1) not in alive]
        dropped, left = [], []
        for name in stale:
            try:
                self._drop(name)
                dropped.append(name)
            except DBAPIError:  # another role's database: only its owner (or a superuser) may drop it
                left.append(name)
        if left:
            warnings.warn(
                f"--tb-db: {len(left)} databases left by killed runs belong to another role and were kept "
                f"(e.g. {left[0]}); drop them as their owner. This run does not need them.",
                StaleDatabaseWarning,
                stacklevel=2,
            )
        return dropped

    def _new_database(self, metadata: MetaData) -> Engine:
        """A new database with `metadata`'s schema, and an engine for it."""
        name = f"{PREFIX}{self.run_id}_{len(self._databases) + 1}"
        self._admin.execute(text(f"CREATE DATABASE {name}"))
        self._databases.append(name)
        # One pooled connection: a restore ends any other, so nothing an attempt opened outlives it.
        engine = create_engine(
            self._url.set(database=name), pool_size=1, max_overflow=-1, connect_args=self._connect_args
        )
        with deferred_foreign_keys(metadata):
            metadata.create_all(engine)
        with engine.begin() as connection:  # the change tracking: shadows, triggers, key-length indexes
            for statement in postgres_ddl(metadata):
                connection.exec_driver_sql(statement)
        return engine

    def _drop(self, name: str) -> None:
        self._admin.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def _end_other_connections(cursor: Any) -> None:
    """End every other connection to the cursor's database (a task may have opened its own)."""
    cursor.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )


def _prepare_undo(cursor: Any) -> None:
    """Set up the cursor's transaction to put rows back: alone on the database, untracked, keys probed."""
    _end_other_connections(cursor)  # one holding a lock (a tool may leave one open) would block the undo
    cursor.execute(f"SET LOCAL {RESTORING} = 'on'")
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    # Probe the written rows' keys: the tracking tables, emptied at every attempt, look larger to the
    # planner than they are until vacuumed, and a hash join would scan whole domain tables.
    cursor.execute("SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off")


def _sequences(cursor: Any) -> tuple[tuple[str, int, bool], ...]:
    """Each sequence of the database with its last value and whether that value was handed out."""
    cursor.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")
    sequences = []
    for (name,) in cursor.fetchall():
        cursor.execute(f"SELECT last_value, is_called FROM {quote_identifier(name)}")
        last, called = cursor.fetchone()
        sequences.append((name, last, called))
    return tuple(sequences)


def _set_sequences(cursor: Any, sequences: tuple[tuple[str, int, bool], ...]) -> None:
    for name, last, called in sequences:
        cursor.execute("SELECT setval(%s, %s, %s)", (quote_identifier(name), last, called))


def _first_line(exc: Exception) -> str:
    return (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [type(exc).__name__])[0]
