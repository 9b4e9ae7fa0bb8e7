"""What every agent module shares: the agents' names and the context an offline agent is built with."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.task import Call

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
