"""The controller's record keeper: per-attempt JSONL, the errors sidecar, the aggregate, the summary.

Registered once, on the controller only (never on an xdist worker). Records
arrive on test reports, whichever process ran the attempt, so the files and
the summary are the same with and without ``-n``. Each JSONL line is written
and flushed when the attempt's teardown report arrives, after the run id,
bundle hash and failure signature are added.

A results file starts with a manifest line (``{"manifest": {...}}``) and gets
another, with ``finished``, when the session ends. ``--tb-resume`` and
``--tb-rerun-errors`` continue an earlier file under its run id: a line cut off
by a killed run is dropped first (that attempt runs again), then new lines are
appended, so nothing is lost or written twice.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from pathlib import Path
from typing import IO, Any

import pytest

from ..campaign.metrics import aggregate
from ..campaign.signatures import signature
from ..core.bundle import __version__


def new_run_id() -> str:
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"


def read_results(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int]:
    """An earlier results file: its last manifest, its records, and the length of its complete lines.

    Only a cut-off last line is forgiven (a killed run leaves one); any other
    bad line is a usage error naming the file and line.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise pytest.UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    complete = data.rfind(b"\n") + 1
    manifest, records = None, []
    for number, line in enumerate(data[:complete].decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if "manifest" in item:
                manifest = item["manifest"]
            else:
                item["task"], item["attempt"], item["outcome"]
                records.append(item)
        except (ValueError, TypeError, KeyError):
            raise pytest.UsageError(f"{path}:{number}: not a line written by --tb-results") from None
    return manifest, records, complete


def attempt_key(record: dict[str, Any]) -> tuple[str, int]:
    return record["task"], int(record["attempt"])


def last_outcomes(records: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The latest record of each attempt (a re-run replaces the system error it re-ran)."""
    return {attempt_key(r): r for r in records}


def continued(config: pytest.Config) -> tuple[Path | None, str]:
    """The earlier results file this session continues (--tb-resume or --tb-rerun-errors), and why."""
    for option in ("tb_resume", "tb_rerun_errors"):
        value = config.getoption(option)
        if value:
            return Path(value), "--" + option.replace("_", "-")
    return None, ""


def selection(config: pytest.Config) -> tuple[str, set[tuple[str, int]]] | None:
    """Which attempts an earlier results file settles: ("skip", recorded) for --tb-resume,
    ("keep", errored) for --tb-rerun-errors; None when the session continues nothing."""
    path, option = continued(config)
    if path is None:
        return None
    _, records, _ = read_results(path)
    latest = last_outcomes(records)
    if option == "--tb-resume":
        return "skip", set(latest)
    return "keep", {key for key, r in latest.items() if r["outcome"] == "error"}


class Results:
    def __init__(self, config: pytest.Config, k: int, manifest: dict[str, Any]) -> None:
        self.config = config
        self.k = k
        self.records: list[dict[str, Any]] = []
        self._pending: dict[str, dict[str, Any]] = {}
        self._durations: dict[str, float] = {}
        results, aggregate_path, errors = (config.getoption(o) for o in ("tb_results", "tb_aggregate", "tb_errors"))
        self._continued, option = continued(config)
        if self._continued and option == "--tb-resume":
            results = results or str(self._continued)
            if Path(results).resolve() != self._continued.resolve():
                raise pytest.UsageError(f"--tb-resume {self._continued} appends to that file; leave out --tb-results")
        if self._continued and option == "--tb-rerun-errors" and not results:
            raise pytest.UsageError(
                f"--tb-rerun-errors {self._continued}: say where the new records go; --tb-results "
                f"{self._continued} appends them to the campaign's file"
            )
        self._results_path = Path(results) if results else None
        self._aggregate_path = Path(aggregate_path) if aggregate_path else None
        self._errors_path = Path(errors) if errors else None
        if self._errors_path and self._continued and self._errors_path.resolve() == self._continued.resolve():
            raise pytest.UsageError(f"--tb-errors {errors} is the file this session continues; name a new file")
        self._out: IO[str] | None = None
        self._errors: IO[str] | None = None
        self.validity: list[str] = []  # the --tb-validate report, once the session has finished
        self.gates: list[Any] = []  # GateResults, once the session has finished
        self.manifest = {"run": config.getoption("tb_run") or new_run_id(), **manifest, "plugin_version": __version__}
        self.manifest["started"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self._earlier: list[dict[str, Any]] = []
        if self._continued:
            self._continue(option)

    def _continue(self, option: str) -> None:
        """Take the earlier file's run id and check it graded the same bundle at the same k."""
        assert self._continued is not None
        earlier, _, _ = read_results(self._continued)
        if earlier is None:
            raise pytest.UsageError(f"{option} {self._continued}: it has no manifest line, so its run is unknown")
        if earlier.get("bundle") != self.manifest["bundle"]:
            raise pytest.UsageError(
                f"{option} {self._continued}: it graded bundle {earlier.get('bundle')}, but the tasks collected now "
                f"are bundle {self.manifest['bundle']}; the tasks changed since, so start a new campaign"
            )
        if earlier.get("k") != self.k:
            k = earlier.get("k")
            raise pytest.UsageError(f"{option} {self._continued}: it asked for k = {k}; pass --tb-repeat {k}")
        self.manifest["run"] = earlier["run"]
        self.manifest["started"] = earlier.get("started", self.manifest["started"])

    def pytest_sessionstart(self) -> None:
        if self._results_path:
            self._results_path.parent.mkdir(parents=True, exist_ok=True)
            # Continuing appends to an existing file, and never truncates what it recorded.
            appending = bool(self._continued and self._results_path.exists())
            if appending:
                _, records, complete = read_results(self._results_path)
                with self._results_path.open("r+b") as f:
                    f.truncate(complete)  # a line cut off by a killed run: that attempt runs again
                rerun = selection(self.config) or ("skip", set())
                again = rerun[1] if rerun[0] == "keep" else set()
                self._earlier = [r for key, r in last_outcomes(records).items() if key not in again]
            self._out = self._results_path.open("a" if appending else "w", encoding="utf-8")
            self._line(self._out, {"manifest": self.manifest})
        if self._errors_path:
            self._errors_path.parent.mkdir(parents=True, exist_ok=True)
            self._errors = self._errors_path.open("w", encoding="utf-8")
            self._line(self._errors, {"manifest": self.manifest})  # so --tb-rerun-errors can take this file
        self.records.extend(self._earlier)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        self._durations[nodeid] = self._durations.get(nodeid, 0.0) + report.duration
        record = getattr(report, "tb_record", None)
        if record is not None:
            # A later phase overrides an earlier one, except that a passed call stays
            # passed only if teardown also succeeded.
            self._pending[nodeid] = record
        if report.when != "teardown" or nodeid not in self._pending:
            return
        final = self._pending.pop(nodeid)
        final["duration_s"] = round(self._durations.pop(nodeid), 6)
        final.update(run=self.manifest["run"], bundle=self.manifest["bundle"], signature=signature(final))
        self._write(final)

    def _write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        if self._out:
            self._line(self._out, record)
        if self._errors and record["outcome"] == "error":
            self._line(self._errors, record)

    @staticmethod
    def _line(out: IO[str], item: dict[str, Any]) -> None:
        out.write(json.dumps(item, default=str) + "\n")
        out.flush()

    def aggregate(self) -> dict[str, Any]:
        return {**aggregate(self.records, self.k), "manifest": self.manifest}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.config.getoption("tb_validate") and self.records:
            from .validity import report_lines

            self.validity, valid = report_lines(self.records, verbose=self.config.getoption("verbose") > 0)
            if not valid and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # e.g. golden end states that differ
        self.manifest["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if self._out:
            self._line(self._out, {"manifest": self.manifest})
            self._out.close()
        if self._errors:
            self._errors.close()
        self._apply_gates(session)
        if self._aggregate_path and self.records:
            self._aggregate_path.parent.mkdir(parents=True, exist_ok=True)
            self._aggregate_path.write_text(json.dumps(self.aggregate(), indent=2) + "\n", encoding="utf-8")

    def _apply_gates(self, session: pytest.Session) -> None:
        """With --tb-gate, the aggregate sets the exit status, not each single attempt."""
        gates = self.config.stash.get(GATES, [])
        if not gates or session.exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return
        figures = self.aggregate()
        self.gates = [gate.evaluate(figures) for gate in gates]
        passed = all(result.ok for result in self.gates)
        session.exitstatus = pytest.ExitCode.OK if passed else pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.records:
            return
        from ..campaign.views.terminal import write_summary

        write_summary(terminalreporter, self.aggregate(), verbose=self.config.getoption("verbose") > 0)
        if self._earlier:
            terminalreporter.write_line(
                f"{len(self._earlier)} attempts come from {self._continued} (run {self.manifest['run']})."
            )
        if self.validity:
            terminalreporter.write_sep("=", "thinkingbox validity")
            for line in self.validity:
                terminalreporter.write_line(line)
        if self.gates:
            terminalreporter.write_sep("=", "thinkingbox gates")
            for result in self.gates:
                terminalreporter.write_line(result.line)


#: The parsed --tb-gate expressions.
GATES = pytest.StashKey[list[Any]]()
