"""An environment server for trainers: the tasks, episode by episode, over HTTP.

It follows the OpenEnv conventions (``POST /reset``, ``POST /step``,
``GET /state``, ``GET /health``, observations with ``reward`` and ``done``), with
one addition: OpenEnv's plain-HTTP endpoints keep no session, so ``reset``
returns an ``episode_id`` that every ``step`` names, and many episodes run at
once. Each episode runs its task function in a thread of its own, on a
private backend, with an agent that is the remote client: every ``step`` is
one agent step (tool calls, which the server executes, or a message, which the
simulated user answers). When the episode ends the task's checks run, and the
last step returns the reward, 1 or 0. A failure of the harness comes back as
an ``error`` with its stage, never as a reward. The golden calls, the expected
state, the checks and the user's private facts stay on the server.
"""

from __future__ import annotations

import asyncio
import json
import queue
import random
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from ..core.episode import AgentStep, AgentView
from ..core.errors import ThinkingboxError
from ..core.task import Call
from .reward import find_task, run_task, task_ids

STEP_TIMEOUT_S = 600.0  # an episode whose client goes quiet this long is ended as a system error

_arrange = threading.Lock()  # factory sequences are process-wide: one task arranges its records at a time


class RemoteAgent:
    """The agent of a served episode: it shows each view to the client and waits for its action."""

    def __init__(self, episode: Episode) -> None:
        self._episode = episode

    async def step(self, view: AgentView) -> AgentStep:
        if self._episode.holds_arrange_lock:
            self._episode.holds_arrange_lock = False
            _arrange.release()  # the task has arranged its records and started its episode
        self._episode.outbox.put(("view", view))
        action = await asyncio.to_thread(self._episode.inbox.get, True, STEP_TIMEOUT_S)
        return action


@dataclass
class Episode:
    """One served episode: its task, the queues to and from its thread, and what the client saw."""

    id: str
    task: str
    seed: int
    inbox: queue.Queue[AgentStep] = field(default_factory=queue.Queue)
    outbox: queue.Queue[tuple[str, Any]] = field(default_factory=queue.Queue)
    seen: int = 0  # messages already sent to the client
    steps: int = 0
    done: bool = False
    holds_arrange_lock: bool = False


class EnvServer:
    """The episodes of one server process, over the tasks under `root`."""

    def __init__(self, root: Path, tasks: list[str] | None = None) -> None:
        self.root = root
        self.tasks = sorted(tasks) if tasks else task_ids(root)
        self.episodes: dict[str, Episode] = {}
        self._caches: queue.SimpleQueue[Any] = queue.SimpleQueue()  # worker caches, one per running episode

    def reset(self, body: dict[str, Any]) -> dict[str, Any]:
        seed = int(body.get("seed", 0))
        task = body.get("task_id") or random.Random(seed).choice(sorted(body.get("pool") or self.tasks))
        if task not in self.tasks:
            raise LookupError(f"no task {task!r} on this server")
        episode = Episode(uuid.uuid4().hex, task, seed)
        self.episodes[episode.id] = episode
        threading.Thread(target=self._run, args=(episode,), name=f"episode-{episode.id[:8]}", daemon=True).start()
        return self._next(episode)

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        episode = self.episodes.get(str(body.get("episode_id")))
        if episode is None:
            raise LookupError(f"no episode {body.get('episode_id')!r}; call /reset first")
        if episode.done:
            raise LookupError(f"episode {episode.id} has ended; call /reset for a new one")
        episode.steps += 1
        episode.inbox.put(_agent_step(body.get("action") or {}))
        return self._next(episode)

    def state(self, episode_id: str) -> dict[str, Any]:
        episode = self.episodes.get(episode_id)
        if episode is None:
            raise LookupError(f"no episode {episode_id!r}")
        return {"episode_id": episode.id, "task_id": episode.task, "step_count": episode.steps, "done": episode.done}

    def _next(self, episode: Episode) -> dict[str, Any]:
        kind, value = episode.outbox.get()
        if kind == "view":
            new = value.messages[episode.seen :]
            episode.seen = len(value.messages)
            observation: dict[str, Any] = {"messages": new}
            if episode.steps == 0:
                observation |= {"policy": value.policy, "tools": [_tool_schema(t) for t in value.tools]}
            return {"episode_id": episode.id, "observation": observation, "reward": None, "done": False}
        episode.done = True
        self.episodes.pop(episode.id, None)
        if kind == "reward":
            value, reason = value
            return {
                "episode_id": episode.id,
                "observation": {"messages": []},
                "reward": value,
                "done": True,
                "info": {"reason": reason},
            }
        return {"episode_id": episode.id, "observation": {"messages": []}, "reward": None, "done": True, "error": value}

    def _run(self, episode: Episode) -> None:
        """The episode's thread: arrange the task, run its episode with the remote agent, grade it."""
        from ..attempt import WorkerCache

        try:
            cache = self._caches.get_nowait()
        except queue.Empty:
            cache = WorkerCache()
        try:
            function, domain = find_task(episode.task, self.root)
            _arrange.acquire()
            episode.holds_arrange_lock = True
            passed, _ = run_task(
                function, episode.task, domain, cache, lambda context: RemoteAgent(episode), episode.seed
            )
            # A failed check is not described: what failed would tell the expected state, which stays here.
            outcome: tuple[str, Any] = ("reward", (1, "every check passed") if passed else (0, "a check failed"))
        except ThinkingboxError as exc:
            outcome = ("error", {"stage": getattr(exc, "stage", "task"), "message": str(exc)})
        except Exception as exc:  # the task's own code broke: not the agent's doing
            outcome = ("error", {"stage": "task", "message": f"{type(exc).__name__}: {exc}"})
        finally:
            if episode.holds_arrange_lock:
                episode.holds_arrange_lock = False
                _arrange.release()
            self._caches.put(cache)
        episode.outbox.put(outcome)


def _agent_step(action: dict[str, Any]) -> AgentStep:
    calls = [
        Call(str(c.get("tool", c.get("name"))), dict(c.get("arguments") or {})) for c in action.get("tool_calls", [])
    ]
    return AgentStep(tool_calls=calls, message=action.get("message"), end=bool(action.get("end")))


def _tool_schema(spec: Any) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
        "read_only": spec.read_only,
    }


def serve(server: EnvServer, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """An HTTP server for `server`'s episodes (call `serve_forever` on it, or `shutdown`)."""

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload, default=str).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            url = urlparse(self.path)
            if url.path == "/health":
                return self._send(200, {"status": "healthy", "tasks": len(server.tasks)})
            if url.path == "/tasks":
                return self._send(200, {"tasks": server.tasks})
            if url.path == "/state":
                try:
                    return self._send(200, server.state(parse_qs(url.query).get("episode_id", [""])[0]))
                except LookupError as exc:
                    return self._send(404, {"detail": str(exc)})
            self._send(404, {"detail": f"no endpoint {url.path}"})

        def do_POST(self) -> None:
            handler = {"/reset": server.reset, "/step": server.step}.get(urlparse(self.path).path)
            if handler is None:
                return self._send(404, {"detail": f"no endpoint {self.path}"})
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                return self._send(200, handler(body))
            except (LookupError, ValueError, TypeError) as exc:
                return self._send(400, {"detail": str(exc)})

        def log_message(self, format: str, *args: Any) -> None:  # quiet: one line per request is noise here
            pass

    return ThreadingHTTPServer((host, port), Handler)
