"""reward(task_id, trajectory): a task's checks as a 0/1 reward, outside pytest."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_thinkingbox import Call, call
from pytest_thinkingbox.campaign.records import read_records
from pytest_thinkingbox.core.errors import HarnessError
from pytest_thinkingbox.serve.reward import _worker, reward

DOMAINS = Path(__file__).resolve().parent.parent / "domains"

#: What a good agent does in RT001_003 (an exception 8 days old counts as lost: refund in full, ticket solved).
GOOD: list[Call | Mapping[str, Any]] = [
    call("find_customer_by_email", email="priya.nair@example.com"),
    call("issue_refund", order_id="O-5001", amount_cents=19_899, reason="lost_parcel", method="original"),
    {"name": "update_ticket", "arguments": {"ticket_id": "T-7001", "status": "solved", "category": "delivery"}},
]


def test_a_good_trajectory_earns_1_and_a_wrong_one_0_with_the_reason():
    assert reward("test_case_RT001_003", GOOD, root=DOMAINS).value == 1
    short = reward("test_case_RT001_003", GOOD[:1] + GOOD[2:], root=DOMAINS)  # solved without the refund
    assert short.value == 0
    assert "missing refunds[RF-0001]: row not created" in short.reason
    held = reward(
        "test_case_RT001_003", [*GOOD[:1], call("update_ticket", ticket_id="T-7001", status="hold")], root=DOMAINS
    )
    assert held.value == 0
    assert "tickets[T-7001].status: expected 'solved', got 'hold'" in held.reason


def test_later_rewards_of_a_task_write_its_arranged_rows_again_and_grade_the_same(monkeypatch):
    """A trainer grades many trajectories of one task: after the first, its arranged rows are not flushed again."""
    import pytest_thinkingbox.attempt.attempt as attempt_module

    written_again = []
    real = attempt_module.persist_unflushed

    def spy(*args, **kwargs):
        written_again.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(attempt_module, "persist_unflushed", spy)  # a spy: the real one still runs
    short = GOOD[:1] + GOOD[2:]
    first = reward("test_case_RT001_003", short, root=DOMAINS)
    later = [reward("test_case_RT001_003", short, root=DOMAINS) for _ in range(2)]
    assert first.value == 0
    assert later == [first, first]
    assert reward("test_case_RT001_003", GOOD, root=DOMAINS).value == 1
    assert len(written_again) >= 3  # every reward after the first (the first may follow another test's)


def test_unknown_tasks_and_malformed_steps_are_named():
    with pytest.raises(LookupError, match="no task 'test_case_XX999_001'"):
        reward("test_case_XX999_001", [], root=DOMAINS)
    with pytest.raises(ValueError, match="trajectory step 1"):
        reward("test_case_RT001_003", [{"arguments": {}}], root=DOMAINS)


def test_a_backend_failure_is_a_system_error_not_a_zero(monkeypatch):
    def broken(image):
        raise RuntimeError("disk full")

    monkeypatch.setattr(_worker().databases, "restore", broken)
    with pytest.raises(HarnessError, match="a fresh backend failed: RuntimeError: disk full") as raised:
        reward("test_case_RT001_003", GOOD, root=DOMAINS)
    assert raised.value.stage == "backend"


def test_a_full_trajectory_earns_1_on_a_rubric_task_and_its_tool_calls_alone_do_not(tmp_path):
    # RT001_001 asks the judge whether the agent told the customer why nothing is refunded yet.
    task = "test_case_RT001_001"
    results = tmp_path / "golden.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(DOMAINS / "retail"), "-q", "-p", "no:cacheprovider", "-k", task,
         "--tb-results", str(results)],
        capture_output=True, text=True, cwd=DOMAINS.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    [record] = read_records([results])
    transcript = record["transcript"]
    assert reward(task, transcript, root=DOMAINS).value == 1
    calls = [c for m in transcript if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    silent = reward(task, calls, root=DOMAINS)
    assert silent.value == 0
    assert "rubric failed" in silent.reason
    as_openai = [{"function": {"name": c["tool"], "arguments": json.dumps(c["arguments"])}} for c in calls]
    openai_form = [{"role": "assistant", "tool_calls": [c]} for c in as_openai]
    openai_form += [m for m in transcript if m["role"] == "assistant" and m.get("content")]
    assert reward(task, openai_form, root=DOMAINS).value == 1


def test_the_readme_import_is_the_function():
    readme = (DOMAINS.parent / "README.md").read_text(encoding="utf-8")
    assert "from pytest_thinkingbox import reward" in readme
    from pytest_thinkingbox import reward as documented

    assert documented is reward
