"""MCP plumbing for domains: declare tools once, serve them in-process per attempt.

A domain writes plain functions whose first parameter is the attempt's
SQLAlchemy session::

    tools = ToolSet("retail")

    @tools.write
    def update_ticket(db: Session, ticket_id: str, status: TicketStatus) -> dict: ...

`ToolSet.server` builds one official-SDK `MCPServer` per process (schemas are
generated once); `ToolSession` opens an in-process client on it for one attempt,
with the attempt's database bound, and turns every result into a `ToolResult`.
Expected failures are `ToolFailure(code, message)`; a crash inside a tool is
logged with its cause, rolled back, and reported to the agent as ``INTERNAL``.
Either way the agent gets an error result and the episode goes on.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .backends.base import bind_session, current_session

logger = logging.getLogger("pytest_thinkingbox.tools")

#: Stable error codes a tool result may carry.
NOT_FOUND = "NOT_FOUND"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
PRECONDITION_FAILED = "PRECONDITION_FAILED"
CONFLICT = "CONFLICT"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
INTERNAL = "INTERNAL"


class ToolFailure(Exception):
    """An anticipated tool failure the agent should read and react to.

    Args:
        code: a stable code such as ``NOT_FOUND`` or ``PRECONDITION_FAILED``.
        message: what went wrong, in words an agent can act on.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def error_payload(code: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "message": message}})


@dataclass(frozen=True)
class ToolSpec:
    """What an agent sees of a tool: name, description, JSON schema, read-only flag."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool


@dataclass
class ToolResult:
    """The normalized outcome of one tool call."""

    text: str
    error: str | None = None  # the stable code, None on success

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ToolSet:
    """The tools of one domain, declared with `read` and `write` decorators."""

    name: str
    _functions: dict[str, tuple[Callable[..., Any], bool]] = field(default_factory=dict)
    specs: list[ToolSpec] | None = field(default=None, init=False)  # as listed over MCP, once per process

    def read(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Declare a tool that only reads."""
        self._functions[fn.__name__] = (fn, True)
        return fn

    def write(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Declare a tool that may change records."""
        self._functions[fn.__name__] = (fn, False)
        return fn

    def writes(self) -> dict[str, Callable[..., Any]]:
        """The tools that may change records, by name."""
        return {name: fn for name, (fn, read_only) in self._functions.items() if not read_only}

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def unknown_arguments(self, name: str, arguments: dict[str, Any]) -> str | None:
        """Why `arguments` do not fit tool `name` (an argument it does not declare), or None when they fit."""
        declared = _parameters(self._functions[name][0])
        unknown = [a for a in arguments if a not in declared]
        if not unknown:
            return None
        listed = ", ".join(repr(a) for a in unknown)
        return f"{name} has no argument {listed}; its arguments are: {', '.join(declared) or 'none'}"

    def refusal(self, name: str, arguments: Any) -> ToolResult | None:
        """The error result for a call refused before it reaches the server, or None.

        An unknown tool, arguments that are not an object, or an argument the
        tool does not declare: the SDK's argument models would drop a misspelt
        one silently.
        """
        if name not in self:
            known = ", ".join(sorted(self._functions))
            return ToolResult(error_payload(UNKNOWN_TOOL, f"no tool named {name!r}; tools are: {known}"), UNKNOWN_TOOL)
        if not isinstance(arguments, dict):
            message = f"arguments must be a JSON object, got {type(arguments).__name__}"
            return ToolResult(error_payload(INVALID_ARGUMENT, message), INVALID_ARGUMENT)
        unknown = self.unknown_arguments(name, arguments)
        if unknown is not None:
            return ToolResult(error_payload(INVALID_ARGUMENT, f"{unknown}; nothing was run"), INVALID_ARGUMENT)
        return None

    async def apply(self, db: Any, name: str, arguments: Any) -> ToolResult:
        """Make one call on `db` through the server's own `call_tool`, without a client session.

        The same checks, argument validation, tool function and result as a
        call over `ToolSession`, and the same error result for a failure the
        server would report. It skips the protocol's round trip (about six
        times the cost of the call's own handling), so it is for the harness's
        own calls: the golden replay. Agents always call over `ToolSession`.
        """
        from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
        from mcp.types import CallToolResult, TextContent
        from mcp_types import CallToolRequestParams

        refused = self.refusal(name, arguments)
        if refused is not None:
            return refused
        # The arguments as the client sends them: in their JSON form (a date as its ISO text).
        params = CallToolRequestParams(name=name, arguments=arguments)
        sent = params.model_dump(mode="json", by_alias=True, exclude_none=True)["arguments"]
        with bind_session(db):
            try:
                result = await self.server.call_tool(name, sent)
            except ToolError as exc:  # what the server's request handler turns into an error result
                if isinstance(exc, UnexpectedToolError):
                    logger.exception("tool %s raised an unexpected exception", name)
                result = CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
        return _normalize(result)

    @functools.cached_property
    def server(self) -> Any:
        """The MCP server for these tools; built once per process."""
        from mcp.server.mcpserver import MCPServer
        from mcp.types import ToolAnnotations

        server = MCPServer(self.name, log_level="WARNING")  # the SDK configures root logging: keep it quiet
        for name, (fn, read_only) in self._functions.items():
            server.add_tool(
                _served(fn, read_only),
                name=name,
                annotations=ToolAnnotations(read_only_hint=read_only, destructive_hint=not read_only),
                structured_output=False,  # text results and no output schema (ToolSession._send relies on it)
            )
        return server


@functools.cache
def _parameters(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The arguments a tool function declares (its leading `db` parameter aside)."""
    return tuple(list(inspect.signature(fn).parameters)[1:])


def _served(fn: Callable[..., Any], read_only: bool) -> Callable[..., Any]:
    """Wrap a domain function as an async MCP tool bound to the current session.

    The wrapper is async so the SDK calls it on the event loop (not a worker
    thread), and its signature hides the leading `db` parameter from the schema.
    A write is committed when it succeeds and rolled back when it fails, so a
    failed call leaves nothing behind; a read has nothing to commit or undo.
    """
    signature = inspect.signature(fn, eval_str=True)
    public = list(signature.parameters.values())[1:]

    async def tool(**arguments: Any) -> Any:
        db = current_session()
        started = time.perf_counter()
        try:
            result = fn(db, **arguments)
            if not read_only:
                db.commit()
        except ToolFailure as failure:
            if not read_only:
                db.rollback()
            return _error_result(failure.code, failure.message)
        except Exception:
            db.rollback()
            logger.exception("tool %s crashed with arguments %r", fn.__name__, arguments)
            return _error_result(INTERNAL, f"{fn.__name__} failed unexpectedly; nothing was changed")
        finally:
            db.info[_TOOL_SECONDS] = tool_seconds(db) + time.perf_counter() - started
        return json.dumps(result, default=str)

    tool.__name__ = fn.__name__
    tool.__doc__ = inspect.getdoc(fn)
    tool.__signature__ = signature.replace(parameters=public)  # type: ignore[attr-defined]
    return tool


_TOOL_SECONDS = "thinkingbox_tool_seconds"  # key in Session.info


def tool_seconds(db: Any) -> float:
    """Seconds spent so far inside the domain's tool functions on this session (commit included).

    What the domain's own code costs, told apart from the harness around it
    (MCP, the agent loop) in an attempt's timing.
    """
    return float(db.info.get(_TOOL_SECONDS, 0.0))


def _error_result(code: str, message: str) -> Any:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=error_payload(code, message))], is_error=True)


_SDK_PREFIX = re.compile(r"^Error executing tool \S+(?::\s*)?")
_PYDANTIC_URL = re.compile(r"\n\s*For further information visit \S+")


def _normalize(result: Any) -> ToolResult:
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if not result.is_error:
        return ToolResult(text)
    try:
        error = json.loads(text)["error"]
        return ToolResult(text, error["code"])
    except (ValueError, KeyError, TypeError):
        pass
    # Errors the SDK raised itself: argument validation, or a failure outside the tool body.
    detail = _PYDANTIC_URL.sub("", _SDK_PREFIX.sub("", text)).strip()
    if "validation error" in detail:
        return ToolResult(error_payload(INVALID_ARGUMENT, detail), INVALID_ARGUMENT)
    return ToolResult(error_payload(INTERNAL, "the tool failed unexpectedly; try again or escalate"), INTERNAL)


class ToolSession:
    """An in-process MCP client session on a domain's tools for one database.

    Use as ``async with ToolSession(toolset, db) as tools: await tools.call(name, args)``.
    """

    def __init__(self, toolset: ToolSet, db: Any) -> None:
        self._toolset = toolset
        self._db = db
        self._client: Any = None
        self.specs: list[ToolSpec] = []

    async def __aenter__(self) -> ToolSession:
        from mcp import Client
        from mcp_types.version import LATEST_MODERN_VERSION

        self._bound = bind_session(self._db)
        self._bound.__enter__()
        # Our own in-process server speaks the latest protocol: adopt it without a probe.
        self._client = Client(self._toolset.server, mode=LATEST_MODERN_VERSION)
        await self._client.__aenter__()
        if self._toolset.specs is None:
            # The schemas are the same for every session on this server: list them once.
            listed = await self._client.list_tools()
            self._toolset.specs = [
                ToolSpec(
                    name=t.name,
                    description=t.description or "",
                    input_schema=t.input_schema,
                    read_only=bool(t.annotations and t.annotations.read_only_hint),
                )
                for t in listed.tools
            ]
        self.specs = self._toolset.specs
        return self

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            await self._client.__aexit__(exc_type, exc, tb)
        except BaseExceptionGroup as group:
            # The client's task group wraps an error raised in the block; let it
            # propagate as itself so callers can tell a harness error from a failure.
            if exc is None or group.subgroup(lambda e: e is exc) is None:
                raise
        finally:
            self._bound.__exit__(exc_type, exc, tb)

    async def call(self, name: str, arguments: Any) -> ToolResult:
        """Call a tool; unknown names, unknown arguments and malformed arguments come back as error results."""
        refused = self._toolset.refusal(name, arguments)
        return refused if refused is not None else _normalize(await self._send(name, arguments))

    async def _send(self, name: str, arguments: dict[str, Any]) -> Any:
        """One ``tools/call`` request through the client session.

        `Client.call_tool` would list every tool again on the first successful
        call of each new session (about 2 ms for retail's 33 schemas) only to
        validate structured results against output schemas, and these tools
        declare none (`ToolSet.server` serves text). The request and its
        result still go through the SDK's session, dispatcher and server.
        """
        from mcp_types import CallToolRequest, CallToolRequestParams, CallToolResult

        request = CallToolRequest(params=CallToolRequestParams(name=name, arguments=arguments))
        return await self._client.session.send_request(request, CallToolResult)
