"""Attempts: how many per task (--tb-repeat, ``tb_repeat(n)``), their seed and limits, and the fixtures.

The fixtures come in layers that are easy to override:

    tb_domain (session)          <- define it in the conftest.py beside your tasks
    tb_agent, tb_user, tb_judge  <- how each attempt's agent, user and judge are built (plugin/roles.py)
    tb_db_url (session)          <- where the databases live (plugin/database.py)
    _tb_attempt                  <- the attempt number, parametrized here (never a fixture body)
    tb                           <- one attempt: fresh backend, factories bound, `tb.run(...)`

Nothing heavy is imported until a fixture is set up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..attempt import Attempt

from .catalog import briefs
from .concurrency import START_PREPARED, STARTING_EARLY, WORKER, concurrency
from .options import group, positive_int
from .outcomes import ATTEMPT, CALL_PASSED, DOMAIN, item_key, key_of_nodeid
from .roles import MODELS

VALIDATE_REPEAT = 3  # golden attempts per task under --tb-validate, unless --tb-repeat says otherwise

#: The campaign's k (attempts per task), read once at configure.
REPEAT = pytest.StashKey[int]()


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"--tb-seed expects a whole number, got {text!r}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    options = group(parser)
    options.addoption(
        "--tb-repeat",
        dest="tb_repeat",
        metavar="N",
        type=positive_int("--tb-repeat"),
        help="Attempts per task, each from a clean backend. Default: ini tb_repeat, else 1.",
    )
    options.addoption(
        "--tb-seed",
        dest="tb_seed",
        metavar="N",
        type=_seed,
        default=0,
        help="Seed for factories and the flaky agent's faults. Default: 0.",
    )
    for name, default, what in (
        ("max-steps", 50, "Agent steps per attempt before the episode ends."),
        ("max-turns", 20, "Simulated-user turns per attempt before the episode ends."),
        ("time-limit", 300, "Wall-clock seconds per episode before it ends."),
    ):
        options.addoption(
            f"--tb-{name}",
            dest="tb_" + name.replace("-", "_"),
            metavar="SECONDS" if name == "time-limit" else "N",
            type=positive_int(f"--tb-{name}"),
            default=default,
            help=f"{what} Default: {default}.",
        )
    parser.addini("tb_repeat", "Default attempts per task (see --tb-repeat).", default="1")


#: What makes a scenario hard, declared by the task itself (``@pytest.mark.pushback``), since its calls do not show it.
TRAITS = {
    "two_requests": "the user brings two requests, and the policy decides each on its own",
    "distractors": "look-ups return several plausible records, and the agent must pick the right one",
    "pushback": "the user insists on what the policy does not allow, or pushes back on the answer",
}


@pytest.hookimpl(tryfirst=True)  # the results keeper writes k into its manifest at configure
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tb_repeat(n): run this task n attempts instead of --tb-repeat.")
    for trait, what in TRAITS.items():  # registered by the plugin, so a task module imports under --strict-markers
        config.addinivalue_line("markers", f"{trait}: {what}")
    config.stash[REPEAT] = _repeat(config)
    config.stash[START_PREPARED] = start_prepared_early


def _repeat(config: pytest.Config) -> int:
    """--tb-repeat, else the tb_repeat ini value (at least 3 under --tb-validate)."""
    value = config.getoption("tb_repeat")
    if value is not None:
        return int(value)
    ini = positive_int("tb_repeat (ini)")(config.getini("tb_repeat"))
    return max(ini, VALIDATE_REPEAT) if config.getoption("tb_validate") else ini


def _tb_repeat_signature(n: int) -> int:
    return n


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "_tb_attempt" not in metafunc.fixturenames:
        return
    n = metafunc.config.stash[REPEAT]
    marker = metafunc.definition.get_closest_marker("tb_repeat")
    if marker is not None:
        try:
            n = _tb_repeat_signature(*marker.args, **marker.kwargs)
        except TypeError as exc:
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid}: tb_repeat marker takes one number n ({exc})"
            ) from None
        if not isinstance(n, int) or n < 1:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.tb_repeat(n) needs n >= 1, got {n!r}")
    width = max(2, len(str(n)))
    metafunc.parametrize("_tb_attempt", range(1, n + 1), ids=[f"attempt{i:0{width}d}" for i in range(1, n + 1)])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """A task id names one task among those selected: results, resumes and reports key attempts by it."""
    if hasattr(session.config, "workerinput"):
        return  # under xdist the controller checks every worker's selection (a worker cannot refuse cleanly)
    _refuse_duplicates(item.nodeid for item in session.items if "_tb_attempt" in getattr(item, "fixturenames", ()))


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    _refuse_duplicates(nodeid for nodeid in ids if key_of_nodeid(nodeid) is not None)


def _refuse_duplicates(nodeids: Iterable[str]) -> None:
    first: dict[tuple[str, int] | None, str] = {}
    for nodeid in nodeids:
        key = key_of_nodeid(nodeid)
        other = first.setdefault(key, nodeid)
        if key is None or other == nodeid:
            continue
        here, there = (n.split("::", 1)[0] for n in (nodeid, other))
        where = f"in {there} and in {here}" if here != there else f"twice in {here} ({other} and {nodeid})"
        raise pytest.UsageError(
            f"task {key[0]} is defined {where}; results are kept by task id, so give each task its own name"
        )


def _task_key(item: pytest.Item) -> str:
    """What the attempts of one task share: its test and any parameters besides the attempt number."""
    callspec = getattr(item, "callspec", None)
    params = {k: v for k, v in callspec.params.items() if k != "_tb_attempt"} if callspec else {}
    return f"{item.parent.nodeid if item.parent else ''}::{item_key(item)[0]}{params!r}"


@pytest.fixture(scope="module")
def tb_domain(request: pytest.FixtureRequest) -> Any:
    """The domain a task runs against: the ``DOMAIN`` its package exports (`core/catalog.py`), unless a
    conftest.py beside the tasks overrides this fixture."""
    from ..core.catalog import package_domain

    domain = package_domain(request.module)
    if domain is None:
        raise pytest.UsageError(
            f"no domain for {request.module.__name__}: export DOMAIN (a pytest_thinkingbox.Domain) from its "
            "package, or define a `tb_domain` fixture in the conftest.py beside your tasks "
            "(see docs/getting-started.md)"
        )
    return domain


@pytest.fixture(scope="session")
def _tb_worker(pytestconfig: pytest.Config, tb_db_url: str | None) -> Iterator[Any]:
    from ..attempt import WorkerCache
    from ..core.backends import open_backend
    from ..core.errors import HarnessError

    try:
        databases = open_backend(tb_db_url)
    except Exception as exc:
        raise HarnessError("backend", f"opening the database backend failed: {type(exc).__name__}: {exc}") from exc
    workers = getattr(pytestconfig, "workerinput", {}).get("workercount", 1)  # they share each rate limit
    cache = WorkerCache(databases=databases, models=pytestconfig.stash[MODELS], rate_share=1 / workers)
    read = briefs(pytestconfig)
    if read is not None:
        from ..core.endings import domain_endings

        cache.endings = domain_endings(read)
    pytestconfig.stash[WORKER] = cache
    yield cache
    del pytestconfig.stash[WORKER]
    cache.close()


@pytest.fixture
def tb(
    request: pytest.FixtureRequest,
    _tb_attempt: int,
    tb_domain: Any,
    tb_agent: Callable[[Any], Any],
    tb_user: Callable[[Any], Any],
    tb_judge: Callable[[], Any],
    _tb_worker: Any,
) -> Iterator[Attempt]:
    """One attempt of a task: a fresh database and `tb.run(User(...), golden=[call(...)])`.

    Factories write into this attempt's database; `run.db` reads it back.
    """
    item = request.node
    item.stash[DOMAIN] = tb_domain.name
    attempt = _attempt(item, tb_domain, tb_agent, tb_user, tb_judge, _tb_worker)
    item.stash[ATTEMPT] = attempt
    if attempt.start_prepared():  # an early pass that could not skip the fixtures (`start_prepared_early`)
        attempt.close()
        pytest.skip("its episode started early")
    try:
        yield attempt
    finally:
        attempt.close()
    if attempt.last_run is None and item.stash.get(CALL_PASSED, False) and not item.config.getoption("tb_capture"):
        from ..core.errors import TaskDefinitionError

        raise TaskDefinitionError(
            f"{attempt.task} never calls tb.run, so no agent was tested; a task runs one episode: "
            "run = tb.run(User(...), golden=[call(...)])"
        )


def _attempt(item: pytest.Item, domain: Any, agent: Any, user: Any, judge: Any, worker: Any) -> Any:
    """The `Attempt` behind `tb` for `item`, from the values of the fixtures it is built from; in an early pass,
    on its task's prepared start if it has one."""
    from ..attempt import Harness, Roles
    from ..core.episode import Limits
    from ..roles.cache import attempt_scope, in_attempt

    config = item.config
    task, number = item_key(item)
    concurrent = concurrency(config) > 1
    scope = attempt_scope(task, number, config.getoption("tb_seed"))  # the model cache keys each attempt apart
    harness = Harness(
        worker,
        Roles(
            in_attempt(agent, scope),
            in_attempt(user, scope),
            in_attempt(judge, scope),
            agent_name=getattr(agent, "agent_name", None),  # None: a custom agent
        ),
        Limits(
            max_steps=config.getoption("tb_max_steps"),
            max_turns=config.getoption("tb_max_turns"),
            time_limit_s=config.getoption("tb_time_limit"),
        ),
        seed=config.getoption("tb_seed"),
        capture=bool(config.getoption("tb_capture")),
    )
    return harness.attempt(
        task,
        number,
        domain,
        key=_task_key(item),
        early_key=item.nodeid if concurrent else None,
        start_early=item.stash.get(STARTING_EARLY, False),
    )


#: The fixtures `tb` builds an attempt from, besides the attempt number.
_BUILT_FROM = ("tb_domain", "tb_agent", "tb_user", "tb_judge", "_tb_worker")


def start_prepared_early(item: pytest.Item) -> bool:
    """Start `item`'s episode from the start state an earlier attempt of its task arranged, outside pytest's protocol.

    Neither its fixtures nor its body run until its turn, so this is only for
    a test whose `tb` is this plugin's and whose attempt is built from fixtures
    pytest holds beyond one test (the plugin's own, or overrides of any scope
    but function, not parametrized): their values now are the values its turn
    gets. False, with nothing started, if that does not hold or its task has
    no prepared start (yet).
    """
    worker = item.config.stash.get(WORKER, None)
    if worker is None or worker.prepared.get(_task_key(item)) is None:
        return False
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    own = defs.get("tb")
    if not own or (own[-1].func.__module__, own[-1].func.__qualname__) != (__name__, "tb"):
        return False  # an override of tb builds its attempt its own way
    values = []
    for name in _BUILT_FROM:
        fixture = defs[name][-1] if defs.get(name) else None
        if fixture is None or fixture.scope == "function" or fixture.params is not None:
            return False
        held = fixture.cached_result  # (value, cache key, error), once set up
        if held is None or held[2] is not None:
            return False
        values.append(held[0])
    attempt = _attempt(item, *values)
    try:
        return bool(attempt.start_prepared())
    finally:
        attempt.close()
