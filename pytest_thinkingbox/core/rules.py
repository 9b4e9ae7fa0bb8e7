"""A domain's policy as executable rules: the second oracle, beside each task's golden path.

A policy (``policy.md``) is numbered clause by clause: every paragraph and
top-level bullet under a heading starts with its id in brackets
(``- [RT-7] If the exception was opened ...``). A domain's ``rules.py`` declares
one `Rules` for that policy; each clause is then either checked by a rule or
marked judgement-only (a matter of what the agent says, graded by rubric
questions)::

    RULES = Rules()

    @RULES.rule("RT-7", "No refund while a carrier exception is open", section="Delivery exceptions", on=("refunds",))
    def no_refund_during_an_open_exception(ev: Evidence) -> Iterator[Violation]:
        for refund in ev.added("refunds"):
            ...
                yield Violation.of(refund, "the order's carrier exception is still open", "order_id")

    RULES.judgement("RT-9", section="Delivery exceptions", why="what the customer is told")

A rule is a pure function of an attempt's `Evidence`: its start and end state
(whole tables, read lazily), its effects (the rows written) and, where a clause
is about the order of things, its transcript. It runs only when one of the
tables it names in ``on`` was written (every time when it names none), so most
attempts evaluate a handful of rules. It returns the violations it finds, each
naming the row and field; nothing here knows about pytest or agents.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Boolean, Date, DateTime, MetaData
from sqlalchemy.orm import Session

from .errors import TaskDefinitionError
from .state import Delta, Key, Row
from .values import quote_identifier

#: A clause id in a policy: letters, a dash, a number (``RT-7``), in brackets at the start of its paragraph.
CLAUSE = re.compile(r"\[(?P<id>[A-Z]{2,4}-\d+)\]")
_HEADING = re.compile(r"^(?P<level>#{2,6})\s+(?P<title>.+?)\s*$")
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+[.)])\s+(?P<text>.*)$")


@dataclass(frozen=True)
class Clause:
    """One numbered clause of a policy: its id, the headings it sits under (outermost first), its text."""

    id: str
    sections: tuple[str, ...]
    text: str

    @property
    def section(self) -> str:
        """The article (level-2 heading) the clause belongs to."""
        return self.sections[0] if self.sections else ""


@dataclass(frozen=True)
class Policy:
    """A policy's numbered clauses, and the paragraphs under a heading that carry no number."""

    clauses: dict[str, Clause]
    unnumbered: tuple[str, ...]  # the first words of each, to find them
    headings: tuple[str, ...]


def parse_policy(text: str) -> Policy:
    """The clauses of a policy text: each paragraph or top-level bullet under a heading is one clause.

    The text before the first level-2 heading (the title and preamble) holds no
    clauses. A nested bullet belongs to the clause above it. A clause id given
    twice is an error.
    """
    clauses: dict[str, Clause] = {}
    unnumbered: list[str] = []
    headings: list[str] = []
    path: list[tuple[int, str]] = []
    block: list[str] = []

    def close() -> None:
        if not block:
            return
        first = block[0].strip()
        found = CLAUSE.match(_body(first))
        if found is None:
            unnumbered.append(_body(first)[:60])
        else:
            if found["id"] in clauses:
                raise TaskDefinitionError(f"the policy numbers two clauses {found['id']}")
            text = " ".join(" ".join(line.split()) for line in block)
            clauses[found["id"]] = Clause(found["id"], tuple(t for _, t in path), text)
        block.clear()

    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading:
            close()
            level = len(heading["level"])
            path = [(lv, t) for lv, t in path if lv < level] + [(level, heading["title"])]
            headings.append(heading["title"])
            continue
        if not path:
            continue  # the title and preamble
        if not line.strip():
            close()
            continue
        item = _ITEM.match(line)
        if item and not item["indent"]:
            close()  # a new top-level bullet
        block.append(line)
    close()
    return Policy(clauses, tuple(unnumbered), tuple(headings))


def _body(line: str) -> str:
    item = _ITEM.match(line)
    return (item["text"] if item else line).lstrip()


# --- the evidence a rule reads ---------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Violation:
    """A rule broken by one row (or by the attempt as a whole, when `table` is None)."""

    message: str
    table: str | None = None
    key: Key | None = None
    field: str | None = None
    rule: str = ""  # set by `Rules.check`

    @classmethod
    def of(cls, row: RuleRow | None, message: str, field: str | None = None) -> Violation:
        """The violation of `row` (its `field`, if one), saying why."""
        if row is None:
            return cls(message)
        return cls(message, row.table, row.key, field)

    def explain(self) -> str:
        where = "" if self.table is None else f" {self.table}[{self.key}]" + (f".{self.field}" if self.field else "")
        return f"{self.rule}{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "table": self.table, "key": self.key, "field": self.field, "message": self.message}


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


# --- rules ------------------------------------------------------------------------------------------------------


Check = Callable[[Evidence], Iterable[Violation]]


@dataclass(frozen=True)
class Rule:
    """One executable rule: the clauses it checks, the tables whose writes wake it, and the check."""

    id: str
    title: str
    section: str
    check: Check
    on: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """A clause no state can show: what the agent says or how it talks, graded by rubric questions."""

    clause: str
    section: str
    why: str


@dataclass
class Rules:
    """A domain's policy as executable rules, and the clauses left to judgement (``Domain(rules=...)``)."""

    rules: dict[str, Rule] = field(default_factory=dict)
    judgements: dict[str, Judgement] = field(default_factory=dict)

    def rule(
        self, id: str, title: str, *, section: str, on: Sequence[str] = (), clauses: Sequence[str] = ()
    ) -> Callable[[Check], Check]:
        """Declare a rule (a decorator): ``@RULES.rule("RT-7", "...", section="Refunds", on=("refunds",))``.

        Args:
            id: the rule's id; by default also the one clause it checks.
            title: what the rule requires, in a line.
            section: the policy heading its (first) clause sits under.
            on: the tables whose writes make the rule worth checking (none: check every attempt).
            clauses: the clause ids it checks, when not just `id`: its own first, then any it relies on
                (a definition, a date rule) wherever they sit in the policy.
        """
        if id in self.rules:
            raise TaskDefinitionError(f"rule {id} is declared twice")

        def declare(check: Check) -> Check:
            self.rules[id] = Rule(id, title, section, check, tuple(on), tuple(clauses) or (id,))
            return check

        return declare

    def judgement(self, *clauses: str, section: str, why: str) -> None:
        """Mark clauses as judgement-only: graded by what the agent says (rubric questions), not by state."""
        for clause in clauses:
            self.judgements[clause] = Judgement(clause, section, why)

    def check(self, evidence: Evidence) -> list[Violation]:
        """Every violation of every rule that the evidence's writes wake, each stamped with its rule id."""
        written = evidence.tables_written
        out = []
        for r in self.rules.values():
            if r.on and not written.intersection(r.on):
                continue
            for v in r.check(evidence) or ():
                out.append(Violation(v.message, v.table, v.key, v.field, r.id))
        return out

    def problems(self, policy_text: str) -> list[str]:
        """What keeps the rules from mapping the policy: unnumbered paragraphs, unmapped clauses, bad citations."""
        policy = parse_policy(policy_text)
        lines = [f"a paragraph has no clause id: {text!r}" for text in policy.unnumbered]
        covered: dict[str, str] = {}
        for r in self.rules.values():
            if r.section not in policy.headings:
                lines.append(f"rule {r.id} cites section {r.section!r}, which the policy does not have")
            for i, clause in enumerate(r.clauses):
                found = policy.clauses.get(clause)
                if found is None:
                    lines.append(f"rule {r.id} checks clause {clause}, which the policy does not number")
                elif i == 0 and r.section not in found.sections:  # later clauses: definitions it uses, anywhere
                    lines.append(
                        f"rule {r.id} cites section {r.section!r}, but clause {clause} is under {found.section!r}"
                    )
                covered.setdefault(clause, f"rule {r.id}")
        for j in self.judgements.values():
            found = policy.clauses.get(j.clause)
            if found is None:
                lines.append(f"judgement-only clause {j.clause} is not a clause the policy numbers")
            elif j.section not in found.sections:
                lines.append(f"judgement-only clause {j.clause} cites {j.section!r}, but it is under {found.section!r}")
            elif j.clause in covered:
                lines.append(f"clause {j.clause} is both checked by {covered[j.clause]} and marked judgement-only")
            covered.setdefault(j.clause, "judgement")
        for clause in policy.clauses:
            if clause not in covered:
                lines.append(f"clause {clause} has no rule and is not marked judgement-only")
        return lines

    def describe(self) -> list[dict[str, Any]]:
        """Each rule and judgement-only clause, as `thinkingbox rules` lists them."""
        rows: list[dict[str, Any]] = [
            {"id": r.id, "title": r.title, "section": r.section, "clauses": list(r.clauses), "on": list(r.on)}
            for r in self.rules.values()
        ]
        return rows


def rules_broken(violations: Iterable[Violation]) -> list[str]:
    """The ids of the rules broken, each once, in the order first broken."""
    return list(dict.fromkeys(v.rule for v in violations))
