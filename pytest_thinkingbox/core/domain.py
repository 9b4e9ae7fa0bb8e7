"""What a domain is, and the small helpers every domain's tools use.

A domain is SQLAlchemy models (one `MetaData`), a `ToolSet`, a written policy,
a fixed clock and an optional base seed (records every task starts from, such
as a product catalogue). The helpers keep tools deterministic: ids come from
the database state, times from the domain clock.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import MetaData, bindparam, func, inspect, select
from sqlalchemy.orm import Session

from .rules import Rules
from .tools import NOT_FOUND, ToolFailure, ToolSet
from .values import jsonable

T = TypeVar("T")


@dataclass(frozen=True)
class Domain:
    """A business domain the bundled or a user's tasks run against.

    Args:
        name: short identifier used in reports (``retail``).
        metadata: the `MetaData` holding every table of the domain.
        tools: the domain's `ToolSet`.
        policy: the policy text the agent reads (a path to a Markdown file or the text).
        now: the fixed clock; tools must use it instead of the wall clock.
        seed: writes the base records every task starts from; run once per worker.
        rules: the policy as executable rules (`core/rules.py`): every attempt is checked against them,
            and ``--tb-validate`` checks every golden end state.
        aliases: other names people use for the facts the domain's users know (``{"employee id":
            ("personnel number", "staff ID")}``), given to every task's simulated user.
    """

    name: str
    metadata: MetaData
    tools: ToolSet
    policy: str | Path
    now: dt.datetime
    seed: Callable[[Session], None] | None = None
    rules: Rules | None = None
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @functools.cached_property
    def policy_text(self) -> str:
        return self.policy.read_text(encoding="utf-8") if isinstance(self.policy, Path) else self.policy


def volatile(reason: str) -> dict[str, str]:
    """Column ``info`` marking a field left out of golden comparison, with why.

    ``body: Mapped[str] = mapped_column(info=volatile("free text written by the agent"))``
    """
    return {"volatile": reason}


def next_id(db: Session, model: type, prefix: str, width: int = 4) -> str:
    """The next id of the form ``<prefix><number>``, computed from the rows present.

    Deterministic: the same start state and the same calls give the same ids.
    The highest number is found by length, longest ids first, through the
    index on the key's length the backends add (see ``backends/tracking.py``):
    a few index probes, not a scan of the table.
    """
    queries = _id_queries(model, db.get_bind().dialect.name)
    pattern = re.compile(re.escape(prefix) + r"([0-9]+)")
    best = 0
    longest = db.scalar(queries.longest)
    while longest is not None and longest > len(prefix):
        digits = longest - len(prefix)
        if 10**digits - 1 <= best:
            break  # no number of this many digits, or fewer, is higher
        best = max(best, _highest(db, queries, pattern, prefix, longest, digits))
        longest = db.scalar(queries.shorter, {"below": longest})
    return f"{prefix}{best + 1:0{width}d}"


@dataclass(frozen=True)
class _IdQueries:
    longest: Any  # the longest key's length
    shorter: Any  # the longest length below :below
    page: Any  # keys :size long in [:low, :high], highest first
    next_page: Any  # the same, below :high


@functools.cache
def _id_queries(model: type, dialect: str) -> _IdQueries:
    """`next_id`'s queries for a model, built once with bound parameters (building one costs as much as running it)."""
    key: Any = inspect(model).primary_key[0]
    # Ordered bytewise, as the index orders keys on PostgreSQL and SQLite does anyway.
    column = key.collate("C") if dialect == "postgresql" else key
    length: Any = func.length(key)
    # Every id of one length in [low, high] lies where bytewise order is numeric order; others there are skipped.
    of_size = select(column).where(length == bindparam("size"), column >= bindparam("low"))
    return _IdQueries(
        longest=select(func.max(length)),
        shorter=select(func.max(length)).where(length < bindparam("below")),
        page=of_size.where(column <= bindparam("high")).order_by(column.desc()).limit(32),
        next_page=of_size.where(column < bindparam("high")).order_by(column.desc()).limit(32),
    )


def _highest(db: Session, queries: _IdQueries, pattern: re.Pattern[str], prefix: str, size: int, digits: int) -> int:
    """The highest number among ids `size` long that are `prefix` and `digits` digits (0 if none)."""
    query, bounds = queries.page, {"size": size, "low": prefix + "0" * digits, "high": prefix + "9" * digits}
    while found := db.scalars(query, bounds).all():
        for value in found:
            if match := pattern.fullmatch(str(value)):
                return int(match.group(1))
        query, bounds = queries.next_page, {**bounds, "high": found[-1]}
    return 0


def rows_where(db: Session, column: Any, value: Any) -> list[Any]:
    """The rows whose `column` (a mapped attribute, e.g. ``Refund.order_id``) equals `value`, by primary key.

    Reads what ``select(Refund).where(Refund.order_id == value).order_by(Refund.id)``
    reads (``IS NULL`` for None), from a statement built once per column:
    building a statement and its cache key on every call costs about as much
    again as running it.
    """
    if value is None:
        return list(db.scalars(_rows_where(column, null=True)))
    return list(db.scalars(_rows_where(column, null=False), {"value": value}))


@functools.cache
def _rows_where(column: Any, null: bool) -> Any:
    mapper = column.parent
    matches = column.is_(None) if null else column == bindparam("value")
    return select(mapper).where(matches).order_by(*mapper.primary_key)


def get_or_fail(db: Session, model: type[T], key: Any, what: str | None = None) -> T:
    """The row with primary key `key`, or a ``NOT_FOUND`` tool failure naming it."""
    row = db.get(model, key)
    if row is None:
        label = what or model.__name__.lower()
        raise ToolFailure(NOT_FOUND, f"no {label} with id {key!r}")
    return row


def row_dict(row: Any, *exclude: str) -> dict[str, Any]:
    """A model instance as a dict of its column values, for tool results."""
    mapper = inspect(type(row))
    return {c.key: jsonable(getattr(row, c.key)) for c in mapper.column_attrs if c.key not in exclude}
