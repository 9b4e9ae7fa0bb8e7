"""The offline simulated user and agents."""

from __future__ import annotations

import asyncio

from pytest_thinkingbox import AgentView, Call, User, call
from pytest_thinkingbox.core.episode import InvalidCall
from pytest_thinkingbox.core.tools import ToolSpec
from pytest_thinkingbox.roles.agents import AgentContext, make_agent
from pytest_thinkingbox.roles.users.scripted import AGREE, UNKNOWN, ScriptedUser

BRIEF = User(says="My parcel is late.", knows={"order id": "O-1001", "email": "sam@example.com"})


def _reply(text):
    return asyncio.run(ScriptedUser(BRIEF).reply(text))


def test_scripted_user_reveals_only_what_is_asked_for():
    assert ScriptedUser(BRIEF).opening() == "My parcel is late."
    turn = _reply("Could you give me your order ID?")
    assert turn.text == "My order id is O-1001."
    assert not turn.end
    assert "sam@example.com" not in turn.text
    assert _reply("What is the email on the account and the order id?").text.count("My ") == 2
    assert _reply("Please share the ID of the order.").text == "My order id is O-1001."


def test_scripted_user_does_not_volunteer_facts_the_agent_only_mentions():
    turn = _reply("I have looked at your order and the refund is on its way.")
    assert "O-1001" not in turn.text
    assert turn.end


def test_scripted_user_confirms_never_invents_and_ends_when_agent_closes():
    assert _reply("Shall I proceed with the refund?").text == AGREE
    assert _reply("What is your phone number?").text == UNKNOWN
    assert _reply("Your refund has been issued.").end


TOOLS = [
    ToolSpec("get_order", "", {"properties": {"order_id": {}}}, read_only=True),
    ToolSpec("update_ticket", "", {"properties": {"status": {"enum": ["open", "hold", "solved"]}}}, read_only=False),
    ToolSpec("issue_refund", "", {"properties": {"amount_cents": {}}}, read_only=False),
]
GOLDEN = (
    call("get_order", order_id="O-1"),
    call("update_ticket", ticket_id="T-1", status="hold"),
    call("issue_refund", order_id="O-1", amount_cents=1000),
)


def _plan(name, attempt, seed=7):
    agent = make_agent(name, AgentContext("test_case_X", attempt, seed, GOLDEN))
    view = AgentView("policy", TOOLS, [])
    calls: list[Call | InvalidCall] = []
    while True:
        step = asyncio.run(agent.step(view))
        calls += step.tool_calls
        if step.end:
            return calls, getattr(agent, "fault", None)


def test_golden_replays_every_call_and_noop_makes_none():
    assert _plan("golden", 1)[0] == list(GOLDEN)
    assert _plan("noop", 1)[0] == []


def test_flaky_faults_are_seeded_per_attempt_and_touch_only_writes():
    plans = [_plan("flaky", attempt) for attempt in range(1, 41)]
    assert plans == [_plan("flaky", attempt) for attempt in range(1, 41)]  # reproducible
    faults = [fault for _, fault in plans]
    assert {"drop_write", "alter_argument", "extra_write"} <= set(faults)
    assert None in faults
    for calls, fault in plans:
        assert calls[0] == GOLDEN[0]  # the read is never the fault
        if fault is None:
            assert calls == list(GOLDEN)
        else:
            assert calls != list(GOLDEN)
    assert plans != [_plan("flaky", attempt, seed=8) for attempt in range(1, 41)]
