"""A campaign is whole or says it is not: cut short, it never passes a gate; one results file has one writer.

Each test reproduces one way a campaign could look whole when it was not
(issue 44) and checks that it no longer can.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.campaign.writer import FileInUse, ResultsWriter

THREE_TASKS = "".join(REFUND_TASK.replace("TY001_001", f"TY001_00{i}") for i in (1, 2, 3))


def manifests(path):
    return [json.loads(line)["manifest"] for line in path.read_text().splitlines() if '"manifest"' in line]


# 1. a campaign cut short never passes its gates


def test_a_campaign_cut_short_by_maxfail_fails_its_gate_and_names_what_is_missing(toy):
    toy.makepyfile(test_tasks=THREE_TASKS)
    options = ["--tb-agent", "noop", "--tb-repeat", "2", "--maxfail", "1", "-p", "no:randomly"]
    result = toy.runpytest(*options, "--tb-gate", "pass@1>=0", "--tb-results", "r.jsonl", "--tb-aggregate", "a.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the gate's figure holds, but 5 of 6 attempts never ran
    result.stdout.fnmatch_lines(
        [
            "INCOMPLETE campaign: 5 of 6 expected attempts have no record (3 tasks: test_case_TY001_001, "
            "test_case_TY001_002, test_case_TY001_003); finish it with --tb-resume",
            "gate pass@1>=0: the campaign is incomplete: 5 of 6 expected attempts*-> FAILED",
        ]
    )
    figures = json.loads((toy.path / "a.json").read_text())
    assert figures["complete"] is False
    assert figures["expected"] == 6
    missing = {"test_case_TY001_001": [2], "test_case_TY001_002": [1, 2], "test_case_TY001_003": [1, 2]}
    assert figures["missing"] == missing


def test_allowing_an_incomplete_campaign_judges_the_gates_and_is_recorded(toy):
    toy.makepyfile(test_tasks=THREE_TASKS)
    options = ["--tb-agent", "noop", "--maxfail", "1", "-p", "no:randomly", "--tb-allow-incomplete"]
    # one task is reached: below the gates' default minimum of tasks, so the minimum is lowered to judge it
    result = toy.runpytest(*options, "--tb-gate", "pass@1>=0", "--tb-gate-min-tasks", "1", "--tb-results", "r.jsonl")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["INCOMPLETE campaign: 2 of 3 *(gates judged anyway: --tb-allow-incomplete)"])
    assert manifests(toy.path / "r.jsonl")[-1]["allow_incomplete"] is True


def test_a_worker_that_dies_and_is_not_restarted_leaves_a_campaign_that_fails_its_gate(toy):
    dies = "import os; os._exit(1)\n    account = "
    crash = REFUND_TASK.replace("TY001_001", "TY001_000").replace("account = ", dies)
    toy.makepyfile(test_a_crash=crash, test_tasks=THREE_TASKS)
    options = ["-n", "1", "--max-worker-restart", "0", "-p", "no:randomly", "--tb-results", "r.jsonl"]
    result = toy.runpytest_subprocess(*options, "--tb-gate", "errors<=10", "--tb-aggregate", "a.json")
    assert result.ret != pytest.ExitCode.OK
    figures = json.loads((toy.path / "a.json").read_text())
    assert figures["expected"] == 4
    assert not figures["complete"]
    assert sum(map(len, figures["missing"].values())) == 4 - len(read_records([toy.path / "r.jsonl"]))
    result.stdout.fnmatch_lines(["gate errors<=10: the campaign is incomplete: *-> FAILED"])


# 2. one results file, one writer


def test_a_second_campaign_on_the_same_results_file_is_refused_and_the_first_loses_nothing(toy):
    toy.makepyfile(test_tasks=THREE_TASKS)
    slow = "--tb-repeat", "40", "-p", "no:randomly", "--tb-results", "r.jsonl"
    first = subprocess.Popen([sys.executable, "-m", "pytest", *slow, "-q"], cwd=toy.path, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (toy.path / "r.jsonl").exists():
            time.sleep(0.05)
        second = toy.runpytest_subprocess("--tb-results", "r.jsonl")
    finally:
        assert first.wait(timeout=300) == 0
    assert second.ret == pytest.ExitCode.USAGE_ERROR
    second.stderr.fnmatch_lines(["*--tb-results r.jsonl: *r.jsonl is being written by another campaign (run *"])
    records = read_records([toy.path / "r.jsonl"])
    assert len(records) == 120
    assert len({(r["task"], r["attempt"]) for r in records}) == 120
    assert len(manifests(toy.path / "r.jsonl")) == 2  # its start and its end, nothing of the second


def test_the_lock_of_a_killed_writer_is_gone_with_it(tmp_path):
    path = tmp_path / "r.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"from pytest_thinkingbox.campaign.writer import ResultsWriter as W; "
         f"w = W(__import__('pathlib').Path({str(path)!r})); w.write({{'manifest': {{'run': 'held'}}}}); "
         "print('held', flush=True); import time; time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(FileInUse, match=r"is being written by another campaign \(run held\)"):
            ResultsWriter(path, append=True)
    finally:
        holder.kill()
        holder.wait()
    writer = ResultsWriter(path, append=True)  # the killed run's lock died with it
    writer.write({"c": 3})
    writer.close()
    assert path.read_text().splitlines()[-1] == '{"c": 3}'


# 5. resuming another selection, and output paths that cannot be opened


def test_resuming_with_another_selection_of_tasks_is_refused_and_appends_nothing(toy):
    toy.makepyfile(test_tasks=THREE_TASKS)
    toy.runpytest("--tb-results", "r.jsonl", "-k", "TY001_001 or TY001_002", "--maxfail", "1", "--tb-agent", "noop")
    before = (toy.path / "r.jsonl").read_bytes()
    result = toy.runpytest("--tb-resume", "r.jsonl", "--tb-agent", "noop")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--tb-resume r.jsonl: this session selects 1 attempts the campaign did not expect "
            "(test_case_TY001_003#1); resume with the same paths, -k, -m, --tb-tasks and --tb-repeat, "
            "or start a new results file*"
        ]
    )
    assert (toy.path / "r.jsonl").read_bytes() == before
    resumed = toy.runpytest("--tb-resume", "r.jsonl", "--tb-agent", "noop", "-k", "TY001_001 or TY001_002")
    resumed.assert_outcomes(failed=1)  # the attempt --maxfail left out
    assert len(read_records([toy.path / "r.jsonl"])) == 2


@pytest.mark.parametrize("option", ["--tb-results", "--tb-aggregate", "--tb-errors"])
def test_an_output_that_cannot_be_opened_is_refused_before_anything_runs(toy, option):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest(option, "/proc/self/not-a-file.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option} /proc/self/not-a-file.json: cannot write there (*"])
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


# 3. a task id names one task


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_one_task_id_in_two_files_is_refused_naming_both(toy, workers):
    toy.makepyfile(test_a=REFUND_TASK, test_b=REFUND_TASK)
    result = toy.runpytest_subprocess(*workers, "--tb-results", "r.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "task test_case_TY001_001 is defined in " in output
    assert "test_a.py and in " in output
    assert "test_b.py; results are kept by task id, so give each task its own name" in output
    assert not read_records([toy.path / "r.jsonl"])  # nothing ran
    toy.runpytest_subprocess(*workers, "-k", "test_a").assert_outcomes(passed=1)  # one of them selected: one task


# 6. an arrange step that differs per attempt


NONDETERMINISTIC_TASK = REFUND_TASK.replace("balance_cents=500", "balance_cents=__import__('random').randrange(10**9)")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_task_whose_arrange_step_differs_per_attempt_is_an_error_naming_it(toy, workers):
    toy.makepyfile(test_tasks=NONDETERMINISTIC_TASK)
    result = toy.runpytest_subprocess(*workers, "--tb-repeat", "6", "--tb-results", "r.jsonl", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    records = read_records([toy.path / "r.jsonl"])
    # Only the first attempt recorded stands: each worker refuses its later ones, the controller a worker's first.
    assert [r["outcome"] for r in records].count("passed") == 1
    errors = [r["error"] for r in records if r["outcome"] == "error"]
    assert len(errors) == 5
    assert all("arrange step is not deterministic" in e["message"] for e in errors)
    assert all(e["message"].startswith("test_case_TY001_001: attempt ") for e in errors)
