"""A fresh database per attempt, restored from an image built once per worker.

`open_backend` picks the backend: SQLite in memory by default (`sqlite.py`),
PostgreSQL (`postgres.py`) when a URL is given. Both build an image once,
restore it into a private database per attempt, dump a database for a scratch
copy, and release it when the attempt ends; `base.py` holds what they share.
"""

from __future__ import annotations

from typing import Any


def open_backend(url: str | None) -> Any:
    """The backend for a database URL: SQLite in memory when `url` is empty, else PostgreSQL."""
    if not url:
        from .sqlite import SQLiteBackend

        return SQLiteBackend()
    from .postgres import PostgresBackend

    return PostgresBackend(url)
