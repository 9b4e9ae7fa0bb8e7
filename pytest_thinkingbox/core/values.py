"""Small helpers every layer may use: JSON-safe column values and quoted SQL identifiers."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any


def jsonable(value: Any) -> Any:
    """A JSON-safe form of a column value (dates as ISO text, decimals as text)."""
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


def quote_identifier(identifier: str) -> str:
    """An SQL identifier in double quotes (SQLite and PostgreSQL alike)."""
    return '"' + identifier.replace('"', '""') + '"'


def at_least_one(text: str) -> int:
    """`text` as a whole number of at least 1, else a ValueError that quotes it (for option parsers)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"expected a whole number of at least 1, got {text!r}")
    return value
