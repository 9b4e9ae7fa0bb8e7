"""The plugin's settings: command-line options, their ini twins, and reading them.

Values are checked where they are parsed, so a bad value is a usage error
before any task runs.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .agents import NAMES as AGENTS
from .users import NAMES as USERS

VALIDATE_REPEAT = 3  # golden attempts per task under --tb-validate, unless --tb-repeat says otherwise


def agent_name(config: pytest.Config) -> str:
    """The agent under test; --tb-validate runs the golden agent (and noop and mutants itself)."""
    return "golden" if config.getoption("tb_validate") else setting(config, "tb_agent")


def _positive_int(option: str) -> Callable[[str], int]:
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


def add_options(parser: pytest.Parser) -> None:
    """Declare the options, in one group, each with its ini twin where projects set it."""
    group = parser.getgroup("thinkingbox", "agent benchmarks on stateful workflows (pytest-thinkingbox)")
    group.addoption(
        "--tb-agent",
        dest="tb_agent",
        metavar="NAME",
        help=f"Agent under test: {', '.join(AGENTS)}. Default: ini tb_agent, else golden.",
    )
    group.addoption(
        "--tb-user",
        dest="tb_user",
        metavar="NAME",
        help=f"Simulated user: {', '.join(USERS)}. Default: ini tb_user, else scripted.",
    )
    group.addoption(
        "--tb-repeat",
        dest="tb_repeat",
        metavar="N",
        type=_positive_int("--tb-repeat"),
        help="Attempts per task, each from a clean backend. Default: ini tb_repeat, else 1.",
    )
    group.addoption(
        "--tb-seed",
        dest="tb_seed",
        metavar="N",
        type=_int,
        default=0,
        help="Seed for factories and the flaky agent's faults. Default: 0.",
    )
    group.addoption(
        "--tb-results",
        dest="tb_results",
        metavar="PATH",
        help="Write one JSON line per attempt to PATH. Default: not written.",
    )
    group.addoption(
        "--tb-aggregate",
        dest="tb_aggregate",
        metavar="PATH",
        help="Write the aggregate figures (overall, per domain, per task) as JSON to PATH. Default: not written.",
    )
    group.addoption(
        "--tb-max-steps",
        dest="tb_max_steps",
        metavar="N",
        type=_positive_int("--tb-max-steps"),
        default=50,
        help="Agent steps per attempt before the episode ends. Default: 50.",
    )
    group.addoption(
        "--tb-max-turns",
        dest="tb_max_turns",
        metavar="N",
        type=_positive_int("--tb-max-turns"),
        default=20,
        help="Simulated-user turns per attempt before the episode ends. Default: 20.",
    )
    group.addoption(
        "--tb-time-limit",
        dest="tb_time_limit",
        metavar="SECONDS",
        type=_positive_int("--tb-time-limit"),
        default=300,
        help="Wall-clock seconds per episode before it ends. Default: 300.",
    )
    group.addoption(
        "--tb-tasks",
        dest="tb_tasks",
        metavar="FILE",
        help='Run only the tasks a pool file lists under "selected" (thinkingbox select-pool --out). '
        "Default: every collected task.",
    )
    group.addoption(
        "--tb-validate",
        dest="tb_validate",
        action="store_true",
        help="Prove each selected task's checks: golden k times (3 unless --tb-repeat), noop, and every "
        "single-step mutant of its golden calls; prints a validity report. Default: off.",
    )
    group.addoption(
        "--tb-db",
        dest="tb_db",
        metavar="URL",
        help="PostgreSQL server for the attempts' databases (postgresql://user@host:port/dbname; used only to "
        "create and drop per-run databases). Default: ini tb_db, else SQLite in memory.",
    )
    parser.addini("tb_agent", "Default agent under test (see --tb-agent).", default="golden")
    parser.addini("tb_user", "Default simulated user (see --tb-user).", default="scripted")
    parser.addini("tb_repeat", "Default attempts per task (see --tb-repeat).", default="1")
    parser.addini("tb_db", "Default database server URL (see --tb-db).", default="")


def setting(config: pytest.Config, name: str) -> str:
    """An option's value, else its ini setting (for options that have both)."""
    return config.getoption(name) or config.getini(name)


def repeat(config: pytest.Config) -> int:
    """The campaign's k: --tb-repeat, else the tb_repeat ini value."""
    value = config.getoption("tb_repeat")
    if value is not None:
        return value
    ini = _positive_int("tb_repeat (ini)")(config.getini("tb_repeat"))
    return max(ini, VALIDATE_REPEAT) if config.getoption("tb_validate") else ini


def check(config: pytest.Config) -> None:
    """Refuse unknown agent or user names and a bad ini repeat count, before any task runs."""
    agent = setting(config, "tb_agent")
    if agent not in AGENTS:
        raise pytest.UsageError(f"--tb-agent {agent!r} is not an agent; choose one of: {', '.join(AGENTS)}")
    user = setting(config, "tb_user")
    if user not in USERS:
        raise pytest.UsageError(f"--tb-user {user!r} is not a simulated user; choose one of: {', '.join(USERS)}")
    repeat(config)
    if config.getoption("tb_validate") and config.getoption("tb_agent") not in (None, "golden"):
        raise pytest.UsageError(
            "--tb-validate runs the golden agent, the noop agent and the mutants itself; leave out --tb-agent"
        )
    url = setting(config, "tb_db")
    if url:
        check_database(url)


def selected_tasks(path: str) -> set[str]:
    """The task ids a pool file lists under "selected", or a usage error naming the file."""
    import json
    from pathlib import Path

    try:
        selected = json.loads(Path(path).read_text(encoding="utf-8"))["selected"]
        if not isinstance(selected, list) or not all(isinstance(t, str) for t in selected):
            raise TypeError
    except OSError as exc:
        raise pytest.UsageError(f"--tb-tasks {path}: cannot read it ({exc.strerror})") from None
    except (ValueError, KeyError, TypeError):
        raise pytest.UsageError(
            f'--tb-tasks {path}: expected JSON with a "selected" list of task ids (thinkingbox select-pool --out)'
        ) from None
    return set(selected)


def check_database(url: str) -> None:
    """Refuse a URL that is not PostgreSQL, a missing driver, an unreachable server or a role without CREATEDB."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise pytest.UsageError(
            "--tb-db needs the PostgreSQL driver psycopg: pip install 'pytest-thinkingbox[postgres]'"
        ) from None
    from .postgres import PostgresError, check_server, server_url

    try:
        check_server(server_url(url))
    except (ValueError, PostgresError) as exc:
        raise pytest.UsageError(f"--tb-db: {exc}") from None
