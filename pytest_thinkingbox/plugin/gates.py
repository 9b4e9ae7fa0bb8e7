"""--tb-gate: let the aggregate, not each single attempt, set the session's exit status.

The expressions are parsed at configure (a bad one is a usage error before any
task runs) and evaluated by the results keeper when the session finishes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .options import group

#: The parsed --tb-gate expressions.
GATES = pytest.StashKey[list[Any]]()


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
        help="Set the exit status from the aggregate instead of each attempt, e.g. 'pass^k>=0.6', 'k/k>=40', "
        "'domain:retail:pass@1>=0.8'; repeatable. Default: none.",
    )


def pytest_configure(config: pytest.Config) -> None:
    from ..campaign.gates import parse_gate

    try:
        config.stash[GATES] = [parse_gate(text) for text in config.getoption("tb_gate")]
    except ValueError as exc:
        raise pytest.UsageError(f"--tb-gate: {exc}") from None


def apply_gates(config: pytest.Config, session: pytest.Session, figures: Callable[[], dict[str, Any]]) -> list[Any]:
    """Evaluate the gates on the aggregate figures and set the exit status; the results, for the summary."""
    gates = config.stash.get(GATES, [])
    if not gates or session.exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return []
    aggregate = figures()
    allow = config.getoption("tb_allow_incomplete")
    results = [gate.evaluate(aggregate, allow_incomplete=allow) for gate in gates]
    session.exitstatus = pytest.ExitCode.OK if all(r.ok for r in results) else pytest.ExitCode.TESTS_FAILED
    return results
