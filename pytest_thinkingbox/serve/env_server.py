"""An environment server for trainers: the tasks, episode by episode (the wire side is `env_http`).

`reset` starts an episode (a named task, or one at random from the pool:
seeded by the call's ``seed``, else by the server's) and returns its
``episode_id``; many episodes run at once. Each episode runs its task function in a thread of its own, on a
private backend, with an agent that is the remote client: every ``step`` is
one agent step (tool calls, which the server executes, or a message, which the
simulated user answers). When the episode ends the task's checks run, and the
last step returns the reward, 1 or 0. A failure of the harness comes back as
an ``error`` with its stage, never as a reward. The golden calls, the expected
state, the checks and the user's private facts stay on the server.

Under load and abuse: a malformed request gets a 4xx with a message (never a traceback); a step on
an episode that is still answering another is refused with 409; at most
`max_episodes` live at once (a reset beyond gets 503); an episode whose client
sends nothing for `idle_timeout_s` is ended and its resources freed; and at
most a few idle worker caches are kept for reuse, the rest closed. Every cache
shares one database image per domain and one store of golden end states, so a
burst of episodes builds each once.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import random
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.catalog import find, task_ids
from ..core.episode import AgentStep, AgentView
from ..core.errors import ThinkingboxError
from ..core.task import Call
from .reward import offline_harness

IDLE_TIMEOUT_S = 300.0  # an episode whose client sends nothing this long is ended and freed
MAX_EPISODES = 256  # live episodes at once; a reset beyond is refused
KEPT_CACHES = 4  # idle worker caches (database images, event loop) kept for the next episodes
KEPT_ENDED = 4096  # ended episodes whose state can still be read

_arrange = threading.Lock()  # factory sequences are process-wide: one task arranges its records at a time


class Expired(ThinkingboxError):
    """The client of an episode sent nothing for the idle timeout; the episode ends and frees its resources."""

    stage = "agent"


class RemoteAgent:
    """The agent of a served episode: it shows each view to the client and waits for its action."""

    def __init__(self, episode: Episode, idle_timeout_s: float) -> None:
        self._episode, self._idle_timeout_s = episode, idle_timeout_s

    async def step(self, view: AgentView) -> AgentStep:
        if self._episode.holds_arrange_lock:
            self._episode.holds_arrange_lock = False
            _arrange.release()  # the task has arranged its records and started its episode
        action = self._episode.await_action()  # registered before the client can see the view
        self._episode.outbox.put(("view", view))
        try:
            return await asyncio.wait_for(action, self._idle_timeout_s)
        except TimeoutError:
            self._episode.expired = True
            raise Expired(f"no step for {self._idle_timeout_s:g} s: the episode expired") from None


@dataclass
class Episode:
    """One served episode: its task, the hand-over of actions and views with its thread, what the client saw."""

    id: str
    task: str
    seed: int
    outbox: queue.Queue[tuple[str, Any]] = field(default_factory=queue.Queue)
    seen: int = 0  # messages already sent to the client
    steps: int = 0
    done: bool = False
    expired: bool = False
    holds_arrange_lock: bool = False
    busy: threading.Lock = field(default_factory=threading.Lock)  # held while a step is answered
    _waiting: tuple[asyncio.AbstractEventLoop, asyncio.Future[AgentStep]] | None = None  # the agent's wait
    _early: AgentStep | None = None  # an action that came while the agent was not waiting (an abandon)
    _handover: threading.Lock = field(default_factory=threading.Lock)

    def await_action(self) -> asyncio.Future[AgentStep]:
        """On the episode's loop: a future for the client's next action (no thread blocks on it)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[AgentStep] = loop.create_future()
        with self._handover:
            if self._early is not None:
                future.set_result(self._early)
                self._early = None
            else:
                self._waiting = (loop, future)
        return future

    def act(self, action: AgentStep) -> None:
        """From a request thread: hand the client's action to the episode's loop."""
        with self._handover:
            waiting, self._waiting = self._waiting, None
            if waiting is None:
                self._early = action
                return
        loop, future = waiting

        def deliver() -> None:
            if not future.done():  # an expired wait was cancelled
                future.set_result(action)

        with contextlib.suppress(RuntimeError):  # the episode has ended and its loop is closed: nobody waits
            loop.call_soon_threadsafe(deliver)


class EnvServer:
    """The episodes of one server process, over the tasks under `root`."""

    def __init__(
        self,
        root: Path,
        tasks: list[str] | None = None,
        *,
        max_episodes: int = MAX_EPISODES,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        seed: int | None = None,
    ) -> None:
        self.root = root
        self._choices = random.Random(seed)  # picks the task of a reset that names none and gives no seed
        self.tasks = sorted(tasks) if tasks else task_ids(root)
        self.max_episodes, self.idle_timeout_s = max_episodes, idle_timeout_s
        self.episodes: dict[str, Episode] = {}
        self._lock = threading.Lock()  # guards `episodes` and the cache pool
        self._caches: list[Any] = []  # idle worker caches, at most KEPT_CACHES
        self._ended: OrderedDict[str, dict[str, Any]] = OrderedDict()  # recently ended episodes' states
        self._images: dict[str, Any] = {}  # each domain's database image, for every episode
        self._golden: dict[Any, Any] = {}  # golden end states, for every episode

    def reset(self, body: dict[str, Any]) -> dict[str, Any]:
        seed = body.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"seed must be a whole number, got {brief(seed)}")
        pool = body.get("pool") or self.tasks
        if not isinstance(pool, list) or not pool or not all(isinstance(t, str) for t in pool):
            raise ValueError("pool must be a non-empty list of task ids")
        task = body.get("task_id")
        if not task:
            if seed is not None:
                task = random.Random(seed).choice(sorted(pool))
            else:
                with self._lock:
                    task = self._choices.choice(sorted(pool))
        if task not in self.tasks:
            raise LookupError(f"no task {brief(task)} on this server")
        episode = Episode(uuid.uuid4().hex, str(task), seed or 0)
        with self._lock:
            if len(self.episodes) >= self.max_episodes:
                raise Busy(
                    f"{len(self.episodes)} episodes are live, the most this server runs at once; end one (a step "
                    f"with end: true) or wait for idle ones to expire ({self.idle_timeout_s:g} s)"
                )
            self.episodes[episode.id] = episode
        threading.Thread(target=self._run, args=(episode,), name=f"episode-{episode.id[:8]}", daemon=True).start()
        return self._next(episode)

    def step(self, body: dict[str, Any]) -> dict[str, Any]:
        episode = self.episodes.get(str(body.get("episode_id")))
        if episode is None:
            raise LookupError(f"no episode {brief(body.get('episode_id'))}; call /reset first (or it expired)")
        action = _agent_step(body)
        if not episode.busy.acquire(blocking=False):
            raise Conflict(f"episode {episode.id} is still answering another step; send one step at a time")
        try:
            if episode.done:
                raise LookupError(f"episode {episode.id} has ended; call /reset for a new one")
            episode.steps += 1
            episode.act(action)
            return self._next(episode)
        finally:
            episode.busy.release()

    def abandon(self, episode_id: str) -> None:
        """End an episode nobody will step again (its WebSocket closed): its thread finishes and frees it."""
        episode = self.episodes.get(episode_id)
        if episode is not None and not episode.done:
            episode.expired = True
            episode.act(AgentStep(end=True))

    def state(self, episode_id: str) -> dict[str, Any]:
        """A live episode's state, or a recently ended one's (the last `KEPT_ENDED`)."""
        episode = self.episodes.get(episode_id)
        if episode is not None:
            return _described(episode)
        if episode_id in self._ended:
            return self._ended[episode_id]
        raise LookupError(f"no episode {brief(episode_id)}")

    def _next(self, episode: Episode) -> dict[str, Any]:
        kind, value = episode.outbox.get()
        if kind == "view":
            new = value.messages[episode.seen :]
            episode.seen = len(value.messages)
            observation: dict[str, Any] = {"messages": new}
            if episode.steps == 0:
                tools = [_tool_schema(t) for t in value.tools]
                observation |= {"task_id": episode.task, "policy": value.policy, "tools": tools}
            return {"episode_id": episode.id, "observation": observation, "reward": None, "done": False}
        self._forget(episode)
        if kind == "reward":
            value, reason = value
            observation = {"messages": [], "info": {"reason": reason}}
            return {"episode_id": episode.id, "observation": observation, "reward": value, "done": True}
        observation = {"messages": [], "error": value}  # a system error: no reward, never a 0
        return {"episode_id": episode.id, "observation": observation, "reward": None, "done": True}

    def _run(self, episode: Episode) -> None:
        """The episode's thread: arrange the task, run its episode with the remote agent, grade it."""
        from ..attempt import WorkerCache

        with self._lock:
            # Images and golden end states are shared by every cache: a burst of episodes builds each once.
            cache = self._caches.pop() if self._caches else WorkerCache(images=self._images, golden=self._golden)
        try:
            entry = find(episode.task, self.root)
            _arrange.acquire()
            episode.holds_arrange_lock = True
            agent = RemoteAgent(episode, self.idle_timeout_s)
            passed, _ = offline_harness(lambda context: agent, episode.seed, cache=cache).run_task(entry)
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
            self._keep(cache)
        if episode.expired:  # nobody is waiting for its outcome: forget it
            self._forget(episode)
        episode.outbox.put(outcome)

    def _forget(self, episode: Episode) -> None:
        """An episode has ended: free it, keeping only its state for a while."""
        episode.done = True
        with self._lock:
            self.episodes.pop(episode.id, None)
            self._ended[episode.id] = _described(episode)
            while len(self._ended) > KEPT_ENDED:
                self._ended.popitem(last=False)

    def _keep(self, cache: Any) -> None:
        """Return a worker cache to the pool, or close it when the pool is full (its memory and threads go)."""
        with self._lock:
            if len(self._caches) < KEPT_CACHES:
                self._caches.append(cache)
                return
            quiet = len(self.episodes) <= KEPT_CACHES
        cache.close()
        if quiet:  # the burst is over: hand the freed memory back to the system
            _release_free_memory()


def _release_free_memory() -> None:
    """Return freed heap pages to the system (glibc keeps them otherwise); elsewhere, nothing to do."""
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class Busy(ThinkingboxError):
    """The server runs as many episodes as it may (503)."""


class Conflict(ThinkingboxError):
    """The episode is answering another step (409)."""


class InvalidAction(ThinkingboxError):
    """A step whose action breaks the action schema (422): the episode is left as it was."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors


ACTION_KEYS = ("tool_calls", "message", "end")
CALL_KEYS = ("tool", "name", "arguments")  # name: the same as tool, as some clients write it


def brief(value: Any, limit: int = 60) -> str:
    """`value` as a message may quote it: its repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _agent_step(body: dict[str, Any]) -> AgentStep:
    """The client's action, checked against the action schema; every problem is named, none is guessed past.

    ``{"tool_calls": [{"tool": NAME, "arguments": {...}}], "message": "...", "end": false}``, at least
    one of them: an action that does nothing, a misspelt key or a value of the wrong type is refused
    (`InvalidAction`) rather than run as an empty step that ends the episode.
    """
    errors: list[dict[str, Any]] = []

    def wrong(loc: tuple[Any, ...], msg: str, kind: str = "value_error") -> None:
        errors.append({"loc": ["action", *loc], "msg": msg, "type": kind})

    if "action" not in body:
        raise InvalidAction([{"loc": ["action"], "msg": "a step needs its action", "type": "missing"}])
    action = body["action"]
    if not isinstance(action, dict):
        raise InvalidAction(
            [
                {
                    "loc": ["action"],
                    "msg": f'must be an object like {{"end": true}}, got {brief(action)}',
                    "type": "dict_type",
                }
            ]
        )
    for key in action:
        if key not in ACTION_KEYS:
            wrong((brief(key, 40),), f"unknown field; an action has {', '.join(ACTION_KEYS)}", "extra_forbidden")
    raw = action.get("tool_calls") or []
    calls = []
    if not isinstance(raw, list):
        wrong(("tool_calls",), f"must be a list of {{tool, arguments}}, got {brief(raw)}", "list_type")
        raw = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict):
            wrong(("tool_calls", i), f'must be {{"tool": NAME, "arguments": {{...}}}}, got {brief(c)}', "dict_type")
            continue
        for key in c:
            if key not in CALL_KEYS:
                wrong(
                    ("tool_calls", i, brief(key, 40)),
                    "unknown field; a tool call has tool and arguments",
                    "extra_forbidden",
                )
        name, arguments = c.get("tool", c.get("name")), c.get("arguments", {})
        arguments = {} if arguments is None else arguments
        if not isinstance(name, str) or not name:
            wrong(("tool_calls", i, "tool"), f"must name the tool, got {brief(name)}", "string_type")
        if not isinstance(arguments, dict):
            wrong(("tool_calls", i, "arguments"), f"must be an object, got {brief(arguments)}", "dict_type")
        if isinstance(name, str) and name and isinstance(arguments, dict):
            calls.append(Call(name, arguments))
    message = action.get("message")
    if message is not None and not isinstance(message, str):
        wrong(("message",), f"must be text, got {brief(message)}", "string_type")
    end = action.get("end", False)
    if not isinstance(end, bool):
        wrong(("end",), f"must be true or false, got {brief(end)}", "bool_type")
    if not errors and not calls and not message and not end:
        wrong((), "does nothing: give tool_calls, a message, or end: true", "value_error")
    if errors:
        raise InvalidAction(errors)
    return AgentStep(tool_calls=calls, message=message, end=bool(end))


def _described(episode: Episode) -> dict[str, Any]:
    return {"episode_id": episode.id, "task_id": episode.task, "step_count": episode.steps, "done": episode.done}


def _tool_schema(spec: Any) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
        "read_only": spec.read_only,
    }
