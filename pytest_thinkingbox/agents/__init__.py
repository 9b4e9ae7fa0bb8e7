"""Agents under test. Offline: `golden`, `noop`, `flaky`; each is one module.

`make_agent(name, context)` builds the agent for one attempt. Only the offline
reference agents receive the golden calls, through `AgentContext`; an agent
under test gets nothing beyond the `AgentView` of each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..task import Call

if TYPE_CHECKING:
    from ..episode import Agent

NAMES = ("golden", "noop", "flaky")


@dataclass(frozen=True)
class AgentContext:
    """What the harness knows when it builds an agent for one attempt."""

    task: str
    attempt: int
    seed: int
    golden: tuple[Call, ...]
    reply: str | None = None  # the task's reference closing message, if it declares one


def make_agent(name: str, context: AgentContext) -> Agent:
    """The agent called `name` for one attempt (`name` was checked at start-up)."""
    if name == "golden":
        from .golden import GoldenAgent

        return GoldenAgent(context.golden, context.reply)
    if name == "noop":
        from .noop import NoopAgent

        return NoopAgent()
    if name == "flaky":
        from .flaky import FlakyAgent

        return FlakyAgent(context)
    raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(NAMES)}")
