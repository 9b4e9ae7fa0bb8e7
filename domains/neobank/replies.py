"""What only the reply can show: the rubric questions the neobank tasks still ask, with the phrases that answer them.

A decision that lands in the records (a refund, a dispute's amount, a refusal's reason, a hold) is graded on the
records. What is left is what the policy makes the agent tell the customer and no record holds: the highest card
limit of their level ([NB-47]), what has to happen before an account can be closed ([NB-58]), where documents
for a higher level are uploaded ([NB-19]), the source-of-funds documents a held transfer waits for ([NB-23]), and
from when a lost card can be replaced ([NB-33]).

The offline judge answers yes when any phrase appears in what the agent told the customer, so each phrase is
bounded where another answer could contain it: an amount carries its currency or a space before it ("EUR 500",
" 500 euros", never a bare "500", which "1,500" contains), a date its month. `tests/test_phrases_neobank.py`
holds each family of questions against replies a careful agent might give in its own words and replies a careless
one might give instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

_BEFORE = ("eur ", "€", "€ ")  # a currency before the amount; what stands before it is then no digit
_AFTER = (" eur", " €", "€")  # a currency after it ("euro", "euros" and "EUR" start with "eur")
_END = (" ", ".", ",", ")", "!")  # what may follow an amount that a longer amount could go on from


@dataclass(frozen=True)
class Question:
    """A yes/no question about the reply, and the phrases that make the offline judge answer yes."""

    text: str
    phrases: tuple[str, ...]


def euros(cents: int) -> tuple[str, ...]:
    """The usual ways of writing an amount of euros in a reply: EUR 2,500, €2.500, 2500 euros, 45,90 €.

    Every form is bounded on both sides, so that no other amount contains it: a currency or a space before the
    number, and after a number that could go on ("500", "2500") a space or punctuation.
    """
    whole, part = divmod(cents, 100)
    grouped = f"{whole:,}"
    numbers = {grouped, grouped.replace(",", "."), str(whole)}  # 2,500 / 2.500 / 2500
    if part:
        numbers = {f"{n}.{part:02d}" for n in (grouped, str(whole))} | {
            f"{n},{part:02d}" for n in (grouped.replace(",", "."), str(whole))
        }
    else:
        numbers |= {f"{grouped}.00", f"{grouped.replace(',', '.')},00"}
    found: list[str] = []
    for number in sorted(numbers, key=lambda n: (len(n), n)):
        open_ended = not part and number.isdigit()  # "500" goes on to "5000", "2500" to "25000"
        for before in _BEFORE:
            found += [f"{before}{number}{end}" for end in _END] if open_ended else [f"{before}{number}"]
        found += [f" {number}{after}" for after in _AFTER]
    return _shortest(found)


def _shortest(phrases: list[str]) -> tuple[str, ...]:
    """The phrases without those that contain another (it matches wherever they do), first ones first."""
    unique = list(dict.fromkeys(phrases))
    return tuple(p for p in unique if not any(q != p and q in p for q in unique))


def highest_card_limit(cents: int) -> Question:
    """[NB-47]: a limit above the level's maximum is refused, and the customer is told the maximum."""
    return Question("Did the agent tell the customer the highest daily card limit their level allows?", euros(cents))


def balance_left(cents: int) -> Question:
    """[NB-58]: a closure refused for its balance tells the customer what is still on the account to move out."""
    return Question("Did the agent tell the customer how much is still on the account?", euros(cents))


def replaceable_from(day: date, days_left: int) -> Question:
    """[NB-33]: a lost card frozen for fewer than 14 days can be blocked and replaced from the day it reaches 14."""
    month = day.strftime("%B")
    n = day.day
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}[days_left]
    phrases = _shortest(
        [
            f" {n} {month}",
            f"{month} {n} ",
            f"{month} {n},",
            f"{month} {n}.",
            f"{month} {n}{suffix}",
            f" {n}{suffix} {month}",
            f" {n}{suffix} of {month}",
            f" {n:02d}.{day.month:02d}.",
            f" {n}.{day.month}.",
            f" {n}/{day.month}",
            f" in {words} days",
            f" in {days_left} days",
            f" {words} more days",
            f" {days_left} more days",
        ]
    )
    return Question("Did the agent tell the customer from which day the card can be blocked and replaced?", phrases)


UPLOAD_IN_THE_APP = Question(
    "Did the agent tell the customer to upload the documents for a higher level in the app?",
    (
        "upload",
        "profile, then verification",
        "profile > verification",
        "profile → verification",
        "profile and then verification",
        "then verification",
        "verification section",
        "verification screen",
        "verification tab",
        "verification page",
        "submit your documents in the app",
        "submit them in the app",
        "add your documents in the app",
    ),
)

SOURCE_OF_FUNDS = Question(
    "Did the agent ask the customer for documents showing the source of the funds, to release the transfer?",
    (
        "source of funds",
        "source-of-funds",
        "source of the funds",
        "source of the money",
        "where the money comes from",
        "where the money came from",
        "where the funds come from",
        "where the funds came from",
        "origin of the funds",
        "origin of the money",
    ),
)
