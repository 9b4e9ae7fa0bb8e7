"""The public face stays put: names, fixtures, options and commands users rely on."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest_thinkingbox

NAMES = {
    "AgentStep", "AgentView", "Attempt", "CONFLICT", "Call", "Domain", "Evidence", "Factory", "HarnessError",
    "INVALID_ARGUMENT", "NOT_FOUND", "PRECONDITION_FAILED", "Rules", "Run", "TaskDefinitionError", "ThinkingboxError",
    "ToolFailure", "ToolSet", "User", "Verdict", "Violation", "__version__", "call", "current_session", "derived",
    "get_or_fail", "next_id", "reward", "row_dict", "rows_where", "volatile",
}  # fmt: skip
OPTIONS = (
    "--tb-agent", "--tb-user", "--tb-judge", "--tb-config", "--tb-base-url", "--tb-repeat", "--tb-seed",
    "--tb-max-steps", "--tb-max-turns", "--tb-time-limit", "--tb-db", "--tb-results", "--tb-aggregate",
    "--tb-errors", "--tb-resume", "--tb-rerun-errors", "--tb-run", "--tb-gate", "--tb-tasks", "--tb-validate",
    "--tb-allow-incomplete", "--tb-gate-min-tasks", "--tb-capture",
)  # fmt: skip
FIXTURES = ("tb_domain", "tb_agent", "tb_user", "tb_judge", "tb_db_url", "tb")


def test_every_public_name_imports_as_what_it_names():
    assert set(pytest_thinkingbox.__all__) == NAMES
    for name in NAMES:
        exec(f"from pytest_thinkingbox import {name}", {})
    from pytest_thinkingbox import Domain, ToolSet, reward

    assert callable(reward)
    assert not isinstance(reward, type(pytest_thinkingbox))
    assert isinstance(Domain, type)
    assert isinstance(ToolSet, type)


def test_the_plugin_and_the_command_are_installed():
    plugins = {e.name: e.value for e in entry_points(group="pytest11")}
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert plugins["thinkingbox"] == "pytest_thinkingbox.plugin"
    assert scripts["thinkingbox"] == "pytest_thinkingbox.cli:main"


def test_every_option_ini_and_fixture_is_offered(pytester):
    help_text = pytester.runpytest("--help").stdout.str()
    for option in OPTIONS:
        assert option in help_text, option
    for ini in ("tb_agent", "tb_user", "tb_judge", "tb_config", "tb_repeat", "tb_db"):
        assert f"{ini} (string)" in help_text, ini
    fixtures = pytester.runpytest("--fixtures").stdout.str()
    for name in FIXTURES:
        assert (
            f"{name} [session scope]" in fixtures
            or f"{name} [module scope]" in fixtures
            or f"\n{name}\n" in fixtures
            or f"{name} --" in fixtures
        ), name
