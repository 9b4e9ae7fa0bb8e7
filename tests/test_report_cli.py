"""`thinkingbox report`: reading results files, merging shards, completeness, signatures, gates, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scipy import stats  # type: ignore[import-untyped]  # no stubs installed for scipy

from pytest_thinkingbox.campaign.records import ReportError, load, read_records
from pytest_thinkingbox.campaign.report import build_report, labels
from pytest_thinkingbox.cli import main


def manifest(run: str = "r1", bundle: str = "b1", k: int = 2, **extra: Any) -> dict[str, Any]:
    """A manifest line as the plugin writes it at the start (and, with `finished`, at the end) of a session."""
    return {
        "manifest": {
            "run": run,
            "bundle": bundle,
            "plugin_version": "0.1.0",
            "agent": "flaky",
            "user": "scripted",
            "judge": "phrases",
            "models": {},
            "prices": {},
            "seed": 0,
            "k": k,
            "started": "2026-11-30T02:00:00+00:00",
            **extra,
        }
    }


def record(
    task: str,
    attempt: int,
    outcome: str = "passed",
    run: str | None = "r1",
    bundle: str | None = "b1",
    domain: str = "retail",
    **extra: Any,
) -> dict[str, Any]:
    """An attempt record with the fields the report reads."""
    failed = outcome == "failed"
    return {
        "run": run,
        "bundle": bundle,
        "task": task,
        "domain": domain,
        "attempt": attempt,
        "agent": "flaky",
        "outcome": outcome,
        "signature": "wrong_value" if failed else None,
        "wrong": int(failed),
        "missing": 0,
        "extra": 0,
        "transcript": [],
        **extra,
    }


def write(path: Path, *lines: object, tail: str = "") -> Path:
    """A results file: one JSON object per line, then `tail` (e.g. a cut-off line)."""
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + tail, encoding="utf-8")
    return path


def report(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """Run `thinkingbox report ARGS` and return (exit code, stdout, stderr)."""
    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_two_shards_of_one_run_merge_into_one_complete_run(tmp_path, capsys):
    a = write(
        tmp_path / "a.jsonl", manifest(started="2026-11-30T03:00:00+00:00"), record("t1", 1), record("t2", 1, "failed")
    )
    b = write(
        tmp_path / "b.jsonl",
        manifest(started="2026-11-30T02:00:00+00:00"),
        record("t1", 2),
        record("t2", 2),
        manifest(started="2026-11-30T02:00:00+00:00", finished="2026-11-30T04:00:00+00:00"),
    )
    runs = load([a, b])
    assert [r.id for r in runs] == ["r1"]
    assert runs[0].files == [str(a), str(b)]
    assert runs[0].manifest is not None
    assert runs[0].manifest["started"] == "2026-11-30T02:00:00+00:00"  # the earliest start
    assert runs[0].manifest["finished"] == "2026-11-30T04:00:00+00:00"  # from the last manifest line
    doc = build_report(runs)
    run = doc["runs"][0]
    # t1 passed 2/2, t2 passed 1/2: pass@1 = (1 + 0.5) / 2 = 0.75; observed 2/2 = 1 task;
    # pass^2 = (C(2,2)/C(2,2) + C(1,2)/C(2,2)) / 2 = 0.5; flaky: t2 (1 of 2); gap = pass@2 - pass^2 = 0.5
    # standard errors: sd(1, 0.5) / sqrt(2) = 0.25 for pass@1, sd(1, 0) / sqrt(2) = 0.5 for pass^2
    overall = run["aggregate"]["overall"]
    assert overall["pass@1"] == pytest.approx(0.75)
    assert overall["all_k"] == 1
    assert overall["flaky"] == 1
    assert overall["pass^k"] == pytest.approx(0.5)
    assert overall["consistency_gap"] == pytest.approx(0.5)
    assert overall["pass@1_se"] == pytest.approx(0.25)
    assert overall["pass^k_se"] == pytest.approx(0.5)
    assert run["complete"]
    assert run["missing"] == []
    assert run["missing_count"] == 0
    code, out, _ = report(capsys, a, b)
    assert code == 0
    assert "run r1: flaky  (bundle b1" in out
    assert "complete: 2 tasks x 2 attempts" in out
    assert "finished 2026-11-30T04:00:00+00:00" in out
    assert "overall      2         4  0.750 ±0.250  1.000 ±0.000  0.500 ±0.500    1      1  0.500 ±0.500       0" in out
    assert "per-task pass rates of the 1 tasks not solved 2 of 2 (Jeffreys 95% interval):" in out
    assert run["task_rates"]["t2"]["ci95"] == pytest.approx(list(stats.beta.ppf([0.025, 0.975], 1.5, 1.5)))


def test_missing_attempts_are_counted_and_require_complete_fails(tmp_path, capsys):
    # k = 3 requested; t1 has all 3, t2 only attempt 1: expected 2 x 3 = 6 keys, 2 missing
    path = write(tmp_path / "r.jsonl", manifest(k=3), *(record("t1", i) for i in (1, 2, 3)), record("t2", 1))
    run = build_report(load([path]))["runs"][0]
    assert not run["complete"]
    assert run["missing"] == [["t2", 2], ["t2", 3]]
    assert run["missing_count"] == 2
    assert run["aggregate"]["incomplete"] == {"t2": 1}
    code, out, err = report(capsys, path)
    assert code == 0
    assert "t2#2, t2#3" in out
    assert "incomplete: 2 of 6 expected attempts missing, in 1 tasks (0 never reached)" in out
    code, out, err = report(capsys, path, "--require-complete")
    assert code == 1
    assert "run r1 is incomplete: 2 attempts missing (--require-complete)" in err


def test_without_a_manifest_k_is_the_most_attempts_seen(tmp_path):
    old = [{k: v for k, v in record("t1", i).items() if k not in ("run", "bundle", "signature")} for i in (1, 2, 3)]
    path = write(tmp_path / "old.jsonl", *old, {"task": "t2", "attempt": 2, "outcome": "passed"})
    (run,) = load([path])
    assert run.id == "(unknown)"
    assert run.k == 3
    assert run.missing() == [("t2", 1), ("t2", 3)]


def test_old_failed_records_get_their_signature_computed(tmp_path):
    bare = {"task": "t1", "attempt": 1, "domain": "retail", "outcome": "failed", "end_reason": "max_steps"}
    path = write(
        tmp_path / "old.jsonl",
        bare,
        record("t1", 2, "failed", run=None, bundle=None),
        record("t2", 1, "failed", domain="travel", run=None, bundle=None),
    )
    doc = build_report(load([path]))
    sig = doc["runs"][0]["signatures"]
    assert doc["runs"][0]["records"][0]["signature"] == "limit_reached"
    assert sig["overall"] == {"limit_reached": 1, "wrong_value": 2}  # in rule order
    assert sig["domains"] == {"retail": {"limit_reached": 1, "wrong_value": 1}, "travel": {"wrong_value": 1}}
    assert sig["examples"]["wrong_value"] == [["t1", 2], ["t2", 1]]
    assert doc["signature_order"][0] == "limit_reached"
    assert len(doc["signature_order"]) == 10


def test_signature_shares_are_printed_per_run_and_domain(tmp_path, capsys):
    recs = [
        record("t1", 1, "failed"),
        record("t1", 2, "failed", signature="extra_effect"),
        record("t2", 1, "failed", domain="travel"),
        record("t2", 2, "failed", domain="travel"),
    ]
    code, out, _ = report(capsys, write(tmp_path / "r.jsonl", manifest(), *recs))
    assert code == 0
    assert "failure signatures (4 failed attempts" in out
    # wrong_value: 3 of 4 failed attempts; retail 1 of 2, travel 2 of 2
    assert "wrong_value        3    75%     50%    100%" in out
    assert "e.g. t1#1, t2#1, t2#2" in out


def test_truncated_last_line_says_the_file_looks_cut_off(tmp_path, capsys):
    path = write(tmp_path / "cut.jsonl", manifest(), record("t1", 1), tail='{"run": "r1", "task": "t1", "att')
    with pytest.raises(ReportError, match=r"cut\.jsonl:3: .*cut off.*interrupted run.*--tb-resume"):
        load([path])
    code, _, err = report(capsys, path)
    assert code == 2
    assert f"{path}:3: not an attempt record: the last line is cut off" in err


def test_a_bad_line_before_the_end_is_not_called_cut_off(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("garbage\n" + json.dumps(record("t1", 1)) + "\n")
    with pytest.raises(ReportError, match=r"bad\.jsonl:1: not an attempt record: the line is not JSON") as err:
        load([path])
    assert "cut off" not in str(err.value)


def test_a_record_missing_required_keys_is_named(tmp_path):
    path = write(tmp_path / "r.jsonl", manifest(), {"task": "t1", "outcome": "passed"})
    with pytest.raises(ReportError, match=r"r\.jsonl:2: not an attempt record: no 'attempt'"):
        load([path])
    write(path, {"task": "t1", "attempt": 1, "outcome": "skipped"})
    with pytest.raises(ReportError, match=r"r\.jsonl:1: outcome 'skipped' is not one of passed, failed, error"):
        load([path])


def test_a_line_from_another_bundle_names_the_line_and_the_manifest(tmp_path, capsys):
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2, bundle="b2"))
    code, _, err = report(capsys, path)
    assert code == 2
    assert f"{path}:3: this attempt is from bundle b2, but run r1 is bundle b1 (see {path}:1)" in err


def test_a_resumed_run_with_another_bundle_is_refused(tmp_path):
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), manifest(bundle="b9"))
    with pytest.raises(ReportError, match=r"r\.jsonl:3: run r1 resumed with bundle b9, but .*r\.jsonl:1 started"):
        load([path])


def test_duplicate_keys_name_both_places(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", manifest(), record("t1", 1), record("t1", 2))
    b = write(tmp_path / "b.jsonl", record("t1", 2, "failed"))
    code, _, err = report(capsys, a, b)
    assert code == 2
    assert f"{b}:1: duplicate attempt (run r1, task t1, attempt 2), first written at {a}:3" in err


def test_a_rerun_system_error_replaces_the_error_record(tmp_path, capsys):
    # --tb-rerun-errors appends the new record of an attempt that ended in a system error to the same file
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2, "error"), record("t1", 2))
    (run,) = load([path])
    assert [r["outcome"] for r in run.records] == ["passed", "passed"]
    assert run.where[1] == f"{path}:4"
    code, out, _ = report(capsys, path)
    assert code == 0
    assert "1 system errors were run again (--tb-rerun-errors)" in out
    assert "overall      1         2   1.000   1.000   1.000    1      0  0.000       0" in out  # one task: no ±


def test_runs_of_different_bundles_need_allow_mixed_bundles(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", manifest(), record("t1", 1), record("t1", 2))
    b = write(
        tmp_path / "b.jsonl",
        manifest("r2", "b2"),
        record("t1", 1, run="r2", bundle="b2"),
        record("t1", 2, "failed", run="r2", bundle="b2"),
    )
    code, _, err = report(capsys, a, b)
    assert code == 2
    assert "runs of different bundles cannot be compared" in err
    assert f"r1 ({a}): bundle b1; r2 ({b}): bundle b2" in err
    assert "--allow-mixed-bundles" in err
    code, out, _ = report(capsys, a, b, "--allow-mixed-bundles")
    assert code == 0
    assert "run r1: flaky  (bundle b1" in out
    assert "run r2: flaky  (bundle b2" in out


def test_labels_use_the_model_and_add_the_run_id_only_when_ambiguous(tmp_path):
    a = write(tmp_path / "a.jsonl", manifest("r1", agent="openai:gpt-x"), record("t1", 1))
    b = write(tmp_path / "b.jsonl", manifest("r2"), record("t1", 1, run="r2"))
    assert labels(load([a, b])) == {"r1": "gpt-x", "r2": "flaky"}


def test_gates_set_the_exit_status(tmp_path, capsys):
    path = write(
        tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2), record("t2", 1), record("t2", 2, "failed")
    )
    # pass@1 = (2/2 + 1/2) / 2 = 0.75; observed 2/2 = 1 task; 2 tasks, so the minimum of tasks is lowered
    least = ("--gate-min-tasks", "2")
    code, out, _ = report(capsys, path, "--gate", "pass@1>=0.7", "--gate", "k/k >= 1", *least)
    assert code == 0
    assert out.count("-> ok") == 2
    code, out, _ = report(capsys, path, "--gate", "pass@1>=0.8", *least)
    assert code == 1
    assert "flaky: gate pass@1>=0.8: 0.750 -> FAILED" in out
    code, out, _ = report(capsys, path, "--gate", "pass@1>=0.7")
    assert code == 1
    assert "pass@1 is over 2 tasks, fewer than the 5 a gate needs" in out


def test_a_gate_on_the_lower_bound_fails_four_of_five(tmp_path, capsys):
    # 4 tasks pass every attempt, 1 fails every attempt: pass@1 = 0.8, but its lower 95% bound is far below
    recs = [record(f"t{i}", a, "failed" if i == 4 else "passed") for i in range(5) for a in (1, 2)]
    path = write(tmp_path / "r.jsonl", manifest(), *recs)
    low, _ = stats.t.interval(0.95, 4, loc=0.8, scale=stats.sem([1, 1, 1, 1, 0]))
    code, out, _ = report(capsys, path, "--gate", "pass@1>=0.8", "--gate", "pass@1.lcb95>=0.8")
    assert code == 1
    assert "flaky: gate pass@1>=0.8: 0.800 -> ok" in out
    assert (
        f"flaky: gate pass@1.lcb95>=0.8: {low:.3f} (pass@1 0.800, 95% interval [{low:.3f}, 1.000] over 5 tasks)"
        " -> FAILED"
    ) in out


def test_an_unknown_gate_expression_is_bad_input(tmp_path, capsys):
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1))
    code, out, err = report(capsys, path, "--gate", "speed>=3")
    assert code == 2
    assert err.startswith("thinkingbox report: --gate 'speed>=3': ")
    assert out == ""


def test_unreadable_file_is_bad_input(tmp_path, capsys):
    code, _, err = report(capsys, tmp_path / "nope.jsonl")
    assert code == 2
    assert f"{tmp_path / 'nope.jsonl'}: cannot read it" in err


def test_json_output_is_the_report_document(tmp_path, capsys):
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2, "failed"))
    code, out, _ = report(capsys, path, "--json", tmp_path / "out" / "doc.json")
    doc = json.loads((tmp_path / "out" / "doc.json").read_text())
    assert code == 0
    assert "report document written to" in out
    assert set(doc) == {"runs", "frontier", "signature_order"}
    run = doc["runs"][0]
    assert {
        "id",
        "label",
        "manifest",
        "aggregate",
        "complete",
        "missing",
        "missing_count",
        "cost",
        "signatures",
        "records",
    } <= set(run)
    assert run["cost"] is None
    assert doc["frontier"] == {"per_success": [], "per_dependable": []}
    assert [r["signature"] for r in run["records"]] == [None, "wrong_value"]


def test_html_output_is_written(tmp_path, capsys):
    pytest.importorskip("pytest_thinkingbox.campaign.views.html", reason="report/html.py is written by another change")
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2, "failed"))
    code, _out, _ = report(capsys, path, "--html", tmp_path / "report.html")
    assert code == 0
    assert (tmp_path / "report.html").read_text().lstrip().lower().startswith("<!doctype html")


def test_select_pool_reads_records_and_skips_manifest_lines(tmp_path):
    path = write(tmp_path / "r.jsonl", manifest(), record("t1", 1), record("t1", 2, "failed"))
    assert [(r["task"], r["outcome"]) for r in read_records([path])] == [("t1", "passed"), ("t1", "failed")]
