"""What only the reply can show: the rubric questions the auto insurance tasks still ask, with their phrases.

A decision that lands in the records (an amount paid or credited, a date set, a refusal and its reason, a hold)
is graded on the records. What is left is what the policy makes the agent tell the customer and no record holds:
that the days between a cancellation and the reinstatement are a lapse with no coverage ([AI-68]), what remains
past due and when the cancellation takes effect after a payment or a credit that does not clear it ([AI-63],
[AI-90]), that only the policyholder may ask about their policy, so they must contact us ([AI-10]), and that an
invalid VIN must be read again from the registration card or the dashboard ([AI-18]).

The offline judge (`PhraseJudge`) answers yes when any phrase appears, ignoring case, in what the agent told the
customer. So each phrase is a wording a correct reply uses and a wrong one does not: an amount is bounded where a
longer amount could contain it (" 87.60" is not in "$187.60"), a day has two digits and its month, and a sentence
about the policyholder names the contact ("she needs to call", not "she needs to sign a consent form").
`tests/test_phrases_auto_insurance.py` holds each family of questions against replies a careful agent might give
in its own words and replies a careless one might give instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Question:
    """A yes/no question about the reply, and the phrases that make the offline judge answer yes."""

    text: str
    phrases: tuple[str, ...]


#: [AI-68]: after a reinstatement, the days between the cancellation and today are a lapse with no coverage.
LAPSE = Question(
    "Did the agent tell the customer that the days between the cancellation and the reinstatement are a lapse with "
    "no coverage?",
    (
        "is a lapse",
        "are a lapse",
        "was a lapse",
        "were a lapse",
        "as a lapse",
        "there's a lapse",
        "there is a lapse",
        "there was a lapse",
        "leaves a lapse",
        "had lapsed",
        "no coverage between",
        "no coverage from",
        "no coverage for those",
        "no coverage during",
        "no coverage on those",
        "with no coverage",
        "had no coverage",
        "no insurance between",
        "no insurance from",
        "had no insurance",
        "without coverage from",
        "without coverage between",
        "without coverage during",
        "without coverage for those",
        "remains without coverage",
        "stays without coverage",
        "were left without",
        "not covered between",
        "not covered from",
        "not covered during",
        "not covered on those",
        "weren't covered",
        "were not covered",
        "wasn't covered",
        "was not covered",
        "uninsured from",
        "uninsured between",
        "uninsured during",
        "uninsured for those",
        "stay uninsured",
        "remain uninsured",
        "were uninsured",
        "not insured",
        "wasn't insured",
        "weren't insured",
        "gap in coverage from",
        "gap in coverage between",
        "as a gap in coverage",
        "coverage gap from",
        "coverage gap between",
        "with a break in cover",
        "a break in cover from",
        "a break in cover between",
        "not in force",
        "not in effect",
        "doesn't reach back",
        "does not reach back",
        "isn't back-dated",
        "is not back-dated",
        "isn't backdated",
        "is not backdated",
    ),
)

#: [AI-18]: an invalid VIN is never corrected at the desk; the customer reads it again.
READ_VIN_AGAIN = Question(
    "Did the agent ask the customer to read the VIN again?",
    (
        "read it again",
        "read the vin again",
        "vin again",
        "it again from",
        "read it out again",
        "read it to me again",
        "once more",
        "one more time",
        "re-read",
        "reread",
        "double-check the vin",
        "double check the vin",
        "check the vin on",
        "check the vin from",
        "check the vin again",
        "confirm the vin",
        "correct vin",
        "the right vin",
        "another look at the vin",
        "read me the vin",
        "read out the vin",
    ),
)

_MODALS = ("will need to", "would need to", "needs to", "need to", "has to", "must", "should", "will have to")
_CONTACT = ("call", "contact", "get in touch", "reach out", "phone", "ring", "give us a", "report", "ask", "request")


def policyholder_must_call(pronoun: str, relative: str) -> Question:
    """[AI-10]: only the policyholder may ask about their policy; the caller is told that the policyholder, their
    `relative` ("wife"), whom the reply calls `pronoun` ("she" or "he"), must contact us. A sentence that has them
    do something else ("she needs to sign a consent form") is not that."""
    her = {"she": "her", "he": "him"}[pronoun]
    subjects = (pronoun, f"your {relative}", f"your {relative},", "the policyholder", "the policy holder")
    said = [f"{who} {modal} {verb}" for who in subjects for modal in _MODALS for verb in _CONTACT]
    said += [f"{pronoun}'ll need to {verb}" for verb in _CONTACT]
    return Question(
        f"Did the agent tell the caller that the policyholder, their {relative}, must contact us about that policy?",
        (
            "only the policyholder",
            "only the policy holder",
            f"only your {relative}",
            f"come from {her}",
            f"come from your {relative}",
            "come from the policyholder",
            "come from the named policyholder",
            "come from the policy holder",
            f"have {her} call",
            f"have {her} contact",
            f"have {her} get in touch",
            f"ask {her} to call",
            f"ask {her} to contact",
            f"ask {her} to get in touch",
            f"ask {her} to reach out",
            *said,
        ),
    )


def remaining_past_due(cents: int) -> Question:
    """[AI-63], [AI-90]: a payment or a credit that leaves part of the past due unpaid stops no cancellation; the
    customer is told what remains past due."""
    return Question(
        f"Did the agent tell the customer the past-due amount that remains, {dollars(cents)[0]}?", dollars(cents)
    )


def cancellation_date(when: date) -> Question:
    """[AI-63], [AI-90]: ... and the date the cancellation takes effect."""
    named = f"{when.day} {when.strftime('%B')}"
    return Question(f"Did the agent tell the customer the date the cancellation takes effect, {named}?", day(when))


def dollars(cents: int) -> tuple[str, ...]:
    """The ways a reply writes an amount ($87.60, $ 87.60, 87.60 dollars, 87 dollars and 60 cents), each bounded on
    the left so that no longer amount contains it ("$87.60" and " 87.60" are not in "$187.60")."""
    whole, part = divmod(cents, 100)
    if not part:
        raise ValueError(
            f"{cents} cents: a whole-dollar amount is inside longer ones ($50 in $500); grade it otherwise"
        )
    numbers = dict.fromkeys((f"{whole:,}.{part:02d}", f"{whole}.{part:02d}"))
    return (
        *(f"${n}" for n in numbers),
        *(f" {n}" for n in numbers),
        *(f"{w} dollars and {part} cents" for w in dict.fromkeys((f"{whole:,}", str(whole)))),
    )


def day(when: date) -> tuple[str, ...]:
    """The ways a reply writes a day of this year (16 May, May 16, the 16th of May, 5/16, 2026-05-16). The day has
    two digits: a one-digit day's wordings are inside other days' ("May 1" is in "May 16")."""
    if when.day < 10:
        raise ValueError(f"{when}: a one-digit day is inside other days' wordings; grade it another way")
    month = when.strftime("%B").lower()
    suffix = "th" if 11 <= when.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(when.day % 10, "th")
    nth = f"{when.day}{suffix}"
    return (
        f"{when.day} {month}",
        f"{month} {when.day}",
        f"{nth} of {month}",
        f"{nth} {month}",
        f"the {nth}",
        f"{when.month}/{when.day}",
        when.isoformat(),
    )
