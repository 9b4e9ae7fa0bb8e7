"""--tb-gate: let the aggregate, not each single attempt, set the session's exit status.

The expressions are parsed at configure (a bad one is a usage error before any
task runs) and evaluated by the results keeper when the session finishes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..campaign.gates import MIN_TASKS, parse_gate  # the standard library only: light to load with the plugin
from .options import group, positive_int

#: The parsed --tb-gate expressions.
GATES = pytest.StashKey[list[Any]]()
#: The fewest tasks a gate on a rate judges (--tb-gate-min-tasks).
MIN = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-allow-incomplete",
        dest="tb_allow_incomplete",
        action="store_true",
        help="Judge the gates even when expected attempts have no record (--maxfail, -x, a crashed worker, an "
        "interrupt); the manifest records it. Default: off, so a campaign cut short fails every gate.",
    )
    group(parser).addoption(
        "--tb-gate",
        dest="tb_gate",
        metavar="EXPR",
        action="append",
        default=[],
        help="Set the exit status from the aggregate instead of each attempt, e.g. 'pass^k>=0.6', "
        "'pass@1.lcb95>=0.8' (the lower end of the 95%% interval), 'k/k>=40', 'domain:retail:pass@1>=0.8'; "
        "repeatable. Default: none.",
    )
    group(parser).addoption(
        "--tb-gate-min-tasks",
        dest="tb_gate_min_tasks",
        metavar="N",
        type=positive_int("--tb-gate-min-tasks"),
        default=None,
        help="A gate on a rate (pass@1, pass^k, ...) over fewer than N tasks fails, saying so. Default: the "
        f"tb_gate_min_tasks ini setting, else {MIN_TASKS}.",
    )
    parser.addini(
        "tb_gate_min_tasks", "Default fewest tasks a gate on a rate judges (see --tb-gate-min-tasks).", default=""
    )


def pytest_configure(config: pytest.Config) -> None:
    try:
        config.stash[GATES] = [parse_gate(text) for text in config.getoption("tb_gate")]
    except ValueError as exc:
        raise pytest.UsageError(f"--tb-gate: {exc}") from None
    config.stash[MIN] = min_tasks(config)


def min_tasks(config: pytest.Config) -> int:
    """--tb-gate-min-tasks, else the ini setting, else `MIN_TASKS` (a bad ini value is a usage error)."""
    given = config.getoption("tb_gate_min_tasks")
    if given is not None:
        return int(given)
    ini = config.getini("tb_gate_min_tasks")
    return positive_int("tb_gate_min_tasks (ini)")(ini) if ini else MIN_TASKS


def apply_gates(config: pytest.Config, session: pytest.Session, figures: Callable[[], dict[str, Any]]) -> list[Any]:
    """Evaluate the gates on the aggregate figures and set the exit status; the results, for the summary."""
    gates = config.stash.get(GATES, [])
    if not gates or session.exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return []
    aggregate = figures()
    allow = config.getoption("tb_allow_incomplete")
    least = config.stash.get(MIN, MIN_TASKS)
    results = [gate.evaluate(aggregate, allow_incomplete=allow, min_tasks=least) for gate in gates]
    session.exitstatus = pytest.ExitCode.OK if all(r.ok for r in results) else pytest.ExitCode.TESTS_FAILED
    return results
