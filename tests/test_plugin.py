"""The plugin through pytester: attempts, outcomes, results files, errors users can act on."""

from __future__ import annotations

import json

import pytest
from conftest import REFUND_TASK, read_records


def test_repeat_makes_zero_padded_attempt_items_selectable_with_k(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-repeat", "12", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_case_TY001_001[[]attempt01[]]", "*test_case_TY001_001[[]attempt12[]]"])
    toy.runpytest("--tb-repeat", "12", "-k", "attempt03").assert_outcomes(passed=1)


def test_marker_overrides_repeat_per_task(toy):
    toy.makepyfile(
        test_tasks=REFUND_TASK.replace("def test_case", "import pytest\n@pytest.mark.tb_repeat(3)\ndef test_case")
    )
    toy.runpytest("--tb-repeat", "5").assert_outcomes(passed=3)


def test_golden_passes_noop_fails_with_explanation(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.runpytest("--tb-repeat", "2").assert_outcomes(passed=2)
    result = toy.runpytest("--tb-repeat", "2", "--tb-agent", "noop")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*end state differs from the golden end state: 0 wrong, 4 missing, 0 extra",
            "*missing accounts[[]A-1[]].balance_cents: expected 4500, got 500",
            "*missing refunds[[]RF-0001[]]: row not created*",
            "*missing tickets[[]T-9[]].status: expected 'solved', got 'open'",
            "*missing tickets[[]T-9[]].updated_at: expected '2026-01-05 12:00:00.000000', got None",
        ]
    )


def test_results_and_aggregate_files_and_summary(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-repeat", "3", "--tb-results", "out/r.jsonl", "--tb-aggregate", "out/a.json")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*thinkingbox*", "domain*pass@1*pass@3*pass^3*3/3*errors", "toy*1*3*1.000*1.000*1.000*1*0"]
    )
    records = read_records([toy.path / "out/r.jsonl"])
    assert [r["attempt"] for r in records] == [1, 2, 3]
    for r in records:
        assert r["task"] == "test_case_TY001_001"
        assert r["domain"] == "toy"
        assert r["outcome"] == "passed"
        assert (r["wrong"], r["missing"], r["extra"], r["tool_calls"]) == (0, 0, 0, 3)
        assert r["duration_s"] > 0
    assert len({r["start_hash"] for r in records}) == 1
    agg = json.loads((toy.path / "out/a.json").read_text())
    assert agg["k"] == 3
    assert agg["tasks"] == 1
    assert agg["attempts"] == 3
    for figures in (agg["overall"], agg["domains"]["toy"]):
        assert figures["pass@1"] == figures["pass@k"] == figures["pass^k"] == 1.0
        assert figures["all_k"] == 1
        assert figures["tasks"] == 1
        assert figures["errors"] == 0
    assert agg["per_task"]["test_case_TY001_001"] == {"domain": "toy", "passed": 3, "attempts": 3, "errors": 0}


def test_results_are_the_same_with_and_without_xdist(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    counts = []
    for n in ("0", "2"):
        toy.runpytest_subprocess(
            "-n", n, "--tb-repeat", "10", "--tb-agent", "flaky", "--tb-seed", "7", "--tb-results", f"r{n}.jsonl"
        )
        records = read_records([toy.path / f"r{n}.jsonl"])
        # Whole records, transcripts included (under xdist each crosses to the controller as a JSON string);
        # only what the clock or the run decides differs.
        counts.append(
            sorted(
                ({k: v for k, v in r.items() if k not in ("duration_s", "timing", "run")} for r in records),
                key=lambda r: r["attempt"],
            )
        )
    assert counts[0] == counts[1]
    assert {r["outcome"] for r in counts[0]} == {"passed", "failed"}
    assert all(r["transcript"] for r in counts[0])


def test_a_record_crosses_to_the_xdist_controller_as_one_string_and_arrives_whole(pytestconfig):
    from execnet.gateway_base import dumps_internal, loads_internal

    record = {"task": "test_case_TY001_001", "transcript": [{"role": "user", "content": "Refund order O-1"}]}
    report = pytest.TestReport("t.py::test_case_TY001_001", ("t.py", 0, "x"), {}, "passed", None, "call")
    report.tb_record = record  # type: ignore[attr-defined]
    hook = pytestconfig.hook
    sent = dumps_internal(hook.pytest_report_to_serializable(config=pytestconfig, report=report))  # as xdist does
    data = loads_internal(sent)
    assert isinstance(data["tb_record"], str)  # execnet writes it in one piece, not item by item
    assert report.tb_record is record  # the worker's own report keeps its dict
    assert hook.pytest_report_from_serializable(config=pytestconfig, data=data).tb_record == record


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tb-repeat", "0"], "--tb-repeat expects a whole number of at least 1, got '0'"),
        (
            ["--tb-agent", "gpt"],
            "--tb-agent 'gpt' is not an agent; choose one of: golden, noop, flaky, blind:solve, blind:hold, "
            "blind:pending, blind:refuse, blind:comply, blind:rank:1 ... blind:rank:10, blind:family, or openai:MODEL",
        ),
        (["--tb-user", "alice"], "--tb-user 'alice' is not a simulated user; choose one of: scripted, or openai:MODEL"),
    ],
)
def test_bad_options_are_usage_errors(toy, args, message):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_running_twice_in_one_task_is_an_error_not_a_failure(toy):
    toy.makepyfile(
        test_tasks="""
        from pytest_thinkingbox import User, call
        def test_case_TY002_001(tb):
            tb.run(User(says="hi"), golden=[call("issue_refund", account_id="A-0", amount_cents=1)])
            tb.run(User(says="hi"), golden=[call("issue_refund", account_id="A-0", amount_cents=1)])
    """
    )
    result = toy.runpytest("--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_case_TY002_001 calls tb.run twice*"])
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["outcome"] == "error"
    assert record["error"]["stage"] == "task"


@pytest.mark.parametrize(
    ("golden", "expected"),
    [
        (
            'call("refund_everything", account_id="A-0")',
            "*golden call 1, refund_everything(account_id='A-0')*UNKNOWN_TOOL*",
        ),
        (
            'call("issue_refund", account_id="A-0", amount_cents="lots")',
            "*golden call 1, issue_refund(*INVALID_ARGUMENT*",
        ),
        ('call("update_ticket", ticket_id="T-404", status="hold")', "*golden call 1, update_ticket(*NOT_FOUND*T-404*"),
    ],
)
def test_invalid_golden_calls_are_errors_naming_task_and_call(toy, golden, expected):
    toy.makepyfile(
        test_tasks=f"""
        from pytest_thinkingbox import User, call
        def test_case_TY003_001(tb):
            tb.run(User(says="hi"), golden=[{golden}]).expect_golden()
    """
    )
    result = toy.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_case_TY003_001: " + expected.lstrip("*")])


AGENT_WITH_MISTAKES = """
import pytest
from pytest_thinkingbox import call
from pytest_thinkingbox.roles.agents.golden import GoldenAgent

class Clumsy(GoldenAgent):
    def __init__(self, golden):
        super().__init__([call("no_such_tool"), call("issue_refund", account_id="A-1", amount_cents="x"),
                          call("explode"), *golden])

@pytest.fixture(scope="session")
def tb_agent():
    return lambda context: Clumsy(context.golden)
"""


def test_agent_tool_mistakes_and_tool_crashes_are_results_and_the_episode_goes_on(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.makeconftest((toy.path / "conftest.py").read_text() + AGENT_WITH_MISTAKES)
    result = toy.runpytest("--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["tool_calls"] == 6
    assert record["tool_errors"] == 3
    errors = [m["error"] for m in record["transcript"] if m["role"] == "tool"]
    assert errors == ["UNKNOWN_TOOL", "INVALID_ARGUMENT", "INTERNAL", None, None, None]


BROKEN_USER = """
import pytest

class Broken:
    def opening(self):
        return "hello"
    async def reply(self, message, acted=True):
        raise ConnectionError("user endpoint down")

@pytest.fixture(scope="session")
def tb_user():
    return lambda brief: Broken()

@pytest.fixture(scope="session")
def tb_agent():
    from pytest_thinkingbox.roles.agents.noop import NoopAgent
    from pytest_thinkingbox import AgentStep
    class Chatty(NoopAgent):
        async def step(self, view):
            return AgentStep(message="What is your account id?")
    return lambda context: Chatty()
"""


def test_harness_failures_are_system_errors_kept_apart_from_agent_failures(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.makeconftest((toy.path / "conftest.py").read_text() + BROKEN_USER)
    result = toy.runpytest("--tb-results", "r.jsonl", "--tb-aggregate", "a.json")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*raise ConnectionError*"])  # a fault in user code keeps its traceback
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["outcome"] == "error"
    assert record["error"]["stage"] == "user"
    assert "user endpoint down" in record["error"]["message"]
    agg = json.loads((toy.path / "a.json").read_text())
    # a system error is not graded: with no graded attempt there is no pass rate (not a rate of 0)
    assert agg["overall"]["errors"] == 1
    assert agg["overall"]["pass@1"] is None


def test_a_task_without_a_domain_says_how_to_declare_one(pytester):
    pytester.makepyfile(
        test_tasks="""
        def test_case_X(tb):
            pass
    """
    )
    result = pytester.runpytest("--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*no domain for test_tasks: export DOMAIN*define a `tb_domain` fixture in the conftest.py*"]
    )
    [record] = read_records([pytester.path / "r.jsonl"])
    assert (record["task"], record["attempt"], record["outcome"]) == ("test_case_X", 1, "error")
    assert record["error"]["stage"] == "setup"
    assert "tb_domain" in record["error"]["message"]


def test_plugin_load_imports_nothing_heavy(pytester):
    pytester.makepyfile(
        test_light="""
        import sys
        def test_light():
            heavy = {"sqlalchemy", "mcp", "openai", "factory"} & set(sys.modules)
            assert not heavy, heavy
    """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_attempts_see_nothing_of_each_other_under_xdist(toy):
    toy.makepyfile(
        test_isolation="""
        from pytest_thinkingbox import User, call
        from toydomain import Account, AccountFactory, Refund

        def test_case_TY004_001(tb):
            AccountFactory(id="A-marker")
            run = tb.run(User(says="hi"), golden=[call("issue_refund", account_id="A-marker", amount_cents=100)])
            run.expect_golden()
            # Any row another attempt left behind would show here: a second account, or refund RF-0002.
            assert [a.id for a in run.db.query(Account).order_by(Account.id)] == ["A-0", "A-marker"]
            assert [(r.id, r.amount_cents) for r in run.db.query(Refund)] == [("RF-0001", 100)]
    """
    )
    toy.runpytest_subprocess("-n", "2", "--tb-repeat", "40").assert_outcomes(passed=40)


def test_a_failing_seed_is_a_backend_error_naming_the_domain(toy):
    toy.makeconftest("""
        import dataclasses
        import pytest

        def broken_seed(db):
            raise RuntimeError("catalogue file missing")

        @pytest.fixture(scope="session")
        def tb_domain():
            from toydomain import DOMAIN
            return dataclasses.replace(DOMAIN, name="broken", seed=broken_seed)
    """)
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*building the 'broken' database (schema and seed) failed: RuntimeError: catalogue file missing*"]
    )
    [record] = read_records([toy.path / "r.jsonl"])
    assert record["error"]["stage"] == "backend"


NAMED_AGENT = """
import pytest
from pytest_thinkingbox.roles.agents.golden import GoldenAgent

class Mine(GoldenAgent):
    name, version = "support-bot", "1.2"

class Anonymous(GoldenAgent):
    pass

@pytest.fixture(scope="session")
def tb_agent():
    return lambda context: (Mine if context.attempt == 1 else Anonymous)(context.golden)
"""


def test_a_custom_agent_is_recorded_by_its_name_and_never_as_golden(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.makeconftest((toy.path / "conftest.py").read_text() + NAMED_AGENT)
    result = toy.runpytest("--tb-repeat", "2", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=2)
    records = read_records([toy.path / "r.jsonl"])
    assert [r["agent"] for r in records] == ["support-bot@1.2", "custom"]
    result.stdout.fnmatch_lines(["agent custom, support-bot@1.2, user scripted*"])
    lines = (toy.path / "r.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["manifest"]["agent"] == "custom, support-bot@1.2"
    resumed = toy.runpytest("--tb-repeat", "2", "--tb-resume", "r.jsonl")  # the same run: nothing left to do
    assert resumed.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)


def test_a_failed_attempt_shows_what_the_agent_did_in_the_terminal_and_junit(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-agent", "flaky", "--tb-seed", "7", "--tb-repeat", "6", "--junitxml", "junit.xml")
    assert result.parseoutcomes().get("failed", 0) >= 1
    result.stdout.fnmatch_lines(
        ["*Captured stdout: what the agent did*", "user: Please refund the 40 dollars you owe me.", "agent calls *"]
    )
    junit = (toy.path / "junit.xml").read_text()
    assert "agent calls" in junit
    assert "-&gt; " in junit
