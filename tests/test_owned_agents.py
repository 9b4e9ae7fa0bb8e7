"""Agents that own their loop: the session's doors to the tools, the conversation, limits and faults."""

from __future__ import annotations

import textwrap

import pytest
from conftest import REFUND_TASK, read_records

#: An agent module: `refund` asks for the account, then makes the golden calls through the door named by DOOR.
AGENT = """
import asyncio, socket, subprocess, sys

DOOR = "{door}"
URLS = []


async def refund(session):
    reply = await session.say("What is your account id?")
    account = reply.split()[-1].rstrip(".")
    calls = [
        ("get_account", {{"account_id": account}}),
        ("issue_refund", {{"account_id": account, "amount_cents": {amount}}}),
        ("update_ticket", {{"ticket_id": "T-9", "status": "solved", "note": "refunded"}}),
    ]
    if DOOR == "tools":
        for name, arguments in calls:
            await session.tools.call_tool(name, arguments)
    elif DOOR == "url":
        from mcp import Client

        URLS.append(session.url)
        async with Client(session.url) as client:
            assert [t.name for t in (await client.list_tools()).tools][:2] == ["get_account", "issue_refund"]
            for name, arguments in calls:
                await client.call_tool(name, arguments)
    else:  # another process speaks to the URL
        script = (
            "import asyncio, json, sys\\n"
            "from mcp import Client\\n"
            "async def main():\\n"
            "    async with Client(sys.argv[1]) as client:\\n"
            "        for name, arguments in json.loads(sys.argv[2]):\\n"
            "            await client.call_tool(name, arguments)\\n"
            "asyncio.run(main())\\n"
        )
        import json
        child = await asyncio.create_subprocess_exec(sys.executable, "-c", script, session.url, json.dumps(calls))
        assert await child.wait() == 0
    return "Your refund is on its way."


refund.name, refund.version = "refunder", "2"


async def loops(session):
    while True:
        await session.tools.call_tool("get_account", {{"account_id": "A-1"}})


async def sleeps(session):
    await asyncio.sleep(30)


async def crashes(session):
    await session.tools.call_tool("get_account", {{"account_id": "A-1"}})
    raise RuntimeError("my framework broke")


async def chats(session):
    while True:
        await session.say("Could you tell me your account id?")
"""


def _agent(toy, door="tools", amount=4000):
    toy.makepyfile(test_tasks=REFUND_TASK, my_agents=AGENT.format(door=door, amount=amount))


@pytest.mark.parametrize("door", ["tools", "url", "process"])
def test_each_door_reaches_the_attempts_database_and_every_call_is_recorded(toy, door):
    _agent(toy, door)
    result = toy.runpytest_subprocess("--tb-agent", "my_agents:refund", "--tb-repeat", "2", "--tb-results", "r.jsonl")
    result.assert_outcomes(passed=2)
    records = read_records([toy.path / "r.jsonl"])
    assert {r["agent"] for r in records} == {"refunder@2"}
    assert "agent refunder@2" in result.stdout.str()
    transcript = records[0]["transcript"]
    said = [(m["role"], m.get("content")) for m in transcript if not m.get("tool_calls") and m["role"] != "tool"]
    assert said[1:] == [
        ("assistant", "What is your account id?"),
        ("user", "My account id is A-1."),
        ("assistant", "Your refund is on its way."),
    ]
    called = [c["tool"] for m in transcript for c in m.get("tool_calls") or []]
    assert called == ["get_account", "issue_refund", "update_ticket"]
    assert records[0]["end_reason"] == "agent_end"
    assert records[0]["tool_calls"] == 3


def test_a_wrong_agent_fails_with_the_difference(toy):
    _agent(toy, "url", amount=5000)
    result = toy.runpytest("--tb-agent", "my_agents:refund")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*wrong*balance_cents: expected 4500, got 5500*", "*agent calls issue_refund*5000*"])


def test_endpoints_are_per_attempt_and_close_with_it(toy):
    _agent(toy, "url")
    toy.makeconftest(
        toy.path.joinpath("conftest.py").read_text()
        + textwrap.dedent(
            """
            import socket
            import my_agents

            def pytest_sessionfinish():
                assert len(set(my_agents.URLS)) == len(my_agents.URLS) == 3
                for url in my_agents.URLS:  # nothing listens once the attempt is over
                    port = int(url.rsplit(":", 1)[1].split("/")[0])
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    except ConnectionRefusedError:
                        continue
                    raise AssertionError(f"{url} still listens")
            """
        )
    )
    toy.runpytest("--tb-agent", "my_agents:refund", "--tb-repeat", "3").assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("agent", "options", "end_reason", "tool_calls"),
    [
        ("loops", ["--tb-max-steps", "5"], "max_steps", 5),
        ("sleeps", ["--tb-time-limit", "1"], "time_limit", 0),
        ("chats", ["--tb-max-turns", "3"], "max_turns", 0),
    ],
)
def test_limits_end_an_agent_that_owns_its_loop(toy, agent, options, end_reason, tool_calls):
    _agent(toy)
    result = toy.runpytest("--tb-agent", f"my_agents:{agent}", "--tb-results", "r.jsonl", *options)
    result.assert_outcomes(failed=1)
    (record,) = read_records([toy.path / "r.jsonl"])
    assert (record["end_reason"], record["tool_calls"]) == (end_reason, tool_calls)
    assert record["agent"] == f"my_agents:{agent}"  # unnamed: called by its import path


def test_an_agent_that_raises_is_a_system_error_of_stage_agent(toy):
    _agent(toy)
    result = toy.runpytest("--tb-agent", "my_agents:crashes", "--tb-results", "r.jsonl")
    result.assert_outcomes(errors=1)
    (record,) = read_records([toy.path / "r.jsonl"])
    assert record["error"]["stage"] == "agent"
    assert "my framework broke" in record["error"]["message"]
    assert [c["tool"] for m in record["transcript"] for c in m.get("tool_calls") or []] == ["get_account"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere:agent", "importing nowhere failed: ModuleNotFoundError"),
        ("my_agents:missing", "my_agents has no 'missing'"),
        ("my_agents:DOOR", "is a str; name an async function or a class"),
        ("absent.py:agent", "no file"),
    ],
)
def test_a_bad_agent_path_is_a_usage_error(toy, spec, message):
    _agent(toy)
    result = toy.runpytest("--tb-agent", spec)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--tb-agent {spec!r}*{message}*"])


def test_a_file_path_and_a_class_work_too(toy):
    _agent(toy)
    toy.makepyfile(
        stepper="""
        from pytest_thinkingbox import AgentStep

        class Closer:
            async def step(self, view):
                return AgentStep(message="Goodbye.", end=True)
        """
    )
    result = toy.runpytest("--tb-agent", "stepper.py:Closer", "--tb-results", "r.jsonl")
    result.assert_outcomes(failed=1)
    assert read_records([toy.path / "r.jsonl"])[0]["agent"] == "stepper.py:Closer"
