"""The do-nothing agent: answers the user politely and never touches a record.

Every well-written task fails under it; a task that passes checks nothing.
"""

from __future__ import annotations

from ...core.episode import AgentStep, AgentView

REPLY = "Thank you for reaching out. I have noted your request and will get back to you."


class NoopAgent:
    async def step(self, view: AgentView) -> AgentStep:
        return AgentStep(message=REPLY, end=True)
