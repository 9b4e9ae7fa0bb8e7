"""Policy-blind baselines: negative controls that do plausible things without reading the policy.

Each gets the mechanics right and the decision wrong on purpose. It makes the
task's look-ups (the golden path's read calls, identity checks included),
opens the tickets the golden path opens, finds the ticket of the conversation
(the ones the golden path writes to or opens, else the requester's new or open
tickets from those look-ups), and then ends the same way whatever the policy says:

* ``solve``: marks the ticket solved;
* ``hold``: puts it on hold with high priority and an internal note;
* ``pending``: sets it pending with a note to the customer;
* ``refuse``: tells the customer no in a public note and closes the ticket as solved;
* ``comply``: does what the customer asks without checking: the task's declared
  trap writes (``tb.run(..., traps=[...])``), nothing else;
* ``rank:N``: writes its domain's N-th most common ending, reason, queue and
  internal comment included (`core/endings.py`), whatever the policy says;
* ``family``: writes the most common ending of the other tasks of its task's
  family, a memoriser of the benchmark rather than a reader of the policy.

What a ticket is about (its ``category``, where the golden path sets one) is
copied from the golden path: classifying the topic is mechanics, the ending and
its reason are the decision. A task that one of them passes cannot tell that
careless ending from a careful one. Tools are found by name and schema (``update_ticket``, ``add_ticket_comment``
or a note argument, ``create_ticket``), so the baselines work on any domain that
has tickets; a value a tool's schema does not allow is left out.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

from ...core.endings import Ending
from ...core.episode import AgentStep, AgentView
from ...core.task import Call
from ...core.tools import ToolSpec
from .context import BASELINES, GUESSES, AgentContext

NOTES = {
    "hold": (False, "Holding this ticket for review by the team."),
    "pending": (True, "We need a little more time and information; we will get back to you."),
    "refuse": (True, "We are unable to help with this request."),
}
_NOTE_ARGUMENTS = ("note", "comment", "body")
_UPDATES = {
    "solve": {"status": "solved"},
    "hold": {"status": "hold", "priority": "high"},
    "pending": {"status": "pending"},
    "refuse": {"status": "solved"},
}
CLOSING = "Your request has been handled. Have a good day."

Script = Generator[Call, str, None]


class BlindAgent:
    """One policy-blind ending, played one tool call per step; its tool results steer only the ticket it finds."""

    def __init__(self, ending: str, context: AgentContext) -> None:
        if ending not in (*BASELINES, *GUESSES):
            raise ValueError(f"unknown baseline {ending!r}; choose one of {', '.join((*BASELINES, *GUESSES))}")
        self._ending, self._context = ending, context
        self._script: Script | None = None

    async def step(self, view: AgentView) -> AgentStep:
        try:
            if self._script is None:
                self._script = self._play({t.name: t for t in view.tools})
                c = next(self._script)
            else:
                c = self._script.send(_last_result(view.messages))
        except StopIteration:
            return AgentStep(message=CLOSING, end=True)
        return AgentStep(tool_calls=[c])

    def _play(self, tools: dict[str, ToolSpec]) -> Script:
        golden = self._context.golden
        seen: list[str] = []
        for c in golden:
            if c.tool in tools and tools[c.tool].read_only:
                seen.append((yield c))
        if self._ending == "comply":
            yield from self._context.traps
            return
        tickets = _written_tickets(golden)
        for create in (c for c in golden if c.tool == "create_ticket"):  # opening a ticket is mechanics
            created = _json((yield create))
            if isinstance(created, dict) and created.get("id") not in (None, *tickets):
                tickets.append(created["id"])
        guess = self._guess() if self._ending in GUESSES else None
        if self._ending in GUESSES and guess is None:
            return  # the domain has no such ending, or the family no other task: nothing to guess
        for ticket in tickets or _open_tickets(golden, seen):
            if guess is not None:
                yield from _guessed(guess, ticket, tools, _category(golden, ticket))
            else:
                yield from _ending(self._ending, ticket, tools, _category(golden, ticket))

    def _guess(self) -> Ending | None:
        """The ending this baseline guesses: the domain's N-th most common, or its task's family's."""
        endings = self._context.endings
        if endings is None:
            return None
        if self._ending == "family":
            return endings.family(self._context.task)
        n = int(self._ending.removeprefix("rank:"))
        ranked = endings.ranked(self._context.task)
        return ranked[n - 1] if n <= len(ranked) else None


def _ending(ending: str, ticket: str, tools: dict[str, ToolSpec], category: Any = None) -> Script:
    """The ticket writes of one ending, with only what the domain's schemas allow."""
    update = tools.get("update_ticket")
    wanted = {**_UPDATES[ending], **({"category": category} if category is not None else {})}
    fields = _allowed(update, wanted) if update else {}
    note = NOTES.get(ending)
    note_argument = next((a for a in _NOTE_ARGUMENTS if update and a in _properties(update)), None)
    if note is not None and note_argument is not None and fields:  # no status this domain allows: no update
        fields[note_argument] = note[1]
        note = None
    if ending == "refuse" and note is not None and "add_ticket_comment" in tools:
        yield Call("add_ticket_comment", {"ticket_id": ticket, "body": note[1], "public": note[0]})
        note = None
    if fields:
        yield Call("update_ticket", {"ticket_id": ticket, **fields})
    if note is not None and "add_ticket_comment" in tools:
        yield Call("add_ticket_comment", {"ticket_id": ticket, "body": note[1], "public": note[0]})


def _guessed(guess: Ending, ticket: str, tools: dict[str, ToolSpec], category: Any = None) -> Script:
    """The ticket writes of a guessed ending: its fields (category from the golden path) and its comment."""
    update = tools.get("update_ticket")
    wanted = {**guess.fields(), **({"category": category} if category is not None else {})}
    fields = _allowed(update, wanted) if update else {}
    if fields:
        yield Call("update_ticket", {"ticket_id": ticket, **fields})
    if guess.comment and "add_ticket_comment" in tools:
        yield Call("add_ticket_comment", {"ticket_id": ticket, "body": NOTES["hold"][1], "public": False})


def _allowed(tool: ToolSpec, wanted: dict[str, str]) -> dict[str, Any]:
    """The wanted fields that the tool takes, with values its schema allows."""
    properties = _properties(tool)
    out: dict[str, Any] = {}
    for name, value in wanted.items():
        choices = _enum(properties.get(name))
        if name in properties and (not choices or value in choices):
            out[name] = value
    return out


def _properties(tool: ToolSpec) -> dict[str, Any]:
    return tool.input_schema.get("properties", {})


def _enum(prop: dict[str, Any] | None) -> list[Any]:
    if not prop:
        return []
    if "enum" in prop:
        return list(prop["enum"])
    return [v for option in prop.get("anyOf", []) for v in option.get("enum", [])]


def _category(golden: tuple[Call, ...], ticket: str) -> Any:
    """The category the golden path gives `ticket` last, if it gives one."""
    found = None
    for c in golden:
        if c.tool == "update_ticket" and c.arguments.get("ticket_id") == ticket and "category" in c.arguments:
            found = c.arguments["category"]
    return found


def _written_tickets(golden: tuple[Call, ...]) -> list[str]:
    """The tickets the golden path writes to, in order of first write."""
    found: list[str] = []
    for c in golden:
        ticket = c.arguments.get("ticket_id")
        if c.tool != "get_ticket" and isinstance(ticket, str) and ticket not in found:
            found.append(ticket)
    return found


def _open_tickets(golden: tuple[Call, ...], results: list[str]) -> list[str]:
    """The new or open tickets that the look-ups listed."""
    reads = [c for c in golden if c.tool == "list_tickets"]
    found: list[str] = []
    for text in results if reads else ():
        rows = _json(text)
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, dict) and row.get("status") in ("new", "open") and row.get("id") not in found:
                found.append(row["id"])
    return found


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _last_result(messages: list[dict[str, Any]]) -> str:
    return next((m["content"] for m in reversed(messages) if m["role"] == "tool"), "")
