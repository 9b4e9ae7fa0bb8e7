"""The episode loop: limits end an episode with a recorded reason; every call is answered."""

from __future__ import annotations

import asyncio

import toydomain

from pytest_thinkingbox import User, call
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.core.episode import AgentStep, Limits, run_episode
from pytest_thinkingbox.core.tools import ToolSession
from pytest_thinkingbox.roles.users.scripted import ScriptedUser


class Looping:
    """Asks the same question forever, or calls a read tool forever."""

    def __init__(self, ask: bool) -> None:
        self.ask = ask

    async def step(self, view):
        if self.ask:
            return AgentStep(message="What is your favourite colour?")
        return AgentStep(tool_calls=[call("get_account", account_id="A-0"), call("get_account", account_id="A-0")])


def _episode(agent, limits):
    sqlite = SQLiteBackend()
    db = sqlite.restore(sqlite.build_image(toydomain.Base.metadata, toydomain.seed))

    async def go():
        async with ToolSession(toydomain.tools, db) as tools:
            return await run_episode(agent, ScriptedUser(User(says="hi")), tools, "policy", limits)

    return asyncio.run(go())


def test_turn_limit_ends_the_episode():
    episode = _episode(Looping(ask=True), Limits(max_turns=3))
    assert episode.end_reason == "max_turns"
    assert episode.turns == 3
    assert [m["role"] for m in episode.messages] == ["user"] + ["assistant", "user"] * 3 + ["assistant"]


def test_step_limit_ends_the_episode_and_parallel_calls_are_all_answered():
    episode = _episode(Looping(ask=False), Limits(max_steps=4))
    assert episode.end_reason == "max_steps"
    assert episode.steps == 4
    assert episode.tool_calls == 8
    assert episode.tool_errors == 0
    answered = [m["call_id"] for m in episode.messages if m["role"] == "tool"]
    asked = [c["id"] for m in episode.messages if m.get("tool_calls") for c in m["tool_calls"]]
    assert answered == asked
    assert len(set(asked)) == 8


def test_time_limit_ends_the_episode():
    episode = _episode(Looping(ask=False), Limits(time_limit_s=0.0))
    assert episode.end_reason == "time_limit"
