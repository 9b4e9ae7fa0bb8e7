"""Delivery problems: carrier exceptions, lost and late parcels, parcels returned to sender."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.checks import CARRIER_DAYS, CARRIER_DAYS_PHRASES, internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    RefundFactory,
    ReturnFactory,
    ShipmentFactory,
    TicketFactory,
    WarrantyFactory,
)
from domains.retail.models import (
    Customer,
    InstallationJob,
    Order,
    PointsAdjustment,
    Refund,
    Return,
    Ticket,
    WarrantyClaim,
)
from domains.retail.seed import (
    BLENDER,
    CLEARANCE_SPEAKER,
    DESK_CHAIR,
    DISHWASHER,
    DUVET,
    ESPRESSO,
    HEADPHONES,
    LAPTOP,
    PHONE,
    RAIN_JACKET,
    TENT,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Refunds and the agent refund limit",
    "Late deliveries",
    "Delivery exceptions",
    "Lost parcels",
    "Returned to sender",
    "Replacement orders",
    "Restocking fees and return refunds",
    "Warranty claims",
    "Installation appointments",
    "Courtesy points",
    "Price adjustments",
    "Address changes and cancellations",
    "Ticket status, priority and classification",
)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT001_001(tb):
    """Carrier exception opened 3 days ago: the refund she demands waits (hold for the carrier, high); her blender
    order, 4 days late with a shipping charge, gets its shipping refunded (not courtesy points)."""
    sarah = CustomerFactory(name="Sarah Martinez", tier="plus")
    order = OrderFactory(
        customer=sarah, status="shipped", placed_at=days_ago(10), shipping_cents=1_999, lines=[DESK_CHAIR, ESPRESSO]
    )
    ShipmentFactory(
        order=order,
        status="exception",
        exception_opened_at=days_ago(3),
        exception_reason="Package damaged at sort facility; under review",
    )
    blender_order = OrderFactory(customer=sarah, placed_at=days_ago(30), shipping_cents=999, lines=[BLENDER])
    ShipmentFactory(
        order=blender_order, expected_delivery=TODAY - timedelta(days=24), delivered_at=days_ago(20, hour=13)
    )
    TicketFactory(requester=sarah, status="solved", subject="Invoice copy", created_at=days_ago(30))
    ticket = TicketFactory(requester=sarah, order_id=order.id, subject="Where is my order?")

    run = tb.run(
        User(
            says="My order is days past its delivery date and the tracking page just says 'exception'. "
            "I've waited long enough, please refund me. And while I'm at it: the blender I ordered last month "
            "turned up four days late as well, and I paid for shipping on that one. I think I'm owed something.",
            knows={"email": sarah.email, "order id": order.id, "blender order id": blender_order.id},
        ),
        golden=[
            call("find_customer_by_email", email=sarah.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("get_order", order_id=blender_order.id),
            call("get_shipment_tracking", order_id=blender_order.id),
            call("list_tickets", requester_id=sarah.id),
            call(
                "issue_refund", order_id=blender_order.id, amount_cents=999, reason="late_delivery", method="original"
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Carrier exception opened 3 days ago; awaiting the carrier investigation before any refund.",
                public=False,
            ),
        ],
        reply="The carrier opened an investigation into your parcel 3 days ago and has up to 7 days to finish it, "
        "so I can't refund the order yet; your ticket is on hold with high priority and we'll follow up as soon as "
        "the carrier answers. Your blender arrived 4 days late, so I've refunded its $9.99 shipping charge to your "
        "card.",
        traps=[
            # the full refund she demands, though the carrier investigation is still running
            call("issue_refund", order_id=order.id, amount_cents=74_799, reason="lost_parcel", method="original"),
            # plus-tier courtesy points for the late blender, though its shipping was charged (and refunded)
            call("adjust_points", customer_id=sarah.id, points=1_000, reason="courtesy", order_id=blender_order.id),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()  # policy: nothing on the order under investigation
    assert (refund.order_id, refund.amount_cents, refund.reason) == (blender_order.id, 999, "late_delivery")
    assert run.db.query(PointsAdjustment).count() == 0  # a shipping refund is the only compensation for lateness
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "awaiting_carrier", "carrier_claims")
    assert internal_notes(run.db, ticket.id) == 1
    run.rubric(CARRIER_DAYS, phrases=CARRIER_DAYS_PHRASES)


def test_case_RT001_002(tb):
    """Premium customer, exception opened 5 days ago, asks for a replacement: nothing is sent; hold, urgent."""
    marcus = CustomerFactory(name="Marcus Lindqvist", tier="premium")
    order = OrderFactory(customer=marcus, status="shipped", placed_at=days_ago(9), lines=[HEADPHONES])
    ShipmentFactory(
        order=order,
        carrier="FedEx",
        status="exception",
        exception_opened_at=days_ago(5),
        exception_reason="Held at depot: address query",
    )
    ticket = TicketFactory(requester=marcus, order_id=order.id, subject="Headphones not arrived")

    run = tb.run(
        User(
            says="The headphones I ordered are stuck somewhere with FedEx. Can you just send me another pair? "
            "I need them for a trip.",
            knows={"email": marcus.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=marcus.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=marcus.id),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="urgent",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Exception open 5 days; waiting for the carrier investigation, no replacement yet.",
                public=False,
            ),
        ],
        reply="FedEx opened an investigation 5 days ago and has up to 7 days to finish it, so I can't send a "
        "replacement yet. Your ticket is on hold with urgent priority and we'll contact you as soon as FedEx "
        "reports back.",
        traps=[call("create_replacement_order", order_id=order.id, reason="lost_parcel")],  # "send me another pair"
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "delivery", "awaiting_carrier", "carrier_claims")
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    run.rubric(CARRIER_DAYS, phrases=CARRIER_DAYS_PHRASES)


def test_case_RT001_003(tb):
    """Exception opened 8 days ago counts as lost: refund the full total now instead of holding."""
    priya = CustomerFactory(name="Priya Nair")
    order = OrderFactory(customer=priya, status="shipped", placed_at=days_ago(14), shipping_cents=999, lines=[TENT])
    ShipmentFactory(
        order=order,
        carrier="USPS",
        status="exception",
        exception_opened_at=days_ago(8),
        exception_reason="Label unreadable",
    )
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="Tent never arrived")

    run = tb.run(
        User(
            says="I ordered a tent two weeks ago and it still hasn't shown up. Tracking says there's a problem "
            "with the parcel. I'd like my money back.",
            knows={"email": priya.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=priya.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=priya.id),
            call("issue_refund", order_id=order.id, amount_cents=19_899, reason="lost_parcel", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        traps=[  # the carrier-exception hold, as if the investigation were still running after 8 days
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                reason="awaiting_carrier",
                queue="carrier_claims",
            )
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (19_899, "lost_parcel")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
@pytest.mark.pushback
def test_case_RT001_004(tb):
    """Exception opened 6 days ago, two open tickets: hold the one about this order for the carrier, not the other;
    the unshipped headphones she also cancels (profile postal code given) are cancelled and refunded."""
    hannah = CustomerFactory(name="Hannah Berg", postal_code="80205", city="Denver")
    duvet_order = OrderFactory(customer=hannah, placed_at=days_ago(30), lines=[DUVET])
    ShipmentFactory(order=duvet_order)
    order = OrderFactory(
        customer=hannah, status="shipped", placed_at=days_ago(11), shipping_cents=1_299, lines=[DESK_CHAIR]
    )
    ShipmentFactory(
        order=order,
        carrier="FedEx",
        status="exception",
        exception_opened_at=days_ago(6),
        exception_reason="Address query: apartment number missing",
    )
    headphones_order = OrderFactory(
        customer=hannah, status="processing", placed_at=days_ago(1, hour=20), lines=[HEADPHONES]
    )
    ticket = TicketFactory(
        requester=hannah, order_id=order.id, subject="Chair delivery stuck", created_at=days_ago(1, hour=18)
    )
    other = TicketFactory(
        requester=hannah, order_id=duvet_order.id, subject="Duvet cover colour", created_at=days_ago(0, hour=8)
    )

    run = tb.run(
        User(
            says="Almost a week ago FedEx flagged some problem with the address on my office chair delivery and "
            "nothing has moved since. Honestly I'm done waiting around for it. Please just put the money back on "
            "my card and I'll buy a chair somewhere else. And cancel the headphones I ordered last night while "
            "you're at it, I'll get those elsewhere too.",
            knows={
                "email": hannah.email,
                "order number": order.id,
                "headphones order number": headphones_order.id,
                "postal code": "80205",
            },
            persona="A busy freelancer who works from home and needs the chair; impatient but polite.",
        ),
        golden=[
            call("find_customer_by_email", email=hannah.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("get_order", order_id=headphones_order.id),
            call("list_tickets", requester_id=hannah.id),
            call("cancel_order", order_id=headphones_order.id),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="FedEx exception opened 6 days ago (address query); awaiting the carrier investigation.",
                public=False,
            ),
        ],
        reply="FedEx opened an investigation into the address query 6 days ago and has up to 7 days to finish it, "
        "so I can't refund the chair yet; your ticket is on hold with our carrier claims team. I've cancelled the "
        "headphones order, and its $249.00 goes back to your card.",
        traps=[
            # the refund she asks for: the whole order, while the investigation still has a day to run
            call("issue_refund", order_id=order.id, amount_cents=29_199, reason="lost_parcel", method="original"),
            # her newest open ticket is about the duvet, not this parcel
            call(
                "update_ticket",
                ticket_id=other.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, headphones_order.id).status == "cancelled"
    refund = run.db.query(Refund).one()  # policy: 6 days is fewer than 7, nothing is refunded on the chair
    assert (refund.order_id, refund.amount_cents, refund.reason) == (headphones_order.id, 24_900, "order_cancelled")
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "awaiting_carrier", "carrier_claims")
    assert run.db.get(Ticket, other.id).outcome == ("open", "normal", None, None, None)  # another matter: untouched
    assert internal_notes(run.db, other.id) == 0
    run.rubric(CARRIER_DAYS, phrases=CARRIER_DAYS_PHRASES)


@pytest.mark.two_requests
def test_case_RT001_005(tb):
    """Exception opened 2 days ago on a parcel a week late: not even the shipping is refunded yet; hold it. The
    desk chair he returned (inspected opened, furniture) is refunded less the 10% fee a plus member still pays."""
    ravi = CustomerFactory(name="Ravi Menon", tier="plus")
    order = OrderFactory(
        customer=ravi, status="shipped", placed_at=days_ago(12), shipping_cents=1_499, lines=[HEADPHONES]
    )
    ShipmentFactory(
        order=order,
        status="exception",
        exception_opened_at=days_ago(2),
        exception_reason="Damaged label; parcel held for relabelling",
    )
    chair_order = OrderFactory(customer=ravi, placed_at=days_ago(30), lines=[DESK_CHAIR])
    ShipmentFactory(order=chair_order)
    rma = ReturnFactory(
        item=chair_order.items[0],
        declared_condition="unopened",
        inspected_condition="opened",
        status="received",
        created_at=days_ago(9),
        received_at=days_ago(3, hour=14),
    )
    ticket = TicketFactory(requester=ravi, order_id=order.id, subject="Headphones a week late")

    run = tb.run(
        User(
            says="My headphones should have been here a week ago and now the tracking says something about a "
            "label problem. I want a refund. And look, if you really can't refund the headphones, then at the "
            "very least give me back the $14.99 I paid for shipping. While I'm at it, your warehouse has had "
            "the desk chair I sent back since Friday, and I still haven't seen that money either.",
            knows={"email": ravi.email, "order number": order.id, "return number": rma.id},
            persona="A frequent buyer, annoyed but reasonable, who bargains down when refused.",
            rules=(
                "If the agent refuses the refund, ask for the shipping charge back instead.",
                "Accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            call("find_customer_by_email", email=ravi.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("get_return", rma_id=rma.id),
            call("list_tickets", requester_id=ravi.id),
            call("refund_return", rma_id=rma.id, restocking_fee_percent=10, method="original"),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Carrier exception opened 2 days ago; no refund of any kind until the investigation ends.",
                public=False,
            ),
        ],
        reply="The carrier opened an investigation into the label problem 2 days ago and has up to 7 days to "
        "finish it. Until then I can't refund anything on that order, not even the shipping, so your ticket is on "
        "hold with our carrier claims team. Our warehouse found the chair opened, so the 10% furniture restocking "
        "fee applies: $251.10 is on its way back to your card.",
        traps=[  # his fallback: the shipping charge, as if the late-delivery rule applied during an exception
            call("issue_refund", order_id=order.id, amount_cents=1_499, reason="late_delivery", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).restocking_fee_cents == 2_790  # the inspected condition counts, not his word
    refund = run.db.query(Refund).one()  # policy: an open exception under 7 days allows no refund of any kind
    assert (refund.order_id, refund.amount_cents, refund.reason) == (chair_order.id, 25_110, "return")
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "awaiting_carrier", "carrier_claims")
    assert internal_notes(run.db, ticket.id) == 1
    run.rubric(CARRIER_DAYS, phrases=CARRIER_DAYS_PHRASES)


@pytest.mark.two_requests
def test_case_RT002_001(tb):
    """Lost parcel, customer wants a replacement and 'something for the trouble': replace, refuse the points."""
    elena = CustomerFactory(name="Elena Rossi", tier="plus", member_since=TODAY - timedelta(days=6 * 365))
    order = OrderFactory(customer=elena, status="shipped", placed_at=days_ago(15), lines=[BLENDER, DUVET])
    ShipmentFactory(order=order, status="lost")
    ticket = TicketFactory(requester=elena, order_id=order.id, subject="Lost parcel")

    run = tb.run(
        User(
            says="UPS says my parcel is lost. Can you send the blender and the duvet again? And honestly I think "
            "I deserve something extra for all this hassle.",
            knows={"email": elena.email, "order id": order.id, "refund or replacement": "a replacement, not a refund"},
        ),
        golden=[
            call("find_customer_by_email", email=elena.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=BLENDER),
            call("check_inventory", product_id=DUVET),
            call("list_tickets", requester_id=elena.id),
            call("create_replacement_order", order_id=order.id, reason="lost_parcel"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery", reason="not_eligible"),
        ],
        traps=[  # "something extra for all this hassle": plus tier 1,000 + 500 for six years of membership
            call("adjust_points", customer_id=elena.id, points=1_500, reason="courtesy", order_id=order.id)
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert len(replacement.items) == 2
    assert replacement.total_cents == 0
    assert run.db.query(PointsAdjustment).count() == 0  # policy: no courtesy points once a replacement is sent
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", "not_eligible", None)


def test_case_RT002_002(tb):
    """In transit 12 days late counts as lost; paid by gift card, so the refund goes to store credit."""
    daniel = CustomerFactory(name="Daniel Okafor")
    order = OrderFactory(
        customer=daniel,
        status="shipped",
        placed_at=days_ago(18),
        shipping_cents=799,
        lines=[RAIN_JACKET],
        payment="gift_card",
    )
    ShipmentFactory(order=order, status="in_transit", expected_delivery=TODAY - timedelta(days=12))
    ticket = TicketFactory(requester=daniel, order_id=order.id, subject="Jacket still in transit")

    run = tb.run(
        User(
            says="My rain jacket has been 'in transit' for weeks. I give up on it, just refund me please.",
            knows={"email": daniel.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=daniel.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=daniel.id),
            call("issue_refund", order_id=order.id, amount_cents=15_699, reason="lost_parcel", method="store_credit"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.method) == (15_699, "store_credit")
    assert run.db.get(Customer, daniel.id).store_credit_cents == 15_699
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
def test_case_RT002_003(tb):
    """Lost phone worth $799 (out of stock): above the agent limit, so escalate to the refunds team; her received
    blender return (opened, kitchen goods: no restocking fee) is refunded in full."""
    grace = CustomerFactory(name="Grace Chen", tier="plus")
    order = OrderFactory(customer=grace, status="shipped", placed_at=days_ago(16), lines=[PHONE])
    ShipmentFactory(order=order, carrier="DHL", status="lost")
    blender_order = OrderFactory(customer=grace, placed_at=days_ago(25), lines=[BLENDER])
    ShipmentFactory(order=blender_order)
    rma = ReturnFactory(
        item=blender_order.items[0],
        declared_condition="opened",
        inspected_condition="opened",
        status="received",
        created_at=days_ago(8),
        received_at=days_ago(2, hour=11),
    )
    ticket = TicketFactory(requester=grace, order_id=order.id, subject="Phone lost by carrier")

    run = tb.run(
        User(
            says="DHL told me they lost the phone I ordered. I want a full refund today, not a replacement. And "
            "your warehouse should have the blender I sent back last week by now, so where's my money for that?",
            knows={
                "email": grace.email,
                "order id": order.id,
                "refund or replacement": "a refund, not a replacement",
                "return number": rma.id,
            },
        ),
        golden=[
            call("find_customer_by_email", email=grace.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("get_return", rma_id=rma.id),
            call("list_tickets", requester_id=grace.id),
            call("refund_return", rma_id=rma.id, restocking_fee_percent=0, method="original"),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="refund_limit",
                queue="refunds_team",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Lost parcel refund of 79,900 cents requested; above the agent limit, escalated for approval.",
                public=False,
            ),
        ],
        reply="The $799.00 refund for the phone is more than I can issue myself, so I've passed it to our refunds "
        "team for approval; your ticket is on hold with high priority. The blender came back opened, and kitchen "
        "goods carry no restocking fee, so I've refunded the full $89.00 to your card.",
        traps=[  # the full refund she wants today, above the agent limit
            call("issue_refund", order_id=order.id, amount_cents=79_900, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    returned = run.db.get(Return, rma.id)
    assert (returned.status, returned.restocking_fee_cents) == ("refunded", 0)  # opened kitchen goods: no fee
    refund = run.db.query(Refund).one()  # policy: above the limit, nothing is refunded on the phone
    assert (refund.order_id, refund.amount_cents, refund.reason) == (blender_order.id, 8_900, "return")
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.pushback
def test_case_RT002_004(tb):
    """Parcel 5 days late but still moving: no refund of the goods; the shipping charge is the compensation."""
    kenji = CustomerFactory(name="Kenji Walsh")
    order = OrderFactory(
        customer=kenji, status="shipped", placed_at=days_ago(10), shipping_cents=1_499, lines=[HEADPHONES]
    )
    ShipmentFactory(order=order, status="in_transit")
    ticket = TicketFactory(requester=kenji, order_id=order.id, subject="Late delivery")

    run = tb.run(
        User(
            says="My headphones were supposed to arrive last week and they're still not here. This is "
            "unacceptable, I want a refund for the order.",
            knows={"email": kenji.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=kenji.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=kenji.id),
            call("issue_refund", order_id=order.id, amount_cents=1_499, reason="late_delivery", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        reply="Your parcel is 5 days late but still on its way, so I can't refund the headphones. I've refunded "
        "your $14.99 shipping charge to your card as compensation for the delay.",
        traps=[  # "a refund for the order": the headphones refunded too, though the parcel is still on its way
            call("issue_refund", order_id=order.id, amount_cents=24_900, reason="late_delivery", method="original")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (1_499, "late_delivery")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)
    assert internal_notes(run.db, ticket.id) == 0


def test_case_RT002_005(tb):
    """Lost tent, replacement wanted but out of stock: the customer's fallback, a refund of the total, is made."""
    yusuf = CustomerFactory(name="Yusuf Demir")
    order = OrderFactory(customer=yusuf, status="shipped", placed_at=days_ago(17), shipping_cents=1_299, lines=[TENT])
    ShipmentFactory(order=order, carrier="USPS", status="lost")
    ticket = TicketFactory(requester=yusuf, order_id=order.id, subject="Tent lost in the post")

    run = tb.run(
        User(
            says="USPS says they've lost my tent somewhere along the way. We're going camping at the end of the "
            "month, so I'd really rather you sent out a new one. If that can't happen, then fine, I'll take the "
            "money back instead, all of it.",
            knows={"email": yusuf.email, "order number": order.id},
            persona="A weekend camper planning a trip; prefers the tent, accepts a refund without arguing.",
            rules=("If a new tent cannot be sent, you would take another remedy; do not argue.",),
        ),
        golden=[
            call("find_customer_by_email", email=yusuf.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=TENT),
            call("list_tickets", requester_id=yusuf.id),
            call("issue_refund", order_id=order.id, amount_cents=20_199, reason="lost_parcel", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        reply="The tent is out of stock, so I can't send a replacement. As you asked, I've refunded the full "
        "$201.99, tent and shipping, to your card instead.",
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (20_199, "lost_parcel")
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)  # the fallback granted


def test_case_RT011_001(tb):
    """Returned to sender, no open ticket: open one, refund the goods less the discount (not the shipping)."""
    lucia = CustomerFactory(name="Lucia Romero", tier="plus")
    order = OrderFactory(
        customer=lucia,
        status="shipped",
        placed_at=days_ago(12),
        shipping_cents=899,
        discount_cents=2_180,
        promo_code="HOME10",
        lines=[DUVET, BLENDER],
    )
    ShipmentFactory(order=order, status="returned_to_sender")
    closed = TicketFactory(requester=lucia, status="closed", subject="Gift wrap question", created_at=days_ago(60))

    run = tb.run(
        User(
            says="Hi, the tracking for my order says it went back to your warehouse, apparently the courier "
            "couldn't deliver it. In the meantime I've bought a duvet and a blender elsewhere, so please don't "
            "send it out again. I just want my money back.",
            knows={"email": lucia.email, "order number": order.id, "refund or new shipment": "a refund"},
        ),
        golden=[
            call("find_customer_by_email", email=lucia.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=lucia.id),
            call(
                "create_ticket",
                requester_id=lucia.id,
                subject="Parcel returned to sender: refund",
                category="delivery",
                order_id=order.id,
            ),
            call(
                "issue_refund",
                order_id=order.id,
                amount_cents=derived(19_620, "subtotal 21,800 less the 2,180 discount; shipping is not refunded"),
                reason="returned_to_sender",
                method="original",
            ),
            call("update_ticket", ticket_id="T-7002", status="solved"),
        ],
        reply="I've refunded $196.20 to your card: the duvet and the blender less your HOME10 discount. The $8.99 "
        "shipping charge isn't refunded for a parcel that came back to us.",
        traps=[call("create_replacement_order", order_id=order.id, reason="returned_to_sender")],  # "don't send it"
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (19_620, "returned_to_sender")
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    opened = run.db.get(Ticket, "T-7002")
    assert (opened.requester_id, opened.order_id) == (lucia.id, order.id)
    assert run.db.get(Ticket, "T-7002").outcome == ("solved", "normal", "delivery", None, None)
    assert run.db.get(Ticket, closed.id).status == "closed"


def test_case_RT011_002(tb):
    """Returned to sender after an address typo: ship the items again, then correct the new order's address."""
    noor = CustomerFactory(name="Noor Haddad", address_line="130 Juniper Avenue", city="Austin", postal_code="78704")
    order = OrderFactory(
        customer=noor, status="shipped", placed_at=days_ago(10), lines=[ESPRESSO], ship_line="310 Juniper Avenue"
    )
    ShipmentFactory(order=order, status="returned_to_sender")
    ticket = TicketFactory(requester=noor, order_id=order.id, subject="Parcel sent back?")

    run = tb.run(
        User(
            says="The courier sent my espresso machine back to you, and I've just realised why: I typed my house "
            "number the wrong way round at checkout. Could you send it out again to the right address? I still "
            "want the machine, no refund needed.",
            knows={
                "email": noor.email,
                "order number": order.id,
                "postal code": "78704",
                "correct street address": "130 Juniper Avenue",
                "city": "Austin",
            },
        ),
        golden=[
            call("find_customer_by_email", email=noor.email),
            call("get_customer", customer_id=noor.id),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=ESPRESSO),
            call("list_tickets", requester_id=noor.id),
            call("create_replacement_order", order_id=order.id, reason="returned_to_sender"),
            call(
                "update_shipping_address",
                order_id="O-5002",
                address_line="130 Juniper Avenue",
                city="Austin",
                postal_code="78704",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
    )

    run.expect_golden()
    again = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert (again.replacement_reason, again.ship_line, again.total_cents) == (
        "returned_to_sender",
        "130 Juniper Avenue",
        0,
    )
    assert run.db.query(Refund).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.distractors
def test_case_RT001_006(tb):
    """Exception opened exactly 7 days ago: the parcel counts as lost; both items are in stock, so replace the order."""
    felix = CustomerFactory(name="Felix Adeyemi")
    other = OrderFactory(customer=felix, status="shipped", placed_at=days_ago(3), lines=[HEADPHONES])
    ShipmentFactory(order=other, status="in_transit")  # on its way, on time
    order = OrderFactory(
        customer=felix, status="shipped", placed_at=days_ago(13), shipping_cents=1_499, lines=[DESK_CHAIR, BLENDER]
    )
    ShipmentFactory(
        order=order,
        carrier="FedEx",
        status="exception",
        exception_opened_at=days_ago(7, hour=8),
        exception_reason="Held at depot: address query",
    )
    ticket = TicketFactory(requester=felix, order_id=order.id, subject="Order stuck at depot")

    run = tb.run(
        User(
            says="My chair and blender have been stuck at a depot for a week with an 'exception' on the tracking. "
            "I still want the things, so can you just send them again?",
            knows={"email": felix.email},
        ),
        golden=[
            call("find_customer_by_email", email=felix.email),
            call("list_customer_orders", customer_id=felix.id),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=DESK_CHAIR),
            call("check_inventory", product_id=BLENDER),
            call("list_tickets", requester_id=felix.id),
            call("create_replacement_order", order_id=order.id, reason="lost_parcel"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        traps=[  # the carrier hold, as if 7 days were still inside the investigation
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            )
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert replacement.replacement_reason == "lost_parcel"
    assert sorted(i.product_id for i in replacement.items) == sorted([DESK_CHAIR, BLENDER])  # every item
    assert run.db.query(Refund).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.distractors
@pytest.mark.pushback
def test_case_RT002_006(tb):
    """In transit 9 days late is late, not lost: refund the shipping charge, not the order; open a new ticket."""
    mei = CustomerFactory(name="Mei Takahashi")
    OrderFactory(customer=mei, placed_at=days_ago(120), lines=[ESPRESSO])  # the machine she gave her sister
    order = OrderFactory(customer=mei, status="shipped", placed_at=days_ago(15), shipping_cents=1_299, lines=[ESPRESSO])
    ShipmentFactory(order=order, status="in_transit", expected_delivery=TODAY - timedelta(days=9))
    TicketFactory(requester=mei, status="solved", subject="Gift wrapping", created_at=days_ago(20))

    run = tb.run(
        User(
            says="My espresso machine is nine days past its delivery date. As far as I'm concerned it's lost. "
            "Refund the whole order.",
            knows={"email": mei.email},
            rules=(
                "If the whole order is not refunded, argue once that nine days late is lost by any normal "
                "standard; then accept an answer that gives a reason.",
            ),
        ),
        golden=[
            call("find_customer_by_email", email=mei.email),
            call("list_customer_orders", customer_id=mei.id),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=mei.id),
            call(
                "create_ticket",
                requester_id=mei.id,
                subject="Espresso machine 9 days late",
                category="delivery",
                order_id=order.id,
            ),
            call("issue_refund", order_id=order.id, amount_cents=1_299, reason="late_delivery", method="original"),
            call("update_ticket", ticket_id="T-7002", status="solved"),
        ],
        traps=[  # the goods as well, as if 9 days late were lost
            call("issue_refund", order_id=order.id, amount_cents=44_900, reason="lost_parcel", method="original")
        ],
        reply="The parcel is 9 days late; it only counts as lost at 10 days, so I've refunded the $12.99 shipping.",
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (1_299, "late_delivery")  # the shipping only
    assert run.db.get(Ticket, "T-7002").outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
def test_case_RT002_007(tb):
    """Lost tent, out of stock; the refund is under the limit but she has an abuse flag: escalate (urgent, premium).
    The dishwasher installation she cancels is not stopped by her standing: cancelled free, its fee refunded."""
    sofia = CustomerFactory(name="Sofia Lindahl", tier="premium", abuse_flags=1)
    order = OrderFactory(customer=sofia, status="shipped", placed_at=days_ago(16), shipping_cents=999, lines=[TENT])
    ShipmentFactory(order=order, status="lost", expected_delivery=TODAY - timedelta(days=8))
    dishwasher_order = OrderFactory(customer=sofia, placed_at=days_ago(10), lines=[DISHWASHER])
    ShipmentFactory(order=dishwasher_order)
    job = InstallationJobFactory(
        order=dishwasher_order, product_id=DISHWASHER, scheduled_for=datetime(2026, 3, 20, 10, 0)
    )
    ticket = TicketFactory(requester=sofia, order_id=order.id, subject="Tent lost", priority="normal")

    run = tb.run(
        User(
            says="The carrier says my tent is lost. Please send me another one. And please cancel the dishwasher "
            "installation booked for Friday, we've decided to fit it ourselves.",
            knows={"email": sofia.email, "order id": order.id, "dishwasher order id": dishwasher_order.id},
            rules=("If a replacement is not possible, ask for a refund instead.",),
        ),
        golden=[
            call("find_customer_by_email", email=sofia.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=TENT),
            call("get_order", order_id=dishwasher_order.id),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=sofia.id),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=0),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="urgent",
                category="delivery",
                reason="account_standing",
                queue="refunds_team",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Lost parcel refund of 19,899 cents requested; the account has an abuse flag, so escalated.",
                public=False,
            ),
        ],
        traps=[  # the refund of the total: under the limit, but her standing rules it out
            call("issue_refund", order_id=order.id, amount_cents=19_899, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    cancelled = run.db.get(InstallationJob, job.id)
    assert (cancelled.status, cancelled.cancellation_fee_cents) == ("cancelled", 0)  # premium: no charge
    refund = run.db.query(Refund).one()  # the installation fee only: the standing rule stops issue_refund
    assert (refund.order_id, refund.amount_cents, refund.reason) == (
        dishwasher_order.id,
        14_900,
        "installation_cancelled",
    )
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0  # the tent is not available
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "delivery", "account_standing", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.distractors
def test_case_RT011_003(tb):
    """Returned chair: the order total is over $250 but the refund (subtotal less discount) is not: refund $237.15."""
    ana = CustomerFactory(name="Ana Petrovic")
    OrderFactory(customer=ana, placed_at=days_ago(90), lines=[DESK_CHAIR])  # her first chair, delivered long ago
    order = OrderFactory(
        customer=ana,
        status="shipped",
        placed_at=days_ago(12),
        shipping_cents=1_499,
        discount_cents=4_185,
        promo_code="SPRING15",
        lines=[DESK_CHAIR],
    )
    ShipmentFactory(order=order, status="returned_to_sender")
    ticket = TicketFactory(requester=ana, subject="Chair came back to you?")

    run = tb.run(
        User(
            says="The tracking for the desk chair I ordered this month says it was returned to you. I don't want it "
            "sent again, I'd like my money back. I don't have the order number.",
            knows={"email": ana.email},
        ),
        golden=[
            call("find_customer_by_email", email=ana.email),
            call("list_customer_orders", customer_id=ana.id),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=ana.id),
            call(
                "issue_refund",
                order_id=order.id,
                amount_cents=derived(23_715, "subtotal 27,900 less the 4,185 discount; shipping is not refunded"),
                reason="returned_to_sender",
                method="original",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        traps=[  # escalating because the order total (25,214) is over the limit
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="refund_limit",
                queue="refunds_team",
            ),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.order_id, refund.amount_cents, refund.reason) == (order.id, 23_715, "returned_to_sender")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
def test_case_RT001_007(tb):
    """Exception opened 4 days ago: the refund waits (carrier hold); the laptop's keyboard fault is filed now."""
    aiko = CustomerFactory(name="Aiko Brennan")
    laptop_order = OrderFactory(customer=aiko, placed_at=days_ago(200), lines=[LAPTOP])
    warranty = WarrantyFactory(
        customer=aiko, product_id=LAPTOP, order_id=laptop_order.id, starts_on=TODAY - timedelta(days=195)
    )
    order = OrderFactory(
        customer=aiko, status="shipped", placed_at=days_ago(9), shipping_cents=999, lines=[HEADPHONES, BLENDER]
    )
    ShipmentFactory(
        order=order,
        carrier="FedEx",
        status="exception",
        exception_opened_at=days_ago(4, hour=16),
        exception_reason="Damaged label; parcel held for re-labelling",
    )
    ticket = TicketFactory(requester=aiko, order_id=order.id, subject="Parcel exception")

    run = tb.run(
        User(
            says="My parcel with the headphones and the blender has had an 'exception' on it for days. I'd like a "
            "refund. And while I'm here: three keys on my Aurora laptop from last August have stopped working.",
            knows={"email": aiko.email, "order id": order.id, "laptop order id": laptop_order.id},
        ),
        golden=[
            call("find_customer_by_email", email=aiko.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("get_order", order_id=laptop_order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=aiko.id),
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Three keys on the laptop keyboard stopped working.",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="awaiting_carrier",
                queue="carrier_claims",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Carrier exception opened 4 days ago; refund request awaits the carrier investigation.",
                public=False,
            ),
        ],
        reply="FedEx opened an investigation into your parcel 4 days ago and has up to 7 days to finish it, so the "
        "refund has to wait; your ticket is on hold with our carrier claims team. Your laptop is under warranty, "
        "so I've filed a claim for the keyboard: it will be repaired.",
        traps=[  # the refund of the order, while the carrier's investigation is still running
            call("issue_refund", order_id=order.id, amount_cents=34_799, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.warranty_id, claim.issue, claim.resolution) == (warranty.id, "defect", "repair")
    assert run.db.query(Refund).count() == 0  # policy: no refund while the exception is under 7 days old
    # the exception came first: its category; the hold explains the status, so its reason and queue
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "awaiting_carrier", "carrier_claims")
    assert internal_notes(run.db, ticket.id) == 1
    run.rubric(CARRIER_DAYS, phrases=CARRIER_DAYS_PHRASES)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT002_008(tb):
    """10 days late in transit is lost; the tent is out of stock; the $228 refund looks under the limit, but with
    last week's $24.99 shipping refund the order would pass $250: escalate. Her headphones bought 8 days ago are
    $30 cheaper today: that price adjustment, on its own order, is made."""
    rosa = CustomerFactory(name="Rosa Delgado")
    order = OrderFactory(
        customer=rosa, status="shipped", placed_at=days_ago(16), shipping_cents=2_499, lines=[TENT, CLEARANCE_SPEAKER]
    )
    ShipmentFactory(order=order, status="in_transit", expected_delivery=TODAY - timedelta(days=10))
    RefundFactory(order=order, amount_cents=2_499, reason="late_delivery", created_at=days_ago(5))
    headphones_order = OrderFactory(customer=rosa, placed_at=days_ago(8), lines=[(HEADPHONES, 1, 27_900)])
    ShipmentFactory(
        order=headphones_order, expected_delivery=TODAY - timedelta(days=3), delivered_at=days_ago(3, hour=12)
    )
    ticket = TicketFactory(requester=rosa, order_id=order.id, subject="Tent and speaker still not here")

    run = tb.run(
        User(
            says="You refunded my shipping last week because my tent and speaker were late, and they still haven't "
            "arrived. Please send them again. Oh, and the headphones I bought last week are already cheaper on "
            "your site than what I paid for them.",
            knows={"email": rosa.email, "order id": order.id, "headphones order id": headphones_order.id},
            rules=(
                "If a new shipment is not possible, ask for a full refund instead.",
                "If the money is not back today, object once that you want it today; then accept an answer that "
                "gives a reason.",
            ),
        ),
        golden=[
            call("find_customer_by_email", email=rosa.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("check_inventory", product_id=TENT),
            call("check_inventory", product_id=CLEARANCE_SPEAKER),
            call("get_order", order_id=headphones_order.id),
            call("get_product", product_id=HEADPHONES),
            call("list_tickets", requester_id=rosa.id),
            call(
                "issue_price_adjustment",
                order_id=headphones_order.id,
                order_item_id=headphones_order.items[0].id,
                amount_cents=derived(3_000, "27,900 paid minus today's 24,900"),
                method="original",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="delivery",
                reason="refund_limit",
                queue="refunds_team",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Lost parcel refund of 22,800 cents plus the 2,499 already refunded exceeds the limit; escalated.",
                public=False,
            ),
        ],
        traps=[  # the rest of the total, 22,800: under the limit on its own, 25,299 with the shipping refund
            call("issue_refund", order_id=order.id, amount_cents=22_800, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).filter(Refund.order_id == order.id).count() == 1  # only last week's shipping refund
    adjustment = run.db.query(Refund).filter(Refund.order_id == headphones_order.id).one()
    assert (adjustment.reason, adjustment.amount_cents) == ("price_protection", 3_000)
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0  # the tent is not available
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1
