"""Ticket endings as careless agents guess them: from the goldens of a domain's tasks, not from its policy.

A task's ending is how its golden path leaves the conversation's ticket: the
status, priority, reason and queue it sets, and whether it adds an internal
comment. A policy-blind agent that always writes its domain's most common
ending (reason and queue included), or the most common ending of the other
tasks of the same family, passes every task whose checks cannot tell that
guess from the policy's decision; ``--tb-validate`` tries the top endings of
each domain and the family memoriser on every task (`roles/agents/blind.py`
plays them). The category is left to the golden path (what the ticket is
about is mechanics; the ending is the decision).

The endings come from briefs (`TaskBrief.as_dict`): what each task declares,
read by a capture session (``--tb-capture``) without running any episode.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TICKET_WRITES = ("create_ticket", "update_ticket")
FIELDS = ("status", "priority", "reason", "queue")
RANKED = 10  # the most common endings of a domain that validation tries on every task
CREATED = "(created)"


@dataclass(frozen=True)
class Ending:
    """How a golden path leaves a ticket: the fields it sets last, and whether it adds an internal comment."""

    status: str | None = None
    priority: str | None = None
    reason: str | None = None
    queue: str | None = None
    comment: bool = False

    def fields(self) -> dict[str, str]:
        """The ticket fields this ending sets (those it leaves as they are are left out)."""
        values = {"status": self.status, "priority": self.priority, "reason": self.reason, "queue": self.queue}
        return {name: value for name, value in values.items() if value is not None}

    def describe(self) -> str:
        parts = [f"{name} {value}" for name, value in self.fields().items()]
        return ", ".join(parts + (["an internal comment"] if self.comment else [])) or "nothing set"


def ending_of(golden: Sequence[Mapping[str, Any]]) -> Ending | None:
    """The ending of the first ticket a golden path writes (None when it writes no ticket)."""
    first: str | None = None
    fields: dict[str, Any] = {}
    comment = False
    for c in golden:
        args = c.get("arguments") or {}
        ticket = args.get("ticket_id")
        if c["tool"] in TICKET_WRITES:
            if first is None or (first == CREATED and ticket):
                first = ticket or CREATED  # a created ticket is named by the first write that gives its id
            if ticket in (first, None):
                fields.update({name: args[name] for name in FIELDS if args.get(name) is not None})
        elif c["tool"] == "add_ticket_comment" and ticket is not None and ticket == first:
            comment = comment or not args.get("public", False)
    if first is None:
        return None
    return Ending(**{name: fields.get(name) for name in FIELDS}, comment=comment)


def family_of(task: str) -> str:
    """A task's family: its name without the last ``_<number>`` (``test_case_RT003_006`` -> ``test_case_RT003``)."""
    return re.sub(r"_\d+$", "", task)


@dataclass(frozen=True)
class DomainEndings:
    """A domain's endings, each task's, for the guesses made about any one task from the others.

    A guesser learns from the rest of the benchmark, never from the task it is
    tried on: the ranked endings and the family's ending of a task are counted
    over the domain's other tasks (with one task, there is nothing to guess from).
    """

    of_task: Mapping[str, Ending]

    def ranked(self, task: str) -> tuple[Ending, ...]:
        """The domain's `RANKED` most common endings among the tasks other than `task`, most common first."""
        counts = Counter(e for t, e in self.of_task.items() if t != task)
        return tuple(_most_common(counts)[:RANKED])

    def family(self, task: str) -> Ending | None:
        """The most common ending among the other tasks of `task`'s family (None if it has no other)."""
        family = family_of(task)
        counts = Counter(e for t, e in self.of_task.items() if t != task and family_of(t) == family)
        return _most_common(counts)[0] if counts else None


def domain_endings(briefs: Iterable[Mapping[str, Any]]) -> dict[str, DomainEndings]:
    """Per domain, each task's ending (tasks whose golden path writes no ticket have none)."""
    by_domain: dict[str, dict[str, Ending]] = {}
    for brief in briefs:
        ending = ending_of(brief["golden"])
        if ending is not None:
            by_domain.setdefault(brief["domain"], {})[brief["task"]] = ending
    return {domain: DomainEndings(tasks) for domain, tasks in sorted(by_domain.items())}


def _most_common(counts: Counter[Ending]) -> list[Ending]:
    """Endings by how many tasks end that way, ties in a fixed order."""
    return sorted(counts, key=lambda e: (-counts[e], repr(e)))
