"""Cost figures from token usage and prices, against hand-computed values; the Pareto frontier."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats  # type: ignore[import-untyped]  # no stubs installed for scipy
from test_report_cli import manifest, record, report, write

from pytest_thinkingbox.campaign.costs import Prices, attempt_cost, frontier, load_prices, parse_prices
from pytest_thinkingbox.campaign.records import ReportError, load
from pytest_thinkingbox.campaign.report import build_report

PRICES = {"m1": {"input": 2.0, "cached_input": 0.5, "output": 8.0}, "m2": {"input": 1.0, "output": 2.0}}


def usage(model="m1", input_tokens=1000, cached=0, output=0, reasoning=0):
    return {
        "model": model,
        "input_tokens": input_tokens,
        "cached_tokens": cached,
        "output_tokens": output,
        "reasoning_tokens": reasoning,
        "calls": 1,
        "latency_s": 0.1,
        "retries": 0,
    }


def test_attempt_cost_by_hand():
    prices = parse_prices(PRICES, "test")
    use = {"agent": usage("m1", 1000, cached=200, output=500, reasoning=300), "user": usage("m2", 100, output=50)}
    # agent: (800 * 2.0 + 200 * 0.5 + 500 * 8.0) / 1e6 = (1600 + 100 + 4000) / 1e6 = 0.0057
    #        (the 300 reasoning tokens are inside the 500 output tokens: not charged again)
    # user:  cached_input defaults to input = 1.0: (100 * 1.0 + 50 * 2.0) / 1e6 = 0.0002
    assert attempt_cost(use, prices, "r.jsonl:2") == pytest.approx(0.0059)
    assert prices.table["m2"]["cached_input"] == 1.0


def _priced_run(tmp_path, name="r.jsonl", run="r1", outcomes=("passed", "passed", "passed", "failed"), **m):
    # each attempt: 1000 input tokens of m2 at $1 / 1M and 4500 output tokens at $2 / 1M = 0.001 + 0.009 = $0.01
    tasks = [("t1", 1), ("t1", 2), ("t2", 1), ("t2", 2)]
    recs = [
        record(t, a, o, run=run, usage={"agent": usage("m2", 1000, output=4500)})
        for (t, a), o in zip(tasks, outcomes, strict=True)
    ]
    return write(tmp_path / name, manifest(run, agent=f"openai:{run}", **({"prices": PRICES} | m)), *recs)


def _ratio_interval(costs, counts):
    """The task-clustered 95% interval of sum(costs) / sum(counts), computed here from its formula."""
    ratio, t = sum(costs) / sum(counts), len(costs)
    se = math.sqrt(t / (t - 1) * sum((c - ratio * x) ** 2 for c, x in zip(costs, counts, strict=True))) / sum(counts)
    half = stats.t.ppf(0.975, t - 1) * se
    return [max(0.0, ratio - half), ratio + half]


def test_campaign_cost_per_success_and_per_dependable_task_by_hand(tmp_path, capsys):
    run = build_report(load([_priced_run(tmp_path)]))["runs"][0]
    # total = 4 attempts x $0.01 = $0.04; per attempt $0.01
    # successes: t1 2, t2 1 = 3: per success = 0.04 / 3 = $0.013333
    # solved 2 of 2: 1 task (t1): per dependable task = 0.04 / 1 = $0.04
    cost = dict(run["cost"])
    assert cost.pop("per_success_ci95") == pytest.approx(_ratio_interval([0.02, 0.02], [2, 1]))
    assert cost.pop("per_dependable_ci95") == pytest.approx(_ratio_interval([0.02, 0.02], [1, 0]))
    assert cost == pytest.approx(
        {
            "total": 0.04,
            "per_attempt": 0.01,
            "per_success": 0.04 / 3,
            "per_dependable": 0.04,
            "successes": 3,
            "dependable": 1,
            "errors": 0.0,
        }
    )
    code, out, _ = report(capsys, tmp_path / "r.jsonl")
    assert code == 0
    low, high = run["cost"]["per_success_ci95"]
    assert f"$0.0400 for the campaign, $0.0100 per attempt, $0.0133 per success [${low:.4f}, ${high:.4f}]" in out


def test_cost_per_success_is_total_over_successes_whatever_the_attempt_counts(tmp_path):
    # t1: 2 attempts, both pass; t2: 6 attempts (a tb_repeat marker), 1 pass; one more attempt of t1 ends in a
    # system error that was paid for. Each attempt costs $0.01.
    outcomes = [("t1", 1, "passed"), ("t1", 2, "passed"), ("t1", 3, "error")]
    outcomes += [("t2", a, "passed" if a == 1 else "failed") for a in range(1, 7)]
    recs = [record(t, a, o, usage={"agent": usage("m2", 1000, output=4500)}) for t, a, o in outcomes]
    path = write(tmp_path / "r.jsonl", manifest(prices=PRICES), *recs)
    cost = build_report(load([path]))["runs"][0]["cost"]
    # total $0.09 over 3 successes: $0.03 each. The old figure, (total / attempts) / macro pass@1 =
    # 0.01 / ((2/2 + 1/6) / 2) = $0.0171, undercounts what a success cost.
    assert cost["total"] == pytest.approx(0.09)
    assert cost["per_success"] == pytest.approx(0.03)
    assert cost["errors"] == pytest.approx(0.01)
    assert cost["successes"] == 3
    assert cost["per_success_ci95"] == pytest.approx(_ratio_interval([0.03, 0.06], [2, 1]))
    assert cost["per_dependable"] == pytest.approx(0.09)
    assert cost["dependable"] == 1


def test_no_success_and_no_dependable_task_leave_those_figures_null(tmp_path):
    run = build_report(load([_priced_run(tmp_path, outcomes=("failed",) * 4)]))["runs"][0]
    assert run["cost"]["total"] == pytest.approx(0.04)
    assert run["cost"]["per_success"] is None
    assert run["cost"]["per_dependable"] is None


def test_prices_file_overrides_the_manifest_model_by_model(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("m2:\n  input: 3.0\n  output: 2.0\n")
    prices = load_prices(path)
    run = build_report(load([_priced_run(tmp_path)]), prices)["runs"][0]
    # m2 now $3 / 1M input: 1000 * 3 / 1e6 + 4500 * 2 / 1e6 = 0.003 + 0.009 = $0.012 per attempt, 4 attempts
    assert run["cost"]["total"] == pytest.approx(0.048)
    as_json = tmp_path / "prices.json"
    as_json.write_text(json.dumps({"m2": {"input": 3.0, "output": 2.0}}))
    assert load_prices(as_json).table == prices.table


def test_a_model_missing_from_the_prices_file_is_named(tmp_path, capsys):
    results = _priced_run(tmp_path, prices={})
    prices = tmp_path / "prices.yaml"
    prices.write_text("m1:\n  input: 1\n  output: 1\n")
    code, out, err = report(capsys, results, "--prices", prices)
    assert code == 2
    assert out == ""
    assert f"--prices {prices}: no price for model 'm2', which served the agent at {results}:2" in err


def test_a_model_missing_from_the_manifest_prices_is_named(tmp_path):
    with pytest.raises(ReportError, match=r"the manifest of run r1 \(.*r\.jsonl:1\): no price for model 'm2'"):
        build_report(load([_priced_run(tmp_path, prices={"m1": PRICES["m1"]})]))


def test_usage_without_any_prices_gives_no_cost_and_says_why(tmp_path, capsys):
    results = _priced_run(tmp_path, prices={})
    assert build_report(load([results]))["runs"][0]["cost"] is None
    code, out, _ = report(capsys, results)
    assert code == 0
    assert "cost: unknown; the records carry token usage but no prices were given" in out


def test_bad_prices_files(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("m1:\n  input: [1\n")
    with pytest.raises(ReportError, match=r"p\.yaml:\d+: not valid YAML"):
        load_prices(path)
    path.write_text("m1:\n  input: -1\n  output: 1\n")
    with pytest.raises(ReportError, match=r"model 'm1': input should be a number >= 0, got -1"):
        load_prices(path)
    path.write_text("m1:\n  output: 1\n")
    with pytest.raises(ReportError, match=r"model 'm1' needs input and output prices"):
        load_prices(path)
    with pytest.raises(ReportError, match=r"cannot read the prices file"):
        load_prices(tmp_path / "none.yaml")


def test_more_cached_than_input_tokens_is_refused():
    with pytest.raises(ReportError, match=r"r\.jsonl:4: agent usage has more cached tokens \(9\) than input"):
        attempt_cost({"agent": usage("m2", 5, cached=9)}, Prices(PRICES, "test"), "r.jsonl:4")


def test_frontier_keeps_the_runs_nobody_beats():
    points = {
        "cheap": (1.0, 0.5),
        "best": (2.0, 0.8),
        "same_cost_worse": (2.0, 0.6),  # beaten by best: as expensive, less accurate
        "dearer_same_acc": (3.0, 0.8),  # beaten by best: dearer, as accurate
        "tie_cheap": (1.0, 0.5),  # equal to cheap: neither strictly better, both stay
        "top": (5.0, 0.9),
        "no_cost": (None, 0.99),  # pass@1 of 0 or no prices: not placed
    }
    assert frontier(points) == ["cheap", "tie_cheap", "best", "top"]
    assert frontier({}) == []
    assert frontier({"only": (1.0, 0.1)}) == ["only"]


def test_report_frontiers_over_runs(tmp_path, capsys):
    a = _priced_run(tmp_path, "a.jsonl", "ra")  # $0.04, pass@1 0.75, 1 of 2 tasks dependable
    b = _priced_run(tmp_path, "b.jsonl", "rb", outcomes=("passed",) * 4)  # $0.04, pass@1 1.0, 2 of 2
    c = _priced_run(tmp_path, "c.jsonl", "rc", outcomes=("failed",) * 4)  # no success: not placed
    doc = build_report(load([a, b, c]))
    # per success: ra 0.01 / 0.75 = 0.0133, rb 0.01 / 1.0 = 0.01 and more accurate: rb beats ra
    # per dependable: ra 0.04 / 1 = 0.04 at share 0.5, rb 0.04 / 2 = 0.02 at share 1.0: rb beats ra
    assert doc["frontier"] == {"per_success": ["rb"], "per_dependable": ["rb"]}
    code, out, _ = report(capsys, a, b, c)
    assert code == 0
    assert "cost per success vs pass@1: rb ($0.0100, pass@1 1.000)" in out
    assert "cost per dependable task vs k/k share: rb ($0.0200, k/k share 1.000)" in out
