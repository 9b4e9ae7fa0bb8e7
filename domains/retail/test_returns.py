"""Returns: restocking fees on received returns, return windows by tier, final-sale refusals."""

from __future__ import annotations

import pytest

from domains.retail.calls import (
    awaiting_item,
    get_order,
    get_return,
    list_orders,
    new_ticket,
    open_return,
    opening,
    pending,
    refund_return,
    solved,
)
from domains.retail.checks import internal_notes
from domains.retail.clock import days_ago
from domains.retail.factories import (
    CustomerFactory,
    OrderFactory,
    ReturnFactory,
    TicketFactory,
    delivered_order,
    received_return,
    ticket_about,
)
from domains.retail.models import Customer, Refund, Return, Ticket, TicketComment
from domains.retail.seed import (
    BLENDER,
    CLEARANCE_SPEAKER,
    CLEARANCE_WATCH,
    DESK_CHAIR,
    DISHWASHER,
    DUVET,
    ESPRESSO,
    HEADPHONES,
    LAPTOP,
    SOFA,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Returns: eligibility and windows",
    "Restocking fees and return refunds",
    "Ticket status, priority and classification",
)


def _received_return(customer, product, *, inspected, declared=None, delivered_days_ago=12):
    """A delivered order of one product whose return the warehouse received yesterday."""
    order = delivered_order(customer, [product], placed_days_ago=delivered_days_ago + 5)
    return order, received_return(
        order.items[0], declared or inspected, inspected, created_at=days_ago(6), received_at=days_ago(1, hour=15)
    )


@pytest.mark.pushback
def test_case_RT004_001(tb):
    """Returned laptop inspected as opened: electronics take a 15% restocking fee despite the customer's plea."""
    daniel = CustomerFactory(name="Daniel Rossi")
    order, rma = _received_return(daniel, LAPTOP, inspected="opened")
    ticket = ticket_about(order, "Laptop return refund")

    run = tb.run(
        User(
            says="Your warehouse has my laptop back. I only turned it on once, so I expect the full $1,299. "
            "When will it reach my card?",
            knows={"email": daniel.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(daniel, get_return(rma)),
            refund_return(rma, 15),
            solved(ticket.id, "return"),
        ],
        reply="Our warehouse found the laptop opened, so the 15% restocking fee for electronics applies: $194.85. "
        "I've refunded the remaining $1,104.15 to your card; it usually shows within 5 business days.",
    )

    run.expect_golden()
    returned = run.db.get(Return, rma.id)
    assert (returned.restocking_fee_cents, returned.status) == (19_485, "refunded")
    assert run.db.query(Refund).one().amount_cents == 110_415
    # the refund is made, fee and all: a granted request, so no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


def test_case_RT004_002(tb):
    """Premium member's opened headphones: the opened-item restocking fee is waived, so refund in full."""
    elena = CustomerFactory(name="Elena Okafor", tier="premium")
    order, rma = _received_return(elena, HEADPHONES, inspected="opened")
    ticket = ticket_about(order, "Headphones return")

    run = tb.run(
        User(
            says="I sent back the noise-cancelling headphones, I tried them for a day and they just weren't for me. "
            "Can you process my refund?",
            knows={"email": elena.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(elena, get_return(rma)),
            refund_return(rma, 0),
            solved(ticket.id, "return"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).restocking_fee_cents == 0
    assert run.db.query(Refund).one().amount_cents == 24_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


def test_case_RT004_003(tb):
    """Customer declared the dishwasher unopened but inspection found it opened: 15% appliance fee applies."""
    kenji = CustomerFactory(name="Kenji Nair")
    order, rma = _received_return(kenji, DISHWASHER, inspected="opened", declared="unopened")
    ticket = ticket_about(order, "Dishwasher return")

    run = tb.run(
        User(
            says="I returned the dishwasher still in its box, your courier picked it up last week. "
            "Please refund the whole amount.",
            knows={"email": kenji.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(kenji, get_return(rma)),
            refund_return(rma, 15),
            solved(ticket.id, "return"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).restocking_fee_percent == 15
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)
    assert run.db.query(Refund).one().amount_cents == 63_665


@pytest.mark.pushback
def test_case_RT004_004(tb):
    """Premium member's chair came back damaged: the premium waiver covers opened items only, so 50% is kept."""
    sarah = CustomerFactory(name="Sarah Haddad", tier="premium")
    order, rma = _received_return(sarah, DESK_CHAIR, inspected="damaged", declared="opened")
    ticket = ticket_about(order, "Chair return")

    run = tb.run(
        User(
            says="I'm a premium member and I returned the desk chair. Premium means no restocking fees, right? "
            "Please refund it.",
            knows={"email": sarah.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(sarah, get_return(rma)),
            refund_return(rma, 50),
            solved(ticket.id, "return"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).restocking_fee_cents == 13_950
    assert run.db.query(Refund).one().amount_cents == 13_950
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


def test_case_RT004_005(tb):
    """Plus member 40 days after delivery: inside the 45-day plus window, so open the return and wait (pending)."""
    oliver = CustomerFactory(name="Oliver Ferreira", tier="plus")
    order = delivered_order(oliver, [ESPRESSO], placed_days_ago=45)  # delivered 40 days ago
    ticket = ticket_about(order, "Return espresso machine", status="new")

    run = tb.run(
        User(
            says="I'd like to return the espresso machine I bought last month. It's still sealed in the box, "
            "we got one as a gift.",
            knows={"email": oliver.email, "order id": order.id, "condition": "unopened, still sealed"},
        ),
        golden=[
            *opening(oliver, get_order(order)),
            open_return(order.items[0], "unopened"),
            *awaiting_item(ticket.id, "Return approved; waiting for the customer to ship the espresso machine back."),
        ],
        traps=[  # the standard 30-day window applied to a plus member: day 40 refused as too late
            solved(ticket.id, reason="outside_window")
        ],
    )

    run.expect_golden()
    assert run.db.query(Return).one().status == "approved"  # policy: day 40 is inside the 45-day plus window
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "return", "awaiting_item", None)
    assert internal_notes(run.db, ticket.id) == 1


def test_case_RT005_001(tb):
    """Return request for a clearance smartwatch: final sale, so reject it even though it is unopened and recent."""
    amara = CustomerFactory(name="Amara Lindqvist", tier="plus")
    order = delivered_order(amara, [CLEARANCE_WATCH], placed_days_ago=10)  # delivered 5 days ago
    rma = ReturnFactory(item=order.items[0], declared_condition="unopened")
    ticket = ticket_about(order, "Return request")

    run = tb.run(
        User(
            says="I put in a return request online for the smartwatch yesterday, it's never been opened. "
            "Can you approve it so I can send it back?",
            knows={"email": amara.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(amara, get_return(rma)),
            call("reject_return", rma_id=rma.id, reason="final_sale"),
            solved(ticket.id, "return", "not_eligible"),
        ],
        traps=[  # the watch taken back anyway, as she asks: an approved return for the unopened final-sale item
            open_return(order.items[0], "unopened")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).rejection_reason == "final_sale"
    assert run.db.query(Return).filter(Return.status == "approved").count() == 0  # policy: final sale, no return
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", "not_eligible", None)


def test_case_RT005_002(tb):
    """Standard member asks 34 days after delivery: outside the 30-day window, so reject the request."""
    tomas = CustomerFactory(name="Tomas Chen")
    order = delivered_order(tomas, [HEADPHONES], placed_days_ago=39)  # delivered 34 days ago
    rma = ReturnFactory(item=order.items[0], declared_condition="opened")
    ticket = ticket_about(order, "Headphones return")

    run = tb.run(
        User(
            says="I requested a return for my headphones on your site. They work but I don't use them. "
            "Please approve it.",
            knows={"email": tomas.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(tomas, get_return(rma), get_order(order)),
            call("reject_return", rma_id=rma.id, reason="outside_window"),
            solved(ticket.id, "return", "outside_window"),
        ],
        traps=[  # the headphones taken back anyway, as he asks: an approved return 34 days after delivery
            open_return(order.items[0], "opened")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).status == "rejected"
    assert run.db.query(Return).filter(Return.status == "approved").count() == 0  # policy: outside the 30-day window
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", "outside_window", None)


def test_case_RT005_003(tb):
    """Premium member 58 days after delivery of a sofa: inside the 60-day window, so approve and wait (pending)."""
    grace = CustomerFactory(name="Grace Novak", tier="premium")
    order = delivered_order(grace, [SOFA], placed_days_ago=63)  # delivered 58 days ago
    rma = ReturnFactory(item=order.items[0], declared_condition="opened")
    ticket = ticket_about(order, "Sofa return")

    run = tb.run(
        User(
            says="I know it's been almost two months, but the sofa really doesn't work in our living room. "
            "I filed a return request. Is it too late?",
            knows={"email": grace.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(grace, get_return(rma), get_order(order)),
            call("approve_return", rma_id=rma.id),
            *awaiting_item(ticket.id, "Return approved inside the premium window; waiting for the sofa to come back."),
        ],
        traps=[  # the standard 30-day window applied to a premium member: "too late", reason outside_window
            solved(ticket.id, reason="outside_window")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).status == "approved"
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "return", "awaiting_item", None)


def test_case_RT005_004(tb):
    """Final-sale speaker that is also past the window: reject with final_sale, the reason checked first."""
    marcus = CustomerFactory(name="Marcus Rossi", tier="plus")
    order = delivered_order(marcus, [CLEARANCE_SPEAKER], placed_days_ago=55)  # delivered 50 days ago
    rma = ReturnFactory(item=order.items[0], declared_condition="opened")
    ticket = ticket_about(order, "Speaker return")

    run = tb.run(
        User(
            says="I bought one of those little bluetooth speakers and never really used it. I sent a return "
            "request on your site, please approve it.",
            knows={"email": marcus.email, "order id": order.id, "return number": rma.id},
        ),
        golden=[
            *opening(marcus, get_return(rma)),
            call("reject_return", rma_id=rma.id, reason="final_sale"),
            solved(ticket.id, "return", "not_eligible"),
        ],
        traps=[  # the speaker taken back anyway, as he asks: an approved return for a final-sale item
            open_return(order.items[0], "opened")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, rma.id).rejection_reason == "final_sale"
    assert run.db.query(Return).filter(Return.status == "approved").count() == 0  # policy: final sale, no return
    assert run.db.query(Refund).count() == 0
    # final sale is checked before the window, so the refusal is "not eligible", not "outside the window"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", "not_eligible", None)


@pytest.mark.two_requests
def test_case_RT004_006(tb):
    """Received blender return refunded in full; the chair from an older order is past the 30-day window: refused."""
    aiko = CustomerFactory(name="Aiko Sato")
    order, rma = _received_return(aiko, BLENDER, inspected="unopened")
    chair_order = delivered_order(aiko, [DESK_CHAIR], placed_days_ago=52)  # delivered 47 days ago
    ticket = ticket_about(order, "Blender refund")

    run = tb.run(
        User(
            says="Your warehouse should have my blender back by now. It never even left the box, so I'm "
            "expecting the whole amount back. And while I have you: I'd also like to send back the desk chair I "
            "bought in January, it just isn't comfortable for long working days.",
            knows={
                "email": aiko.email,
                "blender order number": order.id,
                "return number": rma.id,
                "chair order number": chair_order.id,
                "chair condition": "opened and assembled",
            },
        ),
        golden=[
            *opening(aiko, get_return(rma), get_order(chair_order)),
            refund_return(rma, 0),
            solved(ticket.id, "return", "outside_window"),
        ],
        reply="Your blender came back unopened, so I've refunded the full $89.00 to your card. I can't take the "
        "desk chair back: it was delivered 47 days ago, past the 30-day return window for your membership.",
        traps=[  # her second request: the chair taken back 47 days after delivery
            open_return(chair_order.items[0], "opened")
        ],
    )

    run.expect_golden()
    assert run.db.query(Refund).one().amount_cents == 8_900
    assert run.db.query(Return).filter(Return.order_id == chair_order.id).count() == 0
    # the granted blender refund sets the category; the refused chair return sets the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", "outside_window", None)


@pytest.mark.pushback
def test_case_RT004_007(tb):
    """Opened headphones take the 15% fee; the customer asked for store credit if a fee was kept, so credit it."""
    lars = CustomerFactory(name="Lars Eriksen")
    order, rma = _received_return(lars, HEADPHONES, inspected="opened", declared="unopened")
    ticket = ticket_about(order, "Headphones refund")

    run = tb.run(
        User(
            says="You've got my headphones back now. They're as good as new, so I expect every cent back on my "
            "card. But if you are going to take some kind of fee off, then forget the card and put the refund on "
            "my store account instead, at least I can spend it with you.",
            knows={"email": lars.email, "order number": order.id, "return number": rma.id},
            persona="Careful with money; dislikes fees, and would rather keep store credit than lose more.",
            rules=(
                "If any fee is kept, insist once that the headphones were barely used.",
                "If a fee still stays, the refund goes to store credit, as you said at the start.",
            ),
        ),
        golden=[
            *opening(lars, get_return(rma)),
            refund_return(rma, 15, method="store_credit"),
            solved(ticket.id, "return"),
        ],
        reply="Our warehouse found the headphones opened, so the 15% restocking fee of $37.35 applies. As you "
        "asked, the remaining $211.65 is now on your account as store credit.",
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.method) == (21_165, "store_credit")
    assert run.db.get(Customer, lars.id).store_credit_cents == 21_165
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


@pytest.mark.two_requests
def test_case_RT005_005(tb):
    """Two items to return: open the headphones' return, refuse the final-sale watch; the ticket waits for the item."""
    zara = CustomerFactory(name="Zara Ahmed", tier="plus")
    order = delivered_order(zara, [HEADPHONES, CLEARANCE_WATCH], placed_days_ago=20)  # delivered 15 days ago
    ticket = ticket_about(order, "Returning two items")

    run = tb.run(
        User(
            says="I'd like to send back two things from my last order: the noise-cancelling headphones, which "
            "I've opened and tried a couple of times, and the smartwatch, which is still sealed in its box. "
            "Neither turned out to be what I needed. Can you set up the returns for both?",
            knows={
                "email": zara.email,
                "order number": order.id,
                "headphones condition": "opened",
                "smartwatch condition": "unopened, still sealed",
            },
        ),
        golden=[
            *opening(zara, get_order(order)),
            open_return(order.items[0], "opened"),
            *awaiting_item(
                ticket.id, "Return opened for the headphones only (watch is final sale); waiting for the item."
            ),
        ],
        traps=[  # the sealed clearance watch taken back too: final sale, never returnable
            open_return(order.items[1], "unopened")
        ],
    )

    run.expect_golden()
    rma = run.db.query(Return).one()
    assert (rma.order_item_id, rma.status) == (order.items[0].id, "approved")
    # the watch is refused, but the ticket now waits for the headphones: the pending reason wins
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "return", "awaiting_item", None)
    assert internal_notes(run.db, ticket.id) == 1


def test_case_RT005_006(tb):
    """No ticket yet, return asked on day 30 after delivery: still inside the window; open a ticket and the RMA."""
    felix = CustomerFactory(name="Felix Braun")
    order = delivered_order(felix, [DESK_CHAIR], placed_days_ago=35)  # delivered 30 days ago

    run = tb.run(
        User(
            says="I'd like to return the office chair I got about a month ago. I assembled it and used it for a "
            "few days, but it just doesn't suit me. Is it still possible to send it back, or have I missed my "
            "chance?",
            knows={"email": felix.email, "order number": order.id, "condition": "opened: assembled and used"},
        ),
        golden=[
            *opening(felix, get_order(order)),
            new_ticket(felix, "Return of the desk chair", "return", order),
            open_return(order.items[0], "opened"),
            *pending(
                "T-0001",
                None,
                "awaiting_item",
                "Return approved on the last day of the window; waiting for the customer to send the chair.",
            ),
        ],
        traps=[  # "have I missed my chance?": the last day of the window taken as past it
            solved("T-0001", reason="outside_window")
        ],
    )

    run.expect_golden()
    rma = run.db.query(Return).one()
    assert (rma.status, rma.declared_condition) == ("approved", "opened")  # policy: the last day is accepted
    opened = run.db.get(Ticket, "T-0001")
    assert (opened.requester_id, opened.order_id) == (felix.id, order.id)
    assert run.db.get(Ticket, "T-0001").outcome == ("pending", "normal", "return", "awaiting_item", None)
    assert internal_notes(run.db, "T-0001") == 1


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT004_008(tb):
    """Two received returns from one order, both opened: the duvet (home) costs no fee, the chair (furniture) 10%."""
    ruth = CustomerFactory(name="Ruth Abernathy")
    order = delivered_order(ruth, [DUVET, DESK_CHAIR], placed_days_ago=20)
    duvet_rma = received_return(
        order.items[0], "unopened", "opened", created_at=days_ago(7), received_at=days_ago(1, hour=10)
    )
    chair_rma = received_return(
        order.items[1], "opened", "opened", created_at=days_ago(7), received_at=days_ago(1, hour=10)
    )
    ticket = ticket_about(order, "Two returns")

    run = tb.run(
        User(
            says="You should have both of my returns by now, the duvet set and the desk chair. Please refund both "
            "in full.",
            knows={"email": ruth.email, "duvet return number": duvet_rma.id, "chair return number": chair_rma.id},
            rules=("If a fee is kept on the chair, object once that you only sat on it twice.",),
        ),
        golden=[
            *opening(ruth, get_return(duvet_rma), get_return(chair_rma)),
            refund_return(duvet_rma, 0),
            refund_return(chair_rma, 10),
            solved(ticket.id, "return"),
        ],
        reply="Your duvet set is refunded in full ($129.00); the opened chair carries the 10% furniture restocking "
        "fee, so $251.10 is refunded for it.",
    )

    run.expect_golden()
    refunds = sorted(r.amount_cents for r in run.db.query(Refund).all())
    assert refunds == [12_900, 25_110]  # opened home goods: no fee; opened furniture: 10% of 27,900
    assert run.db.get(Return, chair_rma.id).restocking_fee_cents == 2_790
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


@pytest.mark.pushback
def test_case_RT004_009(tb):
    """Laptop returned with a cracked hinge (damaged: 50% in every tier); paid by gift card, so store credit."""
    victor = CustomerFactory(name="Victor Almeida", tier="premium")
    order = delivered_order(victor, [LAPTOP], placed_days_ago=25, payment="gift_card")
    rma = received_return(order.items[0], "opened", "damaged", created_at=days_ago(9), received_at=days_ago(2, hour=14))
    ticket = ticket_about(order, "Laptop return refund")

    run = tb.run(
        User(
            says="You've had my Aurora laptop back for two days. As a premium member I don't pay restocking fees, "
            "so I expect the full $1,299 back.",
            knows={"email": victor.email, "order number": order.id},
            rules=("If any of the price is kept, dispute it once: the hinge must have cracked on the way back.",),
        ),
        golden=[
            *opening(victor, get_order(order)),
            refund_return(rma, 50, method="store_credit"),
            solved(ticket.id, "return"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Refund).one()
    assert (refund.amount_cents, refund.method) == (64_950, "store_credit")  # the premium waiver is for opened only
    assert run.db.get(Customer, victor.id).store_credit_cents == 64_950
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "return", None, None)


@pytest.mark.two_requests
def test_case_RT005_007(tb):
    """Plus member's two online return requests: day 44 is inside the 45-day window, day 47 is not."""
    yusuf = CustomerFactory(name="Yusuf Demir", tier="plus")
    headphones_order = delivered_order(yusuf, [HEADPHONES], placed_days_ago=49)  # delivered 44 days ago
    espresso_order = delivered_order(yusuf, [ESPRESSO], placed_days_ago=52)  # delivered 47 days ago
    headphones_rma = ReturnFactory(item=headphones_order.items[0], declared_condition="unopened")
    espresso_rma = ReturnFactory(item=espresso_order.items[0], declared_condition="unopened")
    ticket = TicketFactory(requester=yusuf, subject="My two returns")

    run = tb.run(
        User(
            says="I put in two return requests on your website yesterday, for the NC700 headphones and for the Duo "
            "espresso machine. Both are unopened. Can you approve them?",
            knows={
                "email": yusuf.email,
                "headphones return number": headphones_rma.id,
                "espresso return number": espresso_rma.id,
            },
        ),
        golden=[
            *opening(
                yusuf,
                get_return(headphones_rma),
                get_order(headphones_order),
                get_return(espresso_rma),
                get_order(espresso_order),
            ),
            call("approve_return", rma_id=headphones_rma.id),
            call("reject_return", rma_id=espresso_rma.id, reason="outside_window"),
            *awaiting_item(
                ticket.id, "Headphones return approved; waiting for the item. Espresso return rejected (day 47)."
            ),
        ],
        traps=[  # closing the ticket on the refusal, though the headphones are still to come back
            solved(ticket.id, "return", "outside_window")
        ],
    )

    run.expect_golden()
    assert run.db.get(Return, headphones_rma.id).status == "approved"
    rejected = run.db.get(Return, espresso_rma.id)
    assert (rejected.status, rejected.rejection_reason) == ("rejected", "outside_window")
    # the pending status (waiting for the headphones) gives the reason, not the refusal
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "return", "awaiting_item", None)
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.distractors
def test_case_RT005_008(tb):
    """Premium member on day 60, the last of the window: return 2 of the 3 duvet sets (opened); wait for them."""
    cora = CustomerFactory(name="Cora Whitlock", tier="premium")
    OrderFactory(customer=cora, placed_at=days_ago(200), lines=[DUVET])  # an older single duvet set
    order = delivered_order(cora, [(DUVET, 3)], placed_days_ago=65)  # delivered 60 days ago
    ticket = TicketFactory(requester=cora, subject="Return two duvet sets")

    run = tb.run(
        User(
            says="Two months ago I bought three linen duvet sets. We only need one after all. Can I still send "
            "two back? I took them out of the packaging to look at them.",
            knows={"email": cora.email, "condition": "opened, never used"},
        ),
        golden=[
            *opening(cora, list_orders(cora), get_order(order)),
            open_return(order.items[0], "opened", quantity=2),
            *awaiting_item(
                ticket.id, "Return of 2 duvet sets approved on day 60; waiting for the customer to send them."
            ),
        ],
        traps=[  # refused as if the window had closed
            solved(ticket.id, "return", "outside_window")
        ],
    )

    run.expect_golden()
    rma = run.db.query(Return).one()
    assert (rma.order_id, rma.quantity, rma.declared_condition, rma.status) == (order.id, 2, "opened", "approved")
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "return", "awaiting_item", None)
    assert internal_notes(run.db, ticket.id) == 1
