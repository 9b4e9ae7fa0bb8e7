"""Records of an online retailer: customers, catalogue, orders, after-sales and support.

Money is held in integer cents, ids are strings with a per-table prefix
(``C-``, ``O-``, ``RF-`` ...), and every enumerated field has a `Literal` type
below that the tools reuse for their argument schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from domains.shared.tickets import AGENT_TEXT, CommentColumns, TicketColumns

Tier = Literal["standard", "plus", "premium"]
Category = Literal["electronics", "appliances", "furniture", "kitchen", "home", "outdoor", "apparel"]
OrderStatus = Literal["placed", "processing", "shipped", "delivered", "cancelled"]
ShipmentStatus = Literal["label_created", "in_transit", "delivered", "exception", "lost", "returned_to_sender"]
PaymentMethod = Literal["card", "paypal", "gift_card"]
PaymentStatus = Literal["captured", "partially_refunded", "refunded"]
RefundMethod = Literal["original", "store_credit"]
RefundReason = Literal[
    "late_delivery",
    "lost_parcel",
    "damaged",
    "returned_to_sender",
    "return",
    "price_adjustment",
    "installation_cancelled",
    "order_cancelled",
    "price_protection",
]
ReturnReason = Literal["changed_mind", "defective", "wrong_item", "not_as_described"]
Condition = Literal["unopened", "opened", "damaged", "defective"]
ReturnStatus = Literal["requested", "approved", "received", "refunded", "rejected"]
RejectionReason = Literal["final_sale", "outside_window", "not_eligible"]
WarrantyPlan = Literal["manufacturer", "extended", "accident_protection"]
ClaimIssue = Literal["defect", "accidental_damage"]
ClaimResolution = Literal["repair", "replacement"]
JobStatus = Literal["scheduled", "completed", "cancelled", "missed"]
PromotionKind = Literal["percent", "fixed"]
PointsReason = Literal["courtesy", "correction", "promotion"]


class Base(DeclarativeBase):
    pass


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    tier: Mapped[str] = mapped_column(String(16), default="standard")
    member_since: Mapped[date] = mapped_column(Date)
    points_balance: Mapped[int] = mapped_column(Integer, default=0)
    store_credit_cents: Mapped[int] = mapped_column(Integer, default=0)
    chargebacks: Mapped[int] = mapped_column(Integer, default=0)
    abuse_flags: Mapped[int] = mapped_column(Integer, default=0)
    address_line: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    postal_code: Mapped[str] = mapped_column(String(16))

    orders: Mapped[list[Order]] = relationship(back_populates="customer", order_by="Order.id")


# find_customer_by_email compares emails in lower case (domains/shared/identity.py)
Index("ix_customers_email_lower", func.lower(Customer.email))


class Product(Base):
    __tablename__ = "products"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    sku: Mapped[str] = mapped_column(String(32), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    category: Mapped[str] = mapped_column(String(16))
    price_cents: Mapped[int] = mapped_column(Integer)
    final_sale: Mapped[bool] = mapped_column(Boolean, default=False)
    restockable: Mapped[bool] = mapped_column(Boolean, default=True)
    warranty_months: Mapped[int] = mapped_column(Integer, default=12)
    installable: Mapped[bool] = mapped_column(Boolean, default=False)


class Inventory(Base):
    """Stock of one product in the fulfilment warehouse (keyed by the product id)."""

    __tablename__ = "inventory"

    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), primary_key=True)
    warehouse: Mapped[str] = mapped_column(String(32), default="RNO-1")
    on_hand: Mapped[int] = mapped_column(Integer, default=0)
    reserved: Mapped[int] = mapped_column(Integer, default=0)
    restock_expected_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    product: Mapped[Product] = relationship()


class Order(Base):
    __tablename__ = "orders"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="placed")
    placed_at: Mapped[datetime] = mapped_column(DateTime)
    subtotal_cents: Mapped[int] = mapped_column(Integer, default=0)
    shipping_cents: Mapped[int] = mapped_column(Integer, default=0)
    discount_cents: Mapped[int] = mapped_column(Integer, default=0)
    total_cents: Mapped[int] = mapped_column(Integer, default=0)
    promo_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    ship_line: Mapped[str] = mapped_column(String(200))
    ship_city: Mapped[str] = mapped_column(String(80))
    ship_postal_code: Mapped[str] = mapped_column(String(16))
    replacement_for: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True, index=True)
    replacement_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)

    customer: Mapped[Customer] = relationship(back_populates="orders")
    items: Mapped[list[OrderItem]] = relationship(back_populates="order", order_by="OrderItem.id")
    shipments: Mapped[list[Shipment]] = relationship(back_populates="order", order_by="Shipment.id")
    payments: Mapped[list[Payment]] = relationship(back_populates="order", order_by="Payment.id")


class OrderItem(Base):
    __tablename__ = "order_items"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), index=True)
    quantity: Mapped[int] = mapped_column(Integer, default=1)
    unit_price_cents: Mapped[int] = mapped_column(Integer)

    order: Mapped[Order] = relationship(back_populates="items")
    product: Mapped[Product] = relationship()


class Shipment(Base):
    __tablename__ = "shipments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    carrier: Mapped[str] = mapped_column(String(16))
    tracking_number: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(24), default="in_transit")
    shipped_at: Mapped[datetime] = mapped_column(DateTime)
    expected_delivery: Mapped[date] = mapped_column(Date)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    days_late: Mapped[int] = mapped_column(Integer, default=0)
    exception_opened_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    exception_reason: Mapped[str | None] = mapped_column(String(120), nullable=True)

    order: Mapped[Order] = relationship(back_populates="shipments")


class Payment(Base):
    __tablename__ = "payments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    method: Mapped[str] = mapped_column(String(16), default="card")
    amount_cents: Mapped[int] = mapped_column(Integer)
    refunded_cents: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(24), default="captured")
    captured_at: Mapped[datetime] = mapped_column(DateTime)

    order: Mapped[Order] = relationship(back_populates="payments")


class Refund(Base):
    __tablename__ = "refunds"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    payment_id: Mapped[str] = mapped_column(ForeignKey("payments.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    method: Mapped[str] = mapped_column(String(16), default="original")
    reason: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    note: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)
    # the order line a price-protection refund is for (other refunds are for the order as a whole)
    order_item_id: Mapped[str | None] = mapped_column(ForeignKey("order_items.id"), nullable=True, index=True)

    order: Mapped[Order] = relationship()


class Return(Base):
    """A return merchandise authorisation (RMA) for one order line."""

    __tablename__ = "returns"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    order_item_id: Mapped[str] = mapped_column(ForeignKey("order_items.id"), index=True)
    quantity: Mapped[int] = mapped_column(Integer, default=1)
    reason: Mapped[str] = mapped_column(String(24))
    declared_condition: Mapped[str] = mapped_column(String(16))
    inspected_condition: Mapped[str | None] = mapped_column(String(16), nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="requested")
    restocking_fee_percent: Mapped[int | None] = mapped_column(Integer, nullable=True)
    restocking_fee_cents: Mapped[int] = mapped_column(Integer, default=0)
    refund_id: Mapped[str | None] = mapped_column(ForeignKey("refunds.id"), nullable=True, index=True)
    rejection_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    received_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    order: Mapped[Order] = relationship()
    item: Mapped[OrderItem] = relationship()


class Warranty(Base):
    __tablename__ = "warranties"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), index=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True, index=True)
    serial_number: Mapped[str] = mapped_column(String(40))
    plan: Mapped[str] = mapped_column(String(24), default="manufacturer")
    starts_on: Mapped[date] = mapped_column(Date)
    expires_on: Mapped[date] = mapped_column(Date)
    void: Mapped[bool] = mapped_column(Boolean, default=False)

    customer: Mapped[Customer] = relationship()
    product: Mapped[Product] = relationship()
    claims: Mapped[list[WarrantyClaim]] = relationship(back_populates="warranty", order_by="WarrantyClaim.id")


class WarrantyClaim(Base):
    __tablename__ = "warranty_claims"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    warranty_id: Mapped[str] = mapped_column(ForeignKey("warranties.id"), index=True)
    issue: Mapped[str] = mapped_column(String(24))
    resolution: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="approved")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    description: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)

    warranty: Mapped[Warranty] = relationship(back_populates="claims")


class InstallationJob(Base):
    __tablename__ = "installation_jobs"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("products.id"), index=True)
    scheduled_for: Mapped[datetime] = mapped_column(DateTime)
    technician: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16), default="scheduled")
    fee_cents: Mapped[int] = mapped_column(Integer)
    reschedule_count: Mapped[int] = mapped_column(Integer, default=0)
    reschedule_fees_cents: Mapped[int] = mapped_column(Integer, default=0)
    cancellation_fee_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)

    order: Mapped[Order] = relationship()


class Promotion(Base):
    __tablename__ = "promotions"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    description: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    value: Mapped[int] = mapped_column(Integer)  # percent for "percent", cents for "fixed"
    min_subtotal_cents: Mapped[int] = mapped_column(Integer, default=0)
    max_discount_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tier_required: Mapped[str | None] = mapped_column(String(16), nullable=True)
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)


# promo codes are looked up in upper case (tools.get_promotion, apply_promo_code)
Index("ix_promotions_code_upper", func.upper(Promotion.code))


class PointsAdjustment(Base):
    __tablename__ = "points_adjustments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    points: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(16))
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    note: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)

    customer: Mapped[Customer] = relationship()


class Ticket(TicketColumns, Base):
    requester_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"), nullable=True, index=True)

    requester: Mapped[Customer] = relationship()


class TicketComment(CommentColumns, Base):
    pass
