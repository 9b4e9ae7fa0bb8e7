"""Follow-ups: problems with replacement orders, and conversations that bring several matters at once."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.calls import (
    address_facts,
    courtesy_points,
    file_claim,
    get_customer,
    get_job,
    get_order,
    get_product,
    get_promotion,
    get_return,
    get_warranty,
    hold,
    issue_refund,
    list_orders,
    opening,
    parcel,
    price_adjustment,
    refund_return,
    reschedule,
    ship_to,
    solved,
)
from domains.retail.checks import internal_notes
from domains.retail.clock import TODAY, days_ago, in_days
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    ShipmentFactory,
    TicketFactory,
    delivered_order,
    received_return,
    shipped_order,
    ticket_about,
    warranty_on,
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
    ticket = ticket_about(replacement, "Replacement never arrived")

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
            *opening(elena, *parcel(replacement), get_order(original)),
            issue_refund(
                original,
                derived(15_800, "blender 8,900 plus heater 6,900 on the original order, no shipping"),
                "lost_parcel",
            ),
            solved(ticket.id, "delivery"),
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
    original = delivered_order(ravi, [ESPRESSO], placed_days_ago=15, delivered_at=days_ago(11, hour=12))
    replacement = _replacement(original, [(ESPRESSO, 1)], reason="damaged", placed_days_ago=9)
    replacement.status = "delivered"
    ShipmentFactory(order=replacement, shipped_at=days_ago(8), delivered_at=days_ago(2, hour=11))
    dishwasher_order = delivered_order(ravi, [DISHWASHER], placed_days_ago=12)  # delivered a week ago, on time
    job = InstallationJobFactory(
        order=dishwasher_order, product_id=DISHWASHER, scheduled_for=datetime(2026, 3, 17, 14, 0)
    )
    ticket = ticket_about(replacement, "Replacement damaged again")

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
            *opening(ravi, get_order(replacement), get_order(original), get_job(job)),
            reschedule(
                job, derived("2026-03-23T10:00", "the time he gives, Monday 23 March 2026 at 10:00, in ISO"), 3_500
            ),
            *hold(
                ticket.id,
                "damage",
                "refund_limit",
                "Replacement arrived damaged; refund of 44,900 cents on the original order exceeds the limit.",
            ),
        ],
        traps=[  # a second replacement, or the full refund above the agent limit
            call("create_replacement_order", order_id=replacement.id, reason="damaged"),
            issue_refund(original, 44_900, "damaged"),
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
    original = delivered_order(nadia, [ESPRESSO, BLENDER], placed_days_ago=9, delivered_at=days_ago(6, hour=13))
    _replacement(original, [(ESPRESSO, 1)], reason="damaged", placed_days_ago=5)
    OrderFactory(customer=nadia, placed_at=days_ago(60), lines=[BLENDER])  # an older blender, long delivered
    ticket = ticket_about(original, "Blender jug cracked")

    run = tb.run(
        User(
            says="I finally unpacked the blender from the same order as the espresso machine you already replaced, "
            "and its jug is cracked. Can you send me a new blender?",
            knows={"email": nadia.email, "order id": original.id},
            rules=("If a new blender cannot be sent, you would take another remedy; do not argue.",),
        ),
        golden=[
            *opening(nadia, get_order(original), list_orders(nadia)),
            issue_refund(original, 8_900, "damaged"),
            solved(ticket.id, "damage"),
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
    order = delivered_order(
        lucia,
        [HEADPHONES],
        placed_days_ago=12,
        shipping_cents=1_499,
        expected_delivery=TODAY - timedelta(6),
        delivered_at=days_ago(2, hour=15),
    )
    ticket = ticket_about(order, "Broken and late")

    run = tb.run(
        User(
            says="My headphones arrived on Saturday with the headband snapped, so I'd like my money back for them. "
            "And since they came four days late, I want the shipping refunded as well.",
            knows={"email": lucia.email, "order id": order.id, "refund or replacement": "a refund"},
        ),
        golden=[
            *opening(lucia, *parcel(order)),
            issue_refund(order, 24_900, "damaged"),
            *hold(
                ticket.id,
                "damage",
                "refund_limit",
                "Late-delivery shipping refund of 1,499 cents would take the order to 26,399 with the "
                "24,900 damage refund; escalated.",
            ),
        ],
        traps=[  # the shipping refund on top, past the $250 the agent may refund on one order
            issue_refund(order, 1_499, "late_delivery")
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
    install_order = delivered_order(omar, [DISHWASHER], placed_days_ago=14, delivered_at=days_ago(8, hour=12))
    job = InstallationJobFactory(
        order=install_order, product_id=DISHWASHER, scheduled_for=days_ago(2, hour=9), status="missed"
    )
    duvet_order = delivered_order(
        omar, [DUVET], placed_days_ago=10, expected_delivery=TODAY - timedelta(6), delivered_at=days_ago(2, hour=16)
    )
    ticket = ticket_about(install_order, "Technician no-show")

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
            *opening(omar, get_customer(omar), get_order(install_order), get_job(job), get_order(duvet_order)),
            reschedule(
                job, derived("2026-03-19T10:00", "the slot he gives, Thursday 19 March 2026 10:00, in ISO form"), 0
            ),
            courtesy_points(omar, 1_000, install_order),
            solved(ticket.id, "installation", "not_eligible"),
        ],
        traps=[  # a second courtesy award, for the duvet, on the same day as the first
            courtesy_points(omar, 1_000, duvet_order)
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
    tent_order = delivered_order(ines, [TENT], placed_days_ago=25, delivered_at=days_ago(20, hour=12))
    rma = received_return(
        tent_order.items[0], "opened", "opened", created_at=days_ago(8), received_at=days_ago(1, hour=11)
    )
    new_order = shipped_order(ines, [DESK_CHAIR], placed_days_ago=3)
    ticket = ticket_about(tent_order, "Tent refund")

    run = tb.run(
        User(
            says="Two things. You've received the tent I sent back, it was only pitched once in the garden, so I "
            "expect the full price back. And I forgot the SPRING15 code on the desk chair I ordered on Friday.",
            knows={"email": ines.email, "return number": rma.id, "chair order number": new_order.id},
        ),
        golden=[
            *opening(ines, get_return(rma), get_order(new_order), get_promotion("SPRING15")),
            refund_return(rma, 0),
            call("apply_promo_code", order_id=new_order.id, code="SPRING15"),
            solved(ticket.id, "return"),
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
    order = delivered_order(
        hugo,
        [(HEADPHONES, 1, 29_900)],
        placed_days_ago=8,
        shipping_cents=999,
        expected_delivery=TODAY - timedelta(5),
        delivered_at=days_ago(2, hour=12),
    )
    ticket = ticket_about(order, "Late, and now cheaper")

    run = tb.run(
        User(
            says="My headphones came three days late, which I'd like some compensation for. And to add insult to "
            "injury, they're now $50 cheaper than what I paid last week.",
            knows={"email": hugo.email, "order id": order.id},
        ),
        golden=[
            *opening(hugo, get_order(order), get_product(HEADPHONES)),
            issue_refund(order, 999, "late_delivery"),
            price_adjustment(order.items[0], derived(5_000, "29,900 paid minus today's 24,900")),
            solved(ticket.id, "delivery"),
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
    original = delivered_order(
        pavel, [ESPRESSO, BLENDER], placed_days_ago=24, shipping_cents=1_499, delivered_at=days_ago(19, hour=12)
    )
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
            *opening(pavel, list_orders(pavel), *parcel(replacement), get_order(original)),
            issue_refund(original, 8_900, "lost_parcel"),
            solved(ticket.id, "delivery"),
        ],
        traps=[  # the rest of the original order too, though only the blender is lost
            issue_refund(original, 46_399, "lost_parcel")
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
    headphones_order = delivered_order(mira, [HEADPHONES], placed_days_ago=22)
    rma = received_return(
        headphones_order.items[0], "opened", "opened", created_at=days_ago(6), received_at=days_ago(1, hour=9)
    )
    tv_order = delivered_order(mira, [(TV, 1, 99_900)], placed_days_ago=25)
    duvet_order = delivered_order(
        mira, [DUVET], placed_days_ago=10, expected_delivery=TODAY - timedelta(6), delivered_at=days_ago(2, hour=10)
    )
    ticket = ticket_about(headphones_order, "Several things")

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
            *opening(mira, get_return(rma), get_order(tv_order), get_product(TV), get_order(duvet_order)),
            refund_return(rma, 0),
            price_adjustment(tv_order.items[0], derived(10_000, "99,900 paid minus today's 89,900")),
            solved(ticket.id, "return", "not_eligible"),
        ],
        traps=[  # the premium courtesy award, though any chargeback rules courtesy points out
            courtesy_points(mira, 2_000, duvet_order)
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
    heater_order = shipped_order(jonas, [HEATER], placed_days_ago=4)
    OrderFactory(customer=jonas, placed_at=days_ago(80), lines=[DESK_CHAIR])  # delivered long ago
    ticket = TicketFactory(requester=jonas, subject="Moving house")
    new_address = ("915 West Roosevelt Street", "Phoenix", "85007")

    run = tb.run(
        User(
            says="We're moving to Phoenix on Wednesday. Please send the sofa and the heater I have on order to the "
            "new house, and cancel the blender I ordered this morning: the new kitchen already has one.",
            knows={"email": jonas.email, "postal code": "85719", **address_facts(new_address)},
        ),
        golden=[
            *opening(jonas, list_orders(jonas), get_order(sofa_order), *parcel(heater_order), get_order(blender_order)),
            ship_to(sofa_order, new_address),
            call("cancel_order", order_id=blender_order.id),
            solved(ticket.id, "order_change", "not_eligible"),
        ],
        traps=[  # the shipped heater redirected too: only premium members get redirects
            ship_to(heater_order, new_address)
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
    tv_order = delivered_order(odile, [TV], placed_days_ago=6, delivered_at=days_ago(1, hour=12))
    job = InstallationJobFactory(order=tv_order, product_id=TV, scheduled_for=in_days(1, hour=15), fee_cents=9_900)
    laptop_order = OrderFactory(customer=odile, placed_at=days_ago(405), lines=[LAPTOP])
    warranty = warranty_on(laptop_order, LAPTOP, starts_on=TODAY - timedelta(days=400))
    ticket = ticket_about(tv_order, "TV mounting and laptop")

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
            *opening(odile, get_order(tv_order), get_job(job), get_order(laptop_order), get_warranty(warranty)),
            reschedule(
                job, derived("2026-03-20T13:00", "the time she gives, Friday 20 March 2026 13:00, in ISO"), 3_500
            ),
            solved(ticket.id, "installation", "outside_window"),
        ],
        traps=[  # a defect claim on a warranty that expired on 8 February
            file_claim(warranty, "defect", "repair", "Laptop battery no longer charges.")
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.reschedule_count, moved.reschedule_fees_cents) == (1, 3_500)  # 30 hours ahead: the late fee
    assert run.db.query(WarrantyClaim).count() == 0
    # the installation came first: its category; the warranty refusal gives the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", "outside_window", None)
