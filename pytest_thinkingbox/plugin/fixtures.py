"""The fixtures a task uses, in layers that are easy to override.

    tb_domain (session)          <- define it in the conftest.py beside your tasks
    tb_agent, tb_user, tb_judge  <- how each attempt's agent, simulated user and judge are built
    _tb_attempt          <- the attempt number (parametrized by --tb-repeat)
    tb                   <- one attempt: fresh backend, factories bound, `tb.run(...)`

Nothing heavy is imported until a fixture is set up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ..roles.config import PREFIX
from .options import MODELS, agent_name, role_name, setting
from .outcomes import RECORD, new_record


@pytest.fixture(scope="session")
def tb_domain() -> Any:
    """The domain a task runs against. Override it in the conftest.py beside your tasks."""
    raise pytest.UsageError(
        "no domain for this task: define a session-scoped `tb_domain` fixture returning a "
        "pytest_thinkingbox.Domain in the conftest.py beside your tasks (see docs/getting-started.md)"
    )


@pytest.fixture(scope="session")
def tb_agent(pytestconfig: pytest.Config, _tb_worker: Any) -> Callable[[Any], Any]:
    """Builds the agent for each attempt (from --tb-agent or --tb-config). Override to test your own agent class."""
    name = agent_name(pytestconfig)
    if name.startswith(PREFIX):
        from ..roles.agents.openai import OpenAIAgent

        endpoint = _tb_worker.endpoint("agent")
        return lambda context: OpenAIAgent(endpoint)
    from ..roles.agents import make_agent

    return lambda context: make_agent(name, context)


@pytest.fixture(scope="session")
def tb_user(pytestconfig: pytest.Config, _tb_worker: Any) -> Callable[[Any], Any]:
    """Builds the simulated user for each attempt (from --tb-user or --tb-config) from the task's `User(...)`."""
    name = role_name(pytestconfig, "user")
    if name.startswith(PREFIX):
        from ..roles.users.llm import LLMUser

        endpoint = _tb_worker.endpoint("user")
        return lambda brief: LLMUser(brief, endpoint)
    from ..roles.users import make_user

    return lambda brief: make_user(name, brief)


@pytest.fixture(scope="session")
def tb_judge(pytestconfig: pytest.Config, _tb_worker: Any) -> Callable[[], Any]:
    """Builds the judge that answers `run.rubric(...)` questions (from --tb-judge or --tb-config)."""
    if role_name(pytestconfig, "judge").startswith(PREFIX):
        from ..roles.judge import LLMJudge

        endpoint = _tb_worker.endpoint("judge")
        return lambda: LLMJudge(endpoint)
    from ..roles.judge import PhraseJudge

    return PhraseJudge


@pytest.fixture(scope="session")
def tb_db_url(pytestconfig: pytest.Config) -> str | None:
    """The database server for attempts (from --tb-db); None means SQLite in memory."""
    return setting(pytestconfig, "tb_db") or None


@pytest.fixture(scope="session")
def _tb_worker(pytestconfig: pytest.Config, tb_db_url: str | None) -> Iterator[Any]:
    from ..attempt import WorkerCache
    from ..core.backends import open_backend
    from ..core.errors import HarnessError

    try:
        databases = open_backend(tb_db_url)
    except Exception as exc:
        raise HarnessError("backend", f"opening the database backend failed: {type(exc).__name__}: {exc}") from exc
    cache = WorkerCache(databases=databases, models=pytestconfig.stash[MODELS])
    yield cache
    cache.close()


@pytest.fixture
def _tb_attempt() -> int:
    return 1


@pytest.fixture
def tb(
    request: pytest.FixtureRequest,
    _tb_attempt: int,
    tb_domain: Any,
    tb_agent: Callable[[Any], Any],
    tb_user: Callable[[Any], Any],
    tb_judge: Callable[[], Any],
    _tb_worker: Any,
) -> Iterator[Any]:
    """One attempt of a task: a fresh database and `tb.run(User(...), golden=[call(...)])`.

    Factories write into this attempt's database; `run.db` reads it back.
    """
    from ..attempt import Attempt
    from ..core.episode import Limits

    config = request.config
    record = new_record(request.node, tb_domain.name)
    request.node.stash[RECORD] = record
    attempt = Attempt(
        task=record["task"],
        attempt=_tb_attempt,
        seed=record["seed"],
        domain=tb_domain,
        cache=_tb_worker,
        make_agent=tb_agent,
        make_user=tb_user,
        make_judge=tb_judge,
        limits=Limits(
            max_steps=config.getoption("tb_max_steps"),
            max_turns=config.getoption("tb_max_turns"),
            time_limit_s=config.getoption("tb_time_limit"),
        ),
        record=record,
    )
    try:
        yield attempt
    finally:
        attempt.close()
