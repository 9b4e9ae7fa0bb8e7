"""The model roles: who plays the agent, the simulated user and the judge, and the fixtures that build them.

Offline names (``golden``, ``scripted``, ``phrases``, ...) or ``openai:MODEL``
shortcuts, and a YAML file (``--tb-config``) naming endpoints and prices. The
configuration is read and checked once, at configure, before any task runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..roles.agents import NAMES as AGENTS
from ..roles.agents.imported import is_import_path, load_agent
from ..roles.config import PREFIX, Config
from ..roles.users import NAMES as USERS
from .options import group, setting

JUDGES = ("phrases",)

#: The model roles of this session (from --tb-config and the openai:MODEL shortcuts), read once at configure.
MODELS = pytest.StashKey[Config]()
#: An agent named by import path (--tb-agent module:object): its factory and the name records give it.
IMPORTED = pytest.StashKey[tuple[Callable[[Any], Any], str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    options = group(parser)
    options.addoption(
        "--tb-agent",
        dest="tb_agent",
        metavar="NAME",
        help=f"Agent under test: {', '.join(AGENTS)}, openai:MODEL, or your own as MODULE:OBJECT or FILE.py:OBJECT "
        "(an async function that owns its loop, or an agent class). Default: ini tb_agent, else golden.",
    )
    options.addoption(
        "--tb-user",
        dest="tb_user",
        metavar="NAME",
        help=f"Simulated user: {', '.join(USERS)}. Default: ini tb_user, else scripted.",
    )
    options.addoption(
        "--tb-judge",
        dest="tb_judge",
        metavar="NAME",
        help="Rubric judge: phrases (offline, answers from the phrases a question declares) or openai:MODEL. "
        "Default: ini tb_judge, else phrases.",
    )
    options.addoption(
        "--tb-config",
        dest="tb_config",
        metavar="PATH",
        help="YAML file naming the endpoint and model of the agent, user and judge (and prices). "
        "Default: ini tb_config, else none (offline).",
    )
    options.addoption(
        "--tb-base-url",
        dest="tb_base_url",
        metavar="URL",
        help="OpenAI-compatible endpoint for every model role (e.g. http://127.0.0.1:8000/v1); the key is read "
        "from OPENAI_API_KEY unless --tb-config names another variable. Default: the config's, else api.openai.com.",
    )
    parser.addini("tb_agent", "Default agent under test (see --tb-agent).", default="golden")
    parser.addini("tb_user", "Default simulated user (see --tb-user).", default="scripted")
    parser.addini("tb_judge", "Default rubric judge (see --tb-judge).", default="phrases")
    parser.addini("tb_config", "Default model configuration file (see --tb-config).", default="")


@pytest.hookimpl(tryfirst=True)  # the other concerns read the roles at configure
def pytest_configure(config: pytest.Config) -> None:
    """Refuse unknown names and a bad model configuration before any task runs."""
    for role, kind, offline in (
        ("agent", "an agent", AGENTS),
        ("user", "a simulated user", USERS),
        ("judge", "a judge", JUDGES),
    ):
        name = setting(config, f"tb_{role}")
        if role == "agent" and is_import_path(name):
            try:
                config.stash[IMPORTED] = load_agent(name, config.invocation_params.dir)
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
            continue
        if name not in offline and not name.startswith(PREFIX):
            listed = [n for n in offline if not n.startswith("blind:rank:")]
            if len(listed) < len(offline):  # ten numbered guesses, named once
                listed.insert(listed.index("blind:family"), "blind:rank:1 ... blind:rank:10")
            raise pytest.UsageError(
                f"--tb-{role} {name!r} is not {kind}; choose one of: {', '.join(listed)}, or {PREFIX}MODEL"
            )
    if config.getoption("tb_validate") and config.getoption("tb_agent") not in (None, "golden"):
        raise pytest.UsageError(
            "--tb-validate runs the golden agent, the noop agent and the mutants itself; leave out --tb-agent"
        )
    config.stash[MODELS] = _models(config)


def agent_name(config: pytest.Config) -> str:
    """The agent under test; --tb-validate runs the golden agent (and noop and mutants itself)."""
    if config.getoption("tb_validate"):
        return "golden"
    if IMPORTED in config.stash:
        return config.stash[IMPORTED][1]
    return role_name(config, "agent")


def role_name(config: pytest.Config, role: str) -> str:
    """``openai:MODEL`` when a model serves `role`, else the offline name from the option or ini."""
    from ..roles.config import role_name as name

    return name(config.stash[MODELS], role, setting(config, f"tb_{role}"))


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


@pytest.fixture(scope="session")
def tb_agent(pytestconfig: pytest.Config, _tb_worker: Any) -> Callable[[Any], Any]:
    """Builds the agent for each attempt (from --tb-agent or --tb-config). Override to test your own agent class."""
    name = agent_name(pytestconfig)
    if IMPORTED in pytestconfig.stash:
        return named(*pytestconfig.stash[IMPORTED])
    if name.startswith(PREFIX):
        from ..roles.agents.openai import OpenAIAgent

        endpoint = _tb_worker.endpoint("agent")
        return named(lambda context: OpenAIAgent(endpoint), name)
    from ..roles.agents import make_agent

    return named(lambda context: make_agent(name, context), name)


def named(factory: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """An agent factory that says which agent it builds: its name is what records and reports show."""
    factory.agent_name = name  # type: ignore[attr-defined]
    return factory


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
