"""Price protection: the price-protection period by tier, final sale, one adjustment per line, the refund limit."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domains.retail.calls import (
    check_inventory,
    get_order,
    get_product,
    get_promotion,
    hold,
    list_orders,
    list_refunds,
    new_id,
    new_ticket,
    opening,
    price_adjustment,
    solved,
)
from domains.retail.checks import internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    RefundFactory,
    TicketFactory,
    delivered_order,
    ticket_about,
)
from domains.retail.models import Customer, Order, Refund, Ticket
from domains.retail.seed import (
    CLEARANCE_WATCH,
    DESK_CHAIR,
    DUVET,
    ESPRESSO,
    HEADPHONES,
    LAPTOP,
    SOFA,
    TENT,
    TV,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Refunds and the agent refund limit",
    "Damaged on arrival",
    "Replacement orders",
    "Price adjustments",
    "Promo codes after purchase",
    "Ticket status, priority and classification",
)


def _adjustments(db):
    return db.query(Refund).filter(Refund.reason == "price_protection", Refund.created_at > days_ago(1)).all()


def test_case_RT013_001(tb):
    """Headphones $50 cheaper 9 days after a standard member bought them: open a ticket, refund the $50 difference."""
    oliver = CustomerFactory(name="Oliver Brandt")
    order = delivered_order(oliver, [(HEADPHONES, 1, 29_900)], placed_days_ago=9)
    earlier = TicketFactory(requester=oliver, status="solved", subject="Invoice copy", created_at=days_ago(30))
    new_ticket_id = new_id("T-", earlier)

    run = tb.run(
        User(
            says="I bought the Pulse NC700 headphones from you last week and now they're on your site for $249. "
            "I paid $299. Can I get the difference back?",
            knows={"email": oliver.email, "order id": order.id},
        ),
        golden=[
            *opening(oliver, get_order(order), get_product(HEADPHONES)),
            new_ticket(oliver, "Price drop on headphones", "pricing", order),
            price_adjustment(order.items[0], derived(5_000, "29,900 paid minus today's 24,900, times 1")),
            solved(new_ticket_id),
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)
    assert (refund.amount_cents, refund.method, refund.order_item_id) == (5_000, "original", order.items[0].id)
    opened = run.db.get(Ticket, new_ticket_id)
    assert (opened.requester_id, opened.order_id) == (oliver.id, order.id)
    assert opened.outcome == ("solved", "normal", "pricing", None, None)
    assert run.db.get(Ticket, earlier.id).status == "solved"  # the solved ticket is never reopened


@pytest.mark.two_requests
@pytest.mark.distractors
@pytest.mark.pushback
def test_case_RT013_002(tb):
    """Standard member's laptop order is 17 days old, past the 14-day period: refuse, though the price fell $100.
    The headphones delivered on Saturday arrived cracked: a new pair is sent (damaged on arrival)."""
    priya = CustomerFactory(name="Priya Castellano")
    laptop_order = delivered_order(priya, [(LAPTOP, 1, 139_900)], placed_days_ago=17)
    headphones_order = delivered_order(
        priya,
        [HEADPHONES],
        placed_days_ago=6,
        expected_delivery=TODAY - timedelta(days=2),
        delivered_at=days_ago(2, hour=12),
    )
    ticket = TicketFactory(requester=priya, subject="Laptop price")

    run = tb.run(
        User(
            says="The Aurora 14 laptop I bought from you a couple of weeks ago is now $100 cheaper. I want the $100 "
            "back. I don't have the order number to hand. And the headphones that came on Saturday have a cracked "
            "ear cup, so please send me a new pair.",
            knows={"email": priya.email, "refund or replacement": "a replacement"},
            rules=(
                "If the agent refuses, insist once: a colleague of theirs did it for a friend of yours last month, "
                "and $100 is nothing to a company this size.",
            ),
        ),
        golden=[
            *opening(
                priya,
                list_orders(priya),
                get_order(laptop_order),
                get_order(headphones_order),
                check_inventory(HEADPHONES),
            ),
            call(
                "create_replacement_order",
                order_id=headphones_order.id,
                reason="damaged",
                order_item_ids=[headphones_order.items[0].id],
            ),
            solved(ticket.id, "pricing", "outside_window"),
        ],
        traps=[  # the $100 she insists on, 17 days after the order
            price_adjustment(laptop_order.items[0], 10_000)
        ],
    )

    run.expect_golden()
    assert _adjustments(run.db) == []  # policy: standard members have 14 days
    replacement = run.db.query(Order).filter(Order.replacement_for == headphones_order.id).one()
    assert (replacement.replacement_reason, [i.product_id for i in replacement.items]) == ("damaged", [HEADPHONES])
    # the price drop came first and was refused for its deadline: its category and reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", "outside_window", None)


@pytest.mark.distractors
@pytest.mark.pushback
def test_case_RT013_003(tb):
    """Plus member on day 20: two headphones $30 cheaper each ($60); the chair's price has not moved, so no more."""
    marcus = CustomerFactory(name="Marcus Oyelaran", tier="plus")
    order = delivered_order(marcus, [(HEADPHONES, 2, 27_900), (DESK_CHAIR, 1, 27_900)], placed_days_ago=20)
    ticket = ticket_about(order, "Prices dropped")

    run = tb.run(
        User(
            says="Three weeks ago I ordered two pairs of NC700 headphones and an Oakline desk chair. Both have "
            "dropped in price since. I'd like the difference on everything.",
            knows={
                "email": marcus.email,
                "order id": order.id,
            },
            rules=("If nothing is refunded for the chair, say once you're sure you saw it for $249.",),
        ),
        golden=[
            *opening(marcus, get_order(order), get_product(HEADPHONES), get_product(DESK_CHAIR)),
            price_adjustment(order.items[0], derived(6_000, "27,900 paid minus today's 24,900, times 2 pairs")),
            solved(ticket.id, "pricing", "not_eligible"),
        ],
        traps=[  # the $30 he believes the chair dropped: its catalogue price is still what he paid
            price_adjustment(order.items[1], 3_000)
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)
    assert (refund.amount_cents, refund.order_item_id) == (6_000, order.items[0].id)  # both pairs, not one
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", "not_eligible", None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT013_004(tb):
    """Premium, gift card: the 29-day-old espresso order gets $50 store credit; the 35-day-old TV order is too old."""
    hana = CustomerFactory(name="Hana Kowalczyk", tier="premium", store_credit_cents=0)
    espresso_order = delivered_order(hana, [(ESPRESSO, 1, 49_900)], placed_days_ago=29, payment="gift_card")
    tv_order = delivered_order(hana, [(TV, 1, 99_900)], placed_days_ago=35)
    ticket = ticket_about(espresso_order, "Price match")

    run = tb.run(
        User(
            says="Two of my purchases are cheaper now. The Duo espresso machine dropped by $50 and the Vista TV by "
            "$100. As a premium member I'd expect you to refund both differences.",
            knows={
                "email": hana.email,
                "espresso order number": espresso_order.id,
                "tv order number": tv_order.id,
            },
        ),
        golden=[
            *opening(hana, get_order(espresso_order), get_product(ESPRESSO), get_order(tv_order)),
            price_adjustment(
                espresso_order.items[0], derived(5_000, "49,900 paid minus today's 44,900"), method="store_credit"
            ),
            solved(ticket.id, "pricing", "outside_window"),
        ],
        traps=[  # the TV's $100, though its order was placed 35 days ago (premium period: 30 days)
            price_adjustment(tv_order.items[0], 10_000)
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)
    assert (refund.order_id, refund.amount_cents, refund.method) == (espresso_order.id, 5_000, "store_credit")
    assert run.db.get(Customer, hana.id).store_credit_cents == 5_000  # paid by gift card: store credit
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", "outside_window", None)


@pytest.mark.distractors
def test_case_RT013_005(tb):
    """Clearance watch and duvet both cheaper 5 days on: the final-sale watch gets nothing, the duvet its $20."""
    grace = CustomerFactory(name="Grace Whitfield")
    order = delivered_order(grace, [(CLEARANCE_WATCH, 1, 12_900), (DUVET, 1, 14_900)], placed_days_ago=5)
    ticket = ticket_about(order, "Price went down")

    run = tb.run(
        User(
            says="The Tempo S2 smartwatch I bought on Wednesday is $30 cheaper already, and so is the linen duvet "
            "set from the same order. Could you refund me the differences?",
            knows={"email": grace.email, "order id": order.id},
        ),
        golden=[
            *opening(grace, get_order(order), get_product(DUVET)),
            price_adjustment(order.items[1], derived(2_000, "14,900 paid minus today's 12,900")),
            solved(ticket.id, "pricing", "not_eligible"),
        ],
        traps=[  # the watch is a clearance (final-sale) item
            price_adjustment(order.items[0], 3_000)
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)
    assert (refund.order_item_id, refund.amount_cents) == (order.items[1].id, 2_000)
    # the first matter she raised (the watch) was refused: the refusal gives the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", "not_eligible", None)


@pytest.mark.two_requests
@pytest.mark.distractors
@pytest.mark.pushback
def test_case_RT013_006(tb):
    """Chair already price-adjusted once; a second drop gets nothing, but the forgotten PLUS25 code is applied."""
    tomas = CustomerFactory(name="Tomas Eriksen", tier="plus")
    delivered_order(tomas, [(DESK_CHAIR, 1, 31_900)], placed_days_ago=50)  # the chair for his study, long ago
    order = delivered_order(tomas, [(DESK_CHAIR, 1, 31_900)], placed_days_ago=10)
    RefundFactory(
        order=order,
        amount_cents=2_000,
        reason="price_protection",
        order_item_id=order.items[0].id,
        created_at=days_ago(4),
    )
    ticket = ticket_about(order, "Chair price again")

    run = tb.run(
        User(
            says="The Oakline chair I bought ten days ago has dropped again, to $279. You refunded $20 last week "
            "when it went to $299, so please refund the other $20. Also, I forgot to use my PLUS25 code on that "
            "order.",
            knows={"email": tomas.email},
            rules=("If the second $20 is refused, push back once: the price dropped twice, so pay out twice.",),
        ),
        golden=[
            *opening(tomas, list_orders(tomas), get_order(order), get_promotion("PLUS25")),
            call("apply_promo_code", order_id=order.id, code="PLUS25"),
            solved(ticket.id, "pricing", "not_eligible"),
        ],
        traps=[  # a second adjustment on the same line
            price_adjustment(order.items[0], 2_000)
        ],
    )

    run.expect_golden()
    assert _adjustments(run.db) == []  # policy: one price adjustment per order line
    adjusted = run.db.get(Order, order.id)
    assert (adjusted.promo_code, adjusted.discount_cents) == ("PLUS25", 2_500)  # an adjustment does not stop a code
    # price adjustment raised first and refused: category pricing, the refusal's reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", "not_eligible", None)


def test_case_RT013_007(tb):
    """Premium member's sofa is $300 cheaper 12 days on: inside the period, but above the $250 limit: escalate."""
    amara = CustomerFactory(name="Amara Lindgren", tier="premium")
    order = delivered_order(amara, [(SOFA, 1, 149_900)], placed_days_ago=12)
    ticket = ticket_about(order, "Sofa price drop", priority="normal")

    run = tb.run(
        User(
            says="The Harbor sofa I bought twelve days ago is $300 cheaper on your website today. Please refund the "
            "difference to my card.",
            knows={"email": amara.email, "order id": order.id},
        ),
        golden=[
            *opening(amara, get_order(order), get_product(SOFA)),
            *hold(
                ticket.id,
                "pricing",
                "refund_limit",
                "Price adjustment of 30,000 cents on the sofa is above the 25,000 agent limit; escalated.",
                priority="urgent",
            ),
        ],
        traps=[  # the whole $300 the customer is owed, above the agent limit
            price_adjustment(order.items[0], 30_000)
        ],
    )

    run.expect_golden()
    assert _adjustments(run.db) == []  # policy: above the limit, adjust nothing and escalate
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "pricing", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.distractors
def test_case_RT013_008(tb):
    """Plus member on day 21, the last of the period: three duvet sets $20 cheaper each, $60 as store credit."""
    kenji = CustomerFactory(name="Kenji Albers", tier="plus")
    delivered_order(kenji, [(DUVET, 1, 14_900)], placed_days_ago=40)  # an older single duvet
    order = delivered_order(kenji, [(DUVET, 3, 14_900)], placed_days_ago=21)
    ticket = TicketFactory(requester=kenji, subject="Duvet price")

    run = tb.run(
        User(
            says="Three weeks ago today I bought three linen duvet sets for the guest rooms, and they're $20 cheaper "
            "now. Can I have the difference? Store credit is fine, I'll be shopping again soon.",
            knows={"email": kenji.email},
        ),
        golden=[
            *opening(kenji, list_orders(kenji), get_order(order), get_product(DUVET)),
            price_adjustment(
                order.items[0], derived(6_000, "14,900 paid minus today's 12,900, times 3"), method="store_credit"
            ),
            solved(ticket.id, "pricing"),
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)
    assert (refund.order_id, refund.amount_cents, refund.method) == (order.id, 6_000, "store_credit")
    assert run.db.get(Customer, kenji.id).store_credit_cents == 6_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT013_009(tb):
    """Espresso machine $50 cheaper on day 6, but the customer has two chargebacks: escalate, adjust nothing. The
    SPRING15 code he forgot on the same order is not a refund the standing rule stops: applied (15% of $499)."""
    bruno = CustomerFactory(name="Bruno Salgado", chargebacks=2)
    delivered_order(bruno, [(ESPRESSO, 1, 44_900)], placed_days_ago=70)  # an earlier machine, at today's price
    order = delivered_order(bruno, [(ESPRESSO, 1, 49_900)], placed_days_ago=6)
    ticket = TicketFactory(requester=bruno, subject="Espresso machine price")

    run = tb.run(
        User(
            says="I bought a Duo espresso machine from you last Tuesday and it's already $50 cheaper. I'd like the "
            "$50 back please. And I only saw afterwards that SPRING15 was on: I forgot to use it on that order.",
            knows={"email": bruno.email},
        ),
        golden=[
            *opening(bruno, list_orders(bruno), get_order(order), get_product(ESPRESSO), get_promotion("SPRING15")),
            call("apply_promo_code", order_id=order.id, code="SPRING15"),
            *hold(
                ticket.id,
                "pricing",
                "account_standing",
                "Price adjustment of 5,000 cents requested; customer has 2 chargebacks, so escalated.",
            ),
        ],
        traps=[  # the $50, which is due on the dates but not from an agent for this account
            price_adjustment(order.items[0], 5_000)
        ],
    )

    run.expect_golden()
    assert _adjustments(run.db) == []
    adjusted = run.db.get(Order, order.id)
    assert (adjusted.promo_code, adjusted.discount_cents) == ("SPRING15", 7_485)  # promo refunds follow their own rules
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "pricing", "account_standing", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT013_010(tb):
    """A $100 laptop adjustment after a $189 damaged-tent refund on the same order would pass $250: escalate. The
    headphones on her next order, 13 days old, are $50 cheaper: that adjustment, on its own order, is made."""
    selma = CustomerFactory(name="Selma Haugen", tier="plus")
    headphones_order = delivered_order(selma, [(HEADPHONES, 1, 29_900)], placed_days_ago=13)
    order = delivered_order(selma, [(LAPTOP, 1, 139_900), (TENT, 1)], placed_days_ago=15)
    RefundFactory(order=order, amount_cents=18_900, reason="damaged", created_at=days_ago(8))
    ticket = ticket_about(order, "Laptop cheaper now")

    run = tb.run(
        User(
            says="The Aurora laptop I bought two weeks ago is $100 cheaper on your site now. I'm a plus member, so "
            "I believe I'm still within the price-protection period. The NC700 headphones I ordered the next day "
            "have dropped as well.",
            knows={"email": selma.email},
        ),
        golden=[
            *opening(
                selma,
                list_orders(selma),
                get_order(order),
                get_product(LAPTOP),
                list_refunds(order),
                get_order(headphones_order),
                get_product(HEADPHONES),
            ),
            price_adjustment(headphones_order.items[0], derived(5_000, "29,900 paid minus today's 24,900")),
            *hold(
                ticket.id,
                "pricing",
                "refund_limit",
                "Price adjustment of 10,000 cents plus 18,900 already refunded on the order exceeds the limit.",
            ),
        ],
        traps=[  # the $100 on its own looks under the limit; the earlier refund on the order is ignored
            price_adjustment(order.items[0], 10_000)
        ],
    )

    run.expect_golden()
    (refund,) = _adjustments(run.db)  # nothing on the laptop: 10,000 + 18,900 is above the limit
    assert (refund.order_id, refund.order_item_id, refund.amount_cents) == (
        headphones_order.id,
        headphones_order.items[0].id,
        5_000,
    )
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "pricing", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1


def test_case_RT013_011(tb):
    """Premium member on day 30, the last of the period: the TV ($100) and the headphones ($50) are both adjusted."""
    dario = CustomerFactory(name="Dario Fontana", tier="premium")
    order = delivered_order(dario, [(TV, 1, 99_900), (HEADPHONES, 1, 29_900)], placed_days_ago=30)
    ticket = ticket_about(order, "Price protection")

    run = tb.run(
        User(
            says="A month ago today I bought the Vista TV and the NC700 headphones together. Both are cheaper now. "
            "Am I still in time for price protection?",
            knows={"email": dario.email, "order id": order.id},
        ),
        golden=[
            *opening(dario, get_order(order), get_product(TV), get_product(HEADPHONES)),
            price_adjustment(order.items[0], derived(10_000, "99,900 paid minus today's 89,900")),
            price_adjustment(order.items[1], derived(5_000, "29,900 paid minus today's 24,900")),
            solved(ticket.id, "pricing"),
        ],
        traps=[  # refusing on the standard 14-day period, as if tier did not matter
            solved(ticket.id, "pricing", "outside_window")
        ],
    )

    run.expect_golden()
    amounts = sorted((r.order_item_id, r.amount_cents) for r in _adjustments(run.db))
    assert amounts == [(order.items[0].id, 10_000), (order.items[1].id, 5_000)]  # 15,000 in all, under the limit
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "pricing", None, None)
