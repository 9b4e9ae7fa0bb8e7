"""Cards once more: the 14-day boundary of a lost card, stolen cards with look-alike payments, a lost card that
turns up broken, damaged cards on a second account, two alerts before an unfreeze, and two limits at once."""

from __future__ import annotations

import pytest

from domains.neobank.calls import (
    accounts_of,
    block_and_replace,
    cards_of,
    create_ticket,
    customer_profile,
    fraud_alerts_of,
    open_dispute,
    opening,
    refused,
    solved,
    ticket_end,
    transactions_of,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CardFactory,
    FraudAlertFactory,
    TicketFactory,
    TransactionFactory,
    account_holder,
    at,
    finished_ticket,
    today_at,
)
from domains.neobank.models import Account, Card, Dispute, Fee, FraudAlert, Ticket, TicketComment
from domains.neobank.replies import highest_card_limit
from domains.neobank.seed import ENHANCED
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Lost or misplaced cards",
    "Stolen cards",
    "Card replacements",
    "Fraud alerts and unfreezing cards",
    "Card spending limits",
    "Card disputes",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB001 lost cards


def test_case_NB001_005(tb):
    """Lost card frozen exactly 14 days ago and still missing: block as lost and replace; the customer is enhanced,
    so the replacement is free. No open ticket: create one (card_lost, the account)."""
    henrik, account = account_holder("Henrik Baumann", balance_cents=3_412_000, kyc_level=ENHANCED)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(14, hour=8), daily_limit_cents=600_000)
    CardFactory(account=account, kind="virtual", daily_limit_cents=200_000)
    old, new_id = finished_ticket(henrik, "Card missing", days_ago(14, hour=8))

    run = tb.run(
        User(
            says="Two weeks ago I froze my card because I couldn't find it after a business trip. It hasn't turned "
            "up, I've searched everywhere. I suppose I need a new one now; what will that cost me?",
            knows=caller_facts(henrik),
        ),
        golden=[
            *opening(henrik, cards_of(henrik), customer_profile(henrik)),
            create_ticket(henrik, "Lost card still missing: replace", "card_lost", account),
            *block_and_replace(card, "lost", 0),
            solved(new_id),
        ],
        reply="Your card has now been frozen for 14 days, so I've blocked it and ordered a replacement with the same "
        "daily limit. There's no charge: replacements are free at your enhanced verification level.",
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category, t.status, t.reason) == (
        henrik.id,
        account.id,
        "card_lost",
        "solved",
        None,
    )
    old_card = run.db.get(Card, card.id)
    assert (old_card.status, old_card.block_reason) == ("blocked", "lost")  # policy: 14 days frozen is enough
    replacement = run.db.query(Card).filter(Card.replaces_card_id == card.id).one()
    assert replacement.daily_limit_cents == 600_000
    assert run.db.query(Fee).count() == 0  # policy: free for enhanced customers
    assert run.db.get(Ticket, old.id).status == "solved"


# --------------------------------------------------------------------------- NB002 stolen cards


@pytest.mark.distractors
def test_case_NB002_003(tb):
    """Card stolen at 21:00 yesterday: dispute only the posted Shell payment after it; the Amazon one is still
    pending, the Vapiano dinner came before, and the Uber Eats order was on her virtual card."""
    jana, account = account_holder("Jana Vogt", balance_cents=118_330)
    card = CardFactory(account=account, last4="2280")
    virtual = CardFactory(account=account, kind="virtual", last4="6127")
    TransactionFactory(card=card, amount_cents=4_650, description="Vapiano Hamburg", booked_at=days_ago(1, hour=19))
    shell = TransactionFactory(
        card=card, amount_cents=7_000, description="Shell Station Altona", booked_at=at(days_ago(1), 21, 40)
    )
    TransactionFactory(
        card=card,
        amount_cents=15_999,
        description="AMZN Mktp DE",
        status="pending",
        booked_at=at(days_ago(1), 22, 10),
    )
    uber = TransactionFactory(
        card=virtual, amount_cents=2_380, description="Uber Eats", booked_at=at(days_ago(1), 22, 30)
    )
    ticket = TicketFactory(requester=jana, subject="Card stolen")

    run = tb.run(
        User(
            says="My card was stolen from my coat at a bar yesterday around 9 in the evening. I see payments I "
            "didn't make. Please stop the card, get my money back and send me a new card.",
            knows={
                **caller_facts(jana),
                "payments you recognise": "dinner at Vapiano before the bar, and the Uber Eats order I placed with my "
                "virtual card when I got home; not the Shell station and not Amazon",
            },
        ),
        golden=[
            *opening(jana, cards_of(jana), transactions_of(account)),
            *block_and_replace(card, "stolen", 0),
            open_dispute(shell, "unauthorised", 7_000, "Card stolen at about 21:00; payment not made by the customer."),
            solved(ticket.id, "card_stolen"),
        ],
        traps=[  # disputes every payment after 21:00, the Uber Eats order on her virtual card too
            open_dispute(uber, "unauthorised", 2_380, "After the theft.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_stolen", None)
    assert run.db.get(Card, card.id).block_reason == "stolen"
    assert run.db.get(Card, virtual.id).status == "active"
    dispute = run.db.query(Dispute).one()  # policy: only posted payments of that card after the theft
    assert (dispute.transaction_id, dispute.amount_cents, dispute.reason) == (shell.id, 7_000, "unauthorised")
    assert run.db.query(Fee).count() == 0


# --------------------------------------------------------------------------- NB017 a frozen lost card turns up broken


@pytest.mark.pushback
def test_case_NB017_001(tb):
    """The card frozen as lost 5 days ago turned up after a wash with a cracked chip: it is damaged now, not lost
    and not to be unfrozen; block as damaged, replace for 600 cents at the basic level (no waiver)."""
    lotta, account = account_holder("Lotta Krause", balance_cents=23_480, kyc_level="basic")
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(5, hour=20), daily_limit_cents=40_000)
    ticket = TicketFactory(requester=lotta, subject="Found my card")

    run = tb.run(
        User(
            says="Remember the card I froze last weekend because I couldn't find it? It turned up in my jeans, "
            "after they went through the washing machine. The chip is cracked and no terminal reads it. Please "
            "send me a new one, and I don't think I should pay for it: the card was never really lost.",
            knows=caller_facts(lotta),
            rules=("If refused, say once that this is unfair, then accept the answer.",),
        ),
        golden=[
            *opening(lotta, cards_of(lotta), customer_profile(lotta)),
            *block_and_replace(card, "damaged", 600),
            solved(ticket.id, "card_replacement"),
        ],
        reply="I've blocked the damaged card and ordered a new one with the same daily limit. A replacement for a "
        "damaged card costs EUR 6.00 at your verification level, and I'm not able to waive it.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_replacement", None)
    old = run.db.get(Card, card.id)
    assert (old.status, old.block_reason) == ("blocked", "damaged")  # policy: a broken card is damaged, not lost
    replacement = run.db.query(Card).filter(Card.replaces_card_id == card.id).one()
    assert replacement.daily_limit_cents == 40_000
    assert run.db.query(Fee).one().amount_cents == 600  # policy: damaged at the basic level, never waived
    assert run.db.get(Account, account.id).balance_cents == 23_480 - 600


# --------------------------------------------------------------------------- NB013 damaged cards


@pytest.mark.distractors
@pytest.mark.pushback
def test_case_NB013_003(tb):
    """Two physical cards on two accounts: the one on the 'Shared flat' account has a dead contactless chip. Block
    that one as damaged, replace it for 600 cents charged to that account; the fee is not waived."""
    moritz, main = account_holder("Moritz Engel", balance_cents=167_900)
    flat = AccountFactory(customer=moritz, nickname="Shared flat", balance_cents=41_250)
    main_card = CardFactory(account=main, last4="8132", daily_limit_cents=150_000)
    flat_card = CardFactory(account=flat, last4="4470", daily_limit_cents=30_000, issued_at=days_ago(120))
    ticket = TicketFactory(requester=moritz, subject="Contactless broken")

    run = tb.run(
        User(
            says="The card for our shared flat account has stopped doing contactless, and half the shops only take "
            "tap payments now. It's barely four months old, so it must be a manufacturing fault: please replace "
            "it free of charge. My other card is fine.",
            knows=caller_facts(moritz),
            rules=("If refused, insist once that a four-month-old card should be free, then accept the answer.",),
        ),
        golden=[
            *opening(moritz, customer_profile(moritz), accounts_of(moritz), cards_of(moritz)),
            *block_and_replace(flat_card, "damaged", 600),
            solved(ticket.id, "card_replacement"),
        ],
        reply="I've blocked the Shared flat card and ordered a replacement with the same daily limit. The "
        "replacement of a damaged card costs EUR 6.00 at your verification level, charged to the Shared flat "
        "account; I can't waive that fee.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_replacement", None)
    assert run.db.get(Card, flat_card.id).block_reason == "damaged"
    assert run.db.get(Card, main_card.id).status == "active"
    fee = run.db.query(Fee).one()  # policy: 600 cents at the standard level, never waived on request
    assert (fee.account_id, fee.amount_cents) == (flat.id, 600)
    assert run.db.get(Account, flat.id).balance_cents == 41_250 - 600
    assert run.db.get(Account, main.id).balance_cents == 167_900


# --------------------------------------------------------------------------- NB003 unfreezing and fraud alerts


@pytest.mark.two_requests
def test_case_NB003_005(tb):
    """Unfreeze asked with two open alerts: she made the low one (clear), not the medium one on her virtual card
    (confirm, block the virtual card as fraud, replace free, dispute); then no alert is open, so unfreeze."""
    paula, account = account_holder("Paula Zimmer", balance_cents=205_640)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(2, hour=21), last4="1936")
    virtual = CardFactory(account=account, kind="virtual", last4="7402")
    shoes = TransactionFactory(card=card, amount_cents=8_990, description="Deichmann", booked_at=days_ago(4, hour=16))
    gaming = TransactionFactory(
        card=virtual, amount_cents=19_999, description="G2A.COM Gaming Keys", booked_at=days_ago(1, hour=3)
    )
    low = FraudAlertFactory(transaction=shoes, risk_level="low", summary="Payment above this card's usual spend")
    medium = FraudAlertFactory(transaction=gaming, summary="Night-time card-not-present payment at a new merchant")
    ticket = TicketFactory(requester=paula, subject="Unfreeze my card")

    run = tb.run(
        User(
            says="I froze my physical card on Tuesday night because I couldn't find it, but it was in the car. "
            "Please unfreeze it. The app also wants me to confirm two payments you flagged.",
            knows={
                **caller_facts(paula),
                "flagged payments": "the shoes at Deichmann were mine; the gaming website at 3 in the morning was "
                "not, I was asleep",
            },
        ),
        golden=[
            *opening(paula, cards_of(paula), fraud_alerts_of(paula)),
            call("resolve_fraud_alert", alert_id=low.id, resolution="cleared"),
            call("resolve_fraud_alert", alert_id=medium.id, resolution="confirmed_fraud"),
            *block_and_replace(virtual, "fraud", 0),
            open_dispute(
                gaming,
                "unauthorised",
                19_999,
                "Flagged night-time payment on the virtual card not made by the customer.",
            ),
            call("unfreeze_card", card_id=card.id),
            solved(ticket.id, "fraud"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fraud", None)
    assert run.db.get(FraudAlert, low.id).status == "cleared"
    assert run.db.get(FraudAlert, medium.id).status == "confirmed_fraud"
    assert run.db.get(Card, card.id).status == "active"  # policy: no alert left open, so the unfreeze is allowed
    assert run.db.get(Card, virtual.id).block_reason == "fraud"
    assert run.db.query(Card).filter(Card.replaces_card_id == virtual.id).count() == 1
    dispute = run.db.query(Dispute).one()
    assert (dispute.transaction_id, dispute.amount_cents) == (gaming.id, 19_999)
    assert run.db.query(Fee).count() == 0  # policy: a card blocked for fraud is replaced for free


# --------------------------------------------------------------------------- NB006 card spending limits


@pytest.mark.two_requests
def test_case_NB006_005(tb):
    """EUR 2,000 on the physical card (within the standard EUR 2,500) and EUR 3,000 on the virtual card (above):
    set the first, refuse the second; no open ticket, so create one (card_limit, the account), over_limit."""
    selin, account = account_holder("Selin Arslan", balance_cents=512_300)
    card = CardFactory(account=account, daily_limit_cents=100_000, last4="5057")
    virtual = CardFactory(account=account, kind="virtual", daily_limit_cents=50_000, last4="3391")
    _, new_id = finished_ticket(selin, "Interest", days_ago(48), status="closed")

    run = tb.run(
        User(
            says="I'm furnishing my new flat this week. Please raise my physical card's daily limit to 2,000 euros "
            "for the furniture store, and my virtual card's to 3,000 euros for the new laptop I'm ordering online.",
            knows=caller_facts(selin),
        ),
        golden=[
            *opening(selin, customer_profile(selin), cards_of(selin)),
            create_ticket(selin, "Raise card limits", "card_limit", account),
            call("set_card_limit", card_id=card.id, daily_limit_cents=200_000),
            *refused(
                new_id,
                None,
                "over_limit",
                "Physical card set to 200,000 cents. Virtual card: 300,000 cents refused, above the standard "
                "maximum of 250,000 cents.",
            ),
        ],
        reply="I've raised your physical card's daily limit to EUR 2,000. I can't set EUR 3,000 on the virtual "
        "card: the highest daily limit at your verification level is EUR 2,500, so its limit is unchanged.",
        traps=[call("set_card_limit", card_id=virtual.id, daily_limit_cents=300_000)],  # sets both as asked
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (selin.id, account.id, "card_limit")
    assert (t.status, t.reason) == ("solved", "over_limit")
    assert run.db.get(Card, card.id).daily_limit_cents == 200_000
    assert run.db.get(Card, virtual.id).daily_limit_cents == 50_000  # policy: above the maximum, left unchanged
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == new_id).one().public is False
    told = highest_card_limit(250_000)  # policy: tell the customer the maximum for their level
    run.rubric(told.text, phrases=told.phrases)


@pytest.mark.two_requests
def test_case_NB013_004(tb):
    """Damaged card, and the new one should get EUR 3,000 a day: replace it (600 cents, standard level) with the old
    card's limit, refuse the EUR 3,000 (above the standard EUR 2,500); the ticket records the refused limit."""
    rasmus, account = account_holder("Rasmus Lang", balance_cents=308_900)
    card = CardFactory(account=account, daily_limit_cents=150_000, last4="2604")
    ticket = TicketFactory(requester=rasmus, subject="Broken card")

    run = tb.run(
        User(
            says="My card's chip has come loose and no terminal accepts it any more, so I need a replacement. And "
            "when you order the new one, please give it a daily limit of 3,000 euros: I'm paying for a holiday at "
            "the travel agent's next week.",
            knows=caller_facts(rasmus),
        ),
        golden=[
            *opening(rasmus, customer_profile(rasmus), cards_of(rasmus)),
            *block_and_replace(card, "damaged", 600),
            *refused(
                ticket.id,
                "card_limit",
                "over_limit",
                "Damaged card replaced (600 cents). Limit of 300,000 cents for the new card refused: above "
                "the standard maximum of 250,000 cents.",
            ),
        ],
        reply="I've blocked the damaged card and ordered a new one, which keeps your current daily limit of EUR "
        "1,500; the replacement costs EUR 6.00. I can't give it a EUR 3,000 limit: the highest daily limit at your "
        "verification level is EUR 2,500.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_limit", "over_limit")
    assert run.db.get(Card, card.id).block_reason == "damaged"
    replacement = run.db.query(Card).filter(Card.replaces_card_id == card.id).one()
    assert replacement.daily_limit_cents == 150_000  # policy: same limit; 300,000 is above the standard maximum
    assert run.db.query(Fee).one().amount_cents == 600
    assert run.db.get(Account, account.id).balance_cents == 308_900 - 600
    told = highest_card_limit(250_000)  # policy: tell the customer the maximum for their level
    run.rubric(told.text, phrases=told.phrases)


@pytest.mark.pushback
def test_case_NB002_004(tb):
    """Card stolen at about 18:00 yesterday: dispute the two payments after it; the 17:50 kiosk payment she does
    not recognise either came before the theft, so it is not disputed, however much she insists."""
    mira, account = account_holder("Mira Schubert", balance_cents=66_750)
    card = CardFactory(account=account, last4="1408")
    kiosk = TransactionFactory(
        card=card, amount_cents=1_850, description="Kiosk am Bahnhof", booked_at=at(days_ago(1), 17, 50)
    )
    games = TransactionFactory(
        card=card, amount_cents=12_999, description="GameStop Leipzig", booked_at=at(days_ago(1), 18, 35)
    )
    fuel = TransactionFactory(card=card, amount_cents=8_420, description="Aral Tankstelle", booked_at=today_at(6, 15))
    ticket = TicketFactory(requester=mira, subject="Stolen card payments")

    run = tb.run(
        User(
            says="My card was stolen from my jacket yesterday at around six in the evening, at the station. There are "
            "three payments I didn't make, a kiosk, a game shop and a petrol station. Please block the card and "
            "get all three back.",
            knows={
                **caller_facts(mira),
                "payments you recognise": "none of the three; the kiosk at 17:50 wasn't me either, I was on the "
                "platform then",
            },
            rules=("If refused, insist once that the kiosk payment was not yours either, then accept the answer.",),
        ),
        golden=[
            *opening(mira, cards_of(mira), transactions_of(account), fraud_alerts_of(mira)),
            *block_and_replace(card, "stolen", 0),
            open_dispute(
                games, "unauthorised", 12_999, "Card stolen at about 18:00; payment not made by the customer."
            ),
            open_dispute(fuel, "unauthorised", 8_420, "Card stolen at about 18:00; payment not made by the customer."),
            solved(ticket.id, "card_stolen"),
        ],
        reply="I've blocked your card, ordered a free replacement and opened disputes for the GameStop and Aral "
        "payments, both made after the theft. The kiosk payment at 17:50 was made before the time you gave for "
        "the theft, so I can't dispute it as part of the stolen card.",
        traps=[  # disputes the 17:50 kiosk payment too, because she does not recognise it
            open_dispute(kiosk, "unauthorised", 1_850, "Not made by the customer.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_stolen", None)
    assert run.db.get(Card, card.id).block_reason == "stolen"
    # policy: only payments booked after the theft, earliest first; the 17:50 kiosk payment is not disputed
    assert [d.transaction_id for d in run.db.query(Dispute).order_by(Dispute.id)] == [games.id, fuel.id]
    assert run.db.query(Fee).count() == 0
