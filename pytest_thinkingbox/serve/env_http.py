"""The wire side of `thinkingbox serve-env`: OpenEnv's HTTP and WebSocket contract over an `EnvServer`.

What a client of the ``openenv-core`` package expects, and `openenv validate
--url` checks: ``GET /health``, ``/metadata``, ``/schema`` and
``/openapi.json``; ``POST /reset`` and ``/step`` and ``GET /state`` (the
simulation mode); ``POST /mcp`` answering JSON-RPC; and a WebSocket at ``/ws``
where one connection is one session: ``{"type": "reset" | "step" | "state" |
"close", "data": {...}}`` in, ``{"type": "observation" | "state" | "error",
"data": {...}}`` out. OpenEnv's plain-HTTP endpoints keep no session, so
``/reset`` returns an ``episode_id`` that ``/step`` and ``/state`` name; over
the WebSocket the connection is the session.

The episodes block on their threads, so each request waits for its episode in
a worker thread; the listen backlog and the thread pool are sized for the
server's episode cap. A closed WebSocket abandons its live episode, which
frees its resources at once.

What a client sends is bounded before it costs anything: a body (or WebSocket
message) above `max_body` bytes is refused with 413 as soon as its declared or
read size passes the cap; JSON nested deeper than `MAX_DEPTH` or holding a text
longer than `MAX_TEXT` gets 400; an action that breaks the action schema gets
422 with every problem listed, and the episode stays as it was. No error quotes
more than a short prefix of what was sent.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

from ..core.bundle import __version__
from .env_server import Busy, Conflict, EnvServer, InvalidAction

MAX_BODY = 1 << 20  # bytes of a request body or WebSocket message, by default
MAX_DEPTH = 32  # nesting of JSON objects and arrays; an action needs 4
MAX_TEXT = 1 << 16  # characters of one JSON string

DESCRIPTION = (
    "Stateful business workflows (retail, auto insurance, travel, neobank, consulting ...): the agent serves a "
    "simulated user with the domain's tools under a written policy, and the episode's reward is 1 when the task's "
    "checks of the database's end state pass, else 0."
)

MESSAGE = {"type": "object", "properties": {"role": {"type": "string"}, "content": {"type": ["string", "null"]}}}
TOOL_CALL = {
    "type": "object",
    "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["tool"],
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "action": {
        "type": "object",
        "description": "One agent step: tool calls (run by the server) or a message (answered by the user), or both",
        "properties": {
            "tool_calls": {"type": "array", "items": TOOL_CALL},
            "message": {"type": "string"},
            "end": {"type": "boolean", "description": "the agent closes the conversation"},
        },
    },
    "observation": {
        "type": "object",
        "description": "What the agent sees: new messages; the task, policy and tool schemas at reset; "
        "the reason (info) or a system error (error) at the end",
        "properties": {
            "messages": {"type": "array", "items": MESSAGE},
            "task_id": {"type": "string"},
            "policy": {"type": "string"},
            "tools": {"type": "array", "items": {"type": "object"}},
            "info": {"type": "object"},
            "error": {"type": "object"},
        },
    },
    "state": {
        "type": "object",
        "properties": {
            "episode_id": {"type": "string"},
            "task_id": {"type": "string"},
            "step_count": {"type": "integer"},
            "done": {"type": "boolean"},
        },
    },
}
RESET = {
    "type": "object",
    "properties": {
        "task_id": {"type": "string", "description": "the task; without it, one at random from the pool"},
        "seed": {"type": "integer", "description": "the episode's seed, and the random choice's when no task is named"},
        "pool": {"type": "array", "items": {"type": "string"}, "description": "task ids to choose from"},
    },
}


def openapi() -> dict[str, Any]:
    """The OpenAPI description of the HTTP side (the WebSocket is described in the module's docstring)."""

    def operation(summary: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        described: dict[str, Any] = {"summary": summary, "responses": {"200": {"description": "OK"}}}
        if body is not None:
            described["requestBody"] = {"content": {"application/json": {"schema": body}}}
        return described

    step = {
        "type": "object",
        "properties": {"episode_id": {"type": "string"}, "action": SCHEMAS["action"]},
        "required": ["episode_id", "action"],
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "thinkingbox environment", "version": __version__, "description": DESCRIPTION},
        "paths": {
            "/reset": {"post": operation("Start an episode; returns its episode_id and first observation", RESET)},
            "/step": {"post": operation("One agent step in an episode", step)},
            "/state": {"get": operation("An episode's state (?episode_id=...)")},
            "/health": {"get": operation("Whether the server is up")},
            "/tasks": {"get": operation("The task ids served")},
            "/metadata": {"get": operation("The environment's name, description and version")},
            "/schema": {"get": operation("JSON schemas of action, observation and state")},
            "/mcp": {"post": operation("JSON-RPC 2.0 (tools are offered per episode, in the observation)")},
        },
    }


class Refused(Exception):
    """A request the server will not read or parse, with its HTTP status."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def parse(raw: bytes | str) -> Any:
    """A request's JSON, within `MAX_DEPTH` and `MAX_TEXT`; `Refused` (400) otherwise."""
    try:
        value = json.loads(raw or b"{}")
    except RecursionError:
        raise Refused(400, f"the JSON is nested too deep (more than {MAX_DEPTH} levels)") from None
    except ValueError as exc:
        raise Refused(400, f"the body is not JSON: {str(exc)[:120]}") from None
    _check_shape(value, 0)
    return value


def _check_shape(value: Any, depth: int) -> None:
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise Refused(400, f"a text of {len(value)} characters is longer than the {MAX_TEXT} allowed")
        return
    if not isinstance(value, (dict, list)):
        return
    if depth >= MAX_DEPTH:
        raise Refused(400, f"the JSON is nested too deep (more than {MAX_DEPTH} levels)")
    for child in [*value, *value.values()] if isinstance(value, dict) else value:
        _check_shape(child, depth + 1)


async def read_body(request: Any, max_body: int) -> bytes:
    """A request's body, refused (413) once its declared or read size passes `max_body`: never read whole."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_body:
        raise Refused(413, f"the body is {int(declared)} bytes; this server reads at most {max_body}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_body:
            raise Refused(413, f"the body is more than {max_body} bytes, the most this server reads")
        chunks.append(chunk)
    return b"".join(chunks)


def app(env: EnvServer, max_body: int = MAX_BODY) -> Any:
    """The Starlette application serving `env`; request bodies above `max_body` bytes are refused."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def call(handler: Callable[..., dict[str, Any]], *args: Any) -> JSONResponse:
        """Run an episode call in a worker thread; map its failures to the status a client can act on."""
        try:
            return JSONResponse(await asyncio.to_thread(handler, *args))
        except InvalidAction as exc:
            return JSONResponse({"detail": exc.errors}, 422)
        except LookupError as exc:
            return JSONResponse({"detail": str(exc).strip("'\"")}, 400)
        except Conflict as exc:
            return JSONResponse({"detail": str(exc)}, 409)
        except Busy as exc:
            return JSONResponse({"detail": str(exc)}, 503)
        except (ValueError, TypeError) as exc:
            return JSONResponse({"detail": str(exc)}, 400)
        except Exception as exc:  # a bug of ours: say so, keep serving
            return JSONResponse({"detail": f"the server failed: {type(exc).__name__}: {exc}"}, 500)

    def posted(handler: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[Request], Any]:
        """An endpoint that hands its JSON object body to `handler` (``/reset``, ``/step``)."""

        async def endpoint(request: Request) -> JSONResponse:
            try:
                body = parse(await read_body(request, max_body))
            except Refused as exc:
                return JSONResponse({"detail": exc.detail}, exc.status, headers=_closing(exc.status))
            if not isinstance(body, dict):
                return JSONResponse({"detail": "the request body must be a JSON object"}, 400)
            return await call(handler, body)

        return endpoint

    async def state(request: Request) -> JSONResponse:
        return await call(env.state, request.query_params.get("episode_id", ""))

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "healthy", "tasks": len(env.tasks), "episodes": len(env.episodes)})

    async def tasks(request: Request) -> JSONResponse:
        return JSONResponse({"tasks": env.tasks})

    async def metadata(request: Request) -> JSONResponse:
        return JSONResponse(
            {"name": "thinkingbox", "description": DESCRIPTION, "version": __version__, "tasks": len(env.tasks)}
        )

    async def schema(request: Request) -> JSONResponse:
        return JSONResponse(SCHEMAS)

    async def openapi_json(request: Request) -> JSONResponse:
        return JSONResponse(openapi())

    async def mcp(request: Request) -> JSONResponse:
        try:
            message = parse(await read_body(request, max_body) or b"null")
        except Refused as exc:
            if exc.status == 413:
                return JSONResponse({"detail": exc.detail}, 413, headers=_closing(413))
            return JSONResponse(_rpc_error(None, -32700, f"parse error: {exc.detail}"))
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
            return JSONResponse(
                _rpc_error(message.get("id") if isinstance(message, dict) else None, -32600, "invalid request")
            )
        return JSONResponse(
            _rpc_error(
                message.get("id"),
                -32601,
                f"method {message['method']!r} is not served here: each episode's tools come in its reset "
                "observation and are called through step (tool_calls)",
            )
        )

    async def session(socket_: WebSocket) -> None:
        await socket_.accept()
        current: str | None = None
        try:
            while True:
                try:
                    message = parse(await socket_.receive_text())
                    kind, data = message.get("type"), message.get("data") or {}
                    if not isinstance(data, dict):
                        raise ValueError("data must be an object")
                except Refused as exc:
                    await socket_.send_json(_ws_error(f"invalid message: {exc.detail}", "INVALID_JSON"))
                    continue
                except (ValueError, AttributeError) as exc:
                    await socket_.send_json(_ws_error(f"invalid message: {exc}", "INVALID_JSON"))
                    continue
                if kind == "close":
                    break
                try:
                    if kind == "reset":
                        if current is not None:
                            env.abandon(current)
                        payload = await asyncio.to_thread(env.reset, data)
                        current = payload["episode_id"]
                        reply = {"type": "observation", "data": payload}
                    elif kind == "step":
                        if current is None:
                            raise LookupError("no episode on this connection; send a reset first")
                        payload = await asyncio.to_thread(env.step, {"episode_id": current, "action": data})
                        reply = {"type": "observation", "data": payload}
                    elif kind == "state":
                        if current is None:
                            raise LookupError("no episode on this connection; send a reset first")
                        reply = {"type": "state", "data": env.state(current)}
                    else:
                        reply = _ws_error(f"unknown message type {kind!r}: reset, step, state or close", "UNKNOWN_TYPE")
                except InvalidAction as exc:
                    reply = _ws_error(str(exc), "VALIDATION_ERROR") | {"errors": exc.errors}
                except (LookupError, ValueError, TypeError) as exc:
                    reply = _ws_error(str(exc).strip("'\""), "VALIDATION_ERROR")
                except (Busy, Conflict) as exc:
                    reply = _ws_error(str(exc), "CAPACITY_REACHED" if isinstance(exc, Busy) else "SESSION_ERROR")
                await socket_.send_json(reply)
        except WebSocketDisconnect:
            pass
        finally:
            if current is not None:
                env.abandon(current)

    return Starlette(
        routes=[
            Route("/reset", posted(env.reset), methods=["POST"]),
            Route("/step", posted(env.step), methods=["POST"]),
            Route("/state", state, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
            Route("/tasks", tasks, methods=["GET"]),
            Route("/metadata", metadata, methods=["GET"]),
            Route("/schema", schema, methods=["GET"]),
            Route("/openapi.json", openapi_json, methods=["GET"]),
            Route("/mcp", mcp, methods=["POST"]),
            WebSocketRoute("/ws", session),
        ]
    )


def _closing(status: int) -> dict[str, str]:
    """A 413 closes the connection: the rest of the body it refused is not read."""
    return {"connection": "close"} if status == 413 else {}


def _rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _ws_error(message: str, code: str) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code}}


class HttpServer:
    """`env` served on `host`:`port` (0: any free port; see `server_port`) until `shutdown`."""

    def __init__(self, env: EnvServer, host: str = "127.0.0.1", port: int = 8000, max_body: int = MAX_BODY) -> None:
        import uvicorn

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        backlog = max(1024, 4 * env.max_episodes)  # a burst of clients waits instead of being refused
        self._socket.listen(backlog)  # listening now: a client that comes before serve_forever waits
        self.server_port = self._socket.getsockname()[1]
        config = uvicorn.Config(
            app(env, max_body),
            log_level="warning",
            access_log=False,
            backlog=backlog,
            ws="websockets-sansio",
            ws_max_size=max_body,  # a larger WebSocket message closes the connection (1009)
        )
        self._uvicorn = uvicorn.Server(config)
        self._threads = env.max_episodes + 16  # each live request waits for its episode in a thread
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        """Serve until `shutdown` (or Ctrl-C, when called from the main thread)."""
        try:
            asyncio.run(self._serve())
        finally:
            self._stopped.set()

    async def _serve(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(self._threads, "env-request"))
        await self._uvicorn.serve(sockets=[self._socket])

    def shutdown(self) -> None:
        self._uvicorn.should_exit = True
        self._stopped.wait(10)
