"""Difficulty probing and pool selection: posterior bins, group statistics, the CLI and --tb-tasks."""

from __future__ import annotations

import json
import math

import pytest
from conftest import REFUND_TASK

from pytest_thinkingbox.campaign.pools import Probe, beta_cdf, bin_mass, mixed_share, more_attempts, select_pool
from pytest_thinkingbox.cli import main


def test_beta_cdf_against_closed_forms():
    assert beta_cdf(0.3, 1, 1) == pytest.approx(0.3)  # uniform
    assert beta_cdf(0.5, 2, 2) == pytest.approx(0.5)  # symmetric
    assert beta_cdf(0.2, 0.5, 0.5) == pytest.approx(2 / math.pi * math.asin(math.sqrt(0.2)))  # arcsine law
    assert beta_cdf(0.9, 3.5, 5.5) == pytest.approx(1 - beta_cdf(0.1, 5.5, 3.5))


def test_three_successes_in_eight_probes_land_in_the_hard_bin():
    mass = bin_mass(3, 8)  # Beta(3.5, 5.5)
    assert max(mass, key=mass.__getitem__) == "hard"
    assert mass["hard"] == pytest.approx(0.5396, abs=1e-4)  # numeric integration of the density over [0.08, 0.40)
    assert sum(mass.values()) == pytest.approx(1.0)
    never, always = bin_mass(0, 20), bin_mass(20, 20)
    assert max(never, key=never.__getitem__) == "rarely"
    assert max(always, key=always.__getitem__) == "almost_always"


def test_share_of_mixed_groups_by_hand():
    # no probes: Beta(1/2, 1/2), E[p^2] = (1/2)(3/2) / (1 * 2) = 3/8, so 1 - 2 * 3/8 = 1/4 of pairs are mixed
    assert mixed_share(0, 0, 2) == pytest.approx(0.25)
    assert mixed_share(4, 8, 8) > mixed_share(8, 8, 8)  # a task always solved wastes most groups


def test_selection_keeps_the_chosen_bins_and_leaves_out_exclusions():
    probes = {
        "a": Probe("retail", 3, 8),  # hard
        "b": Probe("retail", 8, 8),  # almost always
        "c": Probe("travel", 4, 8),  # medium
        "d": Probe("travel", 0, 8),  # rarely
    }
    pool = select_pool(probes, excluded={"c"}, group=4, min_mass=0.5)
    assert pool["bins"] == {"a": "hard", "b": "almost_always", "d": "rarely"}
    # c's likeliest bin, medium, holds less than half of its posterior: undecided (and excluded anyway)
    assert "c" not in pool["undecided"]
    assert pool["mass"]["c"]["medium"] < 0.5
    assert pool["selected"] == ["a"]
    assert pool["excluded"] == ["c"]
    assert pool["histogram"] == {"rarely": 1, "hard": 1, "medium": 0, "often": 0, "almost_always": 1}
    assert pool["pool_mixed_share"] == pytest.approx(mixed_share(3, 8, 4), abs=1e-6)
    # at the default 0.6, a's 0.54 in "hard" is not enough either: a is undecided, and nothing is selected
    default = select_pool(probes, group=4)
    assert default["selected"] == []
    assert set(default["undecided"]) == {"a", "c"}
    assert default["min_mass"] == 0.6
    assert default["undecided"]["a"]["likely"] == "hard"
    assert default["undecided"]["a"]["mass"] == pytest.approx(0.5396, abs=1e-4)
    with pytest.raises(ValueError, match="increasing edges"):
        select_pool(probes, edges=(0.5, 0.4, 0.6, 0.9))
    with pytest.raises(ValueError, match="unknown bins"):
        select_pool(probes, keep=["easy"])


def _decides(k: int, n: int, m: int, min_mass: float = 0.6) -> bool:
    """Whether m more attempts at the posterior mean put min_mass in one bin: computed with scipy's beta."""
    from scipy import stats  # type: ignore[import-untyped]  # no stubs installed for scipy

    a, b = k + 0.5, n - k + 0.5
    mean = a / (a + b)
    cdf = stats.beta.cdf([0.0, 0.08, 0.40, 0.60, 0.90, 1.0], a + mean * m, b + (1 - mean) * m)
    return max(cdf[1:] - cdf[:-1]) >= min_mass


@pytest.mark.parametrize(("k", "n"), [(3, 8), (4, 8), (0, 0), (1, 2), (2, 4), (2, 5), (5, 10), (6, 9)])
def test_more_attempts_is_the_smallest_number_that_decides_the_bin(k, n):
    m = more_attempts(k, n)
    assert m is not None
    assert _decides(k, n, m)
    assert not any(_decides(k, n, fewer) for fewer in range(m))  # a linear scan finds no smaller one
    assert more_attempts(8, 8) == 0  # decided already


def test_a_pass_rate_on_a_bin_edge_is_never_decided():
    # 5 of 10 has posterior mean 5.5 / 11 = 0.5: with an edge at 0.5, more attempts split the mass evenly
    edges = (0.08, 0.40, 0.50, 0.90)
    assert more_attempts(5, 10, edges) is None


def _write_probe(path, outcomes_by_task, markers=()):
    lines = []
    for task, outcomes in outcomes_by_task.items():
        for i, outcome in enumerate(outcomes, 1):
            record = {"task": task, "domain": "toy", "attempt": i, "outcome": outcome, "markers": list(markers)}
            lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")


def test_select_pool_command_writes_the_pool_and_the_picture(tmp_path, capsys):
    probe = tmp_path / "probe.jsonl"
    tasks = {"t_hard": ["passed"] * 2 + ["failed"] * 10, "t_easy": ["passed"] * 8 + ["error"]}
    _write_probe(probe, tasks | {"t_mid": ["passed", "failed"] * 4})
    held_out = tmp_path / "heldout.jsonl"
    _write_probe(held_out, {"t_bench": ["passed"] * 4 + ["failed"] * 4}, markers=["benchmark"])
    out, plot = tmp_path / "pool.json", tmp_path / "hist.svg"
    code = main(
        [
            "select-pool",
            str(probe),
            str(held_out),
            "--out",
            str(out),
            "--plot",
            str(plot),
            "--exclude-marker",
            "benchmark",
        ]
    )
    assert code == 0
    pool = json.loads(out.read_text())
    # t_hard: 2 of 12, Beta(2.5, 10.5), 0.82 in "hard"; t_easy: 8 of 8 (one system error left out), 0.81 in
    # "almost_always"; t_mid: 4 of 8, only 0.44 in "medium": undecided, so not selected
    assert pool["selected"] == ["t_hard"]
    assert pool["excluded"] == ["t_bench"]
    assert pool["bins"]["t_easy"] == "almost_always"
    assert pool["system_errors_left_out"] == 1
    assert set(pool["mass"]["t_hard"]) == {"rarely", "hard", "medium", "often", "almost_always"}
    printed = capsys.readouterr().out
    assert "4 tasks probed (36 graded attempts, 1 system errors left out); 1 excluded" in printed
    assert "hard           [0.08, 0.40)     1  yes" in printed
    assert "undecided: 1 tasks have less than 0.6 of their posterior in any bin" in printed
    more = more_attempts(4, 8)
    assert pool["undecided"] == {"t_mid": {"likely": "medium", "mass": pytest.approx(0.444555), "more_attempts": more}}
    assert f"t_mid                        likely medium (0.44); {more} more attempts" in printed
    assert plot.read_text().startswith("<svg")
    assert plot.read_text().count("<rect") == 5


def test_select_pool_names_the_bad_line(tmp_path, capsys):
    probe = tmp_path / "probe.jsonl"
    probe.write_text('{"task": "a", "outcome": "passed"}\n{"task": "a", "outc\n')
    assert main(["select-pool", str(probe)]) == 2
    assert f"{probe}:2: not an attempt record" in capsys.readouterr().err


def test_tb_tasks_runs_exactly_the_selected_tasks(toy):
    toy.makepyfile(test_tasks=REFUND_TASK + REFUND_TASK.replace("TY001_001", "TY002_001").split("\n", 3)[3])
    toy.path.joinpath("pool.json").write_text(json.dumps({"selected": ["test_case_TY002_001", "test_case_XX"]}))
    result = toy.runpytest("--tb-tasks", "pool.json", "-W", "default")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*1 listed tasks were not collected*test_case_XX*"])
    toy.path.joinpath("bad.json").write_text("[]")
    bad = toy.runpytest("--tb-tasks", "bad.json")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(['*--tb-tasks bad.json: expected JSON with a "selected" list*'])
