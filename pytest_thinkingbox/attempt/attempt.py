"""One attempt of one task: the object behind the `tb` fixture.

`Attempt` owns the attempt's fresh database (restored from the worker's image),
binds it for factories and tools, and runs the episode once through `run`. It is
made only by `Harness.attempt` (`harness.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session

from ..core.agent_session import AgentSession, OwnedAgent, owns_loop
from ..core.arranged import commit_noting_filled, pending_writes, persist_unflushed
from ..core.backends.base import bind_session
from ..core.domain import Domain
from ..core.endings import DomainEndings
from ..core.episode import Agent, Episode, SimulatedUser, run_episode
from ..core.errors import TaskDefinitionError
from ..core.factories import reset_factories
from ..core.rules import Evidence
from ..core.state import (
    Delta,
    Snapshot,
    changed,
    compare,
    delta_hash,
    followed_by,
    graded_states,
    snapshot,
    undo,
    volatile_fields,
)
from ..core.task import Call, User
from ..core.tools import ToolSession, tool_seconds
from ..roles.agents import AgentContext
from ..roles.judge import Verdict, takes_reference
from .early import EarlyStarts, PreparedStart, StartedEarly
from .result import AttemptResult, Captured, RubricAnswer, Run, TaskBrief
from .worker import ArrangedStart, GoldenEnd


def agent_label(agent: object) -> str:
    """What records call an agent the harness did not build: its `name` (and `version`), else ``custom``."""
    name, version = getattr(agent, "name", None), getattr(agent, "version", None)
    if not isinstance(name, str) or not name.strip():
        return "custom"
    return f"{name}@{version}" if version else name


class Attempt(EarlyStarts):
    """The `tb` fixture's object: a fresh backend for one attempt of one task.

    Attributes:
        db: the attempt's SQLAlchemy session (factories write into it).
        domain: the task's `Domain`.
        task, attempt, seed: which attempt this is.
    """

    def __init__(
        self,
        harness: Any,  # its Harness (harness.py imports this module, so not named here)
        task: str,
        attempt: int,
        domain: Domain,
        *,
        key: str | None,
        early_key: str | None,
        start_early: bool,
        defer_golden: bool,
    ) -> None:
        """Made by `Harness.attempt`, the one place that knows what an attempt is built from."""
        cache, roles = harness.cache, harness.roles
        seed, capture, agent_name = harness.seed, harness.capture, roles.agent_name
        make_agent, make_user, make_judge, limits = roles.agent, roles.user, roles.judge, harness.limits
        # The task's key for its prepared start: only when its attempts start early (`early_key`).
        prepared_key = key if early_key is not None else None
        arranged_key = key
        self._harness = harness
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
        return self._harness.with_agent(make_agent).attempt(
            self.task, self.attempt, self.domain, key=self._arranged_key, defer_golden=True
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
        entry = RubricAnswer(question, verdict.answer, verdict.reason, verdict.answer == expect)
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
