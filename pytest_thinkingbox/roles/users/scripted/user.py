"""The scripted user itself: its set replies and how it picks the answer to each agent message."""

from __future__ import annotations

from ....core.episode import UserTurn
from ....core.task import User
from .brief_rules import _rule
from .choices import _chosen, _names_option, _options
from .facts import _Fact, _fact, _fits, _groups, _occurs, _say
from .reading import (
    _clauses,
    _items,
    _last_four,
    _Message,
    _next_item,
    _only_pronoun,
    _owned,
    _Sentence,
    _starts,
    _without_identifier,
)
from .vocabulary import _CLOSING, _IGNORED, _INFORMATION, _PROPOSAL, _REFUSAL, _SMALL_TALK, _STATUS
from .words import _capital, _words

UNKNOWN = "I'm sorry, I don't have that information."
AGREE = "Yes, please go ahead."
GOODBYE = "Thank you, that's all."
ACKNOWLEDGE = "Okay, thank you."
SMALL_TALK = "I'm fine, thank you."
NO_PREFERENCE = "I don't have a preference."
DECLINE = "No, thank you."


class ScriptedUser:
    """One attempt's offline user: the brief's facts, aliases and rules; the rules it has followed so far."""

    def __init__(self, brief: User) -> None:
        self._brief = brief
        groups = _groups(tuple((k, tuple(v)) for k, v in brief.aliases.items()))
        self._facts = tuple(_fact(key, value, groups) for key, value in brief.knows.items())
        self._groups = groups
        self._rules = tuple(rule for text in brief.rules if (rule := _rule(text)) is not None)
        self._used: set[int] = set()  # the pushback rules already followed (each is followed once)

    def opening(self) -> str:
        return self._brief.says

    async def reply(self, message: str, acted: bool = True) -> UserTurn:
        heard = _Message.read(message)
        if asked := self._asked(heard):
            choice = self._choice(heard, asked)
            return UserTurn(" ".join([*(_say(fact, form) for fact, form in asked), *([choice] if choice else [])]))
        if pushback := self._pushback(heard):
            return UserTurn(pushback)
        if _CLOSING.search(heard.text):
            return UserTurn(GOODBYE, end=True)
        if answer := self._choice(heard, []) or self._proposal(heard):
            return UserTurn(answer)
        if _SMALL_TALK.search(heard.text):
            return UserTurn(SMALL_TALK)
        if "?" not in message and _STATUS.search(heard.text):
            return UserTurn(ACKNOWLEDGE)
        if "?" in message or _INFORMATION.search(heard.text):
            return UserTurn(UNKNOWN)
        return UserTurn(GOODBYE, end=True)

    # ------------------------------------------------------------------ facts asked for

    def _asked(self, heard: _Message) -> list[tuple[_Fact, str]]:
        """The facts the message asks for, each with the form asked ("" for the whole value, or "last four")."""
        found: dict[str, tuple[_Fact, str]] = {}
        for number, sentence in enumerate(heard.sentences):
            if not sentence.asks:
                continue
            before = [w for s in heard.sentences[:number] for w in s.words]
            for fact, form in [*self._listed(sentence, before), *self._covered(sentence)]:
                found.setdefault(fact.key, (fact, form))
        return list(found.values())

    def _listed(self, sentence: _Sentence, before: list[str]) -> list[tuple[_Fact, str]]:
        """Facts named right after what asks for them ("what is", "could you give me", "need"), and the facts
        listed after those ("your email, DOB and postcode"), or a fact just named and asked for as "it"."""
        words, found = sentence.words, []
        for slot in sorted(sentence.slots):
            items = _items(words, _next_item(words, slot))
            for number, item in enumerate(_owned(words, items, self._groups)):
                question = number == 0 and items[0][0] in sentence.questions
                named = self._in_item(item, question)
                if not named and number + 1 < len(items) and words[items[number][1]] in ("or", "and"):
                    head = words[items[number + 1][1] - 1]  # "your HR or payroll *number*"
                    named = self._in_item((*item, head), question)
                if not named and _only_pronoun(item):
                    said = [*before, *words[: items[number][0]]]  # "If you have the policy number, share it"
                    named = [(fact, "") for fact in self._matching(said, range(len(said)), len(said))]
                found += named
        return found

    def _in_item(self, item: tuple[str, ...], question: bool) -> list[tuple[_Fact, str]]:
        """The facts an item of a list names at its start: "[the] email on your account"; `question`: the
        item begins with the question word ("when were you born")."""
        end = len(item)
        starts = _starts(item, 0, end, question)
        tail = _last_four(item, starts, end)
        if tail is not None:
            return [(fact, "last four") for fact in self._matching(item, _starts(item, tail, end, False), end, True)]
        named = self._matching(item, starts, end)
        return [(fact, "") for fact in named] or self._about_someone(item)

    def _about_someone(self, item: tuple[str, ...]) -> list[tuple[_Fact, str]]:
        """A fact about another person asked for by what it carries: "the employee ID of the person leaving"
        is the ``leaver`` fact when its value holds an employee ID."""
        for at, word in enumerate(item):
            if word not in ("of", "for"):
                continue
            wanted = tuple(w for w in item[:at] if w not in _IGNORED)
            for fact in self._matching(item, _starts(item, at + 1, len(item), False), len(item)):
                if wanted and self._carries(fact, wanted):
                    return [(fact, "")]
        return []

    def _carries(self, fact: _Fact, wanted: tuple[str, ...]) -> bool:
        """Whether a fact's value holds what is asked for: its words, or another name of them."""
        value = _words(fact.value)
        names = next((g for g in self._groups if wanted in g), frozenset({wanted}))
        return any(_occurs(value, name, range(len(value)), len(value)) is not None for name in names)

    def _covered(self, sentence: _Sentence) -> list[tuple[_Fact, str]]:
        """Facts asked for by a question that is all their name: "Email and DOB please?", "Was anyone hurt?",
        "Do you recognise these payments?" (but not "Is your booking reference printed in blue ink?")."""
        words = sentence.words
        clauses = _owned(words, _clauses(words), self._groups) if sentence.terse else [words]
        found: list[tuple[_Fact, str]] = []
        for clause in clauses:
            content = [w for w in clause if w not in _IGNORED]
            if not content:
                continue
            named = self._matching(clause, range(len(clause)), len(clause), whole=content)
            if not named:
                return []
            found += [(fact, "") for fact in named]
        return found

    def _matching(
        self,
        words: tuple[str, ...] | list[str],
        starts: range | list[int],
        end: int,
        tail: bool = False,
        whole: list[str] | None = None,
    ) -> list[_Fact]:
        """The facts one of whose names begins at one of `starts` (before `end`), the most specific only.

        `tail`: names may leave out "number" ("the last 4 of the card"); `whole`: a name must cover these
        words of the question. A loose name (an item's reference without the item) counts only when no
        fact is named as well by a full name.
        """
        found: dict[str, tuple[_Fact, frozenset[str], bool]] = {}
        for fact in self._facts:
            for loose, names in ((False, fact.names), (True, fact.loose)):
                said: list[tuple[str, ...]] = [
                    n for name in names for n in ((name, _without_identifier(name)) if tail else (name,)) if n
                ]
                fits = [n for n in said if _fits(words, n, starts, end, whole)]
                if fits:
                    longest = max(fits, key=len)
                    found[fact.key] = (fact, frozenset(longest), loose)
                    break
        return [
            fact
            for key, (fact, name, loose) in found.items()
            if not any(
                other != key and (name < named or (loose and not looser and name <= named))
                for other, (_, named, looser) in found.items()
            )
        ]

    # ------------------------------------------------------------------ choices and proposals

    def _choice(self, heard: _Message, asked: list[tuple[_Fact, str]]) -> str | None:
        """The user's own choice when a question offers alternatives ("to your card or as store credit?"),
        from a fact whose value names one of them; "no preference" when none does; never a pick."""
        given = {fact.key for fact, _ in asked}
        for sentence in heard.sentences:
            options = _options(sentence)
            if options is None:
                continue
            for fact in sorted(self._facts, key=lambda f: not f.choice):
                chosen = _chosen(fact.value, options)
                if fact.key not in given and chosen is not None:
                    return f"{_capital(fact.value)}, please."
            return NO_PREFERENCE
        return None

    def _proposal(self, heard: _Message) -> str | None:
        """The answer to a proposal awaiting the go-ahead: no where a rule declines it, the user's preference
        where it proposes the alternative the user did not choose, else yes."""
        if not _PROPOSAL.search(heard.text) or not ("?" in heard.text or "let me know if" in heard.text):
            return None  # "I cannot proceed with the refund" proposes nothing
        for rule in self._rules:
            if rule.declines and rule.applies(heard.words):
                return f"{DECLINE} {rule.speech}".strip()
        for fact in self._facts:
            if fact.choice and (chosen := _chosen(fact.value, fact.options)) is not None:
                named = [option for option in fact.options if _names_option(heard.words, option)]
                if named and chosen not in named:
                    return f"{_capital(fact.value)}, please."
        return AGREE

    # ------------------------------------------------------------------ rules

    def _pushback(self, heard: _Message) -> str | None:
        """Push back once where a rule says so: the first time the agent refuses, or says what the rule's
        condition names ("if told there is a fee"), restating the request; the next answer is accepted."""
        refused = bool(_REFUSAL.search(heard.text))
        fitting = [
            (rule.fit(heard.words), number)
            for number, rule in enumerate(self._rules)
            if rule.pushes and number not in self._used and rule.triggered(heard.words, refused)
        ]
        if not fitting:
            return None
        number = max(fitting, key=lambda pair: (pair[0], -pair[1]))[1]
        self._used.add(number)
        rule = self._rules[number]
        speech = rule.speech or "I understand, but I must insist."
        return speech if rule.asks else f"{speech} I'd still like what I asked for: {self._brief.says}"
