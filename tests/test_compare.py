"""`thinkingbox compare`: paired per-task differences, k/k gains and losses, the t interval, p-values and Holm."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scipy import stats  # type: ignore[import-untyped]  # no stubs installed for scipy
from test_report_cli import manifest, record, write

from pytest_thinkingbox.campaign.compare import compare, compare_lines
from pytest_thinkingbox.campaign.records import Campaign, ReportError, load
from pytest_thinkingbox.cli import main


def run_file(
    path: Path, run: str, outcomes: dict[str, list[str]], bundle: str = "b1", k: int = 2, domain: str = "retail"
) -> Path:
    """A one-run results file; `outcomes` maps task -> outcome of attempts 1, 2, ... (task "d:t" sets its domain)."""
    recs = []
    for task, os in outcomes.items():
        where, _, name = task.rpartition(":")
        recs += [record(name, i, o, run=run, bundle=bundle, domain=where or domain) for i, o in enumerate(os, 1)]
    return write(path, manifest(run, bundle, k=k), *recs)


def load_one(path: Path) -> Campaign:
    """The one run in a results file."""
    (run,) = load([path])
    return run


P, F, E = "passed", "failed", "error"


def test_paired_comparison_by_hand(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, F], "t2": [P, P], "t3": [F, F], "t4": [P, P]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P], "t2": [P, F], "t3": [F, P], "t5": [F, F]})
    result = compare(load_one(a), load_one(b))
    assert result["only_a"] == ["t4"]
    assert result["only_b"] == ["t5"]
    assert result["gained"] == ["t1"]
    assert result["lost"] == ["t2"]
    # paired over t1, t2, t3: pass@1 deltas +0.5, -0.5, +0.5; the oracle is scipy's paired t-test
    assert [t["delta"] for t in result["per_task"]] == [0.5, -0.5, 0.5]
    oracle = stats.ttest_rel([1.0, 0.5, 0.5], [0.5, 1.0, 0.0])
    low, high = oracle.confidence_interval(0.95)
    p1 = result["figures"]["pass@1"]
    assert p1["mean"] == pytest.approx(1 / 6)
    assert p1["ci95"] == pytest.approx([low, high])
    assert p1["p"] == pytest.approx(oracle.pvalue)
    assert not p1["significant"]
    # minimum detectable difference: (t(0.975, 2) + t(0.8, 2)) x sd / sqrt(3)
    sd = stats.tstd([0.5, -0.5, 0.5])
    assert p1["mdd80"] == pytest.approx((stats.t.ppf(0.975, 2) + stats.t.ppf(0.8, 2)) * sd / math.sqrt(3))
    # pass^2 (n = k = 2: 1 when both pass): a 0, 1, 0 and b 1, 0, 0: deltas +1, -1, 0
    hat = result["figures"]["pass^k"]
    assert hat["mean"] == pytest.approx(0)
    assert hat["p"] == pytest.approx(1.0)
    text = "\n".join(compare_lines(result))
    assert "1 tasks only in flaky (run ra), left out: t4" in text
    assert "1 tasks only in flaky (run rb), left out: t5" in text
    assert (
        f"pass@1 difference (b - a) over 3 paired tasks: +0.167, 95% interval [{low:+.3f}, {high:+.3f}], "
        f"p = {oracle.pvalue:.3f} (paired t-test, 2 df)"
    ) in text
    assert "within the noise (not significant at 5%); detectable with 80% power at 5% two-sided over 3 tasks: " in text
    assert "pass^2 difference (b - a) over 3 paired tasks: +0.000" in text
    assert "95 of 100 intervals hold the true mean difference over tasks like these" in text
    assert "observed k/k: 1 tasks gained, 1 lost" in text
    assert "gained: t1" in text
    assert "lost: t2" in text
    assert "t1                           0.500 -> 1.000  +0.500  retail" in text


def test_a_clear_gain_is_more_than_noise(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {f"t{i}": [F, F] for i in range(4)})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t0": [P, P], "t1": [P, P], "t2": [P, F], "t3": [P, P]})
    result = compare(load_one(a), load_one(b))
    oracle = stats.ttest_rel([1.0, 1.0, 0.5, 1.0], [0.0] * 4)
    p1 = result["figures"]["pass@1"]
    assert p1["mean"] == pytest.approx(0.875)
    assert p1["p"] == pytest.approx(oracle.pvalue)
    assert p1["significant"]
    assert result["gained"] == ["t0", "t1", "t3"]
    assert p1["ci95"] == pytest.approx(list(oracle.confidence_interval(0.95)))
    assert "more than noise at the 5% level" in "\n".join(compare_lines(result))


def test_every_task_moving_alike_is_said_so_not_a_zero_width_interval(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {f"t{i}": [F, F] for i in range(6)})
    b = run_file(tmp_path / "b.jsonl", "rb", {f"t{i}": [P, F] for i in range(6)})
    result = compare(load_one(a), load_one(b))
    p1 = result["figures"]["pass@1"]
    # six differences of exactly +0.5: sd 0; the exact sign-flip test gives 2 / 2^6
    assert p1["every"] == 0.5
    assert p1["ci95"] is None
    assert p1["p"] == pytest.approx(2 / 2**6)
    assert p1["significant"]
    text = "\n".join(compare_lines(result))
    assert "pass@1: every one of the 6 paired tasks moved by exactly +0.500; with no spread between tasks" in text
    assert "p = 0.031 (sign-flip test: 2 / 2^6)" in text
    same = compare(load_one(a), load_one(run_file(tmp_path / "c.jsonl", "rc", {f"t{i}": [F, F] for i in range(6)})))
    assert same["figures"]["pass@1"]["every"] == 0
    assert same["figures"]["pass@1"]["p"] == 1.0
    assert "moved by exactly +0.000" in "\n".join(compare_lines(same))


def test_system_errors_are_left_out_of_both_rates_and_a_difference_in_them_is_loud(tmp_path):
    tasks = [f"t{i}" for i in range(10)]
    a = run_file(tmp_path / "a.jsonl", "ra", {t: [P, F] for t in tasks})
    # the same agent, but every task's second attempt hit a system error: not the agent's failure
    b = run_file(tmp_path / "b.jsonl", "rb", {t: [P, E] for t in tasks})
    result = compare(load_one(a), load_one(b))
    # b's pass@1 is 1/1 per task (the error is not graded): +0.5 everywhere; pass^2 cannot be paired (n = 1 < k)
    assert result["b"]["errors"] == 10
    assert result["b"]["error_share"] == 0.5
    assert result["a"]["errors"] == 0
    assert result["figures"]["pass^k"]["tasks"] == 0
    assert result["left_out"]["pass^k"] == tasks
    # pooled two-proportion test of 0 of 20 against 10 of 20
    pooled = 10 / 40
    z = 0.5 / math.sqrt(pooled * (1 - pooled) * (2 / 20))
    assert result["errors"]["p"] == pytest.approx(2 * stats.norm.sf(z))
    assert result["errors"]["differ"]
    assert result["per_task"][0]["all_b"] is None  # one graded attempt of k = 2: not k of k
    text = "\n".join(compare_lines(result))
    assert "system errors on the paired tasks, left out of both runs' rates: a 0 of 20 attempts (0.0%)" in text
    assert "WARNING: the system-error rates differ (p < 0.001, two-proportion test)" in text
    assert "10 tasks left out (fewer than k = 2 graded attempts in a run)" in text


def test_per_domain_results_with_holms_correction(tmp_path):
    # retail: 5 tasks each gaining 0.5 or 1.0; travel: 5 tasks, mixed; the p-values come from scipy
    a_out = {f"retail:r{i}": [F, F] for i in range(5)} | {f"travel:v{i}": [P, F] for i in range(5)}
    b_out = {f"retail:r{i}": [P, P] if i % 2 else [P, F] for i in range(5)}
    b_out |= {"travel:v0": [P, P], "travel:v1": [F, F], "travel:v2": [P, F], "travel:v3": [P, P], "travel:v4": [F, F]}
    result = compare(
        load_one(run_file(tmp_path / "a.jsonl", "ra", a_out)), load_one(run_file(tmp_path / "b.jsonl", "rb", b_out))
    )
    retail_p = stats.ttest_rel([0.5, 1, 0.5, 1, 0.5], [0] * 5).pvalue
    travel_p = stats.ttest_rel([1, 0, 0.5, 1, 0], [0.5] * 5).pvalue
    small, large = sorted([retail_p, travel_p])
    holm = {retail_p: min(1, 2 * small), travel_p: max(min(1, 2 * small), min(1, large))}
    for domain, p in (("retail", retail_p), ("travel", travel_p)):
        figure = result["domains"][domain]["pass@1"]
        assert figure["p"] == pytest.approx(p)
        assert figure["p_holm"] == pytest.approx(holm[p])
    assert result["domains"]["retail"]["pass@1"]["significant"]
    text = "\n".join(compare_lines(result))
    assert "per domain (p-values adjusted by Holm over the 2 domains):" in text
    assert "retail  pass@1 +0.700" in text
    assert f"Holm p = {holm[retail_p]:.3f} *" in text


def test_runs_of_different_k_are_refused_unless_allowed(tmp_path, capsys):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, P, F], "t2": [P, F, F]}, k=3)
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P], "t2": [P, F]}, k=2)
    with pytest.raises(ReportError, match=r"the runs have different k .* k = 3, .* k = 2"):
        compare(load_one(a), load_one(b))
    assert main(["compare", str(a), str(b)]) == 2
    assert "--allow-different-k" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--allow-different-k"]) == 0
    out = capsys.readouterr().out
    assert "WARNING: different k (a 3, b 2; --allow-different-k): pass^k is compared at k = 2" in out
    result = compare(load_one(a), load_one(b), allow_different_k=True)
    # pass^2 of a at n = 3: C(2, 2) / C(3, 2) = 1/3 for t1, 0 for t2; of b: 1 and 0
    assert [t["pass^k"]["a"] for t in result["per_task"]] == pytest.approx([1 / 3, 0])
    assert [t["pass^k"]["delta"] for t in result["per_task"]] == pytest.approx([2 / 3, 0])


def test_one_common_task_gives_no_interval(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [F, F]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P]})
    result = compare(load_one(a), load_one(b))
    assert result["figures"]["pass@1"]["ci95"] is None
    assert result["figures"]["pass@1"]["p"] is None
    assert "(one task: the spread between tasks is unknown, so no interval and no test)" in "\n".join(
        compare_lines(result)
    )


def test_different_bundles_are_refused_unless_allowed(tmp_path, capsys):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, P]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, F]}, bundle="b2")
    with pytest.raises(ReportError, match="runs of different bundles cannot be compared"):
        compare(load_one(a), load_one(b))
    assert main(["compare", str(a), str(b)]) == 2
    assert "--allow-mixed-bundles" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--allow-mixed-bundles"]) == 0
    assert "warning: different bundles (b1 vs b2)" in capsys.readouterr().out


def test_compare_command(tmp_path, capsys):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, F], "t2": [P, P]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P], "t2": [P, P]})
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("compare flaky (run rb) against flaky (run ra), bundle b1")
    both = write(tmp_path / "both.jsonl", manifest("ra"), manifest("rb"))
    assert main(["compare", str(both), str(b)]) == 2
    assert f"{both}: compare takes one run per file, found 2 (ra, rb)" in capsys.readouterr().err
