"""The alternatives a question offers, and the one a preference of the user names."""

from __future__ import annotations

from .reading import _Sentence
from .vocabulary import _FILLER, _IGNORED, _SEPARATORS, _STOP, _SUBJECTS
from .words import _related, _words


def _options(sentence: _Sentence) -> tuple[tuple[str, ...], ...] | None:
    """The alternatives a question offers ("a refund or a replacement", "viewer, editor or admin"), or None
    when it offers none: only a question that asks what the user would like, or is nothing but them."""
    words = sentence.words
    if not sentence.asks or "or" not in words or "not" in words[words.index("or") + 1 : words.index("or") + 2]:
        return None
    at = words.index("or")
    options = [_option(words[at + 1 :])]
    before = list(words[:at])
    while before:
        back: list[str] = []
        while before and before[-1] not in _SEPARATORS and before[-1] not in _FILLER and before[-1] not in _OFFERING:
            back.insert(0, before.pop())
        if back:
            options.insert(0, tuple(w for w in back if w not in _STOP))
        if not (before and before[-1] == ","):
            break
        before.pop()
    options = [o for o in options if o]
    if len(options) < 2:
        return None
    offered = any(w in _OFFERING for w in words) or (
        sentence.terse and not sentence.questions and all(w in _IGNORED or any(w in o for o in options) for w in words)
    )
    return tuple(options) if offered else None


# Words that ask the user to choose: "would you like", "prefer", "which would you rather".
_OFFERING = {"like", "prefer", "rather", "want", "choose", "wish", "option", "shall", "should", "which"}


def _option(words: tuple[str, ...]) -> tuple[str, ...]:
    """One alternative: its first words after "or", past "as", "a", "would you prefer", up to a separator."""
    rest = list(words)
    while rest and (rest[0] in _FILLER or rest[0] in _OFFERING or rest[0] in _SUBJECTS or rest[0] in ("as", "by")):
        rest.pop(0)
    taken = []
    for w in rest:
        if w in _SEPARATORS or w in ("instead", "please"):
            break
        taken.append(w)
    return tuple(w for w in taken if w not in _STOP)


def _chosen(value: str, options: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    """The one alternative a preference names and does not refuse ("a refund, not a replacement")."""
    words = _words(value)
    named = []
    for option in options:
        spots = [i for i, w in enumerate(words) if any(_related(w, part) for part in option)]
        if spots and not any(w in ("not", "no", "never", "without") for w in words[max(0, spots[0] - 2) : spots[0]]):
            named.append(option)
    return named[0] if len(named) == 1 else None


def _names_option(words: tuple[str, ...], option: tuple[str, ...]) -> bool:
    return any(_related(w, part) for w in words for part in option)
