"""A deliberately small domain for the plugin's own tests: accounts and refunds.

Policy: refunds up to 100_00 cents are issued; above that the ticket goes on
hold. Tools cover reads, writes, an anticipated failure and a crash.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

import factory
from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from pytest_thinkingbox import (
    INVALID_ARGUMENT,
    Domain,
    Factory,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
    volatile,
)

NOW = dt.datetime(2026, 1, 5, 12, 0)


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    owner: Mapped[str]
    balance_cents: Mapped[int] = mapped_column(default=0)


class Ticket(Base):
    __tablename__ = "tickets"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"))
    status: Mapped[str] = mapped_column(default="open")
    note: Mapped[str] = mapped_column(Text, default="", info=volatile("free text written by the agent"))
    updated_at: Mapped[dt.datetime | None] = mapped_column(default=None)  # a stamp of the clock


class Refund(Base):
    __tablename__ = "refunds"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"))
    amount_cents: Mapped[int]
    created_at: Mapped[dt.datetime]


tools = ToolSet("toy")


@tools.read
def get_account(db: Session, account_id: str) -> dict:
    """Look up an account by id."""
    return row_dict(get_or_fail(db, Account, account_id, "account"))


@tools.write
def issue_refund(db: Session, account_id: str, amount_cents: int) -> dict:
    """Refund an amount in cents to an account."""
    account = get_or_fail(db, Account, account_id, "account")
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be positive")
    refund = Refund(id=next_id(db, Refund, "RF-"), account_id=account.id, amount_cents=amount_cents, created_at=NOW)
    account.balance_cents += amount_cents
    db.add(refund)
    return row_dict(refund)


@tools.write
def update_ticket(db: Session, ticket_id: str, status: Literal["open", "hold", "solved"], note: str = "") -> dict:
    """Set a ticket's status, with an optional note."""
    ticket = get_or_fail(db, Ticket, ticket_id, "ticket")
    ticket.status, ticket.note, ticket.updated_at = status, note, NOW
    return row_dict(ticket)


@tools.write
def explode(db: Session) -> dict:
    """A tool with a bug, for tests of crash handling."""
    raise RuntimeError("bug in the tool")


def seed(db: Session) -> None:
    db.add(Account(id="A-0", owner="house", balance_cents=0))


DOMAIN = Domain(
    name="toy",
    metadata=Base.metadata,
    tools=tools,
    policy="Refund up to 10000 cents; above, hold the ticket.",
    now=NOW,
    seed=seed,
)


class AccountFactory(Factory[Account]):
    class Meta:
        model = Account

    id = factory.Sequence(lambda n: f"A-{n + 1}")
    owner = factory.Sequence(lambda n: f"owner{n + 1}")


class TicketFactory(Factory[Ticket]):
    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{n + 1}")
    account_id = factory.LazyAttribute(lambda o: AccountFactory().id)
