"""The retail support desk's tools, as an agent sees them.

Reads return plain dicts; writes validate their arguments and the preconditions
the call itself would break (an unknown id, refunding more than was paid, a
return on an undelivered order), and otherwise do what they are told: whether a
refund, credit or claim is *due* is the policy's question, answered by the agent.
Every time comes from the domain clock and every new id from the rows present.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.shared.identity import register_identity
from domains.shared.policy_search import register_policy_search
from domains.shared.tickets import register_ticket_tools
from pytest_thinkingbox import (
    CONFLICT,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PRECONDITION_FAILED,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
    rows_where,
)

from .clock import NOW
from .models import (
    ClaimIssue,
    ClaimResolution,
    Customer,
    InstallationJob,
    Inventory,
    Order,
    OrderItem,
    Payment,
    PointsAdjustment,
    PointsReason,
    Product,
    Promotion,
    Refund,
    RefundMethod,
    RejectionReason,
    Return,
    ReturnReason,
    Ticket,
    TicketComment,
    Warranty,
    WarrantyClaim,
)

tools = ToolSet("retail")

POLICY_PATH = Path(__file__).with_name("policy.md")


# --------------------------------------------------------------------------- helpers


def _customer(db: Session, customer_id: str) -> Customer:
    return get_or_fail(db, Customer, customer_id, "customer")


def _order(db: Session, order_id: str) -> Order:
    return get_or_fail(db, Order, order_id, "order")


def _payment_of(order: Order) -> Payment:
    if not order.payments:
        raise ToolFailure(
            PRECONDITION_FAILED, f"order {order.id} has no payment (it was free of charge); nothing to refund"
        )
    return order.payments[0]


def _refund(db: Session, order: Order, amount_cents: int, reason: str, method: str, note: str | None = None) -> Refund:
    """Record a refund against the order's payment, keeping the payment and store credit in step."""
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")
    payment = _payment_of(order)
    refundable = payment.amount_cents - payment.refunded_cents
    if amount_cents > refundable:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"cannot refund {amount_cents} cents on order {order.id}: only {refundable} cents of payment "
            f"{payment.id} remain unrefunded",
        )
    refund = Refund(
        id=next_id(db, Refund, "RF-"),
        order_id=order.id,
        payment_id=payment.id,
        amount_cents=amount_cents,
        method=method,
        reason=reason,
        created_at=NOW,
        note=note,
    )
    db.add(refund)
    payment.refunded_cents += amount_cents
    payment.status = "refunded" if payment.refunded_cents == payment.amount_cents else "partially_refunded"
    if method == "store_credit":
        order.customer.store_credit_cents += amount_cents
    db.flush()
    return refund


def _default_method(order: Order) -> str:
    return "store_credit" if order.payments and order.payments[0].method == "gift_card" else "original"


def _available(db: Session, product_id: str) -> int:
    stock = db.get(Inventory, product_id)
    return 0 if stock is None else stock.on_hand - stock.reserved


def _item_view(item: OrderItem) -> dict:
    return {
        **row_dict(item),
        "product_name": item.product.name,
        "category": item.product.category,
        "final_sale": item.product.final_sale,
        "line_total_cents": item.unit_price_cents * item.quantity,
    }


def _warranty_view(warranty: Warranty) -> dict:
    return {
        **row_dict(warranty),
        "product_name": warranty.product.name,
        "product_price_cents": warranty.product.price_cents,
        "claims": [row_dict(c, "description") for c in warranty.claims],
    }


# --------------------------------------------------------------------------- reads: customers and orders


@tools.read
def get_customer(db: Session, customer_id: str) -> dict:
    """A customer's full profile: tier, member_since, points balance, store credit, chargebacks and abuse flags
    (their standing), the profile address and postal code, and every points adjustment they have received."""
    customer = _customer(db, customer_id)
    adjustments = rows_where(db, PointsAdjustment.customer_id, customer_id)
    return {**row_dict(customer), "points_adjustments": [row_dict(a, "note") for a in adjustments]}


@tools.read
def list_customer_orders(db: Session, customer_id: str) -> list[dict]:
    """All orders of a customer, newest first, with status, date and total. Use get_order for the details."""
    _customer(db, customer_id)
    orders = db.scalars(select(Order).where(Order.customer_id == customer_id).order_by(Order.placed_at.desc())).all()
    return [
        {
            "id": o.id,
            "status": o.status,
            "placed_at": o.placed_at.isoformat(),
            "total_cents": o.total_cents,
            "items": [f"{i.quantity} x {i.product.name}" for i in o.items],
            "replacement_for": o.replacement_for,
        }
        for o in orders
    ]


@tools.read
def get_order(db: Session, order_id: str) -> dict:
    """Everything about one order: amounts, promo code, shipping address, line items (with category and final-sale
    flag), shipments, payment, refunds, returns, installation jobs and warranties attached to it."""
    order = _order(db, order_id)
    return {
        **row_dict(order),
        "items": [_item_view(i) for i in order.items],
        "shipments": [row_dict(s) for s in order.shipments],
        "payments": [row_dict(p) for p in order.payments],
        "refunds": [row_dict(r, "note") for r in rows_where(db, Refund.order_id, order_id)],
        "returns": [row_dict(r) for r in rows_where(db, Return.order_id, order_id)],
        "installation_jobs": [row_dict(j) for j in rows_where(db, InstallationJob.order_id, order_id)],
        "warranties": [row_dict(w) for w in rows_where(db, Warranty.order_id, order_id)],
    }


@tools.read
def get_shipment_tracking(db: Session, order_id: str) -> dict:
    """Carrier tracking for an order's shipments: status (label_created, in_transit, delivered, exception, lost,
    returned_to_sender), expected and actual delivery, days late, and when a carrier exception was opened."""
    order = _order(db, order_id)
    if not order.shipments:
        raise ToolFailure(
            NOT_FOUND, f"order {order_id} has not shipped yet (status {order.status}); there is no tracking"
        )
    return {"order_id": order_id, "checked_at": NOW.isoformat(), "shipments": [row_dict(s) for s in order.shipments]}


@tools.read
def get_product(db: Session, product_id: str) -> dict:
    """A catalogue product: category, current price, final-sale and restockable flags, warranty months."""
    return row_dict(get_or_fail(db, Product, product_id, "product"))


@tools.read
def check_inventory(db: Session, product_id: str) -> dict:
    """Stock of a product: on hand, reserved, available (on hand minus reserved) and the next restock date.
    Check it before promising a replacement."""
    get_or_fail(db, Product, product_id, "product")
    stock = db.get(Inventory, product_id)
    if stock is None:
        return {"product_id": product_id, "on_hand": 0, "reserved": 0, "available": 0, "restock_expected_on": None}
    return {**row_dict(stock), "available": stock.on_hand - stock.reserved}


@tools.read
def get_payment(db: Session, payment_id: str) -> dict:
    """A payment: method (card, paypal, gift_card), amount captured and amount already refunded."""
    return row_dict(get_or_fail(db, Payment, payment_id, "payment"))


@tools.read
def list_refunds(db: Session, order_id: str) -> dict:
    """Every refund already issued on an order, with the total refunded so far."""
    _order(db, order_id)
    refunds = rows_where(db, Refund.order_id, order_id)
    return {
        "order_id": order_id,
        "refunds": [row_dict(r, "note") for r in refunds],
        "total_refunded_cents": sum(r.amount_cents for r in refunds),
    }


@tools.read
def get_return(db: Session, rma_id: str) -> dict:
    """A return (RMA): the order line, quantity, reason, declared and inspected condition, status, restocking fee,
    and the product's category, price and final-sale flag."""
    rma = get_or_fail(db, Return, rma_id, "return")
    return {**row_dict(rma), "item": _item_view(rma.item)}


@tools.read
def get_warranty(db: Session, warranty_id: str) -> dict:
    """A warranty: plan (manufacturer, extended, accident_protection), coverage dates, void flag, the product and
    its price, and the claims filed so far."""
    return _warranty_view(get_or_fail(db, Warranty, warranty_id, "warranty"))


@tools.read
def get_installation_job(db: Session, job_id: str) -> dict:
    """An installation appointment: when it is scheduled, technician, status (scheduled, completed, cancelled,
    missed), installation fee paid, and how many times the customer has rescheduled it."""
    job = get_or_fail(db, InstallationJob, job_id, "installation job")
    return {**row_dict(job), "hours_until_appointment": round((job.scheduled_for - NOW).total_seconds() / 3600, 1)}


@tools.read
def get_promotion(db: Session, code: str) -> dict:
    """A promotion by its code: discount, minimum subtotal, cap, required tier and the dates it ran."""
    promotion = db.scalars(select(Promotion).where(func.upper(Promotion.code) == code.strip().upper())).first()
    if promotion is None:
        raise ToolFailure(NOT_FOUND, f"no promotion has the code {code!r}")
    return row_dict(promotion)


# --------------------------------------------------------------------------- writes: money


@tools.write
def issue_refund(
    db: Session,
    order_id: str,
    amount_cents: int,
    reason: Literal["late_delivery", "lost_parcel", "damaged", "returned_to_sender"],
    method: RefundMethod = "original",
    note: str | None = None,
) -> dict:
    """Refund money on an order (shipping refund for a late parcel, lost parcel, damaged on arrival, returned to
    sender). method "original" pays back the order's payment; "store_credit" credits the customer's account.
    Check the refund limit in the policy first. Returns the refund."""
    order = _order(db, order_id)
    return row_dict(_refund(db, order, amount_cents, reason, method, note))


@tools.write
def issue_price_adjustment(
    db: Session, order_id: str, order_item_id: str, amount_cents: int, method: RefundMethod = "original"
) -> dict:
    """Price protection: refund the drop in an item's catalogue price since the customer bought it (the price paid
    minus today's price, times the quantity) for one order line. Check the policy's price-adjustment rules (period by
    tier, final sale, returns, one adjustment per line) first. Returns the refund."""
    order = _order(db, order_id)
    item = db.get(OrderItem, order_item_id)
    if item is None or item.order_id != order_id:
        raise ToolFailure(NOT_FOUND, f"order {order_id} has no item {order_item_id!r}")
    if order.status == "cancelled":
        raise ToolFailure(PRECONDITION_FAILED, f"order {order_id} is cancelled")
    if amount_cents > item.unit_price_cents * item.quantity:
        raise ToolFailure(INVALID_ARGUMENT, f"amount_cents is more than was paid for item {order_item_id} in total")
    refund = _refund(db, order, amount_cents, "price_protection", method)
    refund.order_item_id = order_item_id
    db.flush()
    return row_dict(refund, "note")


@tools.write
def apply_promo_code(db: Session, order_id: str, code: str) -> dict:
    """Apply a promo code to an order after purchase: records the code and discount on the order and refunds the
    discount to the order's payment as a price adjustment. Check the promotion's rules in the policy first."""
    order = _order(db, order_id)
    promotion = db.scalars(select(Promotion).where(func.upper(Promotion.code) == code.strip().upper())).first()
    if promotion is None:
        raise ToolFailure(NOT_FOUND, f"no promotion has the code {code!r}")
    if order.status == "cancelled":
        raise ToolFailure(PRECONDITION_FAILED, f"order {order_id} is cancelled")
    if order.promo_code:
        raise ToolFailure(CONFLICT, f"order {order_id} already has promo code {order.promo_code}; codes do not combine")
    discount = order.subtotal_cents * promotion.value // 100 if promotion.kind == "percent" else promotion.value
    if promotion.max_discount_cents is not None:
        discount = min(discount, promotion.max_discount_cents)
    discount = min(discount, order.subtotal_cents)
    order.promo_code = promotion.code
    order.discount_cents += discount
    order.total_cents -= discount
    refund = _refund(db, order, discount, "price_adjustment", _default_method(order))
    return {"order_id": order_id, "promo_code": promotion.code, "discount_cents": discount, "refund": row_dict(refund)}


@tools.write
def adjust_points(
    db: Session,
    customer_id: str,
    points: int,
    reason: PointsReason,
    order_id: str | None = None,
    note: str | None = None,
) -> dict:
    """Add (positive) or remove (negative) loyalty points on a customer's account. Courtesy points use reason
    "courtesy" and the order the service failure happened on. Returns the adjustment and the new balance."""
    customer = _customer(db, customer_id)
    if points == 0 or abs(points) > 10_000:
        raise ToolFailure(INVALID_ARGUMENT, "points must be non-zero and at most 10000 in either direction")
    if order_id is not None and _order(db, order_id).customer_id != customer_id:
        raise ToolFailure(INVALID_ARGUMENT, f"order {order_id} does not belong to customer {customer_id}")
    if customer.points_balance + points < 0:
        raise ToolFailure(
            PRECONDITION_FAILED, f"the balance is {customer.points_balance} points; it cannot go negative"
        )
    adjustment = PointsAdjustment(
        id=next_id(db, PointsAdjustment, "PA-"),
        customer_id=customer_id,
        points=points,
        reason=reason,
        order_id=order_id,
        created_at=NOW,
        note=note,
    )
    db.add(adjustment)
    customer.points_balance += points
    db.flush()
    return {**row_dict(adjustment), "points_balance": customer.points_balance}


# --------------------------------------------------------------------------- writes: orders


@tools.write
def update_shipping_address(db: Session, order_id: str, address_line: str, city: str, postal_code: str) -> dict:
    """Change where an order ships. Works before shipping, and for a shipped parcel still in transit (a carrier
    redirect). Identity must be fully verified first (see the policy)."""
    order = _order(db, order_id)
    if order.status in ("delivered", "cancelled"):
        raise ToolFailure(PRECONDITION_FAILED, f"order {order_id} is {order.status}; its address can no longer change")
    if order.status == "shipped" and not any(s.status in ("label_created", "in_transit") for s in order.shipments):
        raise ToolFailure(
            PRECONDITION_FAILED, f"order {order_id}'s parcel is not in transit; the carrier cannot redirect it"
        )
    if not (address_line.strip() and city.strip() and postal_code.strip()):
        raise ToolFailure(INVALID_ARGUMENT, "address_line, city and postal_code are all required")
    order.ship_line, order.ship_city, order.ship_postal_code = address_line.strip(), city.strip(), postal_code.strip()
    return {
        "order_id": order_id,
        "ship_line": order.ship_line,
        "ship_city": order.ship_city,
        "ship_postal_code": order.ship_postal_code,
    }


@tools.write
def cancel_order(db: Session, order_id: str) -> dict:
    """Cancel an order that has not shipped (placed or processing), release its stock and refund its payment."""
    order = _order(db, order_id)
    if order.status not in ("placed", "processing"):
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"order {order_id} is {order.status}; only placed or processing orders can be cancelled",
        )
    order.status = "cancelled"
    for item in order.items:
        stock = db.get(Inventory, item.product_id)
        if stock is not None:
            stock.reserved = max(0, stock.reserved - item.quantity)
    refund = None
    if order.payments and order.payments[0].amount_cents > order.payments[0].refunded_cents:
        payment = order.payments[0]
        refund = _refund(
            db, order, payment.amount_cents - payment.refunded_cents, "order_cancelled", _default_method(order)
        )
    return {"order_id": order_id, "status": order.status, "refund": row_dict(refund, "note") if refund else None}


@tools.write
def create_replacement_order(
    db: Session,
    order_id: str,
    reason: Literal["lost_parcel", "damaged", "returned_to_sender"],
    order_item_ids: list[str] | None = None,
) -> dict:
    """Send replacement items at no charge: creates a new order (shipped to the original address) for the given
    order item ids, or for every item of the order when none are given, and reserves the stock."""
    order = _order(db, order_id)
    if order.status not in ("shipped", "delivered"):
        raise ToolFailure(
            PRECONDITION_FAILED, f"order {order_id} is {order.status}; only shipped or delivered orders can be replaced"
        )
    if db.scalars(select(Order).where(Order.replacement_for == order_id)).first() is not None:
        raise ToolFailure(CONFLICT, f"order {order_id} already has a replacement order")
    by_id = {i.id: i for i in order.items}
    wanted = order_item_ids or list(by_id)
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise ToolFailure(
            INVALID_ARGUMENT, f"items {unknown} are not on order {order_id}; its items are {sorted(by_id)}"
        )
    if len(set(wanted)) != len(wanted):
        raise ToolFailure(INVALID_ARGUMENT, "order_item_ids lists an item twice")
    for item_id in wanted:
        item = by_id[item_id]
        if _available(db, item.product_id) < item.quantity:
            raise ToolFailure(
                PRECONDITION_FAILED,
                f"{item.product.name} ({item.product_id}) is out of stock: "
                f"{_available(db, item.product_id)} available, {item.quantity} needed",
            )
    replacement = Order(
        id=next_id(db, Order, "O-"),
        customer_id=order.customer_id,
        status="processing",
        placed_at=NOW,
        ship_line=order.ship_line,
        ship_city=order.ship_city,
        ship_postal_code=order.ship_postal_code,
        replacement_for=order_id,
        replacement_reason=reason,
    )
    db.add(replacement)
    db.flush()
    for item_id in wanted:
        item = by_id[item_id]
        replacement.items.append(
            OrderItem(
                id=next_id(db, OrderItem, "OI-"),
                product_id=item.product_id,
                quantity=item.quantity,
                unit_price_cents=0,
            )
        )
        stock = db.get(Inventory, item.product_id)
        assert stock is not None, "the stock check above found no inventory row"  # _available would have been 0
        stock.reserved += item.quantity
        db.flush()
    return {
        "order_id": replacement.id,
        "replacement_for": order_id,
        "reason": reason,
        "status": replacement.status,
        "items": [_item_view(i) for i in replacement.items],
    }


# --------------------------------------------------------------------------- writes: returns


@tools.write
def create_return(
    db: Session,
    order_id: str,
    order_item_id: str,
    quantity: int,
    reason: ReturnReason,
    condition: Literal["unopened", "opened", "damaged"],
) -> dict:
    """Open an approved return (RMA) for an order line the customer wants to send back, with the condition they
    describe. Check eligibility (window, final sale) in the policy first. Returns the RMA."""
    order = _order(db, order_id)
    if order.status != "delivered":
        raise ToolFailure(
            PRECONDITION_FAILED, f"order {order_id} is {order.status}; only delivered items can be returned"
        )
    item = db.get(OrderItem, order_item_id)
    if item is None or item.order_id != order_id:
        raise ToolFailure(NOT_FOUND, f"order {order_id} has no item {order_item_id!r}")
    open_quantity = db.scalars(
        select(func.coalesce(func.sum(Return.quantity), 0)).where(
            Return.order_item_id == order_item_id, Return.status != "rejected"
        )
    ).one()  # coalesce: always one row, never NULL
    if quantity < 1:
        raise ToolFailure(INVALID_ARGUMENT, "quantity must be at least 1")
    if quantity > item.quantity - open_quantity:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"only {item.quantity - open_quantity} of item {order_item_id} can still be returned",
        )
    rma = Return(
        id=next_id(db, Return, "RMA-"),
        order_id=order_id,
        order_item_id=order_item_id,
        quantity=quantity,
        reason=reason,
        declared_condition=condition,
        status="approved",
        created_at=NOW,
    )
    db.add(rma)
    db.flush()
    return row_dict(rma)


def _requested(db: Session, rma_id: str) -> Return:
    rma = get_or_fail(db, Return, rma_id, "return")
    if rma.status != "requested":
        raise ToolFailure(
            PRECONDITION_FAILED, f"return {rma_id} is {rma.status}; only requested returns can be decided"
        )
    return rma


@tools.write
def approve_return(db: Session, rma_id: str) -> dict:
    """Approve a return the customer requested online (status requested), so they can send the item back."""
    rma = _requested(db, rma_id)
    rma.status = "approved"
    return row_dict(rma)


@tools.write
def reject_return(db: Session, rma_id: str, reason: RejectionReason) -> dict:
    """Reject a return the customer requested online (status requested), with the policy reason."""
    rma = _requested(db, rma_id)
    rma.status = "rejected"
    rma.rejection_reason = reason
    return row_dict(rma)


@tools.write
def refund_return(db: Session, rma_id: str, restocking_fee_percent: int, method: RefundMethod = "original") -> dict:
    """Refund a return the warehouse has received (status received): refunds the item price times the quantity
    minus the restocking fee percent you give (0 for none), and closes the return as refunded."""
    rma = get_or_fail(db, Return, rma_id, "return")
    if rma.status != "received":
        raise ToolFailure(
            PRECONDITION_FAILED, f"return {rma_id} is {rma.status}; only received returns can be refunded"
        )
    if not 0 <= restocking_fee_percent <= 100:
        raise ToolFailure(INVALID_ARGUMENT, "restocking_fee_percent must be between 0 and 100")
    gross = rma.item.unit_price_cents * rma.quantity
    fee = gross * restocking_fee_percent // 100
    rma.restocking_fee_percent = restocking_fee_percent
    rma.restocking_fee_cents = fee
    rma.status = "refunded"
    refund = _refund(db, rma.order, gross - fee, "return", method) if gross > fee else None
    rma.refund_id = refund.id if refund else None
    product = rma.item.product
    if rma.inspected_condition == "unopened" and product.restockable:
        stock = db.get(Inventory, product.id)
        if stock is not None:
            stock.on_hand += rma.quantity
    return {**row_dict(rma), "refund": row_dict(refund, "note") if refund else None}


# --------------------------------------------------------------------------- writes: warranty and installation


@tools.write
def file_warranty_claim(
    db: Session, warranty_id: str, issue: ClaimIssue, resolution: ClaimResolution, description: str
) -> dict:
    """File an approved warranty claim (issue defect or accidental_damage; resolution repair or replacement) with a
    short description of the fault. Check coverage and the resolution rule in the policy first."""
    warranty = get_or_fail(db, Warranty, warranty_id, "warranty")
    if warranty.void:
        raise ToolFailure(PRECONDITION_FAILED, f"warranty {warranty_id} is void; no claim can be filed on it")
    if not description.strip():
        raise ToolFailure(INVALID_ARGUMENT, "describe the fault in a sentence")
    claim = WarrantyClaim(
        id=next_id(db, WarrantyClaim, "WC-"),
        warranty_id=warranty_id,
        issue=issue,
        resolution=resolution,
        status="approved",
        created_at=NOW,
        description=description.strip(),
    )
    db.add(claim)
    db.flush()
    return row_dict(claim)


def _parse_slot(new_time: str) -> datetime:
    try:
        slot = datetime.fromisoformat(new_time.strip())
    except ValueError:
        raise ToolFailure(
            INVALID_ARGUMENT, f"new_time {new_time!r} is not a date and time like 2026-03-20T10:00"
        ) from None
    slot = slot.replace(tzinfo=None)
    if slot.minute or slot.second or not 8 <= slot.hour <= 16 or slot.weekday() == 6:
        raise ToolFailure(INVALID_ARGUMENT, "appointments start on the hour from 08:00 to 16:00, Monday to Saturday")
    if slot < NOW + timedelta(hours=24):
        raise ToolFailure(INVALID_ARGUMENT, "the new appointment must be at least 24 hours from now")
    return slot


@tools.write
def reschedule_installation(db: Session, job_id: str, new_time: str, fee_cents: int) -> dict:
    """Move a scheduled or missed installation appointment to new_time (ISO date and time, e.g. 2026-03-20T10:00),
    charging the reschedule fee the policy sets (0 when free)."""
    job = get_or_fail(db, InstallationJob, job_id, "installation job")
    if job.status not in ("scheduled", "missed"):
        raise ToolFailure(PRECONDITION_FAILED, f"installation job {job_id} is {job.status}; it cannot be rescheduled")
    if fee_cents < 0:
        raise ToolFailure(INVALID_ARGUMENT, "fee_cents cannot be negative")
    slot = _parse_slot(new_time)
    if job.status == "scheduled":
        job.reschedule_count += 1
    job.status = "scheduled"
    job.scheduled_for = slot
    job.reschedule_fees_cents += fee_cents
    return row_dict(job)


@tools.write
def cancel_installation(db: Session, job_id: str, cancellation_fee_cents: int) -> dict:
    """Cancel an installation appointment, keeping the late-cancellation charge the policy sets (0 when free) and
    refunding the rest of the installation fee to the order's payment."""
    job = get_or_fail(db, InstallationJob, job_id, "installation job")
    if job.status not in ("scheduled", "missed"):
        raise ToolFailure(PRECONDITION_FAILED, f"installation job {job_id} is {job.status}; it cannot be cancelled")
    if not 0 <= cancellation_fee_cents <= job.fee_cents:
        raise ToolFailure(
            INVALID_ARGUMENT, f"cancellation_fee_cents must be between 0 and the fee paid ({job.fee_cents})"
        )
    job.status = "cancelled"
    job.cancellation_fee_cents = cancellation_fee_cents
    refund = None
    if job.fee_cents > cancellation_fee_cents:
        order = _order(db, job.order_id)
        refund = _refund(
            db, order, job.fee_cents - cancellation_fee_cents, "installation_cancelled", _default_method(order)
        )
    return {**row_dict(job), "refund": row_dict(refund, "note") if refund else None}


# --------------------------------------------------------------------------- shared: identity, tickets, policy

register_identity(tools, Customer, "customer")
# The ticket classification the policy decides (see "Ticket status, priority and classification" in policy.md):
# a category per article family, a reason for every hold, pending or refusal, a queue per escalation team.
TICKET_CATEGORIES = (
    "delivery",
    "damage",
    "return",
    "warranty",
    "safety",
    "installation",
    "loyalty",
    "promotion",
    "order_change",
    "pricing",
)
TICKET_REASONS = (
    "identity_failed",
    "not_eligible",
    "outside_window",
    "refund_limit",
    "account_standing",
    "awaiting_carrier",
    "awaiting_item",
    "safety_risk",
)
TICKET_QUEUES = (
    "refunds_team",
    "carrier_claims",
    "safety_team",
)
register_ticket_tools(
    tools,
    Ticket,
    TicketComment,
    requester=Customer,
    now=NOW,
    categories=TICKET_CATEGORIES,
    reasons=TICKET_REASONS,
    queues=TICKET_QUEUES,
    link=("order_id", Order, "order"),
)
register_policy_search(tools, POLICY_PATH, '"restocking fee opened laptop", "carrier exception refund"')
