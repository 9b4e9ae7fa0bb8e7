"""The reference agent: replays the task's golden calls, then closes (with the task's reference reply if any)."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.episode import AgentStep, AgentView
from ...core.task import Call

CLOSING = "I have taken care of your request. Is there anything else? Otherwise, have a good day."


class GoldenAgent:
    """Makes each golden call in order (one per step), then sends a closing message."""

    def __init__(self, calls: Sequence[Call], reply: str | None = None) -> None:
        self._pending = list(calls)
        self._reply = reply or CLOSING

    async def step(self, view: AgentView) -> AgentStep:
        if self._pending:
            return AgentStep(tool_calls=[self._pending.pop(0)])
        return AgentStep(message=self._reply, end=True)
