"""Agents under test. Offline: `golden`, `noop`, `flaky` and the policy-blind `blind:NAME` baselines.

`make_agent(name, context)` builds the agent for one attempt. Only the offline
reference agents and baselines receive the golden calls (and traps), through
`AgentContext`; an agent under test gets nothing beyond the `AgentView` of each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.task import Call

if TYPE_CHECKING:
    from ...core.episode import Agent

BLIND = "blind:"
BASELINES = ("solve", "hold", "pending", "refuse", "comply")  # the policy-blind endings of agents/blind.py
NAMES = ("golden", "noop", "flaky", *(BLIND + b for b in BASELINES))


@dataclass(frozen=True)
class AgentContext:
    """What the harness knows when it builds an agent for one attempt."""

    task: str
    attempt: int
    seed: int
    golden: tuple[Call, ...]
    reply: str | None = None  # the task's reference closing message, if it declares one
    traps: tuple[Call, ...] = ()  # the careless writes the task declares it catches


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
    if name.startswith(BLIND):
        from .blind import BlindAgent

        return BlindAgent(name.removeprefix(BLIND), context)
    raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(NAMES)}")
