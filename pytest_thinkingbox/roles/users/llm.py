"""A simulated user played by a model, briefed from the task's `User(...)`.

The model sees its brief (opening request, persona, private facts, rules) and
the conversation from the customer's side: the agent's messages arrive as the
other party, its own earlier replies as its own. It ends the conversation by
writing the stop marker, which is cut from the text the agent sees.
"""

from __future__ import annotations

from typing import Any

from ...core.episode import UserTurn
from ...core.task import User
from ..endpoint import Endpoint, Usage

STOP = "###STOP###"
RULES = (
    "Never invent facts: if you are asked for something not listed above, say you do not have it.",
    "Reveal a private fact only when the agent asks for it, and repeat it if asked again.",
    "Stay on your goal; do not accept something other than what you asked for unless the agent "
    "explains the policy that prevents it.",
    "Keep each reply short, as a customer would write it.",
    f"When your request has been handled, refused with a reason, or the agent says goodbye, end with {STOP}.",
)


def brief_prompt(brief: User) -> str:
    """The user model's system prompt; the agent never sees it."""
    facts = "\n".join(f"- {k}: {v}" for k, v in brief.knows.items()) or "- (none)"
    rules = "\n".join(f"- {r}" for r in (*RULES, *brief.rules))
    persona = f"\n\nWho you are: {brief.persona}" if brief.persona else ""
    return (
        "You are playing a customer who contacts a support agent. You are not the agent."
        f"{persona}\n\nYou opened the conversation with:\n{brief.says}\n\n"
        f"Private facts you know:\n{facts}\n\nRules:\n{rules}"
    )


class LLMUser:
    """One attempt's simulated user; `usage` counts its tokens, calls and retries."""

    def __init__(self, brief: User, endpoint: Endpoint) -> None:
        self._brief, self._endpoint = brief, endpoint
        self._system = brief_prompt(brief)
        # From the user model's side, the agent is the other party ("user") and it is the "assistant".
        self._dialogue: list[dict[str, Any]] = [{"role": "assistant", "content": brief.says}]
        self.usage = Usage(model=endpoint.config.model)

    def opening(self) -> str:
        return self._brief.says

    async def reply(self, message: str) -> UserTurn:
        self._dialogue.append({"role": "user", "content": message})
        reply = await self._endpoint.complete(self._system, self._dialogue, self.usage)
        text = reply.text or ""
        self._dialogue.append({"role": "assistant", "content": text})
        end = STOP in text
        return UserTurn(text.replace(STOP, "").strip() or "Thank you, goodbye.", end=end)
