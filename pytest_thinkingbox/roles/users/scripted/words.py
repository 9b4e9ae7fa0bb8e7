"""Text read as the scripted user's words, and when two words are the same word."""

from __future__ import annotations

import functools
import re

from .vocabulary import _FILLER, _QUESTION, _SEPARATORS, _SHORTHAND, _SPELLING, _STOP, _TOGETHER


def _undot(text: str) -> str:
    """Abbreviations written with dots read as one word: "D.O.B." is "DOB"."""
    return re.sub(r"\b(?:[A-Za-z]\.){2,}", lambda m: m.group().replace(".", ""), text)


def _normal(text: str) -> str:
    """Lower case, with "can't" read as "cannot", "isn't" as "is not", and "'s", "'ll", ... dropped."""
    text = _undot(text).lower().replace("\u2019", "'")
    text = re.sub(r"\bcan't\b", "cannot", re.sub(r"\bwon't\b", "will not", text))
    return re.sub(r"'(s|re|ve|ll|d|m)\b", "", re.sub(r"n't\b", " not", text))


def _tokens(text: str) -> tuple[tuple[str, ...], set[int]]:
    """The words of `text` read alike (spelling, shorthand, "when" as "date") and where question words stand."""
    found = re.findall(r"[a-z0-9]+|[#,:&()]", _normal(text))
    raw = [_SHORTHAND.get(w, _SPELLING.get(w, w)) if w not in "()" else "," for w in found]
    words: list[str] = []
    questions: set[int] = set()
    i = 0
    while i < len(raw):
        joined = next(((n, r) for n, r in ((3, raw[i : i + 3]), (2, raw[i : i + 2])) if tuple(r) in _TOGETHER), None)
        if joined:
            words.append(_TOGETHER[tuple(joined[1])])
            if words[-1] == "amount":
                questions.add(len(words) - 1)
            i += joined[0]
            continue
        if raw[i] in _QUESTION:
            questions.add(len(words))
        words.append(_QUESTION.get(raw[i], raw[i]))
        i += 1
    return tuple(words), questions


def _words(text: str) -> tuple[str, ...]:
    return _tokens(text)[0]


def _content(words: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in _STOP and w not in _SEPARATORS and w not in _FILLER)


@functools.cache
def _same(word: str, part: str) -> bool:
    """A word of the message matches a word of a name: equal, an inflection of it, or a typo of a long word."""
    if word == part or _inflects(word, part) or _inflects(part, word) or _stem(word) == _stem(part):
        return True
    return min(len(word), len(part)) >= 5 and word[0] == part[0] and _one_edit(word, part)


def _inflects(word: str, stem: str) -> bool:
    """Whether `word` is `stem` or its plural, -ed, -ing form ("confirming" of "confirm")."""
    if word == stem:
        return True
    if len(stem) < 3:
        return False
    if word.startswith(stem) and word[len(stem) :] in ("s", "es", "ed", "d"):
        return True
    bare = stem.rstrip("e")
    return word.startswith(bare) and word[len(bare) :] in ("ing", "ed")


def _stem(word: str) -> str:
    """A word without its ending: "waits" and "waiting" are both "wait"."""
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)].rstrip("e")
    return word.rstrip("e")


def _one_edit(a: str, b: str) -> bool:
    """Whether one letter added, removed, changed or swapped with its neighbour turns `a` into `b`."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _related(word: str, part: str) -> bool:
    """Words of one family: "replace" and "replacement", "refund" and "refunded"."""
    short, long = sorted((word, part), key=len)
    return _same(word, part) or (len(short) >= 5 and long.startswith(short))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
