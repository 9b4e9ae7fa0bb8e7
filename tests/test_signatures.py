"""Failure signatures on crafted attempt records: each rule wins on its own case, and the order holds."""

from __future__ import annotations

import json

import pytest

from pytest_thinkingbox.campaign.signatures import LABELS, describe, signature


def _tool(tool, content="", error=None):
    if error and not content:
        content = json.dumps({"error": {"code": error, "message": "..."}})
    return {"role": "tool", "call_id": "c", "tool": tool, "content": content, "error": error}


def _call(tool):
    return {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "tool": tool, "arguments": {}}]}


def _record(*tool_results, **fields):
    """A failed attempt whose agent wrote something, with no difference, unless `fields` say otherwise."""
    transcript = [{"role": "user", "content": "help me"}]
    for result in tool_results:
        transcript += [_call(result["tool"]), result]
    transcript.append({"role": "assistant", "content": "done"})
    record = {
        "task": "test_case_X",
        "attempt": 1,
        "outcome": "failed",
        "end_reason": "agent_end",
        "start_hash": "s",
        "end_hash": "e",
        "golden_hash": "g",
        "wrong": 0,
        "missing": 0,
        "extra": 0,
        "differences": [],
        "transcript": transcript,
        "rubric": [],
    }
    record.update(fields)
    return record


ORDER = _tool("get_order", '{"id": "O-1"}')

CASES = {
    "limit_reached": _record(ORDER, end_reason="max_turns"),
    "precondition_unrecovered": _record(ORDER, _tool("issue_refund", error="PRECONDITION_FAILED")),
    "empty_lookup_unrecovered": _record(_tool("list_customer_orders", "[]"), missing=1),
    "tool_error_unrecovered": _record(_tool("update_ticket", error="INVALID_ARGUMENT")),
    "closed_without_write": _record(ORDER, end_hash="s", missing=1),
    "wrong_value": _record(ORDER, wrong=1, missing=1, extra=1),
    "missing_effect": _record(ORDER, missing=2, extra=1),
    "extra_effect": _record(ORDER, extra=1),
    "rubric_failed": _record(ORDER, rubric=[{"question": "q", "answer": "no", "reason": "r", "passed": False}]),
    "assertion_failed": _record(ORDER, rubric=[{"question": "q", "answer": "yes", "reason": "r", "passed": True}]),
}


def test_every_label_has_a_case_and_a_description():
    assert tuple(CASES) == LABELS
    assert len(set(LABELS)) == 10
    for label in LABELS:
        text = describe(label)
        assert text.endswith("."), label
        assert len(text) < 130, label


@pytest.mark.parametrize("label", LABELS)
def test_each_rule_wins_on_its_own_case(label):
    assert signature(CASES[label]) == label


@pytest.mark.parametrize("reason", ["max_steps", "max_turns", "time_limit"])
def test_a_limit_beats_a_tool_error_and_a_diff(reason):
    record = _record(_tool("update_ticket", error="INTERNAL"), end_reason=reason, wrong=1, end_hash="s")
    assert signature(record) == "limit_reached"


def test_an_unrecovered_precondition_beats_a_wrong_value_and_later_tool_errors():
    record = _record(
        _tool("issue_refund", error="CONFLICT"),
        _tool("get_order", error="NOT_FOUND"),
        _tool("update_ticket", error="INVALID_ARGUMENT"),
        wrong=1,
    )
    assert signature(record) == "precondition_unrecovered"


def test_an_empty_lookup_beats_a_generic_tool_error_and_not_found_counts_as_empty():
    record = _record(_tool("update_ticket", error="UNKNOWN_TOOL"), _tool("get_ticket", error="NOT_FOUND"), missing=1)
    assert signature(record) == "empty_lookup_unrecovered"


@pytest.mark.parametrize("content", ["[]", "{}", "null", "", "   ", " [ ] "])
def test_every_empty_form_is_an_empty_lookup(content):
    assert signature(_record(_tool("find_customer_by_email", content), missing=1)) == "empty_lookup_unrecovered"


def test_an_empty_answer_is_a_cause_only_when_the_attempt_fell_short():
    # "No earlier refunds" is often the right answer: with every effect made, the wrong value is the cause.
    assert signature(_record(_tool("list_refunds", "[]"), wrong=1)) == "wrong_value"
    assert signature(_record(_tool("list_refunds", "[]"), extra=1)) == "extra_effect"
    assert signature(_record(_tool("list_refunds", "[]"), end_hash="s")) == "empty_lookup_unrecovered"
    assert signature(_record(_tool("get_order", error="NOT_FOUND"), wrong=1)) == "empty_lookup_unrecovered"


def test_content_that_only_looks_empty_is_not():
    for content in ["[0]", '{"items": []}', "not json", "0", "false", "nothing"]:
        assert signature(_record(_tool("find_customer_by_email", content), wrong=1)) == "wrong_value", content


def test_a_recovered_error_falls_through_to_the_state_rules():
    record = _record(
        _tool("issue_refund", error="PRECONDITION_FAILED"),
        _tool("update_ticket", error="INVALID_ARGUMENT"),
        _tool("get_order", error="NOT_FOUND"),
        _tool("get_order", "[]"),  # still empty: not yet recovered
        _tool("issue_refund", '{"id": "R-1"}'),
        _tool("update_ticket", '{"id": "T-1"}'),
        _tool("get_order", '{"id": "O-1"}'),
        missing=1,
    )
    assert signature(record) == "missing_effect"


def test_recovery_needs_the_same_tool_and_a_later_call():
    other_tool = _record(_tool("issue_refund", error="PRECONDITION_FAILED"), _tool("issue_credit", '{"id": "C"}'))
    assert signature(other_tool) == "precondition_unrecovered"
    success_before = _record(_tool("update_ticket", '{"id": "T-1"}'), _tool("update_ticket", error="INTERNAL"))
    assert signature(success_before) == "tool_error_unrecovered"


def test_an_empty_success_recovers_an_error_but_not_an_empty_lookup():
    retried_empty = _record(
        _tool("search_bookings", error="INVALID_ARGUMENT"), _tool("search_bookings", "[]"), missing=1
    )
    assert signature(retried_empty) == "empty_lookup_unrecovered"
    precondition_then_empty = _record(
        _tool("cancel_order", error="PRECONDITION_FAILED"), _tool("cancel_order", "{}"), missing=1
    )
    assert signature(precondition_then_empty) == "empty_lookup_unrecovered"


def test_closed_without_write_needs_the_golden_run_to_change_something():
    assert signature(_record(ORDER, end_hash="s", golden_hash="s", missing=0)) == "assertion_failed"
    assert signature(_record(ORDER, end_hash="s", golden_hash="s", extra=0, wrong=2)) == "wrong_value"
    # a missing hash is no evidence either way
    assert signature(_record(ORDER, start_hash=None, end_hash=None, missing=1)) == "missing_effect"


@pytest.mark.parametrize("outcome", ["passed", "error", None])
def test_only_failed_attempts_get_a_label(outcome):
    record = _record(_tool("update_ticket", error="INTERNAL"), end_reason="max_steps", wrong=3, outcome=outcome)
    assert signature(record) is None


def test_an_old_record_without_transcript_counts_or_hashes_still_gets_a_label():
    old = {"task": "t", "outcome": "failed", "differences": [{"kind": "extra", "table": "refunds", "key": "R-9"}]}
    assert signature(old) == "extra_effect"
    bare = {"task": "t", "outcome": "failed"}
    assert signature(bare) == "assertion_failed"
    assert signature({**bare, "transcript": None, "rubric": None, "differences": None}) == "assertion_failed"
    counted = {"task": "t", "outcome": "failed", "differences": [{"kind": "missing"}, {"kind": "wrong"}]}
    assert signature(counted) == "wrong_value"


def test_counts_win_over_differences_when_both_are_present():
    record = _record(ORDER, wrong=0, missing=1, differences=[{"kind": "wrong"}])
    assert signature(record) == "missing_effect"


def test_unknown_labels_are_described_rather_than_refused():
    assert "Unknown label 'gremlins'" in describe("gremlins")
