"""Billing where several rules meet: extensions and instalment plans against a scheduled cancellation, past-due
amounts made of several bills, the 12-month window on its boundary, extensions counted per policy term, a
disputed payment beside a plan, and a plan asked for right after a reinstatement."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    bills_of,
    create_ticket,
    extension,
    hold,
    identify,
    new_id,
    opening,
    opening_listed,
    payments_of,
    policy_claims,
    policyholder_facts,
    reinstate,
    removal,
    removal_credit,
    remove_driver,
    rescind,
    solved,
)
from domains.auto_insurance.factories import (
    BillFactory,
    DriverFactory,
    PaymentExtensionFactory,
    PaymentFactory,
    PolicyFactory,
    account_of,
    cancelled,
    cancelling,
    car_on,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import (
    Bill,
    BillingAccount,
    Document,
    InstalmentPlan,
    Payment,
    PaymentExtension,
    Policy,
    PremiumAdjustment,
    Ticket,
    TicketComment,
)
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Removing a vehicle or a driver",
    "Payments",
    "Payment extensions",
    "Instalment plans",
    "Scheduled cancellation for non-payment",
    "Cancelling at the customer's request",
    "Reinstatement after cancellation",
    "Mid-term premium credits and refunds",
    "Documents",
    "Ticket status, classification and priority",
)


def _paid(account, *dues, amount_cents):
    """Bills due on `dues`, each paid three days before it was due."""
    for due in dues:
        BillFactory(account=account, due_on=due, amount_cents=amount_cents, status="paid")
        PaymentFactory(
            account=account, amount_cents=amount_cents, received_at=datetime(due.year, due.month, due.day - 3, 9, 0)
        )


# --------------------------------------------------------------------------- AI028: billing beside a cancellation


@pytest.mark.two_requests
def test_case_AI028_001(tb):
    """Pays the full past due before the 15 May cancellation (pay, rescind, notice); then, with the policy active
    and current again and last term's extension not counting, May's bill is extended to the 10-day limit.
    Rules combined: stopping a scheduled cancellation, the extension conditions (status, delinquency, once per
    term), the 10-day limit, documents."""
    elif_, policy = policyholder("Elif Demir", "IL", **cancelling(date(2026, 5, 15)))
    account = account_of(policy)
    november = BillFactory(
        account=account,
        due_on=date(2025, 11, 27),
        original_due_on=date(2025, 11, 20),
        amount_cents=16_450,
        status="paid",
    )
    PaymentFactory(account=account, amount_cents=16_450, received_at=datetime(2025, 11, 26, 12, 0))
    PaymentExtensionFactory(bill=november, term_start=date(2025, 8, 1), new_due_on=date(2025, 11, 27))
    _paid(account, date(2026, 2, 20), date(2026, 3, 20), amount_cents=16_450)
    BillFactory(account=account, due_on=date(2026, 4, 20), amount_cents=16_450, status="missed")
    may = BillFactory(account=account, due_on=date(2026, 5, 20), amount_cents=16_450)
    ticket = ticket_about(policy, "Cancellation letter")

    run = tb.run(
        User(
            says="I got a letter that my policy will be cancelled on Friday because I missed April. I want to pay "
            "April's amount right now by card to stop that. Then, once the cancellation is off, could I have until "
            "June 1st for the May bill?",
            knows=policyholder_facts(elif_, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(elif_, policy, billing_account(policy)),
            call("record_payment", billing_account_id=account.id, amount_cents=16_450, method="card"),
            *rescind(policy),
            extension(
                may, derived("2026-05-30", "May's original due date 2026-05-20 plus 10 days; 1 June is past that limit")
            ),
            solved(ticket.id, "cancellation"),
        ],
        reply="Your payment of $164.50 has cleared the past-due amount, the cancellation is withdrawn and the notice "
        "is in your email. Your May bill is now due on 30 May 2026, the latest date an extension allows.",
    )

    run.expect_golden()
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("active", None)
    assert run.db.get(BillingAccount, account.id).delinquency_status == "current"
    assert run.db.get(Bill, may.id).due_on == date(2026, 5, 30)  # policy: at most 10 days after 20 May
    assert run.db.query(PaymentExtension).count() == 2  # last term's and today's
    assert run.db.query(Document).one().kind == "cancellation_rescission_notice"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.two_requests
def test_case_AI028_002(tb):
    """Cannot pay the past due and asks to spread it, or else for more time, to stop the 19 May cancellation:
    neither a plan nor an extension is given while a cancellation is scheduled (and the account is past due). His
    daughter, who moved out, comes off the policy from today (no premium changes at the desk for that).
    Rules combined: scheduled cancellation, instalment-plan and extension conditions, a driver's removal from
    today, the category and reason of the request not granted."""
    gus, policy = policyholder("Gus Papadakis", "PA", **cancelling(date(2026, 5, 19)))
    daughter = DriverFactory(
        policy=policy,
        full_name="Daphne Papadakis",
        date_of_birth=date(2003, 11, 2),
        licence_number="29418830",
        relation_to_insured="child",
    )
    account = account_of(policy)
    _paid(account, date(2026, 2, 22), date(2026, 3, 22), amount_cents=14_880)
    BillFactory(account=account, due_on=date(2026, 4, 22), amount_cents=14_880, status="missed")
    may = BillFactory(account=account, due_on=date(2026, 5, 22), amount_cents=14_880)
    ticket = ticket_about(policy, "Can't pay in one go")

    run = tb.run(
        User(
            says="I can't pay the overdue amount right now, I was off work for three weeks. Can you split what I owe "
            "into monthly payments so the policy isn't cancelled? Or if not, give me until the end of the month to "
            "pay. And take my daughter Daphne off the policy, she moved to Philadelphia in April; surely that "
            "brings the bill down a bit.",
            knows=policyholder_facts(
                gus, policy, **{"pay today": "nothing, I can't pay anything today", "move-out date": "18 April 2026"}
            ),
        ),
        golden=[
            *opening(gus, policy, billing_account(policy), bills_of(account)),
            remove_driver(
                policy,
                daughter,
                derived("2026-05-12", "a driver who moved out comes off from today, not the move-out date"),
            ),
            solved(ticket.id, "cancellation", "not_eligible"),
        ],
        reply="Daphne is off your policy from today; removing a driver doesn't change the premium. I'm sorry, but "
        "while a cancellation is scheduled I can't set up an instalment plan or give a payment extension. Your "
        "policy will be cancelled on 19 May 2026 unless the past-due $148.80 is paid before then.",
        traps=[
            call("set_up_instalment_plan", bill_id=may.id, instalments=3),
            extension(may, "2026-05-31"),
        ],
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: nothing while a cancellation is scheduled
    assert run.db.query(PaymentExtension).count() == 0
    assert run.db.get(Bill, may.id).status == "open"
    assert run.db.get(Policy, policy.id).status == "cancellation_scheduled"
    assert removal(run.db, daughter) == ("removed", date(2026, 5, 12))  # policy: from today
    assert run.db.get(BillingAccount, account.id).balance_cents == 29_760  # policy: a removed driver credits nothing
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "not_eligible", None)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI028_003(tb):
    """The customer scheduled her own cancellation for 31 May and wants a week more on the 20 May bill: the account
    is current and no extension was granted this term, but a scheduled cancellation of any reason rules it out. The
    Civic she sold on 2 May (no claim since) comes off from the sale date, and its unearned premium (6,033 cents)
    goes to the open May bill first, so nothing is refunded.
    Rules combined: the extension conditions (status before delinquency and term), a cancellation at the
    customer's request, a removal from the sale date and its credit against the unpaid bill, the category and
    reason of the request not granted."""
    june, policy = policyholder("June Albright", "NY", **cancelling(date(2026, 5, 31), "customer_request"))
    civic = car_on(policy, "2HGFE2F50MH530417", 2021, "Honda", "Civic", date(2021, 6, 12), premium=12_000)
    account = account_of(policy)
    _paid(account, date(2026, 2, 20), date(2026, 3, 20), date(2026, 4, 20), amount_cents=15_310)
    may = BillFactory(account=account, due_on=date(2026, 5, 20), amount_cents=15_310)
    ticket = ticket_about(policy, "Last bill")

    run = tb.run(
        User(
            says="My policy ends on May 31st, I set that up last week because I'm moving to Lisbon. The last bill is "
            "due on the 20th; could you move it to the 27th? I've never been late once, you can check. And I sold "
            "the Civic already, on May 2nd, so please take it off.",
            knows=caller_facts(june, **{"new due date": "27 May 2026", "sale date": "2 May 2026"}),
            persona="A punctual customer who thinks her record should count for something.",
            rules=("If refused, point out once that you have never paid late.",),
        ),
        golden=[
            *opening_listed(june, policy, billing_account(policy), policy_claims(policy)),
            *removal_credit(policy, civic, "2026-05-02", 6_033),
            solved(ticket.id, "cancellation", "not_eligible"),
        ],
        reply="The Civic is off your policy from 2 May 2026, the day you sold it. Its unused premium, $60.33, has "
        "gone toward your May bill, so nothing is refunded and $92.77 is still due on 20 May. I can't move that "
        "date, though: no payment extension is given while a cancellation is scheduled, whatever the payment "
        "record.",
        traps=[extension(may, "2026-05-27")],
    )

    run.expect_golden()
    bill = run.db.get(Bill, may.id)
    assert (bill.due_on, bill.paid_cents) == (date(2026, 5, 20), 6_033)  # policy: no extension; the credit paid part
    assert run.db.query(PaymentExtension).count() == 0
    assert removal(run.db, civic) == ("removed", date(2026, 5, 2))  # policy: the sale date, 10 days ago
    credit = run.db.query(PremiumAdjustment).one()
    assert (credit.amount_cents, credit.applied_to_balance_cents, credit.refunded_cents) == (6_033, 6_033, 0)
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 31))
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "not_eligible", None)


# --------------------------------------------------------------------------- AI008: paying to stop a cancellation


def test_case_AI008_004(tb):
    """Two missed bills make the past due ($304.20); May's open bill is not part of it. No open ticket: open one,
    take exactly the past due, withdraw the cancellation and send the notice.
    Rules combined: the past due as a sum of missed bills (not the balance), stopping the cancellation,
    documents, ticket creation."""
    wade, policy = policyholder("Wade Thibodeaux", "GA", **cancelling(date(2026, 5, 18)))
    account = account_of(policy)
    _paid(account, date(2026, 2, 20), amount_cents=15_210)
    BillFactory(account=account, due_on=date(2026, 3, 20), amount_cents=15_210, status="missed")
    BillFactory(account=account, due_on=date(2026, 4, 20), amount_cents=15_210, status="missed")
    BillFactory(account=account, due_on=date(2026, 5, 20), amount_cents=15_210)
    old = ticket_about(policy, "ID card", status="solved", created_at=datetime(2026, 3, 3, 9, 0))
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="My policy's going to be cancelled on the 18th. I'd like to pay whatever is overdue, no more, from "
            "my checking account, so it stays in force. The May bill I'll pay on time, separately.",
            knows=policyholder_facts(wade, policy, **{"payment method": "bank account"}),
        ),
        golden=[
            *opening(wade, policy, billing_account(policy), bills_of(account)),
            create_ticket(wade, policy, "Pay past due to stop cancellation", "cancellation"),
            call(
                "record_payment",
                billing_account_id=account.id,
                amount_cents=derived(30_420, "the account's past_due_cents: the March and April bills of 15,210"),
                method="bank_account",
            ),
            *rescind(policy),
            solved(new_ticket),
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(amount_cents=30_420, method="bank_account").count() == 1
    after = run.db.get(BillingAccount, account.id)
    assert (after.past_due_cents, after.balance_cents) == (0, 15_210)  # May's bill is still open
    assert run.db.get(Policy, policy.id).status == "active"
    created = run.db.get(Ticket, new_ticket)
    assert created.outcome == ("solved", "normal", "cancellation", None, None)
    assert (created.requester_id, created.policy_id) == (wade.id, policy.id)


# --------------------------------------------------------------------------- AI004, AI005, AI011: variants


@pytest.mark.distractors
def test_case_AI004_006(tb):
    """An extension was granted this term on the customer's car policy, but the bill she asks about is on her
    truck's policy, whose own account has none: the 7 days asked are granted there.
    Rules combined: extensions counted per policy term and billing account, the 10-day limit, the right bill."""
    cora, car = policyholder("Cora Blackwood", "CO")
    _paid(car.account, date(2026, 2, 15), date(2026, 4, 15), amount_cents=13_200)
    march = BillFactory(
        account=car.account,
        due_on=date(2026, 3, 22),
        original_due_on=date(2026, 3, 15),
        amount_cents=13_200,
        status="paid",
    )
    PaymentFactory(account=car.account, amount_cents=13_200, received_at=datetime(2026, 3, 21, 9, 0))
    PaymentExtensionFactory(bill=march, new_due_on=date(2026, 3, 22))
    car_may = BillFactory(account=car.account, due_on=date(2026, 5, 15), amount_cents=13_200)
    truck = PolicyFactory(
        customer=cora,
        term_start=date(2026, 4, 1),
        vehicle__vin=complete_vin("1FTFW1E50SFA41877"),
        vehicle__year=2025,
        vehicle__make="Ford",
        vehicle__model="F-150",
    )
    truck_may = BillFactory(account=truck.account, due_on=date(2026, 5, 22), amount_cents=18_900)
    ticket = ticket_about(truck, "Truck payment")

    run = tb.run(
        User(
            says="I need a few more days on the payment for the F-150, it's due on the 22nd. Could it be the 29th "
            "instead? I know I had an extension on the car back in March.",
            knows=caller_facts(cora, **{"new due date": "29 May 2026"}),
        ),
        golden=[
            *opening_listed(cora, truck, billing_account(truck)),
            extension(truck_may, "2026-05-29"),
            solved(ticket.id, "billing"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Bill, truck_may.id).due_on == date(2026, 5, 29)  # policy: the truck's term has no extension
    assert run.db.get(Bill, car_may.id).due_on == date(2026, 5, 15)
    assert run.db.query(PaymentExtension).filter_by(billing_account_id=account_of(truck).id).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)


@pytest.mark.two_requests
def test_case_AI005_005(tb):
    """A late bill originally due on 12 May 2025, exactly a year ago, is inside the 12 months (both ends count);
    with February's late bill that makes two missed payments: the plan is declined. The $200 the customer pays now
    by card is taken either way.
    Rules combined: the 12-month window on its first day, missed payments by original due date, decline, a payment
    the customer makes now."""
    hugo, policy = policyholder("Hugo Lambert", "AZ")
    account = account_of(policy)
    BillFactory(account=account, due_on=date(2025, 5, 12), amount_cents=16_100, paid_cents=16_100, status="paid_late")
    _paid(account, date(2025, 12, 12), date(2026, 1, 12), amount_cents=16_100)
    BillFactory(account=account, due_on=date(2026, 2, 12), amount_cents=16_100, paid_cents=16_100, status="paid_late")
    _paid(account, date(2026, 3, 12), date(2026, 4, 12), amount_cents=16_100)
    may = BillFactory(account=account, due_on=date(2026, 5, 28), amount_cents=64_400)
    ticket = ticket_about(policy, "Split a bill")

    run = tb.run(
        User(
            says="My premium went up with the new car and this bill is $644. Could I split it into three monthly "
            "payments? I was late once, in February, but that's it this year. Either way, I'll pay $200 of it now "
            "with my card.",
            knows=policyholder_facts(hugo, policy, **{"payment method": "card"}),
        ),
        golden=[
            *identify(hugo),
            billing_account(policy),
            bills_of(account),
            call("list_tickets", requester_id=hugo.id),
            call("record_payment", billing_account_id=account.id, amount_cents=20_000, method="card"),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        reply="I've taken your $200.00 card payment, so $444.00 of the bill is left, due on 28 May. I'm sorry, I "
        "can't set up an instalment plan: there are two late payments in the last 12 months, the bill originally "
        "due on 12 May 2025 and the one due on 12 February 2026.",
        traps=[call("set_up_instalment_plan", bill_id=may.id, instalments=3)],
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: 2 missed payments in the last 12 months
    bill = run.db.get(Bill, may.id)
    assert (bill.status, bill.paid_cents) == ("open", 20_000)  # the $200 he paid now
    assert run.db.query(Payment).filter_by(amount_cents=20_000, method="card").count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


@pytest.mark.two_requests
def test_case_AI011_002(tb):
    """April's payment shows twice: the billing team traces it (hold, high, billing); the vehicle-change bill is
    split into the 3 instalments asked, since the history is clean.
    Rules combined: a payment taken twice (never refunded or recorded by the desk), instalment-plan eligibility,
    the ticket rule for several requests (hold outlasts solved)."""
    priya, policy = policyholder("Priya Raman", "CA")
    account = account_of(policy)
    _paid(account, date(2026, 2, 18), date(2026, 3, 18), date(2026, 4, 18), amount_cents=16_900)
    PaymentFactory(account=account, amount_cents=16_900, received_at=datetime(2026, 4, 15, 9, 0))
    change = BillFactory(account=account, issued_on=date(2026, 5, 4), due_on=date(2026, 5, 28), amount_cents=38_400)
    ticket = ticket_about(policy, "Charged twice")

    run = tb.run(
        User(
            says="Two things. My April payment of $169 was taken from my card twice on April 15th, I can see both on "
            "my statement. And the extra bill for adding my new car is $384; can I pay that in three monthly parts?",
            knows=policyholder_facts(priya, policy),
        ),
        golden=[
            *opening(priya, policy, billing_account(policy), payments_of(account), bills_of(account)),
            call("set_up_instalment_plan", bill_id=change.id, instalments=3),
            *hold(
                ticket.id,
                "billing",
                "payment_dispute",
                note="Customer says her April payment of 16900 cents was taken twice on 2026-04-15. Billing to "
                "trace it.",
            ),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],  # closed with the plan, dispute forgotten
    )

    run.expect_golden()
    plan = run.db.query(InstalmentPlan).one()
    assert (plan.bill_id, plan.instalments, plan.instalment_cents) == (change.id, 3, 12_800)
    assert run.db.query(Payment).count() == 4  # policy: nothing refunded or recorded for the double charge
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "payment_dispute", "billing")


# --------------------------------------------------------------------------- AI030: reinstated, then a billing request


@pytest.mark.two_requests
def test_case_AI030_001(tb):
    """Cancelled 16 days ago for March's missed bill: the full past due is paid and the policy reinstated (notice
    sent). The customer then wants the 28 May bill split in two: January's late payment and March's, now paid
    late, are two missed payments in 12 months, so the plan is declined.
    Rules combined: the 30-day window, full past-due payment, reinstatement notice and lapse, instalment-plan
    history (missed and paid-late bills by original due date), the ticket rule for several requests."""
    dima, policy = policyholder("Dima Volkov", "IL", **cancelled(date(2026, 4, 26)))
    account = account_of(policy)
    BillFactory(account=account, due_on=date(2026, 1, 28), amount_cents=15_940, paid_cents=15_940, status="paid_late")
    PaymentFactory(account=account, amount_cents=15_940, received_at=datetime(2026, 2, 6, 9, 0))
    _paid(account, date(2026, 2, 28), amount_cents=15_940)
    BillFactory(account=account, due_on=date(2026, 3, 28), amount_cents=15_940, status="missed")
    may = BillFactory(account=account, issued_on=date(2026, 4, 20), due_on=date(2026, 5, 28), amount_cents=15_940)
    ticket = ticket_about(policy, "Get my policy back")

    run = tb.run(
        User(
            says="My policy was cancelled in April over the March bill. I'll pay the overdue amount now by card to "
            "get it back. After that, the next bill due May 28th, can I split it into two payments? Things are "
            "tight.",
            knows=policyholder_facts(dima, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(dima, policy, billing_account(policy)),
            call("record_payment", billing_account_id=account.id, amount_cents=15_940, method="card"),
            *reinstate(policy),
            bills_of(account),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        reply="I've taken your $159.40 and reinstated your policy from today; the notice is in your email, and the "
        "days from 26 April to 11 May 2026 are a lapse with no coverage. I can't split the 28 May bill: there are "
        "two late payments in the last 12 months, January's and March's, so an instalment plan is declined.",
        traps=[call("set_up_instalment_plan", bill_id=may.id, instalments=2)],
    )

    run.expect_golden()
    back = run.db.get(Policy, policy.id)
    assert (back.status, back.lapse_start, back.lapse_end) == ("active", date(2026, 4, 26), date(2026, 5, 11))
    assert run.db.get(BillingAccount, account.id).past_due_cents == 0
    assert run.db.query(InstalmentPlan).count() == 0  # policy: two missed payments in the last 12 months
    assert run.db.get(Bill, may.id).status == "open"
    assert run.db.query(Document).one().kind == "reinstatement_notice"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


@pytest.mark.pushback
def test_case_AI008_005(tb):
    """Wants to pay $600 'to be ahead' before the 15 May cancellation: a payment is never more than the balance,
    so the $337.80 balance is taken; it covers the full past due, so the cancellation is withdrawn and the
    notice sent.
    Rules combined: the payment cap (balance), past-due bills paid first, stopping a scheduled cancellation,
    documents."""
    nell, policy = policyholder("Nell Archer", "CO", **cancelling(date(2026, 5, 15)))
    account = account_of(policy)
    _paid(account, date(2026, 2, 20), date(2026, 3, 20), amount_cents=16_890)
    BillFactory(account=account, due_on=date(2026, 4, 20), amount_cents=16_890, status="missed")
    BillFactory(account=account, due_on=date(2026, 5, 20), amount_cents=16_890)
    ticket = ticket_about(policy, "Pay ahead")

    run = tb.run(
        User(
            says="I got the cancellation letter and I'm mortified. I want to pay $600 right now by card so I'm well "
            "ahead and this never happens again. Please make sure the cancellation is stopped.",
            knows=policyholder_facts(nell, policy, **{"payment method": "card"}),
            rules=(
                "If refused, ask once whether you can pay the whole $600 anyway.",
                "You would rather pay as much as the agent can take today than nothing.",
            ),
        ),
        golden=[
            *opening(nell, policy, billing_account(policy), payments_of(account)),
            call("record_payment", billing_account_id=account.id, amount_cents=33_780, method="card"),
            *rescind(policy),
            solved(ticket.id, "cancellation"),
        ],
        reply="I can only take up to what you owe, $337.80, so I've taken that by card instead of $600. It clears "
        "the past-due amount, so the cancellation is withdrawn; the notice is in your email.",
    )

    run.expect_golden()
    after = run.db.get(BillingAccount, account.id)
    assert (after.balance_cents, after.past_due_cents) == (0, 0)  # policy: never more than the balance
    assert run.db.query(Payment).filter_by(amount_cents=33_780).count() == 1
    assert run.db.get(Policy, policy.id).status == "active"
    assert run.db.query(Document).one().kind == "cancellation_rescission_notice"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)
