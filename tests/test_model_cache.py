"""The model cache (--tb-cache): a campaign run again with it makes no request and comes to the same verdicts.

Against the local scripted OpenAI-compatible server, whose request log counts what reached it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REFUND_TASK, read_records

from pytest_thinkingbox.roles.cache import CacheSettings, ModelCache, parse_age
from pytest_thinkingbox.serve.model_server import Script, ScriptedModelServer

OPENING = "Please refund the 40 dollars you owe me."
#: The agent refunds, solves the ticket and asks if there is more; the user thanks it and stops.
ASKS = Script(
    [
        {"tool": "get_account", "arguments": {"account_id": "A-1"}},
        {"tool": "issue_refund", "arguments": {"account_id": "A-1", "amount_cents": 4000}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-9", "status": "solved", "note": "refunded"}},
    ],
    reply="Your 40 dollars are refunded. Anything else?",
    end=False,
)
RUBRIC_TASK = REFUND_TASK.replace(
    '    assert run.db.get(Ticket, "T-9").status == "solved"',
    '    assert run.db.get(Ticket, "T-9").status == "solved"\n'
    '    run.rubric("Did the agent say the money was refunded?", phrases=["refunded"])',
)
#: What an attempt came to: the fields a verdict is made of.
VERDICT = ("task", "attempt", "outcome", "failure", "error", "wrong", "missing", "extra", "differences",
           "violations", "rubric", "transcript", "end_hash", "golden_hash", "signature")  # fmt: skip


def completions(server: ScriptedModelServer) -> int:
    return sum(path.endswith(("/chat/completions", "/responses")) for path in server.requests)


def verdicts(path: Path) -> list[str]:
    return [json.dumps({k: r.get(k) for k in VERDICT}, sort_keys=True) for r in read_records([path])]


@pytest.fixture
def served(toy: pytest.Pytester) -> Iterator[ScriptedModelServer]:
    """The toy refund task with a rubric question; agent, user and judge all served by the scripted server."""
    with ScriptedModelServer({OPENING: ASKS}) as server:
        toy.makepyfile(test_tasks=RUBRIC_TASK)
        endpoint = {"base_url": server.base_url, "api_key_env": None, "timeout_s": 5, "max_retries": 1}
        roles = {"agent": {"model": "a"}, "user": {"model": "u"}, "judge": {"model": "j"}}
        (toy.path / "models.yaml").write_text(json.dumps({"endpoint": endpoint, **roles}))
        yield server


def test_a_cached_campaign_run_again_makes_no_request_and_comes_to_the_same_verdicts(toy, served):
    args = ("--tb-config", "models.yaml", "--tb-repeat", "2", "--tb-cache", "cache", "-p", "no:randomly")
    toy.runpytest(*args, "--tb-results", "first.jsonl").assert_outcomes(passed=2)
    asked = completions(served)
    assert asked == 2 * (4 + 1 + 1)  # per attempt: 4 agent turns, 1 user turn, 1 judge question
    toy.runpytest(*args, "--tb-results", "second.jsonl").assert_outcomes(passed=2)
    assert completions(served) == asked  # none more
    assert verdicts(toy.path / "second.jsonl") == verdicts(toy.path / "first.jsonl")
    first, second = read_records([toy.path / "first.jsonl"]), read_records([toy.path / "second.jsonl"])
    for was, now in zip(first, second, strict=True):
        for role in ("agent", "user", "judge"):
            then, cached = was["usage"][role], now["usage"][role]
            assert "cache_hits" not in then  # nothing was read from the cache the first time
            assert cached["calls"] == 0  # no request made...
            assert cached["cache_hits"] == then["calls"]  # ...every answer read instead
            for kind in ("input_tokens", "output_tokens"):
                assert cached[kind] == then[kind] > 0  # the answers' usage kept for cost figures
                assert cached[f"cache_hit_{kind}"] == then[kind]  # and said to be the cache's, not paid again


def test_each_attempt_has_its_own_answers(toy, served):
    """Attempt 2 sends what attempt 1 sent, but is another draw of the model: never attempt 1's answer."""
    toy.runpytest("--tb-config", "models.yaml", "--tb-cache", "cache", "--tb-results", "one.jsonl")
    once = completions(served)
    toy.runpytest("--tb-config", "models.yaml", "--tb-cache", "cache", "--tb-repeat", "3", "--tb-results", "r.jsonl")
    assert completions(served) == 3 * once  # attempt 1's answers were kept; attempts 2 and 3 were asked anew
    records = read_records([toy.path / "r.jsonl"])
    assert [r["usage"]["agent"].get("cache_hits", 0) for r in records] == [4, 0, 0]


def test_the_modes_read_write_and_off(toy, served):
    base = ("--tb-config", "models.yaml", "--tb-cache", "cache")
    (toy.path / "cache").mkdir()
    asked: list[int] = []
    for mode in ("read", "write", "write", "off", "readwrite", "read"):
        toy.runpytest(*base, "--tb-cache-mode", mode).assert_outcomes(passed=1)
        asked.append(completions(served) - sum(asked))
        if mode == "read" and len(asked) == 1:
            assert not list((toy.path / "cache").rglob("*.json"))  # read finds nothing and keeps nothing
    # write asks anew every time (a refresh) and keeps what it got; off leaves the cache alone
    assert asked == [6, 6, 6, 6, 0, 0]
    assert len(list((toy.path / "cache").rglob("*.json"))) == 6


def test_answers_older_than_the_max_age_are_asked_again(toy, served):
    base = ("--tb-config", "models.yaml", "--tb-cache", "cache")
    toy.runpytest(*base).assert_outcomes(passed=1)
    asked = completions(served)
    for entry in (toy.path / "cache").rglob("*.json"):  # kept two hours ago
        data = json.loads(entry.read_text())
        entry.write_text(json.dumps({**data, "kept": data["kept"] - 7200}))
    toy.runpytest(*base, "--tb-cache-max-age", "3h").assert_outcomes(passed=1)
    assert completions(served) == asked
    toy.runpytest(*base, "--tb-cache-max-age", "1h").assert_outcomes(passed=1)
    assert completions(served) == 2 * asked  # expired: asked again, and kept anew
    toy.runpytest(*base, "--tb-cache-max-age", "1h").assert_outcomes(passed=1)
    assert completions(served) == 2 * asked


def test_the_config_files_cache_section(toy, served):
    config = json.loads((toy.path / "models.yaml").read_text())
    (toy.path / "models.yaml").write_text(json.dumps({**config, "cache": {"dir": "kept", "max_age": "7d"}}))
    toy.runpytest("--tb-config", "models.yaml").assert_outcomes(passed=1)
    toy.runpytest("--tb-config", "models.yaml").assert_outcomes(passed=1)
    assert completions(served) == 6
    assert len(list((toy.path / "kept").rglob("*.json"))) == 6


def test_a_cached_campaign_under_xdist_makes_no_request_the_second_time(toy, served):
    args = ("--tb-config", "models.yaml", "--tb-repeat", "4", "--tb-cache", "cache", "-n", "2")
    toy.runpytest_subprocess(*args, "--tb-results", "first.jsonl").assert_outcomes(passed=4)
    asked = completions(served)
    assert asked == 4 * 6
    toy.runpytest_subprocess(*args, "--tb-results", "second.jsonl").assert_outcomes(passed=4)
    assert completions(served) == asked
    assert sorted(verdicts(toy.path / "second.jsonl")) == sorted(verdicts(toy.path / "first.jsonl"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tb-cache", "a-file"), "*--tb-cache: *a-file is a file, not a folder*"),
        (("--tb-cache", "absent", "--tb-cache-mode", "read"), "*absent does not exist, and mode read only reads*"),
        (("--tb-cache-mode", "sometimes"), "*--tb-cache-mode: expected one of readwrite, read, write, off*"),
        (("--tb-cache", "c", "--tb-cache-max-age", "soon"), "*--tb-cache-max-age: expected an age such as*"),
        (("--tb-cache-mode", "read"), "*--tb-cache-mode needs a cache folder: give --tb-cache DIR*"),
    ],
)
def test_a_cache_that_cannot_be_used_is_one_usage_error_naming_it(toy, args, message):
    (toy.path / "a-file").write_text("")
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_concurrent_writers_of_one_entry_never_leave_a_reader_half_an_entry(tmp_path):
    cache = ModelCache(CacheSettings(str(tmp_path)))
    key = cache.key("/chat/completions", b"{}", "t#1#0", 0)
    big = {"choices": [{"message": {"content": "x" * 200_000}}], "usage": {"prompt_tokens": 1}}
    seen: list[object] = []

    def write() -> None:
        for _ in range(30):
            cache.put(key, big, "m")

    def read() -> None:
        for _ in range(300):
            seen.append(cache.get(key))

    threads = [threading.Thread(target=write) for _ in range(3)] + [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s is None or s == big for s in seen)
    assert cache.get(key) == big
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]  # no temporary left behind
    (tmp_path / key[:2] / f"{key}.json").write_text('{"kept": 1, "resp')  # damaged by hand: a miss
    assert cache.get(key) is None


def test_ages_are_read_in_the_usual_units():
    ages = ("90", "90s", "30m", "12h", "7d", "1w", 5)
    assert [parse_age(t) for t in ages] == [90, 90, 1800, 43200, 604800, 604800, 5]
    for bad in ("0", "-3h", "3 days", ""):
        with pytest.raises(ValueError, match="age"):
            parse_age(bad)
