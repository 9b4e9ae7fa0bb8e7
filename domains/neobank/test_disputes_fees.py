"""Card disputes (window, reason and amount) and fee refunds (charged in error, goodwill once per 180 days)."""

from __future__ import annotations

import pytest

from domains.neobank.calls import (
    accounts_of,
    card_record,
    cards_of,
    create_ticket,
    fees_of,
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
    CustomerFactory,
    FeeFactory,
    FeeRefundFactory,
    TicketFactory,
    TransactionFactory,
    account_holder,
    at,
    card_replacement_fee,
    finished_ticket,
    goodwill_refunded,
    savings_withdrawal,
)
from domains.neobank.models import Account, Dispute, FeeRefund, Ticket, TicketComment
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Savings accounts and withdrawals",
    "Card replacements",
    "Card disputes",
    "Fees and fee refunds",
    "Tickets: classification, status, priority and comments",
)


def _card_and_account(customer, balance_cents=154_300):
    account = AccountFactory(customer=customer, balance_cents=balance_cents)
    return account, CardFactory(account=account)


# --------------------------------------------------------------------------- NB007 card disputes


def test_case_NB007_001(tb):
    """Tent paid 120 days ago never arrived: the last day of the 120-day window, so open a not_received dispute."""
    emil = CustomerFactory(name="Emil Schneider")
    account, card = _card_and_account(emil)
    tent = TransactionFactory(
        card=card, amount_cents=21_900, description="Nordlicht Outdoor GmbH", booked_at=days_ago(120, hour=11)
    )
    TransactionFactory(card=card, amount_cents=4_215, description="dm-drogerie markt", booked_at=days_ago(4))
    ticket = TicketFactory(requester=emil, subject="Order never delivered")

    run = tb.run(
        User(
            says="In June I paid 219 euros by card to an outdoor shop for a tent. It never arrived and the shop "
            "has stopped answering my emails. Can you get my money back?",
            knows=caller_facts(emil),
        ),
        golden=[
            *opening(emil, accounts_of(emil), transactions_of(account)),
            open_dispute(tent, "not_received", 21_900, "Tent ordered in June never delivered; merchant unresponsive."),
            solved(ticket.id, "dispute"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", None)
    dispute = run.db.query(Dispute).one()
    assert (dispute.transaction_id, dispute.reason, dispute.amount_cents) == (tent.id, "not_received", 21_900)


@pytest.mark.two_requests
def test_case_NB007_002(tb):
    """Two SkyJet payments: the cancelled flight booked 131 days ago is outside the 120-day window (refuse); the
    change fee charged twice 20 days ago is a duplicate charge, so dispute the later of the two. The ticket takes
    the refusal's reason, with one internal comment."""
    lena = CustomerFactory(name="Lena Demir")
    account, card = _card_and_account(lena)
    flight = TransactionFactory(
        card=card, amount_cents=38_600, description="SKYJET AIRLINES", booked_at=days_ago(131, hour=9)
    )
    first_fee = TransactionFactory(
        card=card, amount_cents=5_900, description="SKYJET AIRLINES CHANGE FEE", booked_at=at(days_ago(20), 10, 14)
    )
    second_fee = TransactionFactory(
        card=card, amount_cents=5_900, description="SKYJET AIRLINES CHANGE FEE", booked_at=at(days_ago(20), 10, 15)
    )
    TransactionFactory(card=card, amount_cents=1_899, description="Spotify", booked_at=days_ago(8))
    ticket = TicketFactory(requester=lena, subject="Airline refund")

    run = tb.run(
        User(
            says="I paid SkyJet 386 euros for flights at the beginning of June. They cancelled the flight and, despite"
            " all my emails, never refunded me, so please start a chargeback. And when I changed another booking "
            "with them last month, they took the 59-euro change fee from my card twice. I want my money back for "
            "all of it.",
            knows=caller_facts(lena),
        ),
        golden=[
            *opening(lena, accounts_of(lena), transactions_of(account)),
            open_dispute(second_fee, "duplicate_charge", 5_900, "SkyJet change fee charged twice, at 10:14 and 10:15."),
            *refused(
                ticket.id,
                "dispute",
                "outside_window",
                "Flight payment booked 131 days ago: outside the 120-day window, refused. Change fee charged "
                "twice: the later payment disputed as a duplicate.",
            ),
        ],
        traps=[  # starts the chargeback she asks for without checking the booking date
            open_dispute(flight, "not_received", 38_600, "Flight cancelled by SkyJet, never refunded."),
            # disputes the first of the two change fees as well
            open_dispute(first_fee, "duplicate_charge", 5_900, "Change fee charged twice."),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", "outside_window")
    dispute = run.db.query(Dispute).one()  # policy: 131 days is outside the window; the later duplicate is disputed
    assert (dispute.transaction_id, dispute.reason, dispute.amount_cents) == (second_fee.id, "duplicate_charge", 5_900)
    assert run.db.query(TicketComment).filter(TicketComment.ticket_id == ticket.id).one().public is False


def test_case_NB007_003(tb):
    """Restaurant charged EUR 84 for a EUR 48 bill; the customer wants all 84 back: dispute only the 36 difference."""
    felix = CustomerFactory(name="Felix Albers")
    account, card = _card_and_account(felix)
    dinner = TransactionFactory(
        card=card, amount_cents=8_400, description="Trattoria Da Enzo", booked_at=at(days_ago(6), 21, 37)
    )
    ticket = TicketFactory(requester=felix, subject="Wrong amount charged")

    run = tb.run(
        User(
            says="Last Friday a restaurant charged my card 84 euros, but the bill was 48: they typed the numbers the "
            "wrong way round. The owner won't pick up the phone. I want my 84 euros back.",
            knows=caller_facts(felix),
        ),
        golden=[
            *opening(felix, accounts_of(felix), transactions_of(account)),
            open_dispute(
                dinner,
                "incorrect_amount",
                derived(3_600, "the 8,400-cent payment less the 48.00 bill the customer agreed to pay"),
                "Charged 84.00 for a bill of 48.00.",
            ),
            solved(ticket.id, "dispute"),
        ],
        reply="I've opened a dispute with Trattoria Da Enzo for EUR 36.00, the difference between the 84.00 they "
        "charged and the 48.00 bill. The 48.00 you agreed to pay stands, so that part can't be disputed.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", None)
    dispute = run.db.query(Dispute).one()
    assert (dispute.reason, dispute.amount_cents) == ("incorrect_amount", 3_600)  # policy: only the difference


def test_case_NB007_004(tb):
    """Hotel charged twice; the customer wants both back: dispute only the later of the two identical payments."""
    sofia = CustomerFactory(name="Sofia Richter")
    account, card = _card_and_account(sofia)
    later = TransactionFactory(
        card=card, amount_cents=14_250, description="Motel One Hamburg-Altona", booked_at=at(days_ago(9), 11, 6)
    )
    earlier = TransactionFactory(
        card=card, amount_cents=14_250, description="Motel One Hamburg-Altona", booked_at=at(days_ago(9), 11, 2)
    )
    TransactionFactory(card=card, amount_cents=3_890, description="DB Fernverkehr", booked_at=days_ago(10))
    ticket = TicketFactory(requester=sofia, subject="Double charge")

    run = tb.run(
        User(
            says="I stayed one night at a hotel in Hamburg last week and they charged my card twice, 142.50 each time."
            " Please refund me both of them, this is ridiculous, and I'm not paying for a night twice.",
            knows=caller_facts(sofia),
        ),
        golden=[
            *opening(sofia, accounts_of(sofia), transactions_of(account)),
            open_dispute(later, "duplicate_charge", 14_250, "One-night stay charged twice at 11:02 and 11:06."),
            solved(ticket.id, "dispute"),
        ],
        traps=[  # disputes both payments, as she asks
            open_dispute(earlier, "duplicate_charge", 14_250, "One-night stay charged twice.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", None)
    assert run.db.query(Dispute).one().transaction_id == later.id
    assert run.db.query(Dispute).filter(Dispute.transaction_id == earlier.id).count() == 0  # policy: it stands


@pytest.mark.two_requests
def test_case_NB007_005(tb):
    """Two refunds asked: a dress never delivered 41 days ago (open a dispute), a bus trip 126 days ago (refuse)."""
    yara = CustomerFactory(name="Yara Okoye")
    account, card = _card_and_account(yara, balance_cents=86_240)
    dress = TransactionFactory(
        card=card, amount_cents=7_480, description="KLEIDEREI ONLINE", booked_at=days_ago(41, hour=20)
    )
    bus = TransactionFactory(card=card, amount_cents=3_200, description="FLIXBUS.COM", booked_at=days_ago(126, hour=8))
    TransactionFactory(card=card, amount_cents=2_150, description="Edeka Schmidt", booked_at=days_ago(3))
    ticket = TicketFactory(requester=yara, subject="Two refunds")

    run = tb.run(
        User(
            says="Two card payments have gone wrong for me. A dress I ordered from Kleiderei in early September never "
            "came, and back in June a FlixBus trip was cancelled and they never paid me back. I'd like my money "
            "back for both, please.",
            knows=caller_facts(yara),
        ),
        golden=[
            *opening(yara, accounts_of(yara), transactions_of(account)),
            open_dispute(dress, "not_received", 7_480, "Dress ordered in early September never delivered."),
            *refused(
                ticket.id,
                "dispute",
                "outside_window",
                "Kleiderei payment disputed (not received). FlixBus payment booked 126 days ago: outside the "
                "120-day window, refused.",
            ),
        ],
        traps=[  # disputes the June bus ticket too, as she asks
            open_dispute(bus, "not_received", 3_200, "Trip cancelled, never refunded.")
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "dispute", "outside_window")
    dispute = run.db.query(Dispute).one()  # policy: 126 days is outside the window; 41 days is inside
    assert (dispute.transaction_id, dispute.reason, dispute.amount_cents) == (dress.id, "not_received", 7_480)


# --------------------------------------------------------------------------- NB008 fee refunds


def test_case_NB008_001(tb):
    """Goodwill refund of the plan fee: the last goodwill refund was 200 days ago (a 40-day-old error refund is
    not goodwill), so refund it."""
    mateo, account = account_holder("Mateo Vogel", balance_cents=23_410)
    plan_fee = FeeFactory(account=account, kind="monthly_plan", amount_cents=990, charged_at=days_ago(10, hour=6))
    goodwill_refunded(account, "atm_withdrawal", 200, days_ago(205), days_ago(200))
    FeeRefundFactory(
        fee=FeeFactory(account=account, kind="savings_withdrawal", amount_cents=250, charged_at=days_ago(44)),
        reason="charged_in_error",
        created_at=days_ago(40),
    )
    ticket = TicketFactory(requester=mateo, subject="Plan fee")

    run = tb.run(
        User(
            says="I meant to switch back to the free plan at the end of September and forgot. You charged me 9.90 "
            "for Kestrel Plus this month. Could you refund it as a one-off? I've switched now.",
            knows=caller_facts(mateo),
        ),
        golden=[
            *opening(mateo, fees_of(mateo)),
            call("refund_fee", fee_id=plan_fee.id, reason="goodwill"),
            solved(ticket.id, "fees"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", None)
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == plan_fee.id).one().reason == "goodwill"
    assert run.db.get(Account, account.id).balance_cents == 23_410 + 990


@pytest.mark.two_requests
def test_case_NB008_002(tb):
    """Two fee refunds asked: goodwill for an FX fee is refused (a goodwill refund was given 120 days ago); the
    replacement fee for a card blocked as fraud was charged in error, so refund it whatever the earlier refunds.
    The ticket takes the refusal's reason."""
    hanna, account = account_holder("Hanna Kowalski", balance_cents=58_730)
    fx_fee = FeeFactory(
        account=account,
        kind="foreign_exchange",
        amount_cents=435,
        description="Foreign exchange fee, card payment in GBP",
        charged_at=days_ago(5),
    )
    old_card = CardFactory(
        account=account, status="blocked", blocked_at=days_ago(26, hour=16), block_reason="fraud", last4="5518"
    )
    CardFactory(account=account, replaces=old_card, issued_at=days_ago(26, hour=16), last4="0742")
    card_fee = card_replacement_fee(old_card, days_ago(26, hour=16))
    goodwill_refunded(account, "overdraft", 1_500, days_ago(126), days_ago(120))
    TicketFactory(requester=hanna, status="closed", subject="Overdraft fee", created_at=days_ago(121))
    ticket = TicketFactory(requester=hanna, subject="Currency fee")

    run = tb.run(
        User(
            says="I paid in pounds in London last week and got charged a 4.35 currency fee. Nobody told me about that "
            "when I opened the account, and I'd never have paid by card if I'd known. Can you refund it please? "
            "And you also took 6 euros for the new card I got last month, after that business with the dodgy "
            "online shop. I'd like that back as well.",
            knows=caller_facts(hanna),
        ),
        golden=[
            *opening(hanna, fees_of(hanna), card_record(old_card)),
            call("refund_fee", fee_id=card_fee.id, reason="charged_in_error"),
            *refused(
                ticket.id,
                "fees",
                "not_eligible",
                "Goodwill refund of the FX fee refused: last goodwill refund was 120 days ago (one per 180 "
                "days). Replacement fee for the card blocked as fraud refunded as charged in error.",
            ),
        ],
        traps=[call("refund_fee", fee_id=fx_fee.id, reason="goodwill")],  # refunds the small fee she asks about
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", "not_eligible")
    refund = run.db.query(FeeRefund).filter(FeeRefund.fee_id == card_fee.id).one()
    assert (refund.reason, refund.amount_cents) == ("charged_in_error", 600)  # policy: free after a fraud block
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == fx_fee.id).count() == 0  # goodwill 120 days ago
    assert run.db.get(Account, account.id).balance_cents == 58_730 + 600


def test_case_NB008_003(tb):
    """Replacement-card fee for a card blocked as stolen was charged in error: refund it despite a recent goodwill."""
    jonas, account = account_holder("Jonas Petrov", balance_cents=71_290)
    old_card = CardFactory(
        account=account, status="blocked", blocked_at=days_ago(21, hour=8), block_reason="stolen", last4="3307"
    )
    CardFactory(account=account, replaces=old_card, issued_at=days_ago(21, hour=8), last4="9150")
    card_fee = card_replacement_fee(old_card, days_ago(21, hour=8))
    goodwill_refunded(account, "atm_withdrawal", 200, days_ago(33), days_ago(30))
    ticket = TicketFactory(requester=jonas, subject="Card fee")

    run = tb.run(
        User(
            says="You charged me 6 euros for my new card three weeks ago. I know you already refunded a fee for me "
            "last month, but could you make an exception? It doesn't seem fair to pay for a new card at all.",
            knows=caller_facts(jonas),
        ),
        golden=[
            *opening(jonas, fees_of(jonas), card_record(old_card)),
            call("refund_fee", fee_id=card_fee.id, reason="charged_in_error"),
            solved(ticket.id, "fees"),
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", None)
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == card_fee.id).one().reason == "charged_in_error"
    assert run.db.get(Account, account.id).balance_cents == 71_290 + 600


@pytest.mark.two_requests
def test_case_NB008_004(tb):
    """Two fee refunds asked: a withdrawal fee on October's 2nd withdrawal was charged in error (refund); the plan
    fee's goodwill is refused (goodwill 60 days ago)."""
    emil, current = account_holder("Emil Brandt", balance_cents=44_870)
    savings = AccountFactory(customer=emil, kind="savings", balance_cents=318_000)
    savings_withdrawal(savings, 20_000, days_ago(20))
    savings_withdrawal(savings, 15_000, days_ago(14))
    second = savings_withdrawal(savings, 12_000, days_ago(12))
    wrong_fee = FeeFactory(
        account=savings,
        kind="savings_withdrawal",
        amount_cents=250,
        description=f"Withdrawal fee for {second.id}",
        charged_at=days_ago(12, hour=11),
    )
    plan_fee = FeeFactory(account=current, kind="monthly_plan", amount_cents=990, charged_at=days_ago(14, hour=6))
    goodwill_refunded(current, "atm_withdrawal", 200, days_ago(63), days_ago(60))
    ticket = TicketFactory(requester=emil, subject="Fees on my statement")

    run = tb.run(
        User(
            says="Two charges on my statement annoy me. You took 2.50 from my savings when I moved money out at the "
            "start of the month, although it was only my second time this month. And the 9.90 for the Plus plan: "
            "I hardly used it, so please refund that as well.",
            knows=caller_facts(emil),
        ),
        golden=[
            *opening(emil, accounts_of(emil), transactions_of(savings), fees_of(emil)),
            call("refund_fee", fee_id=wrong_fee.id, reason="charged_in_error"),
            *refused(
                ticket.id,
                "fees",
                "not_eligible",
                "Withdrawal fee on the 2nd October withdrawal refunded as charged in error. Goodwill refund of "
                "the plan fee refused: goodwill refund given 60 days ago.",
            ),
        ],
        traps=[call("refund_fee", fee_id=plan_fee.id, reason="goodwill")],  # refunds both, as he asks
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", "not_eligible")
    refund = run.db.query(FeeRefund).filter(FeeRefund.fee_id == wrong_fee.id).one()
    assert refund.reason == "charged_in_error"  # policy: 2nd withdrawal of its month, so the fee was an error
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == plan_fee.id).count() == 0  # goodwill 60 days ago
    assert run.db.get(Account, savings.id).balance_cents == 318_000 + 250


@pytest.mark.distractors
def test_case_NB008_005(tb):
    """Two replacement fees: the one for the stolen card was charged in error (refund); the one for the card she
    lost in August stands."""
    hanna, account = account_holder("Hanna Richter", balance_cents=52_040)
    lost = CardFactory(
        account=account, status="blocked", blocked_at=days_ago(70, hour=9), block_reason="lost", last4="1184"
    )
    stolen = CardFactory(
        account=account,
        replaces=lost,
        issued_at=days_ago(70, hour=9),
        status="blocked",
        blocked_at=days_ago(9, hour=23),
        block_reason="stolen",
        last4="6630",
    )
    CardFactory(account=account, replaces=stolen, issued_at=days_ago(9, hour=23), status="ordered", last4="2047")
    lost_fee = card_replacement_fee(lost, days_ago(70, hour=9))
    stolen_fee = card_replacement_fee(stolen, days_ago(9, hour=23))
    ticket = TicketFactory(requester=hanna, subject="Card fees")

    run = tb.run(
        User(
            says="I've paid for two new cards this year. The one in August was my own fault, I lost my purse on the "
            "beach, fair enough. But the one last week was because my card was stolen at a festival. Surely you "
            "don't charge people for being robbed?",
            knows=caller_facts(hanna),
        ),
        golden=[
            *opening(hanna, fees_of(hanna), cards_of(hanna)),
            call("refund_fee", fee_id=stolen_fee.id, reason="charged_in_error"),
            solved(ticket.id, "fees"),
        ],
        traps=[call("refund_fee", fee_id=lost_fee.id, reason="charged_in_error")],  # refunds both replacement fees
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "fees", None)
    refund = run.db.query(FeeRefund).one()  # policy: only the stolen card's fee was charged in error
    assert (refund.fee_id, refund.reason) == (stolen_fee.id, "charged_in_error")
    assert run.db.get(Account, account.id).balance_cents == 52_040 + 600


@pytest.mark.two_requests
def test_case_NB008_006(tb):
    """Goodwill asked for an overdraft fee charged 95 days ago, with this month's plan fee as the fallback; no open
    ticket: create one (fees, the account). The overdraft fee is outside the 90 days (refuse); the fallback is a
    request of its own, and with no goodwill refund in 180 days the plan fee is refunded. The ticket takes the
    refusal's reason."""
    jonas, account = account_holder("Jonas Lehmann", balance_cents=166_000)
    overdraft = FeeFactory(account=account, kind="overdraft", amount_cents=1_500, charged_at=days_ago(95, hour=6))
    plan = FeeFactory(account=account, kind="monthly_plan", amount_cents=990, charged_at=days_ago(14, hour=6))
    goodwill_refunded(account, "atm_withdrawal", 200, days_ago(240), days_ago(236))
    old, new_id = finished_ticket(jonas, "New PIN", days_ago(30))

    run = tb.run(
        User(
            says="I've only just spotted a 15 euro overdraft charge from the summer, when my salary arrived a day "
            "late. That has never happened to me before and I was back in the black the next morning. Could you "
            "refund it as a goodwill gesture? If that one is too old, then at least the 9.90 plan fee you took "
            "at the start of this month.",
            knows=caller_facts(jonas),
        ),
        golden=[
            *opening(jonas, fees_of(jonas)),
            create_ticket(jonas, "Goodwill refund of overdraft fee", "fees", account),
            call("refund_fee", fee_id=plan.id, reason="goodwill"),
            *refused(
                new_id,
                None,
                "outside_window",
                "Goodwill refund of the overdraft fee refused: charged 95 days ago, more than 90. Plan fee "
                "refunded as goodwill instead (last goodwill refund 236 days ago).",
            ),
        ],
        traps=[call("refund_fee", fee_id=overdraft.id, reason="goodwill")],  # a first-time goodwill refund
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id) == (jonas.id, account.id)
    assert (t.status, t.category, t.reason) == ("solved", "fees", "outside_window")
    refund = run.db.query(FeeRefund).filter(FeeRefund.created_at >= days_ago(1)).one()
    assert (refund.fee_id, refund.reason, refund.amount_cents) == (plan.id, "goodwill", 990)
    assert run.db.query(FeeRefund).filter(FeeRefund.fee_id == overdraft.id).count() == 0  # policy: over 90 days
    assert run.db.get(Account, account.id).balance_cents == 166_000 + 990
    assert run.db.get(Ticket, old.id).status == "solved"
