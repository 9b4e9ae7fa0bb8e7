"""Security locks (set at the customer's request, lifted by whom) and requests to change the KYC level."""

from __future__ import annotations

import pytest

from domains.neobank.calls import cards_of, create_ticket, customer_profile, hold, opening, refused, solved, ticket_end
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccountFactory,
    CardFactory,
    CustomerFactory,
    TicketCommentFactory,
    TicketFactory,
    account_holder,
    finished_ticket,
    pending_lock_ticket,
    security_lock,
)
from domains.neobank.models import Card, Customer, Ticket, TicketComment
from domains.neobank.replies import UPLOAD_IN_THE_APP
from domains.neobank.seed import BASIC
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Security locks",
    "KYC levels and limits",
    "Card spending limits",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB011 security locks


def test_case_NB011_001(tb):
    """Phone with the banking app stolen, no open ticket: create one (security, no account), lock on request, high."""
    lena, account = account_holder("Lena Richter", balance_cents=356_780)
    CardFactory(account=account)
    old, new_id = finished_ticket(lena, "Statement for September", days_ago(12))

    run = tb.run(
        User(
            says="Someone pinched my phone at a concert last night and your app is on it. The phone has a PIN, but "
            "I'm scared someone gets into my money. Can you shut everything down until I've got a new phone? "
            "I'll get back to you once I do.",
            knows=caller_facts(lena),
        ),
        golden=[
            *opening(lena),
            create_ticket(lena, "Phone stolen: lock account", "security"),
            call("set_security_lock", customer_id=lena.id, locked=True, reason="customer_request"),
            solved(new_id, priority="high"),
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (lena.id, None, "security")
    assert (t.status, t.priority, t.reason) == ("solved", "high", None)
    customer = run.db.get(Customer, lena.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "customer_request")
    assert run.db.get(Ticket, old.id).status == "solved"


@pytest.mark.pushback
def test_case_NB011_002(tb):
    """Verified customer asks to lift a lock set after a failed verification: only security lifts it; hold, high."""
    mateo = CustomerFactory(
        name="Mateo Okoye",
        **security_lock("failed_verification", days_ago(2, hour=16)),
    )
    AccountFactory(customer=mateo, balance_cents=128_450)
    tuesday = pending_lock_ticket(mateo, "Transfer request", days_ago(2, hour=16))
    TicketCommentFactory(ticket=tuesday, public=False, author="support agent", body="Identity not verified; locked.")
    ticket = TicketFactory(requester=mateo, subject="Account locked")

    run = tb.run(
        User(
            says="Since Tuesday your app says my account is locked and I can't send anything. I must have got my "
            "birthday wrong on the phone when I called, I was on a bad line. It really is me, so please unlock it: "
            "I've got bills to pay this week.",
            knows=caller_facts(mateo),
            persona="Calm but worried about paying his bills on time.",
            rules=("If refused, ask once whether the lock can be lifted today, then accept the answer.",),
        ),
        golden=[
            *opening(mateo, customer_profile(mateo)),
            *hold(
                ticket.id,
                "security",
                "security_lock",
                "Verified customer asks to lift the failed_verification lock of Tuesday; for the security team.",
                queue="security",
                priority="high",
            ),
        ],
        reply="You're verified now, but the lock on your account was set after a failed identity check, and only "
        "our security team can lift that kind of lock. I've passed your ticket to the security team with high "
        "priority; they will contact you.",
        traps=[call("set_security_lock", customer_id=mateo.id, locked=False)],  # lifts it: "it really is me"
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
    customer = run.db.get(Customer, mateo.id)
    assert (customer.security_locked, customer.security_lock_reason) == (True, "failed_verification")
    assert run.db.get(Ticket, tuesday.id).status == "pending"  # policy: never edit the customer's other tickets


@pytest.mark.distractors
def test_case_NB011_003(tb):
    """Lock the customer asked for last week, phone now back: lift it; work in the new ticket, not last week's."""
    yara, account = account_holder(
        "Yara Schneider",
        balance_cents=64_020,
        **security_lock("customer_request", days_ago(6, hour=9)),
    )
    CardFactory(account=account)
    last_week = pending_lock_ticket(yara, "Lost phone", days_ago(6, hour=9))
    ticket = TicketFactory(requester=yara, subject="Unlock please")

    run = tb.run(
        User(
            says="Last week I had you lock my account because I'd left my phone in a hotel in Porto. The hotel "
            "posted it back and it arrived this morning, safe and sound. Please unlock everything so I can use my "
            "card and send money again.",
            knows=caller_facts(yara),
        ),
        golden=[
            *opening(yara, customer_profile(yara)),
            call("set_security_lock", customer_id=yara.id, locked=False),
            solved(ticket.id, "security"),
        ],
        traps=[  # picks up last week's ticket about the phone and closes that one instead
            solved(last_week.id, "security")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "security", None)
    assert run.db.get(Customer, yara.id).security_locked is False  # policy: her own request, so she may lift it
    assert run.db.get(Ticket, last_week.id).status == "pending"


# --------------------------------------------------------------------------- NB014 KYC level requests


@pytest.mark.two_requests
def test_case_NB014_001(tb):
    """Basic customer wants support to upgrade her level, else the highest card limit: refuse the upgrade (kyc),
    set the basic maximum."""
    emil, account = account_holder("Emil Demir", balance_cents=97_300, kyc_level=BASIC)
    card = CardFactory(account=account, daily_limit_cents=30_000)
    ticket = TicketFactory(requester=emil, subject="Verification level")

    run = tb.run(
        User(
            says="Please move me up to the standard level. I emailed you a photo of my passport last week, so you "
            "have everything you need. If you really can't do that from your side, then at least put my card's "
            "daily limit as high as it can go for now.",
            knows=caller_facts(emil),
            persona="Irritated; believes the passport photo he emailed should settle it.",
            rules=("If refused, say that is fine and that the highest card limit your level allows will do for now.",),
        ),
        golden=[
            *opening(emil, customer_profile(emil), cards_of(emil)),
            call("set_card_limit", card_id=card.id, daily_limit_cents=50_000),
            *refused(
                ticket.id,
                "kyc",
                "kyc_required",
                "Level change refused: support cannot change KYC levels; documents go through the app. Card "
                "limit set to the basic maximum of 50,000 cents as asked.",
            ),
        ],
        reply="I can't change your verification level from here: please upload your passport in the app under "
        "Profile, then Verification, and our compliance team will check it. Meanwhile I've set your card's daily "
        "limit to EUR 500, the highest your current level allows.",
        traps=[  # treats the emailed passport as an upgrade and sets the standard level's maximum
            call("set_card_limit", card_id=card.id, daily_limit_cents=250_000)
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "kyc", "kyc_required")
    assert run.db.get(Card, card.id).daily_limit_cents == 50_000  # policy: the basic maximum, the fallback asked
    assert run.db.get(Customer, emil.id).kyc_level == "basic"
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == ticket.id).one().public is False
    run.rubric(UPLOAD_IN_THE_APP.text, phrases=UPLOAD_IN_THE_APP.phrases)
