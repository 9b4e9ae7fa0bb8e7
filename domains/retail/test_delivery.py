"""Delivery problems: carrier exceptions, lost and late parcels, parcels returned to sender."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.calls import (
    carrier_hold,
    check_inventory,
    courtesy_points,
    file_claim,
    get_customer,
    get_job,
    get_order,
    get_product,
    get_return,
    get_warranty,
    hold,
    hold_update,
    issue_refund,
    list_orders,
    new_id,
    new_ticket,
    opening,
    parcel,
    price_adjustment,
    refund_return,
    ship_to,
    solved,
)
from domains.retail.checks import CARRIER_DAYS, CARRIER_DAYS_PHRASES, internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    RefundFactory,
    ShipmentFactory,
    TicketFactory,
    carrier_exception,
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
    carrier_exception(order, days_ago(3), "Package damaged at sort facility; under review")
    blender_order = delivered_order(
        sarah,
        [BLENDER],
        placed_days_ago=30,
        shipping_cents=999,
        expected_delivery=TODAY - timedelta(days=24),
        delivered_at=days_ago(20, hour=13),
    )
    TicketFactory(requester=sarah, status="solved", subject="Invoice copy", created_at=days_ago(30))
    ticket = ticket_about(order, "Where is my order?")

    run = tb.run(
        User(
            says="My order is days past its delivery date and the tracking page just says 'exception'. "
            "I've waited long enough, please refund me. And while I'm at it: the blender I ordered last month "
            "turned up four days late as well, and I paid for shipping on that one. I think I'm owed something.",
            knows={"email": sarah.email, "order id": order.id, "blender order id": blender_order.id},
        ),
        golden=[
            *opening(sarah, *parcel(order), *parcel(blender_order)),
            issue_refund(blender_order, 999, "late_delivery"),
            *carrier_hold(
                ticket.id, "Carrier exception opened 3 days ago; awaiting the carrier investigation before any refund."
            ),
        ],
        reply="The carrier opened an investigation into your parcel 3 days ago and has up to 7 days to finish it, "
        "so I can't refund the order yet; your ticket is on hold with high priority and we'll follow up as soon as "
        "the carrier answers. Your blender arrived 4 days late, so I've refunded its $9.99 shipping charge to your "
        "card.",
        traps=[
            # the full refund she demands, though the carrier investigation is still running
            issue_refund(order, 74_799, "lost_parcel"),
            # plus-tier courtesy points for the late blender, though its shipping was charged (and refunded)
            courtesy_points(sarah, 1_000, blender_order),
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
    carrier_exception(order, days_ago(5), "Held at depot: address query", carrier="FedEx")
    ticket = ticket_about(order, "Headphones not arrived")

    run = tb.run(
        User(
            says="The headphones I ordered are stuck somewhere with FedEx. Can you just send me another pair? "
            "I need them for a trip.",
            knows={"email": marcus.email, "order id": order.id},
        ),
        golden=[
            *opening(marcus, *parcel(order)),
            *carrier_hold(
                ticket.id,
                "Exception open 5 days; waiting for the carrier investigation, no replacement yet.",
                priority="urgent",
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
    carrier_exception(order, days_ago(8), "Label unreadable", carrier="USPS")
    ticket = ticket_about(order, "Tent never arrived")

    run = tb.run(
        User(
            says="I ordered a tent two weeks ago and it still hasn't shown up. Tracking says there's a problem "
            "with the parcel. I'd like my money back.",
            knows={"email": priya.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            *opening(priya, *parcel(order)),
            issue_refund(order, 19_899, "lost_parcel"),
            solved(ticket.id, "delivery"),
        ],
        traps=[  # the carrier-exception hold, as if the investigation were still running after 8 days
            hold_update(ticket.id, None, "awaiting_carrier")
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
    duvet_order = delivered_order(hannah, [DUVET], placed_days_ago=30)
    order = OrderFactory(
        customer=hannah, status="shipped", placed_at=days_ago(11), shipping_cents=1_299, lines=[DESK_CHAIR]
    )
    carrier_exception(order, days_ago(6), "Address query: apartment number missing", carrier="FedEx")
    headphones_order = OrderFactory(
        customer=hannah, status="processing", placed_at=days_ago(1, hour=20), lines=[HEADPHONES]
    )
    ticket = ticket_about(order, "Chair delivery stuck", created_at=days_ago(1, hour=18))
    other = ticket_about(duvet_order, "Duvet cover colour", created_at=days_ago(0, hour=8))

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
            *opening(hannah, *parcel(order), get_order(headphones_order)),
            call("cancel_order", order_id=headphones_order.id),
            *carrier_hold(
                ticket.id, "FedEx exception opened 6 days ago (address query); awaiting the carrier investigation."
            ),
        ],
        reply="FedEx opened an investigation into the address query 6 days ago and has up to 7 days to finish it, "
        "so I can't refund the chair yet; your ticket is on hold with our carrier claims team. I've cancelled the "
        "headphones order, and its $249.00 goes back to your card.",
        traps=[
            # the refund she asks for: the whole order, while the investigation still has a day to run
            issue_refund(order, 29_199, "lost_parcel"),
            # her newest open ticket is about the duvet, not this parcel
            hold_update(other.id, "delivery", "awaiting_carrier"),
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
    carrier_exception(order, days_ago(2), "Damaged label; parcel held for relabelling")
    chair_order = delivered_order(ravi, [DESK_CHAIR], placed_days_ago=30)
    rma = received_return(
        chair_order.items[0], "unopened", "opened", created_at=days_ago(9), received_at=days_ago(3, hour=14)
    )
    ticket = ticket_about(order, "Headphones a week late")

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
            *opening(ravi, *parcel(order), get_return(rma)),
            refund_return(rma, 10),
            *carrier_hold(
                ticket.id, "Carrier exception opened 2 days ago; no refund of any kind until the investigation ends."
            ),
        ],
        reply="The carrier opened an investigation into the label problem 2 days ago and has up to 7 days to "
        "finish it. Until then I can't refund anything on that order, not even the shipping, so your ticket is on "
        "hold with our carrier claims team. Our warehouse found the chair opened, so the 10% furniture restocking "
        "fee applies: $251.10 is on its way back to your card.",
        traps=[  # his fallback: the shipping charge, as if the late-delivery rule applied during an exception
            issue_refund(order, 1_499, "late_delivery")
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
    order = shipped_order(elena, [BLENDER, DUVET], placed_days_ago=15, parcel="lost")
    ticket = ticket_about(order, "Lost parcel")

    run = tb.run(
        User(
            says="UPS says my parcel is lost. Can you send the blender and the duvet again? And honestly I think "
            "I deserve something extra for all this hassle.",
            knows={"email": elena.email, "order id": order.id, "refund or replacement": "a replacement, not a refund"},
        ),
        golden=[
            *opening(elena, *parcel(order), check_inventory(BLENDER), check_inventory(DUVET)),
            call("create_replacement_order", order_id=order.id, reason="lost_parcel"),
            solved(ticket.id, "delivery", "not_eligible"),
        ],
        traps=[  # "something extra for all this hassle": plus tier 1,000 + 500 for six years of membership
            courtesy_points(elena, 1_500, order)
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
    order = shipped_order(
        daniel,
        [RAIN_JACKET],
        placed_days_ago=18,
        expected_delivery=TODAY - timedelta(days=12),
        shipping_cents=799,
        payment="gift_card",
    )
    ticket = ticket_about(order, "Jacket still in transit")

    run = tb.run(
        User(
            says="My rain jacket has been 'in transit' for weeks. I give up on it, just refund me please.",
            knows={"email": daniel.email, "order id": order.id, "refund or replacement": "a refund, not a replacement"},
        ),
        golden=[
            *opening(daniel, *parcel(order)),
            issue_refund(order, 15_699, "lost_parcel", method="store_credit"),
            solved(ticket.id, "delivery"),
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
    blender_order = delivered_order(grace, [BLENDER], placed_days_ago=25)
    rma = received_return(
        blender_order.items[0], "opened", "opened", created_at=days_ago(8), received_at=days_ago(2, hour=11)
    )
    ticket = ticket_about(order, "Phone lost by carrier")

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
            *opening(grace, *parcel(order), get_return(rma)),
            refund_return(rma, 0),
            *hold(
                ticket.id,
                "delivery",
                "refund_limit",
                "Lost parcel refund of 79,900 cents requested; above the agent limit, escalated for approval.",
            ),
        ],
        reply="The $799.00 refund for the phone is more than I can issue myself, so I've passed it to our refunds "
        "team for approval; your ticket is on hold with high priority. The blender came back opened, and kitchen "
        "goods carry no restocking fee, so I've refunded the full $89.00 to your card.",
        traps=[  # the full refund she wants today, above the agent limit
            issue_refund(order, 79_900, "lost_parcel")
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
    order = shipped_order(kenji, [HEADPHONES], placed_days_ago=10, shipping_cents=1_499)
    ticket = ticket_about(order, "Late delivery")

    run = tb.run(
        User(
            says="My headphones were supposed to arrive last week and they're still not here. This is "
            "unacceptable, I want a refund for the order.",
            knows={"email": kenji.email, "order id": order.id},
        ),
        golden=[
            *opening(kenji, *parcel(order)),
            issue_refund(order, 1_499, "late_delivery"),
            solved(ticket.id, "delivery"),
        ],
        reply="Your parcel is 5 days late but still on its way, so I can't refund the headphones. I've refunded "
        "your $14.99 shipping charge to your card as compensation for the delay.",
        traps=[  # "a refund for the order": the headphones refunded too, though the parcel is still on its way
            issue_refund(order, 24_900, "late_delivery")
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
    ticket = ticket_about(order, "Tent lost in the post")

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
            *opening(yusuf, *parcel(order), check_inventory(TENT)),
            issue_refund(order, 20_199, "lost_parcel"),
            solved(ticket.id, "delivery"),
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
    order = shipped_order(
        lucia,
        [DUVET, BLENDER],
        placed_days_ago=12,
        parcel="returned_to_sender",
        shipping_cents=899,
        discount_cents=2_180,
        promo_code="HOME10",
    )
    closed = TicketFactory(requester=lucia, status="closed", subject="Gift wrap question", created_at=days_ago(60))
    new_ticket_id = new_id("T-", closed)

    run = tb.run(
        User(
            says="Hi, the tracking for my order says it went back to your warehouse, apparently the courier "
            "couldn't deliver it. In the meantime I've bought a duvet and a blender elsewhere, so please don't "
            "send it out again. I just want my money back.",
            knows={"email": lucia.email, "order number": order.id, "refund or new shipment": "a refund"},
        ),
        golden=[
            *opening(lucia, *parcel(order)),
            new_ticket(lucia, "Parcel returned to sender: refund", "delivery", order),
            issue_refund(
                order,
                derived(19_620, "subtotal 21,800 less the 2,180 discount; shipping is not refunded"),
                "returned_to_sender",
            ),
            solved(new_ticket_id),
        ],
        reply="I've refunded $196.20 to your card: the duvet and the blender less your HOME10 discount. The $8.99 "
        "shipping charge isn't refunded for a parcel that came back to us.",
        traps=[call("create_replacement_order", order_id=order.id, reason="returned_to_sender")],  # "don't send it"
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (19_620, "returned_to_sender")
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    opened = run.db.get(Ticket, new_ticket_id)
    assert (opened.requester_id, opened.order_id) == (lucia.id, order.id)
    assert run.db.get(Ticket, new_ticket_id).outcome == ("solved", "normal", "delivery", None, None)
    assert run.db.get(Ticket, closed.id).status == "closed"


def test_case_RT011_002(tb):
    """Returned to sender after an address typo: ship the items again, then correct the new order's address."""
    noor = CustomerFactory(name="Noor Haddad", address_line="130 Juniper Avenue", city="Austin", postal_code="78704")
    order = shipped_order(
        noor, [ESPRESSO], placed_days_ago=10, parcel="returned_to_sender", ship_line="310 Juniper Avenue"
    )
    ticket = ticket_about(order, "Parcel sent back?")
    replacement_id = new_id("O-", order)

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
            *opening(noor, get_customer(noor), *parcel(order), check_inventory(ESPRESSO)),
            call("create_replacement_order", order_id=order.id, reason="returned_to_sender"),
            ship_to(replacement_id, ("130 Juniper Avenue", "Austin", "78704")),
            solved(ticket.id, "delivery"),
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
    shipped_order(felix, [HEADPHONES], placed_days_ago=3)  # on its way, on time
    order = OrderFactory(
        customer=felix, status="shipped", placed_at=days_ago(13), shipping_cents=1_499, lines=[DESK_CHAIR, BLENDER]
    )
    carrier_exception(order, days_ago(7, hour=8), "Held at depot: address query", carrier="FedEx")
    ticket = ticket_about(order, "Order stuck at depot")

    run = tb.run(
        User(
            says="My chair and blender have been stuck at a depot for a week with an 'exception' on the tracking. "
            "I still want the things, so can you just send them again?",
            knows={"email": felix.email},
        ),
        golden=[
            *opening(felix, list_orders(felix), *parcel(order), check_inventory(DESK_CHAIR), check_inventory(BLENDER)),
            call("create_replacement_order", order_id=order.id, reason="lost_parcel"),
            solved(ticket.id, "delivery"),
        ],
        traps=[  # the carrier hold, as if 7 days were still inside the investigation
            hold_update(ticket.id, "delivery", "awaiting_carrier")
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
    order = shipped_order(
        mei, [ESPRESSO], placed_days_ago=15, expected_delivery=TODAY - timedelta(days=9), shipping_cents=1_299
    )
    earlier = TicketFactory(requester=mei, status="solved", subject="Gift wrapping", created_at=days_ago(20))
    new_ticket_id = new_id("T-", earlier)

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
            *opening(mei, list_orders(mei), *parcel(order)),
            new_ticket(mei, "Espresso machine 9 days late", "delivery", order),
            issue_refund(order, 1_299, "late_delivery"),
            solved(new_ticket_id),
        ],
        traps=[  # the goods as well, as if 9 days late were lost
            issue_refund(order, 44_900, "lost_parcel")
        ],
        reply="The parcel is 9 days late; it only counts as lost at 10 days, so I've refunded the $12.99 shipping.",
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.reason) == (1_299, "late_delivery")  # the shipping only
    assert run.db.get(Ticket, new_ticket_id).outcome == ("solved", "normal", "delivery", None, None)


@pytest.mark.two_requests
def test_case_RT002_007(tb):
    """Lost tent, out of stock; the refund is under the limit but she has an abuse flag: escalate (urgent, premium).
    The dishwasher installation she cancels is not stopped by her standing: cancelled free, its fee refunded."""
    sofia = CustomerFactory(name="Sofia Lindahl", tier="premium", abuse_flags=1)
    order = shipped_order(
        sofia,
        [TENT],
        placed_days_ago=16,
        parcel="lost",
        expected_delivery=TODAY - timedelta(days=8),
        shipping_cents=999,
    )
    dishwasher_order = delivered_order(sofia, [DISHWASHER], placed_days_ago=10)
    job = InstallationJobFactory(
        order=dishwasher_order, product_id=DISHWASHER, scheduled_for=datetime(2026, 3, 20, 10, 0)
    )
    ticket = ticket_about(order, "Tent lost", priority="normal")

    run = tb.run(
        User(
            says="The carrier says my tent is lost. Please send me another one. And please cancel the dishwasher "
            "installation booked for Friday, we've decided to fit it ourselves.",
            knows={"email": sofia.email, "order id": order.id, "dishwasher order id": dishwasher_order.id},
            rules=("If a replacement is not possible, ask for a refund instead.",),
        ),
        golden=[
            *opening(sofia, *parcel(order), check_inventory(TENT), get_order(dishwasher_order), get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=0),
            *hold(
                ticket.id,
                "delivery",
                "account_standing",
                "Lost parcel refund of 19,899 cents requested; the account has an abuse flag, so escalated.",
                priority="urgent",
            ),
        ],
        traps=[  # the refund of the total: under the limit, but her standing rules it out
            issue_refund(order, 19_899, "lost_parcel")
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
    order = shipped_order(
        ana,
        [DESK_CHAIR],
        placed_days_ago=12,
        parcel="returned_to_sender",
        shipping_cents=1_499,
        discount_cents=4_185,
        promo_code="SPRING15",
    )
    ticket = TicketFactory(requester=ana, subject="Chair came back to you?")

    run = tb.run(
        User(
            says="The tracking for the desk chair I ordered this month says it was returned to you. I don't want it "
            "sent again, I'd like my money back. I don't have the order number.",
            knows={"email": ana.email},
        ),
        golden=[
            *opening(ana, list_orders(ana), *parcel(order)),
            issue_refund(
                order,
                derived(23_715, "subtotal 27,900 less the 4,185 discount; shipping is not refunded"),
                "returned_to_sender",
            ),
            solved(ticket.id, "delivery"),
        ],
        traps=[  # escalating because the order total (25,214) is over the limit
            hold_update(ticket.id, "delivery", "refund_limit"),
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
    warranty = warranty_on(laptop_order, LAPTOP, starts_on=TODAY - timedelta(days=195))
    order = OrderFactory(
        customer=aiko, status="shipped", placed_at=days_ago(9), shipping_cents=999, lines=[HEADPHONES, BLENDER]
    )
    carrier_exception(order, days_ago(4, hour=16), "Damaged label; parcel held for re-labelling", carrier="FedEx")
    ticket = ticket_about(order, "Parcel exception")

    run = tb.run(
        User(
            says="My parcel with the headphones and the blender has had an 'exception' on it for days. I'd like a "
            "refund. And while I'm here: three keys on my Aurora laptop from last August have stopped working.",
            knows={"email": aiko.email, "order id": order.id, "laptop order id": laptop_order.id},
        ),
        golden=[
            *opening(aiko, *parcel(order), get_order(laptop_order), get_warranty(warranty)),
            file_claim(warranty, "defect", "repair", "Three keys on the laptop keyboard stopped working."),
            *carrier_hold(
                ticket.id, "Carrier exception opened 4 days ago; refund request awaits the carrier investigation."
            ),
        ],
        reply="FedEx opened an investigation into your parcel 4 days ago and has up to 7 days to finish it, so the "
        "refund has to wait; your ticket is on hold with our carrier claims team. Your laptop is under warranty, "
        "so I've filed a claim for the keyboard: it will be repaired.",
        traps=[  # the refund of the order, while the carrier's investigation is still running
            issue_refund(order, 34_799, "lost_parcel")
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
    order = shipped_order(
        rosa,
        [TENT, CLEARANCE_SPEAKER],
        placed_days_ago=16,
        expected_delivery=TODAY - timedelta(days=10),
        shipping_cents=2_499,
    )
    RefundFactory(order=order, amount_cents=2_499, reason="late_delivery", created_at=days_ago(5))
    headphones_order = delivered_order(
        rosa,
        [(HEADPHONES, 1, 27_900)],
        placed_days_ago=8,
        expected_delivery=TODAY - timedelta(days=3),
        delivered_at=days_ago(3, hour=12),
    )
    ticket = ticket_about(order, "Tent and speaker still not here")

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
            *opening(
                rosa,
                *parcel(order),
                check_inventory(TENT),
                check_inventory(CLEARANCE_SPEAKER),
                get_order(headphones_order),
                get_product(HEADPHONES),
            ),
            price_adjustment(headphones_order.items[0], derived(3_000, "27,900 paid minus today's 24,900")),
            *hold(
                ticket.id,
                "delivery",
                "refund_limit",
                "Lost parcel refund of 22,800 cents plus the 2,499 already refunded exceeds the limit; escalated.",
            ),
        ],
        traps=[  # the rest of the total, 22,800: under the limit on its own, 25,299 with the shipping refund
            issue_refund(order, 22_800, "lost_parcel")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).filter(Refund.order_id == order.id).count() == 1  # only last week's shipping refund
    adjustment = run.db.query(Refund).filter(Refund.order_id == headphones_order.id).one()
    assert (adjustment.reason, adjustment.amount_cents) == ("price_protection", 3_000)
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0  # the tent is not available
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "delivery", "refund_limit", "refunds_team")
    assert internal_notes(run.db, ticket.id) == 1
