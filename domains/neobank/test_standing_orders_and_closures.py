"""Scheduled payments against the two-day cut-off, closing accounts whose conditions look met (or not), and
emptying a savings pot before closing it, where the withdrawal rules apply too."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domains.neobank.calls import (
    account_record,
    accounts_of,
    create_ticket,
    customer_profile,
    disputes_of,
    move_money,
    opening,
    refused,
    scheduled_payments_of,
    solved,
    ticket_end,
    transactions_of,
    transfers_of,
)
from domains.neobank.clock import TODAY, days_ago
from domains.neobank.factories import (
    AccountFactory,
    CardFactory,
    DisputeFactory,
    HoldFactory,
    ScheduledPaymentFactory,
    TicketFactory,
    TransactionFactory,
    TransferFactory,
    account_holder,
    finished_ticket,
    make_iban,
    savings_withdrawal,
)
from domains.neobank.models import Account, Card, Fee, ScheduledPayment, Ticket, TicketComment, Transfer
from domains.neobank.replies import balance_left
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Scheduled payments",
    "Account closure",
    "Savings accounts and withdrawals",
    "Outgoing transfers",
    "Tickets: classification, status, priority and comments",
)

# --------------------------------------------------------------------------- NB012 scheduled payments


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB012_004(tb):
    """He sold his car: the yearly car insurance runs tomorrow (refuse: inside the two-day cut-off) and the garage
    rent runs in 12 days (cancel it); the phone bill stays. No ticket is open: create one (scheduled_payment, the
    account); it takes the refusal's reason, and the answer stays when he argues a full day is left."""
    bruno, account = account_holder("Bruno Keller", balance_cents=308_450)
    insurance = ScheduledPaymentFactory(
        account=account,
        payee_name="HUK-Coburg Versicherung",
        amount_cents=61_240,
        frequency="once",
        reference="Kfz-Versicherung 2027",
        next_run_on=TODAY + timedelta(days=1),
    )
    garage = ScheduledPaymentFactory(
        account=account,
        payee_name="Tiefgarage Am Markt GmbH",
        amount_cents=8_500,
        reference="Stellplatz 14",
        next_run_on=TODAY + timedelta(days=12),
    )
    ScheduledPaymentFactory(
        account=account, payee_name="Telekom Deutschland", amount_cents=3_995, next_run_on=TODAY + timedelta(days=11)
    )
    old, new_id = finished_ticket(bruno, "Card delivery", days_ago(61))

    run = tb.run(
        User(
            says="I sold my car last weekend, so the yearly insurance payment I scheduled for tomorrow has to be "
            "stopped. 612 euros for a car I don't own any more! Please cancel it, and the monthly rent for the "
            "parking space as well, I've given that up too.",
            knows=caller_facts(bruno),
            persona="Annoyed, convinced there is plenty of time left.",
            rules=("If refused, argue once that the payment is still a whole day away, then accept the answer.",),
        ),
        golden=[
            *opening(bruno, accounts_of(bruno), scheduled_payments_of(account)),
            create_ticket(bruno, "Cancel insurance payment", "scheduled_payment", account),
            call("cancel_scheduled_payment", scheduled_payment_id=garage.id),
            *refused(
                new_id,
                None,
                "outside_window",
                "Insurance payment not cancelled: it runs tomorrow, inside the two-day cut-off. Garage rent cancelled.",
            ),
        ],
        reply="I've cancelled the parking space rent. I'm sorry, I can't cancel the insurance payment: a payment "
        "that runs today or tomorrow has already been handed to the clearing system. Please ask HUK-Coburg to "
        "refund the premium for the car you sold.",
        traps=[call("cancel_scheduled_payment", scheduled_payment_id=insurance.id)],  # a whole day left, so stop it
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (bruno.id, account.id, "scheduled_payment")
    assert (t.status, t.reason) == ("solved", "outside_window")
    assert run.db.get(ScheduledPayment, insurance.id).status == "active"  # policy: runs tomorrow, past the cut-off
    cancelled = run.db.query(ScheduledPayment).filter(ScheduledPayment.status == "cancelled").one()
    assert cancelled.id == garage.id  # runs in 12 days; the phone bill was not asked about
    assert run.db.get(Ticket, old.id).status == "solved"


@pytest.mark.distractors
def test_case_NB012_005(tb):
    """Stop the EUR 45 music-school order for the daughter: it sits on the second current account, next to the
    son's EUR 60 order to the same school and last year's one-off fee; cancel only hers (runs in 8 days)."""
    carla, main = account_holder("Carla Neumann", balance_cents=184_000)
    family = AccountFactory(customer=carla, nickname="Family", balance_cents=57_300)
    ScheduledPaymentFactory(
        account=main, payee_name="Stadtwerke Leipzig", amount_cents=9_600, next_run_on=TODAY + timedelta(days=16)
    )
    school_iban = make_iban("86050200", "1090224711")
    daughter = ScheduledPaymentFactory(
        account=family,
        payee_name="Musikschule Johann Sebastian Bach",
        payee_iban=school_iban,
        amount_cents=4_500,
        reference="Klavier Mila Neumann",
        next_run_on=TODAY + timedelta(days=8),
    )
    son = ScheduledPaymentFactory(
        account=family,
        payee_name="Musikschule Johann Sebastian Bach",
        payee_iban=school_iban,
        amount_cents=6_000,
        reference="Schlagzeug Ben Neumann",
        next_run_on=TODAY + timedelta(days=8),
    )
    ScheduledPaymentFactory(
        account=family,
        payee_name="Musikschule Johann Sebastian Bach",
        payee_iban=school_iban,
        amount_cents=4_500,
        frequency="once",
        reference="Anmeldung Mila Neumann",
        next_run_on=TODAY - timedelta(days=300),
        status="completed",
    )
    ticket = TicketFactory(requester=carla, subject="Music school payment")

    run = tb.run(
        User(
            says="My daughter Mila has stopped her piano lessons, so please cancel the monthly 45 euros to the music "
            "school. It goes out from our family account, I think. My son carries on with his drum lessons there, "
            "so his payment must keep running.",
            knows=caller_facts(carla),
        ),
        golden=[
            *opening(carla, accounts_of(carla), scheduled_payments_of(main), scheduled_payments_of(family)),
            call("cancel_scheduled_payment", scheduled_payment_id=daughter.id),
            solved(ticket.id, "scheduled_payment"),
        ],
        traps=[call("cancel_scheduled_payment", scheduled_payment_id=son.id)],  # the first music-school order found
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "scheduled_payment", None)
    assert run.db.get(ScheduledPayment, daughter.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, son.id).status == "active"  # policy: only the payment she asks about
    assert run.db.query(ScheduledPayment).filter(ScheduledPayment.status == "cancelled").count() == 1
    assert run.db.query(TicketComment).count() == 0


# --------------------------------------------------------------------------- NB009 account closure


def test_case_NB009_007(tb):
    """Closure asked with EUR 240.10 left, an open dispute and an active gym order to go with it: the balance fails
    first, so refuse with balance_not_zero and cancel nothing."""
    dora, account = account_holder("Dora Winkler", balance_cents=24_010)
    card = CardFactory(account=account)
    shoes = TransactionFactory(card=card, amount_cents=11_900, description="SNIPES Online", booked_at=days_ago(25))
    DisputeFactory(transaction=shoes, reason="not_received", status="open", opened_at=days_ago(6))
    gym = ScheduledPaymentFactory(
        account=account, payee_name="John Reed Fitness", amount_cents=3_490, next_run_on=TODAY + timedelta(days=17)
    )
    ticket = TicketFactory(requester=dora, account=account, subject="Closing my account")

    run = tb.run(
        User(
            says="I'd like to close my Kestrel account today, I'm consolidating everything at my husband's bank. "
            "Close it with everything attached to it, including the gym payment. The little bit of money left on "
            "the account I'll move myself later, once it's closed.",
            knows=caller_facts(dora),
        ),
        golden=[
            *opening(dora, account_record(account), disputes_of(dora), scheduled_payments_of(account)),
            *refused(
                ticket.id,
                "closure",
                "balance_not_zero",
                "Closure refused: balance 24,010 cents, not 0 (a dispute is also still open). Nothing cancelled.",
            ),
        ],
        reply="I can't close the account yet: there are still EUR 240.10 on it, and an account can only be closed "
        "when the balance is exactly zero. Your dispute about the SNIPES order is also still open, and it has to "
        "be decided first. I haven't cancelled anything, so your gym payment is unchanged for now.",
        traps=[call("cancel_scheduled_payment", scheduled_payment_id=gym.id)],  # stops the gym order as asked
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "closure", "balance_not_zero")  # the first failed condition
    assert run.db.get(Account, account.id).status == "open"
    assert run.db.get(ScheduledPayment, gym.id).status == "active"  # policy: refuse means cancel nothing
    assert run.db.get(Card, card.id).status == "active"
    told = balance_left(24_010)  # policy: say what has to happen first
    run.rubric(told.text, phrases=told.phrases)


@pytest.mark.distractors
def test_case_NB009_008(tb):
    """Closable despite look-alikes: its hold is released, its dispute withdrawn, and the order running tomorrow
    sits on her other account; cancel this account's order (in 5 days), close."""
    elif_, main = account_holder("Elif Aydin", balance_cents=128_800)
    travel = AccountFactory(customer=elif_, nickname="Travel", balance_cents=0)
    card = CardFactory(account=travel, kind="virtual", last4="5881")
    HoldFactory(account=travel, amount_cents=8_900, status="released", description="Hotel pre-authorisation released")
    booking = TransactionFactory(card=card, amount_cents=15_400, description="Ryanair", booked_at=days_ago(44))
    DisputeFactory(transaction=booking, reason="not_received", status="withdrawn", opened_at=days_ago(30))
    lounge = ScheduledPaymentFactory(
        account=travel, payee_name="Priority Pass", amount_cents=2_900, next_run_on=TODAY + timedelta(days=5)
    )
    rent = ScheduledPaymentFactory(
        account=main, payee_name="Vonovia SE", amount_cents=92_000, next_run_on=TODAY + timedelta(days=1)
    )
    ticket = TicketFactory(requester=elif_, account=travel, subject="Close travel account")

    run = tb.run(
        User(
            says="I don't travel much any more, so please close my Travel account, the one with the virtual card. "
            "It should be empty. My main account stays, of course.",
            knows=caller_facts(elif_),
        ),
        golden=[
            *opening(
                elif_, accounts_of(elif_), account_record(travel), disputes_of(elif_), scheduled_payments_of(travel)
            ),
            call("cancel_scheduled_payment", scheduled_payment_id=lounge.id),
            call("close_account", account_id=travel.id),
            solved(ticket.id, "closure"),
        ],
        traps=[call("cancel_scheduled_payment", scheduled_payment_id=rent.id)],  # cancels the customer's other order
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "closure", None)
    assert run.db.get(Account, travel.id).status == "closed"  # policy: released hold, withdrawn dispute: closable
    assert run.db.get(Account, main.id).status == "open"
    assert run.db.get(Card, card.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, lounge.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, rent.id).status == "active"  # policy: other accounts' orders untouched


# --------------------------------------------------------------------------- NB016 emptying and closing a savings pot


def test_case_NB016_001(tb):
    """Empty and close the savings pot: this is October's 4th withdrawal, so it costs 250 cents; move the EUR 82.50
    less the fee to the current account, then close the pot at 0."""
    fynn, current = account_holder("Fynn Hartmann", balance_cents=61_020)
    pot = AccountFactory(customer=fynn, kind="savings", nickname="Bike fund", balance_cents=8_250)
    for day, amount in ((13, 5_000), (9, 12_000), (2, 3_000)):
        savings_withdrawal(pot, amount, days_ago(day))
    savings_withdrawal(pot, 4_000, days_ago(16))
    TransactionFactory(account=pot, kind="interest", amount_cents=12, description="Interest", booked_at=days_ago(14))
    ticket = TicketFactory(requester=fynn, account=pot, subject="Close savings pot")

    run = tb.run(
        User(
            says="I bought the bike, so my 'Bike fund' savings pot has done its job. Please move whatever is left in "
            "it to my main account and close the pot.",
            knows=caller_facts(fynn),
        ),
        golden=[
            *opening(
                fynn,
                accounts_of(fynn),
                account_record(pot),
                transactions_of(pot),
                disputes_of(fynn),
                scheduled_payments_of(pot),
            ),
            move_money(
                pot,
                current,
                derived(8_000, "the pot's 8,250 balance less the 250-cent fee of October's 4th withdrawal"),
                250,
            ),
            call("close_account", account_id=pot.id),
            solved(ticket.id, "closure"),
        ],
        reply="Done: this was your fourth withdrawal from the pot this month, so EUR 2.50 went on the withdrawal fee "
        "and the remaining EUR 80.00 is now on your main account. The Bike fund pot is closed.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "closure", None)
    closed = run.db.get(Account, pot.id)
    assert (closed.status, closed.balance_cents) == ("closed", 0)
    assert run.db.get(Account, current.id).balance_cents == 61_020 + 8_000
    assert run.db.query(Fee).one().amount_cents == 250  # policy: the 4th withdrawal of October costs 250 cents


def test_case_NB016_002(tb):
    """Send the savings to her Dutch account and close the savings: money leaves savings only to her current
    account (1st withdrawal of October, free), then goes out by transfer; no open ticket, so create one."""
    maren, current = account_holder("Maren Jansen", balance_cents=35_500)
    savings = AccountFactory(customer=maren, kind="savings", nickname="Rainy day", balance_cents=420_000)
    TransferFactory(account=current, amount_cents=900_000, created_at=days_ago(10), beneficiary_name="Umzug Boer BV")
    savings_withdrawal(savings, 50_000, days_ago(20))
    TransactionFactory(
        account=savings, kind="transfer_in", amount_cents=20_000, description="Main account", booked_at=days_ago(8)
    )
    _, new_id = finished_ticket(maren, "Statement", days_ago(75), status="closed")
    dutch_iban = make_iban("INGB", "0006217315", country="NL")

    run = tb.run(
        User(
            says="I'm moving back to the Netherlands. Please send all the money in my 'Rainy day' savings account to "
            "my account at ING over there, and then close the savings account. My current account stays open "
            "until my last salary has arrived.",
            knows={**caller_facts(maren), "IBAN": dutch_iban, "beneficiary name": "Maren Jansen"},
        ),
        golden=[
            *opening(
                maren,
                customer_profile(maren),
                accounts_of(maren),
                transactions_of(savings),
                transfers_of(current),
                disputes_of(maren),
                scheduled_payments_of(savings),
            ),
            create_ticket(maren, "Move savings abroad and close savings account", "closure", savings),
            move_money(savings, current, 420_000, 0),
            call(
                "create_transfer",
                account_id=current.id,
                beneficiary_name="Maren Jansen",
                beneficiary_iban=dutch_iban,
                amount_cents=420_000,
                hold_for_review=False,
            ),
            call("close_account", account_id=savings.id),
            solved(new_id),
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.requester_id, t.account_id, t.category) == (maren.id, savings.id, "closure")
    assert (t.status, t.reason) == ("solved", None)
    closed = run.db.get(Account, savings.id)
    assert (closed.status, closed.balance_cents) == ("closed", 0)
    assert run.db.get(Account, current.id).status == "open"  # policy: only the account she asks to close
    assert run.db.query(Fee).count() == 0  # policy: her first withdrawal of October is free
    sent = run.db.query(Transfer).filter(Transfer.beneficiary_name == "Maren Jansen").one()
    # policy: 420,000 is within the single limit, and October's 900,000 + 420,000 within 1,500,000
    assert (sent.account_id, sent.status, sent.amount_cents) == (current.id, "completed", 420_000)
    assert run.db.get(Account, current.id).balance_cents == 35_500


def test_case_NB012_006(tb):
    """Switching banks, the customer asks to stop every standing order on the main account: the gym's (in 2 days)
    and the phone's (in 23 days) are cancelled; the savings plan runs today and stays; the household account's
    order is not touched."""
    levin, main = account_holder("Levin Roth", balance_cents=97_480)
    household = AccountFactory(customer=levin, nickname="Household", balance_cents=45_000)
    gym = ScheduledPaymentFactory(
        account=main, payee_name="Fitness First Hamburg", amount_cents=3_990, next_run_on=TODAY + timedelta(days=2)
    )
    phone = ScheduledPaymentFactory(
        account=main, payee_name="Vodafone GmbH", amount_cents=2_999, next_run_on=TODAY + timedelta(days=23)
    )
    plan = ScheduledPaymentFactory(
        account=main,
        payee_name="DWS Sparplan",
        amount_cents=10_000,
        reference="Fondssparplan 88120",
        next_run_on=TODAY,
    )
    cleaner = ScheduledPaymentFactory(
        account=household, payee_name="Putzperle Hamburg", amount_cents=8_000, next_run_on=TODAY + timedelta(days=6)
    )
    ticket = TicketFactory(requester=levin, account=main, subject="Stop standing orders")

    run = tb.run(
        User(
            says="I'm moving my salary to another bank, so please stop every standing order on my main account: "
            "the gym, the phone contract and the fund savings plan. I'll set them up again at the new bank. The "
            "household account stays as it is.",
            knows=caller_facts(levin),
        ),
        golden=[
            *opening(levin, accounts_of(levin), scheduled_payments_of(main)),
            call("cancel_scheduled_payment", scheduled_payment_id=gym.id),
            call("cancel_scheduled_payment", scheduled_payment_id=phone.id),
            *refused(
                ticket.id,
                "scheduled_payment",
                "outside_window",
                "Gym and phone orders cancelled. The fund savings plan runs today, inside the two-day cut-off: "
                "not cancelled.",
            ),
        ],
        reply="I've cancelled the gym and phone standing orders. The fund savings plan runs today and is already "
        "with the clearing system, so it can't be cancelled now; you can stop it after today's payment has gone.",
        traps=[
            call("cancel_scheduled_payment", scheduled_payment_id=plan.id),  # stops every order on the account
            call("cancel_scheduled_payment", scheduled_payment_id=cleaner.id),  # and the household one too
        ],
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "scheduled_payment", "outside_window")
    assert run.db.get(ScheduledPayment, gym.id).status == "cancelled"  # policy: 2 days ahead is in time
    assert run.db.get(ScheduledPayment, phone.id).status == "cancelled"
    assert run.db.get(ScheduledPayment, plan.id).status == "active"  # policy: runs today, past the cut-off
    assert run.db.get(ScheduledPayment, cleaner.id).status == "active"


@pytest.mark.distractors
def test_case_NB009_009(tb):
    """Close the empty second current account: the open dispute is on a payment of her main account, not this
    one, and its only hold is released, so nothing stands in the way; close it."""
    wiebke, main = account_holder("Wiebke Lorenz", balance_cents=233_900)
    side = AccountFactory(customer=wiebke, nickname="Side business", balance_cents=0)
    main_card = CardFactory(account=main, last4="7035")
    side_card = CardFactory(account=side, last4="2252")
    printer = TransactionFactory(
        card=main_card, amount_cents=32_900, description="Cyberport Online", booked_at=days_ago(21)
    )
    DisputeFactory(transaction=printer, reason="not_received", status="open", opened_at=days_ago(9))
    HoldFactory(account=side, amount_cents=5_400, status="released", description="Card authorisation released")
    ticket = TicketFactory(requester=wiebke, account=side, subject="Close side business account")

    run = tb.run(
        User(
            says="I've closed down my little side business, so please close the account I used for it. It's "
            "empty. I know I still have a dispute running about a printer that never arrived, I hope that doesn't "
            "get in the way?",
            knows=caller_facts(wiebke),
        ),
        golden=[
            *opening(
                wiebke, accounts_of(wiebke), account_record(side), disputes_of(wiebke), scheduled_payments_of(side)
            ),
            call("close_account", account_id=side.id),
            solved(ticket.id, "closure"),
        ],
        reply="I've closed your Side business account and cancelled its card. Your open dispute about the printer "
        "concerns a payment from your main account, so it doesn't affect this closure; it carries on as before.",
    )

    run.expect_golden()
    assert ticket_end(run.db, ticket.id) == ("solved", "closure", None)
    assert run.db.get(Account, side.id).status == "closed"  # policy: the open dispute is on another account
    assert run.db.get(Card, side_card.id).status == "cancelled"
    assert run.db.get(Account, main.id).status == "open"
    assert run.db.get(Card, main_card.id).status == "active"
