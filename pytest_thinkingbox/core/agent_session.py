"""Agents that own their loop: an `AgentSession` per attempt, and the episode around it.

A framework agent (the OpenAI Agents SDK, Pydantic AI, a loop of your own)
is an ``async`` callable that takes the session and runs until it is done::

    async def my_agent(session: AgentSession) -> str | None:
        ...  # session.policy, session.opening, await session.say(text), session.url

It reaches the domain's tools over MCP, through any of three doors that all
lead to the same recording server: ``session.tools`` (an in-process ``mcp``
client), ``session.server`` (the server object, for frameworks that connect
to one themselves) and ``session.url`` (streamable HTTP on 127.0.0.1, opened
on first use, for agents in another process or language). Every call that
reaches the server runs against this attempt's database through the attempt's
`ToolSession` (same checks, same error results) and lands in the transcript
as the stepping loop writes it, so grading, signatures and reports do not
know which kind of agent ran.

The episode ends when the callable returns (a returned string is the agent's
closing message), when the simulated user ends the conversation, or at a limit
(tool calls and messages count as steps; replies count as turns); at the user's
end or a limit the callable is cancelled. An exception from it is a system
error of stage ``agent``, as a crash in a stepping agent's `step` is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .episode import Episode, Limits, SimulatedUser, check_endpoint, guarded, retries_of, waiting
from .errors import HarnessError, ThinkingboxError
from .mcp_http import McpHttpServer
from .tools import ToolResult, ToolSession, ToolSpec, error_payload

OwnedAgent = Callable[["AgentSession"], Awaitable[Any]]
EPISODE_OVER = "EPISODE_OVER"


def owns_loop(agent: object) -> bool:
    """Whether `agent` runs its own loop (an async callable) rather than answering `step(view)`."""
    return not hasattr(agent, "step") and callable(agent)


class AgentSession:
    """What an agent that owns its loop gets for one attempt.

    Attributes:
        policy: the domain's policy (a system prompt, for most agents).
        opening: the simulated user's first message.
        specs: the tools' names, descriptions and input schemas.
        ended: True once the simulated user has ended the conversation.
    """

    def __init__(self, tools: ToolSession, user: SimulatedUser, policy: str, limits: Limits, episode: Episode) -> None:
        self.policy, self.specs = policy, tools.specs
        self.opening = user.opening()
        self.ended = False
        self._tools, self._user, self._limits, self._episode = tools, user, limits, episode
        self._deadline = time.monotonic() + limits.time_limit_s
        self._task: asyncio.Task[Any] | None = None
        self._client: Any = None
        self._http: McpHttpServer | None = None
        episode.messages.append({"role": "user", "content": self.opening})

    # -- the three doors to the tools -------------------------------------------------

    @property
    def server(self) -> Any:
        """The attempt's MCP server (a low-level ``mcp`` `Server`), for frameworks that connect to one."""
        return self._server

    @property
    def tools(self) -> Any:
        """An in-process ``mcp.Client`` connected to the attempt's server (``await session.tools.call_tool(...)``)."""
        if self._client is None:
            raise RuntimeError("session.tools is open only while the agent runs")
        return self._client

    @property
    def url(self) -> str:
        """The streamable-HTTP URL of the attempt's MCP server on 127.0.0.1; it closes with the attempt."""
        if self._http is None:
            self._http = McpHttpServer(self._server)
        return self._http.url

    # -- the conversation ---------------------------------------------------------------

    async def say(self, text: str) -> str:
        """Say `text` to the simulated user and return the reply.

        When the user ends the conversation, `ended` turns True and the
        episode ends with this reply (the agent is cancelled at its next wait).
        """
        episode = self._episode
        if episode.end_reason or not self._step():
            raise asyncio.CancelledError(episode.end_reason)
        episode.messages.append({"role": "assistant", "content": str(text)})
        if episode.turns >= self._limits.max_turns:
            self._finish("max_turns")
            raise asyncio.CancelledError("max_turns")
        retried = retries_of(self._user)
        acted = episode.tool_calls > 0
        turn = await guarded("user", self._user.reply(str(text), acted=acted), self._deadline, self._user)
        if turn is None:
            check_endpoint("user", self._user, retried)
            self._finish("time_limit")
            raise asyncio.CancelledError("time_limit")
        episode.turns += 1
        episode.messages.append({"role": "user", "content": turn.text})
        if turn.end:
            self.ended = True
            self._finish("user_end")
        return turn.text

    async def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one tool call against the attempt's database and record it (what every door ends in)."""
        episode = self._episode
        if episode.end_reason or not self._step():
            return ToolResult(error_payload(EPISODE_OVER, "the attempt has ended; nothing was run"), EPISODE_OVER)
        entry = {"id": f"call_{episode.tool_calls + 1}", "tool": name, "arguments": arguments}
        episode.messages.append({"role": "assistant", "content": None, "tool_calls": [entry]})
        result = await guarded("tools", self._tools.call(name, arguments))
        episode.tool_calls += 1
        episode.tool_errors += not result.ok
        episode.messages.append(
            {"role": "tool", "call_id": entry["id"], "tool": name, "content": result.text, "error": result.error}
        )
        return result

    # -- the episode ----------------------------------------------------------------------

    def _step(self) -> bool:
        """Count one step (a tool call or a message); False when the step limit has been reached."""
        if self._episode.steps >= self._limits.max_steps:
            self._finish("max_steps")
            return False
        self._episode.steps += 1
        return True

    def _finish(self, reason: str) -> None:
        """End the episode with `reason` and cancel the agent where it waits next."""
        if not self._episode.end_reason:
            self._episode.end_reason = reason
        if self._task is not None:
            self._task.cancel()

    async def run(self, agent: OwnedAgent) -> Episode:
        from mcp import Client
        from mcp_types.version import LATEST_MODERN_VERSION

        self._server = recording_server(self._tools.specs, self.call)
        episode = self._episode
        try:
            async with Client(self._server, mode=LATEST_MODERN_VERSION) as self._client:
                self._task = asyncio.ensure_future(agent(self))
                done, _ = await asyncio.wait({self._task}, timeout=max(0.0, self._deadline - time.monotonic()))
                while not done and waiting(self._user):  # a user model answering at the deadline
                    done, _ = await asyncio.wait({self._task}, timeout=0.05)
                if not done:
                    self._finish("time_limit")
                await asyncio.wait({self._task})  # its outcome is read below, outside the client's task group
        finally:
            self._client = None
            if self._http is not None:
                await self._http.aclose()
        if not self._task.cancelled() and not episode.end_reason:  # once we end it, how it stops is its own
            failure = self._task.exception()
            if isinstance(failure, ThinkingboxError):
                raise failure
            if failure is not None:
                cause = _innermost(failure)
                raise HarnessError("agent", f"the agent failed: {type(cause).__name__}: {cause}") from failure
            closing = self._task.result()
            if isinstance(closing, str) and closing.strip():
                episode.messages.append({"role": "assistant", "content": closing})
        episode.end_reason = episode.end_reason or "agent_end"
        return episode


def _innermost(failure: BaseException) -> BaseException:
    """The first real error inside task-group wrappers (frameworks run their work in task groups)."""
    while isinstance(failure, BaseExceptionGroup) and failure.exceptions:
        failure = failure.exceptions[0]
    return failure


def recording_server(specs: list[ToolSpec], call: Callable[[str, Any], Awaitable[ToolResult]]) -> Any:
    """A low-level MCP server that lists `specs` and answers every tool call through `call`."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    listed = types.ListToolsResult(
        tools=[
            types.Tool(
                name=s.name,
                description=s.description,
                input_schema=s.input_schema,
                annotations=types.ToolAnnotations(read_only_hint=s.read_only, destructive_hint=not s.read_only),
            )
            for s in specs
        ]
    )

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listed

    async def call_tool(ctx: Any, params: Any) -> Any:
        result = await call(params.name, params.arguments if params.arguments is not None else {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)], is_error=not result.ok)

    return Server("thinkingbox", on_list_tools=list_tools, on_call_tool=call_tool)
