"""Reliability figures against hand-computed values."""

from __future__ import annotations

import pytest

from pytest_thinkingbox.campaign.metrics import aggregate, pass_at_k, pass_hat_k


def test_pass_at_k_and_pass_hat_k_by_hand():
    # n=5, c=2, k=2: P(no pass in 2) = C(3,2)/C(5,2) = 3/10; P(both pass) = C(2,2)/C(5,2) = 1/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    # k = n: solved at least once iff c > 0; solved every time iff c == n
    assert pass_at_k(4, 1, 4) == 1.0
    assert pass_hat_k(4, 3, 4) == 0.0


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (5, 0, 3, 0.0, 0.0),  # c = 0
        (5, 5, 3, 1.0, 1.0),  # c = n
        (1, 1, 1, 1.0, 1.0),  # n = 1
        (1, 0, 1, 0.0, 0.0),
        (20, 10, 1, 0.5, 0.5),  # k = 1 is pass@1
    ],
)
def test_edge_cases(n, c, k, at_k, hat_k):
    assert pass_at_k(n, c, k) == pytest.approx(at_k)
    assert pass_hat_k(n, c, k) == pytest.approx(hat_k)


def test_k_larger_than_n_is_refused():
    with pytest.raises(ValueError, match="k <= n"):
        pass_at_k(2, 1, 3)


def _records(task, domain, outcomes):
    return [{"task": task, "domain": domain, "attempt": i + 1, "outcome": o} for i, o in enumerate(outcomes)]


def test_aggregate_by_hand_with_unequal_attempts_reported():
    records = (
        _records("a", "retail", ["passed", "failed", "passed", "passed"])  # c=3, n=4
        + _records("b", "retail", ["passed"] * 4)  # c=4, n=4
        + _records("c", "travel", ["error", "passed"])  # 1 system error: c=1, n=1 graded < k
    )
    agg = aggregate(records, k=4)
    retail, overall = agg["domains"]["retail"], agg["overall"]
    assert retail["pass@1"] == pytest.approx((3 / 4 + 1) / 2)
    assert retail["pass@k"] == pytest.approx(1.0)
    assert retail["pass^k"] == pytest.approx((0 + 1) / 2)
    assert retail["all_k"] == 1
    assert retail["tasks"] == 2
    assert retail["errors"] == 0
    # task c has 1 graded attempt: in pass@1 (1/1), out of every k figure, listed as incomplete with n = 1
    assert agg["incomplete"] == {"c": 1}
    travel = agg["domains"]["travel"]
    assert travel["pass@1"] == 1.0
    assert travel["pass@k"] is None
    assert travel["pass^k"] is None
    assert travel["all_k"] == 0
    assert travel["all_k_share"] is None
    assert travel["incomplete_tasks"] == 1
    assert overall["pass@1"] == pytest.approx((0.75 + 1 + 1) / 3)
    assert overall["pass^k"] == pytest.approx(0.5)
    assert overall["complete_tasks"] == 2
    assert overall["errors"] == 1
    assert overall["error_share"] == pytest.approx(1 / 10)
    assert overall["graded"] == 9
    assert overall["all_k"] == 1
    assert agg["attempts"] == 10
    assert "retention" not in overall
    assert agg["per_task"]["c"] == {"domain": "travel", "passed": 1, "attempts": 2, "errors": 1}


def test_nothing_graded_gives_no_rate_rather_than_zero():
    agg = aggregate(_records("a", "retail", ["error", "error"]), k=2)
    overall = agg["overall"]
    assert overall["pass@1"] is None
    assert overall["graded_tasks"] == 0
    assert overall["errors"] == 2
    assert agg["incomplete"] == {"a": 0}


def test_summary_table_shows_pass_at_1_once_when_k_is_1():
    from pytest_thinkingbox.campaign.views.terminal import table_lines

    one = table_lines(aggregate(_records("a", "retail", ["passed"]), k=1))
    three = table_lines(aggregate(_records("a", "retail", ["passed", "failed", "passed"]), k=3))
    assert one[0].split() == ["domain", "tasks", "attempts", "pass@1", "1/1", "errors"]
    assert three[0].split() == ["domain", "tasks", "attempts", "pass@1", "pass@3", "pass^3", "3/3", "errors"]
    assert three[1].split() == ["retail", "1", "3", "0.667", "1.000", "0.000", "0", "0"]  # one task: no ±
