"""Factory bases for the shared ticket models.

A domain's `TicketFactory` and `TicketCommentFactory` derive from these and
add what only the domain knows: the model, the id sequence, the requester's
factory, a subject or body in its own words, and when the ticket was opened.
"""

from __future__ import annotations

import factory

from pytest_thinkingbox import Factory


class TicketFactoryBase(Factory):
    """The ticket of the conversation: open, normal priority, last updated when it was opened."""

    class Meta:
        abstract = True

    status = "open"
    priority = "normal"
    updated_at = factory.SelfAttribute("created_at")


class CommentFactoryBase(Factory):
    """A public comment by the ticket's requester, written when the ticket was opened."""

    class Meta:
        abstract = True

    public = True
    author = factory.LazyAttribute(lambda c: c.ticket.requester.name)
    created_at = factory.SelfAttribute("ticket.created_at")
