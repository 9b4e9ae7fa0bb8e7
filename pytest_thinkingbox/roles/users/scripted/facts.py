"""The user's facts: the names each is asked for by, finding a name in a question, and saying a fact."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .vocabulary import _BETWEEN, _IDENTIFIERS, _PEOPLE, _PREPOSITIONS, _QUESTION, _SEPARATORS, _WINDOW, SYNONYMS
from .words import _capital, _content, _same, _words


@dataclass(frozen=True)
class _Fact:
    key: str
    value: str
    names: tuple[tuple[str, ...], ...]
    loose: tuple[tuple[str, ...], ...]  # an item's reference without the item: "booking reference" for Lisbon's
    options: tuple[tuple[str, ...], ...]  # the alternatives a choice key names: "refund or replacement"

    @property
    def choice(self) -> bool:
        return len(self.options) > 1


def _fact(key: str, value: str, groups: tuple[frozenset[tuple[str, ...]], ...]) -> _Fact:
    """A fact with the ways to ask for it; a choice ("refund or replacement") is asked for by offering it."""
    options = tuple(_content(_words(part)) for part in re.split(r"\bor\b", key))
    if len(options) > 1:
        return _Fact(key, value, (), (), options)
    names, loose = _names_of(key, groups)
    return _Fact(key, value, names, loose, ())


@functools.cache  # the same keys and aliases come back attempt after attempt
def _names_of(
    key: str, groups: tuple[frozenset[tuple[str, ...]], ...]
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """The names of `key`: its own words, every name of its group, and for a key naming a known thing with
    a qualifier ("son's date of birth", "Lisbon booking reference") the qualifier with each name of the
    thing. An item's reference is loosely also the reference alone ("the booking reference"), a person's
    fact never ("your date of birth" is not your son's)."""
    own = _content(_words(key))
    group = next((g for g in groups if own in g), None)
    if group is not None:
        return (own, *sorted(group - {own}, key=lambda n: (-len(n), n))), ()
    bases = [(base, g) for g in groups for base in g if _contains(own, base)]
    if not bases:
        return (own,), ()
    base, group = max(bases, key=lambda pair: len(pair[0]))
    at = next(i for i in range(len(own)) if own[i : i + len(base)] == base)
    qualifier = own[:at] + own[at + len(base) :]
    names = (own, *(qualifier + name for name in sorted(group, key=lambda n: (-len(n), n)) if qualifier + name != own))
    personal = "'" in key or any(w in _PEOPLE for w in qualifier)
    loose = () if personal or not set(base) & _IDENTIFIERS else tuple(sorted(group))
    return names, loose


@functools.cache
def _groups(aliases: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[frozenset[tuple[str, ...]], ...]:
    """The synonym table with the brief's aliases added; groups that share a name are one group."""
    merged: list[set[tuple[str, ...]]] = []
    for group in [*SYNONYMS, *((key, *names) for key, names in aliases)]:
        names = {_content(_words(name)) for name in group} - {()}
        for other in [m for m in merged if m & names]:
            names |= other
            merged.remove(other)
        merged.append(names)
    return tuple(frozenset(g) for g in merged)


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    """Whether `part` occurs in `words` as a run of consecutive words."""
    n = len(part)
    return any(words[i : i + n] == part for i in range(len(words) - n + 1))


def _fits(
    words: tuple[str, ...] | list[str],
    name: tuple[str, ...],
    starts: range | list[int],
    end: int,
    whole: list[str] | None,
) -> bool:
    """Whether `name` is said from one of `starts`, not about someone else, and (with `whole`) covering
    every word of the question that matters."""
    last = _occurs(words, name, starts, end)
    if last is None:
        return False
    if whole is not None:
        return all(any(_same(w, part) for part in name) for w in whole)
    if set(name) <= _IDENTIFIERS and last + 1 < end and words[last + 1] in _IDENTIFIERS:
        return False  # a bare "reference" is not the "reference *number* for your complaint"
    return not _someone_else(words, last, end, name)


def _occurs(
    words: tuple[str, ...] | list[str], name: tuple[str, ...], starts: range | list[int], end: int
) -> int | None:
    """The last position of an occurrence of `name` that begins at one of `starts` and ends before `end`;
    None when there is none. Its words may come in any order, with small words between them ("date of
    your birth", "when were you born"), but no other word: "which *hotel* did you stay at" does not name
    ``which stay``."""
    span = len(name) + _WINDOW
    for s in starts:
        if s >= end or not any(_same(words[s], part) for part in name):
            continue
        window = range(s, min(end, s + span))
        spots = [next((i for i in window if _same(words[i], part)), None) for part in name]
        if any(spot is None for spot in spots):
            continue
        last = max(spot for spot in spots if spot is not None)
        if all(w in _BETWEEN or any(_same(w, part) for part in name) for w in words[s : last + 1]):
            return last
    return None


def _someone_else(words: tuple[str, ...] | list[str], last: int, end: int, name: tuple[str, ...]) -> bool:
    """Whether the words after a name say whose it is, someone the name does not: "... of your son"."""
    for i in range(last + 1, end - 1):
        if words[i] in ("of", "for"):
            phrase: list[str] = []
            for w in words[i + 1 : end]:
                if w in _SEPARATORS or (phrase and w in _PREPOSITIONS):
                    break
                phrase.append(w)
            if any(w in _PEOPLE and not any(_same(w, part) for part in name) for w in phrase):
                return True
    return False


def _say(fact: _Fact, form: str) -> str:
    """A fact as the user gives it: "My order id is O-1001.", "The last four digits of my IBAN are 3000."."""
    value = fact.value.rstrip(".")
    if form == "last four":
        tail = re.sub(r"[^0-9A-Za-z]", "", value)[-4:]
        return f"The last four digits of my {fact.key} are {tail}."
    first = fact.key.split()[0].lower()
    if first in _QUESTION or first in ("where", "how", "for") or _words(value)[:1] in _ANSWERS:
        return f"{_capital(value)}."  # "who was driving": "My wife Abena."; "injuries": "No one was hurt."
    if first.endswith("'s") and (fact.key[0].isupper() or first[:-2] not in _FAMILY):
        return f"{_capital(fact.key) if fact.key[0].isupper() else 'The ' + fact.key} is {value}."  # "Sam's ..."
    if "," in value or len(value.split()) > 3:
        return f"{_capital(fact.key)}: {value}."  # "Leaver: Sofia Braun, employee id E-2003."
    if " of the " in fact.key:
        return f"The {fact.key} is {value}."  # "The date of the accident is ..."
    return f"My {fact.key} is {value}."


_FAMILY = {"son", "daughter", "wife", "husband", "partner", "ex-husband", "ex-wife", "mother", "father", "child"}
# Values that are whole answers by themselves ("yes, the car drives fine", "only the bakery at 7:41").
_ANSWERS = {(w,) for w in ("yes", "no", "nobody", "none", "nothing", "only", "all", "both", "not", "never", "i")}
