"""The attempt record's type says what a results file holds: every field written is declared, and versions are read."""

from __future__ import annotations

import json

import pytest
from conftest import REFUND_TASK

from pytest_thinkingbox.campaign.attempt_record import RECORD_VERSION, AttemptRecord
from pytest_thinkingbox.campaign.records import ReportError, load

ERRING_TASK = """
def test_case_TY009_001(tb):
    raise RuntimeError("the task's own code broke")
"""


def test_every_field_a_campaign_writes_is_declared_and_the_manifest_says_the_version(toy):
    toy.makepyfile(test_tasks=REFUND_TASK + ERRING_TASK)
    toy.runpytest("--tb-agent", "flaky", "--tb-seed", "3", "--tb-repeat", "4", "--tb-results", "r.jsonl")
    lines = [json.loads(line) for line in (toy.path / "r.jsonl").read_text().splitlines()]
    manifests = [line["manifest"] for line in lines if "manifest" in line]
    records = [line for line in lines if "manifest" not in line]
    assert manifests
    assert {m["record_version"] for m in manifests} == {RECORD_VERSION}
    assert {r["outcome"] for r in records} == {"passed", "failed", "error"}  # every kind of record was written
    declared = set(AttemptRecord.__annotations__)
    for record in records:
        assert set(record) <= declared, set(record) - declared
        assert {"task", "attempt", "outcome"} <= set(record)


def _file(tmp_path, manifest):
    record = {"task": "t", "attempt": 1, "outcome": "passed", "run": "r1"}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"manifest": {"run": "r1", **manifest}}) + "\n" + json.dumps(record) + "\n")
    return path


def test_a_file_from_before_the_version_was_written_still_loads(tmp_path):
    [campaign] = load([_file(tmp_path, {"k": 1})])
    assert [r["task"] for r in campaign.records] == ["t"]


def test_a_file_of_a_later_record_version_is_refused_by_name(tmp_path):
    path = _file(tmp_path, {"k": 1, "record_version": RECORD_VERSION + 1})
    with pytest.raises(ReportError, match=rf"r.jsonl:1: .*record version {RECORD_VERSION + 1}.*upgrade"):
        load([path])
