"""The retail support policy (`policy.md`) as executable rules: what a careful agent's end state must satisfy.

Each rule reads one attempt's `Evidence` (start and end state, the rows written,
the transcript where a clause is about order or identification) and names the
rows that break its clauses. A rule wakes only when a table it names in ``on``
was written. The clauses no state or tool call can show (what the agent says,
what the customer reports, which matter they raised first) are marked
judgement-only at the end of the module.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from typing import TypeGuard

from domains.shared.rules import (
    COMMENTS,
    TICKET_TABLES,
    TICKETS,
    days_between,
    internal_notes,
    worked_tickets,
    written_tables,
)
from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import RuleRow, ToolCall

from .clock import NOW
from .tools import tools as _toolset

RULES = Rules()

WORKING = "Working a conversation"
IDENTITY = "Identity verification"
REFUNDS = "Refunds and the agent refund limit"
LATE = "Late deliveries"
EXCEPTIONS = "Delivery exceptions"
LOST = "Lost parcels"
RETURNED = "Returned to sender"
DAMAGED = "Damaged on arrival"
RETURNS = "Returns: eligibility and windows"
RESTOCKING = "Restocking fees and return refunds"
REPLACEMENTS = "Replacement orders"
WARRANTY = "Warranty claims"
SAFETY = "Product safety reports"
INSTALLATION = "Installation appointments"
COURTESY = "Courtesy points"
PROMO = "Promo codes after purchase"
PRICE = "Price adjustments"
ADDRESS = "Address changes and cancellations"
TICKET = "Ticket status, priority and classification"

LIMIT_CENTS = 25_000
ISSUED = ("late_delivery", "lost_parcel", "damaged", "returned_to_sender")  # the reasons `issue_refund` takes
PRICE_PROTECTION = "price_protection"
HOLD_REASONS = ("awaiting_carrier", "refund_limit", "account_standing", "safety_risk")
PENDING_REASONS = ("awaiting_item", "identity_failed")
REFUSALS = ("not_eligible", "outside_window")
QUEUE_OF = {
    "refund_limit": "refunds_team",
    "account_standing": "refunds_team",
    "awaiting_carrier": "carrier_claims",
    "safety_risk": "safety_team",
}
RETURN_WINDOW = {"standard": 30, "plus": 45, "premium": 60}
PRICE_PERIOD = {"standard": 14, "plus": 21, "premium": 30}
COURTESY_POINTS = {"standard": 500, "plus": 1_000, "premium": 2_000}
TIER_RANK = {"standard": 0, "plus": 1, "premium": 2}
TICKET_TOOLS = ("list_tickets", "get_ticket", "create_ticket", "update_ticket", "add_ticket_comment")
FIND = "find_customer_by_email"
WRITE_TOOLS = frozenset(_toolset.writes())


# --- reading the evidence ----------------------------------------------------------------------------------------


def _kept(was: RuleRow | None, now: RuleRow, field: str) -> bool:
    """Whether a ticket field is as it was before the conversation (update_ticket cannot empty a field)."""
    return was is not None and was[field] == now[field]


def _now(ev: Evidence) -> dt.datetime:
    return ev.now or NOW.replace(tzinfo=None)


def _today(ev: Evidence) -> dt.date:
    return _now(ev).date()


def _identified(ev: Evidence) -> dict[str, int]:
    """The customers a successful `find_customer_by_email` returned, with the index of the first such call."""

    def make() -> dict[str, int]:
        found: dict[str, int] = {}
        for i, c in enumerate(ev.tool_calls()):
            if c.tool == FIND and c.error is None:
                try:
                    customer = json.loads(c.result).get("id")
                except (ValueError, AttributeError):
                    continue
                if isinstance(customer, str):
                    found.setdefault(customer, i)
        return found

    identified: dict[str, int] = ev.memo(("retail", "identified"), make)
    return identified


def _customer(ev: Evidence, customer_id: str | None) -> RuleRow | None:
    return None if customer_id is None else ev.start.get("customers", customer_id)


def _tier(ev: Evidence, customer_id: str | None) -> str:
    customer = _customer(ev, customer_id)
    return customer.tier if customer is not None else "standard"


def _bad_standing(customer: RuleRow | None) -> TypeGuard[RuleRow]:
    """True for a customer row with two chargebacks or an abuse flag (never for a missing customer)."""
    return customer is not None and (customer.chargebacks >= 2 or customer.abuse_flags >= 1)


def _order(ev: Evidence, order_id: str | None) -> RuleRow | None:
    return None if order_id is None else ev.start.get("orders", order_id) or ev.end.get("orders", order_id)


def _owner_of(ev: Evidence, order_id: str | None) -> str | None:
    """The customer who placed the order, or None when there is no such order."""
    order = _order(ev, order_id)
    return order.customer_id if order else None


def _line_and_product(ev: Evidence, order_item_id: str | None) -> tuple[RuleRow | None, RuleRow | None]:
    """An order line and the product it sold, at the start; each None where there is none."""
    item = ev.start.get("order_items", order_item_id) if order_item_id else None
    product = ev.start.get("products", item.product_id) if item is not None else None
    return item, product


def _shipments(ev: Evidence, order_id: str) -> list[RuleRow]:
    return ev.start.where("shipments", order_id=order_id)


def _is_lost(ev: Evidence, shipment: RuleRow) -> bool:
    """Lost: tracking says lost, an exception open 7 or more days, or in transit 10 or more days late."""
    if shipment.status == "lost":
        return True
    if shipment.status == "exception" and shipment.exception_opened_at is not None:
        return days_between(shipment.exception_opened_at, _today(ev)) >= 7
    return shipment.status == "in_transit" and shipment.days_late >= 10


def _young_exception(ev: Evidence, order_id: str) -> RuleRow | None:
    """The order's shipment whose carrier exception was opened fewer than 7 days ago, if any."""
    for s in _shipments(ev, order_id):
        opened = s.exception_opened_at if s.status == "exception" else None
        if opened is not None and days_between(opened, _today(ev)) < 7:
            return s
    return None


def _lost_shipment(ev: Evidence, order_id: str) -> RuleRow | None:
    return next((s for s in _shipments(ev, order_id) if _is_lost(ev, s)), None)


def _delivered_on(ev: Evidence, order_id: str) -> list[dt.date]:
    return sorted(s.delivered_at.date() for s in _shipments(ev, order_id) if s.delivered_at is not None)


def _replacement_of(ev: Evidence, order_id: str) -> RuleRow | None:
    """The replacement order of an original (at the end: made before or in the conversation)."""
    return ev.end.one("orders", replacement_for=order_id)


def _items(ev: Evidence, order_id: str) -> list[RuleRow]:
    return ev.end.where("order_items", order_id=order_id)


def _carried_again(ev: Evidence, order_id: str, replacement_id: str) -> list[tuple[int, int]]:
    """(unit price, quantity) of each of the original's lines its replacement carried, up to the quantity it did."""
    carried = {i.product_id: i.quantity for i in _items(ev, replacement_id)}
    return [
        (i.unit_price_cents, min(i.quantity, carried[i.product_id]))
        for i in _items(ev, order_id)
        if i.product_id in carried
    ]


def _payment_method(ev: Evidence, refund: RuleRow) -> str | None:
    payment = ev.start.get("payments", refund.payment_id)
    return None if payment is None else payment.method


def _gift_card_refund_goes_to_store_credit(ev: Evidence, refund: RuleRow) -> Iterator[Violation]:
    if refund.method != "store_credit" and _payment_method(ev, refund) == "gift_card":
        yield Violation.of(refund, f"order {refund.order_id} was paid with a gift card: store_credit", "method")


def _by_number(rows: Iterable[RuleRow]) -> list[RuleRow]:
    """Rows in the order they were made: their ids count up (``RF-8001``, ``RF-8002`` ...)."""
    return sorted(rows, key=lambda r: (len(str(r.key)), str(r.key)))


def _refunds_before(ev: Evidence, refund: RuleRow) -> int:
    """What was refunded on the refund's order before it: the start's refunds, then those made earlier here."""
    total = sum(r.amount_cents for r in ev.start.where("refunds", order_id=refund.order_id))
    for r in _by_number(ev.added("refunds")):
        if r.key == refund.key:
            break
        if r.order_id == refund.order_id:
            total += r.amount_cents
    return total


def _cents(amount: int) -> str:
    return f"{amount:,} cents"


def _business_written(ev: Evidence) -> list[str]:
    return sorted(written_tables(ev, *TICKET_TABLES))


def _granted(ev: Evidence) -> list[str]:
    """What the conversation granted: each write the policy calls a grant (a refund, replacement, claim ...)."""
    out = [f"refund {r.key}" for r in ev.added("refunds")]
    out += [f"replacement {o.key}" for o in ev.added("orders")]
    out += [f"change of order {now.key}" for _, now in ev.updated("orders")]
    out += [f"return {r.key}" for r in ev.added("returns")]
    out += [f"return {now.key}" for _, now in ev.updated("returns", "status") if now.status != "rejected"]
    out += [f"claim {c.key}" for c in ev.added("warranty_claims")]
    out += [f"installation job {now.key}" for _, now in ev.updated("installation_jobs")]
    out += [f"points {p.key}" for p in ev.added("points_adjustments")]
    return out


def _waiting_return(ev: Evidence, ticket: RuleRow) -> bool:
    """A return the customer has to send: approved or created in the conversation, or approved on the ticket's order."""
    if any(r.status == "approved" for r in ev.added("returns")):
        return True
    if any(now.status == "approved" for _, now in ev.updated("returns", "status")):
        return True
    return (
        ticket.order_id is not None and ev.end.one("returns", order_id=ticket.order_id, status="approved") is not None
    )


def _orders_touched(ev: Evidence) -> frozenset[str]:
    """The customer's orders the conversation wrote to: refunded, replaced, changed, awarded points on, returned
    from, or whose installation job or warranty it acted on."""

    def make() -> frozenset[str]:
        orders = {r.order_id for r in ev.added("refunds")}
        orders |= {o.replacement_for for o in ev.added("orders") if o.replacement_for}
        orders |= {now.key for _, now in ev.updated("orders")}
        orders |= {p.order_id for p in ev.added("points_adjustments") if p.order_id}
        orders |= {now.order_id for _, now in ev.changed_rows("returns") if now is not None}
        orders |= {now.order_id for _, now in ev.updated("installation_jobs")}
        for claim in ev.added("warranty_claims"):
            warranty = ev.start.get("warranties", claim.warranty_id)
            orders.add(warranty.order_id if warranty is not None else None)
        return frozenset(o for o in orders if o)

    touched: frozenset[str] = ev.memo(("retail", "orders touched"), make)
    return touched


def _unexplained_wait(ev: Evidence, ticket: RuleRow) -> str | None:
    """Why a ticket left pending or on hold is not waiting on what its reason says (None when it is, or solved)."""
    why: str | None = ev.memo(("retail", "unexplained wait", ticket.key), lambda: _wait_problem(ev, ticket))
    return why


def _wait_problem(ev: Evidence, ticket: RuleRow) -> str | None:
    status, reason = ticket.status, ticket.reason
    if status not in ("pending", "hold"):
        return None
    allowed = PENDING_REASONS if status == "pending" else HOLD_REASONS
    if reason not in allowed:
        return f"it is left {status} with reason {reason!r}; {status} takes {' or '.join(allowed)}"
    if reason == "awaiting_item" and not _waiting_return(ev, ticket):
        return "it waits for a returned item, but no return was approved or created"
    if reason == "identity_failed" and _business_written(ev):
        return f"identity failed, yet the conversation changed {', '.join(_business_written(ev))}"
    if reason == "awaiting_carrier":
        concerned = _orders_touched(ev) | ({ticket.order_id} if ticket.order_id else set())
        if not any(_young_exception(ev, o) for o in concerned):
            return "it waits for the carrier, but no order it concerns has an exception opened fewer than 7 days ago"
    if reason == "account_standing" and not _bad_standing(_customer(ev, ticket.requester_id)):
        customer = _customer(ev, ticket.requester_id)
        figures = (
            "" if customer is None else f" ({customer.chargebacks} chargebacks, {customer.abuse_flags} abuse flags)"
        )
        return f"it is escalated for account standing, but the customer's standing is clean{figures}"
    return None


def _left_waiting_after(ev: Evidence, what: str) -> Iterator[Violation]:
    """The article's matter was settled (`what`): its ticket is solved, unless another matter explains a wait."""
    for _, ticket in worked_tickets(ev):
        why = _unexplained_wait(ev, ticket)
        if why is not None:
            yield Violation.of(ticket, f"after {what} the ticket should be solved: {why}", "status")


def _sums(lines: Iterable[tuple[int, int]]) -> set[int]:
    """Every amount a refund of some of these (unit price, quantity) lines can come to, whole units only."""
    amounts = {0}
    for price, quantity in lines:
        amounts = {a + price * k for a in amounts for k in range(quantity + 1)}
    return amounts - {0}


def _expected_priority(ev: Evidence, ticket: RuleRow) -> str:
    urgent = ticket.reason == "safety_risk" or _tier(ev, ticket.requester_id) == "premium"
    return "urgent" if urgent else "high"


def _priority_for_a_hold(ev: Evidence, ticket: RuleRow, what: str) -> Iterator[Violation]:
    wanted = _expected_priority(ev, ticket)
    if ticket.priority != wanted:
        yield Violation.of(ticket, f"{what} is {wanted} for this customer, not {ticket.priority}", "priority")


def _one_note(ev: Evidence, ticket: RuleRow, what: str) -> Iterator[Violation]:
    """A violation unless the conversation added exactly one internal comment to the ticket."""
    notes = internal_notes(ev, ticket.key)
    if len(notes) != 1:
        yield Violation.of(ticket, f"{what} takes one internal comment, {len(notes)} were added", "id")


# --- Working a conversation ----------------------------------------------------------------------------------------


def _target_ids(c: ToolCall) -> list[str]:
    names = ("order_id", "rma_id", "warranty_id", "job_id", "order_item_id")
    return [str(c.arguments[n]) for n in names if c.arguments.get(n)]


@RULES.rule(
    "RT-2",
    "Identify the customer and look up each record before changing anything; work in their one open ticket",
    section=WORKING,
    on=(),
    clauses=("RT-2", "RT-3"),
)
def the_conversation_identifies_looks_up_and_works_its_one_open_ticket(ev: Evidence) -> Iterator[Violation]:
    if not ev.tables_written:
        return
    yield from _changes_come_after_identifying_the_customer_and_reading_the_record(ev)
    if not ev.tables_written.isdisjoint(TICKET_TABLES):
        yield from _the_conversation_works_its_one_open_ticket(ev)


def _changes_come_after_identifying_the_customer_and_reading_the_record(ev: Evidence) -> Iterator[Violation]:
    calls = ev.tool_calls()
    identified = _identified(ev)
    first_found = min(identified.values(), default=None)
    seen: list[str] = []  # what earlier calls (not ticket look-ups) said: their arguments and results
    for i, c in enumerate(calls):
        if c.error is None and c.tool in WRITE_TOOLS:
            if first_found is None or i < first_found:
                yield Violation.of(None, f"call {i + 1}, {c.tool}, changes records before the customer is identified")
            elif c.tool not in TICKET_TOOLS:
                for target in _target_ids(c):
                    if not any(target in text for text in seen):
                        yield Violation.of(None, f"call {i + 1}, {c.tool}, acts on {target} without looking it up")
        if c.error is None and c.tool not in TICKET_TOOLS and c.tool != FIND:
            seen.append(" ".join(map(str, c.arguments.values())) + c.result)


def _the_conversation_works_its_one_open_ticket(ev: Evidence) -> Iterator[Violation]:
    """The customer's new or open ticket is worked; one is created only when there is none; no other is touched."""
    worked = worked_tickets(ev)
    touched = _orders_touched(ev)
    if len(worked) > 1:
        # the conversation's own ticket: the one about an order it changed, else one it opened, else the first
        own = next((now for _, now in worked if now.order_id in touched), None)
        own = own or next((now for was, now in worked if was is None), worked[0][1])
        names = ", ".join(str(now.key) for _, now in worked)
        for _, now in worked:
            if now.key != own.key:
                yield Violation.of(
                    now, f"the conversation changed {len(worked)} tickets ({names}); it works one, {own.key}", "id"
                )
    for was, now in worked:
        if was is not None and was.status in ("solved", "closed"):
            yield Violation.of(now, f"ticket {now.key} was {was.status}: never edit or reopen it", "status")
        if was is None:
            if now.order_id is not None:
                for other in ev.start.where(TICKETS, requester_id=now.requester_id, order_id=now.order_id):
                    # an open ticket on the same order is this matter, unless it is classified as another
                    if other.status in ("new", "open") and other.category in (None, now.category):
                        yield Violation.of(
                            now, f"ticket {other.key} was already {other.status} for order {now.order_id}", "id"
                        )
            elif touched:
                orders = ", ".join(sorted(touched))
                yield Violation.of(
                    now, f"the new ticket names no order, though the conversation is about {orders}", "order_id"
                )
            # every request granted (no reason): the first one raised, whose order the ticket names, wrote something
            if now.order_id is not None and now.reason is None and touched and now.order_id not in touched:
                yield Violation.of(
                    now,
                    f"the new ticket names order {now.order_id}; the conversation changed {', '.join(sorted(touched))}",
                    "order_id",
                )


@RULES.rule(
    "RT-4",
    "The conversation ends with its ticket saying what happened: a final status and a category",
    section=WORKING,
    on=(),
)
def the_conversation_leaves_its_ticket_classified(ev: Evidence) -> Iterator[Violation]:
    worked = worked_tickets(ev)
    if not worked:
        tried = [c for c in ev.tool_calls() if c.tool == FIND]
        if tried and all(c.error is not None for c in tried):
            return  # no customer has the email given: there is no customer's ticket to work
        yield Violation.of(None, "the conversation ends without setting its ticket's final status")
        return
    for _, ticket in worked:
        if ticket.status not in ("solved", "pending", "hold"):
            yield Violation.of(ticket, f"ticket {ticket.key} is left {ticket.status}", "status")
        if not ticket.category:
            yield Violation.of(ticket, f"ticket {ticket.key} has no category", "category")


@RULES.rule(
    "RT-5",
    "Make each change once: no repeated refund, claim, return, reschedule or courtesy award",
    section=WORKING,
    on=("refunds", "warranty_claims", "returns", "installation_jobs", "points_adjustments"),
)
def each_change_is_made_once(ev: Evidence) -> Iterator[Violation]:
    seen: dict[tuple[str, ...], RuleRow] = {}
    for refund in _by_number(ev.added("refunds")):
        key: tuple[str, ...]
        if refund.reason in ("late_delivery", "lost_parcel", "returned_to_sender"):
            key = (refund.order_id, refund.reason)
        elif refund.reason == "damaged":
            key = (refund.order_id, refund.reason, str(refund.amount_cents))
        else:
            continue
        if key in seen:
            yield Violation.of(
                refund,
                f"a second {refund.reason} refund on order {refund.order_id} (first {seen[key].key})",
                "amount_cents",
            )
        seen.setdefault(key, refund)
    for table, column in (("warranty_claims", "warranty_id"), ("returns", "order_item_id")):
        counted: dict[str, int] = {}
        for row in _by_number(ev.added(table)):
            counted[row[column]] = counted.get(row[column], 0) + 1
            if counted[row[column]] > 1:
                yield Violation.of(row, f"a second {table[:-1].replace('_', ' ')} for {row[column]}", column)
    for was, now in ev.updated("installation_jobs", "reschedule_count"):
        allowed = 0 if was.status == "missed" else 1
        if now.reschedule_count - was.reschedule_count > allowed:
            yield Violation.of(
                now,
                f"rescheduled {now.reschedule_count - was.reschedule_count} times in one conversation",
                "reschedule_count",
            )
    awarded: dict[str, RuleRow] = {}
    for points in _by_number(ev.added("points_adjustments")):
        if points.customer_id in awarded:
            yield Violation.of(points, f"a second points award to {points.customer_id} in one conversation", "points")
        awarded.setdefault(points.customer_id, points)


# --- Identity verification -----------------------------------------------------------------------------------------


def _owners(ev: Evidence) -> Iterator[tuple[RuleRow, str | None, str]]:
    """(row written, the customer it belongs to, field) for each business row and ticket the conversation wrote."""
    for refund in ev.added("refunds"):
        yield refund, _owner_of(ev, refund.order_id), "order_id"
    for _, order in ev.changed_rows("orders"):
        if order is not None:
            yield order, order.customer_id, "customer_id"
    for _, rma in ev.changed_rows("returns"):
        if rma is not None:
            yield rma, _owner_of(ev, rma.order_id), "order_id"
    for claim in ev.added("warranty_claims"):
        warranty = ev.start.get("warranties", claim.warranty_id)
        yield claim, warranty.customer_id if warranty else None, "warranty_id"
    for _, job in ev.updated("installation_jobs"):
        yield job, job.customer_id, "customer_id"
    for points in ev.added("points_adjustments"):
        yield points, points.customer_id, "customer_id"
        if points.order_id:
            yield points, _owner_of(ev, points.order_id), "order_id"
    for _, ticket in worked_tickets(ev):
        yield ticket, ticket.requester_id, "requester_id"


@RULES.rule(
    "RT-7",
    "Change only the identified customer's records; when verification fails, change nothing and leave the ticket "
    "pending (identity_failed) with one note, priority kept",
    section=IDENTITY,
    on=(),
    clauses=("RT-7", "RT-8", "RT-10"),
)
def only_the_identified_customers_records_change_and_a_failed_check_changes_nothing(
    ev: Evidence,
) -> Iterator[Violation]:
    if not ev.tables_written:
        return
    if TICKETS in ev.tables_written:
        yield from _failed_verification_changes_nothing_and_leaves_the_ticket_pending(ev)
    identified = _identified(ev)
    who = ", ".join(sorted(identified)) or "nobody"
    for row, owner, field in _owners(ev):
        if owner not in identified:
            yield Violation.of(
                row, f"{row.table} {row.key} belongs to {owner}, not the customer identified by email ({who})", field
            )


def _failed_verification_changes_nothing_and_leaves_the_ticket_pending(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        order = _order(ev, ticket.order_id)
        if order is not None and order.customer_id != ticket.requester_id and ticket.reason != "identity_failed":
            yield Violation.of(
                ticket,
                f"order {order.key} belongs to {order.customer_id}, not {ticket.requester_id}: identity_failed",
                "reason",
            )
        if ticket.reason != "identity_failed":
            continue
        if ticket.status != "pending":
            yield Violation.of(
                ticket, f"identity failed, but the ticket is left {ticket.status}, not pending", "status"
            )
        if was is not None and ticket.priority != was.priority:
            yield Violation.of(
                ticket, f"identity failed: the priority stays {was.priority}, not {ticket.priority}", "priority"
            )
        notes = internal_notes(ev, ticket.key)
        if len(notes) != 1:
            yield Violation.of(ticket, f"identity failed: one internal comment is due, {len(notes)} were added", "id")
        written = _business_written(ev)
        if written:
            yield Violation.of(ticket, f"identity failed, yet the conversation changed {', '.join(written)}", "reason")


# --- Refunds and the agent refund limit ------------------------------------------------------------------------------


def _limit_and_standing(ev: Evidence, reasons: tuple[str, ...], what: str) -> Iterator[Violation]:
    for refund in _by_number(ev.added("refunds")):
        if refund.reason not in reasons:
            continue
        customer = _customer(ev, _owner_of(ev, refund.order_id))
        if _bad_standing(customer):
            yield Violation.of(
                refund,
                f"{what} for a customer with {customer.chargebacks} chargebacks and "
                f"{customer.abuse_flags} abuse flags: escalate instead",
                "amount_cents",
            )
        before = _refunds_before(ev, refund)
        if before + refund.amount_cents > LIMIT_CENTS:
            yield Violation.of(
                refund,
                f"{what} of {_cents(refund.amount_cents)} takes order {refund.order_id} to "
                f"{_cents(before + refund.amount_cents)}, above the {_cents(LIMIT_CENTS)} limit",
                "amount_cents",
            )


@RULES.rule(
    "RT-11",
    "issue_refund stays within the 25,000-cent limit per order and never refunds a customer in bad standing",
    section=REFUNDS,
    on=("refunds",),
    clauses=("RT-11", "RT-12", "RT-14"),
)
def issued_refunds_stay_within_the_limit_and_the_standing_rule(ev: Evidence) -> Iterator[Violation]:
    yield from _limit_and_standing(ev, ISSUED, "a refund")


@RULES.rule(
    "RT-13",
    "An escalated refund: hold, high (urgent for premium), refunds_team, one internal comment",
    section=REFUNDS,
    on=(TICKETS,),
)
def escalated_refunds_go_on_hold_for_the_refunds_team(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.reason not in ("refund_limit", "account_standing"):
            continue
        if ticket.status != "hold":
            yield Violation.of(ticket, f"an escalated refund is put on hold, not left {ticket.status}", "status")
        if ticket.queue != "refunds_team":
            yield Violation.of(ticket, f"an escalated refund goes to refunds_team, not {ticket.queue}", "queue")
        yield from _priority_for_a_hold(ev, ticket, "an escalation")
        yield from _one_note(ev, ticket, "an escalation")
        why = _unexplained_wait(ev, ticket)
        if why is not None and ticket.reason == "account_standing":
            yield Violation.of(ticket, why, "reason")


@RULES.rule(
    "RT-15",
    "A refund goes back to the order's payment, to store credit only for a gift-card order or on the customer's word",
    section=REFUNDS,
    on=("refunds",),
)
def refunds_go_back_to_the_orders_payment(ev: Evidence) -> Iterator[Violation]:
    for refund in ev.added("refunds"):
        if refund.reason not in (*ISSUED, PRICE_PROTECTION, "return"):
            continue
        gift_card = _payment_method(ev, refund) == "gift_card"
        if gift_card and refund.method != "store_credit":
            yield Violation.of(
                refund, f"order {refund.order_id} was paid with a gift card: refund to store_credit", "method"
            )
        elif refund.method == "store_credit" and not gift_card and not _customer_said(ev, *STORE_CREDIT_WORDS):
            yield Violation.of(
                refund,
                f"order {refund.order_id} was not paid with a gift card and the customer never asked for store "
                "credit: the refund goes back to the original payment",
                "method",
            )


#: How a customer asks for store credit.
STORE_CREDIT_WORDS = ("store credit", "store account", "shop credit", "account credit", "credit on my account")


def _customer_said(ev: Evidence, *phrases: str) -> bool:
    """Whether the customer's messages in the conversation say one of `phrases` (case and spacing aside)."""
    said = " ".join(" ".join(str(m.get("content") or "").lower().split()) for m in ev.messages if m["role"] == "user")
    return any(phrase in said for phrase in phrases)


@RULES.rule(
    "RT-16",
    "An issue_refund reason names what happened to the order (late, lost, damaged, returned to sender)",
    section=REFUNDS,
    on=("refunds",),
)
def refund_reasons_match_the_order(ev: Evidence) -> Iterator[Violation]:
    for refund in ev.added("refunds"):
        order_id = refund.order_id
        shipments = _shipments(ev, order_id)
        replacement = _replacement_of(ev, order_id)
        if refund.reason == "late_delivery":
            if not any(s.days_late >= 1 for s in shipments):
                yield Violation.of(refund, f"order {order_id} has no late shipment", "reason")
        elif refund.reason == "lost_parcel":
            lost = _lost_shipment(ev, order_id) or (replacement and _lost_shipment(ev, replacement.key))
            if not lost:
                yield Violation.of(refund, f"no parcel of order {order_id} (or of its replacement) is lost", "reason")
        elif refund.reason == "damaged":
            delivered = _delivered_on(ev, order_id) or (replacement and _delivered_on(ev, replacement.key))
            if not delivered:
                yield Violation.of(refund, f"nothing of order {order_id} was delivered to arrive damaged", "reason")
        elif refund.reason == "returned_to_sender":  # noqa: SIM102 - one branch per reason, like those above
            if not any(s.status == "returned_to_sender" for s in shipments):
                yield Violation.of(refund, f"no parcel of order {order_id} was returned to sender", "reason")


# --- Late deliveries -------------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-19",
    "A late parcel: only its shipping charge is refunded, once, from 3 days late, never during a young exception",
    section=LATE,
    on=("refunds", "orders", "points_adjustments"),
    clauses=("RT-17", "RT-18", "RT-19", "RT-20", "RT-21", "RT-22"),
)
def a_late_parcel_gets_only_its_shipping_refunded(ev: Evidence) -> Iterator[Violation]:
    refunds = _by_number(ev.added("refunds"))
    for refund in refunds:
        if refund.reason != "late_delivery":
            continue
        order = _order(ev, refund.order_id)
        shipments = _shipments(ev, refund.order_id)
        late = max((s.days_late for s in shipments), default=0)
        if late < 3:
            yield Violation.of(refund, f"the parcel is {late} days late: compensation starts at 3", "reason")
        if _young_exception(ev, refund.order_id) is not None:
            yield Violation.of(refund, "a carrier exception opened fewer than 7 days ago is still open", "reason")
        if order is not None and refund.amount_cents != order.shipping_cents:
            yield Violation.of(
                refund,
                f"a late-delivery refund is the shipping charge ({_cents(order.shipping_cents)}), "
                f"not {_cents(refund.amount_cents)}",
                "amount_cents",
            )
        earlier = [r for r in ev.start.where("refunds", order_id=refund.order_id) if r.reason == "late_delivery"]
        earlier += [r for r in refunds if r.reason == "late_delivery" and r.order_id == refund.order_id]
        first = _by_number(earlier)[0]
        if first.key != refund.key:
            yield Violation.of(
                refund, f"order {refund.order_id} already had its shipping refund ({first.key})", "reason"
            )
    # a late parcel still on its way is neither refunded nor replaced
    for refund in refunds:
        if refund.reason in ("lost_parcel", "damaged", "returned_to_sender"):
            yield from _on_its_way(ev, refund, refund.order_id, f"a {refund.reason} refund")
    for order in ev.added("orders"):
        if order.replacement_for:
            yield from _on_its_way(ev, order, order.replacement_for, "a replacement")
    for points in ev.added("points_adjustments"):
        if points.order_id is None:
            continue
        shipping = [r for r in ev.end.where("refunds", order_id=points.order_id) if r.reason == "late_delivery"]
        if shipping:
            yield Violation.of(
                points,
                f"order {points.order_id} got a shipping refund ({shipping[0].key}): no points on top",
                "order_id",
            )
    if any(r.reason == "late_delivery" for r in refunds):
        yield from _left_waiting_after(ev, "a shipping refund for a late parcel")


def _on_its_way(ev: Evidence, row: RuleRow, order_id: str, what: str) -> Iterator[Violation]:
    """A violation when every parcel of the order is late but still on its way (none delivered, lost or returned)."""
    shipments = _shipments(ev, order_id)
    moving = [s for s in shipments if s.status in ("in_transit", "label_created", "exception") and not _is_lost(ev, s)]
    if moving and len(moving) == len(shipments) and any(s.days_late >= 1 for s in moving):
        late = max(s.days_late for s in moving)
        yield Violation.of(
            row, f"{what} for order {order_id}, whose parcel is {late} days late but not lost", "order_id"
        )


# --- Delivery exceptions ---------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-24",
    "A carrier exception under 7 days: nothing refunded, replaced or awarded; the ticket waits on hold for the carrier",
    section=EXCEPTIONS,
    on=("refunds", "orders", "points_adjustments", TICKETS),
    clauses=("RT-23", "RT-24", "RT-25"),
)
def nothing_is_given_while_a_carrier_exception_is_young(ev: Evidence) -> Iterator[Violation]:
    def opened(order_id: str) -> str | None:
        s = _young_exception(ev, order_id)
        if s is None:
            return None
        days = days_between(s.exception_opened_at, _today(ev))
        return f"order {order_id}'s carrier exception was opened {days} days ago"

    for refund in ev.added("refunds"):
        why = refund.reason in ISSUED and opened(refund.order_id)
        if why:
            yield Violation.of(refund, f"{why}: no refund until the carrier has had 7 days", "order_id")
    for order in ev.added("orders"):
        why = order.replacement_for and opened(order.replacement_for)
        if why:
            yield Violation.of(order, f"{why}: no replacement until the carrier has had 7 days", "replacement_for")
    for points in ev.added("points_adjustments"):
        why = points.order_id and opened(points.order_id)
        if why:
            yield Violation.of(points, f"{why}: no courtesy points while it is investigated", "order_id")
    for _, ticket in worked_tickets(ev):
        why = ticket.order_id and opened(ticket.order_id)
        # a ticket about the parcel (not, say, a price drop on the same order) waits for the carrier
        about_delivery = ticket.category in (None, "delivery", "loyalty")
        if why and about_delivery and ticket.reason not in ("awaiting_carrier", "identity_failed", "safety_risk"):
            yield Violation.of(
                ticket,
                f"{why}: the ticket waits on hold for the carrier, not {ticket.status} ({ticket.reason})",
                "reason",
            )
        if ticket.reason == "awaiting_carrier":
            why = _unexplained_wait(ev, ticket)
            if why:
                yield Violation.of(ticket, why, "reason")
            if ticket.status != "hold" or ticket.queue != "carrier_claims":
                yield Violation.of(
                    ticket,
                    f"awaiting the carrier is hold in carrier_claims, not {ticket.status} in {ticket.queue}",
                    "queue",
                )
            yield from _priority_for_a_hold(ev, ticket, "a carrier hold")
            yield from _one_note(ev, ticket, "a carrier hold")


# --- Lost parcels ----------------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-26",
    "A lost parcel: replace every item, or refund the total less earlier refunds; nothing for a parcel not lost",
    section=LOST,
    on=("refunds", "orders"),
    clauses=("RT-26", "RT-27", "RT-28", "RT-29"),
)
def a_lost_parcel_is_replaced_whole_or_refunded_in_full(ev: Evidence) -> Iterator[Violation]:
    settled = False
    for refund in ev.added("refunds"):
        if refund.reason != "lost_parcel":
            continue
        settled = True
        order = _order(ev, refund.order_id)
        replacement = ev.start.one("orders", replacement_for=refund.order_id)
        if replacement is not None:  # a replaced order's later problems are its replacement's (RT-46)
            if _lost_shipment(ev, replacement.key) is None:
                yield Violation.of(
                    refund,
                    f"order {refund.order_id} was replaced by {replacement.key}, whose parcel is not lost",
                    "reason",
                )
        elif _lost_shipment(ev, refund.order_id) is None:
            yield Violation.of(refund, f"order {refund.order_id}'s parcel is not lost", "reason")
        elif order is not None:
            due = order.total_cents - _refunds_before(ev, refund)
            if refund.amount_cents != due:
                yield Violation.of(
                    refund,
                    f"a lost parcel is refunded the order total {_cents(order.total_cents)} less earlier refunds: "
                    f"{_cents(due)}, not {_cents(refund.amount_cents)}",
                    "amount_cents",
                )
    for order in ev.added("orders"):
        if order.replacement_reason != "lost_parcel":
            continue
        settled = True
        if _lost_shipment(ev, order.replacement_for) is None:
            yield Violation.of(order, f"order {order.replacement_for}'s parcel is not lost", "replacement_reason")
        wanted = sorted((i.product_id, i.quantity) for i in _items(ev, order.replacement_for))
        sent = sorted((i.product_id, i.quantity) for i in _items(ev, order.key))
        if sent != wanted:
            yield Violation.of(order, f"a lost parcel is replaced whole: {wanted}, not {sent}", "replacement_for")
    if settled:
        yield from _left_waiting_after(ev, "the lost parcel's refund or replacement")


# --- Returned to sender ----------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-30",
    "Returned to sender: a new shipment or a refund of the goods less the discount, never both; the original stays",
    section=RETURNED,
    on=("refunds", "orders"),
    clauses=("RT-30", "RT-31", "RT-32"),
)
def a_parcel_returned_to_sender_is_reshipped_or_refunded_once(ev: Evidence) -> Iterator[Violation]:
    def returned(order_id: str) -> bool:
        return any(s.status == "returned_to_sender" for s in _shipments(ev, order_id))

    settled = False
    for refund in ev.added("refunds"):
        if refund.reason != "returned_to_sender":
            continue
        settled = True
        order = _order(ev, refund.order_id)
        if not returned(refund.order_id) or order is None:
            continue  # RT-16 names the wrong reason
        due = order.subtotal_cents - order.discount_cents
        if refund.amount_cents != due:
            yield Violation.of(
                refund,
                f"the refund is the subtotal less the discount, {_cents(due)} (no shipping), "
                f"not {_cents(refund.amount_cents)}",
                "amount_cents",
            )
        if _replacement_of(ev, refund.order_id) is not None:
            yield Violation.of(refund, f"order {refund.order_id} is both refunded and shipped again", "order_id")
    for order in ev.added("orders"):
        if order.replacement_reason != "returned_to_sender":
            continue
        settled = True
        if not returned(order.replacement_for):
            yield Violation.of(order, f"order {order.replacement_for} was not returned to sender", "replacement_reason")
    for _, order in ev.updated("orders", "ship_line", "ship_city", "ship_postal_code"):
        if returned(order.key):
            yield Violation.of(
                order, f"order {order.key} came back to the warehouse: change the new order's address", "ship_line"
            )
    if settled:
        yield from _left_waiting_after(ev, "the returned parcel's new shipment or refund")


# --- Damaged on arrival ----------------------------------------------------------------------------------------------


def _damage_sources(ev: Evidence, order_id: str) -> list[tuple[int, set[int]]]:
    """(days since delivery, refundable amounts) for the order's own delivery and its replacement's."""
    out = []
    lines = _items(ev, order_id)
    delivered = _delivered_on(ev, order_id)
    if delivered:
        out.append((days_between(delivered[-1], _today(ev)), _sums((i.unit_price_cents, i.quantity) for i in lines)))
    replacement = _replacement_of(ev, order_id)
    if replacement is not None and _delivered_on(ev, replacement.key):
        carried = _carried_again(ev, order_id, replacement.key)
        out.append((days_between(_delivered_on(ev, replacement.key)[-1], _today(ev)), _sums(carried)))
    return out


@RULES.rule(
    "RT-33",
    "Damaged on arrival (reported within 7 days): refund the damaged items' price, or replace only those items",
    section=DAMAGED,
    on=("refunds", "orders"),
    clauses=("RT-33", "RT-34", "RT-35"),
)
def damage_on_arrival_is_settled_within_7_days_for_the_items_price(ev: Evidence) -> Iterator[Violation]:
    settled = False
    for refund in ev.added("refunds"):
        if refund.reason != "damaged":
            continue
        settled = True
        sources = _damage_sources(ev, refund.order_id)
        if not sources:
            continue  # RT-16: nothing was delivered
        recent = [amounts for days, amounts in sources if days <= 7]
        if not recent:
            days = min(d for d, _ in sources)
            yield Violation.of(
                refund, f"reported {days} days after delivery: past the 7 days, a return or warranty matter", "reason"
            )
        elif not any(refund.amount_cents in amounts for amounts in recent):
            yield Violation.of(
                refund,
                f"{_cents(refund.amount_cents)} is not the price of damaged items of order {refund.order_id} "
                "(unit price times quantity, never shipping)",
                "amount_cents",
            )
    for order in ev.added("orders"):
        if order.replacement_reason != "damaged":
            continue
        settled = True
        delivered = _delivered_on(ev, order.replacement_for)
        if delivered and days_between(delivered[-1], _today(ev)) > 7:
            yield Violation.of(
                order,
                f"order {order.replacement_for} was delivered {days_between(delivered[-1], _today(ev))} days ago: "
                "past the 7 days for damage on arrival",
                "replacement_reason",
            )
    if settled:
        yield from _left_waiting_after(ev, "the damaged items' refund or replacement")


# --- Returns: eligibility and windows --------------------------------------------------------------------------------


def _return_verdict(ev: Evidence, rma: RuleRow) -> tuple[str | None, str]:
    """Why a return is not eligible (final_sale, outside_window, not_eligible) or None, and the figures."""
    _, product = _line_and_product(ev, rma.order_item_id)
    if product is not None and product.final_sale:
        return "final_sale", f"{product.name} is final sale"
    order = _order(ev, rma.order_id)
    delivered = _delivered_on(ev, rma.order_id)
    if order is None or not delivered:
        return "not_eligible", f"order {rma.order_id} has not been delivered"
    tier = _tier(ev, order.customer_id)
    days = days_between(delivered[-1], _today(ev))
    if days > RETURN_WINDOW[tier]:
        return "outside_window", f"delivered {days} days ago, past the {tier} window of {RETURN_WINDOW[tier]} days"
    return None, f"delivered {days} days ago, inside the {tier} window of {RETURN_WINDOW[tier]} days"


@RULES.rule(
    "RT-36",
    "Approve or create only eligible returns (delivered, not final sale, inside the tier's window); reject the rest "
    "with final_sale first, then outside_window",
    section=RETURNS,
    on=("returns",),
    clauses=("RT-36", "RT-37", "RT-38", "RT-39", "RT-40"),
)
def only_eligible_returns_are_approved(ev: Evidence) -> Iterator[Violation]:
    for rma in ev.added("returns"):
        refusal, figures = _return_verdict(ev, rma)
        if refusal is not None:
            yield Violation.of(rma, f"a return created though {figures}", "order_item_id")
        for other in ev.start.where("returns", order_item_id=rma.order_item_id):
            if other.status == "requested":
                yield Violation.of(
                    rma, f"return {other.key} was already requested for this item: decide it", "order_item_id"
                )
    for was, rma in ev.updated("returns", "status"):
        if was.status != "requested":
            continue
        refusal, figures = _return_verdict(ev, rma)
        if rma.status == "approved" and refusal is not None:
            yield Violation.of(rma, f"approved though {figures}", "status")
        elif rma.status == "rejected":
            if refusal is None:
                yield Violation.of(rma, f"rejected though {figures}", "status")
            elif rma.rejection_reason != refusal:
                yield Violation.of(
                    rma, f"rejected as {rma.rejection_reason}, but {figures}: {refusal}", "rejection_reason"
                )


@RULES.rule(
    "RT-41",
    "An approved or created return leaves the ticket pending (awaiting_item); a refused return leaves it solved",
    section=RETURNS,
    on=("returns", TICKETS),
)
def an_approved_return_waits_for_the_item(ev: Evidence) -> Iterator[Violation]:
    opened = [r for r in ev.added("returns") if r.status == "approved"]
    opened += [now for was, now in ev.updated("returns", "status") if now.status == "approved"]
    rejected = [now for was, now in ev.updated("returns", "status") if now.status == "rejected"]
    for _, ticket in worked_tickets(ev):
        if opened and ticket.status != "hold" and (ticket.status, ticket.reason) != ("pending", "awaiting_item"):
            yield Violation.of(
                ticket,
                f"return {opened[0].key} waits for the item: pending with awaiting_item, not {ticket.status} "
                f"({ticket.reason})",
                "status",
            )
        if rejected and not opened and ticket.status == "solved" and ticket.reason is None:
            yield Violation.of(ticket, f"return {rejected[0].key} was rejected: the ticket gives the reason", "reason")


# --- Restocking fees and return refunds ------------------------------------------------------------------------------


def _restocking_fee(condition: str | None, category: str, tier: str) -> int | None:
    if condition == "unopened" or condition == "defective":
        return 0
    if condition == "damaged":
        return 50
    if condition == "opened":
        if tier == "premium":
            return 0
        return {"electronics": 15, "appliances": 15, "furniture": 10}.get(category, 0)
    return None


@RULES.rule(
    "RT-42",
    "A received return is refunded with the restocking fee its inspected condition, category and tier set",
    section=RESTOCKING,
    on=("returns",),
    clauses=("RT-42", "RT-43", "RT-44", "RT-45"),
)
def return_refunds_keep_the_right_restocking_fee(ev: Evidence) -> Iterator[Violation]:
    refunded = [(was, now) for was, now in ev.updated("returns", "status") if now.status == "refunded"]
    for was, rma in refunded:
        if was.status != "received":
            yield Violation.of(rma, f"return {rma.key} was {was.status}, not received by the warehouse", "status")
            continue
        _, product = _line_and_product(ev, rma.order_item_id)
        tier = _tier(ev, _owner_of(ev, rma.order_id))
        fee = _restocking_fee(was.inspected_condition, product.category if product else "", tier)
        if fee is not None and rma.restocking_fee_percent != fee:
            yield Violation.of(
                rma,
                f"inspected {was.inspected_condition}, {product.category if product else '?'}, {tier} member: "
                f"the fee is {fee}%, not {rma.restocking_fee_percent}%",
                "restocking_fee_percent",
            )
        refund = ev.end.get("refunds", rma.refund_id) if rma.refund_id else None
        if refund is not None:
            yield from _gift_card_refund_goes_to_store_credit(ev, refund)
    if refunded:
        yield from _left_waiting_after(ev, "the return's refund")


# --- Replacement orders ----------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-46",
    "One replacement per original, never of a replacement; a replacement's lost items are refunded on the original",
    section=REPLACEMENTS,
    on=("orders", "refunds"),
    clauses=("RT-46", "RT-47"),
)
def replacements_are_made_once_and_their_problems_refunded_on_the_original(ev: Evidence) -> Iterator[Violation]:
    for order in ev.added("orders"):
        original = _order(ev, order.replacement_for)
        if original is None:
            continue
        if original.replacement_for:
            yield Violation.of(
                order,
                f"order {original.key} is itself the replacement of {original.replacement_for}: refund it instead",
                "replacement_for",
            )
        earlier = [o for o in ev.end.where("orders", replacement_for=original.key) if o.key != order.key]
        if earlier:
            yield Violation.of(
                order, f"order {original.key} already has its replacement {earlier[0].key}", "replacement_for"
            )
    for refund in ev.added("refunds"):
        if refund.reason != "lost_parcel":
            continue
        replacement = ev.start.one("orders", replacement_for=refund.order_id)
        if replacement is None or _lost_shipment(ev, replacement.key) is None:
            continue  # RT-26 judges it
        due = sum(price * quantity for price, quantity in _carried_again(ev, refund.order_id, replacement.key))
        if refund.amount_cents != due:
            yield Violation.of(
                refund,
                f"the lost replacement {replacement.key} carried items worth {_cents(due)} on order "
                f"{refund.order_id}; refund that, not {_cents(refund.amount_cents)}",
                "amount_cents",
            )


# --- Warranty claims -------------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-48",
    "A claim only on a warranty that covers it: in force today, not void; accidental damage once, on accident plans",
    section=WARRANTY,
    on=("warranty_claims",),
    clauses=("RT-48", "RT-49", "RT-50", "RT-53"),
)
def claims_are_filed_only_when_covered(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for claim in ev.added("warranty_claims"):
        w = ev.start.get("warranties", claim.warranty_id)
        if w is None:
            continue
        if w.void:
            yield Violation.of(claim, f"warranty {w.key} is void", "warranty_id")
        if not w.starts_on <= today <= w.expires_on:
            yield Violation.of(
                claim, f"warranty {w.key} runs {w.starts_on} to {w.expires_on}; today is {today}", "warranty_id"
            )
        if claim.issue == "accidental_damage":
            if w.plan != "accident_protection":
                yield Violation.of(claim, f"the {w.plan} plan never covers accidental damage", "issue")
            earlier = [
                c
                for c in ev.start.where("warranty_claims", warranty_id=w.key)
                if c.issue == "accidental_damage" and c.status == "approved"
            ]
            if earlier:
                yield Violation.of(
                    claim, f"warranty {w.key} already had accidental-damage claim {earlier[0].key}", "issue"
                )


@RULES.rule(
    "RT-51",
    "A claim's resolution: replacement under 15,000 cents or after an earlier approved claim, otherwise repair",
    section=WARRANTY,
    on=("warranty_claims",),
    clauses=("RT-51", "RT-52"),
)
def claims_get_the_resolution_the_price_and_history_set(ev: Evidence) -> Iterator[Violation]:
    for claim in ev.added("warranty_claims"):
        w = ev.start.get("warranties", claim.warranty_id)
        product = ev.start.get("products", w.product_id) if w is not None else None
        if product is None or w is None:
            continue
        earlier = [c for c in ev.start.where("warranty_claims", warranty_id=w.key) if c.status == "approved"]
        wanted = "replacement" if product.price_cents < 15_000 or earlier else "repair"
        if claim.resolution != wanted:
            why = (
                f"an approved claim {earlier[0].key} is already on file"
                if earlier
                else f"{product.name} costs {_cents(product.price_cents)}"
            )
            yield Violation.of(claim, f"{why}: the resolution is {wanted}, not {claim.resolution}", "resolution")


# --- Product safety reports ------------------------------------------------------------------------------------------


@RULES.rule(
    "RT-55",
    "A safety report: hold, urgent, category safety, safety_team, safety_risk, one note; a defect claim, no refund",
    section=SAFETY,
    on=(TICKETS, "refunds", "warranty_claims"),
    clauses=("RT-55", "RT-56"),
)
def safety_reports_go_on_urgent_hold_for_the_safety_team(ev: Evidence) -> Iterator[Violation]:
    wanted = {
        "status": "hold",
        "priority": "urgent",
        "category": "safety",
        "reason": "safety_risk",
        "queue": "safety_team",
    }
    for _, ticket in worked_tickets(ev):
        if not (ticket.reason == "safety_risk" or ticket.category == "safety" or ticket.queue == "safety_team"):
            continue
        for name, value in wanted.items():
            if ticket[name] != value:
                yield Violation.of(ticket, f"a safety report sets {name} {value}, not {ticket[name]}", name)
        yield from _one_note(ev, ticket, "a safety report")
        for refund in ev.added("refunds"):
            about = ticket.order_id in (None, refund.order_id)
            if about and refund.reason in (*ISSUED, PRICE_PROTECTION):
                yield Violation.of(refund, "a safety report never results in a refund from the agent", "amount_cents")
        for claim in ev.added("warranty_claims"):
            if claim.issue != "defect":
                yield Violation.of(claim, f"a safety report's claim is a defect, not {claim.issue}", "issue")


# --- Installation appointments ---------------------------------------------------------------------------------------


def _move_terms(ev: Evidence, job: RuleRow) -> tuple[bool, str]:
    """Whether moving or cancelling the job (as it was) costs nothing, and why it does or does not."""
    hours = (job.scheduled_for - _now(ev)).total_seconds() / 3600
    if hours >= 48:
        return True, f"{hours:g} hours ahead"
    if job.status == "missed":
        return True, "our technician missed the visit"
    tier = _tier(ev, job.customer_id)
    if tier == "premium":
        return True, "the customer is premium"
    return False, f"{hours:g} hours ahead, {tier} member"


@RULES.rule(
    "RT-58",
    "A reschedule is free 48+ hours ahead, after a missed visit or for premium, else 3,500 cents; two at most",
    section=INSTALLATION,
    on=("installation_jobs",),
    clauses=("RT-57", "RT-58", "RT-59", "RT-60", "RT-62", "RT-63"),
)
def reschedules_charge_the_right_fee_and_respect_the_limit(ev: Evidence) -> Iterator[Violation]:
    moved = [(was, now) for was, now in ev.updated("installation_jobs", "scheduled_for") if now.status != "cancelled"]
    for was, job in moved:
        if was.status == "scheduled" and was.reschedule_count >= 2:
            yield Violation.of(
                job, f"already rescheduled {was.reschedule_count} times: offer cancellation", "scheduled_for"
            )
        free, why = _move_terms(ev, was)
        fee = job.reschedule_fees_cents - was.reschedule_fees_cents
        wanted = 0 if free else 3_500
        if fee != wanted:
            yield Violation.of(
                job, f"{why}: the reschedule fee is {_cents(wanted)}, not {_cents(fee)}", "reschedule_fees_cents"
            )
        slot = job.scheduled_for
        if slot.minute or slot.second or not 8 <= slot.hour <= 16 or slot.weekday() == 6:
            yield Violation.of(
                job, f"{slot:%A %H:%M} is not an on-the-hour slot 08:00-16:00, Monday-Saturday", "scheduled_for"
            )
        if slot < _now(ev) + dt.timedelta(hours=24):
            yield Violation.of(job, f"{slot} is less than 24 hours from now", "scheduled_for")
    if moved:
        yield from _left_waiting_after(ev, "the reschedule")


@RULES.rule(
    "RT-61",
    "A cancellation: free 48+ hours ahead, after a missed visit or for premium, else a 4,000-cent charge",
    section=INSTALLATION,
    on=("installation_jobs",),
)
def cancellations_keep_the_right_charge(ev: Evidence) -> Iterator[Violation]:
    cancelled = [(was, now) for was, now in ev.updated("installation_jobs", "status") if now.status == "cancelled"]
    for was, job in cancelled:
        if was.status == "completed":
            yield Violation.of(job, "a completed installation cannot be cancelled", "status")
            continue
        free, why = _move_terms(ev, was)
        wanted = 0 if free else 4_000
        if job.cancellation_fee_cents != wanted:
            yield Violation.of(
                job,
                f"{why}: the cancellation charge is {_cents(wanted)}, not {_cents(job.cancellation_fee_cents or 0)}",
                "cancellation_fee_cents",
            )
    if cancelled:
        yield from _left_waiting_after(ev, "the cancellation")


# --- Courtesy points -------------------------------------------------------------------------------------------------


def _service_failure(ev: Evidence, order_id: str) -> str | None:
    """The service failure on an order that courtesy points make up for, or None."""
    order = _order(ev, order_id)
    for s in _shipments(ev, order_id):
        if s.days_late >= 3 and s.status in ("delivered", "in_transit") and order and order.shipping_cents == 0:
            return f"a parcel {s.days_late} days late with free shipping"
    if any(j.status == "missed" for j in ev.start.where("installation_jobs", order_id=order_id)):
        return "a missed installation"
    return None


@RULES.rule(
    "RT-64",
    "Courtesy points only for a service failure nothing else made up for, to a customer with a clean record and "
    "no courtesy award in 90 days",
    section=COURTESY,
    on=("points_adjustments",),
    clauses=("RT-64", "RT-65", "RT-68"),
)
def courtesy_points_go_only_to_eligible_customers(ev: Evidence) -> Iterator[Violation]:
    added = _by_number(ev.added("points_adjustments"))
    today = _today(ev)
    for points in added:
        if points.points <= 0:
            continue
        customer = _customer(ev, points.customer_id)
        if customer is not None and (customer.chargebacks or customer.abuse_flags):
            yield Violation.of(
                points,
                f"{customer.chargebacks} chargebacks and {customer.abuse_flags} abuse flags: not eligible",
                "points",
            )
        before = [a for a in added[: added.index(points)] if a.customer_id == points.customer_id]
        before += [
            a
            for a in ev.start.where("points_adjustments", customer_id=points.customer_id)
            if days_between(a.created_at, today) <= 90
        ]
        blocking = [a for a in before if a.reason == "courtesy"]
        if blocking:
            days = days_between(blocking[-1].created_at, today)
            yield Violation.of(
                points, f"courtesy adjustment {blocking[-1].key} was made {days} days ago (90 or fewer)", "points"
            )
        if points.order_id is None:
            continue
        failure = _service_failure(ev, points.order_id)
        if failure is None:
            yield Violation.of(points, f"order {points.order_id} had no service failure points make up for", "order_id")
        given = [f"refund {r.key}" for r in ev.end.where("refunds", order_id=points.order_id) if r.reason in ISSUED]
        given += [f"replacement {o.key}" for o in ev.end.where("orders", replacement_for=points.order_id)]
        given += [
            f"courtesy points {a.key}"
            for a in ev.start.where("points_adjustments", order_id=points.order_id)
            if a.reason == "courtesy"
        ]
        if given:
            yield Violation.of(points, f"order {points.order_id} already got {', '.join(given)}", "order_id")


@RULES.rule(
    "RT-66",
    "Courtesy points: 500 / 1,000 / 2,000 by tier, plus 500 after 5 years; reason courtesy, with the order",
    section=COURTESY,
    on=("points_adjustments",),
    clauses=("RT-66", "RT-67"),
)
def courtesy_points_are_the_tiers_amount(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for points in ev.added("points_adjustments"):
        if points.reason != "courtesy":
            yield Violation.of(points, f"points are given only as a courtesy award, not as {points.reason}", "reason")
            continue
        if points.order_id is None:
            yield Violation.of(points, "a courtesy award names the order of the service failure", "order_id")
        customer = _customer(ev, points.customer_id)
        if customer is None:
            continue
        since = customer.member_since
        try:
            anniversary = since.replace(year=since.year + 5)
        except ValueError:  # a member since 29 February
            anniversary = since.replace(year=since.year + 5, day=28)
        wanted = COURTESY_POINTS.get(customer.tier, 500) + (500 if anniversary <= today else 0)
        if points.points != wanted:
            yield Violation.of(
                points,
                f"a {customer.tier} member since {since} gets {wanted} points, not {points.points}",
                "points",
            )


# --- Promo codes after purchase --------------------------------------------------------------------------------------


@RULES.rule(
    "RT-69",
    "A promo code after purchase: within 14 days, running on the order date, minimum met, tier met, no code yet",
    section=PROMO,
    on=("orders",),
    clauses=("RT-69", "RT-70"),
)
def promo_codes_apply_only_when_every_condition_holds(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for was, order in ev.updated("orders", "promo_code"):
        if was.promo_code:
            yield Violation.of(
                order, f"order {order.key} already had code {was.promo_code}: codes never combine", "promo_code"
            )
            continue
        promo = ev.start.one("promotions", code=order.promo_code)
        if promo is None:
            continue
        placed = was.placed_at.date()
        days = days_between(placed, today)
        if days > 14:
            yield Violation.of(order, f"placed {days} days ago, more than 14", "promo_code")
        if not promo.starts_on <= placed <= promo.ends_on:
            yield Violation.of(
                order,
                f"{promo.code} ran {promo.starts_on} to {promo.ends_on}; the order was placed {placed}",
                "promo_code",
            )
        if was.subtotal_cents < promo.min_subtotal_cents:
            yield Violation.of(
                order,
                f"subtotal {_cents(was.subtotal_cents)} is under {promo.code}'s minimum "
                f"{_cents(promo.min_subtotal_cents)}",
                "promo_code",
            )
        tier = _tier(ev, order.customer_id)
        if promo.tier_required and TIER_RANK.get(tier, 0) < TIER_RANK.get(promo.tier_required, 0):
            yield Violation.of(
                order, f"{promo.code} is for {promo.tier_required} members; this one is {tier}", "promo_code"
            )


# --- Price adjustments -----------------------------------------------------------------------------------------------


def _price_adjustments(ev: Evidence) -> list[RuleRow]:
    return [r for r in _by_number(ev.added("refunds")) if r.reason == PRICE_PROTECTION]


@RULES.rule(
    "RT-71",
    "A price adjustment is the line's price drop times its quantity, to store credit for gift-card orders",
    section=PRICE,
    on=("refunds",),
    clauses=("RT-71", "RT-74", "RT-75"),
)
def price_adjustments_refund_the_drop_times_the_quantity(ev: Evidence) -> Iterator[Violation]:
    for refund in _price_adjustments(ev):
        item, product = _line_and_product(ev, refund.order_item_id)
        if item is None or product is None:
            continue
        drop = item.unit_price_cents - product.price_cents
        if drop <= 0:
            yield Violation.of(
                refund,
                f"{product.name} costs {_cents(product.price_cents)} today, not less than the "
                f"{_cents(item.unit_price_cents)} paid",
                "amount_cents",
            )
        elif refund.amount_cents != drop * item.quantity:
            yield Violation.of(
                refund,
                f"({_cents(item.unit_price_cents)} paid - {_cents(product.price_cents)} today) x {item.quantity} is "
                f"{_cents(drop * item.quantity)}, not {_cents(refund.amount_cents)}",
                "amount_cents",
            )
        yield from _gift_card_refund_goes_to_store_credit(ev, refund)


@RULES.rule(
    "RT-72",
    "A price adjustment only within the tier's period, once per line, never for final sale, returned lines or "
    "cancelled orders",
    section=PRICE,
    on=("refunds",),
    clauses=("RT-72", "RT-73", "RT-77"),
)
def price_adjustments_only_for_eligible_lines(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    adjustments = _price_adjustments(ev)
    for refund in adjustments:
        order = ev.start.get("orders", refund.order_id)
        item, product = _line_and_product(ev, refund.order_item_id)
        if order is None or item is None:
            continue
        tier = _tier(ev, order.customer_id)
        days = days_between(order.placed_at, today)
        if days > PRICE_PERIOD[tier]:
            yield Violation.of(
                refund, f"placed {days} days ago, past the {tier} period of {PRICE_PERIOD[tier]} days", "order_item_id"
            )
        if product is not None and product.final_sale:
            yield Violation.of(refund, f"{product.name} is final sale", "order_item_id")
        if order.status == "cancelled":
            yield Violation.of(refund, f"order {order.key} is cancelled", "order_id")
        returned = [r for r in ev.end.where("returns", order_item_id=item.key) if r.status != "rejected"]
        if returned:
            yield Violation.of(
                refund, f"line {item.key} has return {returned[0].key} ({returned[0].status})", "order_item_id"
            )
        earlier = [r for r in ev.start.where("refunds", order_item_id=item.key) if r.reason == PRICE_PROTECTION]
        earlier += [r for r in adjustments[: adjustments.index(refund)] if r.order_item_id == item.key]
        if earlier:
            yield Violation.of(
                refund, f"line {item.key} already had price adjustment {earlier[0].key}", "order_item_id"
            )


@RULES.rule(
    "RT-76",
    "Price adjustments count against the 25,000-cent limit and the standing rule; escalate instead",
    section=PRICE,
    on=("refunds",),
)
def price_adjustments_stay_within_the_limit_and_the_standing_rule(ev: Evidence) -> Iterator[Violation]:
    yield from _limit_and_standing(ev, (PRICE_PROTECTION,), "a price adjustment")


# --- Address changes and cancellations -------------------------------------------------------------------------------


@RULES.rule(
    "RT-79",
    "Change an address or cancel only for the identified owner, while placed or processing (a premium parcel in "
    "transit may be redirected)",
    section=ADDRESS,
    on=("orders",),
    clauses=("RT-78", "RT-79", "RT-80", "RT-81", "RT-82", "RT-83"),
)
def orders_change_only_while_they_still_can(ev: Evidence) -> Iterator[Violation]:
    changed = []
    identified = None
    for was, order in ev.updated("orders", "ship_line", "ship_city", "ship_postal_code", "status"):
        moved = any(was[f] != order[f] for f in ("ship_line", "ship_city", "ship_postal_code"))
        cancelled = order.status == "cancelled" and was.status != "cancelled"
        if not (moved or cancelled):
            continue
        changed.append(order)
        what = "cancelled" if cancelled else "re-addressed"
        if identified is None:
            identified = _identified(ev)
        if order.customer_id not in identified:
            yield Violation.of(order, f"order {order.key} is {what} without identifying its owner", "customer_id")
        if was.status in ("placed", "processing"):
            continue
        if cancelled:
            yield Violation.of(order, f"order {order.key} is {was.status}: it can no longer be cancelled", "status")
            continue
        tier = _tier(ev, order.customer_id)
        moving = any(s.status == "in_transit" for s in _shipments(ev, order.key))
        if was.status != "shipped" or tier != "premium" or not moving:
            state = f"{was.status}, parcel {'in transit' if moving else 'not in transit'}"
            yield Violation.of(
                order, f"order {order.key} is {state}, for a {tier} member: its address cannot change", "ship_line"
            )
    if changed:
        yield from _left_waiting_after(ev, "the order change")


# --- Ticket status, priority and classification ----------------------------------------------------------------------


@RULES.rule(
    "RT-84",
    "A ticket's status says what happened: solved, pending only for the customer, hold only for a third party or team",
    section=TICKET,
    on=(TICKETS,),
    clauses=("RT-84", "RT-85", "RT-86", "RT-87"),
)
def the_ticket_status_says_what_happened(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        if ticket.status in ("new", "closed") and (was is None or was.status != ticket.status):
            yield Violation.of(ticket, f"{ticket.status} is set by the system, never by the agent", "status")
        elif ticket.status == "pending" and ticket.reason not in PENDING_REASONS:
            yield Violation.of(
                ticket,
                f"pending waits for the customer (awaiting_item, identity_failed), not {ticket.reason}",
                "reason",
            )
        elif ticket.status == "hold" and ticket.reason not in HOLD_REASONS:
            yield Violation.of(
                ticket,
                f"hold waits for a third party or team ({', '.join(HOLD_REASONS)}), not {ticket.reason}",
                "reason",
            )
        elif ticket.status == "solved" and ticket.reason not in (None, *REFUSALS) and not _kept(was, ticket, "reason"):
            yield Violation.of(
                ticket, f"a solved ticket waits for nothing, yet its reason is {ticket.reason}", "reason"
            )


@RULES.rule(
    "RT-88",
    "Priority stays as it was, except every hold: high, urgent for premium customers and safety reports",
    section=TICKET,
    on=(TICKETS,),
)
def priority_changes_only_for_a_hold(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        if ticket.status == "hold":
            wanted = _expected_priority(ev, ticket)
            if ticket.priority != wanted:
                yield Violation.of(ticket, f"a hold for this customer is {wanted}, not {ticket.priority}", "priority")
        elif was is not None and ticket.priority != was.priority:
            yield Violation.of(
                ticket, f"priority {was.priority} is left as it is, not set to {ticket.priority}", "priority"
            )


@RULES.rule(
    "RT-89",
    "Exactly one internal comment on a ticket left pending or on hold; no other comments, never public ones",
    section=TICKET,
    on=(TICKETS, COMMENTS),
)
def only_a_waiting_ticket_gets_one_internal_comment(ev: Evidence) -> Iterator[Violation]:
    for comment in ev.added(COMMENTS):
        if comment.public:
            yield Violation.of(
                comment, "the agent posts no public comments: its replies are what the customer reads", "public"
            )
    for _, ticket in worked_tickets(ev):
        if ticket.status in ("pending", "hold"):
            yield from _one_note(ev, ticket, f"a {ticket.status} ticket")
        elif notes := internal_notes(ev, ticket.key):
            yield Violation.of(notes[0], f"ticket {ticket.key} is left {ticket.status}: add no comment", "body")


def _categories(ev: Evidence) -> list[tuple[set[str], str]]:
    """For each thing the conversation granted: the categories it can belong to, and what it was."""
    by_refund = {
        "late_delivery": {"delivery"},
        "lost_parcel": {"delivery"},
        "returned_to_sender": {"delivery"},
        "damaged": {"damage"},
        "return": {"return"},
        PRICE_PROTECTION: {"pricing"},
        "price_adjustment": {"promotion"},
        "order_cancelled": {"order_change"},
        "installation_cancelled": {"installation"},
    }
    out = [(by_refund.get(r.reason, set()), f"a {r.reason} refund") for r in ev.added("refunds")]
    for order in ev.added("orders"):
        kind = "damage" if order.replacement_reason == "damaged" else "delivery"
        out.append(({kind}, f"a {order.replacement_reason} replacement"))
    for was, order in ev.updated("orders"):
        if was.promo_code != order.promo_code:
            out.append(({"promotion"}, "a promo code"))
        elif any(was[f] != order[f] for f in ("ship_line", "ship_city", "ship_postal_code", "status")):
            out.append(({"order_change"}, "an order change"))
    if ev.changed_rows("returns"):
        out.append(({"return"}, "a return"))
    if ev.added("warranty_claims"):
        out.append(({"warranty", "safety"}, "a warranty claim"))
    if ev.updated("installation_jobs"):
        out.append(({"installation"}, "an installation change"))
    for points in ev.added("points_adjustments"):
        missed = points.order_id and _service_failure(ev, points.order_id) == "a missed installation"
        out.append(({"loyalty", "installation"} if missed else {"loyalty"}, "courtesy points"))
    return out


@RULES.rule(
    "RT-90",
    "The ticket takes the category of the article that decided the request",
    section=TICKET,
    on=(TICKETS,),
    clauses=("RT-90", "RT-91", "RT-92", "RT-93", "RT-94", "RT-95", "RT-96", "RT-97", "RT-98", "RT-99", "RT-100"),
)
def the_ticket_takes_the_category_of_its_matter(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.reason == "safety_risk" or ticket.category is None:
            continue  # RT-55 and RT-4
        if ticket.reason == "awaiting_carrier" and ticket.category != "delivery":
            yield Violation.of(
                ticket, f"a carrier investigation is a delivery matter, not {ticket.category}", "category"
            )
        if ticket.reason is not None:
            continue  # a refusal or a wait: which matter came first is in the customer's words
        granted = _categories(ev)
        if not granted:
            continue
        common = set.intersection(*(c for c, _ in granted))
        # the grants share a category (as grants of one kind do): the ticket must take one of them
        if common and ticket.category not in common:
            what = ", ".join(sorted({w for _, w in granted}))
            yield Violation.of(
                ticket,
                f"the conversation granted {what}: category {' or '.join(sorted(common))}, not {ticket.category}",
                "category",
            )


@RULES.rule(
    "RT-102",
    "The reason is empty only when a request was granted (and made), set for every refusal, hold and pending, "
    "and a wait's reason wins",
    section=TICKET,
    on=(TICKETS,),
    clauses=("RT-102", "RT-103", "RT-104"),
)
def the_reason_says_why_the_ticket_ends_as_it_does(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.status == "solved" and ticket.reason is None and not _granted(ev):
            yield Violation.of(
                ticket,
                "solved with no reason means a request was granted, but the conversation made no refund, replacement, "
                "claim, return, reschedule, cancellation or change",
                "reason",
            )
        elif ticket.status in ("pending", "hold") and ticket.reason is None:
            yield Violation.of(ticket, f"a ticket left {ticket.status} says why (a reason)", "reason")
        why = _unexplained_wait(ev, ticket)
        if why is not None and ticket.reason is not None:
            yield Violation.of(ticket, why, "reason")
        if ticket.reason == "outside_window" and not _a_deadline_passed(ev, ticket.requester_id):
            yield Violation.of(
                ticket,
                "outside_window says a deadline passed, but no order of the customer is more than 14 days old "
                "and no warranty of theirs has expired",
                "reason",
            )


def _a_deadline_passed(ev: Evidence, customer_id: str) -> bool:
    """Whether any deadline the policy sets has passed on the customer's records.

    The promo code's 14 days from the order date is the shortest: an order past the price-protection period or the
    return window is past it too; a warranty's ``expires_on`` is the other kind.
    """
    today = _today(ev)
    if any(days_between(o.placed_at, today) > 14 for o in ev.start.where("orders", customer_id=customer_id)):
        return True
    return any(w.expires_on < today for w in ev.start.where("warranties", customer_id=customer_id))


@RULES.rule(
    "RT-105",
    "Only a hold for another team has a queue: refunds_team, carrier_claims or safety_team by its reason",
    section=TICKET,
    on=(TICKETS,),
)
def only_a_hold_for_a_team_has_its_queue(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        wanted = QUEUE_OF.get(ticket.reason) if ticket.status == "hold" else None
        # update_ticket cannot empty a field: a queue the ticket already had is not the agent's doing
        kept = _kept(was, ticket, "queue") and ticket.status != "hold"
        if ticket.queue != wanted and not kept:
            why = f"a hold for {ticket.reason}" if ticket.status == "hold" else f"a {ticket.status} ticket"
            yield Violation.of(ticket, f"{why} has queue {wanted}, not {ticket.queue}", "queue")


# --- clauses no state or tool call shows -----------------------------------------------------------------------------

RULES.judgement(
    "RT-1",
    "RT-6",
    section=WORKING,
    why="conventions (today's date and how days are counted; amounts in cents) that the rules of the other articles "
    "compute with; on their own they require nothing",
)
RULES.judgement(
    "RT-9",
    section=IDENTITY,
    why="the postal code the person states is in their words, not in any record or tool call",
)
RULES.judgement(
    "RT-54",
    section=SAFETY,
    why="what the customer reports (smoke, sparks, an injury) and telling them to stop using the product are words",
)
RULES.judgement(
    "RT-101",
    section=TICKET,
    why="which matter the customer raised first is only in what they said",
)
