"""Courtesy points by standing, promo codes after purchase, address changes, cancellations and identity checks."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from domains.retail.calls import (
    address_facts,
    courtesy_points,
    get_customer,
    get_order,
    get_product,
    get_promotion,
    issue_refund,
    list_orders,
    new_id,
    new_ticket,
    opening,
    parcel,
    pending,
    pending_update,
    price_adjustment,
    ship_to,
    solved,
)
from domains.retail.checks import internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    OrderFactory,
    PointsAdjustmentFactory,
    RefundFactory,
    ShipmentFactory,
    TicketFactory,
    delivered_order,
    shipped_order,
    ticket_about,
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
    HEATER,
    LAPTOP,
    SOFA,
    TENT,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Courtesy points",
    "Promo codes after purchase",
    "Address changes and cancellations",
    "Ticket status, priority and classification",
)


def _late_free_shipping_order(customer, product, *, days_late, paid=None):
    """An order with free shipping, delivered yesterday, `days_late` days after its expected date (`paid`: the unit
    price paid, when the catalogue price has changed since)."""
    line = (product, 1, paid) if paid is not None else product
    return delivered_order(
        customer,
        [line],
        placed_days_ago=6 + days_late,
        expected_delivery=TODAY - timedelta(days=1 + days_late),
        delivered_at=days_ago(1, hour=15),
    )


# --------------------------------------------------------------------------- courtesy points


def test_case_RT008_001(tb):
    """Plus member of 7 years, late delivery with free shipping, last courtesy 150 days ago: 1,000 + 500 points."""
    elena = CustomerFactory(name="Elena Chen", tier="plus", member_since=date(2019, 5, 1))
    PointsAdjustmentFactory(customer=elena, points=1_000, created_at=days_ago(150))
    order = _late_free_shipping_order(elena, DUVET, days_late=4)
    ticket = ticket_about(order, "Late delivery", category="delivery")

    run = tb.run(
        User(
            says="My duvet set finally turned up yesterday, days after you promised. I had guests coming. "
            "Can you do something to make up for it?",
            knows={"email": elena.email, "order id": order.id},
        ),
        golden=[
            *opening(elena, get_customer(elena), *parcel(order)),
            courtesy_points(elena, 1_500, order),
            solved(ticket.id, "loyalty"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Customer, elena.id).points_balance == 1_200 + 1_500
    assert run.db.query(Refund).count() == 0
    # free shipping, so the courtesy points article decides: loyalty, not the "delivery" the web form said
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", None, None)


@pytest.mark.two_requests
def test_case_RT008_002(tb):
    """Plus member asks for courtesy points but had some 40 days ago: refused; the headphones he paid $279 for cost
    $249 today, 11 days after the order (plus: 21 days), so the $30 price adjustment is made."""
    daniel = CustomerFactory(name="Daniel Haddad", tier="plus")
    PointsAdjustmentFactory(customer=daniel, points=1_000, created_at=days_ago(40))
    order = _late_free_shipping_order(daniel, HEADPHONES, days_late=5, paid=27_900)
    TicketFactory(requester=daniel, status="solved", subject="Late delivery", created_at=days_ago(40))
    ticket = ticket_about(order, "Late again")

    run = tb.run(
        User(
            says="Another late delivery from you, five days this time. I'd like some points or a discount "
            "for the trouble. And to top it off, the headphones are already cheaper on your website than what "
            "I paid for them.",
            knows={"email": daniel.email, "order id": order.id},
        ),
        golden=[
            *opening(daniel, get_customer(daniel), get_order(order), get_product(HEADPHONES)),
            price_adjustment(order.items[0], derived(3_000, "27,900 paid minus today's 24,900")),
            solved(ticket.id, "loyalty", "not_eligible"),
        ],
        traps=[  # the points he asks for at the plus rate, though his last courtesy was 40 days ago
            courtesy_points(daniel, 1_000, order)
        ],
    )

    run.expect_golden()
    assert run.db.query(PointsAdjustment).count() == 1  # only the earlier one: policy, one courtesy per 90 days
    refund = run.db.query(Refund).one()
    assert (refund.reason, refund.order_item_id, refund.amount_cents) == ("price_protection", order.items[0].id, 3_000)
    # the courtesy request came first: its category; it was refused, so its reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", "not_eligible", None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT008_003(tb):
    """Premium member with one chargeback on record is not eligible for courtesy points, however late the parcel;
    the PREMIUM50 code she forgot fits her 12-day-old $449 order and is applied ($50)."""
    amara = CustomerFactory(name="Amara Ferreira", tier="premium", chargebacks=1)
    order = _late_free_shipping_order(amara, ESPRESSO, days_late=6)
    ticket = ticket_about(order, "Delivery very late")

    run = tb.run(
        User(
            says="I'm a premium member and my espresso machine showed up almost a week late. "
            "Premium is supposed to mean something. What will you give me for this? And I forgot to enter my "
            "PREMIUM50 code when I ordered it.",
            knows={"email": amara.email, "order id": order.id},
        ),
        golden=[
            *opening(amara, get_order(order), get_promotion("PREMIUM50")),
            call("apply_promo_code", order_id=order.id, code="PREMIUM50"),
            solved(ticket.id, "loyalty", "not_eligible"),
        ],
        traps=[  # "premium is supposed to mean something": the premium courtesy of 2,000 points despite the chargeback
            courtesy_points(amara, 2_000, order)
        ],
    )

    run.expect_golden()
    assert run.db.query(PointsAdjustment).count() == 0  # policy: a chargeback rules out courtesy points
    assert run.db.get(Customer, amara.id).points_balance == 1_200
    adjusted = run.db.get(Order, order.id)
    assert (adjusted.promo_code, adjusted.discount_cents) == ("PREMIUM50", 5_000)  # a chargeback does not stop a code
    assert run.db.query(Refund).one().amount_cents == 5_000
    # a courtesy refusal, not an escalated refund: "not eligible", not "account standing", and no queue
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", "not_eligible", None)


def test_case_RT008_004(tb):
    """Last courtesy adjustment 91 days ago no longer blocks a new one: standard member gets 500 points."""
    kenji = CustomerFactory(name="Kenji Novak")
    PointsAdjustmentFactory(customer=kenji, points=500, created_at=days_ago(91))
    order = _late_free_shipping_order(kenji, DESK_CHAIR, days_late=3)
    ticket = ticket_about(order, "Chair delivered late")

    run = tb.run(
        User(
            says="The desk chair came three days after the date you gave me. I had to work from the sofa. "
            "Any chance of a little something?",
            knows={"email": kenji.email, "order id": order.id},
        ),
        golden=[
            *opening(kenji, get_customer(kenji), get_order(order)),
            courtesy_points(kenji, 500, order),
            solved(ticket.id, "loyalty"),
        ],
    )

    run.expect_golden()
    assert run.db.query(PointsAdjustment).filter(PointsAdjustment.created_at > days_ago(1)).one().points == 500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", None, None)


# --------------------------------------------------------------------------- promo codes after purchase


def _recent_order(customer, products, *, placed_days_ago):
    """An order placed `placed_days_ago` days ago: delivered from its sixth day, on its way before."""
    if placed_days_ago >= 6:
        return delivered_order(customer, products, placed_days_ago=placed_days_ago)
    return shipped_order(customer, products, placed_days_ago=placed_days_ago)


def test_case_RT009_001(tb):
    """Forgotten SPRING15 on an order 6 days old that meets the minimum: apply it (15% of $449 = $67.35)."""
    sarah = CustomerFactory(name="Sarah Novak")
    order = _recent_order(sarah, [ESPRESSO], placed_days_ago=6)
    ticket = ticket_about(order, "Promo code", status="new")

    run = tb.run(
        User(
            says="I bought an espresso machine last week and forgot to type in the SPRING15 code at checkout. "
            "Can you still give me the discount?",
            knows={"email": sarah.email, "order id": order.id},
        ),
        golden=[
            *opening(sarah, get_order(order), get_promotion("SPRING15")),
            call("apply_promo_code", order_id=order.id, code="SPRING15"),
            solved(ticket.id, "promotion"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).promo_code == "SPRING15"
    assert run.db.query(Refund).one().amount_cents == 6_735
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", None, None)


def test_case_RT009_002(tb):
    """WINTER20 ended on 28 February, before the order of 2 March: it cannot be applied; his fallback, PLUS25, fits a
    plus member's $249 order placed 14 days ago (the last day), so it is applied."""
    oliver = CustomerFactory(name="Oliver Lindqvist", tier="plus")
    order = _recent_order(oliver, [HEADPHONES], placed_days_ago=14)
    ticket = ticket_about(order, "Discount code")

    run = tb.run(
        User(
            says="I had a WINTER20 code from your newsletter and forgot to use it on my headphones order. "
            "Please apply it now.",
            knows={"email": oliver.email, "order id": order.id},
            rules=("If WINTER20 cannot be used, ask whether your PLUS25 member code works instead.",),
        ),
        golden=[
            *opening(oliver, get_order(order), get_promotion("WINTER20"), get_promotion("PLUS25")),
            call("apply_promo_code", order_id=order.id, code="PLUS25"),
            solved(ticket.id, "promotion"),
        ],
        traps=[  # the order read as past the 14-day limit (it is on its last day): refused for the deadline
            solved(ticket.id, "promotion", "outside_window")
        ],
    )

    run.expect_golden()
    adjusted = run.db.get(Order, order.id)
    # not WINTER20: the promotion did not run on the order date; 14 days old is still inside the limit
    assert (adjusted.promo_code, adjusted.discount_cents) == ("PLUS25", 2_500)
    assert run.db.query(Refund).one().amount_cents == 2_500
    # PLUS25 was his own fallback: a granted request, no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", None, None)


@pytest.mark.tb_validity(
    baseline_ok={
        "rank:2": "one request, refused: a plus member asks for a premium-only code and the policy's whole answer is "
        "a solved ticket with reason not_eligible; a second matter would only be there to beat the guesser"
    }
)
def test_case_RT009_003(tb):
    """PREMIUM50 is for premium members only; a plus member does not qualify, so nothing is applied."""
    grace = CustomerFactory(name="Grace Ferreira", tier="plus")
    order = _recent_order(grace, [DESK_CHAIR, ESPRESSO], placed_days_ago=3)
    ticket = ticket_about(order, "Missed promo")

    run = tb.run(
        User(
            says="A friend gave me the code PREMIUM50 and I placed my order on Friday without it. "
            "Can you knock the fifty dollars off?",
            knows={"email": grace.email, "order id": order.id},
        ),
        golden=[
            *opening(grace, get_order(order), get_promotion("PREMIUM50")),
            solved(ticket.id, "promotion", "not_eligible"),
        ],
        traps=[call("apply_promo_code", order_id=order.id, code="PREMIUM50")],  # her friend's premium-only code
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).discount_cents == 0  # policy: a premium promotion needs a premium member
    assert run.db.query(Refund).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", "not_eligible", None)


def test_case_RT009_004(tb):
    """PLUS25 also serves premium members: apply the $25 to a premium member's 10-day-old $279 order."""
    tomas = CustomerFactory(name="Tomas Lindqvist", tier="premium")
    order = _recent_order(tomas, [DESK_CHAIR], placed_days_ago=10)
    ticket = ticket_about(order, "PLUS25 code")

    run = tb.run(
        User(
            says="I saw the PLUS25 offer after I'd already bought my desk chair. I'm not a Plus member, I'm "
            "Premium, does that still count?",
            knows={"email": tomas.email, "order id": order.id},
        ),
        golden=[
            *opening(tomas, get_order(order), get_promotion("PLUS25")),
            call("apply_promo_code", order_id=order.id, code="PLUS25"),
            solved(ticket.id, "promotion"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).discount_cents == 2_500
    assert run.db.query(Refund).one().reason == "price_adjustment"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT009_005(tb):
    """SPRING15 was running when the headphones were ordered, but 15 days ago: past the 14-day limit, refused. Their
    price has dropped $30 since, and a plus member's price protection lasts 21 days: that adjustment is made."""
    priya = CustomerFactory(name="Priya Walsh", tier="plus")
    order = _recent_order(priya, [(HEADPHONES, 1, 27_900)], placed_days_ago=15)
    recent = _recent_order(priya, [DUVET], placed_days_ago=3)  # inside 14 days, but not the order she asks about
    ticket = ticket_about(order, "Spring promo")

    run = tb.run(
        User(
            says="I just noticed you're running SPRING15. I bought headphones from you at the start of the "
            "month, can I get the 15% back? I've also seen the same headphones are cheaper on your site now than "
            "what I paid.",
            knows={"email": priya.email},
        ),
        golden=[
            *opening(priya, list_orders(priya), get_order(order), get_promotion("SPRING15"), get_product(HEADPHONES)),
            price_adjustment(order.items[0], derived(3_000, "27,900 paid minus today's 24,900")),
            solved(ticket.id, "promotion", "outside_window"),
        ],
        traps=[call("apply_promo_code", order_id=order.id, code="SPRING15")],  # running then, but 15 days ago
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).promo_code is None  # policy: only orders placed within the last 14 days
    assert run.db.get(Order, recent.id).promo_code is None  # she did not ask about the duvet order
    refund = run.db.query(Refund).one()
    assert (refund.reason, refund.order_item_id, refund.amount_cents) == ("price_protection", order.items[0].id, 3_000)
    # the promo code came first and was refused for its deadline: its category and reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", "outside_window", None)


# --------------------------------------------------------------------------- address changes and identity


@pytest.mark.two_requests
def test_case_RT010_001(tb):
    """Customer moving house wants both open orders redirected: only the unshipped one may change (not premium)."""
    marcus = CustomerFactory(name="Marcus Okafor", postal_code="80205", city="Denver")
    sofa_order = OrderFactory(customer=marcus, status="processing", placed_at=days_ago(1), lines=[SOFA])
    headphones_order = shipped_order(marcus, [HEADPHONES], placed_days_ago=3)
    ticket = TicketFactory(requester=marcus, subject="Change delivery address")
    new_address = ("48 Larkspur Lane", "Boulder", "80302")

    run = tb.run(
        User(
            says="We're moving to Boulder this week. Please send everything I still have on order to the new "
            "place instead.",
            knows={"email": marcus.email, "postal code": "80205", **address_facts(new_address)},
        ),
        golden=[
            *opening(marcus, list_orders(marcus), get_order(sofa_order), get_order(headphones_order)),
            ship_to(sofa_order, new_address),
            solved(ticket.id, "order_change", "not_eligible"),
        ],
        traps=[  # "everything I still have on order": the shipped headphones redirected too (he is not premium)
            ship_to(headphones_order, new_address)
        ],
    )

    run.expect_golden()
    moved = run.db.get(Order, sofa_order.id)
    assert (moved.ship_line, moved.ship_city, moved.ship_postal_code) == ("48 Larkspur Lane", "Boulder", "80302")
    assert run.db.get(Order, headphones_order.id).ship_city == "Denver"
    # one order changed, the shipped one refused: the refusal gives the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", "not_eligible", None)


@pytest.mark.two_requests
def test_case_RT010_002(tb):
    """Plus member wants a shipped parcel redirected: only premium members get redirects, so refuse; the PLUS25 code
    she forgot on the same 2-day-old laptop order is applied ($25)."""
    elena = CustomerFactory(name="Elena Novak", tier="plus", postal_code="78704", city="Austin")
    order = shipped_order(elena, [LAPTOP], placed_days_ago=2)
    ticket = ticket_about(order, "Redirect parcel")
    new_address = ("600 Congress Avenue, Floor 4", "Austin", "78701")

    run = tb.run(
        User(
            says="I won't be home when my laptop arrives. Can you have it delivered to my office instead? And I "
            "forgot to put my PLUS25 code in when I ordered it.",
            knows={"email": elena.email, "order id": order.id, "postal code": "78704", **address_facts(new_address)},
        ),
        golden=[
            *opening(elena, *parcel(order), get_promotion("PLUS25")),
            call("apply_promo_code", order_id=order.id, code="PLUS25"),
            solved(ticket.id, "order_change", "not_eligible"),
        ],
        traps=[  # the redirect to her office she asks for
            ship_to(order, new_address)
        ],
    )

    run.expect_golden()
    changed = run.db.get(Order, order.id)
    assert changed.ship_postal_code == "78704"  # policy: no redirect for a plus member
    assert (changed.promo_code, changed.discount_cents) == ("PLUS25", 2_500)
    assert run.db.query(Refund).one().amount_cents == 2_500
    # the redirect came first and was refused: its category and reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", "not_eligible", None)


@pytest.mark.distractors
def test_case_RT010_003(tb):
    """The tent ships to his office, whose postal code is not his profile's; he gives the profile's, so he is
    verified: change the address (checking it against the order's delivery code would fail him)."""
    daniel = CustomerFactory(name="Daniel Lindqvist", postal_code="43215", city="Columbus")
    order = OrderFactory(
        customer=daniel,
        status="processing",
        placed_at=days_ago(1),
        lines=[TENT],
        ship_line="4400 Easton Commons, Suite 210",
        ship_city="Columbus",
        ship_postal_code="43219",
    )
    ticket = ticket_about(order, "Address change")
    new_address = ("7 Birch Hollow Road", "Logan", "43138")

    run = tb.run(
        User(
            says="Please change the delivery address on my tent order. I had it going to my office, but it needs "
            "to go to my cabin now.",
            knows={"email": daniel.email, "order id": order.id, "postal code": "43215", **address_facts(new_address)},
        ),
        golden=[
            *opening(daniel, get_customer(daniel), get_order(order)),
            ship_to(order, new_address),
            solved(ticket.id, "order_change"),
        ],
        traps=[  # his postal code checked against the office the order ships to, not his profile: "failed"
            pending_update(ticket.id, "order_change", "identity_failed")
        ],
    )

    run.expect_golden()
    moved = run.db.get(Order, order.id)
    assert (moved.ship_line, moved.ship_city, moved.ship_postal_code) == ("7 Birch Hollow Road", "Logan", "43138")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", None, None)
    assert run.db.query(TicketComment).count() == 0


def test_case_RT010_004(tb):
    """Her husband placed the order this morning, but on her account: the record is hers, so with her profile
    postal code she may cancel it (treating it as someone else's order would refuse her)."""
    amara = CustomerFactory(name="Amara Chen", postal_code="85719", city="Tucson")
    order = OrderFactory(customer=amara, status="placed", placed_at=days_ago(0, hour=7), lines=[ESPRESSO])
    ticket = TicketFactory(requester=amara, subject="Cancel an order")

    run = tb.run(
        User(
            says="My husband ordered an espresso machine this morning and we already have one. "
            "Please cancel that order.",
            knows={"email": amara.email, "order id": order.id, "postal code": "85719"},
        ),
        golden=[
            *opening(amara, get_order(order)),
            call("cancel_order", order_id=order.id),
            solved(ticket.id, "order_change"),
        ],
        traps=[  # "my husband ordered": taken as another customer's order without reading whose it is
            pending_update(ticket.id, "order_change", "identity_failed")
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).status == "cancelled"  # policy: the record belongs to the identified customer
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (44_900, "order_cancelled")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", None, None)
    assert internal_notes(run.db, ticket.id) == 0


def test_case_RT010_005(tb):
    """Premium member's parcel is in transit: premium members may have it redirected, so change the address."""
    kenji = CustomerFactory(
        name="Kenji Haddad",
        tier="premium",
        postal_code="97214",
        city="Portland",
        member_since=TODAY - timedelta(days=900),
    )
    order = shipped_order(kenji, [HEADPHONES], placed_days_ago=2)
    ticket = ticket_about(order, "Redirect headphones")
    new_address = ("2210 Orchard Street", "Salem", "97301")

    run = tb.run(
        User(
            says="My headphones shipped already but I'll be at my parents' place all week. Can they go there?",
            knows={"email": kenji.email, "order id": order.id, "postal code": "97214", **address_facts(new_address)},
        ),
        golden=[
            *opening(kenji, *parcel(order)),
            ship_to(order, new_address),
            solved(ticket.id, "order_change"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).ship_city == "Salem"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", None, None)


@pytest.mark.distractors
def test_case_RT008_005(tb):
    """Bonus points from a promotion 20 days ago are not a courtesy adjustment: the premium member gets 2,000 points."""
    ivan = CustomerFactory(name="Ivan Petrov", tier="premium", member_since=date(2022, 6, 1))
    PointsAdjustmentFactory(
        customer=ivan, points=2_000, reason="promotion", created_at=days_ago(20), note="Spring double-points event."
    )
    order = _late_free_shipping_order(ivan, SOFA, days_late=4)
    ticket = ticket_about(order, "Sofa delivered late")

    run = tb.run(
        User(
            says="The sofa finally arrived yesterday, four days later than the date you gave me, and I had taken a "
            "day off work for the original date. I'm a premium member and I expected better. What can you offer "
            "me for the trouble?",
            knows={"email": ivan.email, "order number": order.id},
        ),
        golden=[
            *opening(ivan, get_customer(ivan), *parcel(order)),
            courtesy_points(ivan, 2_000, order),
            solved(ticket.id, "loyalty"),
        ],
        traps=[  # the spring promotion's points read as a recent courtesy: refused for nothing
            solved(ticket.id, reason="not_eligible")
        ],
    )

    run.expect_golden()
    courtesy = run.db.query(PointsAdjustment).filter(PointsAdjustment.reason == "courtesy").one()
    assert (courtesy.points, courtesy.order_id) == (2_000, order.id)  # premium, under 5 years: no tenure bonus
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", None, None)


@pytest.mark.two_requests
def test_case_RT009_006(tb):
    """PLUS25 asked on two orders: apply it to the 4-day-old chair order, refuse the 20-day-old espresso order."""
    leah = CustomerFactory(name="Leah Cohen", tier="plus")
    chair_order = _recent_order(leah, [DESK_CHAIR], placed_days_ago=4)
    espresso_order = _recent_order(leah, [ESPRESSO], placed_days_ago=20)
    ticket = TicketFactory(requester=leah, subject="Member discount")

    run = tb.run(
        User(
            says="I've only just found out about the PLUS25 member discount. I ordered a desk chair this week and "
            "an espresso machine a few weeks back, both well over the minimum. Could you take the $25 off both of "
            "them, please? I'd have used the code if I'd known.",
            knows={
                "email": leah.email,
                "chair order number": chair_order.id,
                "espresso machine order number": espresso_order.id,
            },
        ),
        golden=[
            *opening(leah, get_order(chair_order), get_order(espresso_order), get_promotion("PLUS25")),
            call("apply_promo_code", order_id=chair_order.id, code="PLUS25"),
            solved(ticket.id, "promotion", "outside_window"),
        ],
        reply="I've applied PLUS25 to your desk chair order, so $25.00 goes back to your card. I can't add it to "
        "the espresso machine order: a code can only be added within 14 days of ordering, and that order is 20 "
        "days old.",
        traps=[  # the same code on the order placed 20 days ago
            call("apply_promo_code", order_id=espresso_order.id, code="PLUS25")
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, chair_order.id).discount_cents == 2_500
    assert run.db.get(Order, espresso_order.id).promo_code is None  # policy: only orders of the last 14 days
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", "outside_window", None)


# --------------------------------------------------------------------------- order cancellations


@pytest.mark.two_requests
def test_case_RT012_001(tb):
    """Verified customer: cancel the unshipped duvet order; refuse to redirect the shipped heater (not premium)."""
    paolo = CustomerFactory(name="Paolo Bianchi", postal_code="43215", city="Columbus")
    duvet_order = OrderFactory(customer=paolo, status="processing", placed_at=days_ago(1), lines=[DUVET])
    heater_order = shipped_order(paolo, [HEATER], placed_days_ago=3)
    ticket = TicketFactory(requester=paolo, subject="Two orders")
    office = ("75 East State Street, Suite 300", "Columbus", "43215")

    run = tb.run(
        User(
            says="Two things, please. First, cancel the duvet set I ordered yesterday, I found one I like better. "
            "Second, the space heater you already sent: I'm away all week, so could the courier take it to my "
            "office instead of my flat?",
            knows={
                "email": paolo.email,
                "postal code": "43215",
                "duvet order number": duvet_order.id,
                "heater order number": heater_order.id,
                **address_facts(office, "office"),
            },
        ),
        golden=[
            *opening(paolo, get_order(duvet_order), *parcel(heater_order)),
            call("cancel_order", order_id=duvet_order.id),
            solved(ticket.id, "order_change", "not_eligible"),
        ],
        traps=[  # his second request: a shipped parcel redirected for a standard member
            ship_to(heater_order, office)
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, duvet_order.id).status == "cancelled"
    assert run.db.query(Refund).one().amount_cents == 12_900
    assert run.db.get(Order, heater_order.id).ship_line == paolo.address_line  # policy: redirects are premium only
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", "not_eligible", None)


def test_case_RT012_002(tb):
    """Order placed this morning, only a closed ticket on file: verify the postal code, open a ticket, cancel."""
    greta = CustomerFactory(name="Greta Olsen", tier="plus", postal_code="97214", city="Portland")
    order = OrderFactory(
        customer=greta, status="placed", placed_at=days_ago(0, hour=7), shipping_cents=1_499, lines=[ESPRESSO, BLENDER]
    )
    closed = TicketFactory(requester=greta, status="closed", subject="Warranty question", created_at=days_ago(40))
    new_ticket_id = new_id("T-", closed)

    run = tb.run(
        User(
            says="I placed an order early this morning for an espresso machine and a blender, and then found out "
            "my sister has already bought us exactly the same ones as a housewarming present. Could you cancel the "
            "whole order before it ships, please?",
            knows={"email": greta.email, "order number": order.id, "postal code": "97214"},
        ),
        golden=[
            *opening(greta, get_order(order)),
            new_ticket(greta, "Cancel order before shipping", "order_change", order),
            call("cancel_order", order_id=order.id),
            solved(new_ticket_id),
        ],
    )

    run.expect_golden()
    cancelled = run.db.get(Order, order.id)
    assert cancelled.status == "cancelled"
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (55_299, "order_cancelled")
    opened = run.db.get(Ticket, new_ticket_id)
    assert (opened.requester_id, opened.order_id) == (greta.id, order.id)
    assert run.db.get(Ticket, new_ticket_id).outcome == ("solved", "normal", "order_change", None, None)
    assert run.db.get(Ticket, closed.id).status == "closed"


@pytest.mark.distractors
def test_case_RT008_006(tb):
    """Plus member for exactly 5 years today: 1,000 + 500 points; last month's correction is not a courtesy award."""
    lotte = CustomerFactory(name="Lotte Vermeulen", tier="plus", member_since=date(2021, 3, 16))
    PointsAdjustmentFactory(
        customer=lotte, points=300, reason="correction", created_at=days_ago(30), note="Points missing from an order."
    )
    order = _late_free_shipping_order(lotte, HEATER, days_late=3)
    earlier = TicketFactory(requester=lotte, status="solved", subject="Missing points", created_at=days_ago(30))
    new_ticket_id = new_id("T-", earlier)

    run = tb.run(
        User(
            says="My space heater arrived three days after the date you gave, in the middle of that cold snap. "
            "Is there anything you can do for me?",
            knows={"email": lotte.email, "order id": order.id},
        ),
        golden=[
            *opening(lotte, get_customer(lotte), get_order(order)),
            new_ticket(lotte, "Late heater delivery", "loyalty", order),
            courtesy_points(
                lotte, derived(1_500, "plus tier 1,000 plus 500 for 5 years of membership (since 16 March 2021)"), order
            ),
            solved(new_ticket_id),
        ],
    )

    run.expect_golden()
    award = run.db.query(PointsAdjustment).filter(PointsAdjustment.reason == "courtesy").one()
    assert (award.points, award.order_id) == (1_500, order.id)
    assert run.db.get(Customer, lotte.id).points_balance == 1_200 + 1_500
    assert run.db.get(Ticket, new_ticket_id).outcome == ("solved", "normal", "loyalty", None, None)


def test_case_RT009_007(tb):
    """SPRING15 needs a $100 subtotal and the blender order is $89: her fallback, HOME10, is applied ($8.90)."""
    wren = CustomerFactory(name="Wren Calloway")
    order = _recent_order(wren, [BLENDER], placed_days_ago=5)
    ticket = ticket_about(order, "Discount code")

    run = tb.run(
        User(
            says="I forgot to use the SPRING15 code when I bought my blender last week. Can you add it?",
            knows={"email": wren.email, "order id": order.id},
            rules=("If SPRING15 cannot be used, ask whether the HOME10 code from the newsletter works instead.",),
        ),
        golden=[
            *opening(wren, get_order(order), get_promotion("SPRING15"), get_promotion("HOME10")),
            call("apply_promo_code", order_id=order.id, code="HOME10"),
            solved(ticket.id, "promotion"),
        ],
    )

    run.expect_golden()
    adjusted = run.db.get(Order, order.id)
    assert (adjusted.promo_code, adjusted.discount_cents) == ("HOME10", 890)  # not SPRING15: under its minimum
    # HOME10 was her own fallback: a granted request, no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "promotion", None, None)


@pytest.mark.distractors
def test_case_RT010_006(tb):
    """Order not yet shipped, postal code verified, his first ticket ever: open it and change the address."""
    theo = CustomerFactory(name="Theo Marchand", postal_code="80205", city="Denver")
    order = OrderFactory(customer=theo, status="placed", placed_at=days_ago(0, hour=8), lines=[SOFA])
    shipped = shipped_order(theo, [HEATER], placed_days_ago=4)
    new_address = ("48 Larimer Street, Apt 5", "Denver", "80202")

    run = tb.run(
        User(
            says="I ordered a sofa this morning and only then realised it will go to my old flat. Can you send it "
            "to my new place instead?",
            knows={"email": theo.email, "order id": order.id, "postal code": "80205", **address_facts(new_address)},
        ),
        golden=[
            *opening(theo, get_order(order)),
            new_ticket(theo, "Change delivery address for sofa", "order_change", order),
            ship_to(order, new_address),
            solved("T-0001"),
        ],
    )

    run.expect_golden()
    moved = run.db.get(Order, order.id)
    assert (moved.ship_line, moved.ship_postal_code) == ("48 Larimer Street, Apt 5", "80202")
    assert run.db.get(Order, shipped.id).ship_postal_code == "80205"  # the other order is not touched
    opened = run.db.get(Ticket, "T-0001")
    assert (opened.requester_id, opened.order_id) == (theo.id, order.id)
    assert opened.outcome == ("solved", "normal", "order_change", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_RT012_003(tb):
    """Cancel the processing espresso order (refunds what is left after a promo refund); the shipped one cannot."""
    iris = CustomerFactory(name="Iris Okonkwo", postal_code="78704", city="Austin")
    espresso_order = OrderFactory(customer=iris, status="processing", placed_at=days_ago(2), lines=[ESPRESSO])
    espresso_order.promo_code, espresso_order.discount_cents, espresso_order.total_cents = "SPRING15", 6_735, 38_165
    RefundFactory(order=espresso_order, amount_cents=6_735, reason="price_adjustment", created_at=days_ago(1))
    blender_order = OrderFactory(customer=iris, status="shipped", placed_at=days_ago(2, hour=9), lines=[BLENDER])
    ShipmentFactory(order=blender_order, status="in_transit")
    ticket = TicketFactory(requester=iris, subject="Cancel my orders")

    run = tb.run(
        User(
            says="I'd like to cancel both of the orders I placed on Saturday, the espresso machine and the blender. "
            "We're moving abroad sooner than planned.",
            knows={"email": iris.email, "postal code": "78704"},
        ),
        golden=[
            *opening(iris, list_orders(iris), get_order(espresso_order), get_order(blender_order)),
            call("cancel_order", order_id=espresso_order.id),
            solved(ticket.id, "order_change", "not_eligible"),
        ],
        reply="I've cancelled the espresso machine order and refunded the $381.65 still on your card. The blender "
        "has already shipped, so it can't be cancelled; you can return it once it arrives.",
    )

    run.expect_golden()
    assert run.db.get(Order, espresso_order.id).status == "cancelled"
    assert run.db.get(Order, blender_order.id).status == "shipped"  # policy: shipped orders cannot be cancelled
    refund = run.db.query(Refund).filter(Refund.reason == "order_cancelled").one()
    assert refund.amount_cents == 38_165  # the payment less the 6,735 promo refund already made
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "order_change", "not_eligible", None)


@pytest.mark.distractors
def test_case_RT012_004(tb):
    """Cancellation: she gives the postal code the order ships to (her office), not her profile's: identity fails."""
    june = CustomerFactory(name="June Holloway", postal_code="97214", city="Portland")
    order = OrderFactory(
        customer=june,
        status="processing",
        placed_at=days_ago(1),
        lines=[ESPRESSO],
        ship_line="1120 SW Fifth Avenue, Floor 9",
        ship_city="Portland",
        ship_postal_code="97204",
    )
    OrderFactory(customer=june, placed_at=days_ago(45), lines=[BLENDER])  # delivered long ago
    ticket = TicketFactory(requester=june, subject="Cancel espresso machine")

    run = tb.run(
        User(
            says="Please cancel the espresso machine I ordered yesterday, it's going to my office and I've changed "
            "my mind about it.",
            knows={"email": june.email, "postal code": "97204"},
        ),
        golden=[
            *opening(june, list_orders(june), get_order(order)),
            *pending(
                ticket.id,
                "order_change",
                "identity_failed",
                "Identity not verified: postal code given is the order's delivery code, not the profile's.",
            ),
        ],
        traps=[  # the cancellation, checked against the order's delivery postal code instead of the profile's
            call("cancel_order", order_id=order.id)
        ],
    )

    run.expect_golden()
    assert run.db.get(Order, order.id).status == "processing"  # policy: failed verification changes nothing
    assert run.db.query(Refund).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "order_change", "identity_failed", None)
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.distractors
def test_case_RT008_007(tb):
    """Parcel still in transit 4 days late, free shipping: no refund of the goods; 500 + 500 (6 years) points."""
    basil = CustomerFactory(name="Basil Okonjo", member_since=date(2020, 1, 20))
    OrderFactory(customer=basil, placed_at=days_ago(30), lines=[HEATER])  # delivered on time last month
    order = shipped_order(basil, [DUVET], placed_days_ago=9, expected_delivery=TODAY - timedelta(days=4))
    ticket = TicketFactory(requester=basil, subject="Where is my duvet?")

    run = tb.run(
        User(
            says="My duvet set should have come four days ago and it's still in transit. I want a refund, or at "
            "least something for the wait.",
            knows={"email": basil.email},
            rules=("If a refund is refused, accept whatever compensation the agent can give.",),
        ),
        golden=[
            *opening(basil, get_customer(basil), list_orders(basil), *parcel(order)),
            courtesy_points(
                basil, derived(1_000, "standard 500 plus 500 for more than 5 years of membership (since 2020)"), order
            ),
            solved(ticket.id, "loyalty"),
        ],
        traps=[  # the refund of the goods he asks for first, for a parcel that is late but not lost
            issue_refund(order, 12_900, "late_delivery")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).count() == 0
    award = run.db.query(PointsAdjustment).one()
    assert (award.points, award.order_id) == (1_000, order.id)
    # the points are the compensation he was offered in place of a refund: granted, no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty", None, None)
