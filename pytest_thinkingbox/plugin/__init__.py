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
from .options import MODELS, add_options, agent_name, check, gates, repeat, role_name, selected_tasks
from .outcomes import ERROR, RECORD, classify, item_key, new_record
from .results import GATES

VALIDITY_MARKER = (
    "tb_validity(reason=None, *, baseline_ok={name: reason}): --tb-validate reports this task's problems without "
    "failing it (reason), or accepts that a policy-blind baseline's ending is the right one (baseline_ok)."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _tb_repeat_signature(n: int) -> int:
    return n


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tb_repeat(n): run this task n attempts instead of --tb-repeat.")
    config.addinivalue_line("markers", VALIDITY_MARKER)
    config.pluginmanager.register(fixtures, "thinkingbox-fixtures")
    check(config)
    if config.getoption("tb_validate"):
        from .validation import Validation

        config.pluginmanager.register(Validation(), "thinkingbox-validation")
    config.stash[GATES] = gates(config)
    if not hasattr(config, "workerinput"):
        from .results import Results

        results = Results(config, repeat(config), manifest(config))
        config.pluginmanager.register(results, "thinkingbox-results")


def manifest(config: pytest.Config) -> dict[str, Any]:
    """What a results file says about its run: bundle, roles and models (no secrets), seed, k."""
    from ..core.bundle import bundle_hash, bundle_roots

    models = config.stash[MODELS]
    return {
        "bundle": bundle_hash(bundle_roots(config.args, config.invocation_params.dir)),
        "agent": agent_name(config),
        "user": role_name(config, "user"),
        "judge": role_name(config, "judge"),
        "models": {role: c.public() for role, c in models.roles.items()},
        "prices": models.prices,
        "seed": config.getoption("tb_seed"),
        "k": repeat(config),
    }


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "_tb_attempt" not in metafunc.fixturenames:
        return
    n = repeat(metafunc.config)
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _select_pool_tasks(config, items)
    _skip_recorded(config, items)


def _skip_recorded(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--tb-resume and --tb-rerun-errors: leave out the attempts an earlier results file settles."""
    from .results import selection

    chosen = selection(config)
    if chosen is None:
        return
    how, keys = chosen
    keep = [item for item in items if (item_key(item) in keys) == (how == "keep")]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


def _select_pool_tasks(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = config.getoption("tb_tasks")
    if not path:
        return
    wanted = selected_tasks(path)
    keep = [item for item in items if item_key(item)[0] in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep
    missing = wanted - {item_key(item)[0] for item in keep}
    if missing:
        config.issue_config_time_warning(
            pytest.PytestWarning(
                f"--tb-tasks {path}: {len(missing)} listed tasks were not collected, e.g. {sorted(missing)[:3]}"
            ),
            stacklevel=2,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.skipped or "_tb_attempt" not in getattr(item, "fixturenames", ()):
        return report
    if RECORD not in item.stash:
        item.stash[RECORD] = new_record(item)
    record = item.stash[RECORD]
    if call.when == "call" or report.failed:
        stage = {"setup": "setup", "teardown": "teardown"}.get(call.when, "task")
        record.update(classify(call.excinfo, stage))
        # A JSON round trip leaves only plain types, which xdist can send to the controller.
        report.tb_record = json.loads(json.dumps(record, default=str))
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    record = getattr(report, "tb_record", None)
    if record is not None and report.when == "call" and record["outcome"] == ERROR:
        return "error", "E", "ERROR"
    return None
