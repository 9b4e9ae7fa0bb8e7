"""A tiny shop: the models, tools and policy of a domain of your own."""

from __future__ import annotations

import datetime as dt
from typing import Literal

import factory
from sqlalchemy import ForeignKey
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from pytest_thinkingbox import (
    PRECONDITION_FAILED,
    Domain,
    Factory,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
)

NOW = dt.datetime(2026, 6, 1, 9, 0)  # the domain's fixed clock


class Base(DeclarativeBase):
    pass


class Order(Base):
    __tablename__ = "orders"
    id: Mapped[str] = mapped_column(primary_key=True)
    email: Mapped[str]
    total_cents: Mapped[int]
    status: Mapped[str] = mapped_column(default="delivered")  # delivered, refunded
    delivered_on: Mapped[dt.date]


class Refund(Base):
    __tablename__ = "refunds"
    id: Mapped[str] = mapped_column(primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"))
    amount_cents: Mapped[int]


tools = ToolSet("shop")


@tools.read
def get_order(db: Session, order_id: str) -> dict:
    """Look up an order by its id (for example O-100)."""
    return row_dict(get_or_fail(db, Order, order_id, "order"))


@tools.write
def refund_order(db: Session, order_id: str, reason: Literal["damaged", "late", "changed_mind"]) -> dict:
    """Refund an order in full."""
    order = get_or_fail(db, Order, order_id, "order")
    if order.status == "refunded":
        raise ToolFailure(PRECONDITION_FAILED, f"order {order_id} is already refunded")
    order.status = "refunded"
    refund = Refund(id=next_id(db, Refund, "RF-"), order_id=order_id, amount_cents=order.total_cents)
    db.add(refund)
    return row_dict(refund)


POLICY = """Refund an order only within 30 days of delivery. Today is 2026-06-01."""

DOMAIN = Domain(name="shop", metadata=Base.metadata, tools=tools, policy=POLICY, now=NOW)


class OrderFactory(Factory):
    class Meta:
        model = Order

    id = factory.Sequence(lambda n: f"O-{100 + n}")
    email = "kim@example.com"
    total_cents = 4_999
    delivered_on = dt.date(2026, 5, 20)
