"""Security locks next to other requests (what a lock stops and what it does not, lifting and sending), a stolen
phone and card together, and KYC level requests that are not upgrades."""

from __future__ import annotations

import pytest

from domains.neobank.calls import (
    Payee,
    accounts_of,
    block_and_replace,
    cards_of,
    create_ticket,
    create_transfer,
    customer_profile,
    fraud_alerts_of,
    hold,
    identify,
    open_dispute,
    opening,
    payee_facts,
    pending,
    refused,
    solved,
    ticket_end,
    transactions_of,
    transfers_of,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CardFactory,
    CustomerFactory,
    TicketFactory,
    TransactionFactory,
    TransferFactory,
    account_holder,
    at,
    finished_ticket,
    held_transfer,
    make_iban,
    pending_lock_ticket,
    security_lock,
    today_at,
)
from domains.neobank.models import Account, Card, Customer, Dispute, Ticket, TicketComment, Transfer
from domains.neobank.replies import UPLOAD_IN_THE_APP
from domains.neobank.seed import ENHANCED
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Security locks",
    "KYC levels and limits",
    "Outgoing transfers",
    "Lost or misplaced cards",
    "Stolen cards",
    "Card replacements",
    "Card spending limits",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB015 a lock next to another request


@pytest.mark.two_requests
def test_case_NB015_001(tb):
    """A failed-verification lock stands; the verified customer misplaced her card and wants the lock gone: the
    freeze is not stopped by a lock (do it), the lift is the security team's (hold, high)."""
    greta, account = account_holder(
        "Greta Hoffmann",
        balance_cents=231_870,
        **security_lock("failed_verification", days_ago(3, hour=11)),
    )
    card = CardFactory(account=account, last4="3309")
    TransactionFactory(card=card, amount_cents=1_890, description="dm-drogerie markt", booked_at=days_ago(1, hour=17))
    monday = pending_lock_ticket(greta, "Transfer request", days_ago(3, hour=11))
    ticket = TicketFactory(requester=greta, subject="Lock and card")

    run = tb.run(
        User(
            says="Two things. First, someone apparently called you on Monday pretending to be me and now my account "
            "is locked; I'm verified now, so please remove that lock. Second, I can't find my card since last "
            "night, it's probably somewhere in my flat, but please make sure nobody can use it meanwhile.",
            knows={
                **caller_facts(greta),
                "recent card payments": "all mine, the last one was at dm yesterday afternoon",
            },
        ),
        golden=[
            *opening(greta, customer_profile(greta)),
            cards_of(greta),
            transactions_of(account),
            call("freeze_card", card_id=card.id),
            *hold(
                ticket.id,
                "security",
                "security_lock",
                "Card frozen as misplaced. Customer asks to lift the failed_verification lock of Monday: only "
                "the security team may lift it.",
                queue="security",
                priority="high",
            ),
        ],
        reply="I've frozen your card so nobody can use it; you can unfreeze it once it turns up. The lock on your "
        "account was set after a failed identity check, and only our security team can lift that kind of lock, so "
        "I've passed your request to them with high priority.",
        traps=[call("set_security_lock", customer_id=greta.id, locked=False)],  # she is verified now, so lifts it
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.priority, t.category, t.reason, t.queue) == (
        "hold",
        "high",
        "security",
        "security_lock",
        "security",
    )
    assert run.db.get(Card, card.id).status == "frozen"  # policy: a lock does not stop a freeze
    customer = run.db.get(Customer, greta.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "failed_verification")
    assert run.db.get(Ticket, monday.id).status == "pending"


@pytest.mark.two_requests
def test_case_NB015_002(tb):
    """Her own lock from Sunday can go (she asks), then EUR 1,400 to her sister fits October's EUR 15,000 only
    when the held transfer counts and September's does not: lift, send at once."""
    ida, account = account_holder(
        "Ida Marquardt",
        balance_cents=1_260_000,
        **security_lock("customer_request", days_ago(4, hour=22)),
    )
    TransferFactory(account=account, amount_cents=300_000, created_at=days_ago(14), beneficiary_name="Autohaus Lindner")
    TransferFactory(account=account, amount_cents=600_000, created_at=days_ago(12), beneficiary_name="Notar Kessler")
    held_transfer(account, 450_000, "Bauhaus AG", days_ago(9))
    TransferFactory(account=account, amount_cents=300_000, created_at=days_ago(16), beneficiary_name="Notar Kessler")
    sister = Payee("Paula Marquardt", make_iban("50010517", "5407324931"), "Geschenk Mama 70")
    sunday = TicketFactory(
        requester=ida, status="solved", priority="high", subject="Lost phone", created_at=days_ago(4, hour=22)
    )
    ticket = TicketFactory(requester=ida, account=account, subject="Unlock and transfer")

    run = tb.run(
        User(
            says="On Sunday I asked you to lock my account because I had left my phone in a taxi. The taxi company "
            "brought it back yesterday, so please lift the lock. And once that's done, I need to send 1,400 euros "
            "to my sister for our mother's birthday present, with a reference she asked for.",
            knows={**caller_facts(ida), **payee_facts(sister)},
        ),
        golden=[
            *opening(ida, customer_profile(ida), accounts_of(ida), transfers_of(account)),
            call("set_security_lock", customer_id=ida.id, locked=False),
            create_transfer(account, sister, 140_000, held=False),
            solved(ticket.id, "security"),
        ],
        traps=[  # counts September's transfer as well, goes over EUR 15,000 and holds it
            create_transfer(account, sister, 140_000, held=True)
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("solved", "security", None, None)
    assert run.db.get(Customer, ida.id).security_locked is False  # policy: her own lock, lifted at her request
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Paula Marquardt").one()
    # policy: 300,000 + 600,000 + 450,000 held + 140,000 = 1,490,000, within the standard 1,500,000 of October
    assert (sent.status, sent.amount_cents, sent.reference) == ("completed", 140_000, "Geschenk Mama 70")
    assert run.db.get(Account, account.id).balance_cents == 1_260_000 - 140_000
    assert run.db.get(Ticket, sunday.id).status == "solved"


# --------------------------------------------------------------------------- NB011 security locks


@pytest.mark.two_requests
def test_case_NB011_004(tb):
    """Bag with phone and card stolen at 12:30: lock on her request (ticket high), block and replace the card for
    free, dispute only the 12:52 payment after the theft; the ticket takes the lock's category."""
    hedda, account = account_holder("Hedda Lorenz", balance_cents=96_410)
    card = CardFactory(account=account, last4="7720")
    virtual = CardFactory(account=account, kind="virtual", last4="0415")
    coffee = TransactionFactory(card=card, amount_cents=1_260, description="Coffee Fellows", booked_at=today_at(11, 15))
    stranger = TransactionFactory(
        card=card, amount_cents=8_940, description="Lidl Alexanderplatz", booked_at=today_at(12, 52)
    )
    TransactionFactory(card=virtual, amount_cents=1_499, description="Spotify", booked_at=today_at(13, 5))
    ticket = TicketFactory(requester=hedda, subject="Bag stolen")

    run = tb.run(
        User(
            says="My handbag was stolen at a cafe at about half past twelve, with my phone and my debit card in it. "
            "First of all, please lock my account so nobody can get at my money through the app. And the card: "
            "stop it and send me a new one. I'm calling from a colleague's phone.",
            knows={
                **caller_facts(hedda),
                "payments you recognise": "the coffee at 11:15 was mine, and the Spotify subscription on my virtual "
                "card; nothing else today",
            },
        ),
        golden=[
            *opening(hedda, cards_of(hedda), transactions_of(account), fraud_alerts_of(hedda)),
            call("set_security_lock", customer_id=hedda.id, locked=True, reason="customer_request"),
            *block_and_replace(card, "stolen", 0),
            open_dispute(
                stranger, "unauthorised", 8_940, "Card stolen at about 12:30 with the customer's bag; payment not hers."
            ),
            solved(ticket.id, "security", priority="high"),
        ],
        traps=[  # disputes every card payment of the day, the coffee before the theft too
            open_dispute(coffee, "unauthorised", 1_260, "Card stolen today.")
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.priority, t.category, t.reason) == ("solved", "high", "security", None)
    customer = run.db.get(Customer, hedda.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "customer_request")
    old = run.db.get(Card, card.id)
    assert (old.status, old.block_reason) == ("blocked", "stolen")
    assert run.db.get(Card, virtual.id).status == "active"
    assert run.db.query(Card).filter(Card.replaces_card_id == card.id).count() == 1
    dispute = run.db.query(Dispute).one()  # policy: only the payment after the theft, for its full amount
    assert (dispute.transaction_id, dispute.reason, dispute.amount_cents) == (stranger.id, "unauthorised", 8_940)
    assert run.db.get(Account, account.id).balance_cents == 96_410  # policy: a stolen card is replaced for free


# --------------------------------------------------------------------------- NB014 KYC level requests


@pytest.mark.two_requests
def test_case_NB014_002(tb):
    """An enhanced customer wants to be put down to basic after a scam scare: support cannot change the level
    (refuse, kyc); the fallback, EUR 200 a day on both cards, is done."""
    walter, account = account_holder("Walter Franke", balance_cents=2_840_000, kyc_level=ENHANCED)
    card = CardFactory(account=account, daily_limit_cents=500_000, last4="6612")
    virtual = CardFactory(account=account, kind="virtual", daily_limit_cents=300_000, last4="9043")
    ticket = TicketFactory(requester=walter, subject="Lower my limits")

    run = tb.run(
        User(
            says="A friend of mine lost his savings to phone scammers last month, and it scared me. Please put my "
            "account back to the lowest verification level, so that big amounts simply can't leave it. If that "
            "isn't possible, then at least bring the daily limit on both my cards down to 200 euros.",
            knows=caller_facts(walter),
            persona="A careful retiree who wants fewer ways for money to leave his account.",
        ),
        golden=[
            *opening(walter, customer_profile(walter), cards_of(walter)),
            call("set_card_limit", card_id=card.id, daily_limit_cents=20_000),
            call("set_card_limit", card_id=virtual.id, daily_limit_cents=20_000),
            *refused(
                ticket.id,
                "kyc",
                "kyc_required",
                "Request to lower the KYC level refused: support cannot change levels. Both card limits set to "
                "20,000 cents as the customer's fallback.",
            ),
        ],
        reply="I can't change your verification level from here, not even downwards: levels are changed only "
        "through the verification process in the app. What I have done is set the daily limit of both your cards "
        "to EUR 200.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "kyc", "kyc_required")
    assert run.db.get(Customer, walter.id).kyc_level == "enhanced"
    assert run.db.get(Card, card.id).daily_limit_cents == 20_000
    assert run.db.get(Card, virtual.id).daily_limit_cents == 20_000
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == ticket.id).one().public is False


@pytest.mark.pushback
def test_case_NB014_003(tb):
    """A standard customer wants his limits raised for October only, for a car purchase; no open ticket: create
    one (kyc, no account), refuse; he pushes back and the answer stays."""
    anton = CustomerFactory(name="Anton Seidel")
    AccountFactory(customer=anton, balance_cents=2_210_000)
    old, new_id = finished_ticket(anton, "Card PIN", days_ago(33), status="closed")

    run = tb.run(
        User(
            says="I'm buying a car next week and will need to move about 20,000 euros this month. Could you raise "
            "my transfer limits, just for October? I've banked with you for years, I'm not some random person.",
            knows=caller_facts(anton),
            persona="A long-standing customer who expects to be treated as one.",
            rules=("If refused, insist once that a loyal customer deserves an exception for one month, then accept.",),
        ),
        golden=[
            *opening(anton, customer_profile(anton)),
            create_ticket(anton, "Raise transfer limits for October", "kyc"),
            *refused(
                new_id,
                None,
                "kyc_required",
                "Temporary raise of the standard transfer limits refused: support cannot change a level's "
                "limits; documents go through the app.",
            ),
        ],
        reply="I'm sorry, I can't raise your limits, not even for one month: the limits come with your verification "
        "level. If you upload proof of income or source of funds in the app under Profile, then Verification, our "
        "compliance team can check you for the enhanced level.",
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (anton.id, None, "kyc")
    assert (t.status, t.reason, t.queue) == ("solved", "kyc_required", None)
    assert run.db.get(Customer, anton.id).kyc_level == "standard"
    assert run.db.get(Ticket, old.id).status == "closed"
    run.rubric(UPLOAD_IN_THE_APP.text, phrases=UPLOAD_IN_THE_APP.phrases)


# --------------------------------------------------------------------------- NB010 identity verification


@pytest.mark.pushback
def test_case_NB010_004(tb):
    """A caller asks to lift the lock the customer set last week, gives the wrong postal code and then offers
    another: verify once, change nothing (no lift), pending; no new lock, since one is already set. No open
    ticket: create one (security, no account)."""
    ilse = CustomerFactory(
        name="Ilse Maurer",
        **security_lock("customer_request", days_ago(8, hour=18)),
    )
    AccountFactory(customer=ilse, balance_cents=77_640)
    old, new_id = finished_ticket(ilse, "Wallet lost", days_ago(8, hour=18), priority="high")
    wrong_postcode = "10117"  # her office's postal code; the profile has her home address

    run = tb.run(
        User(
            says="I locked my account last week when my wallet went missing, but everything's fine now. Please lift "
            "the lock, I need to pay my rent tomorrow.",
            knows={**caller_facts(ilse), "postal code": wrong_postcode},
            rules=(
                f"If refused, offer once to try again with the postal code {ilse.postal_code}, then accept the answer.",
            ),
        ),
        golden=[
            *identify(ilse, postal_code=wrong_postcode),
            call("list_tickets", requester_id=ilse.id),
            create_ticket(ilse, "Lift security lock", "security"),
            *pending(
                new_id,
                None,
                "identity_failed",
                "Identity could not be verified (postal code mismatch); lock not lifted.",
            ),
        ],
        reply="I'm sorry, I couldn't verify your identity with those details, so I can't change anything on your "
        "account, and I can't run the check a second time in this conversation. Please contact us from the app.",
        traps=[call("set_security_lock", customer_id=ilse.id, locked=False)],  # lifts her own lock unverified
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (ilse.id, None, "security")
    assert (t.status, t.reason, t.priority) == ("pending", "identity_failed", "normal")
    customer = run.db.get(Customer, ilse.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "customer_request")
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == new_id).one().public is False
    assert run.db.get(Ticket, old.id).status == "solved"


def test_case_NB015_003(tb):
    """A suspected-takeover lock stands while the verified customer reports her card stolen: a lock does not stop
    blocking, replacing or disputing, so do all three; the lock stays for the security team, nothing held."""
    nora, account = account_holder(
        "Nora Pohl",
        balance_cents=142_080,
        **security_lock("suspected_takeover", days_ago(1, hour=7)),
    )
    card = CardFactory(account=account, last4="8846")
    TransactionFactory(card=card, amount_cents=2_240, description="Rossmann", booked_at=at(days_ago(2), 12, 5))
    taxi = TransactionFactory(card=card, amount_cents=6_300, description="FREE NOW Taxi", booked_at=today_at(1, 40))
    ticket = TicketFactory(requester=nora, subject="Card stolen")

    run = tb.run(
        User(
            says="My wallet was stolen on the train yesterday evening at about 8 with my card in it. Overnight "
            "someone took a taxi with it. You already locked my account yesterday because of some strange login, "
            "fine, leave that to your security people. But please deal with the card and the taxi payment.",
            knows={
                **caller_facts(nora),
                "payments you recognise": "Rossmann two days ago was mine; the taxi last night was not",
            },
        ),
        golden=[
            *opening(nora, customer_profile(nora), cards_of(nora), transactions_of(account), fraud_alerts_of(nora)),
            *block_and_replace(card, "stolen", 0),
            open_dispute(
                taxi,
                "unauthorised",
                6_300,
                "Card stolen yesterday at about 20:00; taxi payment not made by the customer.",
            ),
            solved(ticket.id, "card_stolen"),
        ],
        traps=[call("set_security_lock", customer_id=nora.id, locked=False)],  # clears the lock while at it
    )

    run.expect_golden()
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason, t.queue) == ("solved", "card_stolen", None, None)
    assert run.db.get(Card, card.id).block_reason == "stolen"  # policy: a lock does not stop a block
    assert run.db.query(Card).filter(Card.replaces_card_id == card.id).count() == 1
    dispute = run.db.query(Dispute).one()
    assert (dispute.transaction_id, dispute.amount_cents) == (taxi.id, 6_300)
    customer = run.db.get(Customer, nora.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "suspected_takeover")
