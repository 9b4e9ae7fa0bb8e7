"""The rubric questions consulting tasks still ask: what only the reply can show, with the wordings the phrase judge
accepts.

A decision that shows in the records (a grant's expiry, a refusal's reason, a
hold) is graded on the records; these questions are about what the employee is
told and no record holds: who may make the request instead, and from which day
to ask again. Each belongs to a family (the same kind of question across
tasks); `tests/test_phrases_consulting.py` tries every list on correct and wrong
replies written in other words than the tasks' reference replies.
"""

from __future__ import annotations

from typing import NamedTuple


class Rubric(NamedTuple):
    """A yes/no question about the reply: the task that asks it, its family and the phrases that answer it yes."""

    task: str
    family: str
    question: str
    phrases: tuple[str, ...]


def _asks_in_person(name: str, pronoun: str, reflexive: str) -> tuple[str, ...]:
    """How a reply says that `name` must make the request in person, not through someone else."""
    verbs = ("ask", "raise", "request", "contact", "submit", "get in touch", "reach out")
    modals = ("can", "needs to", "will need to", "has to", "should", "must", "would need to")
    said = [f"{who} {modal} {verb}" for who in (name, pronoun) for modal in modals for verb in verbs]
    return (
        reflexive,
        f"{name} personally",
        f"come from {name}",
        f"comes from {name}",
        f"from {name} directly",
        f"ask {name} to",
        f"get {name} to",
        f"only {name} can",
        f"{pronoun}'ll need to ask",
        f"{pronoun}'ll have to ask",
        f"on {'his' if pronoun == 'he' else 'her'} own",
        *said,
    )


# "the other employee must ask in person": a request made on someone else's behalf
ASKS_IN_PERSON = "the employee asks in person"

FELIX_ASKS_FOR_HIS_LICENCE = Rubric(
    "CO010_001",
    ASKS_IN_PERSON,
    "Did the agent tell the manager that Felix has to ask for the licence himself?",
    _asks_in_person("felix", "he", "himself"),
)

CHLOE_ASKS_FOR_HER_ACCESS = Rubric(
    "CO014_003",
    ASKS_IN_PERSON,
    "Did the agent say that Chloe has to ask for the Calloway access herself?",
    _asks_in_person("chloe", "she", "herself"),
)

# "who may ask for it": the requester may not, and the reply names who may
WHO_MAY_ASK = "who may ask instead"

_PEOPLE_TEAM = (
    "people team",
    "people department",
    "someone in people",
    "anyone in people",
    "someone from people",
    "colleague in people",
    "or people",
    " hr ",
    "hr team",
    "from hr",
    "if hr",
    "or hr",
    "(hr",
    "hr (",
)

OFFBOARDING_ASKED_BY = Rubric(
    "CO010_003",
    WHO_MAY_ASK,
    "Did the agent say who may request an offboarding (the line manager or the People team)?",
    (
        *_PEOPLE_TEAM,
        "line manager or",
        "line manager, omar, or",
        "direct manager or",
        "omar, as her line manager",
        "omar as her line manager",
        "her line manager can",
        "her line manager may",
        "only her line manager",
    ),
)

ROLL_OFF_ASKED_BY = Rubric(
    "CO012_003",
    WHO_MAY_ASK,
    "Did the agent say that Felix himself or the engagement lead may ask for the roll-off?",
    (
        "himself",
        "felix can ask",
        "felix can raise",
        "felix can request",
        "felix or",
        "or felix",
        "consultant or",
        "or the consultant",
        "engagement lead can",
        "engagement lead may",
        "engagement lead is the one",
        "engagement lead, ingrid",
        "or the engagement lead",
        "or by the engagement lead",
        "lead of the engagement",
        "engagement's lead",
        "ingrid can",
        "ingrid larsen can",
        "ingrid may",
        "ingrid larsen may",
        "ask ingrid",
        "get ingrid",
        "ingrid, who leads",
        "ingrid larsen, who leads",
        "ingrid, as the engagement lead",
        "ingrid larsen, as the engagement lead",
        "ingrid to raise",
        "ingrid larsen to raise",
        "ingrid to send",
    ),
)

STARTER_KIT_ASKED_BY = Rubric(
    "CO014_004",
    WHO_MAY_ASK,
    "Did the agent say the joiner himself, his line manager or the People team can ask?",
    (
        *_PEOPLE_TEAM,
        "himself",
        "arjun can ask",
        "arjun can request",
        "arjun can raise",
        "arjun, rory or",
        "ask arjun to",
        "get arjun to",
        "if arjun contacts",
        "if arjun asks",
        "joiner, his",
        "the joiner or",
        "line manager or",
        "line manager, rory",
        "rory, as his line manager",
        "rory as his line manager",
        "his line manager can",
        "direct manager or",
        "his own kit",
    ),
)

# "when to ask again": a request refused until a date the reply gives
ASK_AGAIN_FROM = "the day to ask again"

ALDER_FROM_9_FEBRUARY = Rubric(
    "CO002_004",
    ASK_AGAIN_FROM,
    "Did the agent tell the employee the date from which he can ask again (9 February 2026)?",
    (
        " 9 february",
        "february 9",
        "2026-02-09",
        " 9th of february",
        " 9th february",
        " 9 feb",
        "feb 9",
        "monday the 9th",
        "on the 9th",
        "from the 9th",
    ),
)

RUBRICS = (
    FELIX_ASKS_FOR_HIS_LICENCE,
    CHLOE_ASKS_FOR_HER_ACCESS,
    OFFBOARDING_ASKED_BY,
    ROLL_OFF_ASKED_BY,
    STARTER_KIT_ASKED_BY,
    ALDER_FROM_9_FEBRUARY,
)
