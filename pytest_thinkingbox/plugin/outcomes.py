"""One attempt's record: its outcome (pass, fail or error) and what the attempt did, as JSON.

An attempt passes when the test returns; an `AssertionError` is the agent's
failure; a `ThinkingboxError` (harness, endpoint or task definition) and any
other exception raised by the task's own code are errors, never counted as the
agent's failure in diagnostics.

`attempt_record` is the only place that writes a record's fields (on the
process that ran the attempt); `finished_record` adds what only the controller
knows (the run, the bundle, the summed phase durations) and the failure signature.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

import pytest

from ..campaign.attempt_record import AttemptRecord, result_fields
from ..core.errors import EndpointError, ThinkingboxError
from .roles import agent_name, role_name

if TYPE_CHECKING:
    from ..attempt import Attempt, AttemptResult

#: The domain of the item's task and its `tb` attempt, kept on the item until its record is made.
DOMAIN = pytest.StashKey[str]()
ATTEMPT: pytest.StashKey[Attempt] = pytest.StashKey()
#: Whether the test function returned (the `tb` fixture checks at teardown that it ran an episode).
CALL_PASSED = pytest.StashKey[bool]()
#: The --tb-validate verdict of the item's task (first attempts only).
VALIDATION = pytest.StashKey[dict[str, Any]]()

PASSED: Final = "passed"
FAILED: Final = "failed"
ERROR: Final = "error"


def classify(excinfo: pytest.ExceptionInfo[BaseException] | None, stage: str = "task") -> dict[str, Any]:
    """The outcome fields of a record for an attempt phase that raised `excinfo` (or not)."""
    if excinfo is None:
        return {"outcome": PASSED, "error": None, "failure": None}
    exc = excinfo.value
    if isinstance(exc, AssertionError):
        return {"outcome": FAILED, "error": None, "failure": _first_lines(str(exc))}
    kind = type(exc).__name__
    if isinstance(exc, ThinkingboxError):
        stage = getattr(exc, "stage", stage)
        if exc.__cause__ is not None:  # the endpoint's or the harness part's own error says more
            kind = type(exc.__cause__).__name__
    return {
        "outcome": ERROR,
        "error": {"stage": stage, "type": kind, "message": _first_lines(str(exc))},
        "failure": None,
    }


def _first_lines(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


def item_key(item: pytest.Item) -> tuple[str, int]:
    """The (task, attempt) an item runs, from its parametrization: the one source of the attempt number."""
    callspec = getattr(item, "callspec", None)
    return getattr(item, "originalname", item.name), callspec.params.get("_tb_attempt", 1) if callspec else 1


def attempt_record(item: pytest.Item, outcome: dict[str, Any]) -> AttemptRecord:
    """The JSON record of the attempt `item` runs: who ran it, the `AttemptResult`, the outcome.

    An attempt whose setup failed before the `tb` fixture made its attempt gets
    a record too (no domain, zero counts), so no attempt goes unrecorded.
    """
    attempt = item.stash.get(ATTEMPT, None)
    return _record(
        item.config,
        item_key(item),
        item.nodeid,
        domain=item.stash.get(DOMAIN, None),
        markers=sorted({m.name for m in item.iter_markers()} - {"parametrize"}),
        result=attempt.result if attempt is not None else None,
        validation=item.stash.get(VALIDATION, None),
        outcome=outcome,
    )


_NODE = re.compile(r"::(?P<task>[^:\[]+)\[(?:.*-)?attempt(?P<attempt>\d+)(?:-.*)?\]$")


def key_of_nodeid(nodeid: str) -> tuple[str, int] | None:
    """The (task, attempt) of an attempt's node id (as xdist reports them), or None for another test."""
    match = _NODE.search(nodeid)
    return (match["task"], int(match["attempt"])) if match else None


def crash_record(config: pytest.Config, nodeid: str, message: str) -> AttemptRecord | None:
    """The error record of an attempt whose xdist worker died while running it (None for other tests)."""
    key = key_of_nodeid(nodeid)
    if key is None:
        return None
    error = {"stage": "worker", "type": "WorkerCrashed", "message": message}
    return _record(config, key, nodeid, outcome={"outcome": ERROR, "error": error, "failure": None})


def _record(
    config: pytest.Config,
    key: tuple[str, int],
    nodeid: str,
    *,
    outcome: dict[str, Any],
    domain: str | None = None,
    markers: list[str] | None = None,
    result: AttemptResult | None = None,
    validation: dict[str, Any] | None = None,
) -> AttemptRecord:
    """The one place a record's fields are written, in the order the results file keeps them."""
    record: dict[str, Any] = {
        "task": key[0],
        "domain": domain,
        "attempt": key[1],
        "nodeid": nodeid,
        "agent": result.agent if result is not None and result.agent is not None else agent_name(config),
        "user": role_name(config, "user"),
        "judge": role_name(config, "judge"),
        "seed": config.getoption("tb_seed"),
        "markers": markers or [],
        "wrong": 0,
        "missing": 0,
        "extra": 0,
        "tool_calls": 0,
        "tool_errors": 0,
        "rules_broken": [],
    }
    if result is not None:
        record.update(result_fields(result))  # the counts in place, then what the attempt got to
    if validation is not None:
        record["validation"] = validation
    record.update(outcome)
    return cast(AttemptRecord, record)  # the fields `AttemptRecord` declares (tests/test_attempt_record.py checks)


def finished_record(record: AttemptRecord, duration_s: float, manifest: dict[str, Any]) -> AttemptRecord:
    """The record as the results file keeps it: with the phases' duration, the run, the bundle and the signature."""
    from ..campaign.signatures import signature

    final = {**record, "duration_s": round(duration_s, 6), "run": manifest["run"], "bundle": manifest["bundle"]}
    final["signature"] = signature(final)
    return cast(AttemptRecord, final)


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_of_endpoints(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """A model endpoint's failure is reported by its message (role, model, endpoint, retries, cause).

    Its traceback runs through the HTTP client and the event loop and says
    nothing a user can act on; rendering it costs a fifth of a second per
    attempt, which a campaign against a dead endpoint would pay hundreds of times.
    """
    excinfo = call.excinfo
    if excinfo is None or not isinstance(excinfo.value, EndpointError):
        return None  # other system errors (a custom agent's bug, a harness fault) keep their traceback
    short = copy.copy(call)
    short.excinfo = f"{excinfo.value.stage} endpoint error: {excinfo.value}"  # type: ignore[assignment]
    return pytest.TestReport.from_item_and_call(item, short)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if "_tb_attempt" not in getattr(item, "fixturenames", ()):
        return report
    if not report.skipped:
        _add_record(item, call, report)
    if call.when == "teardown":
        forget_attempt(item)  # its record is made: the item, kept all session, must not keep the transcript alive
    return report


def forget_attempt(item: pytest.Item) -> None:
    """Drop what the item's stash holds for its record (the attempt, with its transcript and database session)."""
    keys: tuple[pytest.StashKey[Any], ...] = (ATTEMPT, DOMAIN, CALL_PASSED, VALIDATION)
    for key in keys:
        if key in item.stash:
            del item.stash[key]


def _add_record(item: pytest.Item, call: pytest.CallInfo[None], report: Any) -> None:
    """Put the attempt's record on the report (`tb_record`) of its call, or of a setup or teardown that failed."""
    if call.when == "call":
        item.stash[CALL_PASSED] = report.passed
    if call.when == "call" or report.failed:
        stage = {"setup": "setup", "teardown": "teardown"}.get(call.when, "task")
        # Plain JSON types only, which xdist can send to the controller.
        report.tb_record = _plain(attempt_record(item, classify(call.excinfo, stage)))
        _name_rules(report)
        transcript = report.tb_record.get("transcript")
        if report.failed and transcript:
            text = transcript_text(transcript)
            # Shown beside the diff; JUnit XML carries it as a property (and as system-out with junit_logging).
            report.sections.append(("Captured stdout: what the agent did", text))
            item.user_properties.append(("thinkingbox_transcript", text))  # junitxml reads them at teardown


def _name_rules(report: Any) -> None:
    """A failure whose text does not name the policy rules its attempt broke gets them as a section of it.

    `expect_golden` names them already; a task's own assert does not. The
    section is part of the failure's text, so JUnit XML's ``<failure>`` has it too.
    """
    violations = report.tb_record.get("violations")
    failure = report.tb_record.get("failure") or ""
    if not report.failed or not violations or "policy rules broken" in failure:
        return
    from ..core.rules import Violation

    text = "\n".join(Violation(**v).explain() for v in violations)
    if hasattr(report.longrepr, "addsection"):
        report.longrepr.addsection("policy rules broken", text)


#: The fields of a record that the session still reads once the record is written: the aggregate and the
#: terminal table (task, domain, outcome), the status letter (outcome), the summary's notes (agent, error),
#: --tb-validate's report (hashes, and the validation of first attempts), the rules broken.
SUMMARY_FIELDS = (
    "task", "domain", "attempt", "agent", "outcome", "error", "start_hash", "end_hash", "rules_broken", "validation",
)  # fmt: skip


def record_summary(record: AttemptRecord) -> AttemptRecord:
    """What a written record leaves behind for the rest of the session: its `SUMMARY_FIELDS`."""
    fields: Mapping[str, Any] = record
    return cast(AttemptRecord, {name: fields[name] for name in SUMMARY_FIELDS if name in fields})


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Once every other plugin has had the report, its record shrinks to a summary.

    By then the controller's results keeper has the record and xdist has sent
    it from the worker; pytest's terminal reporter keeps every report to the
    end of the session, so a full record (its transcript) would stay in memory
    for each attempt run.
    """
    record = getattr(report, "tb_record", None)
    if record is not None:
        report.tb_record = record_summary(record)  # type: ignore[attr-defined]  # set by _add_record


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: Any) -> Generator[None, Any, Any]:
    """Under xdist a record crosses to the controller as one JSON string.

    execnet writes a nested dict item by item in Python: about 310 µs for a
    record with its transcript on the worker and 370 µs to read it back on the
    controller, both on the cores the sweep shares. A string goes in one piece
    (about 75 and 60 µs, JSON included).
    """
    data = yield
    if data is not None and isinstance(data.get("tb_record"), dict):
        data["tb_record"] = json.dumps(data["tb_record"])  # a copy of the report's fields: the report keeps its dict
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(config: pytest.Config, data: dict[str, Any]) -> Generator[None, Any, Any]:
    if isinstance(data.get("tb_record"), str):
        data["tb_record"] = json.loads(data["tb_record"])
    return (yield)


TEXT_LIMIT = 300  # characters of a message or tool result shown in a failure's transcript
SHOWN_LIMIT = 60  # messages shown; the rest is counted


def transcript_text(messages: list[dict[str, Any]]) -> str:
    """The episode as lines a person reads beside the diff: who said what, each tool call and its result."""

    def cut(text: Any) -> str:
        text = " ".join(str(text).split())
        return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + " ..."

    lines = []
    for m in messages[:SHOWN_LIMIT]:
        role = m.get("role")
        if role == "assistant" and m.get("tool_calls"):
            for c in m["tool_calls"]:
                lines.append(f"agent calls {c.get('tool')}({cut(json.dumps(c.get('arguments'), default=str))})")
        elif role == "tool":
            error = f" [{m['error']}]" if m.get("error") else ""
            lines.append(f"  -> {m.get('tool')}{error}: {cut(m.get('content'))}")
        elif m.get("content"):
            lines.append(f"{'agent' if role == 'assistant' else role}: {cut(m['content'])}")
    if len(messages) > SHOWN_LIMIT:
        lines.append(f"... {len(messages) - SHOWN_LIMIT} more messages (the record's transcript has them all)")
    return "\n".join(lines) + "\n"


def _plain(record: AttemptRecord) -> AttemptRecord:
    plain: AttemptRecord = json.loads(json.dumps(record, default=str))
    return plain


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    record = getattr(report, "tb_record", None)
    if record is not None and report.when == "call" and record["outcome"] == ERROR:
        return "error", "E", "ERROR"
    return None
