"""A deterministic simulated user that needs no model, and understands paraphrase.

It opens with the brief's `says`. It reveals a private fact when the agent's
message asks for it by name or by a common variant of that name: "birth date",
"DOB" and "birthday" all ask for ``date of birth``; "ZIP code" and "postcode"
for ``postal code``; "order number" and "order #" for ``order id``; British and
American spellings alike ("recognise", "recognize"). It agrees only when the
agent proposes an action and asks for the go-ahead ("Shall I cancel it?"). Any
other question gets an honest "I don't have that", never invented data and
never a yes; and the conversation ends when the agent has nothing to ask.
"""

from __future__ import annotations

import functools
import re

from ...core.episode import UserTurn
from ...core.task import User

UNKNOWN = "I'm sorry, I don't have that information."
AGREE = "Yes, please go ahead."
GOODBYE = "Thank you, that's all."

_ASK = re.compile(r"\?|\b(please|provide|share|tell me|give me|send me|let me know|need|confirm|what is|what's)\b")
# A proposal awaiting the user's go-ahead, as opposed to a question for information.
_PROPOSAL = re.compile(
    r"\b(shall i|should i|do you want me to|would you like me to|can i go ahead|may i go ahead|may i proceed|"
    r"is it ok(ay)? (if|for me to|to)|okay to|ok to|do you agree|happy for me to|want me to|go ahead|proceed)\b"
)
_CLOSING = re.compile(r"\b(anything else|something else|any other questions?)\b")
_STOP = {"a", "an", "the", "of", "or", "and", "your", "my", "to", "for", "on", "in", "with", "you", "is", "do"}

# Names people use for the same fact; a fact key matching one name is asked for by any of them.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("date of birth", "birth date", "birthdate", "dob", "d o b", "birthday", "born"),
    ("postal code", "postcode", "post code", "zip", "zip code", "zipcode"),
    ("order id", "order number", "order no", "order #", "order reference", "order ref"),
    (
        "booking reference",
        "booking ref",
        "booking number",
        "booking id",
        "confirmation code",
        "confirmation number",
        "reservation number",
        "reservation reference",
    ),  # fmt: skip
    ("group reference", "group booking reference", "group booking number", "group id"),
    ("email", "e mail", "email address", "mail address"),
    ("phone number", "phone", "telephone", "mobile number", "mobile"),
    ("policy number", "policy id", "policy no", "policy reference"),
    ("account number", "account id", "account no"),
    ("employee id", "employee number", "staff number", "staff id"),
    ("return number", "return id", "return reference", "rma", "return authorization"),
    ("vin", "vehicle identification number", "chassis number"),
    ("iban", "account number of the beneficiary", "beneficiary account"),
    ("licence number", "license number", "driving licence number", "driver license number", "licence"),
    ("street address", "address", "home address"),
    ("recognize", "recognise", "know about", "familiar with"),
    ("claim number", "claim id", "claim reference"),
    ("card number", "last four digits", "last 4 digits"),
)
# British spellings read as American ones, so either names a fact written with either.
_SPELLING = {
    "recognise": "recognize",
    "recognised": "recognized",
    "authorise": "authorize",
    "authorised": "authorized",
    "authorisation": "authorization",
    "organisation": "organization",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "licence": "license",
    "colour": "color",
    "centre": "center",
    "travelling": "traveling",
    "traveller": "traveler",
    "cheque": "check",
    "favour": "favor",
    "enrol": "enroll",
}
_WINDOW = 3  # extra words allowed between the words of one name ("date of your birth")


class ScriptedUser:
    def __init__(self, brief: User) -> None:
        self._brief = brief
        self._names = {key: _names_of(key) for key in brief.knows}

    def opening(self) -> str:
        return self._brief.says

    async def reply(self, message: str, acted: bool = True) -> UserTurn:
        words = _words(message)
        text = " ".join(words)
        asking = bool(_ASK.search(message.lower()))
        asked = _most_specific(words, self._names) if asking else []
        if asked:
            return UserTurn(" ".join(f"My {k} is {self._brief.knows[k]}." for k in asked))
        if _CLOSING.search(text):
            return UserTurn(GOODBYE, end=True)
        if _PROPOSAL.search(text):
            return UserTurn(AGREE)
        if "?" in message or asking:
            return UserTurn(UNKNOWN)
        return UserTurn(GOODBYE, end=True)


def _words(text: str) -> list[str]:
    """Lower-case words with British spellings made American; "#" kept (as in "order #")."""
    return [_SPELLING.get(w, w) for w in re.findall(r"[a-z0-9]+|#", text.lower())]


def _content(words: list[str]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in _STOP) or tuple(words)


@functools.cache  # the same fact keys come back attempt after attempt
def _names_of(key: str) -> tuple[tuple[str, ...], ...]:
    """The ways to ask for `key`: its own words, and each synonym of a name it is or contains.

    A one-word name counts only when it is the whole key, so "address" does not
    make ``email address`` answer questions about a street address.
    """
    own = _content(_words(key))
    names = [own]
    for group in SYNONYMS:
        forms = [_content(_words(name)) for name in group]
        if any(own == form or (len(form) > 1 and _contains(own, form)) for form in forms):
            names += [f for f in forms if f not in names]
    return tuple(names)


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    """Whether `part` occurs in `words` as a run of consecutive words."""
    n = len(part)
    return any(words[i : i + n] == part for i in range(len(words) - n + 1))


def _most_specific(words: list[str], names: dict[str, tuple[tuple[str, ...], ...]]) -> list[str]:
    """The facts the message names; a fact named only inside a longer name of another is left out
    ("group booking reference" asks for the ``group reference``, not the ``booking reference``)."""
    found = {key: max((n for n in forms if _close(words, n)), key=len, default=None) for key, forms in names.items()}
    named = {key: set(name) for key, name in found.items() if name is not None}
    return [key for key, name in named.items() if not any(name < other for other in named.values())]


def _close(words: list[str], name: tuple[str, ...]) -> bool:
    positions = [[i for i, w in enumerate(words) if _same(w, part)] for part in name]
    if not all(positions):
        return False
    span = len(name) + _WINDOW
    starts = {i for spots in positions for i in spots}
    return any(all(any(start <= i < start + span for i in spots) for spots in positions) for start in starts)


def _same(word: str, part: str) -> bool:
    """A word of the message matches a word of a name: equal, or one is a plural or -ed form of the other."""
    short, long = sorted((word, part), key=len)
    return word == part or (len(short) > 2 and long.startswith(short) and long[len(short) :] in ("s", "es", "ed", "d"))
