"""The results files of a session and its summary: per-attempt JSONL, the errors file, the aggregate.

`Results` is registered once, on the controller only (never on an xdist
worker). Records arrive on test reports, whichever process ran the attempt, so
the files and the summary are the same with and without ``-n``. Each JSONL line
is written and flushed when the attempt's teardown report arrives.

A results file starts with a manifest line (``{"manifest": {...}}``) and gets
another, with ``finished``, when the session ends. ``--tb-resume`` and
``--tb-rerun-errors`` continue an earlier file under its run id: it is read once
per process at configure; a line cut off by a killed run is dropped (that
attempt runs again), then new lines are appended, so nothing is lost or written
twice. `campaign/records.py` reads and writes the format.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from ..campaign.attempt_record import AttemptRecord, RecordedError
from ..campaign.records import DEFINING, expected_attempts, expected_keys, fingerprint
from ..campaign.writer import ResultsWriter
from ..core.bundle import __version__
from .attempts import REPEAT
from .continuation import CONTINUATION, Continuation, Key, _continuation, _read
from .gates import apply_gates
from .options import group
from .outcomes import ERROR, crash_record, finished_record, item_key, key_of_nodeid, record_summary
from .output_files import _writer, check_paths, manifest, new_run_id
from .shards import CAMPAIGN


def pytest_addoption(parser: pytest.Parser) -> None:
    options = group(parser)
    for option, metavar, text in (
        ("--tb-results", "PATH", "Write one JSON line per attempt to PATH. Default: not written."),
        (
            "--tb-aggregate",
            "PATH",
            "Write the aggregate figures (overall, per domain, per task) as JSON to PATH. Default: not written.",
        ),
        (
            "--tb-errors",
            "PATH",
            "Also write the records of system errors (endpoint, harness) to PATH, one JSON line each. "
            "Default: not written.",
        ),
        (
            "--tb-rerun-errors",
            "RESULTS",
            "Run only the attempts whose latest record in RESULTS (a --tb-results or --tb-errors file) is a "
            "system error; their new records go to --tb-results (give RESULTS to append). Default: off.",
        ),
        (
            "--tb-resume",
            "RESULTS",
            "Continue an interrupted campaign: skip the attempts RESULTS already records and append the rest "
            "to it, under the same run id. Default: off.",
        ),
        (
            "--tb-run",
            "ID",
            "Run id written into the results (give shards of one campaign the same id). Default: time + random.",
        ),
    ):
        options.addoption(option, dest=option[2:].replace("-", "_"), metavar=metavar, help=text)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[CONTINUATION] = _continuation(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Results(config), "thinkingbox-results")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--tb-resume and --tb-rerun-errors: leave out the attempts the earlier file settles."""
    earlier = config.stash[CONTINUATION]
    if earlier is None:
        return
    if earlier.option == "--tb-resume":
        keep = [item for item in items if item_key(item) not in earlier.latest]
    else:
        rerun = earlier.rerun
        keep = [item for item in items if item_key(item) in rerun]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


class Results:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.k = config.stash[REPEAT]
        self.records: list[AttemptRecord] = []  # a summary of each record written (outcomes.record_summary)
        self._pending: dict[str, AttemptRecord] = {}
        self._durations: dict[str, float] = {}
        results, aggregate_path, errors = (config.getoption(o) for o in ("tb_results", "tb_aggregate", "tb_errors"))
        self._continued = config.stash[CONTINUATION]
        option = self._continued.option if self._continued else ""
        path = self._continued.path if self._continued else None
        if path and option == "--tb-resume":
            results = results or str(path)
            if Path(results).resolve() != path.resolve():
                raise pytest.UsageError(f"--tb-resume {path} appends to that file; leave out --tb-results")
        if path and option == "--tb-rerun-errors" and not results:
            raise pytest.UsageError(
                f"--tb-rerun-errors {path}: say where the new records go; --tb-results {path} appends them to the "
                "campaign's file"
            )
        check_paths(config, path)
        self._results_path = Path(results) if results else None
        self._aggregate_path = Path(aggregate_path) if aggregate_path else None
        self._errors_path = Path(errors) if errors else None
        self._out: ResultsWriter | None = None
        self._errors: ResultsWriter | None = None
        self._appending = False
        self._refused = False  # --tb-resume of another selection: the file is left as it was
        self._starts: dict[str, tuple[int, str]] = {}  # per task: its first recorded attempt and start hash
        self.nondeterministic: list[str] = []  # attempts whose start differed from their task's first
        self.validity: list[str] = []  # the --tb-validate report, once the session has finished
        self.gates: list[Any] = []  # GateResults, once the session has finished
        self.manifest = {"run": config.getoption("tb_run") or new_run_id(), **manifest(config)}
        self.manifest["plugin_version"] = __version__
        self.manifest["started"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self.manifest["fingerprint"] = fingerprint(self.manifest)
        self._earlier: list[AttemptRecord] = []
        self._collected: set[Key] | None = None  # the attempts collected, once collection has finished
        if self._continued:
            self._continue(self._continued)
        # Opened (and locked) now, so that a second campaign on the same file is refused before anything runs.
        if self._results_path:
            # Continuing appends to the file it continues, and never truncates what it recorded.
            self._appending = bool(self._continued and self._results_path.exists())
            self._out = _writer(self._results_path, "--tb-results", append=self._appending)
        if self._errors_path:
            self._errors = _writer(self._errors_path, "--tb-errors")

    def _continue(self, earlier: Continuation) -> None:
        """Take the earlier file's run id and check it graded the same bundle at the same k."""
        option, path, manifest = earlier.option, earlier.path, earlier.manifest
        if manifest is None:
            raise pytest.UsageError(f"{option} {path}: it has no manifest line, so its run is unknown")
        if manifest.get("bundle") != self.manifest["bundle"]:
            raise pytest.UsageError(
                f"{option} {path}: it graded bundle {manifest.get('bundle')}, but the tasks collected now "
                f"are bundle {self.manifest['bundle']}; the tasks changed since, so start a new campaign"
            )
        if manifest.get("k") != self.k:
            k = manifest.get("k")
            raise pytest.UsageError(f"{option} {path}: it asked for k = {k}; pass --tb-repeat {k}")
        same = manifest.get("fingerprint", fingerprint(manifest)) == self.manifest["fingerprint"]
        differ = [] if same else [name for name in DEFINING if manifest.get(name) != self.manifest.get(name)]
        if differ:
            then = ", ".join(f"{name} {manifest.get(name)!r}" for name in differ)
            now = ", ".join(f"{name} {self.manifest.get(name)!r}" for name in differ)
            raise pytest.UsageError(
                f"{option} {path}: that run had {then}; this session has {now}. A continued campaign must be the "
                "same run: pass the same options, or start a new results file"
            )
        if manifest.get("shard") != self.manifest.get("shard"):
            was, asked = (m.get("shard") for m in (manifest, self.manifest))
            then = f"is shard {was['index']}/{was['count']}" if was else "is not a shard"
            fix = f"pass --tb-shard {was['index']}/{was['count']}" if was else "leave out --tb-shard"
            if was and asked:
                fix += f", not {asked['index']}/{asked['count']}"
            raise pytest.UsageError(f"{option} {path}: that file {then}; {fix}")
        self.manifest["expected"] = manifest.get("expected", {})
        if "campaign" in manifest:
            self.manifest["campaign"] = manifest["campaign"]
        self.manifest["run"] = manifest["run"]
        self.manifest["started"] = manifest.get("started", self.manifest["started"])

    def pytest_sessionstart(self) -> None:
        continued = self._continued
        if self._results_path and self._appending and continued:
            same = self._results_path.resolve() == continued.path.resolve()
            latest = continued.latest if same else _read(self._results_path, "--tb-results")[1]
            self._earlier = [r for key, r in latest.items() if key not in continued.rerun]
        self.records.extend(self._earlier)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Without xdist; under xdist the controller collects nothing and the workers report their ids.
        self._collection_known(
            item_key(item) for item in session.items if "_tb_attempt" in getattr(item, "fixturenames", ())
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self._collected is None:  # every worker collects the same attempts
            self._collection_known(key for key in map(key_of_nodeid, ids) if key is not None)

    def _collection_known(self, keys: Iterable[Key]) -> None:
        """Write the manifest line with the attempts this campaign expects, before any attempt's line."""
        self._collected = set(keys)
        self._check_selection(self._collected)
        self.manifest["expected"] = expected_attempts(expected_keys(self.manifest.get("expected")) | self._collected)
        self._note_campaign()
        self._write_manifest()

    def _check_selection(self, remaining: set[Key]) -> None:
        """--tb-resume continues the campaign the file started: the same attempts, none added or left out.

        The attempts already recorded were deselected, so the session still to run
        must be the campaign's expected attempts less those recorded.
        """
        earlier = self._continued
        if earlier is None or earlier.option != "--tb-resume" or not earlier.manifest:
            return
        expected = expected_keys(earlier.manifest.get("expected"))
        added = sorted(remaining - expected)
        dropped = sorted(expected - set(earlier.latest) - remaining)
        if not added and not dropped:
            return
        parts = []
        for keys, what in ((added, "selects {} attempts the campaign did not expect"), (dropped, "leaves out {}")):
            if keys:
                shown = ", ".join(f"{task}#{attempt}" for task, attempt in keys[:3]) + (" ..." if len(keys) > 3 else "")
                parts.append(what.format(len(keys)) + f" ({shown})")
        self._refused = True
        raise pytest.UsageError(
            f"--tb-resume {earlier.path}: this session {' and '.join(parts)}; resume with the same paths, -k, -m, "
            "--tb-tasks and --tb-repeat, or start a new results file"
        )

    def _note_campaign(self) -> None:
        """A shard's manifest lists the whole campaign it was cut from (under xdist, known once a worker ends)."""
        if self.manifest.get("shard") and CAMPAIGN in self.config.stash:
            campaign = expected_keys(self.manifest.get("campaign")) | expected_keys(self.config.stash[CAMPAIGN])
            self.manifest["campaign"] = expected_attempts(campaign)

    def _write_manifest(self) -> None:
        if self._out:
            self._out.write({"manifest": self.manifest})
        if self._errors:
            self._errors.write({"manifest": self.manifest})  # so --tb-rerun-errors can take this file

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        if report.when == "???":  # xdist: the worker died running it
            crashed = crash_record(self.config, nodeid, str(report.longrepr))
            if crashed is not None:
                self._pending.pop(nodeid, None)
                self._write(finished_record(crashed, self._durations.pop(nodeid, 0.0), self.manifest))
            return
        self._durations[nodeid] = self._durations.get(nodeid, 0.0) + report.duration
        record = getattr(report, "tb_record", None)
        if record is not None:
            # A later phase overrides an earlier one, except that a passed call stays
            # passed only if teardown also succeeded.
            self._pending[nodeid] = record
        if report.when != "teardown" or nodeid not in self._pending:
            return
        self._write(finished_record(self._pending.pop(nodeid), self._durations.pop(nodeid), self.manifest))

    def _write(self, record: AttemptRecord) -> None:
        record = self._same_start(record)
        self.records.append(record_summary(record))
        if self._out:
            self._out.write(record)
        if self._errors and record["outcome"] == ERROR:
            self._errors.write(record)

    def _same_start(self, record: AttemptRecord) -> AttemptRecord:
        """A record whose start state differs from its task's first recorded one is an error of the task.

        Each worker refuses such an attempt itself (`Attempt`); this catches
        attempts of one task that started from different states on different workers.
        """
        start = record.get("start_hash")
        if not start or record["outcome"] == ERROR:
            return record
        attempt, first = self._starts.setdefault(record["task"], (record["attempt"], start))
        if first == start:
            return record
        message = (
            f"{record['task']}: attempt {record['attempt']} started from another state than attempt {attempt} (start "
            f"hash {start}, not {first}), on another worker: the task's arrange step is not deterministic"
        )
        self.nondeterministic.append(message)
        error: RecordedError = {"stage": "task", "type": "NondeterministicStart", "message": message}
        return {**record, "outcome": ERROR, "error": error, "failure": None, "signature": None}

    def aggregate(self) -> dict[str, Any]:
        """The figures of every record so far, judged against every attempt the campaign expects."""
        from ..campaign.metrics import aggregate
        from ..campaign.rule_breaks import rule_figures

        self._name_agents()
        expected = expected_keys(self.manifest.get("expected")) if self._collected is not None else None
        figures = aggregate(self.records, self.k, expected)
        return {**figures, "rules": rule_figures(self.records), "manifest": self.manifest}

    def _name_agents(self) -> None:
        """The manifest names the agents the records ran (a custom agent is known only once it is built)."""
        names = sorted({r["agent"] for r in self.records if r.get("agent")})
        if names and names != [self.manifest["agent"]]:
            self.manifest["agent"] = ", ".join(names)

    def pytest_unconfigure(self) -> None:
        """Close (and unlock) the files, whether or not the session got to write its last line."""
        for writer in (self._out, self._errors):
            if writer is not None:
                writer.close()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._refused:
            return
        if self.config.getoption("tb_validate") and self.records:
            from .catalog import briefs
            from .validation_report import report_lines

            verbose = self.config.getoption("verbose") > 0
            self.validity, valid = report_lines(self.records, verbose=verbose, briefs=briefs(self.config))
            if not valid and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # e.g. golden end states that differ
        if self._collected is None:  # collection failed or found nothing: the start line still comes first
            self._collected = set()
            self._write_manifest()
        self._name_agents()
        self._note_campaign()
        self.manifest["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if self._out:
            self._out.write({"manifest": self.manifest})
            self._out.close()
        if self._errors:
            self._errors.close()
        self.gates = apply_gates(self.config, session, self.aggregate)
        if self.nondeterministic and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # no gate speaks for a task that is not one task
        if self._aggregate_path and self.records:
            # Written whole under another name, then moved over: a reader never sees half of it.
            self._aggregate_path.parent.mkdir(parents=True, exist_ok=True)
            partial = self._aggregate_path.with_name(f".{self._aggregate_path.name}.{os.getpid()}.partial")
            partial.write_text(json.dumps(self.aggregate(), indent=2) + "\n", encoding="utf-8")
            os.replace(partial, self._aggregate_path)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self._refused:
            return
        from ..campaign.views.terminal import write_summary

        figures = self.aggregate()
        if self.records:
            write_summary(terminalreporter, figures, verbose=self.config.getoption("verbose") > 0)
        if figures["missing"]:
            from ..campaign.gates import incomplete_phrase

            allowed = " (gates judged anyway: --tb-allow-incomplete)" if self.manifest.get("allow_incomplete") else ""
            terminalreporter.write_line(
                f"INCOMPLETE campaign: {incomplete_phrase(figures)}; finish it with --tb-resume{allowed}"
            )
        if not self.records:
            return
        for message in self.nondeterministic:
            terminalreporter.write_line(f"ERROR {message}")
        errors = [error for r in self.records if (error := r.get("error"))]
        down = Counter(e["stage"] for e in errors if e.get("type") == "BreakerOpen")
        for stage, count in sorted(down.items()):
            terminalreporter.write_line(
                f"The {stage} endpoint was down: {count} attempts were recorded as system errors without calling "
                "it; re-run them with --tb-rerun-errors once it is back."
            )
        shard = self.manifest.get("shard")
        if shard:
            terminalreporter.write_line(
                f"These figures are shard {shard['index']}/{shard['count']} of run {self.manifest['run']} only; "
                "merge every shard's results with `thinkingbox report`."
            )
        if self._earlier:
            assert self._continued is not None
            terminalreporter.write_line(
                f"{len(self._earlier)} attempts come from {self._continued.path} (run {self.manifest['run']})."
            )
        if self.validity:
            terminalreporter.write_sep("=", "thinkingbox validity")
            for line in self.validity:
                terminalreporter.write_line(line)
        if self.gates:
            terminalreporter.write_sep("=", "thinkingbox gates")
            for result in self.gates:
                terminalreporter.write_line(result.line)
