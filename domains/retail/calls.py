"""Golden-path building blocks the retail tasks share.

A task's golden calls read as its decision: `opening` for what every conversation starts with (identify the customer,
read the records the request is about, look for their ticket), the calls of the decision itself (`issue_refund`,
`open_return`, `file_claim`, ...), then how the ticket ends (`solved`, `pending`, `hold`, and their usual kinds
`awaiting_item`, `carrier_hold`, `safety_hold`). `new_ticket` opens a ticket when the customer has none for the
matter, `new_id` is the id a create tool gives, and `address_facts` an address the customer tells, for `User.knows`.
"""

from __future__ import annotations

from typing import Any

from domains.shared.calls import internal_note, ticket_update
from domains.shared.calls import new_id as new_id  # re-exported for the tasks, as is `solved`
from domains.shared.calls import solved as solved
from pytest_thinkingbox import Call, call

from .models import Customer, InstallationJob, Order, OrderItem, Return, Warranty

#: RT-105: the team a held ticket goes to, by the reason it waits
QUEUES = {
    "refund_limit": "refunds_team",
    "account_standing": "refunds_team",
    "awaiting_carrier": "carrier_claims",
    "safety_risk": "safety_team",
}


# --- Opening: identify the customer, read the records, find the ticket ---------------------------------------------


def identify(customer: Customer) -> list[Call]:
    """Find the customer by the email they give (RT-7)."""
    return [call("find_customer_by_email", email=customer.email)]


def opening(customer: Customer, *reads: Call) -> list[Call]:
    """How a conversation starts (RT-2, RT-3): identify the customer, read the records the request is about
    (`reads`), then look for the customer's ticket."""
    return [*identify(customer), *reads, call("list_tickets", requester_id=customer.id)]


def get_customer(customer: Customer) -> Call:
    """Read the customer's profile: tier, membership, standing, postal code."""
    return call("get_customer", customer_id=customer.id)


def list_orders(customer: Customer) -> Call:
    """List the customer's orders, when they do not say which one they mean."""
    return call("list_customer_orders", customer_id=customer.id)


def get_order(order: Order) -> Call:
    """Read an order with its items, shipments, payment, refunds and returns."""
    return call("get_order", order_id=order.id)


def parcel(order: Order) -> list[Call]:
    """Read an order and track its parcel."""
    return [get_order(order), call("get_shipment_tracking", order_id=order.id)]


def list_refunds(order: Order) -> Call:
    """List the refunds already made on an order (RT-11's limit counts them)."""
    return call("list_refunds", order_id=order.id)


def get_return(rma: Return) -> Call:
    return call("get_return", rma_id=rma.id)


def get_warranty(warranty: Warranty) -> Call:
    return call("get_warranty", warranty_id=warranty.id)


def get_job(job: InstallationJob) -> Call:
    return call("get_installation_job", job_id=job.id)


def get_product(product_id: str) -> Call:
    """Read a product: today's price, category, final sale, stock."""
    return call("get_product", product_id=product_id)


def check_inventory(product_id: str) -> Call:
    return call("check_inventory", product_id=product_id)


def get_promotion(code: str) -> Call:
    return call("get_promotion", code=code)


# --- The decision -----------------------------------------------------------------------------------------------------


def issue_refund(order: Order, amount_cents: Any, reason: str, method: str = "original") -> Call:
    """Refund `amount_cents` on `order` for `reason`, to the original payment method unless told otherwise."""
    return call("issue_refund", order_id=order.id, amount_cents=amount_cents, reason=reason, method=method)


def refund_return(rma: Return, restocking_fee_percent: int, method: str = "original") -> Call:
    """Refund a received return, keeping the restocking fee the policy sets (RT-42 to RT-45)."""
    return call("refund_return", rma_id=rma.id, restocking_fee_percent=restocking_fee_percent, method=method)


def price_adjustment(item: OrderItem, amount_cents: Any, method: str = "original") -> Call:
    """Refund the price drop on one order line (price protection, RT-71 to RT-77)."""
    return call(
        "issue_price_adjustment",
        order_id=item.order.id,
        order_item_id=item.id,
        amount_cents=amount_cents,
        method=method,
    )


def open_return(item: OrderItem, condition: str, quantity: int = 1, reason: str = "changed_mind") -> Call:
    """Open an approved return of an order line in the condition the customer describes."""
    return call(
        "create_return",
        order_id=item.order.id,
        order_item_id=item.id,
        quantity=quantity,
        reason=reason,
        condition=condition,
    )


def file_claim(warranty: Warranty, issue: str, resolution: str, description: str) -> Call:
    """File a warranty claim for the resolution the policy gives (RT-48 to RT-53)."""
    return call(
        "file_warranty_claim", warranty_id=warranty.id, issue=issue, resolution=resolution, description=description
    )


def reschedule(job: InstallationJob, new_time: Any, fee_cents: int) -> Call:
    """Move an installation appointment, charging the late-change fee the policy sets, or 0 (RT-57 to RT-63)."""
    return call("reschedule_installation", job_id=job.id, new_time=new_time, fee_cents=fee_cents)


def courtesy_points(customer: Customer, points: Any, order: Order) -> Call:
    """Award the courtesy points the policy gives for a service failure on `order` (RT-64 to RT-68)."""
    return call("adjust_points", customer_id=customer.id, points=points, reason="courtesy", order_id=order.id)


#: An address a customer gives: street address, city, postal code.
Address = tuple[str, str, str]


def address_facts(address: Address, which: str = "new") -> dict[str, str]:
    """The address a customer wants an order shipped to, for `User.knows` (`which`: their "new" or "office" one)."""
    line, city, postal_code = address
    return {f"{which} street address": line, f"{which} city": city, f"{which} postal code": postal_code}


def ship_to(order: Order | str, address: Address) -> Call:
    """Change the address an order ships to (RT-78 to RT-83): an arranged order, or the id a create call gave one."""
    order_id = order if isinstance(order, str) else order.id
    line, city, postal_code = address
    return call("update_shipping_address", order_id=order_id, address_line=line, city=city, postal_code=postal_code)


# --- How the ticket ends ----------------------------------------------------------------------------------------------


def new_ticket(customer: Customer, subject: str, category: str, order: Order) -> Call:
    """Open the conversation's ticket when the customer has no new or open one for the matter (RT-3)."""
    return call("create_ticket", requester_id=customer.id, subject=subject, category=category, order_id=order.id)


# `solved` (RT-84), `internal_note` and `new_id` are domains/shared/calls.py's.


def pending_update(ticket_id: str, category: str | None, reason: str) -> Call:
    """The update that leaves the ticket pending, waiting for the customer (RT-85); no category when the ticket was
    created with it."""
    return ticket_update(ticket_id, "pending", category=category, reason=reason)


def pending(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket pending with one internal comment saying what we wait for (RT-89)."""
    return [pending_update(ticket_id, category, reason), internal_note(ticket_id, note)]


def hold_update(ticket_id: str, category: str | None, reason: str, priority: str = "high") -> Call:
    """The update that puts the ticket on hold for the team its reason goes to (RT-86, RT-105), priority high or as
    given (RT-88); no category when the ticket was created with it."""
    return ticket_update(ticket_id, "hold", priority=priority, category=category, reason=reason, queue=QUEUES[reason])


def hold(ticket_id: str, category: str | None, reason: str, note: str, priority: str = "high") -> list[Call]:
    """The ticket on hold with one internal comment saying what we wait for (RT-89)."""
    return [hold_update(ticket_id, category, reason, priority), internal_note(ticket_id, note)]


def carrier_hold(ticket_id: str, note: str, priority: str = "high") -> list[Call]:
    """A delivery ticket on hold until the carrier's investigation ends (RT-24), for the carrier claims team."""
    return hold(ticket_id, "delivery", "awaiting_carrier", note, priority)


def safety_hold(ticket_id: str, note: str) -> list[Call]:
    """A product safety report: on hold, urgent, for the safety team (RT-55)."""
    return hold(ticket_id, "safety", "safety_risk", note, "urgent")


def awaiting_item(ticket_id: str, note: str) -> list[Call]:
    """A return ticket pending until the customer sends the item back (RT-85)."""
    return pending(ticket_id, "return", "awaiting_item", note)
