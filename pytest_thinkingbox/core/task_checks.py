"""Checks across tasks, on what they declare (briefs from a capture session): near-copies, openings that answer.

* **Structural duplicates.** Two tasks whose arranged rows and golden calls have
  the same shape and the same decisions test one thing twice, however their
  names, ids, free text and amounts differ: a task's shape keeps every value
  that is a decision (statuses, tiers, reasons, queues, methods, flags, small
  numbers such as a fee percent or a count of days, and the dates a golden call
  writes) and abstracts the rest (ids, emails, free text, amounts above 100, and
  the dates of the arranged rows). A task declares that it is a
  deliberate variant with ``tb_validity(variant_of={"test_case_...": reason})``.
* **Openings that give the answer.** A user whose opening line names the values
  the policy decides (two or more of the golden ticket ending's status,
  priority, reason and queue, or an amount the golden path computes) lets an
  agent pass by doing what it is told. A task declares why that is right with
  ``tb_validity(opening_ok=reason)``.

Pure functions over briefs (`attempt.TaskBrief.as_dict`); nothing here runs a task.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .endings import ending_of

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?([+-]\d{2}:?\d{2}|Z)?$")
_ID = re.compile(r"^[A-Z][A-Z0-9]{0,5}-[A-Z0-9-]*\d[A-Z0-9-]*$")  # O-5001, POL-40101, T-7001, SH-2001
_DECISION = re.compile(r"^[a-z][a-z0-9_]{0,39}$")  # hold, refunds_team, lost_parcel, store_credit
SMALL = 100  # numbers up to this are decisions (a fee percent, a count); larger ones are amounts


def shape_value(value: Any, ids: frozenset[str], dates: bool = False) -> Any:
    """A value as the shape of a task keeps it: decisions as they are (`dates` too), the rest by kind."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return value if abs(value) <= SMALL else "<amount>"
    if isinstance(value, str):
        if value in ids or _ID.match(value):
            return "<id>"
        if "@" in value:
            return "<email>"
        if _DATE.match(value):
            return value if dates else "<date>"
        return value if _DECISION.match(value) else "<text>"
    if isinstance(value, Mapping):
        return {k: shape_value(v, ids, dates) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [shape_value(v, ids, dates) for v in value]
    return "<value>"


def shape(brief: Mapping[str, Any]) -> str:
    """A short hash of a task's shape: its arranged rows and golden calls with only their decisions kept."""
    arranged = brief.get("arranged") or {}
    ids = frozenset(str(key) for rows in arranged.values() for key in rows)
    rows = {
        table: sorted(json.dumps(shape_value(row, ids), sort_keys=True) for row in found.values())
        for table, found in sorted(arranged.items())
    }
    calls = [[c["tool"], shape_value(c.get("arguments") or {}, ids, dates=True)] for c in brief["golden"]]
    text = json.dumps({"rows": rows, "calls": calls}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def duplicates(briefs: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Per task that has structural twins, the twins (same domain, same shape), each group listed in name order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for brief in briefs:
        groups.setdefault((brief["domain"], shape(brief)), []).append(brief["task"])
    twins: dict[str, list[str]] = {}
    for names in groups.values():
        if len(names) > 1:
            for name in names:
                twins[name] = sorted(n for n in names if n != name)
    return twins


def _spoken(text: str) -> str:
    """A text as words between spaces: punctuation dropped, but the point and comma inside an amount kept."""
    words = re.sub(r"[^a-z0-9.,$€£]+", " ", text.lower())
    return " " + re.sub(r"[.,](?!\d)", " ", words) + " "


def answered_by_opening(brief: Mapping[str, Any]) -> list[str]:
    """The policy-decided values of the golden path that the user's opening line names (empty when none).

    The ticket ending's status, priority, reason and queue count when two or
    more are named (one alone is ordinary speech: "it's on hold"); an amount
    the golden path computes (`derived`) counts alone, in any usual form.
    """
    said = _spoken(brief["user"]["says"])
    found: list[str] = []
    ending = ending_of(brief["golden"])
    if ending is not None:
        named = [
            f"{name} {value!r}"
            for name, value in ending.fields().items()
            if f" {value.replace('_', ' ')} " in said or f" {value} " in said
        ]
        if len(named) >= 2:
            found += named
    for c in brief["golden"]:
        for name in c.get("derived") or {}:
            value = (c.get("arguments") or {}).get(name)
            if isinstance(value, int) and not isinstance(value, bool) and any(f in said for f in _forms(value)):
                found.append(f"{name} {value} (computed by the policy)")
    return found


def _forms(cents: int) -> list[str]:
    """How a person might write an amount held in cents: 19899, 19,899, 198.99, $198.99."""
    whole, part = divmod(cents, 100)
    return [f" {cents} ", f" {cents:,} ", f" {whole}.{part:02d} ", f" ${whole}.{part:02d} ", f" {whole:,}.{part:02d} "]
