"""--tb-concurrency: up to N model-bound episodes in flight per process, each attempt still its own test.

pytest runs one test at a time, and its fixtures live one test at a time, so
the tests themselves stay sequential. What runs concurrently is the slow part,
the episodes. Before a test runs, the next tests this process will run (in the
same module, up to N - 1 of them) are started early: each one's fixtures and
body run up to ``tb.run``, which starts the episode on the worker's event loop
with that database, and stops the body there (`StartedEarly`); that early pass
reports nothing. Once one attempt of a task has got that far, the task's next
attempts start from the start state it arranged (its prepared start), without
their body, and without pytest's protocol when their attempt can be built from
fixture values pytest already holds (`START_PREPARED`, which plugin/attempts.py
sets). When a test's turn comes, it runs as usual: a fresh database, the task's
arrange step, and ``tb.run``, which finds its episode (started from the same
start state), waits for it and takes over the end state it left (the backend
keeps it when the episode ends). Every episode makes progress whenever any
test waits on the loop, so while one test waits for its model, the others'
requests are in flight too.

Which tests come next: the rest of the session's items, or, on an xdist
worker, the tests the controller has already handed this worker. xdist's
default ``load`` scheduling keeps only two tests queued per worker once tests
take long, so with this option its scheduler also keeps 2N + 1 queued per
worker (`LoadAhead`). Work stealing would not do: a stolen test may have started its
episode already, and would pay for it twice.

An early pass that starts no episode (a fixture that cannot be set up twice
failed, say, or the test skipped) is not tried again for that test: the test
runs in its turn, as without this option. A failure is logged in full and
shown as a warning once per distinct error in each process, since the test's
own outcome may not repeat it.

Garbage collection: an episode in flight lives for seconds of model latency,
long enough for CPython's default young-generation threshold (700
allocations) to promote its objects into the oldest generation, where only a
full collection frees them; with 64 episodes in flight that made a full
collection every 30 or so attempts, about a tenth of a process's CPU. With
this option the young generation holds `YOUNG_OBJECTS`, so an episode's
objects mostly die young; the process's own threshold comes back at the end.
"""

from __future__ import annotations

import gc
import logging
import traceback
import warnings
from collections.abc import Callable, Generator
from typing import Any

import pytest

from .options import group, positive_int, setting

#: On an item whose protocol runs only to start its episode early.
STARTING_EARLY = pytest.StashKey[bool]()
#: The worker cache of this process, set by the ``_tb_worker`` fixture.
WORKER = pytest.StashKey[Any]()
#: Starts a test's episode from its task's prepared start outside its protocol, if it can (plugin/attempts.py).
START_PREPARED = pytest.StashKey[Callable[[pytest.Item], bool]]()

#: Allocations between young collections while episodes run concurrently (CPython's default is 700).
YOUNG_OBJECTS = 20_000

logger = logging.getLogger("pytest_thinkingbox.concurrency")


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-concurrency",
        dest="tb_concurrency",
        metavar="N",
        type=positive_int("--tb-concurrency"),
        help="Episodes in flight per process (per xdist worker): the next tests' episodes start early. "
        "Default: ini tb_concurrency, else 1.",
    )
    parser.addini("tb_concurrency", "Default episodes in flight per process (see --tb-concurrency).", default="1")


def concurrency(config: pytest.Config) -> int:
    """--tb-concurrency, else its ini setting."""
    return positive_int("tb_concurrency")(str(setting(config, "tb_concurrency")))


def pytest_configure(config: pytest.Config) -> None:
    n = concurrency(config)
    if n == 1:
        return
    if config.getoption("tb_validate") or config.getoption("setuponly") or config.getoption("setupplan"):
        return  # these run each test's body in their own way: nothing to start early
    config.pluginmanager.register(LookAhead(n, _xdist_worker(config)), "thinkingbox-lookahead")
    young, *older = gc.get_threshold()
    if young < YOUNG_OBJECTS:
        gc.set_threshold(YOUNG_OBJECTS, *older)
        config.add_cleanup(lambda: gc.set_threshold(young, *older))
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(QueueAhead(n), "thinkingbox-queue-ahead")


class LookAhead:
    """Starts the episodes of the next tests of this process before the current one runs."""

    def __init__(self, n: int, worker: Any) -> None:
        self.n = n
        self._worker = worker  # xdist's worker loop, whose queue holds this process's next tests; None without xdist
        self._started: set[str] = set()  # tests whose episodes were started early and have not run yet
        self._position: dict[str, int] = {}  # node id -> position in session.items (without xdist)
        self._tried: set[str] = set()  # tests whose early pass started no episode (it failed or skipped)
        self._warned: set[str] = set()  # the errors already shown as a warning

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
        self._started.discard(item.nodeid)
        self._tried.discard(item.nodeid)
        if not (item.session.shouldstop or item.session.shouldfail):
            self._start_next(item)
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, Any, Any]:
        from ..attempt import StartedEarly

        try:
            return (yield)
        except StartedEarly:
            raise pytest.skip.Exception("its episode started early") from None

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        cache = session.config.stash.get(WORKER, None)
        if cache is not None:  # tests cut off by -x, --maxfail or a stop: their episodes go
            cache.discard_early(self._started)

    def _start_next(self, item: pytest.Item) -> None:
        upcoming = self._upcoming(item)
        cache = item.config.stash.get(WORKER, None)  # None until the first test sets up the tb fixtures
        if self._worker is not None and cache is not None:
            gone = self._started - {i.nodeid for i in upcoming}
            if gone:  # handed to another worker (xdist's work stealing, when the user chose it)
                cache.discard_early(gone)
                self._started -= gone
        # Episodes that ended wait for their test and cost nothing; the databases they hold are capped.
        # Counted once per test, not once per candidate (which grew as N squared).
        running = sum(_running(cache.early.get(key)) for key in self._started) if cache is not None else 0
        for following in upcoming:
            if running + 1 >= self.n or len(self._started) >= 2 * self.n:
                break
            if following.parent is not item.parent:
                break  # its module's fixtures are not set up: starting it would tear down this one's
            if following.nodeid in self._started or following.nodeid in self._tried:
                continue
            if "tb" not in getattr(following, "fixturenames", ()):
                continue
            following.stash[STARTING_EARLY] = True
            try:
                failure = self._start_early(following, item)
            finally:
                del following.stash[STARTING_EARLY]
                following._report_sections.clear()  # its captured output belongs to no report
            cache = item.config.stash.get(WORKER, None)
            if cache is not None and following.nodeid in cache.early:
                self._started.add(following.nodeid)
                running += _running(cache.early[following.nodeid])
            else:  # it will run in its turn; another early pass would fail or skip the same way
                self._tried.add(following.nodeid)
            if failure is not None:
                self._tell(following, *failure)

    def _start_early(self, following: pytest.Item, item: pytest.Item) -> tuple[str, str, str] | None:
        """Start `following`'s episode: from its task's prepared start if it can, else by its protocol up to
        ``tb.run``. If that failed: in which phase, the error and its whole text."""
        from _pytest.runner import runtestprotocol  # the protocol's phases, without reporting them

        start_prepared = following.config.stash.get(START_PREPARED, None)
        try:
            if start_prepared is not None and start_prepared(following):
                return None
        except Exception as exc:
            return "setup", f"{type(exc).__name__}: {exc}", traceback.format_exc()
        reports = runtestprotocol(following, log=False, nextitem=item)
        failed = next((report for report in reports if report.failed), None)
        if failed is None:
            return None
        crash = getattr(failed.longrepr, "reprcrash", None)
        error = crash.message if crash is not None else (failed.longreprtext.strip().splitlines() or ["?"])[-1]
        return failed.when, error, failed.longreprtext

    def _tell(self, following: pytest.Item, when: str, error: str, text: str) -> None:
        """Log an early pass's failure in full; warn once per distinct error in this process (the test may pass
        in its turn)."""
        logger.warning("starting %s early failed in %s:\n%s", following.nodeid, when, text)
        if error not in self._warned:
            self._warned.add(error)
            path, line, _ = following.location
            warnings.warn_explicit(
                pytest.PytestWarning(
                    f"thinkingbox: starting {following.nodeid} early failed in {when} ({error}); it runs in "
                    "its turn instead. Warned once per error in each process; every failure is in the log "
                    "pytest_thinkingbox.concurrency"
                ),
                pytest.PytestWarning,
                filename=str(following.config.rootpath / path),
                lineno=(line or 0) + 1,
            )

    def _upcoming(self, item: pytest.Item) -> list[pytest.Item]:
        """The tests this process runs after `item`, in order."""
        items = item.session.items
        if self._worker is not None:
            with self._worker.torun.lock() as queued:
                indices = [self._worker.nextitem_index, *queued]
            return [items[i] for i in indices if isinstance(i, int)]
        if not self._position:
            self._position = {i.nodeid: n for n, i in enumerate(items)}
        start = self._position[item.nodeid] + 1
        return items[start : start + 4 * self.n]  # the started ones (at most 2n) and the next to start


def _running(early: Any) -> bool:
    return early is not None and not early.task.done()


def _xdist_worker(config: pytest.Config) -> Any:
    """xdist's worker loop in this process (registered before configure), if any."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        if hasattr(plugin, "torun") and hasattr(plugin, "nextitem_index"):
            return plugin
    return None


class QueueAhead:
    """On the xdist controller: ``load`` scheduling that keeps 2N + 1 tests queued on every worker."""

    def __init__(self, n: int) -> None:
        self.n = n

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":
            return None  # the user chose another scheduling: keep it
        from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

        ahead = 2 * self.n + 1  # as many as may have started early, and the next

        class LoadAhead(LoadScheduling):
            def schedule(self) -> None:
                super().schedule()
                for node in self.nodes:  # the first chunks can be as small as 2 tests
                    self._top_up(node)

            def check_schedule(self, node: Any, duration: float = 0) -> None:
                super().check_schedule(node, duration)
                self._top_up(node)

            def _top_up(self, node: Any) -> None:
                queued = len(self.node2pending.get(node, ()))
                if self.pending and not node.shutting_down and queued < ahead:
                    self._send_tests(node, ahead - queued)

        return LoadAhead(config, log)
