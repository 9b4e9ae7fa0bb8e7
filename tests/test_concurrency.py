"""--tb-concurrency: episodes of the next tests start early, while every attempt stays its own test."""

from __future__ import annotations

import gc
import json

import pytest
from conftest import REFUND_TASK, TOY_CONFTEST, read_records

from pytest_thinkingbox.plugin.concurrency import YOUNG_OBJECTS

#: An agent that owns its loop: it waits like a model would, then makes the golden calls (or a wrong refund).
AGENT = """
import asyncio, json, os

IN_FLIGHT = [0, 0, 0]  # now, most at once, episodes started


async def slow(session):
    IN_FLIGHT[2] += 1
    IN_FLIGHT[0] += 1
    IN_FLIGHT[1] = max(IN_FLIGHT[:2])
    try:
        await asyncio.sleep(0.3)
        amount = int(os.environ.get("REFUND", "4000"))
        if amount < 0:
            raise RuntimeError("my framework broke")
        for name, arguments in [
            ("get_account", {"account_id": "A-1"}),
            ("issue_refund", {"account_id": "A-1", "amount_cents": amount}),
            ("update_ticket", {"ticket_id": "T-9", "status": "solved", "note": "refunded"}),
        ]:
            await session.tools.call_tool(name, arguments)
    finally:
        IN_FLIGHT[0] -= 1
    return "Refunded."
"""

#: Writes the most episodes this process had in flight at once, and how many it started, per process.
REPORT_PEAK = """
import json, os
import my_agents

def pytest_sessionfinish(session):
    with open(f"peak-{os.getpid()}.json", "w") as f:  # one file per process (the xdist controller's says 0)
        json.dump(my_agents.IN_FLIGHT[1:], f)
"""


def _campaign(toy, *options: str):
    for old in toy.path.glob("peak-*.json"):
        old.unlink()
    toy.makepyfile(test_tasks=REFUND_TASK, my_agents=AGENT)
    toy.makeconftest(toy.path.joinpath("conftest.py").read_text() + REPORT_PEAK)
    return toy.runpytest_subprocess("-p", "no:randomly", "--tb-agent", "my_agents:slow", *options)


def _peaks(toy) -> list[list[int]]:
    """Per process: the most episodes in flight at once, and the episodes started."""
    return sorted(json.loads(p.read_text()) for p in toy.path.glob("peak-*.json"))


def _graded(path) -> dict:
    """What each attempt's record says about the agent, leaving out timings."""
    return {
        (r["task"], r["attempt"]): (r["outcome"], r["end_hash"], r["differences"], r["transcript"])
        for r in read_records([path])
    }


def test_episodes_overlap_up_to_n_and_grade_as_a_sequential_run(toy):
    _campaign(toy, "--tb-repeat", "8", "--tb-results", "one.jsonl").assert_outcomes(passed=8)
    assert _peaks(toy) == [[1, 8]]
    result = _campaign(toy, "--tb-repeat", "8", "--tb-concurrency", "4", "--tb-results", "four.jsonl")
    result.assert_outcomes(passed=8)
    assert _peaks(toy) == [[4, 8]]  # each episode ran once: the tests adopted the ones started early
    assert _graded(toy.path / "four.jsonl") == _graded(toy.path / "one.jsonl")


def test_on_postgres_the_test_takes_over_the_database_its_episode_wrote(toy, postgres_server):
    """The early episode's database is kept on the server, and the test's session moves onto it."""
    _campaign(toy, "--tb-repeat", "4", "--tb-db", postgres_server, "--tb-results", "one.jsonl").assert_outcomes(
        passed=4
    )
    result = _campaign(toy, "--tb-repeat", "4", "--tb-concurrency", "4", "--tb-db", postgres_server,
                       "--tb-results", "four.jsonl")  # fmt: skip
    result.assert_outcomes(passed=4)
    assert _peaks(toy) == [[4, 4]]
    assert _graded(toy.path / "four.jsonl") == _graded(toy.path / "one.jsonl")


def test_under_xdist_each_worker_keeps_its_own_episodes_in_flight(toy):
    result = _campaign(toy, "-n", "2", "--tb-repeat", "12", "--tb-concurrency", "3", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=12)
    peaks = _peaks(toy)
    assert max(peak for peak, _ in peaks) == 3
    assert sum(started for _, started in peaks) == 12  # no episode started twice, none on both workers
    assert sorted(r["attempt"] for r in read_records([toy.path / "r.jsonl"])) == list(range(1, 13))


def test_a_wrong_agent_fails_with_the_same_difference(toy, monkeypatch):
    monkeypatch.setenv("REFUND", "5000")
    result = _campaign(toy, "--tb-repeat", "4", "--tb-concurrency", "4")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*wrong*balance_cents: expected 4500, got 5500*"])


def test_an_agent_error_in_an_early_episode_is_that_attempts_system_error(toy, monkeypatch):
    monkeypatch.setenv("REFUND", "-1")
    result = _campaign(toy, "--tb-repeat", "3", "--tb-concurrency", "3", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=3)
    records = read_records([toy.path / "r.jsonl"])
    assert [r["error"]["stage"] for r in records] == ["agent"] * 3
    assert all("my framework broke" in r["error"]["message"] for r in records)


def test_a_task_that_arranges_another_start_state_runs_its_episode_again(toy):
    """The early pass and the test itself see different rows: the early episode is dropped, not adopted, and the
    attempt is the error of a task whose arrange step is not deterministic, as without early starts."""
    drifting = REFUND_TASK.replace(
        "    account = AccountFactory(balance_cents=500)",
        "    COUNT.append(1)\n    account = AccountFactory(balance_cents=500, owner=f'run {len(COUNT)}')",
    )
    toy.makepyfile(test_tasks="COUNT = []\n" + drifting, my_agents=AGENT)
    toy.makeconftest(toy.path.joinpath("conftest.py").read_text() + REPORT_PEAK)
    result = toy.runpytest_subprocess(
        "-p", "no:randomly", "--tb-agent", "my_agents:slow", "--tb-repeat", "4", "--tb-concurrency", "2"
    )
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines(["*attempt 2 starts from another state than attempt 1 did*not deterministic*"])
    [[_, started]] = _peaks(toy)
    assert started >= 2  # attempt 1's own episode, and an early one that its test refused instead of adopting


#: Writes, per process, the peaks (as REPORT_PEAK) and how many times the task's body ran.
REPORT_PEAK_AND_BODIES = """
import json, os
import my_agents, test_tasks

def pytest_sessionfinish(session):
    with open(f"peak-{os.getpid()}.json", "w") as f:
        json.dump(my_agents.IN_FLIGHT[1:], f)
    with open(f"bodies-{os.getpid()}.txt", "w") as f:
        f.write(str(len(test_tasks.COUNT)))
"""


def _counting(toy, task: str, *options: str):
    """Run `task` (its body appends to COUNT); return the result and how often each process ran the body."""
    for old in [*toy.path.glob("bodies-*.txt"), *toy.path.glob("peak-*.json")]:
        old.unlink()
    toy.makepyfile(test_tasks="COUNT = []\n" + task, my_agents=AGENT)
    toy.makeconftest(TOY_CONFTEST + REPORT_PEAK_AND_BODIES)
    result = toy.runpytest_subprocess("-p", "no:randomly", "--tb-agent", "my_agents:slow", *options)
    return result, sorted(int(p.read_text()) for p in toy.path.glob("bodies-*.txt"))


def test_later_attempts_start_early_from_the_start_state_an_earlier_one_arranged(toy):
    """The task's body runs once per test, and once more for the first early start; results are as sequential."""
    counting = REFUND_TASK.replace("    account = ", "    COUNT.append(1)\n    account = ")
    sequential, bodies = _counting(toy, counting, "--tb-repeat", "8", "--tb-results", "one.jsonl")
    sequential.assert_outcomes(passed=8)
    assert bodies == [8]
    result, bodies = _counting(toy, counting, "--tb-repeat", "8", "--tb-concurrency", "4", "--tb-results", "four.jsonl")
    result.assert_outcomes(passed=8)
    assert bodies == [8 + 1]  # the other early starts took the start state the first one arranged
    assert _peaks(toy) == [[4, 8]]  # four episodes in flight at once, each started once
    assert _graded(toy.path / "four.jsonl") == _graded(toy.path / "one.jsonl")


#: A fixture of every test that counts its set-ups; and, with AGENT_PER_TEST set, `tb_agent` built per test.
SETUP_COUNTER = """
import os
import pytest

SETUPS = []

@pytest.fixture(autouse=True)
def counted():
    SETUPS.append(1)
    with open(f"setups-{os.getpid()}.txt", "w") as f:
        f.write(str(len(SETUPS)))

if os.environ.get("AGENT_PER_TEST"):
    @pytest.fixture
    def tb_agent():
        from my_agents import slow
        return lambda context: slow
"""


@pytest.mark.parametrize("agent_per_test", [False, True])
def test_an_early_start_from_a_prepared_start_runs_no_fixture_of_its_test(toy, monkeypatch, agent_per_test):
    """Started early from its task's prepared start, a test's fixtures and body run once, in its turn; with
    `tb_agent` built per test, the agent its turn gets is known only once its fixtures are set up, so its early
    pass sets them up (but still skips the body)."""
    if agent_per_test:
        monkeypatch.setenv("AGENT_PER_TEST", "1")
    counting = REFUND_TASK.replace("    account = ", "    COUNT.append(1)\n    account = ")
    toy.makepyfile(test_tasks="COUNT = []\n" + counting, my_agents=AGENT)
    toy.makeconftest(TOY_CONFTEST + REPORT_PEAK_AND_BODIES + SETUP_COUNTER)
    result = toy.runpytest_subprocess(
        "-p", "no:randomly", "--tb-agent", "my_agents:slow", "--tb-repeat", "8", "--tb-concurrency", "4",
        "--tb-results", "four.jsonl",
    )  # fmt: skip
    result.assert_outcomes(passed=8)
    [setups] = [int(p.read_text()) for p in toy.path.glob("setups-*.txt")]
    [bodies] = [int(p.read_text()) for p in toy.path.glob("bodies-*.txt")]
    # The first early pass prepares the task's start for the rest; with an agent per test, they set up its fixtures.
    assert (setups, bodies) == (8 + (7 if agent_per_test else 1), 8 + 1)
    assert _peaks(toy) == [[4, 8]]
    assert all(r["outcome"] == "passed" for r in read_records([toy.path / "four.jsonl"]))


def test_an_episode_started_for_another_user_brief_is_not_adopted(toy):
    """Same start state, but the user says something else each time: every test runs the episode it asks for."""
    drifting = REFUND_TASK.replace(
        '        User(says="Please refund the 40 dollars you owe me.",',
        '        User(says=f"Please refund the 40 dollars you owe me ({len(COUNT)}).",',
    ).replace("    account = AccountFactory(", "    COUNT.append(1)\n    account = AccountFactory(")
    result, _ = _counting(toy, drifting, "--tb-repeat", "4", "--tb-concurrency", "2", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=4)
    [[_, started]] = _peaks(toy)
    assert started > 4  # the early episodes were dropped and each test ran its own
    openings = [r["transcript"][0]["content"] for r in read_records([toy.path / "r.jsonl"])]
    assert len(set(openings)) == 4  # each attempt's record holds the opening its own test asked for


def test_stopping_early_drops_the_episodes_in_flight(toy, monkeypatch):
    monkeypatch.setenv("REFUND", "5000")
    result = _campaign(toy, "--tb-repeat", "6", "--tb-concurrency", "4", "-x", "-W", "error")
    result.assert_outcomes(failed=1)
    assert "Task was destroyed" not in result.stderr.str() + result.stdout.str()


def test_concurrency_must_be_a_whole_number(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-concurrency", "0")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--tb-concurrency expects a whole number of at least 1, got '0'*"])


#: A fixture whose first set-up of each test fails or skips (FIRST_SETUP), as a resource the early pass cannot have.
FIRST_SETUP = """
import collections, json, os
import pytest

SETUPS = collections.Counter()

@pytest.fixture(autouse=True)
def fussy(request):
    SETUPS[request.node.nodeid] += 1
    if SETUPS[request.node.nodeid] == 1 and not request.node.name.endswith("[attempt01]"):
        if os.environ["FIRST_SETUP"] == "skips":
            pytest.skip("the licence server is busy")
        raise RuntimeError("the licence server allows one session at a time")

def pytest_sessionfinish(session):
    with open("setups.json", "w") as f:
        json.dump(SETUPS, f)
"""


@pytest.mark.parametrize("first_setup", ["fails", "skips"])
def test_an_early_pass_that_starts_no_episode_is_not_tried_again(toy, monkeypatch, first_setup):
    """The test then runs in its turn; a failure it met early shows as one warning, not as its outcome."""
    monkeypatch.setenv("FIRST_SETUP", first_setup)
    toy.makepyfile(test_tasks=REFUND_TASK, my_agents=AGENT)
    toy.makeconftest(toy.path.joinpath("conftest.py").read_text() + FIRST_SETUP)
    result = toy.runpytest_subprocess(
        "-p", "no:randomly", "--tb-agent", "my_agents:slow", "--tb-repeat", "6", "--tb-concurrency", "3"
    )
    if first_setup == "fails":
        result.assert_outcomes(passed=6, warnings=1)
        result.stdout.fnmatch_lines(
            ["*starting * early failed in setup (RuntimeError: the licence server allows one session at a time)*"]
        )
    else:
        result.assert_outcomes(passed=6)
    setups = json.loads((toy.path / "setups.json").read_text())
    assert sorted(setups.values()) == [1] + [2] * 5  # one early pass each, then the test itself


def test_while_episodes_run_concurrently_young_garbage_is_collected_less_often(toy):
    """An episode in flight outlives many young collections; the process's threshold comes back afterwards."""
    toy.makepyfile(test_tasks=REFUND_TASK, my_agents=AGENT)
    toy.makeconftest(
        toy.path.joinpath("conftest.py").read_text()
        + "\nimport gc\n\ndef pytest_sessionfinish(session):\n    session.config.young = gc.get_threshold()[0]\n"
    )
    before = gc.get_threshold()
    for n, young in [("1", before[0]), ("4", YOUNG_OBJECTS)]:
        result = toy.inline_run("-p", "no:randomly", "--tb-agent", "golden", "--tb-repeat", "2", "--tb-concurrency", n)
        result.assertoutcome(passed=2)
        assert result.getcalls("pytest_sessionfinish")[0].session.config.young == young
        assert gc.get_threshold() == before
