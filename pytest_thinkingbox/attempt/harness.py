"""The one entry that makes attempts: the plugin's `tb`, validation's siblings, reward and serve-env all go
through `Harness`, so what an attempt is built from is said once."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.catalog import TaskEntry, domain_of
from ..core.domain import Domain
from ..core.episode import Agent, Limits, SimulatedUser
from ..core.errors import HarnessError, TaskDefinitionError
from ..core.task import User
from ..roles.agents import AgentContext
from .attempt import Attempt
from .result import Captured, TaskBrief
from .worker import WorkerCache


@dataclass(frozen=True)
class Roles:
    """How an attempt builds its agent, simulated user and judge."""

    agent: Callable[[AgentContext], Agent]
    user: Callable[[User], SimulatedUser]
    judge: Callable[[], Any]
    agent_name: str | None = None  # None: named once built (a custom agent's own name)


@dataclass(frozen=True)
class Harness:
    """What every attempt of a session shares: the worker's caches, the roles, the limits and the seed."""

    cache: WorkerCache
    roles: Roles
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    capture: bool = False  # `tb.run` reads what the task declares, then stops its body (`Captured`)

    def attempt(
        self,
        task: str,
        number: int,
        domain: Domain,
        *,
        key: str | None = None,
        early_key: str | None = None,
        start_early: bool = False,
        defer_golden: bool = False,
    ) -> Attempt:
        """A fresh attempt of `task` on `domain`.

        Args:
            key: the task's own key (its file and name): its attempts write the rows its arrange step wrote
                again instead of a flush, and, with `early_key`, start early from its prepared start.
            early_key: with ``--tb-concurrency``, the test's key: an episode started early under it is adopted.
            start_early: `tb.run` starts the episode on the worker's loop and stops the body (`StartedEarly`).
            defer_golden: `run.expect_golden()` only notes it was called (validation grades it apart).
        """
        return Attempt(
            self,
            task,
            number,
            domain,
            key=key,
            early_key=early_key,
            start_early=start_early,
            defer_golden=defer_golden,
        )

    def with_agent(self, make_agent: Callable[[AgentContext], Agent]) -> Harness:
        """The same harness with another agent (validation's controls and mutants)."""
        return replace(self, roles=replace(self.roles, agent=make_agent, agent_name=None))

    def run_task(self, entry: TaskEntry, number: int = 1) -> tuple[bool, str]:
        """Run a task function once outside pytest (reward, serve-env): whether its checks passed, and if not why.

        The task gets its attempt as ``tb``, the one fixture a task outside pytest can ask for; a harness
        failure raises `HarnessError`, never a failed check.
        """
        wanted = set(inspect.signature(entry.function).parameters) - {"tb"}
        if wanted:
            raise TaskDefinitionError(f"{entry.id} asks for fixtures {sorted(wanted)}; outside pytest it gets only tb")
        try:
            attempt = self.attempt(entry.id, number, domain_of(entry), key=f"{entry.path}::{entry.id}")
        except HarnessError:
            raise
        except Exception as exc:
            raise HarnessError("backend", f"a fresh backend failed: {type(exc).__name__}: {exc}") from exc
        try:
            entry.function(tb=attempt)
        except AssertionError as failure:
            return False, str(failure) or "a check failed"
        finally:
            attempt.close()
        return True, "every check passed"

    def brief(self, entry: TaskEntry) -> TaskBrief | None:
        """What a task declares (user, golden calls, traps, reply, arranged rows), read by running its arrange
        step only: no agent, no golden replay. None if its body ends before `tb.run`."""
        attempt = replace(self, capture=True).attempt(entry.id, 1, domain_of(entry))
        try:
            entry.function(tb=attempt)
        except Captured as captured:
            return captured.brief
        finally:
            attempt.close()
        return None
