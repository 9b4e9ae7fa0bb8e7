"""Failure signatures: one deterministic label per failed attempt, from its trace and its state diff.

The first rule that matches wins, in the order of `LABELS`:

1. ``limit_reached``: the episode hit max_steps, max_turns or time_limit.
2. ``precondition_unrecovered``: a PRECONDITION_FAILED or CONFLICT tool result the agent never got past.
3. ``empty_lookup_unrecovered``: a NOT_FOUND or empty (``[]``, ``{}``, ``null``, blank) tool result the agent
   never followed with a non-empty result of the same tool. An empty success counts only when the attempt
   fell short (a missing effect, or nothing written): "no earlier refunds" is often the right answer.
4. ``tool_error_unrecovered``: any other tool error never followed by a success of the same tool.
5. ``closed_without_write``: the agent left the database as it found it while the golden run changed it.
6. ``wrong_value``: a field differs from the golden end state.
7. ``missing_effect``: a golden row change did not happen.
8. ``extra_effect``: a row change happened that the golden run did not make.
9. ``rubric_failed``: a rubric question was answered against the task.
10. ``assertion_failed``: anything else (the task's own assert failed).

Why this order: a limit cuts the episode short, so everything after it is a consequence. Tool handling comes
next because most failures of tool-using agents are tool handling (ThinkingBox's finding), and an unhandled
tool result explains the wrong end state that follows from it better than the diff does; among tool results,
the more specific cause (a refused precondition, then a failed look-up) goes before the generic error. Then
the state-based classes from the most to the least specific: nothing written at all, a wrong value in a row
that was written, a missing effect, an extra effect; the rubric and the bare assert only speak when the
state matched. A tool error the agent recovered from (a later call of the same tool succeeded) is not a
cause, so it falls through to the state rules.

A NOT_FOUND counts as a failed look-up whichever tool returned it: the record has no read-only flag, and a
write that cannot find the record it names failed the same way a ``get_`` would.

Pure and cheap (it runs on every attempt), and tolerant of older records: a missing key counts as absent
or zero, and ``differences`` are counted when the ``wrong``/``missing``/``extra`` counts are missing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

LABELS = (
    "limit_reached",
    "precondition_unrecovered",
    "empty_lookup_unrecovered",
    "tool_error_unrecovered",
    "closed_without_write",
    "wrong_value",
    "missing_effect",
    "extra_effect",
    "rubric_failed",
    "assertion_failed",
)

_DESCRIPTIONS = {
    "limit_reached": "The episode ran out of steps, turns or time before the agent finished.",
    "precondition_unrecovered": "A tool refused the call (failed precondition or conflict) and the agent never "
    "got the same tool to succeed.",
    "empty_lookup_unrecovered": "A look-up found nothing (not found or an empty result) and the agent never got "
    "a non-empty answer from the same tool.",
    "tool_error_unrecovered": "A tool call failed (bad argument, unknown tool, internal error) and the agent "
    "never got the same tool to succeed.",
    "closed_without_write": "The agent changed nothing although the task needed changes.",
    "wrong_value": "A record the agent wrote has a field value that differs from the golden end state.",
    "missing_effect": "A change the golden run makes is missing from the agent's end state.",
    "extra_effect": "The agent made a change the golden run does not make.",
    "rubric_failed": "A rubric question about the conversation was answered against the task.",
    "assertion_failed": "The task's own assertion failed with the end state matching the golden one.",
}

LIMITS = frozenset({"max_steps", "max_turns", "time_limit"})
PRECONDITION_CODES = frozenset({"PRECONDITION_FAILED", "CONFLICT"})
LOOKUP_CODES = frozenset({"NOT_FOUND"})
_EMPTY: tuple[Any, ...] = ([], {}, None)


def describe(label: str) -> str:
    """One short sentence saying what `label` means, for the report legend."""
    try:
        return _DESCRIPTIONS[label]
    except KeyError:
        # A results file written by another plugin version may carry a label this one does not know.
        return f"Unknown label {label!r} (known: {', '.join(LABELS)})."


def signature(record: Mapping[str, Any]) -> str | None:
    """The failure label of an attempt record, or None unless its outcome is ``failed``."""
    if record.get("outcome") != "failed":
        return None
    if record.get("end_reason") in LIMITS:
        return "limit_reached"
    start, end, golden = record.get("start_hash"), record.get("end_hash"), record.get("golden_hash")
    unwritten = bool(start and end and golden and end == start and golden != start)
    tool_label = _unrecovered(record.get("transcript") or (), empties_count=unwritten or _count(record, "missing") > 0)
    if tool_label:
        return tool_label
    if unwritten:
        return "closed_without_write"
    for kind, label in (("wrong", "wrong_value"), ("missing", "missing_effect"), ("extra", "extra_effect")):
        if _count(record, kind):
            return label
    if any(isinstance(entry, Mapping) and entry.get("passed") is False for entry in record.get("rubric") or ()):
        return "rubric_failed"
    return "assertion_failed"


def _unrecovered(transcript: Sequence[Any], empties_count: bool) -> str | None:
    """The highest-ranked tool-handling label among the tool results nothing later made good.

    One backward pass: by the time a result is seen, the later results of each tool are known.
    `empties_count` says whether an empty success may be the cause (the attempt fell short).
    """
    succeeded: set[Any] = set()  # tools with a later result without error
    answered: set[Any] = set()  # tools with a later non-empty result without error
    found: set[str] = set()
    for message in reversed(transcript):
        if not isinstance(message, Mapping) or message.get("role") != "tool":
            continue
        tool, error = message.get("tool"), message.get("error")
        empty = _is_empty(message.get("content"))
        if error in PRECONDITION_CODES:
            if tool not in succeeded:
                found.add("precondition_unrecovered")
        elif error in LOOKUP_CODES or (not error and empty and empties_count):
            if tool not in answered:
                found.add("empty_lookup_unrecovered")
        elif error and tool not in succeeded:
            found.add("tool_error_unrecovered")
        if not error:
            succeeded.add(tool)
            if not empty:
                answered.add(tool)
    return next((label for label in LABELS[1:4] if label in found), None)


def _is_empty(content: Any) -> bool:
    """Whether a tool result says "nothing": blank text, or JSON that parses to [], {} or null."""
    if content is None:
        return True
    if not isinstance(content, str):
        return content in _EMPTY
    text = content.strip()
    if not text:
        return True
    if text[0] not in "[{n":  # cheap exit: only these can parse to [], {} or null
        return False
    try:
        return json.loads(text) in _EMPTY
    except ValueError:
        return False


def _count(record: Mapping[str, Any], kind: str) -> int:
    value = record.get(kind)
    if isinstance(value, int):
        return value
    return sum(1 for d in record.get("differences") or () if isinstance(d, Mapping) and d.get("kind") == kind)
