"""Snapshots of a database and the differences between them.

A snapshot maps each table to its rows keyed by primary key, with values made
JSON-safe. `diff` lists what an episode changed (added / updated / removed,
per field); `compare` sets an agent's end state against the golden end state
and classifies each difference, keyed by primary key, never list position:

* wrong: both changed the field (or both added the row) but to other values;
* missing: the golden calls changed it and the agent left it as it was;
* extra: the agent changed it and the golden calls left it as it was.

Fields whose column ``info`` carries ``volatile`` are ignored by `compare`.

`diff` and `compare` work as well on partial snapshots, all restricted to one
set of rows that holds every row that differs between them: a `Delta` (the
rows written since a baseline, each with its value then and now, as the
backends' change tracking reports them) gives such snapshots through
`graded_states`, and `delta_hash` hashes a state as a base plus a delta, so
that grading costs what an attempt wrote, not what the database holds.
Nothing here knows about agents or pytest.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import MetaData
from sqlalchemy.orm import Session

from .values import jsonable, quote_identifier

Key = str  # a primary key rendered as text ("T-20", or "O-1|2" for composite keys)
Row = dict[str, Any]
Snapshot = dict[str, dict[Key, Row]]
Delta = dict[str, dict[Key, tuple[Row | None, Row | None]]]  # per table and touched key: (was, now); None = absent


def snapshot(session: Session, metadata: MetaData) -> Snapshot:
    """Every row of every table of `metadata`, as seen by `session`.

    Rows are read through the driver's cursor, so values are as the backend
    stores them (SQLite keeps datetimes as text): cheap to take, and equal
    whenever the states are equal on the same backend.
    """
    cursor = session.connection().connection.cursor()
    state: Snapshot = {}
    try:
        for name, sql, columns, key_positions in _plan(metadata):
            cursor.execute(sql)
            state[name] = {
                "|".join(str(values[i]) for i in key_positions): dict(zip(columns, map(jsonable, values), strict=True))
                for values in cursor.fetchall()
            }
    finally:
        cursor.close()
    return state


@functools.cache
def _plan(metadata: MetaData) -> list[tuple[str, str, list[str], list[int]]]:
    """Per table: its name, a query for all rows in key order, column names, key positions."""
    plan = []
    for table in metadata.sorted_tables:
        columns = [str(c.name) for c in table.columns]
        keys = [columns.index(str(c.name)) for c in table.primary_key.columns]
        sql = "SELECT {} FROM {} ORDER BY {}".format(
            ", ".join(map(quote_identifier, columns)),
            quote_identifier(str(table.name)),
            ", ".join(quote_identifier(columns[i]) for i in keys),
        )
        plan.append((str(table.name), sql, columns, keys))
    return plan


def state_hash(state: Snapshot) -> str:
    """A short content hash of a snapshot (identical states hash identically)."""
    return _content_hash(state)


def _content_hash(content: Any) -> str:
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changed(delta: Delta) -> Delta:
    """`delta` without the rows written back to their value at the baseline."""
    kept = {table: {k: pair for k, pair in rows.items() if pair[0] != pair[1]} for table, rows in delta.items()}
    return {table: rows for table, rows in kept.items() if rows}


def followed_by(first: Delta, then: Delta) -> Delta:
    """The delta from `first`'s baseline to `then`'s present (`then`'s baseline is `first`'s present)."""
    out = {table: dict(rows) for table, rows in first.items()}
    for table, rows in then.items():
        merged = out.setdefault(table, {})
        for key, (was, now) in rows.items():
            merged[key] = (merged[key][0] if key in merged else was, now)
    return out


def delta_hash(base: str, delta: Delta) -> str:
    """The hash of the state reached from a state hashed `base` by `delta`.

    Only rows whose value differs from the base count, so equal states reached
    from one base hash equal, whichever rows were written on the way.
    """
    rows = {table: {key: now for key, (_, now) in rows.items()} for table, rows in changed(delta).items()}
    return _content_hash({"base": base, "rows": rows})


def graded_states(episode: Delta, golden: Delta) -> tuple[Snapshot, Snapshot, Snapshot]:
    """The start, golden end and agent's end states, restricted to the rows either delta touched.

    Both deltas have the start state as their baseline. A row only one of
    them touched holds its start value in the other state, so `diff` and
    `compare` of these partial states give what they give on full snapshots.
    """
    before: Snapshot = {}
    golden_end: Snapshot = {}
    after: Snapshot = {}
    for table in set(episode) | set(golden):
        by_agent, by_golden = episode.get(table, {}), golden.get(table, {})
        for key in set(by_agent) | set(by_golden):
            start = by_agent[key][0] if key in by_agent else by_golden[key][0]
            for state, row in (
                (before, start),
                (golden_end, by_golden[key][1] if key in by_golden else start),
                (after, by_agent[key][1] if key in by_agent else start),
            ):
                rows = state.setdefault(table, {})
                if row is not None:
                    rows[key] = row
    return before, golden_end, after


def undo(state: Snapshot, delta: Delta) -> Snapshot:
    """The full state `delta`'s baseline was, given the full state it reached."""
    out = {table: dict(rows) for table, rows in state.items()}
    for table, rows in delta.items():
        for key, (was, _) in rows.items():
            if was is None:
                out[table].pop(key, None)
            else:
                out[table][key] = was
    return out


def volatile_fields(metadata: MetaData) -> dict[str, set[str]]:
    """Per table, the columns declared volatile (left out of golden comparison)."""
    return {str(t.name): {str(c.name) for c in t.columns if "volatile" in c.info} for t in metadata.sorted_tables}


@dataclass(frozen=True)
class Change:
    """One effect of an episode: a row added or removed, or one field updated."""

    kind: str  # "added", "removed", "updated"
    table: str
    key: Key
    field: str | None = None
    before: Any = None
    after: Any = None

    def __str__(self) -> str:
        if self.kind == "updated":
            return f"updated {self.table}[{self.key}].{self.field}: {self.before!r} -> {self.after!r}"
        return f"{self.kind} {self.table}[{self.key}]"


def diff(before: Snapshot, after: Snapshot) -> list[Change]:
    """What changed from `before` to `after`, per row and per field."""
    changes: list[Change] = []
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        for key in sorted(set(old) | set(new)):
            if key not in old:
                changes.append(Change("added", table, key, after=new[key]))
            elif key not in new:
                changes.append(Change("removed", table, key, before=old[key]))
            else:
                for name in sorted(new[key]):
                    if old[key].get(name) != new[key][name]:
                        changes.append(Change("updated", table, key, name, old[key].get(name), new[key][name]))
    return changes


@dataclass(frozen=True)
class Difference:
    """One way the agent's end state departs from the golden end state."""

    kind: str  # "wrong", "missing", "extra"
    table: str
    key: Key
    field: str | None  # None when the whole row is missing or extra
    expected: Any
    actual: Any

    def explain(self) -> str:
        where = f"{self.table}[{self.key}]" + (f".{self.field}" if self.field else "")
        if self.field is not None:
            return f"{self.kind:<8}{where}: expected {self.expected!r}, got {self.actual!r}"
        if self.kind == "missing":
            if self.expected is None:
                return f"{self.kind:<8}{where}: row should have been removed"
            return f"{self.kind:<8}{where}: row not created (expected {_brief(self.expected)})"
        if self.actual is None:
            return f"{self.kind:<8}{where}: row removed, should have been kept"
        return f"{self.kind:<8}{where}: row created, should not exist ({_brief(self.actual)})"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _brief(row: Row) -> str:
    return "{" + ", ".join(f"{k}: {v!r}" for k, v in row.items()) + "}"


def compare(before: Snapshot, golden: Snapshot, actual: Snapshot, ignore: dict[str, set[str]]) -> list[Difference]:
    """Classify every difference between the golden and the agent's end states."""
    out: list[Difference] = []
    for table in sorted(set(golden) | set(actual)):
        start, want, got = before.get(table, {}), golden.get(table, {}), actual.get(table, {})
        skip = ignore.get(table, set())
        for key in sorted(set(want) | set(got)):
            w, g = want.get(key), got.get(key)
            if w is None or g is None:
                # One side has the row and the other not: whoever departs from the start owns it.
                golden_changed_presence = (key in start) != (w is not None)
                kind = "missing" if golden_changed_presence else "extra"
                out.append(Difference(kind, table, key, None, _kept(w, skip), _kept(g, skip)))
                continue
            s = start.get(key)
            for name in sorted(set(w) | set(g)):
                if name in skip or w.get(name) == g.get(name):
                    continue
                if s is not None and g.get(name) == s.get(name):
                    kind = "missing"
                elif s is not None and w.get(name) == s.get(name):
                    kind = "extra"
                else:
                    kind = "wrong"
                out.append(Difference(kind, table, key, name, w.get(name), g.get(name)))
    return out


def _kept(row: Row | None, skip: set[str]) -> Row | None:
    return None if row is None else {k: v for k, v in row.items() if k not in skip}
