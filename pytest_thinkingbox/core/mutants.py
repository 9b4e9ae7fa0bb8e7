"""Single-step mutants of a golden call list, for proving that a task's checks can fail.

Each mutant changes one thing about the golden path, the way a careless agent
would: it drops a write, repeats a write, gives one argument of a write another
valid value of the same type (another existing id, another enum value, an
amount a tenth lower, the next day, the other boolean), or adds a plausible
extra write at the end. A task whose checks pass under a mutant that leaves a
different end state has a gap. Nothing here runs anything.
"""

from __future__ import annotations

import datetime as dt
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .task import Call


@dataclass(frozen=True)
class Mutant:
    """One altered golden path: what kind of change, to which call, and the calls to replay."""

    kind: str  # "drop", "duplicate", "change" or "extra"
    index: int  # the golden call changed (0-based); for "extra", the call the extra one is made from
    change: str  # what changed, for the report
    calls: tuple[Call, ...]


def mutants(
    golden: Sequence[Call], writes: Mapping[str, Callable[..., Any]], ids: Mapping[str, Sequence[str]]
) -> list[Mutant]:
    """Every single-step mutant of `golden`.

    Args:
        golden: the task's golden calls.
        writes: the domain's write tools by name (their signatures give the argument types).
        ids: every primary key of the task's start state, per table, so an id argument can be
            swapped for another existing id of the same table.
    """
    golden = tuple(golden)
    found: list[Mutant] = []
    for i, c in enumerate(golden):
        if c.tool not in writes:
            continue
        before, after = golden[:i], golden[i + 1 :]
        found.append(Mutant("drop", i, f"call {i + 1} {c} left out", before + after))
        found.append(Mutant("duplicate", i, f"call {i + 1} {c} made twice", (*before, c, c, *after)))
        for name, value, other in _alternatives(c, writes[c.tool], ids):
            changed = Call(c.tool, {**c.arguments, name: other})
            found.append(
                Mutant("change", i, f"call {i + 1} {c.tool}: {name} {value!r} -> {other!r}", (*before, changed, *after))
            )
    first_write = next((i for i, c in enumerate(golden) if c.tool in writes), None)
    if first_write is not None:
        c = golden[first_write]
        for name, _, other in _alternatives(c, writes[c.tool], ids):
            extra = Call(c.tool, {**c.arguments, name: other})
            found.append(Mutant("extra", first_write, f"extra call at the end: {extra}", (*golden, extra)))
            break
    return found


def _alternatives(
    c: Call, tool: Callable[..., Any], ids: Mapping[str, Sequence[str]]
) -> Iterator[tuple[str, Any, Any]]:
    """(argument, its value, another valid value) for each argument of `c` that has another value."""
    hints = typing.get_type_hints(tool)
    for name, value in c.arguments.items():
        other = _other_value(value, hints.get(name), ids)
        if other is not None and other != value:
            yield name, value, other


def _other_value(value: Any, hint: Any, ids: Mapping[str, Sequence[str]]) -> Any:
    choices = _literal_choices(hint)
    if choices and value in choices:
        return choices[(choices.index(value) + 1) % len(choices)]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - max(1, value // 10) if value > 0 else value + 1  # amounts are in cents: a tenth less
    if isinstance(value, float):
        return round(value * 0.9, 2) if value > 0 else value + 1.0
    if isinstance(value, str):
        return _other_string(value, ids)
    return None


def _other_string(value: str, ids: Mapping[str, Sequence[str]]) -> str | None:
    for keys in ids.values():
        if value in keys and len(keys) > 1:
            return keys[(list(keys).index(value) + 1) % len(keys)]
    for parse in (dt.date.fromisoformat, dt.datetime.fromisoformat):
        try:
            parsed = parse(value)
        except ValueError:
            continue
        return (parsed + dt.timedelta(days=1)).isoformat()
    return None  # free text: the task may rightly ignore it (a volatile field), so no mutant is made


def _literal_choices(hint: Any) -> list[Any]:
    """The values of a `Literal[...]` type, also inside `X | None`."""
    if typing.get_origin(hint) is typing.Literal:
        return list(typing.get_args(hint))
    for arg in typing.get_args(hint):
        if typing.get_origin(arg) is typing.Literal:
            return list(typing.get_args(arg))
    return []
