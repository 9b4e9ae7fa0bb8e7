"""Factories for the records a retail task seeds on top of the base catalogue.

Ids come from sequences (reset before every attempt), dates from the domain
clock, so the same task body always writes the same rows. `OrderFactory` takes
``lines=[(product_id, quantity), ...]`` (or bare product ids, or
``(product_id, quantity, unit_price_cents)`` for a price paid before the
catalogue price changed) and fills in the line items at catalogue price, the
amounts and a captured payment (``payment="gift_card"`` to change the method,
``payment=False`` for none).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import factory

from domains.shared.factories import CommentFactoryBase, TicketFactoryBase
from pytest_thinkingbox import current_session
from pytest_thinkingbox.core.factories import Factory  # not the package's lazy export, which mypy sees as Any

from .clock import NOW, TODAY, days_ago
from .models import (
    Customer,
    InstallationJob,
    Order,
    OrderItem,
    Payment,
    PointsAdjustment,
    Product,
    Refund,
    Return,
    Shipment,
    Ticket,
    TicketComment,
    Warranty,
    WarrantyClaim,
)

_FIRST = ["Sarah", "Daniel", "Priya", "Marcus", "Elena", "Tomás", "Grace", "Kenji", "Amara", "Oliver"]
_LAST = ["Martinez", "Okafor", "Nair", "Lindqvist", "Rossi", "Ferreira", "Chen", "Walsh", "Haddad", "Novak"]
_CITIES = [("Portland", "97214"), ("Denver", "80205"), ("Austin", "78704"), ("Columbus", "43215"), ("Tucson", "85719")]


class CustomerFactory(Factory[Customer]):
    class Meta:
        model = Customer

    id = factory.Sequence(lambda n: f"C-{1001 + n}")
    name = factory.Sequence(lambda n: f"{_FIRST[n % len(_FIRST)]} {_LAST[(n * 3) % len(_LAST)]}")
    email = factory.LazyAttribute(lambda c: c.name.lower().replace(" ", ".").replace("á", "a") + "@example.com")
    phone = factory.Sequence(lambda n: f"+1-555-01{n % 100:02d}")
    tier = "standard"
    member_since = factory.LazyFunction(lambda: TODAY.replace(year=TODAY.year - 2))
    points_balance = 1_200
    store_credit_cents = 0
    chargebacks = 0
    abuse_flags = 0
    address_line = factory.Sequence(lambda n: f"{120 + 7 * n} Juniper Avenue")
    city = factory.Sequence(lambda n: _CITIES[n % len(_CITIES)][0])
    postal_code = factory.Sequence(lambda n: _CITIES[n % len(_CITIES)][1])


class OrderFactory(Factory[Order]):
    class Meta:
        model = Order

    id = factory.Sequence(lambda n: f"O-{5001 + n}")
    customer = factory.SubFactory(CustomerFactory)
    status = "delivered"
    placed_at = factory.LazyFunction(lambda: days_ago(12))
    subtotal_cents = 0
    shipping_cents = 0
    discount_cents = 0
    total_cents = 0
    promo_code = None
    ship_line = factory.SelfAttribute("customer.address_line")
    ship_city = factory.SelfAttribute("customer.city")
    ship_postal_code = factory.SelfAttribute("customer.postal_code")

    @factory.post_generation
    def lines(order, create, extracted, **kwargs):
        """Add the line items at catalogue price and compute the order amounts."""
        if not extracted:
            return
        db = current_session()
        items = []
        with db.no_autoflush:  # the rows are written together at tb.run; no flush per product look-up
            for line in extracted:
                if isinstance(line, str):
                    line = (line, 1)
                product_id, quantity, *paid = line  # (product, quantity[, unit price paid when it differs])
                product = db.get(Product, product_id)
                assert product is not None, f"no product {product_id} in the seed"
                price = paid[0] if paid else product.price_cents
                items.append(OrderItemFactory(order=order, product=product, quantity=quantity, unit_price_cents=price))
        order.subtotal_cents = sum(i.unit_price_cents * i.quantity for i in items)
        order.total_cents = order.subtotal_cents + order.shipping_cents - order.discount_cents

    @factory.post_generation
    def payment(order, create, extracted, **kwargs):
        """A captured payment of the order total (``payment="gift_card"`` for another method, False for none)."""
        if extracted is False:
            return
        PaymentFactory(order=order, method=extracted or "card", **kwargs)


class OrderItemFactory(Factory[OrderItem]):
    class Meta:
        model = OrderItem

    id = factory.Sequence(lambda n: f"OI-{7001 + n}")
    order = factory.SubFactory(OrderFactory)
    product = factory.LazyFunction(lambda: current_session().get(Product, "P-105"))
    quantity = 1
    unit_price_cents = factory.SelfAttribute("product.price_cents")


class PaymentFactory(Factory[Payment]):
    class Meta:
        model = Payment

    id = factory.Sequence(lambda n: f"PAY-{3001 + n}")
    order = factory.SubFactory(OrderFactory)
    method = "card"
    amount_cents = factory.SelfAttribute("order.total_cents")
    refunded_cents = 0
    status = "captured"
    captured_at = factory.SelfAttribute("order.placed_at")


def _days_late(shipment) -> int:
    arrived = shipment.delivered_at.date() if shipment.delivered_at else TODAY
    return max(0, (arrived - shipment.expected_delivery).days)


class ShipmentFactory(Factory[Shipment]):
    """A shipment; ``days_late`` follows from the expected and actual delivery dates unless given."""

    class Meta:
        model = Shipment

    id = factory.Sequence(lambda n: f"SH-{2001 + n}")
    order = factory.SubFactory(OrderFactory)
    carrier = "UPS"
    tracking_number = factory.Sequence(lambda n: f"1Z9R4{880031 + 17 * n:08d}")
    status = "delivered"
    shipped_at = factory.LazyAttribute(lambda s: s.order.placed_at + timedelta(days=1))
    expected_delivery = factory.LazyAttribute(lambda s: s.shipped_at.date() + timedelta(days=4))
    delivered_at = factory.LazyAttribute(
        lambda s: datetime.combine(s.expected_delivery, time(14, 30)) if s.status == "delivered" else None
    )
    days_late = factory.LazyAttribute(_days_late)
    exception_opened_at = None
    exception_reason = None


class RefundFactory(Factory[Refund]):
    class Meta:
        model = Refund

    id = factory.Sequence(lambda n: f"RF-{8001 + n}")
    order = factory.SubFactory(OrderFactory)
    payment_id = factory.LazyAttribute(lambda r: r.order.payments[0].id)
    amount_cents = 1_000
    method = "original"
    reason = "late_delivery"
    created_at = factory.LazyFunction(lambda: days_ago(5))
    note = None

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        refund = super()._create(model_class, *args, **kwargs)
        payment = current_session().get(Payment, refund.payment_id)
        assert payment is not None, f"refund of payment {refund.payment_id}, which the attempt does not hold"
        payment.refunded_cents += refund.amount_cents
        payment.status = "refunded" if payment.refunded_cents == payment.amount_cents else "partially_refunded"
        current_session().flush()
        return refund


class ReturnFactory(Factory[Return]):
    class Meta:
        model = Return

    id = factory.Sequence(lambda n: f"RMA-{6001 + n}")
    item = factory.SubFactory(OrderItemFactory)
    order = factory.SelfAttribute("item.order")
    quantity = 1
    reason = "changed_mind"
    declared_condition = "unopened"
    inspected_condition = None
    status = "requested"
    restocking_fee_percent = None
    restocking_fee_cents = 0
    created_at = factory.LazyFunction(lambda: days_ago(1))
    received_at = None


class WarrantyFactory(Factory[Warranty]):
    """A warranty starting at purchase and running for the product's warranty months unless given."""

    class Meta:
        model = Warranty

    id = factory.Sequence(lambda n: f"W-{4001 + n}")
    customer = factory.SubFactory(CustomerFactory)
    product_id = "P-101"
    order_id = None
    serial_number = factory.Sequence(lambda n: f"SN-{2600310 + 13 * n}")
    plan = "manufacturer"
    starts_on = factory.LazyFunction(lambda: TODAY - timedelta(days=200))
    expires_on = factory.LazyAttribute(lambda w: w.starts_on.replace(year=w.starts_on.year + 1) - timedelta(days=1))
    void = False


class WarrantyClaimFactory(Factory[WarrantyClaim]):
    class Meta:
        model = WarrantyClaim

    id = factory.Sequence(lambda n: f"WC-{901 + n:04d}")
    warranty = factory.SubFactory(WarrantyFactory)
    issue = "defect"
    resolution = "repair"
    status = "approved"
    created_at = factory.LazyFunction(lambda: days_ago(60))
    description = "Earlier fault, repaired by the service centre."


class InstallationJobFactory(Factory[InstallationJob]):
    class Meta:
        model = InstallationJob

    id = factory.Sequence(lambda n: f"IJ-{4401 + n}")
    order = factory.SubFactory(OrderFactory)
    customer_id = factory.LazyAttribute(lambda j: j.order.customer.id)
    product_id = factory.LazyAttribute(lambda j: j.order.items[0].product_id if j.order.items else "P-107")
    scheduled_for = factory.LazyFunction(lambda: NOW + timedelta(days=4, hours=1))
    technician = factory.Sequence(lambda n: ["Luis Ortega", "Hannah Berg", "Samuel Idowu"][n % 3])
    status = "scheduled"
    fee_cents = 14_900
    reschedule_count = 0
    reschedule_fees_cents = 0
    cancellation_fee_cents = None


class PointsAdjustmentFactory(Factory[PointsAdjustment]):
    class Meta:
        model = PointsAdjustment

    id = factory.Sequence(lambda n: f"PA-{501 + n:04d}")
    customer = factory.SubFactory(CustomerFactory)
    points = 1_000
    reason = "courtesy"
    order_id = None
    created_at = factory.LazyFunction(lambda: days_ago(120))
    note = "Courtesy for an earlier late delivery."


class TicketFactory(TicketFactoryBase, Factory[Ticket]):
    """The ticket of the conversation (open, created now) unless told otherwise."""

    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{7001 + n}")
    requester = factory.SubFactory(CustomerFactory)
    subject = "Question about my order"
    order_id = None
    created_at = NOW


class TicketCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{9001 + n}")
    ticket = factory.SubFactory(TicketFactory)
    body = "Customer message."


# --- Arrange helpers: the set-ups many tasks share ----------------------------------------------------------------


def _parcel_dates(expected_delivery: date | None, delivered_at: datetime | None) -> dict[str, Any]:
    given = {"expected_delivery": expected_delivery, "delivered_at": delivered_at}
    return {name: value for name, value in given.items() if value is not None}


def delivered_order(
    customer: Customer,
    lines: list[Any],
    *,
    placed_days_ago: int,
    expected_delivery: date | None = None,
    delivered_at: datetime | None = None,
    **order: Any,
) -> Order:
    """An order placed `placed_days_ago` days ago and delivered: on time, four days after it shipped, unless the
    expected date or the delivery time is given (`lines` and `order` as OrderFactory takes them, e.g. a unit price
    paid before the catalogue price changed)."""
    delivered = OrderFactory(customer=customer, placed_at=days_ago(placed_days_ago), lines=lines, **order)
    ShipmentFactory(order=delivered, **_parcel_dates(expected_delivery, delivered_at))
    return delivered


def shipped_order(
    customer: Customer,
    lines: list[Any],
    *,
    placed_days_ago: int,
    parcel: str = "in_transit",
    expected_delivery: date | None = None,
    **order: Any,
) -> Order:
    """An order placed `placed_days_ago` days ago, shipped and not delivered: its parcel `in_transit` (on time unless
    the expected date is given), `lost` or `returned_to_sender`."""
    shipped = OrderFactory(
        customer=customer, status="shipped", placed_at=days_ago(placed_days_ago), lines=lines, **order
    )
    ShipmentFactory(order=shipped, status=parcel, **_parcel_dates(expected_delivery, None))
    return shipped


def carrier_exception(order: Order, opened_at: datetime, reason: str, carrier: str = "UPS") -> Shipment:
    """The order's parcel held by a carrier exception (an investigation) opened at `opened_at`."""
    return ShipmentFactory(
        order=order, carrier=carrier, status="exception", exception_opened_at=opened_at, exception_reason=reason
    )


def received_return(
    item: OrderItem, declared: str, inspected: str, created_at: datetime, received_at: datetime
) -> Return:
    """A return of one order line that the warehouse has received and inspected, waiting for its refund."""
    return ReturnFactory(
        item=item,
        declared_condition=declared,
        inspected_condition=inspected,
        status="received",
        created_at=created_at,
        received_at=received_at,
    )


def warranty_on(order: Order, product_id: str, starts_on: date, **warranty: Any) -> Warranty:
    """The warranty of a product bought on `order`, from `starts_on` (for a year, as WarrantyFactory gives it, unless
    `warranty` says otherwise)."""
    return WarrantyFactory(
        customer=order.customer, product_id=product_id, order_id=order.id, starts_on=starts_on, **warranty
    )


def ticket_about(order: Order, subject: str, **fields: Any) -> Ticket:
    """A ticket the order's customer opened about it: the conversation's, unless `fields` say otherwise."""
    return TicketFactory(requester=order.customer, order_id=order.id, subject=subject, **fields)
