"""One attempt of one task: the object behind the `tb` fixture, and its `Run`.

`Attempt` owns the attempt's fresh database (restored from the worker's image),
binds it for factories and tools, and runs the episode once through `run`.
`WorkerCache` holds what a worker builds once: database images per domain,
golden end states per (domain, start state, golden calls), and an event loop;
with ``--tb-concurrency``, the episodes started early and the start state each
task arranged (`PreparedStart`).
`AttemptResult` is what the attempt did, frozen: the plugin turns it into the
attempt's record, and nothing else writes one.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from sqlalchemy.orm import Session

from .core.agent_session import AgentSession, OwnedAgent, owns_loop
from .core.arranged import commit_noting_filled, pending_writes, persist_unflushed
from .core.backends.base import bind_session
from .core.backends.sqlite import SQLiteBackend
from .core.domain import Domain
from .core.endings import DomainEndings
from .core.episode import Agent, Episode, Limits, SimulatedUser, run_episode
from .core.errors import HarnessError, TaskDefinitionError
from .core.expectations import expect_no_differences
from .core.factories import reset_factories
from .core.rules import Evidence, Violation, rules_broken
from .core.state import (
    Change,
    Delta,
    Difference,
    Snapshot,
    changed,
    compare,
    delta_hash,
    diff,
    followed_by,
    graded_states,
    snapshot,
    state_hash,
    undo,
    volatile_fields,
)
from .core.task import Call, User
from .core.tools import ToolSession, tool_seconds
from .roles.agents import AgentContext
from .roles.config import Config
from .roles.endpoint import Endpoint
from .roles.judge import Verdict, takes_reference
from .roles.rate_limit import RateLimit


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
    golden: dict[tuple[str, str, str], GoldenEnd] = field(default_factory=dict)  # (domain, start hash, calls)
    image_hashes: dict[str, str] = field(default_factory=dict)  # the hash of each domain's image
    models: Config = field(default_factory=Config)
    endpoints: dict[str, Endpoint] = field(default_factory=dict)  # per role; clients keep their connections
    early: dict[str, EarlyEpisode] = field(default_factory=dict)  # episodes started before their test (by key)
    # Per task: the start state one of its attempts arranged, for the next attempts' early starts; None once an
    # attempt of the task arranged or asked for something else.
    prepared: dict[str, PreparedStart | None] = field(default_factory=dict)
    arranged: dict[str, ArrangedStart] = field(default_factory=dict)  # per task: the rows its last flush wrote
    starts: dict[str, tuple[int, str]] = field(default_factory=dict)  # per task: its first attempt and start hash
    endings: dict[str, DomainEndings] = field(default_factory=dict)  # per domain, from the session's catalog
    rate_share: float = 1.0  # this worker's share of each endpoint's rate limits (1 / workers)
    limits: dict[tuple[str | None, str], RateLimit] = field(default_factory=dict)  # per (endpoint, model)

    KEPT_STARTS: ClassVar[int] = 8  # a module's tasks start early one after another: the last few are enough
    KEPT_ARRANGED: ClassVar[int] = 256  # a few kilobytes each

    def endpoint(self, role: str) -> Endpoint:
        """The endpoint serving `role` (agent, user or judge), built once per worker."""
        if role not in self.endpoints:
            config = self.models.roles[role]
            limit = None
            if config.requests_per_minute or config.tokens_per_minute:
                where = (config.base_url, config.model)  # roles on one model at one endpoint share its limits
                if where not in self.limits:
                    self.limits[where] = RateLimit(
                        config.requests_per_minute, config.tokens_per_minute, self.rate_share
                    )
                limit = self.limits[where]
            self.endpoints[role] = Endpoint(config, stage=role, limit=limit)
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

    def discard_early(self, keys: Iterable[str]) -> None:
        """Stop episodes started early whose tests will not run here after all, and free their databases."""
        dropped = [self.early.pop(key) for key in list(keys) if key in self.early]
        for early in dropped:
            early.task.cancel()
        if dropped:
            self.runner.run(asyncio.wait({early.task for early in dropped}))
        for early in dropped:
            if early.held is not None:
                self.databases.drop(early.held)

    def keep_prepared(self, key: str, make: Callable[[], PreparedStart]) -> None:
        """Keep a task's prepared start, made once; the images of the last `KEPT_STARTS` tasks are kept."""
        if key in self.prepared:
            return
        self.prepared[key] = make()
        kept = [k for k, start in self.prepared.items() if start is not None]
        for old in kept[: -self.KEPT_STARTS]:
            del self.prepared[old]  # a task long past; should it come back, one attempt prepares it again

    def keep_arranged(self, key: str, arranged: ArrangedStart) -> None:
        """Keep the rows a task's arrange step wrote, for its next attempts; the last `KEPT_ARRANGED` tasks'."""
        self.arranged.pop(key, None)
        self.arranged[key] = arranged
        if len(self.arranged) > self.KEPT_ARRANGED:
            del self.arranged[next(iter(self.arranged))]

    def image_hash(self, domain: Domain, session: Session, written: Delta) -> str:
        """The hash of the domain's image, computed once from a database that holds it plus `written`."""
        if domain.name not in self.image_hashes:
            self.image_hashes[domain.name] = state_hash(undo(snapshot(session, domain.metadata), written))
        return self.image_hashes[domain.name]

    def close(self) -> None:
        self.discard_early(self.early)
        for endpoint in self.endpoints.values():
            self.runner.run(endpoint.aclose())
        self.runner.close()
        self.databases.close()


@dataclass(frozen=True)
class TaskBrief:
    """What a task declares, read without running it: its user, golden calls, traps, reply and arranged rows."""

    task: str
    domain: str
    user: User
    golden: tuple[Call, ...]
    traps: tuple[Call, ...]
    reply: str | None
    arranged: dict[str, dict[str, dict[str, Any]]]  # per table and key, each row the arrange step wrote

    def as_dict(self) -> dict[str, Any]:
        """As a JSON line of a capture file (`--tb-capture`)."""

        def calls(found: tuple[Call, ...]) -> list[dict[str, Any]]:
            return [{"tool": c.tool, "arguments": c.arguments, "derived": c.derived} for c in found]

        user = {"says": self.user.says, "knows": self.user.knows, "rules": list(self.user.rules)}
        return {
            "task": self.task,
            "domain": self.domain,
            "user": user,
            "golden": calls(self.golden),
            "traps": calls(self.traps),
            "reply": self.reply,
            "arranged": self.arranged,
        }


class Captured(BaseException):
    """Ends a task's body at `tb.run` in a capture session: the task's brief is read, nothing is run.

    A BaseException, so that a task's own ``except Exception`` cannot swallow it.
    """

    def __init__(self, brief: TaskBrief) -> None:
        super().__init__(brief.task)
        self.brief = brief


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


@dataclass(frozen=True)
class ArrangedStart:
    """What one attempt's arrange step wrote, for the next attempts of its task that arrange the same.

    An attempt whose session holds the same pending writes (`pending_writes`)
    on a database restored from the same image gets `rows` written again by
    the backend instead of a flush, and the start state's delta and hash as
    they were (`Attempt.run`).
    """

    writes: tuple[Any, ...]  # pending_writes before the flush
    filled: tuple[dict[str, Any], ...]  # what the flush set in each new object (commit_noting_filled)
    rows: Any  # the backend's rows_to_replay after it
    delta: Delta  # the rows written, as grading reads them
    start_hash: str


@dataclass(frozen=True)
class GoldenEnd:
    """The golden end state as what the golden calls change in the start state, and its hash."""

    changes: Delta  # only rows whose value the golden calls change: (start value, golden value)
    hash: str


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
    timing: tuple[tuple[str, float], ...] = ()  # (stage, seconds): setup, arrange, run, tools (part of run), grade
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
    violations: tuple[Violation, ...] = ()  # the domain's rules the end state breaks (`core/rules.py`)
    agent: str | None = None  # the agent's name, once it is known
    ended: bool = False  # the episode ran to its end (the hashes and differences are known)

    @property
    def rules_broken(self) -> list[str]:
        """The ids of the domain's rules the end state breaks, each once."""
        return rules_broken(self.violations)


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
        start_state: Callable[[], Snapshot] | None = None,
        evidence: Evidence | None = None,
        violations: Sequence[Violation] = (),
        golden_delta: Delta | None = None,
        rules: Any = None,
    ) -> None:
        self.db, self.episode, self.differences, self.golden, self.traps = db, episode, differences, golden, traps
        self.user = user
        self.violations = list(violations)
        self._evidence, self._golden_delta, self._rules = evidence, golden_delta, rules
        self._before, self._after, self._golden_end = before, after, golden_end
        self._ask = ask
        self._start_state = start_state
        self.golden_deferred = False  # --tb-validate grades the task's own checks apart from expect_golden
        self.golden_checked = False

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.episode.messages

    @functools.cached_property
    def effects(self) -> list[Change]:
        """Every change the episode made to the database (added, removed, updated per field)."""
        return diff(self._before, self._after)

    def start_state(self) -> Snapshot:
        """Every row of the start state (read back from the database: it costs what the database holds).

        The `_before`, `_after` and `_golden_end` states hold only the rows
        the episode or the golden calls wrote.
        """
        if self._start_state is None:
            return self._before
        return self._start_state()

    def golden_violations(self) -> list[Violation]:
        """The domain's rules that the golden end state breaks (the golden path checked by the second oracle)."""
        if self._rules is None or self._evidence is None or self._golden_delta is None:
            return []
        checked: list[Violation] = self._rules.check(self._evidence.golden(self._golden_delta))
        return checked

    def expect_golden(self) -> None:
        """Assert the end state equals the golden end state: nothing wrong, missing or extra."""
        __tracebackhide__ = True
        self.golden_checked = True
        if not self.golden_deferred:
            expect_no_differences(self.differences, violations=self.violations)

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
        early_key: str | None = None,
        start_early: bool = False,
        capture: bool = False,
        prepared_key: str | None = None,
        arranged_key: str | None = None,
    ) -> None:
        self.task, self.attempt, self.seed, self.domain = task, attempt, seed, domain
        # With a key, an episode started early under it is adopted; with start_early, `run` starts it and stops.
        self._early_key, self._start_early = early_key, start_early
        # The task's key for its prepared start; none on a backend whose load grows with the rows (PostgreSQL).
        self._prepared_key = None if cache.databases.undoes_writes else prepared_key
        # The task's key for the rows its arrange step writes; none on a backend that cannot write them again.
        self._arranged_key = arranged_key if cache.databases.replays_rows else None
        self._handed_off = False  # the database went to an episode running on after this attempt's test
        self._capture = capture  # `run` reads what the task declares, then stops the body (`Captured`)
        self._defer_golden = defer_golden
        self._cache, self._make_agent, self._make_user, self._limits = cache, make_agent, make_user, limits
        self._make_judge = make_judge
        self._judge: Any = None  # built on the first rubric question
        self._reply: str | None = None  # the task's reference reply, evidence for the judge
        self._run: Run | None = None
        self._result = AttemptResult(agent=agent_name)
        self._started = time.perf_counter()
        # Started early on a task's prepared start: the database holds it, and the body (with its factories) won't run.
        self._prepared = cache.prepared.get(self._prepared_key) if start_early and self._prepared_key else None
        self.db = cache.databases.restore(self._prepared.image if self._prepared else cache.image(domain))
        self._bound = bind_session(self.db)
        self._bound.__enter__()
        if self._prepared is None:
            reset_factories(seed)
        self._set_up = time.perf_counter()

    @property
    def result(self) -> AttemptResult:
        """What this attempt has done so far (complete once the episode has ended and the task returned)."""
        return self._result

    @property
    def domain_endings(self) -> DomainEndings | None:
        """The endings of this attempt's domain, from the session's catalog (None without one)."""
        return self._cache.endings.get(self.domain.name)

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
            arranged_key=self._arranged_key,
        )

    def close(self) -> None:
        self._bound.__exit__(None, None, None)
        if not self._handed_off:
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
        self._reply = reply
        for i, c in enumerate(traps, 1):
            if c.tool not in self.domain.tools.writes():
                raise TaskDefinitionError(f"{self.task}: trap {i}, {c}, is not a write; a trap is a careless write")
        metadata, databases = self.domain.metadata, self._cache.databases
        arranged, arrange, image, start = self._write_arranged()
        self._check_same_start(start)
        if self._capture:
            rows = {table: {key: now for key, (_, now) in written.items() if now} for table, written in arrange.items()}
            raise Captured(TaskBrief(self.task, self.domain.name, user, golden, traps, reply, rows))
        golden_end = self._golden_end(start, golden, image, arrange)
        brief = repr((user, golden, reply, traps))
        if self._prepared_key is not None:
            self._cache.keep_prepared(
                self._prepared_key,
                lambda: PreparedStart(databases.dump(self.db), start, brief, user, golden, reply, traps),
            )
        prepared = time.perf_counter()
        early = self._early(start, brief)
        if early is not None:
            agent, simulated, episode = early.agent, early.user, early.episode
        else:
            agent = self._make_agent(self._context(golden, reply, traps))
            simulated = self._make_user(self._with_aliases(user))
            episode = Episode([], end_reason="")
        if self._result.agent is None:
            self._result = replace(self._result, agent=agent_label(agent))
        if self._start_early:
            self._start(agent, simulated, episode, start, brief)
            raise StartedEarly
        tools_before = tool_seconds(self.db)
        try:
            if early is not None:
                # The episode's time in the tools was spent on the database taken over.
                tools_before -= self._cache.runner.run(self._adopt(early))
            else:
                self._cache.runner.run(self._episode(agent, simulated, episode))
        finally:  # a system error keeps what was said and spent before it
            self._result = replace(self._result, transcript=tuple(episode.messages))
            self._add_usage(agent=agent, user=simulated)
        ended = time.perf_counter()
        in_tools = tool_seconds(self.db) - tools_before
        written = databases.changes(self.db)  # what the episode wrote (the start stays the baseline)
        before, golden_state, after = graded_states(written, golden_end.changes)
        differences = [] if after == golden_state else compare(before, golden_state, after, volatile_fields(metadata))
        end = delta_hash(image, followed_by(arrange, written))

        def start_state() -> Snapshot:
            return undo(snapshot(self.db, metadata), databases.changes(self.db))

        graded = time.perf_counter()
        rules = self.domain.rules
        evidence = Evidence.of_session(self.db, metadata, written, episode.messages, self.domain.now)
        violations = rules.check(evidence) if rules is not None else []
        self._run = Run(
            self.db,
            episode,
            differences,
            golden,
            traps,
            user,
            before,
            after,
            golden_state,
            self._ask,
            start_state,
            evidence=evidence,
            violations=violations,
            golden_delta=golden_end.changes,
            rules=rules,
        )
        self._run.golden_deferred = self._defer_golden
        checked = time.perf_counter()
        self._result = replace(
            self._result,
            timing=(
                ("setup_s", self._set_up - self._started),
                ("arrange_s", arranged - self._set_up),
                ("run_s", ended - prepared),
                ("tools_s", in_tools),  # inside the domain's tool functions (of run_s, unless started early)
                ("grade_s", (prepared - arranged) + (graded - ended)),
                ("rules_s", checked - graded),  # the domain's rules checked on the end state
            ),
            start_hash=start,
            end_hash=end,
            golden_hash=golden_end.hash,
            end_reason=episode.end_reason,
            steps=episode.steps,
            turns=episode.turns,
            tool_calls=episode.tool_calls,
            tool_errors=episode.tool_errors,
            fault=getattr(agent, "fault", None),
            differences=tuple(differences),
            violations=tuple(violations),
            ended=True,
        )
        return self._run

    def _context(self, golden: tuple[Call, ...], reply: str | None, traps: tuple[Call, ...]) -> AgentContext:
        """What an offline agent of this attempt is built with (the domain's endings, for the guessing ones)."""
        return AgentContext(self.task, self.attempt, self.seed, golden, reply, traps, self.domain_endings)

    def _with_aliases(self, user: User) -> User:
        """The brief the simulated user plays: the task's, with the domain's names for facts added."""
        if not self.domain.aliases:
            return user
        return replace(user, aliases={**self.domain.aliases, **user.aliases})

    def _check_same_start(self, start: str) -> None:
        """Every attempt of a task starts from one state; an arrange step that varies makes them other tasks.

        An early pass (``--tb-concurrency``) is not its attempt's turn: the test checks its own start when it runs.
        """
        if self._start_early:
            return
        attempt, first = self._cache.starts.setdefault(self.task, (self.attempt, start))
        if first != start:
            raise TaskDefinitionError(
                f"{self.task}: attempt {self.attempt} starts from another state than attempt {attempt} did (start "
                f"hash {start}, not {first}): the task's arrange step is not deterministic; use the domain's clock, "
                "fixed values and the factories' seeded sequences instead of datetime.now(), random or uuid"
            )

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
        # A judge that takes the task's reference reply gets it (a judge of your own may not).
        evidence = {"reference": self._reply} if takes_reference(self._judge) else {}
        try:
            verdict: Verdict = self._cache.runner.run(
                self._judge.ask(question, self._run.messages, phrases, **evidence)
            )
        finally:
            self._add_usage(judge=self._judge)
        entry = RubricVerdict(question, verdict.answer, verdict.reason, verdict.answer == expect)
        self._result = replace(self._result, rubric=(*self._result.rubric, entry))
        return verdict

    async def _episode(self, agent: Agent | OwnedAgent, user: SimulatedUser, episode: Episode) -> None:
        """Run the episode into `episode`. It returns nothing: asyncio.Runner.run reprs the finished task, result
        included, when it puts back its SIGINT handler, and a retail transcript's repr doubled that call's cost."""
        async with ToolSession(self.domain.tools, self.db) as tools:
            if owns_loop(agent):
                session = AgentSession(tools, user, self.domain.policy_text, self._limits, episode)
                await session.run(agent)  # type: ignore[arg-type]
            else:
                await run_episode(agent, user, tools, self.domain.policy_text, self._limits, episode)  # type: ignore[arg-type]

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

    def _write_arranged(self) -> tuple[float, Delta, str, str]:
        """Write the arranged rows and make the start state the baseline.

        Returns when the rows were written, what they are (the arrange step's
        delta), the image's hash and the start state's. The session's pending
        objects are flushed, or, if they are what the task's last flush in this
        worker started from, the backend writes that flush's rows again
        (`core/arranged.py`).
        """
        databases, key = self._cache.databases, self._arranged_key
        writes = pending_writes(self.db) if key is not None else None
        kept = self._cache.arranged.get(key) if key is not None and writes is not None else None
        if kept is not None and kept.writes == writes and not databases.written_since_restore(self.db):
            rows = kept.rows
            persist_unflushed(self.db, kept.filled, lambda: databases.replay(self.db, rows))
            return time.perf_counter(), kept.delta, self._cache.image_hashes[self.domain.name], kept.start_hash
        filled = None
        if writes is None:
            self.db.commit()  # the ORM flush of the arranged rows belongs to the arrange step
        else:
            filled = commit_noting_filled(self.db)
        arranged = time.perf_counter()
        replayable = databases.rows_to_replay(self.db) if writes is not None else None
        # Grading reads only rows written: by the arrange step (from the image), the episode, the golden calls.
        arrange = databases.take_changes(self.db)  # the start state is now the baseline
        image = self._cache.image_hash(self.domain, self.db, arrange)
        start = delta_hash(image, arrange)
        if key is not None and writes is not None and filled is not None and replayable is not None:
            self._cache.keep_arranged(key, ArrangedStart(writes, filled, replayable, arrange, start))
        return arranged, arrange, image, start

    def _golden_end(self, start: str, golden: tuple[Call, ...], image: str, arrange: Delta) -> GoldenEnd:
        """What the golden calls change in the start state (hashed `start`), replayed once per worker."""
        key = (self.domain.name, start, repr(golden))  # same start + same calls = same end
        if key not in self._cache.golden:
            databases = self._cache.databases
            with databases.scratch(self.db) as scratch:  # the start state, its own baseline
                self._cache.runner.run(self._replay(scratch, golden))
                changes = changed(databases.changes(scratch))
            self._cache.golden[key] = GoldenEnd(changes, delta_hash(image, followed_by(arrange, changes)))
        return self._cache.golden[key]

    async def _replay(self, scratch: Session, golden: tuple[Call, ...]) -> None:
        for i, c in enumerate(golden, 1):
            result = await self.domain.tools.apply(scratch, c.tool, c.arguments)  # the harness's call: no session
            if not result.ok:
                raise TaskDefinitionError(
                    f"{self.task}: golden call {i}, {c}, fails on the task's start state with "
                    f"{result.error}: {result.text}"
                )
