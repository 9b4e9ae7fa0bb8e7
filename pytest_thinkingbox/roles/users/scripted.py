"""A deterministic simulated user that needs no model.

It opens with the brief's `says`; reveals a private fact only when the agent's
message asks for it by name (``"what is your order id?"`` reveals ``order id``;
``"I checked your order"`` reveals nothing); agrees
when asked to confirm; says it does not know anything else it is asked (never
inventing data); and ends the conversation when the agent has nothing to ask.
"""

from __future__ import annotations

import re

from ...core.episode import UserTurn
from ...core.task import User

_ASK = re.compile(r"\?|\b(please|provide|share|tell me|give me|send me|let me know|need|confirm)\b")
_CONFIRM = re.compile(r"\b(confirm|shall i|should i|do you want|would you like|proceed|go ahead|is that ok|okay to)\b")
UNKNOWN = "I'm sorry, I don't have that information."
AGREE = "Yes, please go ahead."
GOODBYE = "Thank you, that's all."


class ScriptedUser:
    def __init__(self, brief: User) -> None:
        self._brief = brief

    def opening(self) -> str:
        return self._brief.says

    async def reply(self, message: str) -> UserTurn:
        text = message.lower()
        asking = bool(_ASK.search(text))
        asked = [(k, v) for k, v in self._brief.knows.items() if asking and _names(text, k)]
        if asked:
            return UserTurn(" ".join(f"My {k} is {v}." for k, v in asked))
        if _CONFIRM.search(text):
            return UserTurn(AGREE)
        if "?" in text:
            return UserTurn(UNKNOWN)
        return UserTurn(GOODBYE, end=True)


def _names(text: str, key: str) -> bool:
    """Whether `text` names `key`: the key itself, or every word of it."""
    key = key.lower()
    if key in text:
        return True
    words = re.findall(r"[a-z0-9]+", key)
    return bool(words) and all(re.search(rf"\b{re.escape(w)}", text) for w in words)
