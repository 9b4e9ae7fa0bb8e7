"""What every agent module shares: the agents' names and the context an offline agent is built with."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.endings import RANKED, DomainEndings
from ...core.task import Call

BLIND = "blind:"
BASELINES = ("solve", "hold", "pending", "refuse", "comply")  # the policy-blind endings of agents/blind.py
#: Baselines that guess from the domain's goldens: its N-th most common ending, its family's most common one.
GUESSES = (*(f"rank:{n}" for n in range(1, RANKED + 1)), "family")
NAMES = ("golden", "noop", "flaky", *(BLIND + b for b in (*BASELINES, *GUESSES)))


def needs_endings(agent: str) -> bool:
    """Whether the agent called `agent` guesses from the domain's goldens (it needs the session's catalog)."""
    return agent.removeprefix(BLIND) in GUESSES


@dataclass(frozen=True)
class AgentContext:
    """What the harness knows when it builds an agent for one attempt."""

    task: str
    attempt: int
    seed: int
    golden: tuple[Call, ...]
    reply: str | None = None  # the task's reference closing message, if it declares one
    traps: tuple[Call, ...] = ()  # the careless writes the task declares it catches
    endings: DomainEndings | None = None  # the domain's endings, for the baselines that guess from them
