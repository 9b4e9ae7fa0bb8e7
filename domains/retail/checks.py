"""Reading a task's end state: what the agent wrote on a ticket (`Ticket.outcome` gives how it left it)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from .models import TicketComment


def internal_notes(db: Session, ticket_id: str) -> int:
    """How many internal comments the ticket has, after checking that it has no public one."""
    comments = db.query(TicketComment).filter(TicketComment.ticket_id == ticket_id).all()
    assert not [c.id for c in comments if c.public], "the policy allows no public comment"
    return len(comments)
