"""The diff engine: per row and field, keyed by primary key, volatile fields ignored."""

from __future__ import annotations

from pytest_thinkingbox.core.expectations import explain
from pytest_thinkingbox.core.state import compare, diff, state_hash

BEFORE = {
    "tickets": {"T-1": {"id": "T-1", "status": "open", "note": ""}, "T-2": {"id": "T-2", "status": "open", "note": ""}},
    "refunds": {},
}


def _with(**tables):
    state = {name: {k: dict(v) for k, v in rows.items()} for name, rows in BEFORE.items()}
    for name, rows in tables.items():
        state[name] = rows
    return state


def test_identical_end_states_have_no_differences():
    golden = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": ""}})
    assert compare(BEFORE, golden, golden, {}) == []


def test_field_changed_by_both_to_other_values_is_wrong():
    golden = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": ""}})
    agent = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "solved", "note": ""}})
    [d] = compare(BEFORE, golden, agent, {})
    assert (d.kind, d.table, d.key, d.field, d.expected, d.actual) == (
        "wrong",
        "tickets",
        "T-1",
        "status",
        "hold",
        "solved",
    )


def test_field_left_unchanged_is_missing_and_field_changed_needlessly_is_extra():
    golden = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": ""}})
    agent = _with(tickets={"T-1": BEFORE["tickets"]["T-1"], "T-2": {"id": "T-2", "status": "solved", "note": ""}})
    kinds = {(d.kind, d.key) for d in compare(BEFORE, golden, agent, {})}
    assert kinds == {("missing", "T-1"), ("extra", "T-2")}


def test_rows_not_created_or_created_needlessly_are_missing_or_extra():
    golden = _with(refunds={"RF-1": {"id": "RF-1", "amount": 100}})
    agent = _with(refunds={"RF-2": {"id": "RF-2", "amount": 100}})
    found = {(d.kind, d.key, d.field) for d in compare(BEFORE, golden, agent, {})}
    assert found == {("missing", "RF-1", None), ("extra", "RF-2", None)}


def test_rows_removed_or_kept_against_golden():
    golden = _with(tickets={"T-1": BEFORE["tickets"]["T-1"]})  # golden removes T-2
    agent = _with(tickets={"T-2": BEFORE["tickets"]["T-2"]})  # agent removes T-1 instead
    found = {(d.kind, d.key) for d in compare(BEFORE, golden, agent, {})}
    assert found == {("missing", "T-2"), ("extra", "T-1")}


def test_volatile_fields_are_ignored_but_other_fields_are_not():
    golden = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": "golden words"}})
    agent = _with(tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": "agent words"}})
    assert compare(BEFORE, golden, agent, {"tickets": {"note"}}) == []
    assert [d.field for d in compare(BEFORE, golden, agent, {})] == ["note"]


def test_new_row_with_other_values_is_wrong_per_field():
    golden = _with(refunds={"RF-1": {"id": "RF-1", "amount": 100}})
    agent = _with(refunds={"RF-1": {"id": "RF-1", "amount": 90}})
    [d] = compare(BEFORE, golden, agent, {})
    assert (d.kind, d.field, d.expected, d.actual) == ("wrong", "amount", 100, 90)


def test_diff_lists_effects_and_explanation_names_rows_and_fields():
    after = _with(
        tickets={**BEFORE["tickets"], "T-1": {"id": "T-1", "status": "hold", "note": ""}},
        refunds={"RF-1": {"id": "RF-1", "amount": 100}},
    )
    assert [str(c) for c in diff(BEFORE, after)] == [
        "added refunds[RF-1]",
        "updated tickets[T-1].status: 'open' -> 'hold'",
    ]
    text = explain(compare(BEFORE, BEFORE, after, {}))
    assert "0 wrong, 0 missing, 2 extra" in text
    assert "tickets[T-1].status: expected 'open', got 'hold'" in text


def test_state_hash_is_independent_of_dict_order():
    a = {"t": {"1": {"a": 1, "b": 2}}}
    b = {"t": {"1": {"b": 2, "a": 1}}}
    assert state_hash(a) == state_hash(b) != state_hash({"t": {"1": {"a": 1, "b": 3}}})
