"""`thinkingbox compare`: paired per-task differences, k/k gains and losses, the interval and the noise floor."""

from __future__ import annotations

import pytest
from test_report_cli import manifest, record, write

from pytest_thinkingbox.campaign.compare import compare, compare_lines, mean_interval
from pytest_thinkingbox.campaign.records import ReportError, load
from pytest_thinkingbox.cli import main


def run_file(path, run, outcomes, bundle="b1", k=2):
    """A one-run results file; `outcomes` maps task -> outcome of attempts 1, 2, ..."""
    recs = [record(task, i, o, run=run, bundle=bundle) for task, os in outcomes.items() for i, o in enumerate(os, 1)]
    return write(path, manifest(run, bundle, k=k), *recs)


P, F = "passed", "failed"


def test_mean_interval_by_hand():
    # diffs 0.5, 0, 0.25, -0.25: mean 0.125; squared deviations 0.140625 + 0.015625 + 0.015625 + 0.140625
    # = 0.3125; sd = sqrt(0.3125 / 3) = 0.322749; half-width = 1.959964 * 0.322749 / sqrt(4) = 0.316288
    mean, half = mean_interval([0.5, 0.0, 0.25, -0.25])
    assert mean == pytest.approx(0.125) and half == pytest.approx(0.316288, abs=1e-6)
    assert mean_interval([0.3]) == (0.3, None)


def test_paired_comparison_by_hand(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, F], "t2": [P, P], "t3": [F, F], "t4": [P, P]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P], "t2": [P, F], "t3": [F, F], "t5": [F, F]})
    result = compare(*load([a]), *load([b]))
    assert result["only_a"] == ["t4"] and result["only_b"] == ["t5"]
    assert result["gained"] == ["t1"] and result["lost"] == ["t2"]
    # paired over t1, t2, t3: deltas +0.5, -0.5, 0 -> mean 0; sd = sqrt((0.25 + 0.25 + 0) / 2) = 0.5;
    # half-width = 1.959964 * 0.5 / sqrt(3) = 0.565793
    assert [t["delta"] for t in result["per_task"]] == [0.5, -0.5, 0.0]
    assert result["mean_delta"] == 0.0 and result["interval"] == pytest.approx([-0.565793, 0.565793], abs=1e-6)
    assert result["within_noise"]
    text = "\n".join(compare_lines(result))
    assert "1 tasks only in flaky (run ra), left out: t4" in text
    assert "1 tasks only in flaky (run rb), left out: t5" in text
    assert "pass@1 difference (b - a) over 3 paired tasks: +0.000, 95% interval [-0.566, +0.566]" in text
    assert "within the noise floor: with 3 tasks and 2 attempts each" in text and "about 0.566" in text
    assert "observed k/k: 1 tasks gained, 1 lost" in text and "gained: t1" in text and "lost: t2" in text
    assert "t1                           0.500 -> 1.000  +0.500  retail" in text


def test_a_clear_gain_has_no_noise_warning(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {f"t{i}": [F, F] for i in range(4)})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t0": [P, P], "t1": [P, P], "t2": [P, F], "t3": [P, P]})
    result = compare(*load([a]), *load([b]))
    # deltas 1, 1, 0.5, 1: mean 0.875; sd = sqrt((3 * 0.015625 + 0.140625) / 3) = 0.25;
    # half-width = 1.959964 * 0.25 / 2 = 0.244996: interval [0.630, 1.120] excludes 0
    assert result["mean_delta"] == pytest.approx(0.875) and result["half_width"] == pytest.approx(0.244996, abs=1e-6)
    assert not result["within_noise"] and result["gained"] == ["t0", "t1", "t3"]
    assert not any("noise floor" in line for line in compare_lines(result))


def test_one_common_task_gives_no_interval(tmp_path):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [F, F]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, P]})
    result = compare(*load([a]), *load([b]))
    assert result["interval"] is None and result["within_noise"]
    assert "(one task: no interval)" in "\n".join(compare_lines(result))


def test_different_bundles_are_refused_unless_allowed(tmp_path, capsys):
    a = run_file(tmp_path / "a.jsonl", "ra", {"t1": [P, P]})
    b = run_file(tmp_path / "b.jsonl", "rb", {"t1": [P, F]}, bundle="b2")
    with pytest.raises(ReportError, match="runs of different bundles cannot be compared"):
        compare(*load([a]), *load([b]))
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
