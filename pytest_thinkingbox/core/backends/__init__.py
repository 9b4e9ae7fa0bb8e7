"""A fresh database per attempt, restored from an image built once per worker.

`open_backend` picks the backend: SQLite in memory by default (`sqlite.py`),
PostgreSQL (`postgres.py`) when a URL is given. Both build an image once,
restore it into a private database per attempt, dump a database for a scratch
copy, and release it when the attempt ends; `base.py` holds what they share.
`Backend` is what the attempt layer may ask of either.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy import MetaData
    from sqlalchemy.orm import Session

    from ..state import Delta


class Backend(Protocol):
    """Databases for attempts. Images, held databases and replayable rows are the backend's own opaque values."""

    undoes_writes: bool  # restores by undoing an attempt's writes (a prepared start's image cannot be reused)
    replays_rows: bool  # can write an arrange step's rows again without the ORM (rows_to_replay, replay)

    def build_image(self, metadata: MetaData, seed: Callable[[Session], None] | None = None) -> Any:
        """The schema and the domain's base records, once per worker: the image attempts restore."""
        ...

    def restore(self, image: Any) -> Session:
        """A database of its own holding `image`, for one attempt."""
        ...

    def release(self, session: Session) -> None:
        """The attempt is over: its database may serve another."""
        ...

    def hold(self, session: Session) -> Any:
        """Keep an ended episode's database aside (an early start) until its test takes it over."""
        ...

    def drop(self, held: Any) -> None: ...

    def take_over(self, session: Session, held: Any) -> None: ...

    def scratch(self, session: Session) -> AbstractContextManager[Session]:
        """A throw-away copy of the database, for what must not touch the attempt's own (the golden replay)."""
        ...

    def dump(self, session: Session) -> Any:
        """The database as an image (a prepared start that later attempts restore)."""
        ...

    def take_changes(self, session: Session) -> Delta:
        """What was written since the restore, which becomes the new baseline."""
        ...

    def changes(self, session: Session) -> Delta:
        """What was written since the baseline."""
        ...

    def written_since_restore(self, session: Session) -> bool: ...

    def rows_to_replay(self, session: Session) -> Any | None: ...

    def replay(self, session: Session, rows: Any) -> None: ...

    def close(self) -> None:
        """Free every database (PostgreSQL: drop those this run created)."""
        ...


def open_backend(url: str | None) -> Backend:
    """The backend for a database URL: SQLite in memory when `url` is empty, else PostgreSQL."""
    if not url:
        from .sqlite import SQLiteBackend

        return SQLiteBackend()
    from .postgres import PostgresBackend

    return PostgresBackend(url)
