"""A task's executable checks as a 0/1 reward, for trainers that run episodes themselves.

``reward("test_case_RT001_003", trajectory)`` finds the task function under a
root folder (``domains`` by default), runs it on a fresh backend with an agent
that replays the trajectory (its tool calls, and what it said to the customer),
and returns 1 when its checks pass and 0 with the failure when they do not. A failure of the harness is raised
(`HarnessError`), never turned into a 0. One call at a time per process.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..core.episode import AgentStep
from ..core.errors import HarnessError, TaskDefinitionError
from ..core.task import Call
from ..roles.agents.golden import CLOSING


@dataclass(frozen=True)
class Reward:
    """The reward of one trajectory: 1 or 0, and why."""

    value: int
    reason: str


def bundled_root() -> Path:
    """Where the tasks are by default: ``./domains`` in a checkout, else the installed bundled domains."""
    here = Path("domains")
    if here.is_dir():
        return here
    spec = importlib.util.find_spec("domains")
    return Path(spec.origin).parent if spec is not None and spec.origin else here


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
    from ..core.episode import Limits

    function, domain = find_task(task_id, Path(root or bundled_root()).resolve())
    steps = _steps(trajectory)
    limits = Limits(max_steps=max(50, len(steps) + 1))
    passed, reason = run_task(function, task_id, domain, _worker(), lambda context: Replay(steps), limits=limits)
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


def run_task(
    function: Any, task_id: str, domain: Any, cache: Any, make_agent: Any, seed: int = 0, limits: Any = None
) -> tuple[bool, str]:
    """Run a task function once, outside pytest, on a fresh attempt whose agent `make_agent` builds.

    Returns whether its checks passed and, if not, the failure. A harness failure raises `HarnessError`.
    """
    from ..attempt import Attempt
    from ..core.episode import Limits
    from ..roles.judge import PhraseJudge
    from ..roles.users import make_user

    try:
        attempt = Attempt(
            task=task_id,
            attempt=1,
            seed=seed,
            domain=domain,
            cache=cache,
            make_agent=make_agent,
            make_user=lambda brief: make_user("scripted", brief),
            make_judge=PhraseJudge,
            limits=limits or Limits(),
            # Its next attempts write the rows the arrange step's flush wrote again (core/arranged.py).
            arranged_key=f"{function.__code__.co_filename}::{task_id}",
        )
    except HarnessError:
        raise
    except Exception as exc:
        raise HarnessError("backend", f"a fresh backend failed: {type(exc).__name__}: {exc}") from exc
    arguments = {"tb": attempt, "_tb_attempt": 1}
    try:
        function(**{name: arguments[name] for name in inspect.signature(function).parameters})
    except AssertionError as failure:
        return False, str(failure) or "a check failed"
    finally:
        attempt.close()
    return True, "every check passed"


def _as_call(step: Call | Mapping[str, Any], position: int) -> Call:
    if isinstance(step, Call):
        return step
    name = step.get("tool", step.get("name"))
    arguments = step.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, Mapping):
        raise ValueError(f"trajectory step {position} is {step!r}; give a tool name and an arguments mapping")
    return Call(name, dict(arguments))


@cache
def _worker() -> Any:
    from ..attempt import WorkerCache

    return WorkerCache()


@cache
def _test_files(root: Path) -> dict[str, list[Path]]:
    """Every test function name under `root`, with the files that define it (read once per root)."""
    pattern = re.compile(r"^def (test_\w+)\(", re.MULTILINE)
    index: dict[str, list[Path]] = {}
    for path in sorted(root.rglob("test_*.py")):
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            index.setdefault(name, []).append(path)
    return index


def task_ids(root: Path) -> list[str]:
    """Every task id (``test_case_...`` function) under `root`."""
    return sorted(name for name in _test_files(root) if name.startswith("test_case_"))


@cache
def find_task(task_id: str, root: Path) -> tuple[Any, Any]:
    """The task function called `task_id` under `root`, and the domain of its package."""
    matches = _test_files(root).get(task_id, [])
    if not matches:
        raise LookupError(f"no task {task_id!r} under {root}")
    if len(matches) > 1:
        raise LookupError(f"task {task_id!r} is defined more than once under {root}: {', '.join(map(str, matches))}")
    if str(root.parent) not in sys.path:
        sys.path.insert(0, str(root.parent))
    module_name = ".".join(matches[0].relative_to(root.parent).with_suffix("").parts)
    module = importlib.import_module(module_name)
    domain = getattr(importlib.import_module(module.__package__ or ""), "DOMAIN", None)
    if domain is None:
        raise TaskDefinitionError(f"{task_id}: its package {module.__package__!r} exports no DOMAIN")
    return getattr(module, task_id), domain
