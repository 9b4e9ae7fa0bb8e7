"""A campaign's results file is the product: no silent merges, no invisible gaps, no lost files.

Each test reproduces one way a campaign went wrong (issue 17) and checks it no longer does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.campaign.records import ReportError, load
from pytest_thinkingbox.cli import main

TWO_TASKS = REFUND_TASK + REFUND_TASK.replace("TY001_001", "TY001_002")


def manifests(path: Path) -> list[dict]:
    return [json.loads(line)["manifest"] for line in path.read_text().splitlines() if '"manifest"' in line]


# 1. resume merges different runs


def test_resume_refuses_a_different_run_and_names_what_differs(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-agent", "flaky", "--tb-seed", "7", "--tb-repeat", "2", "--tb-results", "r.jsonl")
    result = toy.runpytest("--tb-agent", "noop", "--tb-seed", "99", "--tb-repeat", "2", "--tb-resume", "r.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--tb-resume r.jsonl: that run had agent 'flaky', seed 7; this session has agent 'noop', seed 99*"]
    )
    assert len(read_records([toy.path / "r.jsonl"])) == 2  # nothing appended


def test_the_manifest_carries_a_fingerprint_of_what_defines_the_run(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-results", "a.jsonl", "--tb-seed", "1")
    toy.runpytest("--tb-results", "b.jsonl", "--tb-seed", "1")
    toy.runpytest("--tb-results", "c.jsonl", "--tb-seed", "2")
    a, b, c = (manifests(toy.path / f"{n}.jsonl")[0]["fingerprint"] for n in "abc")
    assert a == b != c


def test_resume_and_rerun_errors_together_is_a_usage_error(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-results", "r.jsonl")
    result = toy.runpytest("--tb-resume", "r.jsonl", "--tb-rerun-errors", "r.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-resume and --tb-rerun-errors cannot be combined*"])


# 2. completeness cannot see tasks never reached


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_the_report_counts_tasks_never_reached_as_missing(toy, workers):
    toy.makepyfile(test_tasks=TWO_TASKS)
    toy.runpytest_subprocess(*workers, "--tb-repeat", "2", "--tb-results", "r.jsonl")
    results = toy.path / "r.jsonl"
    assert manifests(results)[0]["expected"] == {"test_case_TY001_001": 2, "test_case_TY001_002": 2}
    lines = results.read_text().splitlines()
    kept = [line for line in lines if "TY001_002" not in line or '"manifest"' in line]  # as if cut after task 1
    results.write_text("\n".join(kept[:-1]) + "\n")  # and without the closing manifest
    [run] = load([results])
    assert run.missing() == [("test_case_TY001_002", 1), ("test_case_TY001_002", 2)]
    assert main(["report", str(results), "--require-complete"]) == 1


def test_a_resumed_campaign_keeps_expecting_what_it_started_with(toy):
    toy.makepyfile(test_tasks=TWO_TASKS)
    toy.runpytest("--tb-results", "r.jsonl", "-k", "TY001_001")
    first = manifests(toy.path / "r.jsonl")[0]
    assert first["expected"] == {"test_case_TY001_001": 1}


# 3. output paths can destroy results


@pytest.mark.parametrize("other", ["--tb-aggregate", "--tb-errors"])
def test_two_outputs_on_one_file_are_refused_before_anything_runs(toy, other):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-results", "r.jsonl", other, "r.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{other} r.jsonl is also --tb-results; give each output its own file*"])
    assert not (toy.path / "r.jsonl").exists()


@pytest.mark.parametrize("option", ["--tb-results", "--tb-aggregate", "--tb-errors"])
def test_an_output_that_cannot_be_written_is_a_one_line_usage_error(toy, option):
    toy.makepyfile(test_tasks=REFUND_TASK)
    (toy.path / "taken").write_text("a file, not a folder")
    result = toy.runpytest(option, "taken/out.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option} taken/out.json: */taken is a file, so the folder cannot be made*"])
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


def test_an_output_that_is_a_folder_is_refused(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.mkdir("out")
    result = toy.runpytest("--tb-aggregate", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-aggregate out: cannot write there (it is a folder)*"])


# 6. a crashed xdist worker leaves its attempt without a record

CRASHING_TASK = """
import os
from pytest_thinkingbox import User, call

def test_case_TY009_001(tb):
    os._exit(1)  # the worker dies mid-attempt
"""


def test_a_crashed_worker_leaves_an_error_record_that_counts(toy):
    toy.makepyfile(test_tasks=REFUND_TASK, test_crash=CRASHING_TASK)
    result = toy.runpytest_subprocess("-n", "2", "--tb-results", "r.jsonl", "--tb-aggregate", "agg.json")
    records = {r["task"]: r for r in read_records([toy.path / "r.jsonl"])}
    crashed = records["test_case_TY009_001"]
    assert crashed["outcome"] == "error"
    assert crashed["error"]["stage"] == "worker"
    assert "crashed" in crashed["error"]["message"]
    assert json.loads((toy.path / "agg.json").read_text())["overall"]["errors"] == 1
    result.stdout.fnmatch_lines(["*overall*2*1*"])


# 9. task-definition mistakes that pass


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("pass", "*test_case_TY002_001 never calls tb.run*"),
        ('tb.run(User(says=""), golden=[])', "*test_case_TY002_001: User(says=...) needs the opening message*"),
        ("tb.run(User(says=None), golden=[])", "*test_case_TY002_001: User(says=...) needs the opening message*"),
        ('tb.run(User(says="hi", knows=["id"]), golden=[])', "*test_case_TY002_001: User(knows=...) takes a dict*"),
        ('tb.run(User(says="hi"), golden=call("get_account", account_id="A-1"))', "*golden= takes a list of call*"),
    ],
)
def test_a_task_written_wrongly_is_an_error_naming_it(toy, body, message):
    toy.makepyfile(
        test_bad=f"""
from pytest_thinkingbox import User, call

def test_case_TY002_001(tb):
    {body}
"""
    )
    result = toy.runpytest("--tb-agent", "noop", "--tb-results", "r.jsonl")
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["outcome"] == "error", record
    result.stdout.fnmatch_lines([message])


# 10. CLI messages


def test_report_on_an_empty_file_says_so(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["report", str(empty)]) == 2
    assert "no attempt records" in capsys.readouterr().err


def test_a_complete_line_that_is_not_json_is_not_called_cut_off(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"manifest": {"run": "r1"}}\nnot json\n')
    with pytest.raises(ReportError, match=r"r\.jsonl:2: not an attempt record: the line is not JSON") as error:
        load([path])
    assert "cut off" not in str(error.value)


def test_select_pool_refuses_a_group_size_of_zero(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["select-pool", str(tmp_path / "r.jsonl"), "--group-size", "0"])
    assert exit_.value.code == 2
    assert "--group-size: expected a whole number of at least 1, got '0'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("max_retries: 2.5", "agent.max_retries must be a whole number, got 2.5"),
        ("base_url: 12345", "agent.base_url must be text*got 12345"),
    ],
)
def test_model_config_values_of_the_wrong_type_are_usage_errors(toy, field, message):
    toy.makepyfile(test_tasks=REFUND_TASK)
    (toy.path / "models.yaml").write_text(f"agent: {{model: m, api_key_env: null, {field}}}\n")
    result = toy.runpytest("--tb-config", "models.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*models.yaml: {message}*"])
    assert "INTERNALERROR" not in result.stderr.str()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b'{"a": 1}\n{"b":', b'{"a": 1}\n{"c": 3}\n'),  # a line cut off by a kill is dropped
        (b'{"a": 1}', b'{"a": 1}\n{"c": 3}\n'),  # a whole line without its newline is kept and ended
        (b"", b'{"c": 3}\n'),
        (b'{"a": 1}\n', b'{"a": 1}\n{"c": 3}\n'),
    ],
)
def test_appending_keeps_every_whole_line_and_starts_on_a_new_one(tmp_path, before, after):
    from pytest_thinkingbox.campaign.writer import ResultsWriter

    path = tmp_path / "r.jsonl"
    path.write_bytes(before)
    writer = ResultsWriter(path, append=True)
    writer.write({"c": 3})
    writer.close()
    assert path.read_bytes() == after
