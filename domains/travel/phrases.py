"""Accepted wordings for the travel tasks' rubric questions, built once so every task words a fact the same way.

The offline judge (`PhraseJudge`) answers "yes" when one of a question's phrases appears in what the agent told
the traveller, so a phrase list must hold the ways a correct reply says the fact and none that a wrong reply
would say. Two kinds of fact are asked about in this domain, both ones no record holds:

* `refund_amount`: the amount a refund over the agent's limit comes to, which the payments team sends (policy,
  Refund limit: tell the traveller the amount; no refund row exists until the payments team pays it). Written
  the ways people write euro amounts: ``1,436.00``, ``1.436,00``, ``1436``, ``1 436``, or in cents.
* `contact_travel_manager`: telling the traveller of a suspended account to contact their travel manager (policy,
  Corporate account standing). Only advice to the traveller counts ("please contact your travel manager", "you'll
  need to speak to Ingrid Solberg"), not the agent's own promise to contact the manager ("I'll contact your travel
  manager"), which is the opposite of what the policy asks.

`tests/test_phrases_travel.py` tries every rubric of the domain against correct replies worded differently from
the tasks' reference replies and against wrong ones (other figures, a refusal, a forbidden promise, vague replies).
"""

from __future__ import annotations

_ADVICE = (
    "please ",
    "you'll need to ",
    "you will need to ",
    "you need to ",
    "you'd need to ",
    "you should ",
    "you can ",
    "you could ",
    "you may want to ",
    "you might want to ",
    "i'd suggest you ",
    "i suggest you ",
    "i'd recommend you ",
    "i recommend you ",
    "i'd ask you to ",
    "ask you to ",
    "advise you to ",
    "best to ",
    "the best thing is to ",
    ". ",
    "! ",
)
_VERBS = (
    "contact",
    "get in touch with",
    "speak to",
    "speak with",
    "talk to",
    "reach out to",
    "check with",
    "raise this with",
    "raise it with",
    "take this up with",
    "take it up with",
    "ask",
    "call",
    "email",
    "write to",
)
_WHO = ("your travel manager", "your company's travel manager", "the travel manager")
_WHO_FIRST = ("the person to", "the one to", "the right person to", "best placed to")


def refund_amount(cents: int) -> tuple[str, ...]:
    """The ways a reply writes a whole-euro amount of `cents`: with or without decimals, any thousands mark."""
    if cents % 100:
        raise ValueError(f"{cents} cents is not a whole euro amount; add its forms by hand")
    euros = cents // 100
    grouped = f"{euros:,}"
    forms = [
        grouped,  # 1,436 (and 1,436.00)
        str(euros),  # 1436 (and 1436.00, 1436 euros)
        grouped.replace(",", "."),  # 1.436 (and 1.436,00 €)
        grouped.replace(",", " "),  # 1 436
        grouped.replace(",", "\u202f"),  # 1 436 with a narrow no-break space
        f"{cents:,} cent",  # 143,600 cents
        f"{cents} cent",
    ]
    return tuple(dict.fromkeys(forms))


def contact_travel_manager(name: str | None = None) -> tuple[str, ...]:
    """Advice to contact the travel manager (by title, or by `name`), in the forms a reply gives it."""
    who = (*_WHO, *((name,) if name else ()))
    advice = [f"{a}{v} {w}" for a in _ADVICE for v in _VERBS for w in who]
    roles = [f"{w} is {r}" for w in who for r in _WHO_FIRST]
    asked = [f"{p} is {w}" for p in ("person to contact", "person to speak to", "person to talk to") for w in who]
    return tuple(dict.fromkeys(p.lower() for p in (*advice, *roles, *asked)))
