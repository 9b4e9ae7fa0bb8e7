"""The plugin's settings: command-line options, their ini twins, and reading them.

Values are checked where they are parsed, so a bad value is a usage error
before any task runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..roles.agents import NAMES as AGENTS
from ..roles.config import PREFIX, Config
from ..roles.users import NAMES as USERS

JUDGES = ("phrases",)
VALIDATE_REPEAT = 3  # golden attempts per task under --tb-validate, unless --tb-repeat says otherwise

#: The model roles of this session (from --tb-config and the openai:MODEL shortcuts), read once at configure.
MODELS = pytest.StashKey[Config]()


def agent_name(config: pytest.Config) -> str:
    """The agent under test; --tb-validate runs the golden agent (and noop and mutants itself)."""
    return "golden" if config.getoption("tb_validate") else role_name(config, "agent")


def role_name(config: pytest.Config, role: str) -> str:
    """``openai:MODEL`` when a model serves `role`, else the offline name from the option or ini."""
    from ..roles.config import role_name as name

    return name(config.stash[MODELS], role, setting(config, f"tb_{role}"))


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
        "--tb-judge",
        dest="tb_judge",
        metavar="NAME",
        help="Rubric judge: phrases (offline, answers from the phrases a question declares) or openai:MODEL. "
        "Default: ini tb_judge, else phrases.",
    )
    group.addoption(
        "--tb-config",
        dest="tb_config",
        metavar="PATH",
        help="YAML file naming the endpoint and model of the agent, user and judge (and prices). "
        "Default: ini tb_config, else none (offline).",
    )
    group.addoption(
        "--tb-base-url",
        dest="tb_base_url",
        metavar="URL",
        help="OpenAI-compatible endpoint for every model role (e.g. http://127.0.0.1:8000/v1); the key is read "
        "from OPENAI_API_KEY unless --tb-config names another variable. Default: the config's, else api.openai.com.",
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
        "--tb-errors",
        dest="tb_errors",
        metavar="PATH",
        help="Also write the records of system errors (endpoint, harness) to PATH, one JSON line each. "
        "Default: not written.",
    )
    group.addoption(
        "--tb-rerun-errors",
        dest="tb_rerun_errors",
        metavar="RESULTS",
        help="Run only the attempts whose latest record in RESULTS (a --tb-results or --tb-errors file) is a "
        "system error; their new records go to --tb-results (give RESULTS to append). Default: off.",
    )
    group.addoption(
        "--tb-resume",
        dest="tb_resume",
        metavar="RESULTS",
        help="Continue an interrupted campaign: skip the attempts RESULTS already records and append the rest "
        "to it, under the same run id. Default: off.",
    )
    group.addoption(
        "--tb-run",
        dest="tb_run",
        metavar="ID",
        help="Run id written into the results (give shards of one campaign the same id). Default: time + random.",
    )
    group.addoption(
        "--tb-gate",
        dest="tb_gate",
        metavar="EXPR",
        action="append",
        default=[],
        help="Set the exit status from the aggregate instead of each attempt, e.g. 'pass^k>=0.6', 'k/k>=40', "
        "'domain:retail:pass@1>=0.8'; repeatable. Default: none.",
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
        help="Prove each selected task tells a careful agent from a careless one: golden k times (3 unless "
        "--tb-repeat), then noop, the policy-blind baselines, every single-step mutant of its golden calls and "
        "its traps must fail, and golden values must be visible or declared derived; prints a validity report. "
        "Default: off.",
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
    parser.addini("tb_judge", "Default rubric judge (see --tb-judge).", default="phrases")
    parser.addini("tb_config", "Default model configuration file (see --tb-config).", default="")
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
    """Refuse unknown names, a bad model configuration or a bad ini repeat count, before any task runs."""
    for role, kind, offline in (
        ("agent", "an agent", AGENTS),
        ("user", "a simulated user", USERS),
        ("judge", "a judge", JUDGES),
    ):
        name = setting(config, f"tb_{role}")
        if name not in offline and not name.startswith(PREFIX):
            raise pytest.UsageError(
                f"--tb-{role} {name!r} is not {kind}; choose one of: {', '.join(offline)}, or {PREFIX}MODEL"
            )
    config.stash[MODELS] = _models(config)
    repeat(config)
    if config.getoption("tb_validate") and config.getoption("tb_agent") not in (None, "golden"):
        raise pytest.UsageError(
            "--tb-validate runs the golden agent, the noop agent and the mutants itself; leave out --tb-agent"
        )
    url = setting(config, "tb_db")
    if url:
        check_database(url)


def gates(config: pytest.Config) -> list[Any]:
    """The --tb-gate expressions, parsed; a bad one is a usage error before any task runs."""
    from ..campaign.gates import parse_gate

    try:
        return [parse_gate(text) for text in config.getoption("tb_gate")]
    except ValueError as exc:
        raise pytest.UsageError(f"--tb-gate: {exc}") from None


def _shortcut(config: pytest.Config, role: str) -> str | None:
    """The role's name from the command line, else an ini ``openai:MODEL`` (an ini offline name is a default)."""
    ini = config.getini(f"tb_{role}")
    return config.getoption(f"tb_{role}") or (ini if ini.startswith(PREFIX) else None)


def _models(config: pytest.Config) -> Config:
    """The model roles, checked: a usage error for a bad file, a missing key or an unreachable endpoint."""
    from ..roles.config import check_reachable, load_config, missing_keys, with_shortcuts

    path = setting(config, "tb_config")
    try:
        models = load_config(path) if path else Config()
        # An offline name on the command line overrides the file's role; openai:MODEL (option or ini) sets it.
        names = {role: _shortcut(config, role) for role in ("agent", "user", "judge")}
        models = with_shortcuts(models, names, config.getoption("tb_base_url"))
    except ValueError as exc:
        raise pytest.UsageError(f"--tb-config {exc}" if path else str(exc)) from None
    if models.roles and not config.getoption("tb_validate"):
        problems = missing_keys(models)
        if problems:
            raise pytest.UsageError("model endpoints: " + "; ".join(problems))
        if not hasattr(config, "workerinput"):  # once per session, on the controller
            try:
                check_reachable(models)
            except ValueError as exc:
                raise pytest.UsageError(f"model endpoints: {exc}") from None
    return models


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
    from ..core.backends.postgres import PostgresError, check_server, server_url

    try:
        check_server(server_url(url))
    except (ValueError, PostgresError) as exc:
        raise pytest.UsageError(f"--tb-db: {exc}") from None
