"""Delivery problems: carrier exceptions, lost parcels and late parcels."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    OrderFactory,
    ShipmentFactory,
    TicketFactory,
)
from domains.retail.models import (
    Customer,
    Order,
    PointsAdjustment,
    Refund,
    Ticket,
    TicketComment,
)
from domains.retail.seed import (
    BLENDER,
    DESK_CHAIR,
    DUVET,
    ESPRESSO,
    HEADPHONES,
    PHONE,
    RAIN_JACKET,
    TENT,
)
from pytest_thinkingbox import User, call


def test_case_RT001_001(tb):
    """Carrier exception opened 3 days ago: the refund the customer demands must wait; ticket on hold, high."""
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
    TicketFactory(requester=sarah, status="solved", subject="Invoice copy", created_at=days_ago(30))
    ticket = TicketFactory(requester=sarah, order_id=order.id, subject="Where is my order?")

    run = tb.run(
        User(
            says="My order is days past its delivery date and the tracking page just says 'exception'. "
            "I've waited long enough, please refund me.",
            knows={"email": sarah.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=sarah.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=sarah.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Carrier exception opened 3 days ago; awaiting the carrier investigation before any refund.",
                public=False,
            ),
        ],
        reply="The carrier opened an investigation into your parcel 3 days ago, so I can't refund it yet. "
        "I've put your ticket on hold with high priority and we'll follow up as soon as the carrier answers.",
        traps=[  # the full refund she demands, though the carrier investigation is still running
            call("issue_refund", order_id=order.id, amount_cents=74_799, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    held = run.db.get(Ticket, ticket.id)
    assert (held.status, held.priority) == ("hold", "high")
    assert run.db.query(Refund).count() == 0  # policy: no refund while an exception is open fewer than 7 days
    run.rubric(
        "Did the agent explain that the refund waits for the carrier's investigation?",
        phrases=["investigation", "investigating"],
    )


def test_case_RT001_002(tb):
    """Premium customer, exception opened 5 days ago, asks for a replacement: nothing is sent; hold with urgent."""
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
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="urgent"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Exception open 5 days; waiting for the carrier investigation, no replacement yet.",
                public=False,
            ),
        ],
        reply="FedEx is investigating the hold-up, so I can't send a replacement yet. Your ticket is on hold "
        "with urgent priority and we'll contact you as soon as FedEx reports back.",
        traps=[call("create_replacement_order", order_id=order.id, reason="lost_parcel")],  # "send me another pair"
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).priority == "urgent"
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    run.rubric(
        "Did the agent promise to send a replacement now?",
        phrases=["sending a replacement", "ship a new pair"],
        expect="no",
    )


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
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (19_899, "lost_parcel")
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_RT002_001(tb):
    """Lost parcel, customer wants a replacement and 'something for the trouble': replace, but no courtesy points."""
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
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "something extra for all this hassle": plus tier 1,000 + 500 for six years of membership
            call("adjust_points", customer_id=elena.id, points=1_500, reason="courtesy", order_id=order.id)
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert len(replacement.items) == 2 and replacement.total_cents == 0
    assert run.db.query(PointsAdjustment).count() == 0  # policy: no courtesy points once a replacement is sent


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
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.method) == (15_699, "store_credit")
    assert run.db.get(Customer, daniel.id).store_credit_cents == 15_699


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the $799 lost-parcel refund is above the $250 agent limit and the phone is out of stock, so the "
        "policy's answer is to escalate: hold with high priority (plus member) and one internal note, no refund"
    }
)
def test_case_RT002_003(tb):
    """Lost phone worth $799 (out of stock): the refund is above the agent limit, so escalate instead of refunding."""
    grace = CustomerFactory(name="Grace Chen", tier="plus")
    order = OrderFactory(customer=grace, status="shipped", placed_at=days_ago(16), lines=[PHONE])
    ShipmentFactory(order=order, carrier="DHL", status="lost")
    ticket = TicketFactory(requester=grace, order_id=order.id, subject="Phone lost by carrier")

    run = tb.run(
        User(
            says="DHL told me they lost the phone I ordered. I want a full refund today, not a replacement.",
            knows={"email": grace.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=grace.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=grace.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Lost parcel refund of 79,900 cents requested; above the agent limit, escalated for approval.",
                public=False,
            ),
        ],
        traps=[  # the full refund she wants today, above the agent limit
            call("issue_refund", order_id=order.id, amount_cents=79_900, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 0  # policy: above the limit, escalate and refund nothing
    assert run.db.get(Ticket, ticket.id).status == "hold"


def test_case_RT002_004(tb):
    """Parcel 5 days late but still moving: no refund of the goods, only the shipping charge."""
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
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "a refund for the order": the headphones refunded too, though the parcel is still on its way
            call("issue_refund", order_id=order.id, amount_cents=24_900, reason="late_delivery", method="original")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (1_499, "late_delivery")
    assert run.db.query(TicketComment).count() == 0
