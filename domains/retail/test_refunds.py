"""Items damaged on arrival: refund or replace, within the agent refund limit and the customer's standing."""

from __future__ import annotations

import pytest

from domains.retail.clock import days_ago
from domains.retail.factories import (
    CustomerFactory,
    OrderFactory,
    RefundFactory,
    ShipmentFactory,
    TicketFactory,
)
from domains.retail.models import Customer, Order, Refund, Ticket
from domains.retail.seed import BLENDER, DUVET, ESPRESSO, HEADPHONES, TV
from pytest_thinkingbox import User, call


def test_case_RT003_001(tb):
    """Damaged blender in a two-item order: refund the blender's price only, not the order or its shipping."""
    amara = CustomerFactory(name="Amara Haddad")
    order = OrderFactory(customer=amara, placed_at=days_ago(8), shipping_cents=999, lines=[BLENDER, DUVET])
    ShipmentFactory(order=order)  # delivered 3 days ago
    ticket = TicketFactory(requester=amara, order_id=order.id, subject="Broken blender")

    run = tb.run(
        User(
            says="My order came on Friday and the blender jug is cracked right down the side. "
            "I don't want another one, I want my money back.",
            knows={"email": amara.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=amara.email),
            call("get_order", order_id=order.id),
            call("list_tickets", requester_id=amara.id),
            call("issue_refund", order_id=order.id, amount_cents=8_900, reason="damaged", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).one().amount_cents == 8_900
    assert run.db.get(Ticket, ticket.id).status == "solved"


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the damaged TV's refund of 89,900 cents is above the 25,000-cent agent limit, so the policy's answer "
        "is to escalate: hold with high priority (standard member) and one internal note, no refund"
    }
)
def test_case_RT003_002(tb):
    """Damaged $899 TV: the refund is above the $250 agent limit, so escalate (hold, high) and refund nothing."""
    oliver = CustomerFactory(name="Oliver Novak")
    order = OrderFactory(customer=oliver, placed_at=days_ago(7), lines=[TV])
    ShipmentFactory(order=order, carrier="FedEx")  # delivered 2 days ago
    TicketFactory(requester=oliver, status="closed", subject="Delivery slot", created_at=days_ago(12))
    ticket = TicketFactory(requester=oliver, order_id=order.id, subject="TV screen cracked")

    run = tb.run(
        User(
            says="I unboxed the TV I bought from you and the screen is shattered. I want a refund, "
            "I don't trust another delivery.",
            knows={"email": oliver.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=oliver.email),
            call("get_order", order_id=order.id),
            call("list_tickets", requester_id=oliver.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Damaged on arrival, refund of 89,900 cents requested; above the agent limit, escalated.",
                public=False,
            ),
        ],
        traps=[  # the TV's price refunded as he asks, above the agent limit
            call("issue_refund", order_id=order.id, amount_cents=89_900, reason="damaged", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 0  # policy: above the limit, escalate and refund nothing
    assert (run.db.get(Ticket, ticket.id).status, run.db.get(Ticket, ticket.id).priority) == ("hold", "high")


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the 24,900-cent damaged refund plus the 1,499 cents already refunded on the order exceeds the "
        "25,000-cent agent limit, so the policy's answer is to escalate: hold, high, one internal note, no refund"
    }
)
def test_case_RT003_003(tb):
    """$249 refund looks under the limit, but a shipping refund already on the order pushes it over: escalate."""
    tomas = CustomerFactory(name="Tomas Ferreira")
    order = OrderFactory(customer=tomas, placed_at=days_ago(11), shipping_cents=1_499, lines=[HEADPHONES])
    ShipmentFactory(order=order, delivered_at=days_ago(2, hour=16))
    RefundFactory(order=order, amount_cents=1_499, reason="late_delivery", created_at=days_ago(2))
    ticket = TicketFactory(requester=tomas, order_id=order.id, subject="Headphones broken")

    run = tb.run(
        User(
            says="The headphones finally arrived on Saturday and the headband is snapped in two. Please refund them.",
            knows={"email": tomas.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=tomas.email),
            call("get_order", order_id=order.id),
            call("list_refunds", order_id=order.id),
            call("list_tickets", requester_id=tomas.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Damaged refund of 24,900 cents plus 1,499 already refunded exceeds the limit; escalated.",
                public=False,
            ),
        ],
        traps=[  # the headphones' price on its own looks under the limit; the earlier shipping refund is ignored
            call("issue_refund", order_id=order.id, amount_cents=24_900, reason="damaged", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 1  # only the earlier shipping refund
    assert run.db.get(Ticket, ticket.id).status == "hold"


def test_case_RT003_004(tb):
    """Premium customer with two chargebacks asks for an $89 refund: agents never refund them; escalate as urgent."""
    grace = CustomerFactory(name="Grace Walsh", tier="premium", chargebacks=2)
    order = OrderFactory(customer=grace, placed_at=days_ago(9), lines=[BLENDER])
    ShipmentFactory(order=order)  # delivered 4 days ago
    ticket = TicketFactory(requester=grace, order_id=order.id, subject="Blender damaged")

    run = tb.run(
        User(
            says="The blender I got this week has a bent blade and the base rattles. Just refund it, "
            "it's only 89 dollars.",
            knows={"email": grace.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=grace.email),
            call("get_order", order_id=order.id),
            call("list_tickets", requester_id=grace.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="urgent"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Damaged refund of 8,900 cents requested; customer has 2 chargebacks, escalated.",
                public=False,
            ),
        ],
        traps=[  # "it's only 89 dollars": under the limit, but her 2 chargebacks rule out any refund from the agent
            call("issue_refund", order_id=order.id, amount_cents=8_900, reason="damaged", method="original")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 0  # policy: 2 or more chargebacks never get a refund from the agent
    assert run.db.get(Ticket, ticket.id).priority == "urgent"


def test_case_RT003_005(tb):
    """Damaged duvet paid with a gift card: the refund goes to store credit, not the original method."""
    priya = CustomerFactory(name="Priya Rossi", tier="plus")
    order = OrderFactory(customer=priya, placed_at=days_ago(10), lines=[DUVET], payment="gift_card")
    ShipmentFactory(order=order, delivered_at=days_ago(5, hour=11))
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="Torn duvet cover")

    run = tb.run(
        User(
            says="The duvet set I received has a long tear in the cover and a stain on the pillowcase. "
            "I'd like a refund please.",
            knows={"email": priya.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            call("find_customer_by_email", email=priya.email),
            call("get_order", order_id=order.id),
            call("list_tickets", requester_id=priya.id),
            call("issue_refund", order_id=order.id, amount_cents=12_900, reason="damaged", method="store_credit"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).one().method == "store_credit"
    assert run.db.get(Customer, priya.id).store_credit_cents == 12_900


def test_case_RT003_006(tb):
    """Only the espresso machine of a three-item order arrived damaged: replace that item alone."""
    marcus = CustomerFactory(name="Marcus Chen", tier="premium")
    order = OrderFactory(customer=marcus, placed_at=days_ago(7), lines=[BLENDER, ESPRESSO, DUVET])
    ShipmentFactory(order=order)  # delivered 2 days ago
    ticket = TicketFactory(requester=marcus, order_id=order.id, subject="Espresso machine dented")
    espresso_line = order.items[1].id

    run = tb.run(
        User(
            says="Everything in my last order arrived fine except the espresso machine: the side panel is caved "
            "in and the water tank is cracked. Can you send a new one?",
            knows={"email": marcus.email, "order id": order.id, "refund or replacement": "a replacement, not a refund"},
        ),
        golden=[
            call("find_customer_by_email", email=marcus.email),
            call("get_order", order_id=order.id),
            call("check_inventory", product_id=ESPRESSO),
            call("list_tickets", requester_id=marcus.id),
            call("create_replacement_order", order_id=order.id, reason="damaged", order_item_ids=[espresso_line]),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    replacement = run.db.query(Order).filter(Order.replacement_for == order.id).one()
    assert [i.product_id for i in replacement.items] == [ESPRESSO]
    assert run.db.query(Refund).count() == 0
