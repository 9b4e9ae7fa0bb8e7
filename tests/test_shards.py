"""--tb-shard I/N: disjoint shares making up the campaign, alike with and without xdist, merged by the report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REFUND_TASK
from test_campaign_integrity import manifests
from test_report_cli import report

from pytest_thinkingbox.campaign.records import ReportError, load, read_records, shard_of
from pytest_thinkingbox.campaign.report import build_report
from pytest_thinkingbox.campaign.views.html import render_html

TASKS = "".join(REFUND_TASK.replace("TY001_001", f"TY001_00{n}") for n in (1, 2, 3))
FLAKY = ("--tb-agent", "flaky", "--tb-seed", "7", "--tb-repeat", "4")
SHARDS = 3


def keys(path: Path) -> set[tuple[str, int]]:
    return {(r["task"], r["attempt"]) for r in read_records([path])}


def run_shard(toy: pytest.Pytester, index: int, *extra: str, name: str = "") -> Path:
    """Run shard `index` of the toy campaign into shard{index}.jsonl (or `name`) and return the file."""
    path = toy.path / (name or f"shard{index}.jsonl")
    args = (*FLAKY, "--tb-shard", f"{index}/{SHARDS}", "--tb-run", "camp", "--tb-results", path.name, *extra)
    result = toy.runpytest_subprocess(*args) if "-n" in extra else toy.runpytest(*args)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stderr.str()
    return path


@pytest.fixture
def campaign(toy: pytest.Pytester) -> pytest.Pytester:
    """The toy campaign (3 tasks x 4 attempts, flaky agent, seed 7), run whole into whole.jsonl."""
    toy.makepyfile(test_tasks=TASKS)
    toy.runpytest(*FLAKY, "--tb-run", "whole", "--tb-results", "whole.jsonl")
    return toy


def test_shards_are_disjoint_cover_the_campaign_and_split_alike_with_xdist(campaign):
    whole = keys(campaign.path / "whole.jsonl")
    assert len(whole) == 12
    shares = [keys(run_shard(campaign, i)) for i in range(1, SHARDS + 1)]
    assert sum(map(len, shares)) == len(whole)
    assert set().union(*shares) == whole
    for share in shares:  # each task's 4 attempts are dealt over the 3 shards: 1 or 2 in each
        assert sorted({sum(t == task for t, _ in share) for task, _ in whole} | {1}) in ([1], [1, 2])
    campaign_listed = manifests(campaign.path / "whole.jsonl")[0]["expected"]
    for index, share in enumerate(shares, 1):
        path = run_shard(campaign, index, "-n", "2", name=f"xdist{index}.jsonl")
        assert keys(path) == share
        assert manifests(path)[-1]["campaign"] == campaign_listed  # the controller heard it from a worker


def test_a_shard_manifest_lists_its_own_attempts_and_the_whole_campaign(campaign):
    paths = [run_shard(campaign, i) for i in range(1, SHARDS + 1)]
    heads = [manifests(p)[0] for p in paths]
    assert [h["shard"] for h in heads] == [{"index": i, "count": SHARDS} for i in range(1, SHARDS + 1)]
    whole = manifests(campaign.path / "whole.jsonl")[0]
    assert all(h["campaign"] == whole["expected"] for h in heads)
    for path, head in zip(paths, heads, strict=True):
        listed = {(t, a) for t, attempts in head["expected"].items() for a in attempts}
        assert listed == keys(path)  # the shard's attempts only, each a list (never 1..n)
    assert len({h["fingerprint"] for h in heads}) == 1  # the shard is not part of what defines the run
    assert heads[0]["fingerprint"] == whole["fingerprint"]


def test_merged_shards_are_complete_with_the_figures_of_the_whole_run(campaign, capsys):
    paths = [run_shard(campaign, i) for i in range(1, SHARDS + 1)]
    [merged] = build_report(load(paths))["runs"]
    [whole] = build_report(load([campaign.path / "whole.jsonl"]))["runs"]
    assert merged["complete"]
    assert merged["missing_count"] == 0
    assert merged["shards"]["missing"] == []
    assert merged["aggregate"]["overall"] == whole["aggregate"]["overall"]
    assert merged["aggregate"]["tasks"] == whole["aggregate"]["tasks"]
    assert 0 < whole["aggregate"]["overall"]["pass@1"] < 1  # the flaky agent both passes and fails here
    code, out, _ = report(capsys, *paths, "--require-complete", "--gate", "pass@1>=0.1", "--gate-min-tasks", "3")
    assert code == 0
    assert "complete: 3 tasks x 4 attempts" in out


def test_a_missing_shard_is_named_with_its_attempts(campaign, capsys):
    first, third = run_shard(campaign, 1), run_shard(campaign, 3)
    held = len(keys(campaign.path / "whole.jsonl")) - len(keys(first)) - len(keys(third))
    lines = third.read_text().splitlines()
    cut = next(n for n, line in enumerate(lines) if '"manifest"' not in line)
    third.write_text("\n".join(lines[:cut] + lines[cut + 1 :]) + "\n")  # and one attempt lost inside shard 3
    document = build_report(load([first, third]))
    [run] = document["runs"]
    assert run["shards"]["missing"] == [{"shard": f"2/{SHARDS}", "attempts": held}]
    assert f"Incomplete: shard 2/3 missing: {held} attempts." in render_html(document)
    assert not run["complete"]
    assert run["missing_count"] == held + 1
    code, out, err = report(capsys, first, third, "--require-complete")
    assert code == 1
    assert f"incomplete: shard 2/3 missing: {held} attempts" in out
    assert f"run camp is incomplete: shard 2/3 missing: {held} attempts; {held + 1} attempts missing" in err


@pytest.mark.parametrize(
    ("options", "named"),
    [(("--tb-seed", "8"), "seed 8*seed 7"), (("--tb-agent", "golden"), "agent 'golden'*agent 'flaky'")],
)
def test_a_shard_of_another_run_is_refused_naming_what_differs(campaign, options, named):
    first = run_shard(campaign, 1)
    other = run_shard(campaign, 2, *options)
    with pytest.raises(ReportError) as refused:
        load([first, other])
    assert refused.match(f"{other}:1: run camp here has .*; these files are not one campaign".replace("*", ".*"))
    assert all(part in str(refused.value) for part in named.split("*"))


def test_two_files_claiming_one_shard_merge_only_when_their_records_agree(campaign):
    first, second = run_shard(campaign, 1), run_shard(campaign, 2)
    copy = campaign.path / "copy.jsonl"
    shutil.copy(second, copy)
    [run] = load([first, second, copy])  # the same shard twice, e.g. downloaded twice: counted once
    assert len(run.records) == len(keys(first)) + len(keys(second))
    assert run.reruns == 0
    assert [index for index, _ in run.missing_shards()] == [3]
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    changed = next(line for line in lines if "task" in line)
    changed["outcome"] = "failed" if changed["outcome"] == "passed" else "passed"
    copy.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ReportError, match=rf"{second} and {copy} both claim shard 2/3 of run camp with different"):
        load([first, second, copy])


def test_shards_of_different_splits_do_not_merge(campaign):
    first = run_shard(campaign, 1)
    other = campaign.path / "of4.jsonl"
    campaign.runpytest(*FLAKY, "--tb-shard", "2/4", "--tb-run", "camp", "--tb-results", other.name)
    with pytest.raises(ReportError, match=r"this is shard 2/4, but .* split run camp into 3 shards"):
        load([first, other])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0/3", "--tb-shard 0/3: there is no shard 0 of 3; expects I/N with 1 <= I <= N, e.g. 2/4"),
        ("3/2", "--tb-shard 3/2: there is no shard 3 of 2; expects I/N with 1 <= I <= N, e.g. 2/4"),
        ("x", "--tb-shard expects I/N with 1 <= I <= N, e.g. 2/4, got 'x'"),
        ("1/0", "--tb-shard 1/0: there is no shard 1 of 0; expects I/N with 1 <= I <= N, e.g. 2/4"),
    ],
)
def test_a_bad_shard_is_a_one_line_usage_error(toy, value, message):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-shard", value, "--tb-run", "camp")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


def test_the_ini_setting_names_the_shard_and_is_checked_too(campaign):
    by_option = keys(run_shard(campaign, 2))
    campaign.runpytest(*FLAKY, "-o", "tb_shard=2/3", "--tb-run", "camp", "--tb-results", "ini.jsonl")
    assert keys(campaign.path / "ini.jsonl") == by_option
    result = campaign.runpytest("-o", "tb_shard=4/3", "--tb-run", "camp")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tb_shard (ini) 4/3: there is no shard 4 of 3*"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ((), "*--tb-shard 2/3 needs --tb-run ID: shards of one campaign merge by run id*"),
        (("--tb-run", "camp", "--tb-gate", "pass@1>=0.5"), "*--tb-gate judges a whole campaign*report --gate*"),
    ],
)
def test_a_shard_without_a_run_id_or_with_a_gate_is_a_usage_error(toy, options, message):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-shard", "2/3", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_shard_resumes_only_as_the_same_shard_and_then_completes(campaign):
    path = run_shard(campaign, 2)
    held = keys(path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")  # killed after its first attempt
    result = campaign.runpytest(*FLAKY, "--tb-shard", "3/3", "--tb-resume", path.name)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--tb-resume {path.name}: that file is shard 2/3; pass --tb-shard 2/3, not 3/3*"])
    campaign.runpytest(*FLAKY, "--tb-shard", "2/3", "--tb-resume", path.name)
    assert keys(path) == held
    others = [run_shard(campaign, i) for i in (1, 3)]
    [run] = load([*others, path])
    assert not run.missing()
    assert run.id == "camp"


def test_the_split_balances_each_task_over_the_shards():
    # Each task's k attempts are dealt round-robin: every shard holds floor(k/N) or ceil(k/N) of them.
    for task in (f"test_case_T{n:03d}" for n in range(50)):
        counts = [sum(shard_of(task, a, 4) == s for a in range(1, 11)) for s in range(1, 5)]
        assert sorted(counts) == [2, 2, 3, 3]
