"""What an attempt gives back: the task-facing `Run` of `tb.run`, the frozen `AttemptResult` the plugin
records, and the `TaskBrief` a capture session reads."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ..core.episode import Episode
from ..core.errors import TaskDefinitionError
from ..core.expectations import expect_no_differences
from ..core.rules import Evidence, Violation, rules_broken
from ..core.state import Change, Delta, Difference, Snapshot, diff
from ..core.task import Call, User
from ..roles.judge import Verdict


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


@dataclass(frozen=True)
class RubricAnswer:
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
    rubric: tuple[RubricAnswer, ...] = ()
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
