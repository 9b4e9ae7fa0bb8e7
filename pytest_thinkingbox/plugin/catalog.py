"""--tb-capture: what every selected task declares, read without running an episode; the catalog built from it.

In a capture session each task's first attempt runs its arrange step and stops
at ``tb.run`` (`attempt.Captured`); its brief (user, golden calls, traps,
reply, arranged rows) travels on the test report to the controller, which
writes one JSON line per task. Nothing else runs: no agent, no golden replay.

Validation, and the baselines that guess a domain's usual ending
(``blind:rank:N``, ``blind:family``), need every task's golden calls before
any task runs, so the controller first runs a capture session of the same
paths in a subprocess (`capture_catalog`), and every process reads the
resulting catalog (`core/endings.py` derives the endings). Under xdist the
controller hands the catalog's path to each worker (``pytest_configure_node``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from .options import group

#: The path of this session's catalog of briefs, when it needs one.
CATALOG_PATH = pytest.StashKey[Path | None]()
#: The briefs read from it, once.
BRIEFS = pytest.StashKey[list[dict[str, Any]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-capture",
        dest="tb_capture",
        metavar="PATH",
        help="Run no episode: write what each selected task declares (its user, golden calls, traps, reply and "
        "the rows its arrange step writes) to PATH, one JSON line per task. Default: off.",
    )


def needs_catalog(config: pytest.Config) -> bool:
    """Whether this session's agents need every task's golden calls: validation, or a guessing baseline."""
    from ..roles.agents import needs_endings

    return bool(config.getoption("tb_validate")) or needs_endings(str(config.getoption("tb_agent") or ""))


def pytest_configure(config: pytest.Config) -> None:
    capture = config.getoption("tb_capture")
    config.stash[CATALOG_PATH] = None
    if capture:
        if not hasattr(config, "workerinput"):
            config.pluginmanager.register(CaptureWriter(Path(capture)), "thinkingbox-capture")
        return
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        config.stash[CATALOG_PATH] = Path(worker["tb_catalog"]) if worker.get("tb_catalog") else None
    elif needs_catalog(config):
        config.stash[CATALOG_PATH] = capture_catalog(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: each worker reads the controller's catalog."""
    path = node.config.stash.get(CATALOG_PATH, None)
    node.workerinput["tb_catalog"] = str(path) if path else None


def briefs(config: pytest.Config) -> list[dict[str, Any]] | None:
    """The briefs of this session's catalog, read once (None when the session has no catalog)."""
    path = config.stash.get(CATALOG_PATH, None)
    if path is None:
        return None
    if BRIEFS not in config.stash:
        lines = path.read_text(encoding="utf-8").splitlines()
        config.stash[BRIEFS] = [json.loads(line) for line in lines if line.strip()]
    return config.stash[BRIEFS]


def capture_catalog(config: pytest.Config) -> Path:
    """Run a capture session over this session's paths (every task under them, whatever -k or -m select)."""
    out = Path(tempfile.mkdtemp(prefix="tb-catalog-")) / "briefs.jsonl"
    command = [sys.executable, "-m", "pytest", *config.args, "--tb-capture", str(out), "--tb-repeat", "1"]
    command += [
        "-q",
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "--rootdir",
        str(config.rootpath),
    ]
    if config.inipath is not None:
        command += ["-c", str(config.inipath)]
    command += _plugins(config.invocation_params.args)
    # The same imports as this process: its sys.path (a conftest's or an ini's pythonpath included) goes first.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(command, cwd=config.invocation_params.dir, capture_output=True, text=True, env=env)
    if done.returncode not in (0, 1) or not out.exists():  # 1: some task failed to arrange; its brief is missing
        raise pytest.UsageError(
            f"reading the tasks' golden calls first (a --tb-capture session, exit {done.returncode}) failed:\n"
            + (done.stdout[-2000:] + done.stderr[-2000:]).strip()
        )
    return out


def _plugins(args: tuple[str, ...]) -> list[str]:
    """The ``-p NAME`` options of the command line, so the capture session loads the same plugins."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg == "-p" and i + 1 < len(args):
            found += ["-p", args[i + 1]]
        elif arg.startswith("-p") and len(arg) > 2:
            found += ["-p", arg[2:]]
    return found


class Capture:
    """Registered in a capture session on every process that runs tasks: a stopped body is a passed test."""

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Generator[None, Any, Any]:
        from ..attempt import Captured

        try:
            return (yield)
        except Captured as captured:
            pyfuncitem.stash[CAPTURED] = json.dumps(captured.brief.as_dict(), default=str)
            return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if call.when == "call" and CAPTURED in item.stash:
            report.tb_brief = item.stash[CAPTURED]  # a JSON string: xdist sends it to the controller as is
        return report


CAPTURED = pytest.StashKey[str]()


class CaptureWriter:
    """The controller's writer of the capture file: one line per task, as its report arrives."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._out = path.open("w", encoding="utf-8")
        self._tasks: set[str] = set()  # a task with several attempts (tb_repeat) is written once

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        brief = getattr(report, "tb_brief", None)
        if brief is None:
            return
        task = json.loads(brief)["task"]
        if task not in self._tasks:
            self._tasks.add(task)
            self._out.write(brief + "\n")
            self._out.flush()

    def pytest_unconfigure(self) -> None:
        self._out.close()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.getoption("tb_capture"):
        session.config.pluginmanager.register(Capture(), "thinkingbox-capture-run")
