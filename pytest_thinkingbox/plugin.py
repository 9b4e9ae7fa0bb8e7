"""pytest hooks of pytest-thinkingbox: options, markers, attempts, report plumbing.

Loading this module imports nothing heavy: SQLAlchemy, the MCP SDK and the
agents load only when a task's `tb` fixture is set up.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import pytest

from . import fixtures
from .agents import NAMES as AGENTS
from .outcomes import ERROR, RECORD, classify
from .users import NAMES as USERS


def _positive_int(option: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise pytest.UsageError(f"{option} expects a whole number of at least 1, got {text!r}")
        return value

    return parse


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"--tb-seed expects a whole number, got {text!r}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("thinkingbox", "agent benchmarks on stateful workflows (pytest-thinkingbox)")
    group.addoption("--tb-agent", dest="tb_agent", metavar="NAME",
                    help=f"Agent under test: {', '.join(AGENTS)}. Default: ini tb_agent, else golden.")
    group.addoption("--tb-user", dest="tb_user", metavar="NAME",
                    help=f"Simulated user: {', '.join(USERS)}. Default: ini tb_user, else scripted.")
    group.addoption("--tb-repeat", dest="tb_repeat", metavar="N", type=_positive_int("--tb-repeat"),
                    help="Attempts per task, each from a clean backend. Default: ini tb_repeat, else 1.")
    group.addoption("--tb-seed", dest="tb_seed", metavar="N", type=_int, default=0,
                    help="Seed for factories and the flaky agent's faults. Default: 0.")
    group.addoption("--tb-results", dest="tb_results", metavar="PATH",
                    help="Write one JSON line per attempt to PATH. Default: not written.")
    group.addoption("--tb-aggregate", dest="tb_aggregate", metavar="PATH",
                    help="Write the aggregate figures (overall, per domain, per task) as JSON to PATH. Default: not written.")
    group.addoption("--tb-max-steps", dest="tb_max_steps", metavar="N", type=_positive_int("--tb-max-steps"),
                    default=50, help="Agent steps per attempt before the episode ends. Default: 50.")
    group.addoption("--tb-max-turns", dest="tb_max_turns", metavar="N", type=_positive_int("--tb-max-turns"),
                    default=20, help="Simulated-user turns per attempt before the episode ends. Default: 20.")
    group.addoption("--tb-time-limit", dest="tb_time_limit", metavar="SECONDS", type=_positive_int("--tb-time-limit"),
                    default=300, help="Wall-clock seconds per episode before it ends. Default: 300.")
    parser.addini("tb_agent", "Default agent under test (see --tb-agent).", default="golden")
    parser.addini("tb_user", "Default simulated user (see --tb-user).", default="scripted")
    parser.addini("tb_repeat", "Default attempts per task (see --tb-repeat).", default="1")


def _tb_repeat_signature(n: int) -> int:
    return n


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tb_repeat(n): run this task n attempts instead of --tb-repeat.")
    config.pluginmanager.register(fixtures, "thinkingbox-fixtures")
    agent = config.getoption("tb_agent") or config.getini("tb_agent")
    if agent not in AGENTS:
        raise pytest.UsageError(f"--tb-agent {agent!r} is not an agent; choose one of: {', '.join(AGENTS)}")
    user = config.getoption("tb_user") or config.getini("tb_user")
    if user not in USERS:
        raise pytest.UsageError(f"--tb-user {user!r} is not a simulated user; choose one of: {', '.join(USERS)}")
    k = repeat(config)
    if not hasattr(config, "workerinput"):
        from .results import Results

        config.pluginmanager.register(
            Results(config, k, config.getoption("tb_results"), config.getoption("tb_aggregate")), "thinkingbox-results"
        )


def repeat(config: pytest.Config) -> int:
    """The campaign's k: --tb-repeat, else the tb_repeat ini value."""
    value = config.getoption("tb_repeat")
    return value if value is not None else _positive_int("tb_repeat (ini)")(config.getini("tb_repeat"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "_tb_attempt" not in metafunc.fixturenames:
        return
    n = repeat(metafunc.config)
    marker = metafunc.definition.get_closest_marker("tb_repeat")
    if marker is not None:
        try:
            n = _tb_repeat_signature(*marker.args, **marker.kwargs)
        except TypeError as exc:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: tb_repeat marker takes one number n ({exc})") from None
        if not isinstance(n, int) or n < 1:
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.tb_repeat(n) needs n >= 1, got {n!r}")
    width = max(2, len(str(n)))
    metafunc.parametrize("_tb_attempt", range(1, n + 1), ids=[f"attempt{i:0{width}d}" for i in range(1, n + 1)])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    record = item.stash.get(RECORD, None)
    if record is None or report.skipped:
        return report
    if call.when == "call" or report.failed:
        stage = {"setup": "backend", "teardown": "teardown"}.get(call.when, "task")
        record.update(classify(call.excinfo, stage))
        # A JSON round trip leaves only plain types, which xdist can send to the controller.
        report.tb_record = json.loads(json.dumps(record, default=str))
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    record = getattr(report, "tb_record", None)
    if record is not None and report.when == "call" and record["outcome"] == ERROR:
        return "error", "E", "ERROR"
    return None


