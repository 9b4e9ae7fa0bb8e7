"""A local OpenAI-compatible server with scripted replies, for offline tests and benches.

It speaks ``GET /v1/models``, ``POST /v1/chat/completions`` and ``POST
/v1/responses`` on the loopback interface, so the real ``openai`` client (and
the plugin's agent, user and judge) can be exercised with no network and no key.

Replies are scripted, not generated:

* an agent request (one that offers tools) replays the tool calls recorded for
  the conversation's opening message (`scripts`, e.g. loaded from a golden
  run's results file with `scripts_from_results`), `calls_per_turn` at a time,
  then closes with a message and the end tool; an unknown opening gets a
  closing message straight away;
* a judge request (its system prompt asks to grade) answers yes when an
  accepted wording the prompt lists appears in the agent's lines of the
  conversation (as the offline phrase judge does), no when none does, and yes
  when the prompt lists none; reason first, as the judge's prompt asks;
* any other request is the simulated user, who thanks the agent and stops.

`faults` injects failures, one per completion request, before the script resumes:
``Fault(status=429, headers={"retry-after": "0.1"})``, ``Fault(status=500)``,
``Fault(delay_s=5)`` (a slow reply), ``Fault(malformed_arguments=True)`` (a tool
call whose arguments are not JSON), ``Fault(garbage=True)`` (a 200 whose body
is not a completion), ``Fault(not_json=True)`` (a 200 whose body is not
JSON) or ``Fault(text="...")`` (this text as the reply, no tool calls); a
fault with ``role="user"`` (or ``"judge"``, ``"agent"``) waits for the next
request of that role, the others come in turn. With `record` the server keeps
every completion request's body, as parsed, in `bodies`. `latency_s` delays
every reply to a readable completion request, for throughput benches;
`sloppy` (model name -> rate) makes a model close early at that rate per turn,
from a seeded generator, to stand in for models of different reliability.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import random
import socket
import threading
import time
from http import HTTPStatus
from typing import Any

from jiter import from_json

from .model_requests import Conversation, _read_chat, _read_responses, _tokens, role_of
from .model_scripts import END_TOOL, USER_STOP, Fault, Script, scripted_verdict, scripts_from_results

__all__ = ["Fault", "Script", "ScriptedModelServer", "scripts_from_results"]


class ScriptedModelServer:
    """Start with `start()`, stop with `close()`; `base_url` is what a client points at."""

    def __init__(
        self,
        scripts: dict[str, Script] | None = None,
        *,
        latency_s: float = 0.0,
        calls_per_turn: int = 1,
        sloppy: dict[str, float] | None = None,
        seed: int = 0,
        port: int = 0,
        record: bool = False,
    ) -> None:
        self.scripts = scripts or {}
        self.latency_s, self.calls_per_turn = latency_s, calls_per_turn
        self.sloppy = sloppy or {}
        self._rng = random.Random(seed)
        self.faults: collections.deque[Fault] = collections.deque()
        self.requests: list[str] = []  # the path of every request, in order
        self.arrivals: list[float] = []  # when each completion request arrived (time.monotonic())
        self.last_body: dict[str, Any] | None = None  # the last completion request's body, as parsed
        self.bodies: list[dict[str, Any]] | None = [] if record else None  # every one, when recording
        self._lock = threading.Lock()  # tests add faults from their own thread
        self._ids = itertools.count(1)
        # Listening from here on: a client that comes before serving starts waits in the backlog, which is
        # sized for a campaign's episodes connecting at once.
        self._socket = socket.create_server(("127.0.0.1", port), backlog=1024)
        self._port = self._socket.getsockname()[1]
        self._thread: threading.Thread | None = None
        self._serving = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def serve_forever(self) -> None:
        """Serve in this thread until `close` (or Ctrl-C); `start` serves from a background thread."""
        try:
            asyncio.run(self._serve())
        finally:
            self._socket.close()

    def start(self) -> ScriptedModelServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        self._serving.wait(10)
        return self

    def close(self) -> None:
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)
        self._socket.close()

    async def _serve(self) -> None:
        # One event loop serves every connection: a reply's latency is a timer, not a sleeping thread
        # (with 256 episodes in flight, threads cost about 1 ms of CPU a request).
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        connections: set[asyncio.StreamWriter] = set()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections.add(writer)
            try:
                await self._serve_connection(reader, writer)
            finally:
                connections.discard(writer)
                writer.close()

        listener = await asyncio.start_server(serve, sock=self._socket)
        self._serving.set()
        try:
            await self._stop.wait()
        finally:
            listener.close()
            for writer in connections:  # keep-alive connections would otherwise outlive the server
                writer.close()

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Requests on one keep-alive connection, one after another, until the client closes it."""
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return
            try:
                method, path, headers = _request_head(head)
                length = int(headers.get("content-length") or 0)
            except ValueError:
                writer.write(_response_bytes(400, b'{"error": {"message": "malformed request head"}}', {}))
                return
            if "chunked" in headers.get("transfer-encoding", ""):
                writer.write(_response_bytes(411, b'{"error": {"message": "send a Content-Length"}}', {}))
                return
            try:
                raw = await reader.readexactly(length)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            status, body, extra = await _respond(self, method, path, raw)
            writer.write(_response_bytes(status, body, extra))
            if headers.get("connection", "").lower() == "close":
                return

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def next_fault(self, role: str | None = None) -> Fault | None:
        """The first queued fault for any request, or for a request of `role`."""
        with self._lock:
            for i, fault in enumerate(self.faults):
                if fault.role is None or fault.role == role:
                    del self.faults[i]
                    return fault
            return None

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def reply(
        self, conversation: Conversation, fault: Fault | None, model: str = ""
    ) -> tuple[str | None, list[tuple[str, str]]]:
        """The scripted text and (tool, JSON arguments) calls for one request."""
        if fault is not None and fault.text is not None:
            return fault.text, []
        if not conversation.has_tools:
            if "grade" in conversation.system:
                return scripted_verdict(conversation.opening), []
            return USER_STOP, []
        if fault is not None and fault.malformed_arguments:
            return None, [("get_order", '{"order_id": ')]
        script = self.scripts.get(conversation.opening, Script([]))
        done = conversation.tool_results
        if done < len(script.calls) and not self._slips(model):
            batch = script.calls[done : done + self.calls_per_turn]
            return None, [(c["tool"], json.dumps(c["arguments"])) for c in batch]
        return script.reply, [(END_TOOL, "{}")] if script.end and conversation.offers_end else []

    def _slips(self, model: str) -> bool:
        """A sloppy model closes early now and then, leaving the rest of its script undone."""
        rate = self.sloppy.get(model, 0.0)
        with self._lock:
            return rate > 0 and self._rng.random() < rate


def _chat_body(server: ScriptedModelServer, model: str, c: Conversation, text: str | None, calls: list) -> dict:
    tool_calls = [
        {"id": f"call_{server.next_id()}", "type": "function", "function": {"name": name, "arguments": args}}
        for name, args in calls
    ]
    output = _tokens(len(text or "") + sum(len(a) for _, a in calls))
    return {
        "id": f"chatcmpl-{server.next_id()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, **({"tool_calls": tool_calls} if calls else {})},
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": c.tokens,
            "completion_tokens": output,
            "total_tokens": c.tokens + output,
            "prompt_tokens_details": {"cached_tokens": _tokens(len(c.system))},  # a stable prefix a server would cache
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _responses_body(server: ScriptedModelServer, model: str, c: Conversation, text: str | None, calls: list) -> dict:
    output: list[dict[str, Any]] = []
    if text is not None:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        output.append(
            {
                "type": "message",
                "id": f"msg_{server.next_id()}",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        )
    for name, args in calls:
        n = server.next_id()
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": name,
                "arguments": args,
                "status": "completed",
            }
        )
    produced = _tokens(len(text or "") + sum(len(a) for _, a in calls))
    return {
        "id": f"resp_{server.next_id()}",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": c.tokens,
            "input_tokens_details": {"cached_tokens": _tokens(len(c.system))},
            "output_tokens": produced,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": c.tokens + produced,
        },
    }


async def _respond(server: ScriptedModelServer, method: str, path: str, raw: bytes) -> tuple[int, bytes, dict]:
    """Status, body and extra headers of the reply to one request."""
    if method == "GET":
        server.requests.append(path)
        if path.rstrip("/").endswith("/models"):
            return 200, json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}).encode(), {}
        return 404, b'{"error": {"message": "not found"}}', {}
    if method != "POST":
        return 405, b'{"error": {"message": "GET or POST"}}', {}
    server.arrivals.append(time.monotonic())
    server.requests.append(path)
    if path.endswith("/chat/completions"):
        read, render = _read_chat, _chat_body
    elif path.endswith("/responses"):
        read, render = _read_responses, _responses_body
    else:
        return 404, b'{"error": {"message": "not found"}}', {}
    try:
        # jiter (the openai client's own parser) reads a 40 KB agent request 2-3x faster than json.loads,
        # which was two thirds of this server's CPU in bench/models.py, taken from the cores it measures.
        body = from_json(raw or b"{}")
    except ValueError:
        return 400, b'{"error": {"message": "the body is not JSON", "type": "invalid"}}', {}
    server.last_body = body
    if server.bodies is not None:
        server.bodies.append(body)
    try:
        conversation = read(body, len(raw))
    except (KeyError, TypeError, AttributeError) as exc:
        message = {"error": {"message": f"unreadable request: {type(exc).__name__}: {exc}", "type": "invalid"}}
        return 400, json.dumps(message).encode(), {}
    model = body.get("model", "")
    # Only what the reply needs waits out the latency, not the parsed request: thousands of objects per
    # request in flight, which the garbage collector kept scanning (at 64 in flight, 0.78 ms of CPU a
    # request against 0.51-0.57 ms).
    del body
    fault = server.next_fault(role_of(conversation))
    delay = server.latency_s + (fault.delay_s if fault else 0.0)
    if delay:
        await asyncio.sleep(delay)
    if fault is not None and fault.status is not None:
        message = {"error": {"message": f"scripted status {fault.status}", "type": "scripted"}}
        return fault.status, json.dumps(message).encode(), fault.headers
    if fault is not None and fault.garbage:
        return 200, b'{"unexpected": true}', {}
    if fault is not None and fault.not_json:
        return 200, b"<html>upstream proxy error</html>", {}
    text, calls = server.reply(conversation, fault, model)
    return 200, json.dumps(render(server, model, conversation, text, calls)).encode(), {}


def _request_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    """Method, path and headers (names in lower case) of an HTTP/1.1 request's head."""
    lines = head.decode("latin-1").split("\r\n")
    method, path, version = lines[0].split(" ", 2)
    if not version.startswith("HTTP/1."):
        raise ValueError(version)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return method, path, headers


def _response_bytes(status: int, body: bytes, headers: dict[str, str]) -> bytes:
    """The whole reply in one write (headers and body apart would wait on the client's delayed ACK)."""
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json"]
    head += [f"Content-Length: {len(body)}", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
