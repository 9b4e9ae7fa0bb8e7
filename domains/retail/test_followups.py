"""Follow-ups: problems with replacement orders, and conversations that bring several matters at once."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.checks import internal_notes
from domains.retail.clock import TODAY, days_ago, in_days
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
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
    DESK_CHAIR,
    DISHWASHER,
    DUVET,
    ESPRESSO,
    HEADPHONES,
    HEATER,
    LAPTOP,
    SOFA,
    TENT,
    TV,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Refunds and the agent refund limit",
    "Late deliveries",
    "Lost parcels",
    "Damaged on arrival",
    "Replacement orders",
    "Restocking fees and return refunds",
    "Installation appointments",
    "Warranty claims",
    "Courtesy points",
    "Promo codes after purchase",
    "Price adjustments",
    "Address changes and cancellations",
    "Ticket status, priority and classification",
)


def _replacement(original, lines, *, reason, placed_days_ago):
    """The free replacement order sent for `original` (no payment of its own)."""
    return OrderFactory(
        customer=original.customer,
        status="shipped",
        placed_at=days_ago(placed_days_ago),
        lines=[(product, quantity, 0) for product, quantity in lines],
        payment=False,
        replacement_for=original.id,
        replacement_reason=reason,
    )


# --------------------------------------------------------------------------- replacement follow-ups


@pytest.mark.pushback
def test_case_RT014_001(tb):
    """The replacement for a lost parcel is itself 11 days late (lost): no second replacement; refund the items."""
    elena = CustomerFactory(name="Elena Marchetti")
    original = OrderFactory(
        customer=elena, status="shipped", placed_at=days_ago(30), shipping_cents=999, lines=[BLENDER, HEATER]
    )
    ShipmentFactory(order=original, status="lost", shipped_at=days_ago(29), expected_delivery=TODAY - timedelta(25))
    replacement = _replacement(original, [(BLENDER, 1), (HEATER, 1)], reason="lost_parcel", placed_days_ago=17)
    ShipmentFactory(
        order=replacement, status="in_transit", shipped_at=days_ago(16), expected_delivery=TODAY - timedelta(11)
    )
    ticket = TicketFactory(requester=elena, order_id=replacement.id, subject="Replacement never arrived")

    run = tb.run(
        User(
            says="You sent me a replacement blender and heater after the first parcel went missing, and now the "
            "replacement hasn't turned up either, it's over a week late. Please send them again.",
            knows={"email": elena.email, "order id": replacement.id},
            rules=(
                "If another replacement is refused, object once; you would take another remedy if a replacement is "
                "not possible.",
            ),
        ),
        golden=[
            call("find_customer_by_email", email=elena.email),
            call("get_order", order_id=replacement.id),
            call("get_shipment_tracking", order_id=replacement.id),
            call("get_order", order_id=original.id),
            call("list_tickets", requester_id=elena.id),
            call(
                "issue_refund",
                order_id=original.id,
                amount_cents=derived(15_800, "blender 8,900 plus heater 6,900 on the original order, no shipping"),
                reason="lost_parcel",
                method="original",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        traps=[  # a replacement of the replacement, as she asks
            call("create_replacement_order", order_id=replacement.id, reason="lost_parcel")
        ],
    )

    run.expect_golden()
    assert run.db.query(Order).filter(Order.replacement_for == replacement.id).count() == 0  # never replaced again
    refund = run.db.query(Refund).one()
    assert (refund.order_id, refund.amount_cents, refund.reason) == (original.id, 15_800, "lost_parcel")
    # the refund was her fallback once the replacement was refused: a granted request, no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT014_002(tb):
    """Replacement espresso machine arrived damaged too: its $449 refund on the original order is over the limit, so
    escalate; tomorrow's dishwasher installation moves 29 hours ahead, so a plus member pays the $35 fee."""
    ravi = CustomerFactory(name="Ravi Santos", tier="plus")
    original = OrderFactory(customer=ravi, placed_at=days_ago(15), lines=[ESPRESSO])
    ShipmentFactory(order=original, delivered_at=days_ago(11, hour=12))
    replacement = _replacement(original, [(ESPRESSO, 1)], reason="damaged", placed_days_ago=9)
    replacement.status = "delivered"
    ShipmentFactory(order=replacement, shipped_at=days_ago(8), delivered_at=days_ago(2, hour=11))
    dishwasher_order = OrderFactory(customer=ravi, placed_at=days_ago(12), lines=[DISHWASHER])
    ShipmentFactory(order=dishwasher_order)  # delivered a week ago, on time
    job = InstallationJobFactory(
        order=dishwasher_order, product_id=DISHWASHER, scheduled_for=datetime(2026, 3, 17, 14, 0)
    )
    ticket = TicketFactory(requester=ravi, order_id=replacement.id, subject="Replacement damaged again")

    run = tb.run(
        User(
            says="Unbelievable. The replacement espresso machine you sent arrived on Saturday with the drip tray "
            "cracked, just like the first one. Send me another one that isn't broken. And I can't be home tomorrow "
            "for the dishwasher installation, so please move it to next Monday morning.",
            knows={
                "email": ravi.email,
                "order id": replacement.id,
                "installation job": job.id,
                "new time": "Monday 23 March 2026 at 10:00",
            },
            rules=("If another replacement is refused, ask for your money back instead.",),
        ),
        golden=[
            call("find_customer_by_email", email=ravi.email),
            call("get_order", order_id=replacement.id),
            call("get_order", order_id=original.id),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=ravi.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived("2026-03-23T10:00", "the time he gives, Monday 23 March 2026 at 10:00, in ISO"),
                fee_cents=3_500,
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="damage",
                reason="refund_limit",
                queue="refunds_team",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Replacement arrived damaged; refund of 44,900 cents on the original order exceeds the limit.",
                public=False,
            ),
        ],
        traps=[  # a second replacement, or the full refund above the agent limit
            call("create_replacement_order", order_id=replacement.id, reason="damaged"),
            call("issue_refund", order_id=original.id, amount_cents=44_900, reason="damaged", method="original"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 0
    assert run.db.query(Order).filter(Order.replacement_for == replacement.id).count() == 0
    moved = run.db.get(InstallationJob, job.id)
    # 29 hours ahead: plus members pay the late fee (only premium members are exempt)
    assert (moved.scheduled_for, moved.reschedule_count, moved.reschedule_fees_cents) == (
        datetime(2026, 3, 23, 10, 0),
        1,
        3_500,
    )
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "damage", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.distractors
def test_case_RT014_003(tb):
    """A second damaged item on an order that already had its one replacement: refund the blender, do not replace."""
    nadia = CustomerFactory(name="Nadia Kovacs")
    original = OrderFactory(customer=nadia, placed_at=days_ago(9), lines=[ESPRESSO, BLENDER])
    ShipmentFactory(order=original, delivered_at=days_ago(6, hour=13))
    _replacement(original, [(ESPRESSO, 1)], reason="damaged", placed_days_ago=5)
    OrderFactory(customer=nadia, placed_at=days_ago(60), lines=[BLENDER])  # an older blender, long delivered
    ticket = TicketFactory(requester=nadia, order_id=original.id, subject="Blender jug cracked")

    run = tb.run(
        User(
            says="I finally unpacked the blender from the same order as the espresso machine you already replaced, "
            "and its jug is cracked. Can you send me a new blender?",
            knows={"email": nadia.email, "order id": original.id},
            rules=("If a new blender cannot be sent, you would take another remedy; do not argue.",),
        ),
        golden=[
            call("find_customer_by_email", email=nadia.email),
            call("get_order", order_id=original.id),
            call("list_customer_orders", customer_id=nadia.id),
            call("list_tickets", requester_id=nadia.id),
            call("issue_refund", order_id=original.id, amount_cents=8_900, reason="damaged", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="damage"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.order_id, refund.amount_cents, refund.reason) == (original.id, 8_900, "damaged")
    assert run.db.query(Order).filter(Order.replacement_for == original.id).count() == 1  # still only the one
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)


# --------------------------------------------------------------------------- several matters at once


@pytest.mark.two_requests
def test_case_RT015_001(tb):
    """Damaged headphones refunded ($249) first; the late-shipping refund would then pass $250, so it is escalated."""
    lucia = CustomerFactory(name="Lucia Bergström")
    order = OrderFactory(customer=lucia, placed_at=days_ago(12), shipping_cents=1_499, lines=[HEADPHONES])
    ShipmentFactory(order=order, expected_delivery=TODAY - timedelta(6), delivered_at=days_ago(2, hour=15))
    ticket = TicketFactory(requester=lucia, order_id=order.id, subject="Broken and late")

    run = tb.run(
        User(
            says="My headphones arrived on Saturday with the headband snapped, so I'd like my money back for them. "
            "And since they came four days late, I want the shipping refunded as well.",
            knows={"email": lucia.email, "order id": order.id, "refund or replacement": "a refund"},
        ),
        golden=[
            call("find_customer_by_email", email=lucia.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=lucia.id),
            call("issue_refund", order_id=order.id, amount_cents=24_900, reason="damaged", method="original"),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="damage",
                reason="refund_limit",
                queue="refunds_team",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Late-delivery shipping refund of 1,499 cents would take the order to 26,399 with the "
                "24,900 damage refund; escalated.",
                public=False,
            ),
        ],
        traps=[  # the shipping refund on top, past the $250 the agent may refund on one order
            call("issue_refund", order_id=order.id, amount_cents=1_499, reason="late_delivery", method="original")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (24_900, "damaged")
    # the first matter (the damage) gives the category; the escalated second one the hold, reason and queue
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "damage", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT015_002(tb):
    """Missed dishwasher install rebooked free with 1,000 courtesy points; the late duvet then gets no second award."""
    omar = CustomerFactory(name="Omar Whitaker", tier="plus")
    install_order = OrderFactory(customer=omar, placed_at=days_ago(14), lines=[DISHWASHER])
    ShipmentFactory(order=install_order, delivered_at=days_ago(8, hour=12))
    job = InstallationJobFactory(
        order=install_order, product_id=DISHWASHER, scheduled_for=days_ago(2, hour=9), status="missed"
    )
    duvet_order = OrderFactory(customer=omar, placed_at=days_ago(10), lines=[DUVET])
    ShipmentFactory(order=duvet_order, expected_delivery=TODAY - timedelta(6), delivered_at=days_ago(2, hour=16))
    ticket = TicketFactory(requester=omar, order_id=install_order.id, subject="Technician no-show")

    run = tb.run(
        User(
            says="Your technician never showed up on Saturday to install my dishwasher. I took the day off for it. "
            "I need a new appointment and some compensation. And while I'm at it, my duvet order arrived four days "
            "late too, so I want something for that as well.",
            knows={
                "email": omar.email,
                "dishwasher order number": install_order.id,
                "duvet order number": duvet_order.id,
                "new appointment": "Thursday 19 March 2026 at 10:00",
            },
        ),
        golden=[
            call("find_customer_by_email", email=omar.email),
            call("get_customer", customer_id=omar.id),
            call("get_order", order_id=install_order.id),
            call("get_installation_job", job_id=job.id),
            call("get_order", order_id=duvet_order.id),
            call("list_tickets", requester_id=omar.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived("2026-03-19T10:00", "the slot he gives, Thursday 19 March 2026 10:00, in ISO form"),
                fee_cents=0,
            ),
            call("adjust_points", customer_id=omar.id, points=1_000, reason="courtesy", order_id=install_order.id),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="installation", reason="not_eligible"),
        ],
        traps=[  # a second courtesy award, for the duvet, on the same day as the first
            call("adjust_points", customer_id=omar.id, points=1_000, reason="courtesy", order_id=duvet_order.id)
        ],
    )

    run.expect_golden()
    rebooked = run.db.get(InstallationJob, job.id)
    assert (rebooked.status, rebooked.reschedule_count, rebooked.reschedule_fees_cents) == ("scheduled", 0, 0)
    (award,) = run.db.query(PointsAdjustment).all()
    assert (award.points, award.order_id) == (1_000, install_order.id)  # one award per 90 days
    assert run.db.get(Customer, omar.id).points_balance == 1_200 + 1_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", "not_eligible", None)


@pytest.mark.two_requests
def test_case_RT015_003(tb):
    """Returned tent (opened, outdoor: no fee) refunded in full, and SPRING15 applied to her new 3-day-old order."""
    ines = CustomerFactory(name="Ines Moreau")
    tent_order = OrderFactory(customer=ines, placed_at=days_ago(25), lines=[TENT])
    ShipmentFactory(order=tent_order, delivered_at=days_ago(20, hour=12))
    rma = ReturnFactory(
        item=tent_order.items[0],
        declared_condition="opened",
        inspected_condition="opened",
        status="received",
        created_at=days_ago(8),
        received_at=days_ago(1, hour=11),
    )
    new_order = OrderFactory(customer=ines, status="shipped", placed_at=days_ago(3), lines=[DESK_CHAIR])
    ShipmentFactory(order=new_order, status="in_transit")
    ticket = TicketFactory(requester=ines, order_id=tent_order.id, subject="Tent refund")

    run = tb.run(
        User(
            says="Two things. You've received the tent I sent back, it was only pitched once in the garden, so I "
            "expect the full price back. And I forgot the SPRING15 code on the desk chair I ordered on Friday.",
            knows={"email": ines.email, "return number": rma.id, "chair order number": new_order.id},
        ),
        golden=[
            call("find_customer_by_email", email=ines.email),
            call("get_return", rma_id=rma.id),
            call("get_order", order_id=new_order.id),
            call("get_promotion", code="SPRING15"),
            call("list_tickets", requester_id=ines.id),
            call("refund_return", rma_id=rma.id, restocking_fee_percent=0, method="original"),
            call("apply_promo_code", order_id=new_order.id, code="SPRING15"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="return"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).status == "refunded"
    refunds = {r.order_id: r.amount_cents for r in run.db.query(Refund).all()}
    assert refunds == {tent_order.id: 18_900, new_order.id: 4_185}  # opened outdoor gear: no fee; 15% of 279
    assert run.db.get(Order, new_order.id).promo_code == "SPRING15"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


@pytest.mark.two_requests
def test_case_RT015_004(tb):
    """Parcel 3 days late with $9.99 shipping, and the headphones $50 cheaper on day 8: both refunds are due."""
    hugo = CustomerFactory(name="Hugo Lindqvist")
    order = OrderFactory(customer=hugo, placed_at=days_ago(8), shipping_cents=999, lines=[(HEADPHONES, 1, 29_900)])
    ShipmentFactory(order=order, expected_delivery=TODAY - timedelta(5), delivered_at=days_ago(2, hour=12))
    ticket = TicketFactory(requester=hugo, order_id=order.id, subject="Late, and now cheaper")

    run = tb.run(
        User(
            says="My headphones came three days late, which I'd like some compensation for. And to add insult to "
            "injury, they're now $50 cheaper than what I paid last week.",
            knows={"email": hugo.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=hugo.email),
            call("get_order", order_id=order.id),
            call("get_product", product_id=HEADPHONES),
            call("list_tickets", requester_id=hugo.id),
            call("issue_refund", order_id=order.id, amount_cents=999, reason="late_delivery", method="original"),
            call(
                "issue_price_adjustment",
                order_id=order.id,
                order_item_id=order.items[0].id,
                amount_cents=derived(5_000, "29,900 paid minus today's 24,900"),
                method="original",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
    )

    run.expect_golden()
    refunds = sorted((r.reason, r.amount_cents) for r in run.db.query(Refund).all())
    assert refunds == [("late_delivery", 999), ("price_protection", 5_000)]  # 5,999 in all, under the limit
    assert run.db.query(PointsAdjustment).count() == 0  # the shipping refund is the only compensation for lateness
    # the late delivery was raised first: its category
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.distractors
def test_case_RT014_004(tb):
    """The replacement carried only the damaged blender, and it is lost: refund the blender alone ($89)."""
    pavel = CustomerFactory(name="Pavel Novotny")
    original = OrderFactory(customer=pavel, placed_at=days_ago(24), shipping_cents=1_499, lines=[ESPRESSO, BLENDER])
    ShipmentFactory(order=original, delivered_at=days_ago(19, hour=12))
    replacement = _replacement(original, [(BLENDER, 1)], reason="damaged", placed_days_ago=17)
    ShipmentFactory(order=replacement, status="lost", shipped_at=days_ago(16), expected_delivery=TODAY - timedelta(12))
    OrderFactory(customer=pavel, placed_at=days_ago(5), lines=[DUVET])  # a later order, delivered and fine
    ticket = TicketFactory(requester=pavel, subject="Replacement blender")

    run = tb.run(
        User(
            says="You were sending me a new blender because the first one came broken, and now the carrier tells me "
            "the parcel is lost. I've had enough: refund me. I don't know which order number it was.",
            knows={"email": pavel.email},
        ),
        golden=[
            call("find_customer_by_email", email=pavel.email),
            call("list_customer_orders", customer_id=pavel.id),
            call("get_order", order_id=replacement.id),
            call("get_shipment_tracking", order_id=replacement.id),
            call("get_order", order_id=original.id),
            call("list_tickets", requester_id=pavel.id),
            call("issue_refund", order_id=original.id, amount_cents=8_900, reason="lost_parcel", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="delivery"),
        ],
        traps=[  # the rest of the original order too, though only the blender is lost
            call("issue_refund", order_id=original.id, amount_cents=46_399, reason="lost_parcel", method="original")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.order_id, refund.amount_cents, refund.reason) == (original.id, 8_900, "lost_parcel")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT015_005(tb):
    """One chargeback: the premium return refund and TV price adjustment are made, but courtesy points are refused."""
    mira = CustomerFactory(name="Mira Castellanos", tier="premium", chargebacks=1)
    headphones_order = OrderFactory(customer=mira, placed_at=days_ago(22), lines=[HEADPHONES])
    ShipmentFactory(order=headphones_order)
    rma = ReturnFactory(
        item=headphones_order.items[0],
        declared_condition="opened",
        inspected_condition="opened",
        status="received",
        created_at=days_ago(6),
        received_at=days_ago(1, hour=9),
    )
    tv_order = OrderFactory(customer=mira, placed_at=days_ago(25), lines=[(TV, 1, 99_900)])
    ShipmentFactory(order=tv_order)
    duvet_order = OrderFactory(customer=mira, placed_at=days_ago(10), lines=[DUVET])
    ShipmentFactory(order=duvet_order, expected_delivery=TODAY - timedelta(6), delivered_at=days_ago(2, hour=10))
    ticket = TicketFactory(requester=mira, order_id=headphones_order.id, subject="Several things")

    run = tb.run(
        User(
            says="A few things. You've received the headphones I returned, please refund them. The Vista TV I "
            "bought last month is $100 cheaper now, so I'd like the difference. And my duvet set came four days "
            "late, so I think some points are in order.",
            knows={
                "email": mira.email,
                "return number": rma.id,
                "tv order number": tv_order.id,
                "duvet order number": duvet_order.id,
            },
        ),
        golden=[
            call("find_customer_by_email", email=mira.email),
            call("get_return", rma_id=rma.id),
            call("get_order", order_id=tv_order.id),
            call("get_product", product_id=TV),
            call("get_order", order_id=duvet_order.id),
            call("list_tickets", requester_id=mira.id),
            call("refund_return", rma_id=rma.id, restocking_fee_percent=0, method="original"),
            call(
                "issue_price_adjustment",
                order_id=tv_order.id,
                order_item_id=tv_order.items[0].id,
                amount_cents=derived(10_000, "99,900 paid minus today's 89,900"),
                method="original",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="return", reason="not_eligible"),
        ],
        traps=[  # the premium courtesy award, though any chargeback rules courtesy points out
            call("adjust_points", customer_id=mira.id, points=2_000, reason="courtesy", order_id=duvet_order.id)
        ],
    )

    run.expect_golden()
    refunds = sorted((r.reason, r.amount_cents) for r in run.db.query(Refund).all())
    # opened headphones, premium: no fee; one chargeback does not stop refunds (it takes two)
    assert refunds == [("price_protection", 10_000), ("return", 24_900)]
    assert run.db.query(PointsAdjustment).count() == 0  # but courtesy points need no chargeback at all
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", "not_eligible", None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT015_006(tb):
    """Moving house: the processing sofa order gets the new address, the placed blender order is cancelled, the
    shipped heater cannot be redirected (plus member)."""
    jonas = CustomerFactory(name="Jonas Ekberg", tier="plus", postal_code="85719", city="Tucson")
    sofa_order = OrderFactory(customer=jonas, status="processing", placed_at=days_ago(2), lines=[SOFA])
    blender_order = OrderFactory(customer=jonas, status="placed", placed_at=days_ago(0, hour=7), lines=[BLENDER])
    heater_order = OrderFactory(customer=jonas, status="shipped", placed_at=days_ago(4), lines=[HEATER])
    ShipmentFactory(order=heater_order, status="in_transit")
    OrderFactory(customer=jonas, placed_at=days_ago(80), lines=[DESK_CHAIR])  # delivered long ago
    ticket = TicketFactory(requester=jonas, subject="Moving house")

    run = tb.run(
        User(
            says="We're moving to Phoenix on Wednesday. Please send the sofa and the heater I have on order to the "
            "new house, and cancel the blender I ordered this morning: the new kitchen already has one.",
            knows={
                "email": jonas.email,
                "postal code": "85719",
                "new street address": "915 West Roosevelt Street",
                "new city": "Phoenix",
                "new postal code": "85007",
            },
        ),
        golden=[
            call("find_customer_by_email", email=jonas.email),
            call("list_customer_orders", customer_id=jonas.id),
            call("get_order", order_id=sofa_order.id),
            call("get_order", order_id=heater_order.id),
            call("get_shipment_tracking", order_id=heater_order.id),
            call("get_order", order_id=blender_order.id),
            call("list_tickets", requester_id=jonas.id),
            call(
                "update_shipping_address",
                order_id=sofa_order.id,
                address_line="915 West Roosevelt Street",
                city="Phoenix",
                postal_code="85007",
            ),
            call("cancel_order", order_id=blender_order.id),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="order_change", reason="not_eligible"),
        ],
        traps=[  # the shipped heater redirected too: only premium members get redirects
            call(
                "update_shipping_address",
                order_id=heater_order.id,
                address_line="915 West Roosevelt Street",
                city="Phoenix",
                postal_code="85007",
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, sofa_order.id).ship_city == "Phoenix"
    assert run.db.get(Order, heater_order.id).ship_city == "Tucson"
    assert run.db.get(Order, blender_order.id).status == "cancelled"
    assert run.db.query(Refund).one().amount_cents == 8_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", "not_eligible", None)


@pytest.mark.two_requests
def test_case_RT015_007(tb):
    """TV install moved 30 hours ahead ($35 fee, standard member); the laptop's warranty ended 8 February: refused."""
    odile = CustomerFactory(name="Odile Fairbanks")
    tv_order = OrderFactory(customer=odile, placed_at=days_ago(6), lines=[TV])
    ShipmentFactory(order=tv_order, delivered_at=days_ago(1, hour=12))
    job = InstallationJobFactory(order=tv_order, product_id=TV, scheduled_for=in_days(1, hour=15), fee_cents=9_900)
    laptop_order = OrderFactory(customer=odile, placed_at=days_ago(405), lines=[LAPTOP])
    warranty = WarrantyFactory(
        customer=odile, product_id=LAPTOP, order_id=laptop_order.id, starts_on=TODAY - timedelta(days=400)
    )
    ticket = TicketFactory(requester=odile, order_id=tv_order.id, subject="TV mounting and laptop")

    run = tb.run(
        User(
            says="Could you move tomorrow afternoon's TV wall-mounting to Friday? And separately, my Aurora laptop's "
            "battery no longer charges; it should still be under warranty.",
            knows={
                "email": odile.email,
                "tv order number": tv_order.id,
                "laptop order number": laptop_order.id,
                "new time": "Friday 20 March 2026 at 13:00",
            },
        ),
        golden=[
            call("find_customer_by_email", email=odile.email),
            call("get_order", order_id=tv_order.id),
            call("get_installation_job", job_id=job.id),
            call("get_order", order_id=laptop_order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=odile.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived("2026-03-20T13:00", "the time she gives, Friday 20 March 2026 13:00, in ISO"),
                fee_cents=3_500,
            ),
            call(
                "update_ticket", ticket_id=ticket.id, status="solved", category="installation", reason="outside_window"
            ),
        ],
        traps=[  # a defect claim on a warranty that expired on 8 February
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Laptop battery no longer charges.",
            )
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.reschedule_count, moved.reschedule_fees_cents) == (1, 3_500)  # 30 hours ahead: the late fee
    assert run.db.query(WarrantyClaim).count() == 0
    # the installation came first: its category; the warranty refusal gives the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", "outside_window", None)
