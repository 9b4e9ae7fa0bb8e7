"""Reading a task's end state: what the agent wrote on a ticket (`Ticket.outcome` gives how it left it), and the
questions asked of its replies where only the reply can show what the policy requires.

Each rubric question comes with the phrases the offline judge answers it from. They are tested, as families,
against correct and wrong replies written in other words (`tests/test_phrases_retail.py`).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .models import TicketComment

#: Delivery exceptions (RT-24): "Tell the customer the carrier has up to 7 days." Each wording names the 7 days
#: with the carrier or its investigation (a refund "in 7 days" or a team that replies "within 7 days" is not it).
CARRIER_DAYS = "Did the agent tell the customer that the carrier has up to 7 days to finish its investigation?"
_WEEK = ("7 days", "seven days", "a week")
CARRIER_DAYS_PHRASES = (
    *(
        f"{who} {has} up to {days}"
        for who in ("carrier", "courier")
        for has in ("has", "is given", "gets")
        for days in _WEEK
    ),
    *(
        f"{days} to {what}"
        for days in ("7 days", "seven days", "week")  # "a week", "a full week"
        for what in ("investigate", "look into", "conclude", "finish it", "complete it")
    ),
    *(
        f"{days} to {finish} {its} investigation"
        for days in _WEEK
        for finish in ("finish", "complete")
        for its in ("its", "their", "the")
    ),
    *(
        f"investigation {can} up to {days}"
        for can in ("can take", "may take", "takes", "can last", "may last")
        for days in _WEEK
    ),
    "7-day investigation",
    "seven-day investigation",
)

#: Product safety reports (RT-54): "Tell them to stop using and unplug the product." The offline judge checks the
#: first half, the one that keeps the customer safe: unplugging to reset the product and go on using it is not it.
STOP_USING = "Did the agent tell the customer to stop using the product?"
STOP_USING_PHRASES = (
    "stop using",
    "cease using",
    "stop operating",
    "do not use it",
    "don't use it",
    "not to use it",
    "no longer use",
    "discontinue use",
    "must not be used",
    "should not be used",
    "leave it unplugged",
    "keep it unplugged",
)


def internal_notes(db: Session, ticket_id: str) -> int:
    """How many internal comments the ticket has, after checking that it has no public one."""
    comments = db.query(TicketComment).filter(TicketComment.ticket_id == ticket_id).all()
    assert not [c.id for c in comments if c.public], "the policy allows no public comment"
    return len(comments)
