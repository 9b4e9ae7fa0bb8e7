"""One attempt of one task: the object behind the `tb` fixture, and its `Run`.

`Attempt` owns the attempt's fresh database (restored from the worker's image),
binds it for factories and tools, and runs the episode once through `run`.
`WorkerCache` holds what a worker builds once: database images per domain,
golden end states per (domain, start state, golden calls), and an event loop.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from . import backend
from .agents import AgentContext
from .domain import Domain
from .episode import Agent, Episode, Limits, SimulatedUser, run_episode
from .errors import HarnessError, TaskDefinitionError
from .expect import expect_no_differences
from .factories import reset_factories
from .state import (
    Change,
    Difference,
    Snapshot,
    compare,
    diff,
    snapshot,
    state_hash,
    volatile_fields,
)
from .task import Call, User
from .tools import ToolSession


@dataclass
class WorkerCache:
    """Per-worker work done once: database images, golden end states, the event loop."""

    databases: Any = field(default_factory=backend.SQLiteBackend)  # SQLiteBackend or PostgresBackend
    runner: asyncio.Runner = field(default_factory=asyncio.Runner)  # one event loop per worker
    images: dict[str, Any] = field(default_factory=dict)  # the backend's image of each domain
    golden: dict[tuple[str, str, str], Snapshot] = field(default_factory=dict)  # (domain, start hash, calls)

    def image(self, domain: Domain) -> Any:
        if domain.name not in self.images:
            try:
                self.images[domain.name] = self.databases.build_image(domain.metadata, domain.seed)
            except Exception as exc:
                raise HarnessError(
                    "backend",
                    f"building the {domain.name!r} database (schema and seed) failed: {type(exc).__name__}: {exc}",
                ) from exc
        return self.images[domain.name]

    def close(self) -> None:
        self.runner.close()
        self.databases.close()


class Run:
    """What one episode did: its transcript, its effects and how it compares with golden.

    Attributes:
        db: the attempt's SQLAlchemy session, for plain asserts on rows.
        episode: the transcript (`episode.messages`) and counters.
        differences: how the end state departs from the golden end state.
        golden: the golden calls.
    """

    def __init__(
        self,
        db: Session,
        episode: Episode,
        differences: list[Difference],
        golden: tuple[Call, ...],
        before: Snapshot,
        after: Snapshot,
        golden_end: Snapshot,
    ) -> None:
        self.db, self.episode, self.differences, self.golden = db, episode, differences, golden
        self._before, self._after, self._golden_end = before, after, golden_end

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.episode.messages

    @functools.cached_property
    def effects(self) -> list[Change]:
        """Every change the episode made to the database (added, removed, updated per field)."""
        return diff(self._before, self._after)

    def expect_golden(self) -> None:
        """Assert the end state equals the golden end state: nothing wrong, missing or extra."""
        __tracebackhide__ = True
        expect_no_differences(self.differences)


class Attempt:
    """The `tb` fixture's object: a fresh backend for one attempt of one task.

    Attributes:
        db: the attempt's SQLAlchemy session (factories write into it).
        domain: the task's `Domain`.
        task, attempt, seed: which attempt this is.
    """

    def __init__(
        self,
        *,
        task: str,
        attempt: int,
        seed: int,
        domain: Domain,
        cache: WorkerCache,
        make_agent: Callable[[AgentContext], Agent],
        make_user: Callable[[User], SimulatedUser],
        limits: Limits,
        record: dict[str, Any],
    ) -> None:
        self.task, self.attempt, self.seed, self.domain = task, attempt, seed, domain
        self._cache, self._make_agent, self._make_user, self._limits = cache, make_agent, make_user, limits
        self.record = record
        self._run: Run | None = None
        self._started = time.perf_counter()
        self.db = cache.databases.restore(cache.image(domain))
        cache.databases.defer_foreign_keys(self.db)  # the arrange step may write children before parents
        self._bound = backend.bind_session(self.db)
        self._bound.__enter__()
        reset_factories(seed)
        self._set_up = time.perf_counter()

    @property
    def last_run(self) -> Run | None:
        """The `Run` of this attempt's episode, once `run` has been called."""
        return self._run

    def sibling(self, make_agent: Callable[[AgentContext], Agent]) -> Attempt:
        """A fresh attempt of the same task, seed and user with another agent (for --tb-validate)."""
        return Attempt(
            task=self.task,
            attempt=self.attempt,
            seed=self.seed,
            domain=self.domain,
            cache=self._cache,
            make_agent=make_agent,
            make_user=self._make_user,
            limits=self._limits,
            record={},
        )

    def close(self) -> None:
        self._bound.__exit__(None, None, None)
        self._cache.databases.release(self.db)

    def run(self, user: User, golden: Sequence[Call]) -> Run:
        """Run the episode: the agent serves `user` with the domain's tools.

        Args:
            user: the simulated user's brief.
            golden: the reference calls; replayed on a copy of the start state
                to get the golden end state the agent is compared with.
        """
        if self._run is not None:
            raise TaskDefinitionError(
                f"{self.task} calls tb.run twice; one attempt is one episode, so split it into two tasks"
            )
        golden = tuple(golden)
        for i, c in enumerate(golden, 1):
            if not isinstance(c, Call):
                raise TaskDefinitionError(f"{self.task}: golden entry {i} is {c!r}; build it with call('tool', ...)")
        arranged = time.perf_counter()
        self.db.commit()
        metadata = self.domain.metadata
        before = snapshot(self.db, metadata)
        start = state_hash(before)
        golden_end = self._golden_end(start, golden)
        agent = self._make_agent(AgentContext(self.task, self.attempt, self.seed, golden))
        episode = self._cache.runner.run(self._episode(agent, self._make_user(user)))
        after = snapshot(self.db, metadata)
        differences = [] if after == golden_end else compare(before, golden_end, after, volatile_fields(metadata))
        self._run = Run(self.db, episode, differences, golden, before, after, golden_end)
        self.record.update(
            timing={
                "setup_s": self._set_up - self._started,
                "arrange_s": arranged - self._set_up,
                "run_s": time.perf_counter() - arranged,
            },
            start_hash=start,
            end_hash=state_hash(after),
            golden_hash=state_hash(golden_end),
            end_reason=episode.end_reason,
            steps=episode.steps,
            turns=episode.turns,
            tool_calls=episode.tool_calls,
            tool_errors=episode.tool_errors,
            fault=getattr(agent, "fault", None),
            wrong=sum(d.kind == "wrong" for d in differences),
            missing=sum(d.kind == "missing" for d in differences),
            extra=sum(d.kind == "extra" for d in differences),
            differences=[d.as_dict() for d in differences],
            transcript=episode.messages,
        )
        return self._run

    async def _episode(self, agent: Agent, user: SimulatedUser) -> Episode:
        async with ToolSession(self.domain.tools, self.db) as tools:
            return await run_episode(agent, user, tools, self.domain.policy_text, self._limits)

    def _golden_end(self, start: str, golden: tuple[Call, ...]) -> Snapshot:
        key = (self.domain.name, start, repr(golden))  # same start + same calls = same end
        if key not in self._cache.golden:
            scratch = self._cache.databases.restore(self._cache.databases.dump(self.db))
            try:
                self._cache.runner.run(self._replay(scratch, golden))
                self._cache.golden[key] = snapshot(scratch, self.domain.metadata)
            finally:
                self._cache.databases.release(scratch)
        return self._cache.golden[key]

    async def _replay(self, scratch: Session, golden: tuple[Call, ...]) -> None:
        async with ToolSession(self.domain.tools, scratch) as tools:
            for i, c in enumerate(golden, 1):
                result = await tools.call(c.tool, c.arguments)
                if not result.ok:
                    raise TaskDefinitionError(
                        f"{self.task}: golden call {i}, {c}, fails on the task's start state with "
                        f"{result.error}: {result.text}"
                    )
