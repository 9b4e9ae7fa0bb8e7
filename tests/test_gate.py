"""Quality gates against aggregates computed by hand, and the messages for bad expressions."""

from __future__ import annotations

import pytest

from pytest_thinkingbox.campaign.gates import METRICS, MIN_TASKS, OPS, Gate, parse_gate
from pytest_thinkingbox.campaign.metrics import aggregate


def _records(task, domain, outcomes):
    return [{"task": task, "domain": domain, "attempt": i + 1, "outcome": o} for i, o in enumerate(outcomes)]


# k = 2. By hand, per task (graded attempts, pass@1, pass@2, pass^2, solved 2 of 2, flaky):
#   a retail  passed passed   2  1    1    1    yes  no
#   b retail  passed failed   2  0.5  1    0    no   yes
#   c retail  failed failed   2  0    0    0    no   no
#   d travel  failed failed   2  0    0    0    no   no
#   e travel  passed passed   2  1    1    1    yes  no
#   f travel  passed failed   2  0.5  1    0    no   yes
# Six tasks, so a gate over every task clears the minimum of 5; a domain has 3.
AGG = aggregate(
    _records("a", "retail", ["passed", "passed"])
    + _records("b", "retail", ["passed", "failed"])
    + _records("c", "retail", ["failed", "failed"])
    + _records("d", "travel", ["failed", "failed"])
    + _records("e", "travel", ["passed", "passed"])
    + _records("f", "travel", ["passed", "failed", "error"]),  # a system error: not graded, counted apart
    k=2,
)


@pytest.mark.parametrize(
    ("expr", "value", "line"),
    [
        ("pass@1>=0.3", 3 / 6, "gate pass@1>=0.3: 0.500 -> ok"),
        ("pass@k>=0.6", 4 / 6, "gate pass@k>=0.6: 0.667 -> ok"),
        ("pass^k>=0.6", 2 / 6, "gate pass^k>=0.6: 0.333 -> FAILED"),
        ("k/k>=1", 2, "gate k/k>=1: 2 -> ok"),
        ("k/k%>=0.3", 2 / 6, "gate k/k%>=0.3: 0.333 -> ok"),
        ("flaky<=1", 2, "gate flaky<=1: 2 -> FAILED"),
        ("flaky%<=0.5", 2 / 6, "gate flaky%<=0.5: 0.333 -> ok"),
        ("gap<0.3", 2 / 6, "gate gap<0.3: 0.333 -> FAILED"),
        ("errors<1", 1, "gate errors<1: 1 -> FAILED"),
    ],
)
def test_each_metric_overall(expr, value, line):
    result = parse_gate(expr).evaluate(AGG)
    assert result.value == pytest.approx(value)
    assert result.line == line
    assert result.ok == line.endswith("-> ok")


def test_every_metric_is_covered_above():
    assert set(METRICS) == {"pass@1", "pass@k", "pass^k", "k/k", "k/k%", "flaky", "flaky%", "gap", "errors"}


@pytest.mark.parametrize(
    ("op", "below", "equal", "above"),
    [
        (">=", False, True, True),
        (">", False, False, True),
        ("<=", True, True, False),
        ("<", True, False, False),
        ("==", False, True, False),
    ],
)
def test_each_operator_at_below_and_above_the_figure(op, below, equal, above):
    # overall pass@1 is 0.5: the threshold sits above it, on it, then below it
    assert parse_gate(f"pass@1{op}0.6").evaluate(AGG).ok is below
    assert parse_gate(f"pass@1{op}0.5").evaluate(AGG).ok is equal
    assert parse_gate(f"pass@1{op}0.25").evaluate(AGG).ok is above
    assert set(OPS) == {">=", ">", "<=", "<", "=="}


def test_float_noise_counts_as_equal():
    summary = {"tasks": 5, "pass@1": 0.1 + 0.2}  # 0.30000000000000004
    noisy = {"overall": summary, "domains": {}}
    assert parse_gate("pass@1==0.3").evaluate(noisy).ok
    assert parse_gate("pass@1<=0.3").evaluate(noisy).ok
    assert not parse_gate("pass@1>0.3").evaluate(noisy).ok


def test_domain_prefix_uses_that_domains_figures():
    # retail: pass@1 = (1 + 0.5 + 0) / 3 = 0.5, pass^2 = 1/3, solved 2 of 2: 1 of 3; 3 tasks, so min_tasks=3
    assert parse_gate("domain:retail:pass@1==0.5").evaluate(AGG, min_tasks=3).ok
    retail = parse_gate("domain:retail:pass^k>0.3").evaluate(AGG, min_tasks=3)
    assert retail.ok
    assert retail.value == pytest.approx(1 / 3)
    assert retail.line == "gate domain:retail:pass^k>0.3: 0.333 -> ok"
    assert parse_gate("domain:retail:k/k%>=0.33").evaluate(AGG, min_tasks=3).value == pytest.approx(1 / 3)
    assert parse_gate("domain:travel:errors==1").evaluate(AGG).ok  # a count: no minimum of tasks
    travel = parse_gate("domain:travel:k/k==1").evaluate(AGG)
    assert travel.ok
    assert travel.line == "gate domain:travel:k/k==1: 1 -> ok"


def test_a_rate_over_fewer_tasks_than_the_minimum_fails_and_says_why():
    result = parse_gate("domain:retail:pass@1>=0").evaluate(AGG)  # 3 tasks, the default minimum is 5
    assert not result.ok
    assert result.value is None
    assert result.line == (
        "gate domain:retail:pass@1>=0: pass@1 is over 3 tasks, fewer than the 5 a gate needs: a rate over so few "
        "tasks says little about the next ones (the minimum is --tb-gate-min-tasks, or --gate-min-tasks for "
        "thinkingbox report) -> FAILED"
    )
    assert MIN_TASKS == 5
    assert parse_gate("domain:retail:pass@1>=0").evaluate(AGG, min_tasks=3).ok


def test_spaces_around_the_operator_and_the_canonical_text():
    gate = parse_gate("  domain:retail:pass^k  >=  0.3 ")
    assert gate == Gate(metric="pass^k", op=">=", threshold=0.3, domain="retail", number="0.3")
    assert gate.text == "domain:retail:pass^k>=0.3"
    assert parse_gate("k/k >= 40").threshold == 40.0
    bound = parse_gate("pass@1.lcb95 >= 0.8")
    assert bound == Gate(metric="pass@1", op=">=", threshold=0.8, number="0.8", bound="lcb95")
    assert bound.text == "pass@1.lcb95>=0.8"
    assert parse_gate("domain:a:gap.ucb95<=0.2").text == "domain:a:gap.ucb95<=0.2"


def test_an_unknown_domain_fails_and_says_which_domains_there_are():
    result = parse_gate("domain:banking:pass@1>=0.8").evaluate(AGG)
    assert not result.ok
    assert result.value is None
    assert (
        result.line
        == "gate domain:banking:pass@1>=0.8: no domain 'banking' in the results (domains: retail, travel) -> FAILED"
    )


def test_an_undefined_figure_fails_instead_of_passing():
    # nothing graded: pass@1 is undefined, so even a gate that any number would meet fails
    only_errors = aggregate([r for i in range(5) for r in _records(f"t{i}", "retail", ["error"])], k=1)
    result = parse_gate("pass@1>=0").evaluate(only_errors)
    assert not result.ok
    assert result.value is None
    assert "no pass@1 figure (no task has a graded attempt) -> FAILED" in result.line
    empty = parse_gate("errors<=5").evaluate(aggregate([], k=2))
    assert not empty.ok
    assert empty.line == "gate errors<=5: no tasks, so no figure -> FAILED"


def test_retention_is_gone_and_the_error_names_what_replaced_it():
    with pytest.raises(ValueError, match="retention") as excinfo:
        parse_gate("retention>=0.5")
    assert "gate on gap (pass@k - pass^k" in str(excinfo.value)
    assert "flaky%" in str(excinfo.value)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("pass@2>=0.5", "unknown metric 'pass@2'"),
        ("PASS@1>=0.5", "unknown metric 'PASS@1'"),
        ("domain:retail:passk>=0.5", "unknown metric 'passk'"),
        ("pass@1=>0.5", "unknown operator '=>'"),
        ("pass@1 = 0.5", "unknown operator '='"),
        ("pass@1!=0.5", "unknown operator '!='"),
    ],
)
def test_unknown_metric_or_operator_lists_the_valid_ones(expr, message):
    with pytest.raises(ValueError, match=r"^bad gate expression ") as excinfo:
        parse_gate(expr)
    text = str(excinfo.value)
    assert text.startswith(f"bad gate expression {expr!r}: {message}")
    assert "valid metrics: pass@1, pass@k, pass^k, k/k, k/k%, flaky, flaky%, gap, errors" in text
    assert "(pass@1, pass@k, pass^k, k/k%, flaky%, gap also as METRIC.lcb95 and METRIC.ucb95)" in text
    assert "valid operators: >=, >, <=, <, ==" in text


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("", "expected [domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER"),
        ("retail is fine", "expected [domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER"),
        (">=0.5", "expected [domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER"),
        ("pass @1>=0.5", "expected [domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER"),
        ("pass@1>=", "'' is not a number"),
        ("pass@1>=high", "'high' is not a number"),
        ("pass@1>=0.5 or so", "'0.5 or so' is not a number"),
        ("pass@1>=nan", "must be a finite number"),
        ("pass^k>=60", "pass^k is a share between 0 and 1; did you mean 0.6?"),
        ("k/k%>=-0.1", "k/k% is a share between 0 and 1"),
        ("k/k>=-1", "k/k is a count of tasks, never negative"),
        ("errors<-2", "errors is a count of attempts, never negative"),
        ("k/k.lcb95>=3", "k/k is a count, not an estimate: it has no lcb95"),
        ("pass@1.lcb95>=80", "pass@1 is a share between 0 and 1; did you mean 0.8?"),
        ("pass@1.lcb90>=0.8", "unknown metric 'pass@1.lcb90'"),
        ("domain:pass@1>=0.8", "a domain gate reads domain:NAME:METRIC OP NUMBER"),
        ("domain::pass@1>=0.8", "a domain gate reads domain:NAME:METRIC OP NUMBER"),
    ],
)
def test_garbage_is_refused_with_a_message_quoting_the_expression(expr, message):
    with pytest.raises(ValueError, match=r"^bad gate expression ") as excinfo:
        parse_gate(expr)
    assert repr(expr) in str(excinfo.value)
    assert message in str(excinfo.value)
