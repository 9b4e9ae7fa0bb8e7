"""Starting episodes before their test's turn (``--tb-concurrency``): the episodes started early, the start
state a task arranged for its next attempts, and the `Attempt` methods that start, adopt or drop them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.episode import Episode
from ..core.task import Call, User
from ..core.tools import tool_seconds

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.orm import Session

    from ..core.episode import Agent, SimulatedUser
    from ..roles.agents import AgentContext


class StartedEarly(BaseException):
    """Ends a task's body at `tb.run` once its episode has started early; the test itself runs later.

    A BaseException, so that a task's own ``except Exception`` cannot swallow it.
    """


@dataclass
class EarlyEpisode:
    """An episode started before its test ran (``--tb-concurrency``), with what the test needs to adopt it."""

    start_hash: str
    brief: str  # repr of the user, golden calls, reply and traps: the test must ask for the same episode
    agent: Any
    user: Any
    episode: Episode
    task: asyncio.Task[None] = field(init=False)
    held: Any = None  # once the episode has ended well: its end state, kept by the backend for the test
    tool_seconds: float = 0.0  # the episode's time inside the domain's tool functions


@dataclass(frozen=True)
class PreparedStart:
    """A task's start state and episode, as one attempt's `tb.run` had them (``--tb-concurrency``).

    The next attempts of the task start their episodes early from it, without
    running the task's body (the arrange step) a second time. Each is adopted
    only if its test, in its turn, arranges the same start state and asks for
    the same episode (`Attempt._early`); if not, it runs in its turn.
    """

    image: Any  # the start state, as the backend's image (its baseline: nothing written yet)
    start_hash: str
    brief: str
    user: User
    golden: tuple[Call, ...]
    reply: str | None
    traps: tuple[Call, ...]


class EarlyStarts:
    """The part of `Attempt` that starts its episode early, or adopts one started early for it."""

    if TYPE_CHECKING:  # what it uses of `Attempt`
        db: Session
        _cache: Any  # the WorkerCache (worker.py, which imports this module)
        _prepared: PreparedStart | None
        _early_key: str | None
        _prepared_key: str | None
        _handed_off: bool
        _make_agent: Callable[[AgentContext], Agent]
        _make_user: Callable[[User], SimulatedUser]

        def _context(self, golden: tuple[Call, ...], reply: str | None, traps: tuple[Call, ...]) -> AgentContext: ...
        def _with_aliases(self, user: User) -> User: ...
        async def _episode(self, agent: Any, user: Any, episode: Episode) -> None: ...

    def start_prepared(self) -> bool:
        """Start this attempt's episode early from the start state another attempt of its task arranged.

        An attempt made to start early holds that state in its database
        already; the task's body need not run until the test's turn. False if
        the task has no prepared start (yet).
        """
        prepared = self._prepared
        if prepared is None:
            return False
        context = self._context(prepared.golden, prepared.reply, prepared.traps)
        agent, user = self._make_agent(context), self._make_user(self._with_aliases(prepared.user))
        self._start(agent, user, Episode([], end_reason=""), prepared.start_hash, prepared.brief)
        return True

    def _start(self, agent: Any, user: Any, episode: Episode, start: str, brief: str) -> None:
        """Start the episode on the worker's loop with this attempt's database; it runs whenever the loop runs."""
        assert self._early_key is not None
        early = EarlyEpisode(start, brief, agent, user, episode)
        early.task = self._cache.runner.get_loop().create_task(self._run_early(early))
        db, databases = self.db, self._cache.databases

        def ended(_: asyncio.Task[None]) -> None:
            if early.held is None:  # failed, or cancelled (perhaps before it began): nothing to keep
                databases.release(db)

        early.task.add_done_callback(ended)
        self._handed_off = True
        self._cache.early[self._early_key] = early

    async def _run_early(self, early: EarlyEpisode) -> None:
        """Run an episode started early, then keep its end state for its test (the backend lets the database go)."""
        await self._episode(early.agent, early.user, early.episode)
        early.tool_seconds = tool_seconds(self.db)
        early.held = self._cache.databases.hold(self.db)

    def _early(self, start: str, brief: str) -> EarlyEpisode | None:
        """This attempt's episode, if it was started early from the same start state and brief."""
        if self._early_key is None or self._early_key not in self._cache.early:
            return None
        early = self._cache.early[self._early_key]
        if (early.start_hash, early.brief) != (start, brief):
            # The task arranged or asked for something else this time: its early episode answers another question,
            # and so would the next ones started from its prepared start.
            self._cache.discard_early([self._early_key])
            if self._prepared_key is not None:
                self._cache.prepared[self._prepared_key] = None
            return None
        del self._cache.early[self._early_key]
        return early

    async def _adopt(self, early: EarlyEpisode) -> float:
        """Wait for an episode started early, then take over its end state; return its seconds in the tools.

        The episode started from this attempt's start state (the hashes
        matched), so this attempt grades the very writes its agent made, and
        the task's session reads them: its objects load again, as after the
        same calls made through it.
        """
        await asyncio.wait({early.task})
        early.task.result()  # its system error, if it had one, is this attempt's
        self._cache.databases.take_over(self.db, early.held)
        return early.tool_seconds
