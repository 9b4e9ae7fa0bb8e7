"""Scheduled payments (the two-day cut-off) and replacements of damaged cards (the fee by KYC level)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domains.neobank.calls import (
    accounts_of,
    block_and_replace,
    cards_of,
    create_ticket,
    customer_profile,
    opening,
    refused,
    scheduled_payments_of,
    solved,
    ticket_end,
)
from domains.neobank.clock import TODAY, days_ago
from domains.neobank.factories import (
    CardFactory,
    ScheduledPaymentFactory,
    TicketFactory,
    account_holder,
    finished_ticket,
)
from domains.neobank.models import Account, Card, Fee, ScheduledPayment, Ticket, TicketComment
from domains.neobank.seed import ENHANCED
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Scheduled payments",
    "Card replacements",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB012 scheduled payments


@pytest.mark.two_requests
def test_case_NB012_001(tb):
    """Two standing orders to cancel: the gym's runs in 9 days (cancel), the rent runs tomorrow (refuse)."""
    jonas, account = account_holder("Jonas Vogel", balance_cents=212_640)
    gym = ScheduledPaymentFactory(
        account=account, payee_name="McFit Berlin-Wedding", amount_cents=2_490, next_run_on=TODAY + timedelta(days=9)
    )
    rent = ScheduledPaymentFactory(
        account=account,
        payee_name="Hausverwaltung Kraus",
        amount_cents=86_000,
        reference="Miete Whg. 3 links",
        next_run_on=TODAY + timedelta(days=1),
    )
    ticket = TicketFactory(requester=jonas, account=account, subject="Cancel standing orders")

    run = tb.run(
        User(
            says="I'm moving out of my flat and quitting the gym in the same week. Please stop both standing orders, "
            "the gym one and the rent to Hausverwaltung Kraus. My landlord already has my last rent in cash, so the "
            "rent transfer must not go out again.",
            knows=caller_facts(jonas),
        ),
        golden=[
            *opening(jonas, accounts_of(jonas), scheduled_payments_of(account)),
            call("cancel_scheduled_payment", scheduled_payment_id=gym.id),
            *refused(
                ticket.id,
                "scheduled_payment",
                "outside_window",
                "Gym order cancelled. Rent order runs tomorrow, inside the two-day cut-off: not cancelled.",
            ),
        ],
        reply="I've cancelled the gym standing order. The rent payment to Hausverwaltung Kraus runs tomorrow and "
        "has already gone to the clearing system, so it can't be cancelled any more: please ask your landlord to "
        "send that payment back. Once it has run you can stop future rent payments in the app.",
        traps=[call("cancel_scheduled_payment", scheduled_payment_id=rent.id)],  # stops tomorrow's rent as asked
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "scheduled_payment", "outside_window")
    assert run.db.get(ScheduledPayment, gym.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, rent.id).status == "active"  # policy: runs tomorrow, past the cut-off


def test_case_NB012_002(tb):
    """Language-school order runs in 5 days and no ticket is open: create one (scheduled_payment, the account),
    cancel."""
    amira, account = account_holder("Amira Lehmann", balance_cents=143_300)
    school = ScheduledPaymentFactory(
        account=account,
        payee_name="Sprachschule Lingua Berlin",
        amount_cents=12_000,
        next_run_on=TODAY + timedelta(days=5),
    )
    power = ScheduledPaymentFactory(
        account=account, payee_name="Vattenfall Europe Sales", amount_cents=6_800, next_run_on=TODAY + timedelta(days=5)
    )
    old, new_id = finished_ticket(amira, "Card delivery", days_ago(90), status="closed")

    run = tb.run(
        User(
            says="My Spanish course finished last week, but the monthly payment to the language school is still set "
            "up on my account. Could you stop it before it goes out again? I really don't want to chase them for "
            "a refund afterwards.",
            knows=caller_facts(amira),
        ),
        golden=[
            *opening(amira, accounts_of(amira), scheduled_payments_of(account)),
            create_ticket(amira, "Cancel language school payment", "scheduled_payment", account),
            call("cancel_scheduled_payment", scheduled_payment_id=school.id),
            solved(new_id),
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (amira.id, account.id, "scheduled_payment")
    assert (t.status, t.reason) == ("solved", None)
    assert run.db.get(ScheduledPayment, school.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, power.id).status == "active"  # policy: only the payment she asks about
    assert run.db.get(Ticket, old.id).status == "closed"


def test_case_NB012_003(tb):
    """One-off payment runs on Saturday, exactly two days from today: still inside the rule, so cancel it."""
    niklas, account = account_holder("Niklas Richter", balance_cents=612_000)
    dealer = ScheduledPaymentFactory(
        account=account,
        payee_name="Autohaus Becker GmbH",
        amount_cents=450_000,
        frequency="once",
        reference="Anzahlung VW Golf",
        next_run_on=TODAY + timedelta(days=2),
    )
    ticket = TicketFactory(requester=niklas, subject="Stop a payment")

    run = tb.run(
        User(
            says="I set up a payment of 4,500 euros to a car dealer for this Saturday as the deposit on a Golf, but "
            "they've just rung to say they sold the car to someone else. Please stop that payment, I'm worried it's "
            "already too late.",
            knows=caller_facts(niklas),
        ),
        golden=[
            *opening(niklas, accounts_of(niklas), scheduled_payments_of(account)),
            call("cancel_scheduled_payment", scheduled_payment_id=dealer.id),
            solved(ticket.id, "scheduled_payment"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "scheduled_payment", None)
    assert run.db.get(ScheduledPayment, dealer.id).status == "cancelled"  # policy: 2 days ahead is in time
    assert run.db.query(TicketComment).count() == 0


# --------------------------------------------------------------------------- NB013 damaged cards


def test_case_NB013_001(tb):
    """Snapped card, standard level, no open ticket: create one (card_replacement, the account), block as damaged,
    replace for 600 cents although the customer expects it free."""
    felix, account = account_holder("Felix Vogel", balance_cents=48_115)
    card = CardFactory(account=account, daily_limit_cents=120_000)
    _, new_id = finished_ticket(felix, "Interest rate", days_ago(40))

    run = tb.run(
        User(
            says="My card has snapped in half in my wallet, I think I sat on it. Tapping still works now and then, "
            "but no machine reads the chip any more. Can you send me a new one? I assume that's free, cards "
            "shouldn't break that easily.",
            knows=caller_facts(felix),
        ),
        golden=[
            *opening(felix, customer_profile(felix), cards_of(felix)),
            create_ticket(felix, "Damaged card replacement", "card_replacement", account),
            *block_and_replace(card, "damaged", 600),
            solved(new_id),
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category, t.status, t.reason) == (
        felix.id,
        account.id,
        "card_replacement",
        "solved",
        None,
    )
    assert run.db.get(Card, card.id).block_reason == "damaged"
    replacement = run.db.query(Card).filter(Card.replaces_card_id == card.id).one()
    assert replacement.daily_limit_cents == 120_000
    assert run.db.query(Fee).one().amount_cents == 600  # policy: damaged at the standard level costs 600 cents
    assert run.db.get(Account, account.id).balance_cents == 48_115 - 600


def test_case_NB013_002(tb):
    """Worn-out card of an enhanced customer: block as damaged and replace free of charge; tell them it is free."""
    sofia, account = account_holder("Sofia Demir", balance_cents=1_804_500, kyc_level=ENHANCED)
    card = CardFactory(account=account, daily_limit_cents=400_000)
    virtual = CardFactory(account=account, kind="virtual", daily_limit_cents=100_000)
    ticket = TicketFactory(requester=sofia, account=account, subject="Card not working")

    run = tb.run(
        User(
            says="The chip and the stripe on my card have both given up, every terminal rejects it now. I travel a "
            "lot for work, so I need a working card quickly. What do you charge for a new one? I'd like to know "
            "before you send it.",
            knows=caller_facts(sofia),
        ),
        golden=[
            *opening(sofia, customer_profile(sofia), cards_of(sofia)),
            *block_and_replace(card, "damaged", 0),
            solved(ticket.id, "card_replacement"),
        ],
        reply="I've blocked the worn card and ordered a new one with the same daily limit; it's on its way to your "
        "address. There's no fee: replacement cards are free at your enhanced verification level. Your virtual "
        "card keeps working in the meantime.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "card_replacement", None)
    assert run.db.get(Card, card.id).block_reason == "damaged"
    assert run.db.get(Card, virtual.id).status == "active"
    assert run.db.query(Fee).count() == 0  # policy: free for enhanced customers
