"""A deterministic simulated user that needs no model.

It opens with the brief's `says`; reveals a private fact only when the agent's
message names it (``"what is your order id?"`` reveals ``order id``); agrees
when asked to confirm; says it does not know anything else it is asked (never
inventing data); and ends the conversation when the agent has nothing to ask.
"""

from __future__ import annotations

import re

from ..episode import UserTurn
from ..task import User

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
        asked = [(k, v) for k, v in self._brief.knows.items() if _names(text, k)]
        if asked:
            return UserTurn(" ".join(f"My {k} is {v}." for k, v in asked))
        if _CONFIRM.search(text):
            return UserTurn(AGREE)
        if "?" in text:
            return UserTurn(UNKNOWN)
        return UserTurn(GOODBYE, end=True)


def _names(text: str, key: str) -> bool:
    """Whether `text` asks for `key`: the key itself, or all of its words."""
    key = key.lower()
    if key in text:
        return True
    words = [w for w in re.findall(r"[a-z0-9]+", key) if len(w) > 2]
    return bool(words) and all(re.search(rf"\b{re.escape(w)}", text) for w in words)
