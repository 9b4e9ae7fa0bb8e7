"""The brief's rules as what the user does: push back once, or decline a proposal."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .vocabulary import _SEPARATORS, _STOP
from .words import _capital, _same, _words

_VERBS = r"insist|argue|point out|object|protest|dispute(?: it)?|push back|complain|say|ask|offer|suggest"
# The ways a rule tells the user to push back once: "insist once that ...", "ask once more for ...".
_PUSHBACK = re.compile(
    rf"\b(?P<verb>{_VERBS})(?P<once>(?:\s+(?:once more|once|again|anyway))*)\b(?P<rest>.*)$", re.I | re.S
)
_ANOTHER_PUSHBACK = re.compile(rf"\s+and\s+(?=(?:{_VERBS})\b)", re.I)
_ALWAYS_PUSHBACK = {
    "insist",
    "argue",
    "point out",
    "object",
    "protest",
    "dispute",
    "dispute it",
    "push back",
    "complain",
}
_DECLINING = re.compile(r"^(say no|decline|refuse)\b(?:\s+it)?\s*(?::\s*(?P<rest>.*))?$", re.I | re.S)
_CONDITION = re.compile(r"^(?:if|when)\s+(?P<condition>(?:[^,]|,(?!\s))+?),\s+(?P<action>.+)$", re.I | re.S)
_TRAILING_CONDITION = re.compile(
    r"\s+(?:when|if)\s+(?P<condition>(?:the agent|told|refused|they|it)\b.*)$", re.I | re.S
)
_THEN = re.compile(r",?\s*\bthen\b|;|\bafter that\b|\.(?:\s|$)", re.I)
_CONDITION_NOISE = {
    "agent", "says", "say", "said", "tells", "told", "refuses", "refused", "refuse", "will", "not", "cannot", "can",
    "does", "do", "if", "when", "still", "too", "there", "has", "have", "offers", "offer", "offered", "explains",
    "would", "keeps", "they", "them", "as",
} | _STOP  # fmt: skip


@dataclass(frozen=True)
class _Rule:
    """A task rule the scripted user follows: push back once, or decline a proposal."""

    condition: frozenset[str]  # the words of its "if ..." that name what the agent says ("fee")
    speech: str  # what the user says, in the first person
    pushes: bool
    declines: bool
    asks: bool  # the speech is itself a request ("could you tell me whether ...?"), not an objection

    def fit(self, words: tuple[str, ...]) -> float:
        said = [w for w in self.condition if any(_same(m, w) for m in words)]
        return len(said) / len(self.condition) if self.condition else 0.0

    def applies(self, words: tuple[str, ...]) -> bool:
        return bool(self.condition) and self.fit(words) >= 2 / 3

    def triggered(self, words: tuple[str, ...], refused: bool) -> bool:
        """A refusal sets off a rule whose condition is only a refusal ("if refused") or that the message
        partly names; a message naming most of the condition ("if told there is a fee") sets it off too."""
        return self.applies(words) or (refused and (not self.condition or self.fit(words) > 0))


def _rule(text: str) -> _Rule | None:
    """Read a task rule: "If told there is a fee, insist once that a new card should be free, then accept."
    becomes a pushback with the condition {fee} and the speech "I must insist that a new card should be free."
    Rules that only accept ("accept a repair instead") need nothing from the scripted user."""
    text = text.strip().rstrip(".")
    matched = _CONDITION.match(text)
    condition, action = (matched["condition"], matched["action"]) if matched else ("", text)
    action = _THEN.split(action, maxsplit=1)[0]  # what comes after ("then accept") is the default anyway
    trailing = _TRAILING_CONDITION.search(action)
    if trailing:
        condition, action = f"{condition} {trailing['condition']}", action[: trailing.start()]
    words = frozenset(w for w in _words(condition) if w not in _CONDITION_NOISE and w not in _SEPARATORS)
    declining = _DECLINING.match(action.strip())
    if declining:
        rest = (declining["rest"] or "").strip()
        return _Rule(words, f"{_capital(_first_person(rest))}." if rest else "", False, True, False)
    pushback = _PUSHBACK.search(action)
    if pushback is None:
        return None
    parts = _ANOTHER_PUSHBACK.split(action[pushback.start() :])
    said = [_speak(part) for part in parts]
    if not any(pushes for pushes, _, _ in said):
        return None
    speech = " ".join(line for _, line, _ in said if line)
    return _Rule(words, speech, True, False, any(asks for _, _, asks in said))


def _speak(part: str) -> tuple[bool, str, bool]:
    """One pushback of a rule in the user's words: (whether it pushes back, the words, whether they ask)."""
    matched = _PUSHBACK.match(part.strip())
    if matched is None:
        return False, "", False
    verb, once, rest = matched["verb"].lower(), matched["once"], matched["rest"].strip()
    pushes = verb in _ALWAYS_PUSHBACK or bool(once.strip()) or "anyway" in rest
    rest = re.sub(r"^(that\b|:)\s*", "", rest)
    said = _first_person(rest)
    if verb == "insist":
        return pushes, f"I must insist that {said}." if said else "", False
    if verb in ("say",):
        return pushes, f"{_capital(said)}." if said else "", False
    if verb == "ask":
        if said.startswith("for "):
            return pushes, f"I'd still like {said[4:]}.", True
        if said.startswith(("whether ", "if ")):
            return pushes, f"Could you tell me {said}?", True
        said = re.sub(r"^(the agent |them )?to\s+", "", said)
        return pushes, f"Could you please {said}?", True
    if verb in ("offer", "suggest"):
        said = re.sub(r"^to\s+", "", said)
        return pushes, f"I can {said}." if verb == "offer" else f"Could we {said}?", True
    return pushes, f"But {said}." if said else "I'm not happy with that.", False


_OBJECT_BEFORE = {
    "to", "for", "with", "at", "from", "of", "tell", "told", "give", "gave", "let", "make", "help", "than",
    "about", "by", "asked", "ask", "call", "pay", "charge", "refund", "send", "sent", "owe", "owes", "offer",
}  # fmt: skip


def _first_person(text: str) -> str:
    """A rule's words as the user says them: "you are enhanced now" -> "I am enhanced now"."""
    swaps = (
        (r"\byou are\b", "I am"),
        (r"\byou're\b", "I'm"),
        (r"\byou were\b", "I was"),
        (r"\byou've\b", "I've"),
        (r"\byou'll\b", "I'll"),
        (r"\byou'd\b", "I'd"),
        (r"\byourself\b", "myself"),
        (r"\byours\b", "mine"),
        (r"\byour\b", "my"),
    )
    for pattern, replacement in swaps:
        text = re.sub(pattern, replacement, text, flags=re.I)

    def you(m: re.Match[str]) -> str:
        before = re.findall(r"[a-z']+", text[: m.start()].lower())
        return "me" if before and before[-1] in _OBJECT_BEFORE else "I"

    return re.sub(r"\byou\b", you, text, flags=re.I).strip()
