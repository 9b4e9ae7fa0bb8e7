"""A deterministic simulated user that needs no model, and reads the agent as a careful tester would.

It opens with the brief's `says` and answers each agent message from its
private facts (`knows`), its rules and its declared preferences:

- A fact is given only to a question that asks for it: "What is your order
  number?", "Could you give me the ZIP code?", "Email and DOB, please", "Do
  you recognise these payments?". A fact is asked for by its key, by the
  brief's `aliases` for it (the domain's are added by the harness) or by a
  shared synonym ("postcode" for ``postal code``), in British or American
  spelling and with small typos. A question about a fact rather than for it
  ("Is your booking reference printed in blue ink?") gets nothing factual;
  nor does a fact of someone else ("your son's date of birth" is not the
  user's own). "The last four digits of the account" gets the last four
  characters of the value.
- A question offering alternatives ("refund to your card or store credit?")
  is answered from a fact whose key or value names the choice; without one
  the user has no preference. A proposal awaiting the go-ahead ("Shall I
  cancel it?") gets a yes, unless the user's preference or a rule says no.
- A rule that says to insist once ("If refused, insist once that ...") is
  followed the first time the agent refuses; the next answer is accepted.
- "Let me look that up" is acknowledged without ending the conversation;
  "anything else?" and a message that asks nothing end it.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from ...core.episode import UserTurn
from ...core.task import User

UNKNOWN = "I'm sorry, I don't have that information."
AGREE = "Yes, please go ahead."
GOODBYE = "Thank you, that's all."
ACKNOWLEDGE = "Okay, thank you."
SMALL_TALK = "I'm fine, thank you."
NO_PREFERENCE = "I don't have a preference."
DECLINE = "No, thank you."

# Names people use for the same fact; a fact key matching one name is asked for by any of them. A task's
# and its domain's `aliases` add groups of their own (merged with these where they share a name).
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("date of birth", "birth date", "birthdate", "dob", "d o b", "birthday", "when born"),
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
    ),
    ("group reference", "group booking reference", "group booking number", "group id"),
    ("email", "e mail", "email address", "e mail address", "mail address", "work email"),
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
    ("card number", "card no", "number on the card", "long number on the card"),
    ("full name", "name", "first and last name"),
    ("total", "amount", "sum"),
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
# Chat shorthand and irregular verb forms, read as the words they stand for.
_SHORTHAND = {
    "ur": "your",
    "u": "you",
    "pls": "please",
    "plz": "please",
    "whats": "what",
    "thx": "thanks",
    "sold": "sell",
    "bought": "buy",
    "paid": "pay",
    "drove": "drive",
    "driven": "drive",
}
# Question words that carry what they ask for: "when" asks for a date, "who" for a name, "how much" an amount.
_QUESTION = {"what": "what", "which": "which", "whose": "whose", "when": "date", "who": "name"}
_TOGETHER = {("how", "much"): "amount", ("as", "well", "as"): "&", ("along", "with"): "&", ("together", "with"): "&"}

_STOP = {
    "a", "an", "the", "of", "or", "and", "your", "my", "to", "for", "on", "in", "with", "you", "is", "do", "are",
    "was", "were", "be", "it", "that", "this", "we", "i", "me", "us", "s",
}  # fmt: skip
# Words that may stand before the name of what is asked for: "what is *your current* postcode".
_FILLER = {
    "the", "a", "an", "your", "this", "these", "those", "its", "our", "of", "me", "us", "out", "back", "up",
    "is", "are", "was", "were", "be", "do", "does", "did", "will", "would", "should", "can", "could", "may",
    "also", "just", "again", "please", "kindly", "exactly", "still", "now", "then", "current", "registered",
    "actual", "that",
}  # fmt: skip
_SEPARATORS = {",", ":", "and", "or", "plus", "&"}
_PRONOUNS = {"it", "them", "that", "this", "those", "they"}  # "what is it?": the fact just named
_SUBJECTS = {"you", "anyone", "anybody", "someone", "somebody", "it", "they", "he", "she", "i", "we"}
_CONSENT = {"happy", "ok", "okay", "willing", "fine", "able", "prepared", "alright", "handy", "hand", "available"}
_POLITE = {"please", "thanks", "thank", "again", "also", "then", "now", "too", "just", "first"}
_AUX = {"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would", "may"}
# Someone other than the user: "the date of birth *of your son*" is not the user's date of birth.
_PEOPLE = {
    "person", "son", "daughter", "wife", "husband", "partner", "driver", "employee", "colleague", "joiner",
    "leaver", "consultant", "analyst", "manager", "traveler", "guest", "beneficiary", "recipient", "him", "her",
    "them", "mother", "father", "boss", "friend", "child", "children", "starter",
}  # fmt: skip
_PREPOSITIONS = {"of", "for", "to", "on", "in", "at", "from", "with", "by", "about"}
_IDENTIFIERS = {"number", "reference", "ref", "id", "code", "no", "#"}

# Verbs that ask for what follows them: any form of "give", "tell" ... unless the agent is the subject
# ("I can confirm your order"); "have", "know" ... only as questions ("do you have", "can I have").
_ASKING_VERBS = {
    "give", "tell", "share", "provide", "confirm", "send", "read", "spell", "state", "quote", "supply",
    "repeat", "enter", "type", "verify", "mention",
}  # fmt: skip
_WANTING_VERBS = {"need", "require"}
_HOLDING_VERBS = {"have", "got", "know", "remember", "take", "grab", "get"}
_WINDOW = 3  # extra words allowed between the words of one name ("date of your birth")

_ASKING = r"need|require|provide|share|tell me|give me|send me|let me know|let me have|confirm|verify|state"
# A request for information without a question mark ("Please tell me ..."), as opposed to "Please keep the box".
_INFORMATION = re.compile(rf"\b({_ASKING})\b")
_REQUEST = re.compile(rf"\b(please|kindly|{_ASKING})\b")  # a sentence that may ask: "Email, please."
# A proposal awaiting the user's go-ahead, as opposed to a question for information.
_PROPOSAL = re.compile(
    r"\b(shall i|should i|do you want me to|would you like me to|can i go ahead|may i go ahead|may i proceed|"
    r"is it ok(ay)? (if|for me to|to)|okay to|ok to|do you agree|happy for me to|want me to|go ahead|proceed)\b"
)
_CLOSING = re.compile(
    r"\b(anything else|something else|any other questions?|goodbye|bye|take care|"
    r"have a (great|good|nice|lovely|safe) (day|evening|weekend|trip|stay|journey))\b"
)
_SMALL_TALK = re.compile(
    r"\b(how are you|how are things|how is it going|how it going|how is your day|how your day|how have you been|"
    r"hope you are (well|having|doing)|hope you (well|having|doing)|hope all is well)\b"
)
# The agent at work, asking nothing: "let me check", "one moment", "I'll pull up your order now".
_STATUS = re.compile(
    r"\b(let me (check|look|see|pull|find|verify|review|take|get|have a look|process|update|sort|go|just|quickly)|"
    r"(one|a|just a|give me a) (moment|sec|second|minute)|bear with me|hold on|please (hold|wait)|"
    r"i (will |am going to |going to )?(now |just |quickly )?(check|look|pull|find|verify|review|take|get|process|"
    r"go ahead|update|see|contact|raise|open|cancel|refund|issue|arrange|book|send|add|remove|start|set|"
    r"escalate|forward|reach out|do)|i (am|m) (now |just )?(checking|looking|pulling|reviewing|processing|"
    r"updating|working|going)|(checking|looking into) (that|this|it|now|your)|while i (check|look|pull|review))\b"
)
# A refusal: "I can't", "is not possible", "our policy does not allow", "you are not eligible".
_REFUSAL = re.compile(
    r"\b(cannot|can not|unable|not able to|will not be able|not eligible|ineligible|not possible|impossible|"
    r"not allowed|not permitted|(does|do) not (allow|permit|cover|qualify)|not covered|not qualify|decline|"
    r"declined|refuse|refused|denied|deny|no longer|not in a position|afraid|unfortunately)\b"
)
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


# ---------------------------------------------------------------------- reading the agent's message


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


_BETWEEN = _STOP | _FILLER | _SUBJECTS  # words that may stand between the words of one name
_IGNORED = _STOP | _FILLER | _SEPARATORS | _SUBJECTS | _CONSENT | _POLITE | _AUX | {"what", "which", "there"}


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


# ---------------------------------------------------------------------- names of facts


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


# ---------------------------------------------------------------------- choices


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


def _related(word: str, part: str) -> bool:
    """Words of one family: "replace" and "replacement", "refund" and "refunded"."""
    short, long = sorted((word, part), key=len)
    return _same(word, part) or (len(short) >= 5 and long.startswith(short))


# ---------------------------------------------------------------------- rules


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


# ---------------------------------------------------------------------- saying facts


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


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
