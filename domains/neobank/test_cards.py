"""Cards: lost or misplaced, stolen, unfreezing under fraud alerts, and daily spending limits."""

from __future__ import annotations

from datetime import date

import pytest

from domains.neobank.calls import (
    block_and_replace,
    cards_of,
    customer_profile,
    fraud_alerts_of,
    hold,
    open_dispute,
    opening,
    refused,
    solved,
    ticket_end,
    transactions_of,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    CardFactory,
    FraudAlertFactory,
    TicketFactory,
    TransactionFactory,
    account_holder,
    at,
    today_at,
)
from domains.neobank.models import Account, Card, Dispute, Fee, FraudAlert, Ticket, TicketComment
from domains.neobank.replies import highest_card_limit, replaceable_from
from domains.neobank.seed import BASIC
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "KYC levels and limits",
    "Lost or misplaced cards",
    "Stolen cards",
    "Card replacements",
    "Fraud alerts and unfreezing cards",
    "Card spending limits",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB001 lost or misplaced cards


def test_case_NB001_001(tb):
    """Misplaced card, customer asks to block and replace it; every payment is theirs, so freeze only."""
    lena, account = account_holder("Lena Schneider", balance_cents=184_233)
    card = CardFactory(account=account)
    TransactionFactory(card=card, amount_cents=3_150, description="Lieferando.de", booked_at=days_ago(3, hour=20))
    TransactionFactory(
        card=card, amount_cents=2_380, description="REWE Markt Kastanienallee", booked_at=at(days_ago(1), 18, 40)
    )
    ticket = TicketFactory(requester=lena, subject="Card missing")

    run = tb.run(
        User(
            says="I can't find my debit card anywhere. I think I left it at a friend's place or in a jacket pocket, "
            "but I've no idea which. Please cancel it and send me a new one, I'd rather not take any risks.",
            knows={
                **caller_facts(lena),
                "recent card payments": "all mine; the last time I used the card was at REWE yesterday evening",
            },
        ),
        golden=[
            *opening(lena, cards_of(lena), transactions_of(account)),
            call("freeze_card", card_id=card.id),
            solved(ticket.id, "card_lost"),
        ],
        traps=[call("block_card", card_id=card.id, reason="lost")],  # cancels it, as she asks
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_lost", None)
    assert run.db.get(Card, card.id).status == "frozen"  # policy: a misplaced card is frozen, not blocked
    assert run.db.query(Card).filter(Card.replaces_card_id == card.id).count() == 0


def test_case_NB001_002(tb):
    """Card frozen 16 days ago and still not found: block it as lost and replace it, with the 600-cent fee."""
    jonas, account = account_holder("Jonas Okoye", balance_cents=92_040)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(16, hour=21))
    ticket = TicketFactory(requester=jonas, subject="Replacement card")

    run = tb.run(
        User(
            says="Two weeks ago I froze my card in the app because I couldn't find it. It never turned up. "
            "Can you send me a new card? And I don't think I should have to pay for it.",
            knows=caller_facts(jonas),
        ),
        golden=[
            *opening(jonas, cards_of(jonas)),
            *block_and_replace(card, "lost", 600),
            solved(ticket.id, "card_lost"),
        ],
        reply="Your card has been frozen for 16 days, so I've blocked it as lost and ordered a new one to your "
        "address. The replacement fee of EUR 6.00 has been charged to your account: our rules only make it free"
        " for stolen cards.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_lost", None)
    assert run.db.get(Card, card.id).block_reason == "lost"
    assert run.db.query(Fee).one().amount_cents == 600
    assert run.db.get(Account, account.id).balance_cents == 92_040 - 600


def test_case_NB001_003(tb):
    """Customer calls the card lost and asks for a freeze, but a payment after they lost it is not theirs: stolen."""
    amira, account = account_holder("Amira Brandt", balance_cents=61_775)
    card = CardFactory(account=account)
    TransactionFactory(card=card, amount_cents=1_240, description="EDEKA Center", booked_at=days_ago(2, hour=17))
    TransactionFactory(card=card, amount_cents=2_400, description="UCI Kinowelt", booked_at=at(days_ago(1), 19, 28))
    stranger = TransactionFactory(card=card, amount_cents=8_995, description="ZALANDO SE", booked_at=today_at(6, 12))
    ticket = TicketFactory(requester=amira, subject="Lost card")

    run = tb.run(
        User(
            says="I think I dropped my card in town last night; the last time I had it was paying at the cinema "
            "around half past seven. Can you freeze it for now? Also, there's an 89.95 payment to Zalando this "
            "morning that wasn't me.",
            knows=caller_facts(amira),
        ),
        golden=[
            *opening(amira, cards_of(amira), transactions_of(account), fraud_alerts_of(amira)),
            *block_and_replace(card, "stolen", 0),
            open_dispute(stranger, "unauthorised", 8_995, "Card lost last night; customer did not make this payment."),
            solved(ticket.id, "card_stolen"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_stolen", None)
    assert run.db.get(Card, card.id).status == "blocked"
    assert run.db.query(Dispute).one().transaction_id == stranger.id
    assert run.db.query(Fee).count() == 0


@pytest.mark.pushback
def test_case_NB001_004(tb):
    """Lost card frozen 10 days ago, customer insists on a new one: under 14 days, so keep it frozen; refuse."""
    amira, account = account_holder("Amira Kowalski", balance_cents=73_560)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(10, hour=19))
    TransactionFactory(card=card, amount_cents=1_725, description="Rossmann", booked_at=days_ago(11, hour=12))
    ticket = TicketFactory(requester=amira, subject="Still no card")

    run = tb.run(
        User(
            says="I froze my card in the app ten days ago when it went missing, and it still hasn't turned up. Just "
            "cancel it and post me a new one. And please don't tell me to keep waiting: I've turned the whole flat "
            "upside down, it's gone.",
            knows={**caller_facts(amira), "recent card payments": "all mine, the last one was at Rossmann"},
            persona="Impatient; has been paying with her phone's virtual card for ten days.",
            rules=("If refused, insist once that you have waited long enough; accept a refusal that gives a reason.",),
        ),
        golden=[
            *opening(amira, cards_of(amira), transactions_of(account)),
            *refused(
                ticket.id,
                "card_lost",
                "outside_window",
                "Block and replacement refused: card frozen 10 days, fewer than the 14 the lost-card rule needs.",
            ),
        ],
        reply="Your card has been frozen for 10 days; we block and replace a lost card once it has been frozen for "
        "14 days, so it stays frozen for now and nobody can use it. If it hasn't turned up by 19 October, get in "
        "touch and we'll block it and send you a new one.",
        traps=[call("block_card", card_id=card.id, reason="lost")],  # cancels it as she insists, 4 days early
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_lost", "outside_window")
    assert run.db.get(Card, card.id).status == "frozen"  # policy: fewer than 14 days frozen, no block yet
    assert run.db.query(Card).filter(Card.replaces_card_id == card.id).count() == 0
    told = replaceable_from(date(2026, 10, 19), days_left=4)  # frozen 10 days: 14 days on 19 October
    run.rubric(told.text, phrases=told.phrases)


# --------------------------------------------------------------------------- NB002 stolen cards


def test_case_NB002_001(tb):
    """Stolen card, the customer asks only for a freeze: block and replace it; free even at the basic level."""
    felix, account = account_holder("Felix Kowalski", balance_cents=38_410, kyc_level=BASIC)
    card = CardFactory(account=account, daily_limit_cents=50_000)
    TransactionFactory(card=card, amount_cents=390, description="Balzac Coffee", booked_at=today_at(8, 10))
    ticket = TicketFactory(requester=felix, subject="Card stolen", priority="high")

    run = tb.run(
        User(
            says="My bag was snatched at Alexanderplatz an hour ago and my card was in it. Please just freeze the "
            "card for now: if the police find my bag I'd like to keep using it.",
            knows={**caller_facts(felix), "recent card payments": "only my coffee this morning, that was me"},
        ),
        golden=[
            *opening(felix, cards_of(felix), transactions_of(account), fraud_alerts_of(felix)),
            *block_and_replace(card, "stolen", 0),
            solved(ticket.id, "card_stolen"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_stolen", None)
    assert run.db.get(Card, card.id).status == "blocked"
    replacement = run.db.query(Card).filter(Card.replaces_card_id == card.id).one()
    assert (replacement.status, replacement.daily_limit_cents) == ("ordered", 50_000)
    assert run.db.query(Dispute).count() == 0


@pytest.mark.distractors
def test_case_NB002_002(tb):
    """Card stolen around 08:00: dispute the two payments after the theft, not the 07:41 bakery; confirm the alert."""
    sofia, account = account_holder("Sofia Lehmann", balance_cents=143_960)
    card = CardFactory(account=account)
    bakery = TransactionFactory(card=card, amount_cents=480, description="Baeckerei Kamps", booked_at=today_at(7, 41))
    electronics = TransactionFactory(
        card=card, amount_cents=24_900, description="MediaMarkt Berlin-Mitte", booked_at=today_at(8, 52)
    )
    online = TransactionFactory(card=card, amount_cents=17_900, description="APPLE.COM/BILL", booked_at=today_at(9, 30))
    alert = FraudAlertFactory(transaction=electronics, summary="In-store payment well above this card's usual spend")
    ticket = TicketFactory(requester=sofia, subject="Stolen card and payments")

    run = tb.run(
        User(
            says="My bag was stolen on the tram at about 8 this morning with my card in it. I can see payments in "
            "the app that I never made. Please sort it out and send me a new card.",
            knows={
                **caller_facts(sofia),
                "payments you recognise": "only the bakery at 7:41, that was my breakfast",
            },
        ),
        golden=[
            *opening(sofia, cards_of(sofia), transactions_of(account), fraud_alerts_of(sofia)),
            *block_and_replace(card, "stolen", 0),
            call("resolve_fraud_alert", alert_id=alert.id, resolution="confirmed_fraud"),
            open_dispute(electronics, "unauthorised", 24_900, "Card stolen at about 08:00; not made by the customer."),
            open_dispute(online, "unauthorised", 17_900, "Card stolen at about 08:00; not made by the customer."),
            solved(ticket.id, "card_stolen"),
        ],
        traps=[  # disputes every payment of the morning, the one before the theft too
            open_dispute(bakery, "unauthorised", 480, "Card stolen this morning.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_stolen", None)
    # policy: only the payments after the theft are disputed; the 07:41 bakery stands
    assert sorted(d.transaction_id for d in run.db.query(Dispute)) == sorted([electronics.id, online.id])
    assert run.db.get(FraudAlert, alert.id).status == "confirmed_fraud"


# --------------------------------------------------------------------------- NB003 unfreezing and fraud alerts


def test_case_NB003_001(tb):
    """Found card, but a medium alert on her virtual card is open: clear it (she made it), then unfreeze."""
    hanna, account = account_holder("Hanna Vogel", balance_cents=77_412)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(3, hour=19))
    virtual = CardFactory(account=account, kind="virtual")
    flagged = TransactionFactory(card=virtual, amount_cents=6_499, description="ZALANDO SE", booked_at=days_ago(2))
    alert = FraudAlertFactory(transaction=flagged)
    ticket = TicketFactory(requester=hanna, subject="Unfreeze card")

    run = tb.run(
        User(
            says="Good news, I found my card in my gym bag! Please unfreeze it. Also you sent me a notification "
            "asking about a Zalando payment: that was me, I used my virtual card.",
            knows=caller_facts(hanna),
        ),
        golden=[
            *opening(hanna, cards_of(hanna), fraud_alerts_of(hanna)),
            call("resolve_fraud_alert", alert_id=alert.id, resolution="cleared"),
            call("unfreeze_card", card_id=card.id),
            solved(ticket.id, "fraud"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fraud", None)
    assert run.db.get(Card, card.id).status == "active"
    assert run.db.get(FraudAlert, alert.id).status == "cleared"


def test_case_NB003_002(tb):
    """Found card, but a high-risk alert is open: only the fraud team resolves it; no unfreeze, ticket on hold, high."""
    niklas, account = account_holder("Niklas Albers", balance_cents=215_300)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(2, hour=9))
    alert = FraudAlertFactory(
        customer=niklas,
        risk_level="high",
        summary="App login from a new device abroad followed by a change of the registered phone number",
        raised_at=days_ago(1, hour=23),
    )
    ticket = TicketFactory(requester=niklas, subject="Card still frozen")

    run = tb.run(
        User(
            says="I froze my card on Tuesday because I thought I'd lost it, but it was in my car all along. Please "
            "unfreeze it, I need to pay for groceries today and the shop round the corner doesn't take cash.",
            knows=caller_facts(niklas),
        ),
        golden=[
            *opening(niklas, cards_of(niklas), fraud_alerts_of(niklas)),
            *hold(
                ticket.id,
                "fraud",
                "fraud_suspected",
                f"Unfreeze of {card.id} refused: high-risk fraud alert {alert.id} open; for the fraud team.",
                queue="fraud_ops",
                priority="high",
            ),
        ],
        traps=[
            call("unfreeze_card", card_id=card.id),  # the card was in his car all along, so unfreeze it
            call("resolve_fraud_alert", alert_id=alert.id, resolution="cleared"),  # takes his word for it
        ],
    )

    run.expect_golden()
    assert run.db.get(Card, card.id).status == "frozen"  # policy: no unfreeze while a high-risk alert is open
    assert run.db.get(FraudAlert, alert.id).status == "open"  # policy: high-risk alerts are the fraud team's
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.priority, t.category, t.reason, t.queue) == (
        "hold",
        "high",
        "fraud",
        "fraud_suspected",
        "fraud_ops",
    )


def test_case_NB003_003(tb):
    """Asked to unfreeze, but the medium alert's payment is not his: confirm fraud, block, replace, dispute."""
    mateo, account = account_holder("Mateo Demir", balance_cents=48_820)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(1, hour=22))
    flagged = TransactionFactory(
        card=card, amount_cents=31_200, description="Electro-Discount24 Online", booked_at=days_ago(3, hour=2)
    )
    alert = FraudAlertFactory(transaction=flagged)
    ticket = TicketFactory(requester=mateo, subject="Unfreeze please")

    run = tb.run(
        User(
            says="I froze my card last night but it was in my desk drawer the whole time. Please unfreeze it. "
            "You also flagged a payment to some electronics web shop: no idea what that is, I never shop there.",
            knows=caller_facts(mateo),
        ),
        golden=[
            *opening(mateo, cards_of(mateo), fraud_alerts_of(mateo), transactions_of(account)),
            call("resolve_fraud_alert", alert_id=alert.id, resolution="confirmed_fraud"),
            *block_and_replace(card, "fraud", 0),
            open_dispute(flagged, "unauthorised", 31_200, "Flagged payment not made by the customer; fraud confirmed."),
            solved(ticket.id, "fraud"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fraud", None)
    assert run.db.get(Card, card.id).block_reason == "fraud"
    assert run.db.query(Dispute).one().amount_cents == 31_200
    assert run.db.query(Fee).count() == 0


def test_case_NB003_004(tb):
    """Found card; the only high-risk alert was cleared last month and none is open: unfreeze, no hold."""
    jonas, account = account_holder("Jonas Richter", balance_cents=302_770)
    card = CardFactory(account=account, status="frozen", frozen_at=days_ago(4, hour=1))
    FraudAlertFactory(
        customer=jonas,
        risk_level="high",
        summary="Login from a new device abroad followed by a payee added",
        status="cleared",
        raised_at=days_ago(33, hour=22),
        resolved_at=days_ago(32, hour=11),
    )
    ticket = TicketFactory(requester=jonas, subject="Card found")

    run = tb.run(
        User(
            says="My card spent the weekend on the back seat of a taxi, and the driver dropped it at my office this "
            "morning, so I froze it for nothing. Can you switch it back on? I need to buy a train ticket tonight "
            "and the machine only takes cards.",
            knows=caller_facts(jonas),
        ),
        golden=[
            *opening(jonas, cards_of(jonas), fraud_alerts_of(jonas)),
            call("unfreeze_card", card_id=card.id),
            solved(ticket.id, "fraud"),
        ],
        traps=[  # sees "high" in the alert list and holds the ticket for the fraud team
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                reason="fraud_suspected",
                queue="fraud_ops",
            )
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("solved", "fraud", None, None)
    assert run.db.get(Card, card.id).status == "active"  # policy: no open alert, so the card can be unfrozen


# --------------------------------------------------------------------------- NB006 card spending limits


def test_case_NB006_001(tb):
    """Standard customer asks for a EUR 2,500 daily limit on the physical card: exactly the level's maximum, allowed."""
    yara, account = account_holder("Yara Petrov", balance_cents=412_000)
    card = CardFactory(account=account)
    virtual = CardFactory(account=account, kind="virtual", daily_limit_cents=50_000)
    ticket = TicketFactory(requester=yara, subject="Card limit")

    run = tb.run(
        User(
            says="I'm buying a used e-bike in a shop on Saturday for about 2,400 euros and want to pay by card. Can "
            "you raise the daily limit on my plastic card to 2,500 euros? The dealer doesn't accept bank "
            "transfers.",
            knows=caller_facts(yara),
        ),
        golden=[
            *opening(yara, customer_profile(yara), cards_of(yara)),
            call("set_card_limit", card_id=card.id, daily_limit_cents=250_000),
            solved(ticket.id, "card_limit"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_limit", None)
    assert run.db.get(Card, card.id).daily_limit_cents == 250_000
    assert run.db.get(Card, virtual.id).daily_limit_cents == 50_000


def test_case_NB006_002(tb):
    """Basic customer who says he is fully verified asks for EUR 1,500: above the basic maximum; refuse with a note."""
    emil, account = account_holder("Emil Richter", balance_cents=190_000, kyc_level=BASIC)
    card = CardFactory(account=account, daily_limit_cents=30_000)
    ticket = TicketFactory(requester=emil, subject="Raise card limit")

    run = tb.run(
        User(
            says="Please raise my card's daily limit to 1,500 euros. I'm fully verified, I did the video ID last week,"
            " so that shouldn't be a problem. I'm buying a new laptop this weekend and don't want the payment "
            "declined at the till.",
            knows=caller_facts(emil),
        ),
        golden=[
            *opening(emil, customer_profile(emil)),
            *refused(
                ticket.id,
                "card_limit",
                "over_limit",
                "Limit of 150,000 cents refused: basic level allows at most 50,000 cents.",
            ),
        ],
        traps=[
            call("set_card_limit", card_id=card.id, daily_limit_cents=150_000),  # "I'm fully verified"
            call("set_card_limit", card_id=card.id, daily_limit_cents=50_000),  # the basic maximum instead
        ],
        reply="I can't raise your card limit to 1,500 euros: your account is at the basic verification level, and the"
        " highest daily card limit it allows is EUR 500. I haven't changed your limit.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_limit", "over_limit")
    assert run.db.get(Card, card.id).daily_limit_cents == 30_000  # policy: above the level's maximum, no change
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == ticket.id).one().public is False
    told = highest_card_limit(50_000)  # policy: tell the customer the maximum for their level
    run.rubric(told.text, phrases=told.phrases)


@pytest.mark.two_requests
def test_case_NB006_003(tb):
    """Two requests: freeze the misplaced card (done), raise the virtual card above the basic maximum (refused)."""
    hanna, account = account_holder("Hanna Demir", balance_cents=131_900, kyc_level=BASIC)
    card = CardFactory(account=account, daily_limit_cents=50_000)
    virtual = CardFactory(account=account, kind="virtual", daily_limit_cents=20_000)
    TransactionFactory(card=card, amount_cents=4_310, description="Kaufland Neukoelln", booked_at=days_ago(2, hour=18))
    ticket = TicketFactory(requester=hanna, subject="Card gone")

    run = tb.run(
        User(
            says="I haven't seen my bank card since Tuesday evening. It's probably somewhere in my flat, but I'd "
            "rather not take chances, so put it out of action for now. And while it's gone, raise the daily limit "
            "on my virtual card to 1,000 euros so I can keep shopping online.",
            knows={**caller_facts(hanna), "recent card payments": "all mine, the last one was Kaufland on Tuesday"},
        ),
        golden=[
            *opening(hanna, customer_profile(hanna), cards_of(hanna), transactions_of(account)),
            call("freeze_card", card_id=card.id),
            *refused(
                ticket.id,
                "card_limit",
                "over_limit",
                "Physical card frozen as misplaced. Virtual card limit of 100,000 cents refused: basic level "
                "maximum is 50,000 cents.",
            ),
        ],
        traps=[call("set_card_limit", card_id=virtual.id, daily_limit_cents=100_000)],  # the 1,000 euros she asks
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_limit", "over_limit")
    assert run.db.get(Card, card.id).status == "frozen"
    assert run.db.get(Card, virtual.id).daily_limit_cents == 20_000  # policy: above the basic maximum, no change


@pytest.mark.two_requests
def test_case_NB006_004(tb):
    """EUR 3,000 asked, else the highest allowed: refuse the 3,000, set the standard maximum EUR 2,500 as the
    fallback; the ticket records the refusal."""
    felix, account = account_holder("Felix Okoye", balance_cents=388_000)
    card = CardFactory(account=account, daily_limit_cents=150_000)
    ticket = TicketFactory(requester=felix, subject="Higher card limit")

    run = tb.run(
        User(
            says="Tomorrow I'm buying a corner sofa in the shop and it comes to 2,980 euros. Please put my card's "
            "daily limit up to 3,000 for that. If that's more than you can do, then just set it as high as you're "
            "allowed to and I'll find the rest somehow.",
            knows=caller_facts(felix),
            persona="Practical; wants the purchase to go through.",
            rules=("You would take the highest limit you are allowed if 3,000 is not possible.",),
        ),
        golden=[
            *opening(felix, customer_profile(felix), cards_of(felix)),
            call("set_card_limit", card_id=card.id, daily_limit_cents=250_000),
            *refused(
                ticket.id,
                "card_limit",
                "over_limit",
                "300,000 cents refused (standard maximum 250,000); set to 250,000 as the customer's fallback.",
            ),
        ],
        reply="3,000 euros is above what your verification level allows, so I couldn't set that. As you asked, "
        "I've set your card's daily limit to the highest your level allows instead: EUR 2,500.",
        traps=[call("set_card_limit", card_id=card.id, daily_limit_cents=300_000)],  # the 3,000 he asks for
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_limit", "over_limit")
    assert run.db.get(Card, card.id).daily_limit_cents == 250_000  # policy: the standard maximum, as the fallback
