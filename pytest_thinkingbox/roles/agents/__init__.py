"""Agents under test. Offline: `golden`, `noop`, `flaky` and the policy-blind `blind:NAME` baselines.

`make_agent(name, context)` builds the agent for one attempt. Only the offline
reference agents and baselines receive the golden calls (and traps), through
`AgentContext`; an agent under test gets nothing beyond the `AgentView` of each step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .context import BASELINES, BLIND, GUESSES, NAMES, AgentContext, needs_endings

__all__ = ["BASELINES", "BLIND", "GUESSES", "NAMES", "AgentContext", "make_agent", "needs_endings"]

if TYPE_CHECKING:
    from ...core.episode import Agent


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
