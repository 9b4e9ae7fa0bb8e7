"""The words a task is written in: the simulated user's brief and golden calls.

Plain data with no heavy imports, so that `from pytest_thinkingbox import User,
call` costs nothing at plugin load.
"""

from __future__ import annotations

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
        rules: extra instructions for model-driven users.
    """

    says: str
    knows: dict[str, str] = field(default_factory=dict)
    persona: str = ""
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Call:
    """One tool call: a tool name and its arguments."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args})"


def call(tool: str, /, **arguments: Any) -> Call:
    """A golden tool call: ``call("update_ticket", ticket_id="T-20", status="hold")``."""
    return Call(tool, dict(arguments))
