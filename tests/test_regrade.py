"""`thinkingbox regrade`: a finished campaign graded again by the current checks, from its records alone.

The campaigns are real (the flaky agent on the toy domain, or a scripted model behind the local OpenAI-compatible
server); each task package is written into the test's folder, and a changed task goes into a package of its own,
so that the catalog imports it under its own name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.campaign.records import ReportError, load
from pytest_thinkingbox.cli import main
from pytest_thinkingbox.roles.cache import CacheSettings
from pytest_thinkingbox.roles.config import load_config
from pytest_thinkingbox.serve.model_server import Script, ScriptedModelServer
from pytest_thinkingbox.serve.regrade import regrade

#: The refund task with a rubric question the phrase judge answers from the agent's closing message.
TASK = REFUND_TASK.replace(
    '    assert run.db.get(Ticket, "T-9").status == "solved"',
    '    assert run.db.get(Ticket, "T-9").status == "solved"\n'
    '    run.rubric("Did the agent say the money was refunded?", phrases=["refunded"])',
).replace('note="refunded"),\n        ],', 'note="refunded"),\n        ],\n        reply="Done: 40 dollars refunded.",')
#: The same task with one more check: no more tool calls than the three the task needs.
TIGHTER = TASK.replace(
    "    run.expect_golden()",
    '    run.expect_golden()\n    assert run.episode.tool_calls <= 3, "more calls than needed"',
)
#: The same task on another start: the account holds 700 cents, so every look-up of it answers otherwise.
RICHER = TASK.replace("AccountFactory(balance_cents=500)", "AccountFactory(balance_cents=700)")
#: What an attempt's verdict is made of.
VERDICT = ("outcome", "failure", "error", "wrong", "missing", "extra", "differences", "violations", "rubric",
           "rules_broken", "end_hash", "golden_hash", "signature")  # fmt: skip


def package(where: Path, name: str, task: str) -> Path:
    """A task package exporting the toy domain, holding `task`."""
    folder = where / name
    folder.mkdir()
    (folder / "__init__.py").write_text("from toydomain import DOMAIN  # noqa: F401\n")
    (folder / f"test_{name}.py").write_text(task)
    return folder


def verdict(record: dict) -> dict:
    return {k: record.get(k) for k in VERDICT}


@pytest.fixture
def campaign(toy: pytest.Pytester) -> Path:
    """A flaky campaign of 16 attempts of the toy refund task: passes, and failures of every kind."""
    package(toy.path, "tasks", TASK)
    toy.runpytest("tasks", "--tb-agent", "flaky", "--tb-seed", "3", "--tb-repeat", "16", "--tb-results", "r.jsonl")
    records = read_records([toy.path / "r.jsonl"])
    assert {r["outcome"] for r in records} == {"passed", "failed"}
    return toy.path / "r.jsonl"


def test_regrading_an_unchanged_campaign_reproduces_every_verdict(campaign):
    out = campaign.with_name("new.jsonl")
    summary = regrade(campaign, out, root=campaign.parent / "tasks")
    assert (summary.regraded, summary.diverged, summary.flipped, summary.requests) == (16, 0, [], 0)
    old, new = read_records([campaign]), read_records([out])
    assert [verdict(r) for r in new] == [verdict(r) for r in old]
    assert [r["transcript"] for r in new] == [r["transcript"] for r in old]
    assert all(r["regrade"] == {"status": "regraded", "was": r["outcome"]} for r in new)
    [before], [after] = load([campaign]), load([out])
    assert (after.id, after.bundle) == (before.id, before.bundle)  # the run's id and bundle kept
    assert after.manifest is not None
    assert after.manifest["regrade"]["of"] == str(campaign)


def test_a_tightened_check_flips_exactly_the_attempts_it_catches(campaign, toy):
    old = read_records([campaign])
    catches = {r["attempt"] for r in old if r["outcome"] == "passed" and r["tool_calls"] > 3}
    assert catches  # the campaign has passes the tighter check fails (a write repeated with the same values)
    summary = regrade(campaign, toy.path / "new.jsonl", root=package(toy.path, "tighter", TIGHTER))
    assert {(attempt, was, now) for _, attempt, was, now in summary.flipped} == {
        (a, "passed", "failed") for a in catches
    }
    new = read_records([toy.path / "new.jsonl"])
    for was, now in zip(old, new, strict=True):
        if now["attempt"] in catches:
            assert now["failure"].startswith("more calls than needed")
        else:
            assert verdict(now) == verdict(was)
    assert main(["compare", str(campaign), str(toy.path / "new.jsonl")]) == 0


def test_compare_shows_the_original_against_its_regrade(campaign, toy, capsys):
    regrade(campaign, toy.path / "new.jsonl", root=package(toy.path, "tighter", TIGHTER))
    capsys.readouterr()
    assert main(["compare", str(campaign), str(toy.path / "new.jsonl")]) == 0
    shown = capsys.readouterr().out
    flipped = sum(1 for r in read_records([toy.path / "new.jsonl"]) if r["outcome"] != r["regrade"]["was"])
    assert f"regrade of run {load([campaign])[0].id}: 16 attempts, {flipped} changed their verdict" in shown
    assert "test_case_TY001_001" in shown


def test_an_attempt_whose_tool_results_changed_is_diverged_and_never_graded(campaign, toy):
    out = toy.path / "new.jsonl"
    summary = regrade(campaign, out, root=package(toy.path, "richer", RICHER))
    assert (summary.regraded, summary.diverged, summary.flipped) == (0, 16, [])
    old, new = read_records([campaign]), read_records([out])
    for was, now in zip(old, new, strict=True):
        assert now["outcome"] == "error"  # counted apart, as a system error: never the agent's pass or failure
        assert now["error"]["stage"] == "regrade"
        assert now["error"]["type"] == "Diverged"
        assert now["regrade"]["status"] == "diverged"
        assert now["regrade"]["was"] == was["outcome"]
        assert "the result of tool call call_1 (get_account) differs" in now["regrade"]["divergence"]
        assert "'balance_cents': 500" in now["regrade"]["divergence"].replace('"', "'")
        assert now["differences"] == was["differences"]  # the original's fields, not the replay's
    [run] = load([out])
    assert sum(r["outcome"] == "error" for r in run.records) == 16


OPENING = "Please refund the 40 dollars you owe me."
SOLVES = Script(
    [
        {"tool": "get_account", "arguments": {"account_id": "A-1"}},
        {"tool": "issue_refund", "arguments": {"account_id": "A-1", "amount_cents": 4000}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-9", "status": "solved", "note": "refunded"}},
    ],
    reply="Your 40 dollars are refunded. Anything else?",
    end=False,
)


def test_a_model_judge_from_the_cache_needs_no_endpoint(toy):
    """A campaign of a model agent, user and judge, with the cache; its regrade runs with the server gone."""
    package(toy.path, "tasks", TASK)
    with ScriptedModelServer({OPENING: SOLVES}) as server:
        endpoint = {"base_url": server.base_url, "api_key_env": None, "timeout_s": 2, "max_retries": 0}
        roles = {"agent": {"model": "a"}, "user": {"model": "u"}, "judge": {"model": "j"}}
        (toy.path / "models.yaml").write_text(json.dumps({"endpoint": endpoint, **roles}))
        args = ("tasks", "--tb-config", "models.yaml", "--tb-repeat", "3", "--tb-cache", "cache")
        toy.runpytest(*args, "--tb-results", "r.jsonl").assert_outcomes(passed=3)
        asked = len(server.requests)
    assert asked
    cache = CacheSettings(str(toy.path / "cache"))
    summary = regrade(toy.path / "r.jsonl", toy.path / "new.jsonl", root=toy.path / "tasks", cache=cache)
    assert (summary.regraded, summary.diverged, summary.requests) == (3, 0, 0)
    old, new = read_records([toy.path / "r.jsonl"]), read_records([toy.path / "new.jsonl"])
    assert [verdict(r) for r in new] == [verdict(r) for r in old]
    for was, now in zip(old, new, strict=True):
        assert now["usage"]["judge"]["cache_hits"] == 1
        assert now["usage"]["agent"] == was["usage"]["agent"]  # the agent's usage is the original run's
    # Without the cache the judge must ask its endpoint, which is gone: a system error of the judge, never a verdict.
    models = load_config(toy.path / "models.yaml")  # the run's judge, with the file's short time-outs
    regrade(toy.path / "r.jsonl", toy.path / "uncached.jsonl", root=toy.path / "tasks", models=models)
    assert {r["error"]["stage"] for r in read_records([toy.path / "uncached.jsonl"])} == {"judge"}


def test_bad_input_is_one_line_naming_the_file_option_or_task(campaign, toy, capsys):
    (toy.path / "notes.txt").write_text("hello\n")
    other = package(toy.path, "other", TASK.replace("TY001_001", "TY002_001"))
    cases = [
        (["regrade", str(toy.path / "notes.txt")], "notes.txt:1: not an attempt record"),
        (["regrade", str(toy.path / "absent.jsonl")], "absent.jsonl: no such results file"),
        (["regrade", str(campaign), "--root", str(other)], "task test_case_TY001_001 no longer exists under"),
        (["regrade", str(campaign), "--cache", str(toy.path / "notes.txt")], "--cache: "),
        (["regrade", str(campaign), "-o", str(campaign)], "that is the file being regraded"),
    ]
    for argv, message in cases:
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err
        assert err.count("\n") == 1, err
    with pytest.raises(ReportError, match=r"r\.jsonl:2: task test_case_TY001_001 no longer exists"):
        regrade(campaign, toy.path / "x.jsonl", root=other)
