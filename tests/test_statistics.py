"""The statistics behind the figures, against scipy or a direct computation, and compare's A/A false-positive rate.

Every oracle here is scipy or a formula computed in the test; no figure is typed in.
"""

from __future__ import annotations

import math
import random

import pytest
from conftest import REFUND_TASK
from scipy import special, stats  # type: ignore[import-untyped]  # no stubs installed for scipy
from test_report_cli import manifest, record, write

from pytest_thinkingbox.campaign.attempt_record import AttemptRecord
from pytest_thinkingbox.campaign.compare import paired, paired_rows
from pytest_thinkingbox.campaign.gates import parse_gate
from pytest_thinkingbox.campaign.metrics import ESTIMATES, TaskCounts, aggregate
from pytest_thinkingbox.campaign.records import load
from pytest_thinkingbox.campaign.report import build_report
from pytest_thinkingbox.campaign.stats import (
    beta_ppf,
    holm,
    jeffreys_interval,
    mean_estimate,
    paired_test,
    ratio_estimate,
    t_cdf,
    t_ppf,
    t_two_sided_p,
    two_proportion_p,
)

# -- distributions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 14, 49, 300])
def test_student_t_matches_scipy(df):
    for q in (0.5, 0.6, 0.8, 0.95, 0.975, 0.999):
        assert t_ppf(q, df) == pytest.approx(stats.t.ppf(q, df), rel=1e-9, abs=1e-12)
        assert t_ppf(1 - q, df) == pytest.approx(stats.t.ppf(1 - q, df), rel=1e-9, abs=1e-12)
    for x in (-4.0, -1.3, 0.0, 0.7, 2.5, 12.0):
        assert t_cdf(x, df) == pytest.approx(stats.t.cdf(x, df), rel=1e-9, abs=1e-14)
        assert t_two_sided_p(x, df) == pytest.approx(2 * stats.t.sf(abs(x), df), rel=1e-9, abs=1e-14)


@pytest.mark.parametrize(("a", "b"), [(0.5, 0.5), (3.5, 5.5), (50.5, 0.5), (0.5, 50.5), (1000.5, 300.5)])
def test_beta_quantile_matches_scipy(a, b):
    for q in (0.001, 0.025, 0.5, 0.975, 0.999):
        assert beta_ppf(q, a, b) == pytest.approx(stats.beta.ppf(q, a, b), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("x", "n"), [(0, 1), (1, 1), (0, 4), (1, 4), (3, 4), (4, 4), (7, 20), (2.5, 5)])
def test_jeffreys_interval_matches_scipy_with_its_ends_at_0_and_1(x, n):
    low, high = jeffreys_interval(x, n)
    expected = stats.beta.ppf([0.025, 0.975], x + 0.5, n - x + 0.5)
    assert low == (0.0 if x == 0 else pytest.approx(expected[0]))
    assert high == (1.0 if x == n else pytest.approx(expected[1]))


# -- one group of tasks ----------------------------------------------------------------------------


def test_mean_estimate_is_the_t_interval_over_tasks():
    values = [0.25, 1.0, 0.5, 0.75, 0.0, 1.0, 0.5]
    estimate = mean_estimate(values)
    mean, se = sum(values) / len(values), stats.sem(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=se)
    assert estimate.value == pytest.approx(mean)
    assert estimate.se == pytest.approx(se)
    assert estimate.interval == pytest.approx((max(0, low), min(1, high)))
    clamped = mean_estimate([1.0, 1.0, 0.75])  # the t interval passes 1: clamped
    assert clamped.interval is not None
    assert clamped.interval[1] == 1.0
    assert clamped.interval[0] == pytest.approx(
        stats.t.interval(0.95, 2, loc=11 / 12, scale=stats.sem([1, 1, 0.75]))[0]
    )


def test_every_task_alike_gives_a_jeffreys_interval_not_a_zero_width_one():
    solved = mean_estimate([1.0] * 5)
    assert solved.se == 0
    assert solved.fallback
    assert solved.interval == pytest.approx((stats.beta.ppf(0.025, 5.5, 0.5), 1.0))
    half = mean_estimate([0.5] * 4)  # as if 2 of 4 tasks were solved
    assert half.interval == pytest.approx(tuple(stats.beta.ppf([0.025, 0.975], 2.5, 2.5)))


def test_one_task_has_no_interval_and_no_task_no_figure():
    one = mean_estimate([0.4])
    assert one.value == 0.4
    assert one.se is None
    assert one.interval is None
    assert "one task" in one.why
    assert mean_estimate([]).value is None


# -- two runs ----------------------------------------------------------------------------------------


def test_paired_test_matches_scipys_paired_t_test():
    a = [0.2, 0.5, 0.9, 0.4, 0.6, 0.1, 0.8]
    b = [0.3, 0.5, 1.0, 0.6, 0.5, 0.4, 0.9]
    test = paired_test([y - x for x, y in zip(a, b, strict=True)])
    oracle = stats.ttest_rel(b, a)
    assert test.p == pytest.approx(oracle.pvalue)
    assert test.interval == pytest.approx(oracle.confidence_interval())
    assert test.mean == pytest.approx(sum(b) / 7 - sum(a) / 7)
    assert test.significant == (oracle.pvalue < 0.05)


def test_the_minimum_detectable_difference_has_about_80_percent_power():
    diffs = [0.1, -0.3, 0.4, 0.0, 0.2, -0.1, 0.3, 0.1, -0.2, 0.5]
    test = paired_test(diffs)
    df, crit = 9, stats.t.ppf(0.975, 9)
    assert test.mdd == pytest.approx((crit + stats.t.ppf(0.8, df)) * stats.sem(diffs))
    assert test.mdd is not None
    assert test.se is not None
    # the exact power of the paired t-test at that true difference (noncentral t): close to 0.8
    power = stats.nct.sf(crit, df, test.mdd / test.se) + stats.nct.cdf(-crit, df, test.mdd / test.se)
    assert power == pytest.approx(0.8, abs=0.02)


def test_zero_variance_uses_the_sign_flip_p_value():
    moved = paired_test([0.25] * 5)
    assert moved.every == 0.25
    assert moved.interval is None
    assert moved.p == 2 / 2**5
    assert not moved.significant
    assert paired_test([0.25] * 6).p == 2 / 2**6
    assert paired_test([0.25] * 6).significant
    assert paired_test([0.0] * 8).p == 1.0


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.04 over m = 3: 3 x 0.01, then max(0.03, 2 x 0.02), then max(0.04, 1 x 0.04)
    assert holm({"a": 0.04, "b": 0.01, "c": 0.02, "d": None}) == pytest.approx(
        {"a": 0.04, "b": 0.03, "c": 0.04, "d": None}
    )
    assert holm({"a": 0.5, "b": 0.4}) == pytest.approx({"a": 0.8, "b": 0.8})  # monotone: never below the last


def test_two_proportion_p_is_the_pooled_z_test():
    pooled = (3 + 12) / (100 + 120)
    z = (3 / 100 - 12 / 120) / math.sqrt(pooled * (1 - pooled) * (1 / 100 + 1 / 120))
    assert two_proportion_p(3, 100, 12, 120) == pytest.approx(2 * stats.norm.sf(abs(z)))
    assert two_proportion_p(0, 10, 0, 10) == 1.0
    assert two_proportion_p(0, 0, 1, 1) is None


def test_ratio_estimate_by_its_formula():
    costs, successes = [0.3, 0.5, 0.1, 0.9], [2.0, 1.0, 0.0, 3.0]
    ratio, interval = ratio_estimate(costs, successes)
    r = sum(costs) / sum(successes)
    se = math.sqrt(4 / 3 * sum((c - r * s) ** 2 for c, s in zip(costs, successes, strict=True))) / sum(successes)
    assert ratio == pytest.approx(r)
    assert interval == pytest.approx((max(0, r - stats.t.ppf(0.975, 3) * se), r + stats.t.ppf(0.975, 3) * se))
    assert ratio_estimate([1.0], [0.0]) == (None, None)
    assert ratio_estimate([1.0], [2.0]) == (0.5, None)


# -- the figures of a small results file -----------------------------------------------------------------


def _campaign(tmp_path):
    """k = 3; unequal attempt counts, system errors, a task short of k and tasks all alike."""
    p, f, e = "passed", "failed", "error"
    outcomes = {
        "a": [p, p, p],  # 3 of 3
        "b": [p, f, p],  # 2 of 3
        "c": [f, f, f],  # 0 of 3
        "d": [p, e, f, p],  # 2 of 3 graded, 1 system error
        "e": [p, p, f, f, p],  # 3 of 5 (a tb_repeat marker asked for 5)
        "f": [e, p],  # 1 of 1 graded: short of k = 3
    }
    recs = [
        record(t, i, o, domain="shop" if t < "d" else "bank") for t, os in outcomes.items() for i, o in enumerate(os, 1)
    ]
    return write(tmp_path / "r.jsonl", manifest(k=3), *recs)


def test_every_figure_of_a_small_campaign_against_scipy(tmp_path):
    (run,) = load([_campaign(tmp_path)])
    agg = build_report([run])["runs"][0]["aggregate"]
    overall = agg["overall"]
    graded = {"a": (3, 3), "b": (3, 2), "c": (3, 0), "d": (3, 2), "e": (5, 3), "f": (1, 1)}  # task: (n, c)
    complete = {t: nc for t, nc in graded.items() if nc[0] >= 3}

    def check(name, values):
        mean, se = sum(values) / len(values), stats.sem(values)
        assert overall[name] == pytest.approx(mean), name
        if se == 0:
            return
        low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=se)
        assert overall[f"{name}_se"] == pytest.approx(se), name
        assert overall[f"{name}_ci95"] == pytest.approx([max(0, low), min(1, high)]), name

    at_k = [1 - special.comb(n - c, 3) / special.comb(n, 3) for n, c in complete.values()]
    hat_k = [special.comb(c, 3) / special.comb(n, 3) for n, c in complete.values()]
    check("pass@1", [c / n for n, c in graded.values()])  # f is in pass@1: 1 of 1
    check("pass@k", at_k)  # f is not: it has 1 graded attempt of k = 3
    check("pass^k", hat_k)
    check("all_k_share", [float(c == n) for n, c in complete.values()])
    check("flaky_share", [float(0 < c < n) for n, c in complete.values()])
    check("consistency_gap", [x - y for x, y in zip(at_k, hat_k, strict=True)])
    assert overall["errors"] == 2
    assert overall["error_share"] == pytest.approx(2 / 20)
    assert overall["graded"] == 18
    assert overall["complete_tasks"] == 5
    assert overall["incomplete_tasks"] == 1
    assert agg["incomplete"] == {"f": 1}
    assert overall["all_k"] == 1
    assert overall["flaky"] == 3


def test_the_aggregate_keeps_each_figure_under_its_key_with_se_and_ci95_beside(tmp_path):
    (run,) = load([_campaign(tmp_path)])
    agg = aggregate(run.records, run.k)
    for summary in (agg["overall"], *agg["domains"].values()):
        for name in ESTIMATES:
            assert isinstance(summary[name], float)
            assert f"{name}_se" in summary
            assert f"{name}_ci95" in summary
    assert set(agg) >= {"k", "tasks", "attempts", "overall", "domains", "per_task", "incomplete", "missing"}
    assert "retention" not in agg["overall"]


def test_report_prints_the_intervals_and_the_tasks_short_of_k(tmp_path, capsys):
    from pytest_thinkingbox.cli import main

    assert main(["report", str(_campaign(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "± is the standard error over tasks (clustered by task); the 95% intervals use Student's t" in out
    head = "95% intervals pass@1 pass@3 pass^3 3/3 share flaky share gap"
    assert head.split() in [line.split() for line in out.splitlines()]
    assert "short of k" in out.splitlines()[3]  # the table says how many tasks are short of k
    assert "  f    1/1   1.000" in out
    assert "(1 system errors, short of k = 3)" in out
    assert "2 attempts ended in a system error (10.0%): not graded" in out


# -- gates ---------------------------------------------------------------------------------------------


def test_a_k_figure_gate_over_tasks_short_of_k_fails_rather_than_estimating_at_n(tmp_path):
    (run,) = load([_campaign(tmp_path)])
    agg = aggregate(run.records, run.k)
    result = parse_gate("pass^k>=0").evaluate(agg)
    assert not result.ok
    assert result.value is None
    assert "1 of 6 tasks have fewer than k = 3 graded attempts (f); pass^k is never estimated at fewer than k" in (
        result.line
    )
    assert parse_gate("pass@1>=0").evaluate(agg).ok  # pass@1 keeps the short task
    assert not parse_gate("k/k>=0").evaluate(agg).ok  # k of k cannot be counted over it either


def test_the_lower_bound_gate_fails_four_of_five_and_the_upper_bound_reads_the_other_end():
    records: list[AttemptRecord] = [
        {"task": f"t{i}", "domain": "d", "attempt": a, "outcome": "failed" if i == 4 else "passed"}
        for i in range(5) for a in (1, 2, 3)
    ]  # fmt: skip
    agg = aggregate(records, k=3)
    low, high = stats.t.interval(0.95, 4, loc=0.8, scale=stats.sem([1, 1, 1, 1, 0]))
    assert parse_gate("pass@1>=0.8").evaluate(agg).ok  # the point figure clears 0.8
    lcb = parse_gate("pass@1.lcb95>=0.8").evaluate(agg)
    assert not lcb.ok
    assert lcb.value == pytest.approx(low)
    ucb = parse_gate("pass^k.ucb95<=0.9").evaluate(agg)
    assert not ucb.ok
    assert ucb.value == pytest.approx(min(1.0, high))


def test_tb_gate_min_tasks_and_bounds_in_a_session(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-gate", "pass@1>=0.5")  # one task: fewer than the default 5
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*gate pass@1>=0.5: pass@1 is over 1 tasks, fewer than the 5 a gate needs*FAILED"])
    result = toy.runpytest("--tb-gate", "pass@1.lcb95>=0.5", "--tb-gate-min-tasks", "1")
    assert result.ret == 1  # one task: no interval
    result.stdout.fnmatch_lines(["*gate pass@1.lcb95>=0.5: pass@1 has no 95% interval (one task*FAILED"])
    assert toy.runpytest("--tb-gate", "pass@1>=0.5", "--tb-gate-min-tasks", "1").ret == 0
    bad = toy.runpytest("--tb-gate-min-tasks", "0")
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["*--tb-gate-min-tasks expects a whole number of at least 1, got '0'*"])
    gone = toy.runpytest("--tb-gate", "retention>=0.5")
    assert gone.ret == 4
    assert "gate on gap (pass@k - pass^k" in gone.stderr.str()


# -- compare: an A/A simulation ------------------------------------------------------------------------


def _runs(rng, rates, k):
    """One run's per-task counts: k attempts of each task, each passing with the task's own rate."""
    return {f"t{i}": TaskCounts(f"t{i}", "d", k, sum(rng.random() < p for _ in range(k))) for i, p in enumerate(rates)}


def false_positive_rate(tasks, low, pairs=1000, k=3, seed=48):
    """The share of `pairs` comparisons of a model with itself that compare calls significant, per figure.

    The per-task rates are drawn once (uniform in [low, 1 - low]) and fixed; each pair is two fresh
    runs of k attempts per task, paired and tested with compare's own functions.
    """
    rng = random.Random(seed)
    rates = [rng.uniform(low, 1 - low) for _ in range(tasks)]
    hits = {"pass@1": 0, "pass^k": 0}
    for _ in range(pairs):
        rows = paired_rows(_runs(rng, rates, k), _runs(rng, rates, k), k, k)
        for figure in hits:
            hits[figure] += paired(rows, figure).significant
    return {figure: count / pairs for figure, count in hits.items()}


@pytest.mark.parametrize("tasks", [5, 10, 50])
def test_compare_calls_a_model_against_itself_significant_5_percent_of_the_time(tasks):
    # Tasks of middling difficulty (pass rates 0.2..0.8), k = 3: the paired t-test holds its 5% level.
    rates = false_positive_rate(tasks, low=0.2)
    assert 0.035 <= rates["pass@1"] <= 0.065, rates
    # pass^3 of 3 attempts is 0 or 1 per task, so most differences are 0: the test is conservative, never loose.
    assert rates["pass^k"] <= 0.065, rates
    # With tasks near 0 or 1 too (0.05..0.95), many differences are exactly 0: conservative, never loose.
    assert false_positive_rate(tasks, low=0.05)["pass@1"] <= 0.065
