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

from .user import ACKNOWLEDGE, AGREE, DECLINE, GOODBYE, NO_PREFERENCE, SMALL_TALK, UNKNOWN, ScriptedUser
from .vocabulary import SYNONYMS

__all__ = [
    "ACKNOWLEDGE",
    "AGREE",
    "DECLINE",
    "GOODBYE",
    "NO_PREFERENCE",
    "SMALL_TALK",
    "SYNONYMS",
    "UNKNOWN",
    "ScriptedUser",
]
