"""What a rule reads: an attempt's start and end (or golden end) states as typed rows, read only as asked,
its writes and its transcript. The rows come from the attempt's database, and the other states are
that database with a delta's rows patched in.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Date, DateTime, MetaData
from sqlalchemy.orm import Session

from .state import Delta, Key, Row
from .values import quote_identifier


class RuleRow(Mapping[str, Any]):
    """One row as a rule reads it: typed values (dates, times, booleans), by name or as attributes."""

    __slots__ = ("_values", "key", "table")

    def __init__(self, table: str, key: Key, values: Mapping[str, Any]) -> None:
        self.table, self.key, self._values = table, key, values

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"{self.table} has no column {name!r}") from None

    def __repr__(self) -> str:
        return f"<{self.table}[{self.key}]>"


class Source:
    """Where a state's rows come from: the attempt's database (the end state). Each answer is kept, so the
    start state's view, which asks the same questions of it, costs no second query."""

    def __init__(self, session: Session, metadata: MetaData) -> None:
        self.session, self.metadata = session, metadata
        self._marker = "?" if session.get_bind().dialect.paramstyle == "qmark" else "%s"
        self._answers: dict[tuple[str, tuple[tuple[str, Any], ...] | None], dict[Key, Row]] = {}

    def select(self, table: str, match: Mapping[str, Any] | None) -> dict[Key, Row]:
        """The rows of `table` whose columns equal `match` (every row when None), values as stored."""
        asked = (table, None if match is None else tuple(sorted(match.items())))
        if asked not in self._answers:
            self._answers[asked] = self._query(table, match)
        return self._answers[asked]

    def _query(self, table: str, match: Mapping[str, Any] | None) -> dict[Key, Row]:
        columns, keys = _columns(self.metadata, table)
        sql = f"SELECT {', '.join(map(quote_identifier, columns))} FROM {quote_identifier(table)}"
        names = sorted(match or {})
        if names:
            sql += " WHERE " + " AND ".join(f"{quote_identifier(n)} = {self._marker}" for n in names)
        cursor = self.session.connection().connection.cursor()
        try:
            cursor.execute(sql, [match[n] for n in names] if match else ())
            rows = cursor.fetchall()
        finally:
            cursor.close()
        return {"|".join(str(v[i]) for i in keys): dict(zip(columns, v, strict=True)) for v in rows}


class Patched:
    """Another state's rows: those of `base`, with the rows a delta wrote as they were (`then`) or are (`now`)."""

    def __init__(self, base: Source | Patched, delta: Delta, side: int, typed: Callable[[str, Row], Row]) -> None:
        self.base, self.delta, self.side, self._typed = base, delta, side, typed

    def select(self, table: str, match: Mapping[str, Any] | None) -> dict[Key, Row]:
        written = self.delta.get(table, {})
        rows = {k: r for k, r in self.base.select(table, match).items() if k not in written}
        for key, pair in written.items():
            row = pair[self.side]
            if row is not None and (not match or _matches(self._typed(table, row), match)):
                rows[key] = row
        return rows


def _matches(row: Row, match: Mapping[str, Any]) -> bool:
    return all(row.get(name) == value for name, value in match.items())


class TableView:
    """One state of the database (start, end or golden end), read by what a rule asks for.

    `get` (by primary key), `where` and `one` (by column values) read only the
    rows asked for, so a rule costs what it looks at, not what the database
    holds; `rows` reads a whole table. Each answer is kept for the next rule.
    Match on ids, codes and flags; compare dates and amounts in Python.
    """

    def __init__(self, source: Source | Patched, metadata: MetaData, typed: Callable[[str, Row], Row]) -> None:
        self._source, self._metadata, self._typed = source, metadata, typed
        self._answers: dict[tuple[str, tuple[tuple[str, Any], ...] | None], list[RuleRow]] = {}

    def _ask(self, table: str, match: Mapping[str, Any] | None) -> list[RuleRow]:
        asked = (table, None if match is None else tuple(sorted(match.items())))
        if asked not in self._answers:
            rows = self._source.select(table, match)
            self._answers[asked] = [RuleRow(table, k, self._typed(table, rows[k])) for k in sorted(rows)]
        return self._answers[asked]

    def rows(self, table: str) -> list[RuleRow]:
        """Every row of `table`, in primary-key order (reads the whole table)."""
        return self._ask(table, None)

    def get(self, table: str, *key: Any) -> RuleRow | None:
        """The row of `table` whose primary key is `key` (its columns in order, for a composite key), or None."""
        _, keys = _columns(self._metadata, table)
        names = _key_names(self._metadata, table)
        if len(key) != len(keys):
            raise TypeError(f"{table}'s primary key is ({', '.join(names)}); got {key!r}")
        found = self._ask(table, dict(zip(names, key, strict=True)))
        return found[0] if found else None

    def where(self, table: str, **match: Any) -> list[RuleRow]:
        """The rows of `table` whose columns equal the given values, in primary-key order."""
        if not match:
            return self.rows(table)
        return self._ask(table, match)

    def one(self, table: str, **match: Any) -> RuleRow | None:
        """The first row `where` finds, or None."""
        found = self.where(table, **match)
        return found[0] if found else None


@dataclass(frozen=True)
class ToolCall:
    """One tool call the transcript records, with its result."""

    tool: str
    arguments: dict[str, Any]
    error: str | None
    result: str


class Evidence:
    """What a rule judges: one attempt's start and end states, its writes and its transcript.

    Attributes:
        start, end: `TableView` of the start and the end state.
        messages: the transcript (the episode's messages).
        now: the domain's clock.
        written: per table and key, (row then, row now) of each row the attempt changed.
    """

    def __init__(
        self,
        metadata: MetaData,
        written: Delta,
        end: Source | Patched,
        messages: Sequence[Mapping[str, Any]] = (),
        now: dt.datetime | None = None,
    ) -> None:
        self.metadata = metadata
        self.written: Delta = {t: {k: p for k, p in rows.items() if p[0] != p[1]} for t, rows in written.items()}
        self.messages = list(messages)
        self.now = None if now is None else now.replace(tzinfo=None)
        self._typed = functools.partial(_typed, _converters(metadata))
        self._start_source = Patched(end, self.written, 0, self._typed)
        self.end = TableView(end, metadata, self._typed)
        self.start = TableView(self._start_source, metadata, self._typed)
        self.tables_written = frozenset(table for table, rows in self.written.items() if rows)
        self._memos: dict[Any, Any] = {}

    @classmethod
    def of_session(
        cls,
        session: Session,
        metadata: MetaData,
        written: Delta,
        messages: Sequence[Mapping[str, Any]] = (),
        now: dt.datetime | None = None,
    ) -> Evidence:
        """The evidence of an attempt whose database `session` holds its end state; `written` since its start."""
        return cls(metadata, written, Source(session, metadata), messages, now)

    def golden(self, golden: Delta, messages: Sequence[Mapping[str, Any]] = ()) -> Evidence:
        """The evidence of the golden path from the same start: the start state with `golden`'s writes applied."""
        end = Patched(self._start_source, golden, 1, self._typed)
        return Evidence(self.metadata, golden, end, messages or self.messages, self.now)

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """What `make` returns, made once per attempt: for a reading several rules share (e.g. the tickets
        the conversation worked), so each rule asks for it by `key` and only the first pays."""
        if key not in self._memos:
            self._memos[key] = make()
        return self._memos[key]

    def changed_rows(self, table: str) -> list[tuple[RuleRow | None, RuleRow | None]]:
        """(row at the start, row at the end) of each row of `table` the attempt changed; None where absent."""
        if table not in self.tables_written:
            return []

        def make() -> list[tuple[RuleRow | None, RuleRow | None]]:
            return [
                (
                    None if was is None else RuleRow(table, key, self._typed(table, was)),
                    None if now is None else RuleRow(table, key, self._typed(table, now)),
                )
                for key, (was, now) in sorted(self.written[table].items())
            ]

        rows: list[tuple[RuleRow | None, RuleRow | None]] = self.memo(("changed", table), make)
        return rows

    def added(self, table: str) -> list[RuleRow]:
        """The rows of `table` the attempt created."""
        return [now for was, now in self.changed_rows(table) if was is None and now is not None]

    def removed(self, table: str) -> list[RuleRow]:
        """The rows of `table` the attempt deleted, as they were."""
        return [was for was, now in self.changed_rows(table) if now is None and was is not None]

    def updated(self, table: str, *fields: str) -> list[tuple[RuleRow, RuleRow]]:
        """(before, after) of each row of `table` the attempt updated, in any of `fields` (any field if none)."""
        out = []
        for was, now in self.changed_rows(table):
            if was is None or now is None:
                continue
            if not fields or any(was[f] != now[f] for f in fields):
                out.append((was, now))
        return out

    def tool_calls(self) -> list[ToolCall]:
        """The tool calls the transcript records, in order, each with its result."""

        def make() -> list[ToolCall]:
            results = {m.get("call_id"): m for m in self.messages if m.get("role") == "tool"}
            out = []
            for m in self.messages:
                if m.get("role") != "assistant":
                    continue
                for c in m.get("tool_calls") or ():
                    result = results.get(c.get("id"), {})
                    content = str(result.get("content") or "")
                    out.append(ToolCall(c.get("tool", ""), c.get("arguments") or {}, result.get("error"), content))
            return out

        calls: list[ToolCall] = self.memo(("tool_calls",), make)
        return calls

    def said(self) -> str:
        """What the agent told the customer: its messages' text, joined."""
        return "\n".join(str(m["content"]) for m in self.messages if m.get("role") == "assistant" and m.get("content"))


@functools.cache
def _columns(metadata: MetaData, table: str) -> tuple[list[str], list[int]]:
    """A table's column names, and the positions of its primary key's columns among them."""
    if table not in metadata.tables:
        raise KeyError(f"no table {table!r} in this domain; tables: {', '.join(sorted(metadata.tables))}")
    t = metadata.tables[table]
    columns = [str(c.name) for c in t.columns]
    return columns, [columns.index(str(c.name)) for c in t.primary_key.columns]


def _key_names(metadata: MetaData, table: str) -> list[str]:
    columns, keys = _columns(metadata, table)
    return [columns[i] for i in keys]


Converter = Callable[[Any], Any]


@functools.cache
def _converters(metadata: MetaData) -> dict[str, dict[str, Converter]]:
    """Per table, per column whose stored form differs by backend: the function that types its values."""
    out: dict[str, dict[str, Converter]] = {}
    for t in metadata.sorted_tables:
        for c in t.columns:
            if isinstance(c.type, DateTime):
                out.setdefault(str(t.name), {})[str(c.name)] = _datetime
            elif isinstance(c.type, Date):
                out.setdefault(str(t.name), {})[str(c.name)] = _date
            elif isinstance(c.type, Boolean):
                out.setdefault(str(t.name), {})[str(c.name)] = _bool
    return out


def _typed(converters: dict[str, dict[str, Converter]], table: str, row: Row) -> dict[str, Any]:
    convert = converters.get(table)
    if not convert:
        return row
    return {name: convert[name](v) if name in convert and v is not None else v for name, v in row.items()}


def _datetime(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return dt.datetime.fromisoformat(str(value)).replace(tzinfo=None)


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def _bool(value: Any) -> bool:
    return bool(int(value)) if isinstance(value, (int, str)) else bool(value)
