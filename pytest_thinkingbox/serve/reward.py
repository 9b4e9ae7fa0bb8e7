"""A task's executable checks as a 0/1 reward, for trainers that run episodes themselves.

``reward("test_case_RT001_003", trajectory)`` finds the task function under a
root folder (``domains`` by default), runs it on a fresh backend with an agent
that replays the trajectory (its tool calls, and what it said to the customer),
and returns 1 when its checks pass and 0 with the failure when they do not. A failure of the harness is raised
(`HarnessError`), never turned into a 0. One call at a time per process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..attempt import Harness, Roles, WorkerCache
from ..core.catalog import bundled_root, find
from ..core.episode import AgentStep, Limits
from ..core.task import Call
from ..roles.agents.golden import CLOSING
from ..roles.judge import PhraseJudge
from ..roles.users import make_user


@dataclass(frozen=True)
class Reward:
    """The reward of one trajectory: 1 or 0, and why."""

    value: int
    reason: str


def reward(task_id: str, trajectory: Sequence[Call | Mapping[str, Any]], root: str | Path | None = None) -> Reward:
    """Grade `trajectory` (what an agent did, in order) with the checks of `task_id`, rubric questions included.

    Args:
        task_id: the task's function name, e.g. ``test_case_RT001_003``.
        trajectory: the agent's tool calls, as `Call` objects or ``{"tool": name, "arguments": {...}}``
            dicts (``name`` is accepted for ``tool``), and/or its messages as chat messages:
            ``{"role": "assistant", "content": text, "tool_calls": [...]}`` (tool calls as above or in
            the OpenAI form ``{"function": {"name", "arguments": JSON text}}``). Other roles (user,
            tool, system) are skipped: the server recomputes them. A record's ``transcript`` is one.
        root: the folder whose packages hold the tasks (default: `bundled_root`); each task's package
            exports its ``DOMAIN``.
    """
    entry = find(task_id, Path(root or bundled_root()))
    steps = _steps(trajectory)
    limits = Limits(max_steps=max(50, len(steps) + 1))
    passed, reason = offline_harness(lambda context: Replay(steps), limits=limits).run_task(entry)
    return Reward(int(passed), reason)


class Replay:
    """An agent that takes the trajectory's steps in order; its last message ends the conversation."""

    def __init__(self, steps: list[AgentStep]) -> None:
        self._steps = list(steps)

    async def step(self, view: Any) -> AgentStep:
        if not self._steps:
            return AgentStep(message=CLOSING, end=True)
        step = self._steps.pop(0)
        if step.message is not None and not any(s.message is not None for s in self._steps):
            return AgentStep(tool_calls=step.tool_calls, message=step.message, end=True)
        return step


def _steps(trajectory: Sequence[Call | Mapping[str, Any]]) -> list[AgentStep]:
    """The agent steps of a trajectory: one per tool call, one per message to the customer."""
    steps: list[AgentStep] = []
    for i, item in enumerate(trajectory, 1):
        if not isinstance(item, Mapping) or "role" not in item:
            steps.append(AgentStep(tool_calls=[_as_call(item, i)]))
        elif item["role"] == "assistant":
            for call_ in item.get("tool_calls") or []:
                steps.append(AgentStep(tool_calls=[_as_call(_plain_call(call_), i)]))
            text = item.get("content")
            if isinstance(text, str) and text.strip():
                steps.append(AgentStep(message=text))
    return steps


def _plain_call(call_: Any) -> Any:
    """A tool call in our form, from ours or the OpenAI form (``function`` with JSON ``arguments``)."""
    function = call_.get("function") if isinstance(call_, Mapping) else None
    if not isinstance(function, Mapping):
        return call_
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except ValueError:
        raise ValueError(f"tool call {call_!r}: its arguments are not JSON") from None
    return {"tool": function.get("name"), "arguments": arguments}


def offline_harness(
    make_agent: Callable[[Any], Any], seed: int = 0, limits: Limits | None = None, cache: WorkerCache | None = None
) -> Harness:
    """A harness for grading outside pytest: the scripted user, the offline judge, the agent `make_agent`
    builds, and `cache` (by default this process's worker caches)."""
    roles = Roles(make_agent, lambda brief: make_user("scripted", brief), PhraseJudge)
    return Harness(cache or _worker(), roles, limits or Limits(), seed=seed)


def _as_call(step: Call | Mapping[str, Any], position: int) -> Call:
    if isinstance(step, Call):
        return step
    name = step.get("tool", step.get("name"))
    arguments = step.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, Mapping):
        raise ValueError(f"trajectory step {position} is {step!r}; give a tool name and an arguments mapping")
    return Call(name, dict(arguments))


@cache
def _worker() -> WorkerCache:
    return WorkerCache()
