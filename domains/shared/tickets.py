"""Support tickets and their comments: shared columns and the ticket tools.

A domain declares its own `Ticket` and `TicketComment` models on its own
`Base` with the mixins below, which bring the tables' names, their shared
columns and the ticket-comment relationship both ways; the ticket adds what
only the domain knows: the foreign key ``requester_id`` to the people who raise
tickets, its ``requester`` and links to its records (an order, a policy, a
booking ...)::

    class Ticket(TicketColumns, Base):
        requester_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
        requester: Mapped[Customer] = relationship()

    class TicketComment(CommentColumns, Base):
        pass

`register_ticket_tools` then adds the same five ticket tools to its `ToolSet`,
with the domain's classification: the categories a ticket can have, the reason
codes that say why a ticket is held, refused or escalated, and the queues an
escalation can go to. The tools' schemas list the allowed values; the domain's
policy says which applies when, and the tasks grade it. A ticket that ends a
conversation in a refusal or a hold is the documented write the policies ask
for, so a do-nothing agent cannot pass such a task.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Boolean, DateTime, ForeignKey, String, Text, bindparam, func, select
from sqlalchemy.orm import Mapped, Session, declared_attr, mapped_column, relationship

from pytest_thinkingbox import (
    INVALID_ARGUMENT,
    PRECONDITION_FAILED,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
    rows_where,
    volatile,
)

TicketStatus = Literal["new", "open", "pending", "hold", "solved", "closed"]
AgentStatus = Literal["open", "pending", "hold", "solved"]  # new and closed are set by the system
TicketPriority = Literal["low", "normal", "high", "urgent"]

AGENT_TEXT = volatile("free text written by the agent")


class TicketColumns:
    """The ``tickets`` table's columns every domain has, and its comments; the domain adds ``requester_id``,
    ``requester`` and its links (their columns come first in the table)."""

    __tablename__ = "tickets"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    subject: Mapped[str] = mapped_column(String(200), info=AGENT_TEXT)
    status: Mapped[str] = mapped_column(String(16), default="open")
    priority: Mapped[str] = mapped_column(String(16), default="normal")
    category: Mapped[str | None] = mapped_column(String(40), nullable=True)  # what the ticket is about
    reason: Mapped[str | None] = mapped_column(String(40), nullable=True)  # why it is held, refused or escalated
    queue: Mapped[str | None] = mapped_column(String(40), nullable=True)  # the team an escalation goes to
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    @property
    def outcome(self) -> tuple[str, str, str | None, str | None, str | None]:
        """How the ticket was left: (status, priority, category, reason, queue), the decision and its
        classification, as a task asserts them in one line."""
        return self.status, self.priority, self.category, self.reason, self.queue

    @declared_attr
    def comments(cls) -> Mapped[list[Any]]:
        return relationship("TicketComment", back_populates="ticket", order_by="TicketComment.id")


class CommentColumns:
    """The whole ``ticket_comments`` table: a comment on one ticket (``ticket_id``, its first column)."""

    __tablename__ = "ticket_comments"

    ticket_id: Mapped[str] = mapped_column(ForeignKey("tickets.id"), index=True)
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    author: Mapped[str] = mapped_column(String(80), default="support agent")
    body: Mapped[str] = mapped_column(Text, info=AGENT_TEXT)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    @declared_attr
    def ticket(cls) -> Mapped[Any]:
        return relationship("Ticket", back_populates="comments")


def register_ticket_tools(
    tools: ToolSet,
    ticket: Any,
    comment: Any,
    requester: Any,
    now: datetime,
    requester_label: str = "customer",
    *,
    categories: Sequence[str],
    reasons: Sequence[str],
    queues: Sequence[str] = (),
    link: tuple[str, Any, str] | None = None,
    second_requester: tuple[Any, str, str] | None = None,
) -> None:
    """Add ``get_ticket``, ``list_tickets``, ``create_ticket``, ``update_ticket`` and ``add_ticket_comment``.

    Args:
        tools: the domain's tool set.
        ticket: the domain's ticket model (`TicketColumns` plus ``requester_id``).
        comment: the domain's comment model (`CommentColumns` plus ``ticket_id``).
        requester: the model of the people who raise tickets (customers, travellers, employees ...).
        now: the domain clock's moment, stamped on every change.
        requester_label: what the agent calls a requester, for the tool descriptions.
        categories: the ticket categories of the domain (``create_ticket`` requires one).
        reasons: the reason codes for a hold, a refusal or an escalation.
        queues: the teams an escalation can go to; none means the domain has one escalation team.
        link: the ticket's link to a record of the domain, as (column, model, what the agent calls it),
            e.g. ``("order_id", Order, "order")``; ``create_ticket`` takes it as an argument.
        second_requester: another kind of person who raises tickets, as (model, the ticket column that names
            them, what the agent calls them), e.g. ``(Employee, "employee_id", "employee")`` for a desk that
            also serves staff; their tickets have no ``requester_id`` and no link, and ``requester_id`` in
            ``list_tickets`` and ``create_ticket`` takes their id too.
    """
    Category = Literal[tuple(categories)]  # type: ignore[valid-type]
    Reason = Literal[tuple(reasons)]  # type: ignore[valid-type]
    Queue: Any = Literal[tuple(queues)] if queues else None  # a Literal of the domain's queues, built at run time

    # The queries, built once: a statement built for every call costs as much again as running it.
    counted = comment.ticket_id.in_(bindparam("ticket_ids", expanding=True))
    counts_of = select(comment.ticket_id, func.count()).where(counted).group_by(comment.ticket_id)
    columns = ["requester_id"] + ([second_requester[1]] if second_requester else [])
    newest_first = (ticket.created_at.desc(), ticket.id)
    tickets_of = {
        name: select(ticket).where(getattr(ticket, name) == bindparam("requester_id")).order_by(*newest_first)
        for name in columns
    }

    def view(db: Session, row: Any, with_comments: bool) -> dict:
        if with_comments:
            comments = rows_where(db, comment.ticket_id, row.id)
            return {**row_dict(row), "comments": [row_dict(c) for c in comments]}
        return {**row_dict(row), "comment_count": comment_counts(db, [row]).get(row.id, 0)}

    def comment_counts(db: Session, rows: Sequence[Any]) -> dict[str, int]:
        """How many comments each of these tickets has (none listed: none), in one query."""
        if not rows:
            return {}
        found = db.execute(counts_of, {"ticket_ids": [row.id for row in rows]})
        return dict(found.all())  # a Result has keys(), so dict(found) would read it as a mapping

    def writable(db: Session, ticket_id: str) -> Any:
        row = get_or_fail(db, ticket, ticket_id, "ticket")
        if row.status == "closed":
            raise ToolFailure(PRECONDITION_FAILED, f"ticket {ticket_id} is closed; create a new ticket instead")
        return row

    def get_ticket(db: Session, ticket_id: str) -> dict:
        return view(db, get_or_fail(db, ticket, ticket_id, "ticket"), with_comments=True)

    kinds = [requester_label] + ([second_requester[2]] if second_requester else [])  # what the agent calls them

    def named_by(db: Session, requester_id: str) -> str:
        """The ticket column that names this requester: ``requester_id``, or the second kind's column."""
        if second_requester is not None and db.get(second_requester[0], requester_id) is not None:
            return second_requester[1]
        get_or_fail(db, requester, requester_id, requester_label)
        return "requester_id"

    def list_tickets(db: Session, requester_id: str) -> list[dict]:
        listed = db.scalars(tickets_of[named_by(db, requester_id)], {"requester_id": requester_id}).all()
        counts = comment_counts(db, listed)
        return [{**row_dict(row), "comment_count": counts.get(row.id, 0)} for row in listed]

    def create_ticket(
        db: Session, requester_id: str, subject: str, category: str, priority: TicketPriority = "normal", **linked: Any
    ) -> dict:
        column = named_by(db, requester_id)
        if not subject.strip():
            raise ToolFailure(INVALID_ARGUMENT, "give the ticket a subject")
        links = {name: value for name, value in linked.items() if value is not None}
        if link is not None and link[0] in links:
            if column != "requester_id":
                raise ToolFailure(INVALID_ARGUMENT, f"a ticket for {_a(kinds[1])} concerns no {link[2]}")
            get_or_fail(db, link[1], links[link[0]], link[2])
        row = ticket(
            id=next_id(db, ticket, "T-"),
            **{"requester_id": None, column: requester_id},  # the requester's column; the other kind's stays empty
            subject=subject.strip(),
            status="open",
            priority=priority,
            category=category,
            created_at=now,
            updated_at=now,
            **links,
        )
        db.add(row)
        db.flush()
        return view(db, row, with_comments=False)

    def update_ticket(
        db: Session,
        ticket_id: str,
        status: AgentStatus | None = None,
        priority: TicketPriority | None = None,
        category: str | None = None,
        reason: str | None = None,
        queue: str | None = None,
    ) -> dict:
        row = writable(db, ticket_id)
        changes = {"status": status, "priority": priority, "category": category, "reason": reason, "queue": queue}
        changes = {name: value for name, value in changes.items() if value is not None}
        if not changes:
            raise ToolFailure(INVALID_ARGUMENT, "give at least one of: status, priority, category, reason, queue")
        for name, value in changes.items():
            setattr(row, name, value)
        row.updated_at = now
        return view(db, row, with_comments=False)

    def add_ticket_comment(db: Session, ticket_id: str, body: str, public: bool = False) -> dict:
        row = writable(db, ticket_id)
        if not body.strip():
            raise ToolFailure(INVALID_ARGUMENT, "the comment body is empty")
        note = comment(
            id=next_id(db, comment, "TC-"),
            ticket_id=ticket_id,
            public=public,
            author="support agent",
            body=body.strip(),
            created_at=now,
        )
        db.add(note)
        row.updated_at = now
        db.flush()
        return row_dict(note)

    get_ticket.__doc__ = "A support ticket with its status, priority, links and all of its comments."
    raised_by = " or by ".join(f"{_a(kind)} (requester_id is the {kind}'s id)" for kind in kinds)
    list_tickets.__doc__ = (
        f"All support tickets raised by {raised_by}, newest first. The conversation you are in belongs to their "
        "ticket with status new or open."
    )
    only = f"; {requester_label}s only" if second_requester else ""
    linked = f", linked to the {link[2]} it is about ({link[0]}{only})" if link else ""
    create_ticket.__doc__ = (
        f"Open a new ticket for {' or '.join(map(_a, kinds))} (requester_id) who has no new or open ticket for this "
        f"conversation, with its category{linked}."
    )
    update_ticket.__doc__ = (
        "Set a ticket's status (open, pending, hold, solved), priority (low, normal, high, urgent), category, "
        "reason code (why it is held, refused or escalated)"
        + (" and queue (the team an escalation goes to)" if queues else "")
        + "; give only what changes. new and closed are set by the system, never by an agent."
    )
    _declare(
        create_ticket,
        requester_id=(str, inspect.Parameter.empty),
        subject=(str, inspect.Parameter.empty),
        category=(Category, inspect.Parameter.empty),
        priority=(TicketPriority, "normal"),
        **({link[0]: (str | None, None)} if link else {}),
    )
    _declare(
        update_ticket,
        ticket_id=(str, inspect.Parameter.empty),
        status=(AgentStatus | None, None),
        priority=(TicketPriority | None, None),
        category=(Category | None, None),
        reason=(Reason | None, None),
        **({"queue": (Queue | None, None)} if queues else {}),
    )
    add_ticket_comment.__doc__ = (
        "Add a comment to a ticket. Internal comments (public false) are notes for other teams; the policy says "
        "when one is required."
    )
    for read in (get_ticket, list_tickets):
        tools.read(read)
    for write in (create_ticket, update_ticket, add_ticket_comment):
        tools.write(write)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _declare(fn: Callable[..., Any], **parameters: tuple[Any, Any]) -> None:
    """Give a tool function the signature its schema is built from: the domain's values, its link argument."""
    params = [inspect.Parameter("db", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Session)]
    params += [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=kind, default=default)
        for name, (kind, default) in parameters.items()
    ]
    fn.__signature__ = inspect.Signature(params, return_annotation=dict)  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in params} | {"return": dict}  # what type hints read
