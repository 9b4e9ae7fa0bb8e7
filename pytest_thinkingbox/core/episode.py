"""The loop of one attempt: agent <-> tools, agent <-> simulated user, with limits.

The agent sees an `AgentView` (policy, tool schemas, the dialogue so far) and
answers with an `AgentStep`: tool calls, a message to the user, or both, and
whether it is done. Tool calls run in order through the MCP session and every
one is answered. A message sent beside tool calls ("one moment while I
check") is recorded after their results but asks nothing of the user: it
reaches the user with the agent's next message, which the user answers. The
episode ends when the agent closes, the user stops, or a limit is reached; the
reason is recorded. Nothing here knows about grading.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, overload

from .errors import EndpointError, HarnessError, ThinkingboxError
from .task import Call
from .tools import INVALID_ARGUMENT, ToolResult, ToolSession, ToolSpec, error_payload

T = TypeVar("T")


@dataclass(frozen=True)
class AgentView:
    """Everything an agent may see: never golden calls, expected state or the user's private facts."""

    policy: str
    tools: list[ToolSpec]
    messages: list[dict[str, Any]]


@dataclass(frozen=True)
class InvalidCall:
    """A tool call written wrongly (arguments that are not a JSON object): answered with an error, never run."""

    tool: str
    arguments: str  # the raw text the agent wrote
    problem: str


@dataclass
class AgentStep:
    """An agent's move: tool calls to make, a message to the user, and whether it is done."""

    tool_calls: Sequence[Call | InvalidCall] = field(default_factory=list)
    message: str | None = None
    end: bool = False


@dataclass
class UserTurn:
    text: str
    end: bool = False


class Agent(Protocol):
    async def step(self, view: AgentView) -> AgentStep: ...


class SimulatedUser(Protocol):
    def opening(self) -> str: ...

    async def reply(self, message: str, acted: bool = True) -> UserTurn:
        """The user's answer to the agent's `message`; `acted`: the agent has made a tool call by now."""
        ...


@dataclass(frozen=True)
class Limits:
    """Per-attempt limits; reaching one ends the episode with that reason."""

    max_steps: int = 50
    max_turns: int = 20
    time_limit_s: float = 300.0


@dataclass
class Episode:
    """The transcript and counters of one finished episode."""

    messages: list[dict[str, Any]]
    end_reason: str  # agent_end, user_end, max_steps, max_turns, time_limit
    steps: int = 0
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0


async def run_episode(
    agent: Agent,
    user: SimulatedUser,
    tools: ToolSession,
    policy: str,
    limits: Limits = Limits(),
    episode: Episode | None = None,
) -> Episode:
    """Run one conversation to its end and return its transcript.

    Pass `episode` to keep the transcript so far when a system error ends the
    conversation early: it is filled in place.
    """
    episode = episode if episode is not None else Episode([], end_reason="")
    messages = episode.messages
    messages.append({"role": "user", "content": user.opening()})
    deadline = time.monotonic() + limits.time_limit_s
    unanswered: list[str] = []  # messages sent beside tool calls, for the user with the next one
    while True:
        if episode.steps >= limits.max_steps:
            episode.end_reason = "max_steps"
            return episode
        retried = retries_of(agent)
        step = await guarded("agent", agent.step(AgentView(policy, tools.specs, list(messages))), deadline, agent)
        if step is None:
            check_endpoint("agent", agent, retried)
            episode.end_reason = "time_limit"
            return episode
        episode.steps += 1
        if step.tool_calls:
            calls: list[dict[str, Any]] = [
                {"id": f"call_{episode.tool_calls + i + 1}", "tool": c.tool, "arguments": c.arguments}
                for i, c in enumerate(step.tool_calls)
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            for entry, c in zip(calls, step.tool_calls, strict=True):
                if isinstance(c, InvalidCall):
                    result = ToolResult(
                        error_payload(INVALID_ARGUMENT, f"{c.problem}; nothing was run"), INVALID_ARGUMENT
                    )
                else:
                    result = await guarded("tools", tools.call(c.tool, c.arguments))
                episode.tool_calls += 1
                episode.tool_errors += not result.ok
                messages.append(
                    {
                        "role": "tool",
                        "call_id": entry["id"],
                        "tool": entry["tool"],
                        "content": result.text,
                        "error": result.error,
                    }
                )
        if step.message is not None:
            messages.append({"role": "assistant", "content": step.message})
        if step.end or (not step.tool_calls and step.message is None):
            episode.end_reason = "agent_end"
            return episode
        if step.message is None:
            continue
        if step.tool_calls:  # a word while the tools ran: the user waits for what the agent says next
            unanswered.append(step.message)
            continue
        if episode.turns >= limits.max_turns:
            episode.end_reason = "max_turns"
            return episode
        said, unanswered = "\n\n".join([*unanswered, step.message]), []
        retried = retries_of(user)
        turn = await guarded("user", user.reply(said, acted=episode.tool_calls > 0), deadline, user)
        if turn is None:
            check_endpoint("user", user, retried)
            episode.end_reason = "time_limit"
            return episode
        episode.turns += 1
        messages.append({"role": "user", "content": turn.text})
        if turn.end:
            episode.end_reason = "user_end"
            return episode


def retries_of(part: object) -> int:
    """Retries so far of a part served by a model endpoint (0 for offline parts)."""
    return getattr(getattr(part, "usage", None), "retries", 0)


def check_endpoint(stage: str, part: object, retried: int) -> None:
    """A time limit reached while an endpoint was failing is the endpoint's fault: a system error."""
    retries = retries_of(part) - retried
    if retries > 0:
        endpoint = getattr(getattr(part, "usage", None), "endpoint", None)
        where = f" ({endpoint})" if endpoint else ""
        raise EndpointError(
            stage, f"the time limit ran out while the {stage} endpoint{where} was failing ({retries} retries)"
        )


def waiting(part: object) -> bool:
    """Whether a model request of `part` is in flight."""
    return bool(getattr(getattr(part, "usage", None), "waiting", False))


@overload
async def guarded(stage: str, pending: Awaitable[T]) -> T: ...
@overload
async def guarded(stage: str, pending: Awaitable[T], deadline: float, part: object) -> T | None: ...


async def guarded(stage: str, pending: Awaitable[T], deadline: float | None = None, part: object = None) -> T | None:
    """Await a harness part; anything it raises becomes a system error of that stage.

    With a `deadline` (a `time.monotonic()` value), None means the episode's
    wall-clock limit ran out while waiting: the agent's time, not a system error.
    A model request in flight at the deadline is not cut short: it ends by its
    answer (a slow model: the time limit) or by its own `timeout_s` (an endpoint
    that never answers: retried, then a system error), so a hung endpoint is
    never counted as the agent's failure whatever the time limit.
    """
    try:
        if deadline is None:
            return await pending
        task = asyncio.ensure_future(pending)
        done, _ = await asyncio.wait({task}, timeout=max(0.0, deadline - time.monotonic()))
        while not done and waiting(part):
            done, _ = await asyncio.wait({task}, timeout=0.05)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return None
        result = task.result()
        return None if time.monotonic() >= deadline else result
    except ThinkingboxError:
        raise
    except Exception as exc:
        raise HarnessError(stage, f"{stage} failed: {type(exc).__name__}: {exc}") from exc
