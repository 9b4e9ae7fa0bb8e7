"""Once an attempt's record is written, nothing the session keeps holds its transcript.

Items, their reports (pytest's terminal reporter keeps every one) and the
results keeper live to the end of the session; if any of them held the
attempt, its episode or its record, memory would grow with every attempt run.
"""

from __future__ import annotations

import json

import pytest
from conftest import REFUND_TASK, TOY_CONFTEST

#: Hooks that watch the attempts of a run: weak references to each attempt and its episode, taken before
#: teardown, and at the end of the session whether any is still alive and where full records remain.
RETENTION_CONFTEST = (
    TOY_CONFTEST
    + """
import gc
import json
import sys
import weakref

from pytest_thinkingbox.plugin.outcomes import ATTEMPT

WATCHED = []


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item):
    attempt = item.stash.get(ATTEMPT, None)
    if attempt is not None and attempt.last_run is not None:
        WATCHED.append((weakref.ref(attempt), weakref.ref(attempt.last_run.episode)))
    return (yield)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    # pytest keeps the last failure's traceback (sys.last_traceback, for post-mortem debugging): one
    # attempt at most, not one per attempt, so it is let go before counting.
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)
    gc.collect()
    config = session.config
    reports = [r for rs in config.pluginmanager.get_plugin("terminalreporter").stats.values() for r in rs]
    results = config.pluginmanager.get_plugin("thinkingbox-results")
    seen = {
        "watched": len(WATCHED),
        "alive": sum(a() is not None or e() is not None for a, e in WATCHED),
        "reports_with_transcript": sum("transcript" in getattr(r, "tb_record", {}) for r in reports),
        "records_kept": len(results.records) if results else None,
        "records_with_transcript": sum("transcript" in r for r in results.records) if results else None,
    }
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    with open(f"retention-{worker}.json", "w") as out:
        json.dump(seen, out)
"""
)


def _seen(path) -> dict[str, dict]:
    return {p.stem.removeprefix("retention-"): json.loads(p.read_text()) for p in path.glob("retention-*.json")}


@pytest.mark.parametrize("agent", ["golden", "noop"])  # records of passed and of failed attempts
def test_no_attempt_outlives_its_record_in_one_process(toy, agent):
    toy.makeconftest(RETENTION_CONFTEST)
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest_subprocess("--tb-repeat", "4", "--tb-agent", agent, "--tb-results", "r.jsonl")
    result.assert_outcomes(**{"passed" if agent == "golden" else "failed": 4})
    records = [json.loads(line) for line in (toy.path / "r.jsonl").read_text().splitlines()[1:-1]]
    assert len(records) == 4
    assert all(r["transcript"] for r in records)
    assert _seen(toy.path) == {
        "main": {
            "watched": 4,
            "alive": 0,
            "reports_with_transcript": 0,
            "records_kept": 4,
            "records_with_transcript": 0,
        }
    }


def test_no_attempt_outlives_its_record_under_xdist(toy):
    toy.makeconftest(RETENTION_CONFTEST)
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest_subprocess("-n", "2", "--tb-repeat", "6", "--tb-agent", "noop", "--tb-results", "r.jsonl")
    result.assert_outcomes(failed=6)
    result.stdout.fnmatch_lines(["*what the agent did*"])  # failed reports still show the transcript
    seen = _seen(toy.path)
    assert sorted(seen) == ["gw0", "gw1", "main"]
    workers = [seen["gw0"], seen["gw1"]]
    assert sum(w["watched"] for w in workers) == 6
    assert all(w["alive"] == 0 and w["reports_with_transcript"] == 0 for w in workers)
    assert seen["main"]["records_kept"] == 6
    assert seen["main"]["records_with_transcript"] == 0
    assert seen["main"]["reports_with_transcript"] == 0
