"""What a results file records about its run: the manifest, run ids, bundle hashes, signatures; and --tb-gate."""

from __future__ import annotations

import json

import pytest
from conftest import REFUND_TASK

from pytest_thinkingbox.campaign.records import read_records


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_results_file_starts_and_ends_with_the_manifest_of_its_run(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-repeat", "2", "--tb-agent", "noop", "--tb-seed", "5", "--tb-results", "r.jsonl")
    first, *records, last = lines(toy.path / "r.jsonl")
    start, end = first["manifest"], last["manifest"]
    assert start["run"] == end["run"]
    assert start["bundle"] == end["bundle"]
    assert len(start["bundle"]) == 16
    assert (start["agent"], start["user"], start["judge"], start["seed"], start["k"]) == (
        "noop",
        "scripted",
        "phrases",
        5,
        2,
    )
    assert start["models"] == {}
    assert start["prices"] == {}
    assert start["plugin_version"]
    assert "finished" not in start
    assert end["finished"] >= end["started"] == start["started"]
    for r in records:
        assert (r["run"], r["bundle"]) == (start["run"], start["bundle"])
        assert r["outcome"] == "failed"
        assert r["signature"] == "closed_without_write"


def test_the_bundle_hash_follows_the_task_sources_and_the_run_id_can_be_shared(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-results", "a.jsonl", "--tb-run", "shard-run")
    toy.runpytest("--tb-results", "b.jsonl", "--tb-run", "shard-run")
    a, b = lines(toy.path / "a.jsonl")[0]["manifest"], lines(toy.path / "b.jsonl")[0]["manifest"]
    assert a["run"] == b["run"] == "shard-run"
    assert a["bundle"] == b["bundle"]
    toy.makepyfile(test_tasks=REFUND_TASK.replace("40 dollars", "forty dollars"))
    toy.runpytest("--tb-results", "c.jsonl")
    c = lines(toy.path / "c.jsonl")[0]["manifest"]
    assert c["bundle"] != a["bundle"]
    assert c["run"] != a["run"]


def test_a_gate_sets_the_exit_status_from_the_aggregate_not_each_attempt(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    flaky = ["--tb-agent", "flaky", "--tb-seed", "7", "--tb-repeat", "10", "--tb-results", "r.jsonl"]
    flaky += ["--tb-gate-min-tasks", "1"]  # one task: below the gates' default minimum of 5
    result = toy.runpytest(*flaky, "--tb-gate", "pass@1>=0.3", "--tb-gate", "domain:toy:k/k<=1")
    records = read_records([toy.path / "r.jsonl"])
    passed = sum(r["outcome"] == "passed" for r in records)
    assert 3 <= passed < 10, "the flaky agent should fail some attempts and pass at least 3"
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"*gate pass@1>=0.3: {passed / 10:.3f} -> ok", "*gate domain:toy:k/k<=1: 0 -> ok"])
    result = toy.runpytest(*flaky, "--tb-gate", "pass^k>=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*gate pass^k>=0.5: 0.000 -> FAILED"])


def test_a_bad_gate_is_a_usage_error_before_any_task_runs(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-gate", "pass@2>=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-gate: bad gate expression 'pass@2>=0.5'*"])
