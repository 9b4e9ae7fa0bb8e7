"""A simulated user played by a model, briefed from the task's `User(...)`.

The model sees its brief (opening request, persona, private facts, the general
rules, and the task's own rules, which win where they differ) in its system
prompt, and the conversation from the customer's side: every request's
dialogue starts with a user turn (the agent's first message), as chat
templates that require one (Gemma, Mistral) expect. It ends the conversation
by writing the stop marker, which is cut from the text the agent sees.

The user's own faults are never the agent's failure: an empty reply is asked
again with a word on what went wrong, and if it persists is a system error of
the user stage; a stop in the first reply before the agent has made any tool
call is asked about once (a second stop stands: the agent may have refused
outright, which is the agent's doing). Stop markers are recognised in their usual variants (``### STOP ###``,
``###stop###``), so none reaches the agent.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.episode import UserTurn
from ...core.errors import HarnessError
from ...core.task import User
from ..endpoint import Endpoint, Usage

STOP = "###STOP###"
STOP_VARIANTS = re.compile(r"#{2,}\s*stop\s*#{2,}", re.IGNORECASE)
#: The version of the prompt below; recorded in the manifest, so runs with other prompts have other fingerprints.
PROMPT_VERSION = "user-2"
RULES = (
    "Never invent facts: if you are asked for something not listed above, say you do not have it.",
    "Reveal a private fact only when the agent asks for it, and repeat it if asked again.",
    "Stay on your goal; do not accept something other than what you asked for unless the agent "
    "explains the policy that prevents it.",
    "Keep each reply short, as a customer would write it.",
    f"When your request has been handled, or refused with a reason (and the rules of this conversation do not "
    f"tell you to insist), or the agent says goodbye, end your reply with {STOP}.",
)


def brief_prompt(brief: User) -> str:
    """The user model's system prompt; the agent never sees it."""
    facts = "\n".join(f"- {k}{_also(brief, k)}: {v}" for k, v in brief.knows.items()) or "- (none)"
    rules = "\n".join(f"- {r}" for r in RULES)
    own = "\n".join(f"- {r}" for r in brief.rules)
    persona = f"\n\nWho you are: {brief.persona}" if brief.persona else ""
    task_rules = (
        f"\n\nRules of this conversation (where they differ from the general rules, follow these):\n{own}"
        if own
        else ""
    )
    return (
        "You are playing a customer who contacts a support agent. You are not the agent."
        f"{persona}\n\nYou opened the conversation with:\n{brief.says}\n\n"
        f"Private facts you know:\n{facts}\n\nGeneral rules:\n{rules}{task_rules}\n\n"
        "The agent's messages come to you as the other party. Reply as the customer."
    )


def _also(brief: User, fact: str) -> str:
    """The other names of a fact, as the prompt lists them: " (also called: personnel number, staff ID)"."""
    names = next((v for k, v in brief.aliases.items() if k.lower() == fact.lower()), ())
    return f" (also called: {', '.join(names)})" if names else ""


class LLMUser:
    """One attempt's simulated user; `usage` counts its tokens, calls and retries."""

    def __init__(self, brief: User, endpoint: Endpoint) -> None:
        self._brief, self._endpoint = brief, endpoint
        self._system = brief_prompt(brief)
        # From the user model's side, the agent is the other party ("user") and it is the "assistant"; the
        # opening it wrote lives in the system prompt, so the dialogue starts with the agent's first message.
        self._dialogue: list[dict[str, Any]] = []
        self.usage = Usage(model=endpoint.config.model)

    def opening(self) -> str:
        return self._brief.says

    async def reply(self, message: str, acted: bool = True) -> UserTurn:
        self._dialogue.append({"role": "user", "content": message})
        feedback: str | None = None
        checked = False  # a stop before the agent did anything has been asked about once
        for asked in range(self._endpoint.config.max_retries + 1):
            dialogue = self._dialogue if feedback is None else [*self._dialogue[:-1], _noted(message, feedback)]
            if asked:
                self.usage.retries += 1
            reply = await self._endpoint.complete(self._system, dialogue, self.usage)
            raw = reply.text or ""
            text, end = STOP_VARIANTS.sub("", raw).strip(), bool(STOP_VARIANTS.search(raw))
            if not text and not end:
                feedback = "Your last reply was empty. Reply to the agent as the customer."
                continue
            if end and not acted and len(self._dialogue) == 1 and not checked:  # before the agent did anything
                checked = True  # asked once: a second stop stands (the agent may have refused outright)
                feedback = (
                    f"You ended the conversation before the agent did anything. Unless the agent has handled or "
                    f"refused your request, reply to its message; end with {STOP} only once it is handled or refused."
                )
                continue
            self._dialogue.append({"role": "assistant", "content": raw})
            return UserTurn(text or "(the customer ends the conversation)", end=end)
        raise HarnessError(
            "user",
            f"the simulated user (model {self._endpoint.where}) did not give a usable reply after "
            f"{self._endpoint.config.max_retries + 1} tries: {feedback}",
        )


def _noted(message: str, feedback: str) -> dict[str, Any]:
    """The agent's message with a word from the harness after it (one turn, so turns still alternate), for the
    user model whose reply was refused; the agent never sees it."""
    return {"role": "user", "content": f"{message}\n\n[note from the simulation, not from the agent: {feedback}]"}
