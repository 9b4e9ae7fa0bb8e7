"""The controller's record keeper: per-attempt JSONL, the aggregate, the summary.

Registered once, on the controller only (never on an xdist worker). Records
arrive on test reports, whichever process ran the attempt, so the files and
the summary are the same with and without ``-n``. Each JSONL line is written
and flushed when the attempt's teardown report arrives.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import IO, Any

import pytest

from . import __version__
from .metrics import aggregate


class Results:
    def __init__(self, config: pytest.Config, k: int, agent: str, user: str) -> None:
        self.config = config
        self.k = k
        self.records: list[dict[str, Any]] = []
        self._pending: dict[str, dict[str, Any]] = {}
        self._durations: dict[str, float] = {}
        results, aggregate_path = config.getoption("tb_results"), config.getoption("tb_aggregate")
        self._results_path = Path(results) if results else None
        self._aggregate_path = Path(aggregate_path) if aggregate_path else None
        self._out: IO[str] | None = None
        self.validity: list[str] = []  # the --tb-validate report, once the session has finished
        self.manifest = {
            "plugin_version": __version__,
            "agent": agent,
            "user": user,
            "seed": config.getoption("tb_seed"),
            "k": k,
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }

    def pytest_sessionstart(self) -> None:
        if self._results_path:
            self._results_path.parent.mkdir(parents=True, exist_ok=True)
            self._out = self._results_path.open("w", encoding="utf-8")

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
        self._write(final)

    def _write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        if self._out:
            self._out.write(json.dumps(record, default=str) + "\n")
            self._out.flush()

    def aggregate(self) -> dict[str, Any]:
        return {**aggregate(self.records, self.k), "manifest": self.manifest}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.config.getoption("tb_validate") and self.records:
            from .report.validity import report_lines

            self.validity, valid = report_lines(self.records, verbose=self.config.getoption("verbose") > 0)
            if not valid and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # e.g. golden end states that differ
        if self._out:
            self._out.close()
        self.manifest["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if self._aggregate_path and self.records:
            self._aggregate_path.parent.mkdir(parents=True, exist_ok=True)
            self._aggregate_path.write_text(json.dumps(self.aggregate(), indent=2) + "\n", encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.records:
            return
        from .report.terminal import write_summary

        write_summary(terminalreporter, self.aggregate(), verbose=self.config.getoption("verbose") > 0)
        if self.validity:
            terminalreporter.write_sep("=", "thinkingbox validity")
            for line in self.validity:
                terminalreporter.write_line(line)
