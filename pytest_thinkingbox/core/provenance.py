"""Where the values of golden writes come from: could the agent have seen them?

A golden write is only fair when every value it uses was visible to the agent
before the call: in the user's opening message, in the facts the user can
reveal, in an earlier tool result, or in the policy. Numbers count in their
human forms too (8900 cents also as 8,900, 89.00 or 89) and ISO dates as
"10 May 2026" or "May 10, 2026". A value the agent must compute is declared
with `derived(value, reason)`. Values a tool's schema enumerates (a status, a
reason code) and booleans are decisions, not data, and free text (a value the
golden path writes only into volatile columns) is the agent's own words.

The reverse also matters: a volatile column written with data the agent got
from the user or a tool (a payment reference) is graded by nobody, so any
value would pass. Nothing here runs anything.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .state import Change
from .task import Call


@dataclass(frozen=True)
class Finding:
    """One golden value whose origin is not plain: derived (with its reason), unexplained, or copied into a volatile
    column."""

    kind: str  # "derived", "unexplained" or "volatile"
    where: str  # "call 5 issue_refund amount_cents" or "transfers[TX-0001].reference"
    value: Any
    reason: str = ""

    def explain(self) -> str:
        if self.kind == "derived":
            return f"derived  {self.where} = {self.value!r}: {self.reason}"
        if self.kind == "volatile":
            return (
                f"{self.where} is volatile (never graded) but is written with {self.value!r}, {self.reason}: "
                "grade it (drop `volatile`) or change the task"
            )
        return (
            f"{self.where} = {self.value!r} appears nowhere the agent could see before the call (the user's words "
            "and facts, earlier tool results, the policy): show it, or declare it with derived(value, reason)"
        )

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "where": self.where, "value": self.value, "reason": self.reason}


def findings(
    golden: Sequence[Call],
    transcript: Sequence[Mapping[str, Any]],
    facts: Mapping[str, str],
    policy: str,
    writes: Mapping[str, Callable[..., Any]],
    volatile_written: Sequence[Change],
) -> list[Finding]:
    """The derived and unexplained values of the golden writes, and data copied into volatile columns.

    Args:
        golden: the golden calls, in order.
        transcript: the golden agent's episode (the user's opening, then each call and its result).
        facts: what the simulated user knows and can reveal.
        policy: the domain policy text.
        writes: the domain's write tools by name (their signatures give the enumerated values).
        volatile_written: the golden path's changes to volatile columns (rows added with them, or fields updated).
    """
    opening = next((str(m["content"]) for m in transcript if m["role"] == "user"), "")
    said = "\n".join([opening, *map(str, facts.values())])
    results = [str(m["content"]) for m in transcript if m["role"] == "tool"]
    free_text = {_text(v) for c in volatile_written for v in _written_values(c)}
    out: list[Finding] = []
    for i, c in enumerate(golden):
        if c.tool not in writes:
            continue
        seen = _Corpus("\n".join([said, policy, *results[:i]]))
        choices = _choices(writes[c.tool])
        for name, value in c.arguments.items():
            where = f"call {i + 1} {c.tool} {name}"
            if name in c.derived:
                out.append(Finding("derived", where, value, c.derived[name]))
                continue
            for leaf in _leaves(value):
                if leaf in choices.get(name, ()) or (isinstance(leaf, str) and _text(leaf) in free_text):
                    continue
                if not seen.shows(leaf):
                    out.append(Finding("unexplained", where, leaf))
    for change in volatile_written:
        for value in _written_values(change):
            carrier = next(
                (i for i, c in enumerate(golden) if _text(value) in map(_text_of, _leaves(c.arguments))), None
            )
            if carrier is None:  # a tool made the value up itself (an id, a stamp): not the agent's to copy
                continue
            source = _copied_from(value, opening, facts, _Corpus("\n".join(results[:carrier]), leaves_only=True))
            if source:
                out.append(Finding("volatile", f"{change.table}[{change.key}].{change.field}", value, source))
    return out


def _text_of(value: Any) -> str:
    return _text(value) if isinstance(value, str) else ""


def _written_values(change: Change) -> list[Any]:
    return [change.after] if isinstance(change.after, str) and change.after.strip() else []


def _copied_from(value: str, opening: str, facts: Mapping[str, str], data: _Corpus) -> str:
    """Where a volatile value came from, when it is data rather than the agent's own words ("" when it is not)."""
    text = _text(value)
    if any(_text(str(v)) == text for v in facts.values()):
        return "a fact the user gives"
    if text in data.leaves:
        return "a value a tool returned"
    if re.search(r"\d", text) and text in _text(opening):
        return "a value from the user's message"
    return ""


class _Corpus:
    """What the agent has seen, searchable for a value in its human forms."""

    def __init__(self, text: str, leaves_only: bool = False) -> None:
        self.leaves = {_text(str(v)) for v in _json_leaves(text)}
        self._text = "" if leaves_only else _text(text + "\n" + "\n".join(self.leaves))

    def shows(self, value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return True
        if isinstance(value, (int, float)):
            return any(re.search(_number_pattern(form), self._text) for form in _number_forms(value))
        text = _text(str(value))
        return not text or any(form in self._text for form in _string_forms(text))


def _number_forms(value: int | float) -> set[str]:
    n = abs(value)
    forms = {str(n), f"{n:,}"}
    if isinstance(n, float):
        forms |= {f"{n:.2f}", f"{n:,.2f}"} | ({str(int(n)), f"{int(n):,}"} if n.is_integer() else set())
    else:  # amounts are often cents: 8900 is also shown as 89.00 or 89
        forms |= {f"{n / 100:.2f}", f"{n / 100:,.2f}"} | ({str(n // 100), f"{n // 100:,}"} if n % 100 == 0 else set())
    return forms


def _number_pattern(form: str) -> str:
    return rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)"


def _string_forms(text: str) -> Iterator[str]:
    yield text
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return
    month = day.strftime("%B").lower()
    yield f"{day.day} {month} {day.year}"
    yield f"{month} {day.day}, {day.year}"


def _text(value: str) -> str:
    return " ".join(value.lower().split())


def _leaves(value: Any) -> Iterator[Any]:
    """The scalar values inside an argument (lists and objects searched through)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _json_leaves(text: str) -> Iterator[Any]:
    """The values inside each JSON document of `text` (tool results are JSON; anything else yields nothing)."""
    for line in text.split("\n"):
        try:
            yield from _leaves(json.loads(line))
        except ValueError:
            continue


def _choices(tool: Callable[..., Any]) -> dict[str, tuple[Any, ...]]:
    """Per argument, the values its type enumerates (`Literal[...]`, also inside `X | None`)."""
    out: dict[str, tuple[Any, ...]] = {}
    for name, hint in typing.get_type_hints(tool).items():
        for candidate in (hint, *typing.get_args(hint)):
            if typing.get_origin(candidate) is typing.Literal:
                out[name] = typing.get_args(candidate)
    return out
