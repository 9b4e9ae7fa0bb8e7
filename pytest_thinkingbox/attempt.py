"""One attempt of one task: the object behind the `tb` fixture, and its `Run`.

`Attempt` owns the attempt's fresh database (restored from the worker's image),
binds it for factories and tools, and runs the episode once through `run`.
`WorkerCache` holds what a worker builds once: database images per domain,
golden end states per (domain, start state, golden calls), and an event loop.
`AttemptResult` is what the attempt did, frozen: the plugin turns it into the
attempt's record, and nothing else writes one.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy.orm import Session

from .core.agent_session import AgentSession, OwnedAgent, owns_loop
from .core.backends.base import bind_session
from .core.backends.sqlite import SQLiteBackend
from .core.domain import Domain
from .core.episode import Agent, Episode, Limits, SimulatedUser, run_episode
from .core.errors import HarnessError, TaskDefinitionError
from .core.expectations import expect_no_differences
from .core.factories import reset_factories
from .core.state import Change, Difference, Snapshot, compare, diff, snapshot, state_hash, volatile_fields
from .core.task import Call, User
from .core.tools import ToolSession
from .roles.agents import AgentContext
from .roles.config import Config
from .roles.endpoint import Endpoint
from .roles.judge import Verdict


def agent_label(agent: object) -> str:
    """What records call an agent the harness did not build: its `name` (and `version`), else ``custom``."""
    name, version = getattr(agent, "name", None), getattr(agent, "version", None)
    if not isinstance(name, str) or not name.strip():
        return "custom"
    return f"{name}@{version}" if version else name


@dataclass
class WorkerCache:
    """Per-worker work done once: database images, golden end states, the event loop, model clients."""

    databases: Any = field(default_factory=SQLiteBackend)  # SQLiteBackend or PostgresBackend
    runner: asyncio.Runner = field(default_factory=asyncio.Runner)  # one event loop per worker
    images: dict[str, Any] = field(default_factory=dict)  # the backend's image of each domain
    golden: dict[tuple[str, str, str], Snapshot] = field(default_factory=dict)  # (domain, start hash, calls)
    models: Config = field(default_factory=Config)
    endpoints: dict[str, Endpoint] = field(default_factory=dict)  # per role; clients keep their connections

    def endpoint(self, role: str) -> Endpoint:
        """The endpoint serving `role` (agent, user or judge), built once per worker."""
        if role not in self.endpoints:
            self.endpoints[role] = Endpoint(self.models.roles[role], stage=role)
        return self.endpoints[role]

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
        for endpoint in self.endpoints.values():
            self.runner.run(endpoint.aclose())
        self.runner.close()
        self.databases.close()


@dataclass(frozen=True)
class RubricVerdict:
    """One rubric question, the judge's answer and whether it is the answer a good agent earns."""

    question: str
    answer: str
    reason: str
    passed: bool


@dataclass(frozen=True)
class AttemptResult:
    """What one attempt did, as far as it got: an attempt that fails early leaves the rest empty.

    The transcript and token usage survive a system error in the episode; the
    hashes, counts and differences exist once the episode has ended.
    """

    transcript: tuple[dict[str, Any], ...] | None = None  # once the episode has started
    usage: tuple[tuple[str, dict[str, int]], ...] = ()  # (role, token counts) of each role that reached a model
    timing: tuple[tuple[str, float], ...] = ()  # (stage, seconds): setup, arrange, run
    start_hash: str | None = None
    end_hash: str | None = None
    golden_hash: str | None = None
    end_reason: str | None = None
    steps: int | None = None
    turns: int | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    fault: str | None = None  # the fault the flaky agent injected, if any
    differences: tuple[Difference, ...] = ()
    rubric: tuple[RubricVerdict, ...] = ()
    agent: str | None = None  # the agent's name, once it is known
    ended: bool = False  # the episode ran to its end (the hashes and differences are known)


class Run:
    """What one episode did: its transcript, its effects and how it compares with golden.

    Attributes:
        db: the attempt's SQLAlchemy session, for plain asserts on rows.
        episode: the transcript (`episode.messages`) and counters.
        differences: how the end state departs from the golden end state.
        golden: the golden calls.
        traps: the careless writes the task declares it catches.
        user: the simulated user's brief.
    """

    def __init__(
        self,
        db: Session,
        episode: Episode,
        differences: list[Difference],
        golden: tuple[Call, ...],
        traps: tuple[Call, ...],
        user: User,
        before: Snapshot,
        after: Snapshot,
        golden_end: Snapshot,
        ask: Callable[[str, tuple[str, ...], str], Verdict],
    ) -> None:
        self.db, self.episode, self.differences, self.golden, self.traps = db, episode, differences, golden, traps
        self.user = user
        self._before, self._after, self._golden_end = before, after, golden_end
        self._ask = ask
        self.golden_deferred = False  # --tb-validate grades the task's own checks apart from expect_golden
        self.golden_checked = False

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
        self.golden_checked = True
        if not self.golden_deferred:
            expect_no_differences(self.differences)

    def rubric(self, question: str, *, phrases: Sequence[str] = (), expect: str = "yes") -> Verdict:
        """Ask the judge a yes/no question about the conversation; fail unless it answers `expect`.

        Args:
            question: about what the agent said or did, e.g. "Did the agent give the refund's amount?".
            phrases: what the offline judge looks for in the agent's messages; any one of them means yes.
            expect: the answer a good agent earns, "yes" or "no".
        """
        __tracebackhide__ = True
        if expect not in ("yes", "no"):
            raise TaskDefinitionError(f"rubric {question!r}: expect must be 'yes' or 'no', got {expect!r}")
        verdict = self._ask(question, tuple(phrases), expect)
        if verdict.answer != expect:
            raise AssertionError(
                f"rubric failed: {question!r}: the judge answered {verdict.answer} ({verdict.reason}); "
                f"expected {expect}"
            )
        return verdict


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
        make_judge: Callable[[], Any],
        limits: Limits,
        agent_name: str | None = None,
        defer_golden: bool = False,
    ) -> None:
        self.task, self.attempt, self.seed, self.domain = task, attempt, seed, domain
        self._defer_golden = defer_golden
        self._cache, self._make_agent, self._make_user, self._limits = cache, make_agent, make_user, limits
        self._make_judge = make_judge
        self._judge: Any = None  # built on the first rubric question
        self._run: Run | None = None
        self._result = AttemptResult(agent=agent_name)
        self._started = time.perf_counter()
        self.db = cache.databases.restore(cache.image(domain))
        cache.databases.defer_foreign_keys(self.db)  # the arrange step may write children before parents
        self._bound = bind_session(self.db)
        self._bound.__enter__()
        reset_factories(seed)
        self._set_up = time.perf_counter()

    @property
    def result(self) -> AttemptResult:
        """What this attempt has done so far (complete once the episode has ended and the task returned)."""
        return self._result

    @property
    def last_run(self) -> Run | None:
        """The `Run` of this attempt's episode, once `run` has been called."""
        return self._run

    def sibling(self, make_agent: Callable[[AgentContext], Agent]) -> Attempt:
        """A fresh attempt of the same task, seed and user with another agent (for --tb-validate).

        Its `run.expect_golden()` only notes that it was called, so that the
        task's own checks and the end-state comparison are graded apart.
        """
        return Attempt(
            task=self.task,
            attempt=self.attempt,
            seed=self.seed,
            domain=self.domain,
            cache=self._cache,
            make_agent=make_agent,
            make_user=self._make_user,
            make_judge=self._make_judge,
            limits=self._limits,
            defer_golden=True,
        )

    def close(self) -> None:
        self._bound.__exit__(None, None, None)
        self._cache.databases.release(self.db)

    def run(self, user: User, golden: Sequence[Call], reply: str | None = None, traps: Sequence[Call] = ()) -> Run:
        """Run the episode: the agent serves `user` with the domain's tools.

        Args:
            user: the simulated user's brief.
            golden: the reference calls; replayed on a copy of the start state
                to get the golden end state the agent is compared with.
            reply: the reference agent's closing message, for tasks whose rubric
                questions judge what the agent tells the customer.
            traps: careless writes the task exists to catch (the refund the
                policy forbids, the ticket marked solved instead of held);
                ``--tb-validate`` makes each after the golden calls and
                requires the task to fail.
        """
        if self._run is not None:
            raise TaskDefinitionError(
                f"{self.task} calls tb.run twice; one attempt is one episode, so split it into two tasks"
            )
        self._check_user(user)
        golden = self._checked_calls("golden", golden)
        traps = self._checked_calls("trap", traps)
        for i, c in enumerate(traps, 1):
            if c.tool not in self.domain.tools.writes():
                raise TaskDefinitionError(f"{self.task}: trap {i}, {c}, is not a write; a trap is a careless write")
        arranged = time.perf_counter()
        self.db.commit()
        metadata = self.domain.metadata
        before = snapshot(self.db, metadata)
        start = state_hash(before)
        golden_end = self._golden_end(start, golden)
        agent = self._make_agent(AgentContext(self.task, self.attempt, self.seed, golden, reply, traps))
        if self._result.agent is None:
            self._result = replace(self._result, agent=agent_label(agent))
        simulated = self._make_user(user)
        episode = Episode([], end_reason="")
        try:
            self._cache.runner.run(self._episode(agent, simulated, episode))
        finally:  # a system error keeps what was said and spent before it
            self._result = replace(self._result, transcript=tuple(episode.messages))
            self._add_usage(agent=agent, user=simulated)
        after = snapshot(self.db, metadata)
        differences = [] if after == golden_end else compare(before, golden_end, after, volatile_fields(metadata))
        self._run = Run(self.db, episode, differences, golden, traps, user, before, after, golden_end, self._ask)
        self._run.golden_deferred = self._defer_golden
        self._result = replace(
            self._result,
            timing=(
                ("setup_s", self._set_up - self._started),
                ("arrange_s", arranged - self._set_up),
                ("run_s", time.perf_counter() - arranged),
            ),
            start_hash=start,
            end_hash=state_hash(after),
            golden_hash=state_hash(golden_end),
            end_reason=episode.end_reason,
            steps=episode.steps,
            turns=episode.turns,
            tool_calls=episode.tool_calls,
            tool_errors=episode.tool_errors,
            fault=getattr(agent, "fault", None),
            differences=tuple(differences),
            ended=True,
        )
        return self._run

    def _check_user(self, user: User) -> None:
        """A brief the simulated user can play: an opening message, and facts as names and values."""
        if not isinstance(user, User):
            raise TaskDefinitionError(f"{self.task}: tb.run takes User(says=..., knows={{...}}), got {user!r}")
        if not isinstance(user.says, str) or not user.says.strip():
            raise TaskDefinitionError(f"{self.task}: User(says=...) needs the opening message, got {user.says!r}")
        knows = user.knows
        if not isinstance(knows, dict) or not all(isinstance(k, str) and k.strip() for k in knows):
            raise TaskDefinitionError(
                f"{self.task}: User(knows=...) takes a dict of fact names to values, e.g. "
                f'{{"order id": "O-1001"}}; got {knows!r}'
            )
        if isinstance(user.rules, str) or not all(isinstance(r, str) for r in user.rules):
            raise TaskDefinitionError(f"{self.task}: User(rules=...) takes a tuple of sentences, got {user.rules!r}")

    def _checked_calls(self, what: str, calls: Sequence[Call]) -> tuple[Call, ...]:
        """`calls` as a tuple, each a `Call` of a tool of this domain with only arguments the tool declares."""
        if isinstance(calls, Call) or not isinstance(calls, Sequence):
            raise TaskDefinitionError(f"{self.task}: {what}= takes a list of call(...), got {calls!r}")
        tools = self.domain.tools
        for i, c in enumerate(calls, 1):
            if not isinstance(c, Call):
                raise TaskDefinitionError(f"{self.task}: {what} entry {i} is {c!r}; build it with call('tool', ...)")
            if c.tool not in tools:
                raise TaskDefinitionError(f"{self.task}: {what} call {i}, {c}: UNKNOWN_TOOL: no tool {c.tool!r}")
            unknown = tools.unknown_arguments(c.tool, c.arguments)
            if unknown is not None:
                raise TaskDefinitionError(f"{self.task}: {what} call {i}, {c}: INVALID_ARGUMENT: {unknown}")
        return tuple(calls)

    def _add_usage(self, **parts: Any) -> None:
        """Note the token usage of each part that reached a model (by role)."""
        usage = dict(self._result.usage)
        for role, part in parts.items():
            if getattr(part, "usage", None) is not None:
                usage[role] = part.usage.as_dict()
        self._result = replace(self._result, usage=tuple(usage.items()))

    def _ask(self, question: str, phrases: tuple[str, ...], expect: str) -> Verdict:
        if self._judge is None:
            self._judge = self._make_judge()
        assert self._run is not None
        try:
            verdict: Verdict = self._cache.runner.run(self._judge.ask(question, self._run.messages, phrases))
        finally:
            self._add_usage(judge=self._judge)
        entry = RubricVerdict(question, verdict.answer, verdict.reason, verdict.answer == expect)
        self._result = replace(self._result, rubric=(*self._result.rubric, entry))
        return verdict

    async def _episode(self, agent: Agent | OwnedAgent, user: SimulatedUser, episode: Episode) -> Episode:
        async with ToolSession(self.domain.tools, self.db) as tools:
            if owns_loop(agent):
                session = AgentSession(tools, user, self.domain.policy_text, self._limits, episode)
                return await session.run(agent)  # type: ignore[arg-type]
            return await run_episode(agent, user, tools, self.domain.policy_text, self._limits, episode)  # type: ignore[arg-type]

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
