"""Items damaged on arrival: refund or replace, within the agent refund limit and the customer's standing (and what
else the customer asks in the same conversation)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.calls import (
    check_inventory,
    file_claim,
    get_job,
    get_order,
    get_warranty,
    hold,
    hold_update,
    issue_refund,
    list_refunds,
    new_id,
    new_ticket,
    opening,
    parcel,
    solved,
)
from domains.retail.checks import internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    RefundFactory,
    ShipmentFactory,
    TicketFactory,
    delivered_order,
    ticket_about,
    warranty_on,
)
from domains.retail.models import Customer, InstallationJob, Order, Refund, Ticket, WarrantyClaim
from domains.retail.seed import BLENDER, DUVET, ESPRESSO, HEADPHONES, HEATER, RAIN_JACKET, SOFA, TENT, TV
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Refunds and the agent refund limit",
    "Damaged on arrival",
    "Late deliveries",
    "Replacement orders",
    "Warranty claims",
    "Installation appointments",
    "Address changes and cancellations",
    "Ticket status, priority and classification",
)


def test_case_RT003_001(tb):
    """Damaged blender in a two-item order: refund the blender's price only, not the order or its shipping."""
    amara = CustomerFactory(name="Amara Haddad")
    order = OrderFactory(customer=amara, placed_at=days_ago(8), shipping_cents=999, lines=[BLENDER, DUVET])
    ShipmentFactory(order=order)  # delivered 3 days ago
    ticket = ticket_about(order, "Broken blender", category="delivery")

    run = tb.run(
        User(
            says="My order came on Friday and the blender jug is cracked right down the side. "
            "I don't want another one, I want my money back.",
            knows={"email": amara.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            *opening(amara, get_order(order)),
            issue_refund(order, 8_900, "damaged"),
            solved(ticket.id, "damage"),
        ],
        traps=[  # the shipping charge refunded with the blender: a damaged-item refund never includes it
            issue_refund(order, 999, "damaged")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).one().amount_cents == 8_900
    # the customer picked "delivery" on the web form; the damaged-on-arrival article decides the category
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)


@pytest.mark.two_requests
def test_case_RT003_002(tb):
    """Damaged $899 TV: above the $250 agent limit, so escalate (hold, high) and refund nothing; the wall-mounting
    he cancels is 49 hours away, so it is cancelled free and its fee refunded."""
    oliver = CustomerFactory(name="Oliver Novak")
    order = OrderFactory(customer=oliver, placed_at=days_ago(7), shipping_cents=4_900, lines=[TV])
    ShipmentFactory(order=order, carrier="FedEx")  # delivered 2 days ago
    job = InstallationJobFactory(
        order=order, product_id=TV, scheduled_for=datetime(2026, 3, 18, 10, 0), fee_cents=4_900
    )
    TicketFactory(requester=oliver, status="closed", subject="Delivery slot", created_at=days_ago(12))
    ticket = ticket_about(order, "TV screen cracked")

    run = tb.run(
        User(
            says="I unboxed the TV I bought from you and the screen is shattered. I want a refund, "
            "I don't trust another delivery. And there's nothing to mount now, so please cancel the "
            "wall-mounting appointment on Wednesday.",
            knows={"email": oliver.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            *opening(oliver, get_order(order), get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=0),
            *hold(
                ticket.id,
                "damage",
                "refund_limit",
                "Damaged on arrival, refund of 89,900 cents requested; above the agent limit, escalated.",
            ),
        ],
        traps=[  # the TV's price refunded as he asks, above the agent limit
            issue_refund(order, 89_900, "damaged")
        ],
    )

    run.expect_golden()
    cancelled = run.db.get(InstallationJob, job.id)
    assert (cancelled.status, cancelled.cancellation_fee_cents) == ("cancelled", 0)  # 49 hours ahead: no charge
    refund = run.db.query(Refund).one()  # policy: the TV is above the limit, so nothing is refunded for it
    assert (refund.amount_cents, refund.reason) == (4_900, "installation_cancelled")
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "damage", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.two_requests
def test_case_RT003_003(tb):
    """$249 refund looks under the limit, but a shipping refund already on the order pushes it over: escalate. His
    10-month-old blender's dead motor is a covered defect: filed, resolved by replacement (under $150)."""
    tomas = CustomerFactory(name="Tomas Ferreira")
    order = delivered_order(
        tomas, [HEADPHONES], placed_days_ago=11, shipping_cents=1_499, delivered_at=days_ago(2, hour=16)
    )
    RefundFactory(order=order, amount_cents=1_499, reason="late_delivery", created_at=days_ago(2))
    blender_order = delivered_order(tomas, [BLENDER], placed_days_ago=305)
    warranty = warranty_on(
        blender_order, BLENDER, starts_on=TODAY - timedelta(days=300), expires_on=TODAY + timedelta(days=430)
    )
    ticket = ticket_about(order, "Headphones broken")

    run = tb.run(
        User(
            says="The headphones finally arrived on Saturday and the headband is snapped in two. Please refund them. "
            "And while I have you: my Breeze blender from last spring has stopped working, the motor just hums.",
            knows={
                "email": tomas.email,
                "order id": order.id,
                "refund or replacement": "a refund, not a replacement",
                "blender order id": blender_order.id,
            },
        ),
        golden=[
            *opening(tomas, get_order(order), list_refunds(order), get_order(blender_order), get_warranty(warranty)),
            file_claim(warranty, "defect", "replacement", "Blender motor hums but the blades do not turn."),
            *hold(
                ticket.id,
                "damage",
                "refund_limit",
                "Damaged refund of 24,900 cents plus 1,499 already refunded exceeds the limit; escalated.",
            ),
        ],
        traps=[  # the headphones' price on its own looks under the limit; the earlier shipping refund is ignored
            issue_refund(order, 24_900, "damaged")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 1  # only the earlier shipping refund
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.warranty_id, claim.issue, claim.resolution) == (warranty.id, "defect", "replacement")
    # the damage came first: its category; the escalation explains the hold, so its reason and queue
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "damage", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.two_requests
def test_case_RT003_004(tb):
    """Premium customer with two chargebacks asks for an $89 refund: agents never refund them, so escalate as
    urgent; the heater order she cancels (placed this morning, profile postal code given) is cancelled and
    refunded, since the standing rule does not reach cancellations."""
    grace = CustomerFactory(name="Grace Walsh", tier="premium", chargebacks=2, postal_code="78704", city="Austin")
    order = delivered_order(grace, [BLENDER], placed_days_ago=9)  # delivered 4 days ago
    heater_order = OrderFactory(customer=grace, status="placed", placed_at=days_ago(0, hour=7), lines=[HEATER])
    ticket = ticket_about(order, "Blender damaged")

    run = tb.run(
        User(
            says="The blender I got this week has a bent blade and the base rattles. Just refund it, "
            "it's only 89 dollars. And please cancel the space heater I ordered this morning, I found one "
            "in a shop down the road.",
            knows={
                "email": grace.email,
                "order id": order.id,
                "refund or replacement": "a refund, not a replacement",
                "heater order id": heater_order.id,
                "postal code": "78704",
            },
        ),
        golden=[
            *opening(grace, get_order(order), get_order(heater_order)),
            call("cancel_order", order_id=heater_order.id),
            *hold(
                ticket.id,
                "damage",
                "account_standing",
                "Damaged refund of 8,900 cents requested; customer has 2 chargebacks, escalated.",
                priority="urgent",
            ),
        ],
        traps=[  # "it's only 89 dollars": under the limit, but her 2 chargebacks rule out any refund from the agent
            issue_refund(order, 8_900, "damaged")
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, heater_order.id).status == "cancelled"
    refund = run.db.query(Refund).one()  # policy: 2 or more chargebacks never get a refund from issue_refund
    assert (refund.order_id, refund.amount_cents, refund.reason) == (heater_order.id, 6_900, "order_cancelled")
    # escalated for her standing, not for the amount: urgent because she is premium
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "damage", "account_standing", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


def test_case_RT003_005(tb):
    """Damaged duvet paid with a gift card: the refund goes to store credit, not the original method."""
    priya = CustomerFactory(name="Priya Rossi", tier="plus")
    order = delivered_order(priya, [DUVET], placed_days_ago=10, payment="gift_card", delivered_at=days_ago(5, hour=11))
    ticket = ticket_about(order, "Torn duvet cover")

    run = tb.run(
        User(
            says="The duvet set I received has a long tear in the cover and a stain on the pillowcase. "
            "I'd like a refund please.",
            knows={"email": priya.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            *opening(priya, get_order(order)),
            issue_refund(order, 12_900, "damaged", method="store_credit"),
            solved(ticket.id, "damage"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).one().method == "store_credit"
    assert run.db.get(Customer, priya.id).store_credit_cents == 12_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)


@pytest.mark.distractors
def test_case_RT003_006(tb):
    """Only the espresso machine of a three-item order arrived damaged: replace that item alone."""
    marcus = CustomerFactory(name="Marcus Chen", tier="premium")
    order = delivered_order(marcus, [BLENDER, ESPRESSO, DUVET], placed_days_ago=7)  # delivered 2 days ago
    ticket = ticket_about(order, "Espresso machine dented")
    espresso_line = order.items[1].id

    run = tb.run(
        User(
            says="Everything in my last order arrived fine except the espresso machine: the side panel is caved "
            "in and the water tank is cracked. Can you send a new one?",
            knows={"email": marcus.email, "order id": order.id, "refund or replacement": "a replacement, not a refund"},
        ),
        golden=[
            *opening(marcus, get_order(order), check_inventory(ESPRESSO)),
            call("create_replacement_order", order_id=order.id, reason="damaged", order_item_ids=[espresso_line]),
            solved(ticket.id, "damage"),
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert [i.product_id for i in replacement.items] == [ESPRESSO]
    assert run.db.query(Refund).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)


@pytest.mark.distractors
def test_case_RT003_007(tb):
    """A refund recorded on another of her orders does not count: the $249 refund on this order is within the limit."""
    mei = CustomerFactory(name="Mei Tanaka", tier="plus")
    sofa_order = OrderFactory(customer=mei, placed_at=days_ago(45), shipping_cents=4_900, lines=[SOFA])
    ShipmentFactory(order=sofa_order)
    RefundFactory(order=sofa_order, amount_cents=20_000, reason="damaged", created_at=days_ago(35))
    order = OrderFactory(customer=mei, placed_at=days_ago(7), shipping_cents=999, lines=[HEADPHONES])
    ShipmentFactory(order=order)  # delivered 2 days ago
    ticket = ticket_about(order, "Headphones cracked")

    run = tb.run(
        User(
            says="My new noise-cancelling headphones showed up on Saturday and the left ear cup is cracked "
            "straight through, the box looked like it had been sat on. I'd like my money back rather than "
            "another pair. I know you already refunded part of my sofa last month, I hope that's not a problem.",
            knows={"email": mei.email, "order number": order.id, "refund or replacement": "a refund"},
        ),
        golden=[
            *opening(mei, get_order(order), list_refunds(order)),
            issue_refund(order, 24_900, "damaged"),
            solved(ticket.id, "damage"),
        ],
        traps=[  # the sofa refund added to this one, as if the limit counted every order: escalated for nothing
            hold_update(ticket.id, None, "refund_limit")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).filter(Refund.order_id == order.id).one()
    assert (refund.amount_cents, refund.reason) == (24_900, "damaged")  # policy: the limit counts this order only
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)


@pytest.mark.two_requests
def test_case_RT003_008(tb):
    """Torn duvet refunded as damaged; the parcel was only 2 days late, so the shipping refund is refused."""
    ines = CustomerFactory(name="Ines Moreau")
    order = delivered_order(
        ines,
        [DUVET, HEATER],
        placed_days_ago=10,
        shipping_cents=1_199,
        expected_delivery=TODAY - timedelta(days=5),
        delivered_at=days_ago(3, hour=15),
    )
    ticket = ticket_about(order, "Duvet damaged, delivery late")

    run = tb.run(
        User(
            says="The duvet set from my last order has a long rip along one seam and a grease stain on the "
            "pillowcase, so I'd like my money back for that. Also, the parcel turned up two days after the date "
            "you promised, so please refund the $11.99 delivery charge as well.",
            knows={"email": ines.email, "order number": order.id, "refund or replacement": "a refund"},
        ),
        golden=[
            *opening(ines, *parcel(order)),
            issue_refund(order, 12_900, "damaged"),
            solved(ticket.id, "damage", "not_eligible"),
        ],
        reply="I've refunded $129.00 for the damaged duvet set to your card. The parcel arrived 2 days late, and "
        "a delay of one or two days doesn't qualify for a shipping refund, so the $11.99 stays as it is.",
        traps=[  # her second request: the delivery charge for a parcel only 2 days late
            issue_refund(order, 1_199, "late_delivery")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (12_900, "damaged")
    # the first request (the duvet) sets the category; the refused second one sets the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", "not_eligible", None)


def test_case_RT003_009(tb):
    """Damage reported on the 7th day after delivery, only a solved ticket: open a new one and replace the machine."""
    omar = CustomerFactory(name="Omar Farouk", tier="premium")
    order = delivered_order(omar, [ESPRESSO], placed_days_ago=12, delivered_at=days_ago(7, hour=13))
    earlier = TicketFactory(
        requester=omar,
        order_id=order.id,
        status="solved",
        category="delivery",
        subject="Delivery time slot",
        created_at=days_ago(9),
    )
    new_ticket_id = new_id("T-", earlier)

    run = tb.run(
        User(
            says="You delivered my Duo espresso machine a week ago today and I only unpacked it last night: the "
            "drip tray is snapped off and the steam wand is bent, it must have been dropped in transit. Please "
            "send me a new machine. I don't want a refund, I want the coffee.",
            knows={"email": omar.email, "order number": order.id, "refund or replacement": "a replacement"},
        ),
        golden=[
            *opening(omar, get_order(order), check_inventory(ESPRESSO)),
            new_ticket(omar, "Espresso machine damaged on arrival", "damage", order),
            call(
                "create_replacement_order",
                order_id=order.id,
                reason="damaged",
                order_item_ids=[order.items[0].id],
            ),
            solved(new_ticket_id),
        ],
        traps=[  # the solved delivery ticket about the same order, written over instead of opening a new one
            solved(earlier.id, "damage")
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert [i.product_id for i in replacement.items] == [ESPRESSO]  # policy: day 7 is still within 7 days
    opened = run.db.get(Ticket, new_ticket_id)
    assert (opened.requester_id, opened.order_id) == (omar.id, order.id)
    assert run.db.get(Ticket, new_ticket_id).outcome == ("solved", "normal", "damage", None, None)
    assert run.db.get(Ticket, earlier.id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.distractors
def test_case_RT003_010(tb):
    """Tent torn on arrival, replacement wanted but none in stock: her fallback, the tent's $189 refund, is made."""
    lena = CustomerFactory(name="Lena Fischer", tier="plus")
    order = delivered_order(
        lena, [TENT, RAIN_JACKET], placed_days_ago=8, shipping_cents=999, delivered_at=days_ago(3, hour=12)
    )
    ticket = ticket_about(order, "Tent arrived torn")

    run = tb.run(
        User(
            says="The tent from my order on Sunday arrived with a long tear in the flysheet. The rain jacket in the "
            "same box is fine. Could you send me a new tent?",
            knows={"email": lena.email, "order id": order.id},
            rules=("If a new tent cannot be sent, ask for your money back for the tent.",),
        ),
        golden=[
            *opening(lena, get_order(order), check_inventory(TENT)),
            issue_refund(order, 18_900, "damaged"),
            solved(ticket.id, "damage"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (18_900, "damaged")  # the tent only: not the jacket, not shipping
    assert run.db.query(Order).count() == 1  # no replacement: none available
    # a refund was her own fallback once the replacement proved impossible: granted, no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "damage", None, None)
