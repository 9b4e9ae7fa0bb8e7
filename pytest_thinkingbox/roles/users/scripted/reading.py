"""Reading the agent's message: its sentences, where they ask for something, and the lists they ask for."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .vocabulary import (
    _ASKING_VERBS,
    _AUX,
    _FILLER,
    _HOLDING_VERBS,
    _IDENTIFIERS,
    _PEOPLE,
    _PRONOUNS,
    _REQUEST,
    _SEPARATORS,
    _WANTING_VERBS,
)
from .words import _content, _inflects, _normal, _tokens, _undot


@dataclass(frozen=True)
class _Sentence:
    words: tuple[str, ...]
    questions: frozenset[int]  # positions of question words ("when" is read as "date")
    slots: frozenset[int]  # positions where a thing asked for begins
    asks: bool  # a question or a request
    terse: bool  # asks without a verb: "Order number, please?"


@dataclass(frozen=True)
class _Message:
    text: str  # lower-cased, contractions expanded
    sentences: tuple[_Sentence, ...]

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(w for s in self.sentences for w in s.words)

    @classmethod
    def read(cls, message: str) -> _Message:
        pieces = re.split(r"(?<=[?!;])\s+|(?<=\.)\s+(?=[A-Z\"'(])|\n+", _undot(message))
        return cls(_normal(message), tuple(_sentence(p) for p in pieces if p.strip()))


def _sentence(text: str) -> _Sentence:
    words, questions = _tokens(text)
    question = text.rstrip(" \"')").endswith("?")
    asks = question or bool(_REQUEST.search(" ".join(words))) or bool(words and 0 in questions)
    slots = set(questions) | {i + 1 for i, w in enumerate(words) if w == ":"}
    slots |= {i + 1 for i in range(len(words)) if _asks_for_object(words, i)}
    slots |= {i for i in range(len(words)) if words[i : i + 2] in (("last", "four"), ("last", "4"))}
    terse = asks and not questions and not any(_verb_like(w) for w in words)
    return _Sentence(words, frozenset(questions), frozenset(slots), asks, terse)


def _asks_for_object(words: tuple[str, ...], i: int) -> bool:
    """Whether the verb at `i` asks the user for what follows it.

    "Could you give me", "please confirm", "I'll need" and "do you have" ask; "I can confirm your order",
    "did you get a refund" and "you'll need your booking reference at the hotel" do not.
    """
    verb, before = words[i], words[max(0, i - 3) : i]
    if i + 1 < len(words) and words[i + 1] in _AUX:
        return False  # a noun: "what *state* is the licence from?"
    if any(_inflects(verb, v) for v in _ASKING_VERBS):
        return not _agent_speaks(words, i)
    if any(_inflects(verb, v) for v in _WANTING_VERBS):
        return "you" not in before[-2:]
    if verb in _HOLDING_VERBS:
        return (
            ("you" in before[-3:] and any(w in ("do", "does") for w in before))
            or (verb == "got" and before[-2:] == ("have", "you"))
            or (len(before) >= 2 and before[-1] in ("i", "we") and before[-2] in ("can", "could", "may", "might"))
            or before[-2:] in (("let", "me"), ("let", "us"))
        )
    return False


def _agent_speaks(words: tuple[str, ...], i: int) -> bool:
    """Whether the agent is the subject of the verb at `i` ("I can confirm"), not asking ("can I confirm")."""
    for j in range(max(0, i - 2), i):
        if words[j] in ("i", "we") and not (j > 0 and words[j - 1] in _AUX | {"shall", "might", "should"}):
            return True
    return False


def _verb_like(word: str) -> bool:
    return word in _AUX or any(_inflects(word, v) for v in _ASKING_VERBS | _WANTING_VERBS | _HOLDING_VERBS)


def _items(words: tuple[str, ...], start: int) -> list[tuple[int, int]]:
    """The items of the list that begins at `start`, as (start, end) positions: "email", "DOB", "postcode"."""
    items = []
    while start < len(words):
        end = _item_end(words, start)
        items.append((start, end))
        start = _next_item(words, end)
    return items


def _owned(
    words: tuple[str, ...], items: list[tuple[int, int]], groups: tuple[frozenset[tuple[str, ...]], ...]
) -> list[tuple[str, ...]]:
    """The items with the owner the list names once for all of them: "your *son's* date of birth and
    licence number", "the full name and date of birth *of the driver*" (an item with its own owner keeps it;
    a person's word that begins a name is no owner: "your *employee* ID and email")."""
    said = [words[start:end] for start, end in items]
    if not said:
        return said
    first = _content([w for w in said[0] if w not in ("what", "which")])
    named = any(first in group for group in groups)
    before = first[:1] if len(first) > 1 and first[0] in _PEOPLE and not named else ()
    last = said[-1]
    at = next((i for i in range(len(last) - 1) if _owner_after(last[i : i + 2]) and _PEOPLE & set(last[i + 1 :])), None)
    after = last[at:] if at is not None else ()
    owned = []
    for number, item in enumerate(said):
        if number > 0 and not _own(item):
            item = (*before, *item)
        if number < len(said) - 1 and not _own(item) and not _owner_after(item):
            item = (*item, *after)
        owned.append(item)
    return owned


def _owner_after(item: tuple[str, ...]) -> bool:
    """Whether an item ends by naming whose it is: "the VIN *of the car*" (not "date *of birth*")."""
    return any(w in ("of", "for") and nxt in _OWNERS for w, nxt in itertools.pairwise(item))


_OWNERS = {"the", "a", "an", "your", "my", "his", "her", "their", "our", "this", "that", "these", "those"}


def _own(item: tuple[str, ...]) -> bool:
    """Whether an item names its own owner: "*your* email", "*his* date of birth"."""
    return next((w for w in item if w not in ("the", "a", "an", "also", "just")), "") in (
        "your", "my", "his", "her", "their", "our",
    )  # fmt: skip


def _item_end(words: tuple[str, ...], start: int) -> int:
    """Where the list item beginning at `start` ends: at the next separator ("and", ",", ...)."""
    return next((i for i in range(start, len(words)) if words[i] in _SEPARATORS and i > start), len(words))


def _next_item(words: tuple[str, ...], end: int) -> int:
    while end < len(words) and words[end] in _SEPARATORS:
        end += 1
    return end


def _starts(words: tuple[str, ...], start: int, end: int, question: bool) -> list[int]:
    """Where the name of what is asked for may begin: at `start` or after the fillers that follow it.
    A question word is one of them ("when" ... "born"), but a word that is not a filler ends them: "your
    *new* postcode" is not the postcode."""
    first = start + 1 if question else start
    starts = [start] if question else []
    for i in range(first, end):
        starts.append(i)
        if words[i] not in _FILLER:
            break
    return starts


def _only_pronoun(words: tuple[str, ...]) -> bool:
    """Whether an item asks for "it" alone ("What is it?"): the fact named just before."""
    rest = [w for w in words if w not in _FILLER - _PRONOUNS and w not in ("what", "which")]
    return bool(rest) and all(w in _PRONOUNS for w in rest)


def _clauses(words: tuple[str, ...]) -> list[tuple[int, int]]:
    """The parts of a terse question between separators: "Email, DOB and postcode?"."""
    bounds = [i for i, w in enumerate(words) if w in _SEPARATORS]
    edges = [-1, *bounds, len(words)]
    return [(a + 1, b) for a, b in itertools.pairwise(edges) if b > a + 1]


def _last_four(words: tuple[str, ...], starts: list[int], end: int) -> int | None:
    """Where the thing begins in "the last four (digits) of ...", or None when the item is not that form."""
    for s in starts:
        if words[s : s + 2] in (("last", "four"), ("last", "4")):
            at = s + 2
            if at < end and words[at] in ("digits", "digit", "numbers", "characters", "chars"):
                at += 1
            if at < end and words[at] in ("of", "on", "from", "in"):
                at += 1
            return at
    return None


def _without_identifier(name: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in name if w not in _IDENTIFIERS)
