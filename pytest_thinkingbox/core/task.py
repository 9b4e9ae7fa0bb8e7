"""The words a task is written in: the simulated user's brief and golden calls.

Plain data with no heavy imports, so that `from pytest_thinkingbox import User,
call` costs nothing at plugin load.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class User:
    """What the simulated user says, knows and is like.

    Args:
        says: the opening message; the only part of the brief the agent sees.
        knows: private facts (``{"order id": "O-1001"}``) revealed one at a time,
            and only when the agent asks for them by name.
        persona: a short description of who the user is (used by model-driven users).
        rules: how the user behaves in this conversation ("if refused, insist once"); they win over the
            simulated user's general rules.
        aliases: other names people use for the facts in `knows` (``{"employee id": ("personnel
            number", "payroll number")}``); the domain's (``Domain(aliases=...)``) are added for every task.
    """

    says: str
    knows: dict[str, str] = field(default_factory=dict)
    persona: str = ""
    rules: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    """One tool call: a tool name and its arguments.

    `derived` names the arguments whose values the agent computes rather than
    reads (argument -> how), for the provenance check of ``--tb-validate``.
    """

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args})"


@dataclass(frozen=True)
class Derived:
    """A golden argument's value with the reason the agent can compute it (made by `derived`)."""

    value: Any
    reason: str


def derived(value: Any, reason: str) -> Any:
    """Mark a golden argument as computed, not read: ``amount_cents=derived(17_910, "price less the 10% fee")``.

    ``--tb-validate`` requires every value a golden write uses to be visible to
    the agent before the call (the user's words and facts, earlier tool results,
    the policy); a value the agent must work out from those says how here.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise TypeError(f"derived({value!r}, reason): give the reason as a non-empty string")
    return Derived(value, reason)


def call(tool: str, /, **arguments: Any) -> Call:
    """A golden tool call: ``call("update_ticket", ticket_id="T-20", status="hold")``."""
    plain = {k: v.value if isinstance(v, Derived) else v for k, v in arguments.items()}
    how = {k: v.reason for k, v in arguments.items() if isinstance(v, Derived)}
    return Call(tool, plain, how)
