"""Helpers for a domain's ``seed.py``: the base records every task starts from.

A seed keeps its reference data as tables of tuples, one tuple a record, with a
comment naming the columns; `add_rows` turns such a table into records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy.orm import Session


def add_rows(db: Session, model: type, columns: Sequence[str], rows: Iterable[Sequence[Any]], **same: Any) -> None:
    """Add a `model` record per row of `rows`: its values for `columns` in their order, and `same` in every record."""
    for row in rows:
        db.add(model(**dict(zip(columns, row, strict=True)), **same))


def work_email(name: str, domain: str) -> str:
    """A staff member's work address: their name in lower case, words joined by dots, at the firm's `domain`."""
    return name.lower().replace(" ", ".") + "@" + domain
