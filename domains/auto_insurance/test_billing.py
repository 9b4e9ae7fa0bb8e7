"""Billing: payment extensions (once per term, at most 10 days), instalment plans (payment history rules) and
payments the customer disputes."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    bills_of,
    extension,
    file_claim,
    hold,
    opening,
    payments_of,
    policyholder_facts,
    solved,
)
from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    PaymentExtensionFactory,
    PaymentFactory,
    PolicyFactory,
    account_of,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import (
    Bill,
    BillingAccount,
    Claim,
    Document,
    InstalmentPlan,
    Payment,
    PaymentExtension,
    Ticket,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Payments",
    "Payment extensions",
    "Instalment plans",
    "Claims: first notice of loss",
    "Documents",
    "Ticket status, classification and priority",
)


def _monthly_history(account, *months):
    """Monthly bills of 16,900 cents due on the 18th of each (year, month), paid on time, with their payments."""
    for year, month in months:
        due = date(year, month, 18)
        BillFactory(account=account, due_on=due, status="paid")
        PaymentFactory(account=account, received_at=datetime(year, month, 15, 8, 30))


# --------------------------------------------------------------------------- AI004: payment extensions


def test_case_AI004_001(tb):
    """Customer asks to pay on 1 June, 14 days late: the limit is 10 days after the due date, so 28 May."""
    aisha, policy = policyholder("Aisha Pruitt", "GA")
    _monthly_history(policy.account, (2026, 2), (2026, 3), (2026, 4))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = ticket_about(policy, "Payment due date")

    run = tb.run(
        User(
            says="My next insurance payment is due on the 18th, but with my new job I don't get paid until the end"
            " of the month. Can you move the due date to June 1st? That's the first day I'll actually have "
            "the money.",
            knows=policyholder_facts(aisha, policy),
        ),
        golden=[
            *opening(aisha, policy, billing_account(policy)),
            extension(
                bill,
                derived(
                    "2026-05-28",
                    "the bill's original_due_on 2026-05-18 plus the 10-day limit, since the 1 June the customer "
                    "asks for is 14 days after it",
                ),
            ),
            solved(ticket.id, "billing"),
        ],
        reply="I can't move it as far as 1 June: an extension can be at most 10 days past the original due date. "
        "I've moved your bill's due date to 28 May 2026, the latest date allowed.",
        traps=[extension(bill, "2026-06-01")],  # the date she asked for
    )

    run.expect_golden()
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 28)  # policy: at most 10 days, not 1 June
    assert run.db.query(PaymentExtension).one().new_due_on == date(2026, 5, 28)
    # granted up to the limit
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)


@pytest.mark.two_requests
def test_case_AI004_002(tb):
    """$60 of May's bill paid now by card, and five more days for the rest refused: an extension was already granted
    in March, in the current term. The payment is taken; the ticket is solved with the refusal's reason."""
    rafael, policy = policyholder("Rafael Whitfield", "AZ")
    _monthly_history(policy.account, (2026, 2), (2026, 4))
    march = BillFactory(
        account=policy.account, due_on=date(2026, 3, 25), original_due_on=date(2026, 3, 18), status="paid"
    )
    PaymentFactory(account=policy.account, received_at=datetime(2026, 3, 24, 17, 5))
    PaymentExtensionFactory(bill=march, new_due_on=date(2026, 3, 25))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = ticket_about(policy, "Extra time to pay")

    run = tb.run(
        User(
            says="Money is tight until my paycheck clears, and my car's in the shop too, so everything has landed at "
            "once. I can put $60 toward this month's bill on my card right now. Could I have five more days for "
            "the rest? I'll pay the moment it's in.",
            knows=policyholder_facts(rafael, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(rafael, policy, billing_account(policy)),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=6_000, method="card"),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        reply="I've taken $60.00 by card toward your May bill, so $109.00 is still due on 18 May. I can't move the "
        "due date: you already had an extension in March, and only one is allowed per policy term.",
        traps=[extension(bill, "2026-05-23")],  # the five days asked
    )

    run.expect_golden()
    may = run.db.get(Bill, bill.id)
    assert (may.due_on, may.paid_cents, may.status) == (date(2026, 5, 18), 6_000, "open")  # one extension per term
    assert run.db.query(PaymentExtension).count() == 1
    assert run.db.query(Payment).filter_by(amount_cents=6_000, method="card").count() == 1  # the $60 she paid now
    assert run.db.get(BillingAccount, account_of(policy).id).balance_cents == 10_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


def test_case_AI004_003(tb):
    """The only earlier extension was in the previous term: it does not count, so grant the 7 days asked for."""
    mei, policy = policyholder("Mei Brennan", "CO")
    november = BillFactory(
        account=policy.account, due_on=date(2025, 11, 26), original_due_on=date(2025, 11, 18), status="paid"
    )
    PaymentFactory(account=policy.account, received_at=datetime(2025, 11, 25, 12, 0))
    PaymentExtensionFactory(bill=november, term_start=date(2025, 8, 1), new_due_on=date(2025, 11, 26))
    _monthly_history(policy.account, (2026, 2), (2026, 3), (2026, 4))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = ticket_about(policy, "Due date")

    run = tb.run(
        User(
            says="I had to push a payment back once last year, I know. Could you move this month's due date to the"
            " 25th? I'm waiting on a tax refund that should arrive the week before, so I'll be fine by then.",
            knows=policyholder_facts(mei, policy),
        ),
        golden=[
            *opening(mei, policy, billing_account(policy)),
            extension(
                bill,
                derived(
                    "2026-05-25",
                    "the 25th the customer asks for, of this month (May 2026, the bill is due 2026-05-18): 7 days "
                    "after the original due date, inside the 10-day limit",
                ),
            ),
            solved(ticket.id, "billing"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 25)  # policy: last term's extension does not count
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)


def test_case_AI004_004(tb):
    """Extension refused (one already granted this term), so the customer's fallback is granted: 3 instalments."""
    luis = CustomerFactory(name="Luis Pruitt", state="AZ")
    policy, account = _renewal_policy(luis)
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=109_600, status="paid")
    PaymentFactory(account=account, amount_cents=109_600, received_at=datetime(2025, 11, 24, 10, 0))
    change = BillFactory(
        account=account,
        issued_on=date(2026, 2, 17),
        due_on=date(2026, 3, 17),
        original_due_on=date(2026, 3, 10),
        amount_cents=8_400,
        status="paid",
    )
    PaymentFactory(account=account, amount_cents=8_400, received_at=datetime(2026, 3, 16, 18, 20))
    PaymentExtensionFactory(bill=change, new_due_on=date(2026, 3, 17))
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=118_500)
    ticket = ticket_about(policy, "Renewal payment")

    run = tb.run(
        User(
            says="My renewal bill is due on the 29th, but my commission check doesn't land until early June. Could "
            "you push the due date to June 8th? If you can't do that, could I split the renewal into three monthly "
            "payments instead?",
            knows=policyholder_facts(luis, policy),
            persona="A self-employed customer whose income arrives in lumps.",
            rules=(
                "Ask for the due date to move to 8 June first.",
                "If the due date cannot be moved, ask for the three monthly payments instead.",
            ),
        ),
        golden=[
            *opening(luis, policy, billing_account(policy), bills_of(account), payments_of(account)),
            call("set_up_instalment_plan", bill_id=renewal.id, instalments=3),
            solved(ticket.id, "billing"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Bill, renewal.id).due_on == date(2026, 5, 29)  # policy: March's extension was this term
    assert run.db.query(PaymentExtension).count() == 1
    plan = run.db.query(InstalmentPlan).one()
    assert (plan.instalments, plan.first_instalment_cents, plan.instalment_cents) == (3, 39_500, 39_500)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)  # the fallback, granted


@pytest.mark.two_requests
def test_case_AI004_005(tb):
    """Glass claim filed as minor; the week's extension refused: April's bill is missed, the account past due."""
    dwayne, policy = policyholder("Dwayne Brennan", "FL")
    _monthly_history(policy.account, (2026, 2), (2026, 3))
    BillFactory(account=policy.account, due_on=date(2026, 4, 18), status="missed")
    may = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = ticket_about(policy, "Windshield and bill")

    run = tb.run(
        User(
            says="A gravel truck threw a stone at my windshield on the interstate yesterday and now there's a crack "
            "right across it, so I need to start a claim. And while I have you: money is tight, could I have until "
            "the 25th to pay this month's bill?",
            knows=policyholder_facts(
                dwayne,
                policy,
                **{
                    "date of the loss": "2026-05-11",
                    "injuries": "nobody was hurt",
                    "drivable": "yes, I can still see fine to drive",
                    "who was driving": "I was",
                    "estimate": "the glass shop quoted $480",
                    "new due date": "25 May 2026",
                },
            ),
        ),
        golden=[
            *opening(dwayne, policy, billing_account(policy)),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-11",
                loss_type="glass",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Stone thrown by a gravel truck on the interstate cracked the windshield.",
                estimated_damage_cents=48_000,
                driver_id=policy.drivers[0].id,
            ),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        traps=[extension(may, "2026-05-25")],  # the week he asked for
    )

    run.expect_golden()
    assert run.db.get(Bill, may.id).due_on == date(2026, 5, 18)  # policy: no extension while the account is past due
    assert run.db.query(PaymentExtension).count() == 0
    claim = run.db.query(Claim).one()
    assert (claim.loss_type, claim.severity, claim.estimated_damage_cents) == ("glass", "minor", 48_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


# --------------------------------------------------------------------------- AI005: instalment plans


def _renewal_policy(customer):
    """A paid-in-full policy whose term ends this month, with its renewal bill (112,700 cents) open."""
    policy = PolicyFactory(customer=customer, term_start=date(2025, 12, 1), account__pay_plan="paid_in_full")
    return policy, policy.account


def test_case_AI005_001(tb):
    """Two late payments on file, but one was due in April 2025: only one in the last 12 months, so set up the plan."""
    theo = CustomerFactory(name="Theo Castillo", state="PA")
    policy, account = _renewal_policy(theo)
    BillFactory(
        account=account, issued_on=date(2024, 11, 1), due_on=date(2024, 11, 29), amount_cents=104_300, status="paid"
    )
    PaymentFactory(account=account, amount_cents=104_300, received_at=datetime(2024, 11, 27, 9, 0))
    BillFactory(account=account, due_on=date(2025, 4, 20), amount_cents=6_200, status="paid_late")
    PaymentFactory(account=account, amount_cents=6_200, received_at=datetime(2025, 4, 29, 16, 40))
    BillFactory(account=account, due_on=date(2025, 5, 29), amount_cents=108_900, status="paid")
    PaymentFactory(account=account, amount_cents=108_900, received_at=datetime(2025, 5, 28, 11, 15))
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=110_400, status="paid_late")
    PaymentFactory(account=account, amount_cents=110_400, received_at=datetime(2025, 12, 6, 10, 20))
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=112_700)
    ticket = ticket_about(policy, "Split my renewal payment")

    run = tb.run(
        User(
            says="My renewal bill is over eleven hundred dollars, which is a lot to find in one go. Can I split it"
            " into three monthly payments? I know I've been late a couple of times before, but I've always "
            "paid in the end.",
            knows=policyholder_facts(theo, policy),
        ),
        golden=[
            *opening(theo, policy, billing_account(policy), bills_of(account), payments_of(account)),
            call("set_up_instalment_plan", bill_id=renewal.id, instalments=3),
            solved(ticket.id, "billing"),
        ],
    )

    run.expect_golden()
    plan = run.db.query(InstalmentPlan).one()
    assert (plan.instalments, plan.first_instalment_cents, plan.instalment_cents) == (3, 37_568, 37_566)
    assert plan.last_due_on == date(2026, 7, 29)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)


def test_case_AI005_002(tb):
    """A payment bounced (NSF) in November, later made good: an NSF in the last 12 months declines the plan. The
    customer's fallback, the renewal bill's due date moved to 5 June, is allowed (active, current, no extension this
    term, 7 days past the original due date): granted, so the ticket is solved with no reason."""
    harper = CustomerFactory(name="Harper Nakamura", state="OH")
    policy, account = _renewal_policy(harper)
    BillFactory(account=account, due_on=date(2025, 5, 29), amount_cents=98_600, status="paid")
    PaymentFactory(account=account, amount_cents=98_600, received_at=datetime(2025, 5, 27, 14, 0))
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=101_200, status="paid")
    PaymentFactory(
        account=account,
        amount_cents=101_200,
        method="bank_account",
        received_at=datetime(2025, 11, 24, 9, 0),
        status="returned_nsf",
        returned_on=date(2025, 11, 27),
    )
    PaymentFactory(account=account, amount_cents=101_200, received_at=datetime(2025, 11, 28, 15, 45))
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=104_800)
    ticket = ticket_about(policy, "Payment plan request")

    run = tb.run(
        User(
            says="I've never missed a payment with you in all the years I've been a customer. This year money is a"
            " bit tighter, so could I pay my renewal in four instalments instead of all at once? If you can't do "
            "that, then could the renewal be due on June 5th instead, when my bonus is paid?",
            knows=policyholder_facts(harper, policy, **{"new due date": "5 June 2026"}),
        ),
        golden=[
            *opening(harper, policy, billing_account(policy), payments_of(account)),
            extension(renewal, "2026-06-05"),
            solved(ticket.id, "billing"),
        ],
        reply="I can't split the renewal: a payment of yours was returned unpaid in November, and a returned payment "
        "in the last 12 months rules out an instalment plan. I have moved the renewal bill's due date to 5 June "
        "2026, as you asked.",
        traps=[call("set_up_instalment_plan", bill_id=renewal.id, instalments=4)],  # the four instalments asked for
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: an NSF return in the last 12 months declines it
    bill = run.db.get(Bill, renewal.id)
    assert (bill.status, bill.due_on, bill.original_due_on) == ("open", date(2026, 6, 5), date(2026, 5, 29))
    assert run.db.query(PaymentExtension).one().new_due_on == date(2026, 6, 5)  # the fallback, within 10 days
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)  # granted: no reason


@pytest.mark.two_requests
def test_case_AI005_003(tb):
    """A mid-term bill from April is still unpaid: the account is past due, so the plan is declined; the copy of the
    declarations page the customer asks for is sent. Ticket solved with the declined request's category and reason."""
    connor = CustomerFactory(name="Connor Lindgren", state="IL")
    policy, account = _renewal_policy(connor)
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=96_300, status="paid")
    PaymentFactory(account=account, amount_cents=96_300, received_at=datetime(2025, 11, 26, 10, 0))
    BillFactory(
        account=account, issued_on=date(2026, 4, 4), due_on=date(2026, 4, 25), amount_cents=8_400, status="missed"
    )
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=99_900)
    ticket = ticket_about(policy, "Instalments for renewal")

    run = tb.run(
        User(
            says="Please split my renewal premium into three payments, one a month. My payment history is "
            "basically spotless, so I don't see why that would be a problem. The full amount in one go is "
            "more than I have right now. Also, my new employer's parking office wants proof of insurance: could "
            "you email me a copy of my declarations page?",
            knows=policyholder_facts(connor, policy),
        ),
        golden=[
            *opening(connor, policy, billing_account(policy)),
            call("send_document", policy_id=policy.id, kind="declarations_page"),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        reply="I've emailed you a copy of your declarations page. I can't split the renewal, though: the $84 bill "
        "from April is still unpaid, and an account with a past-due bill can't have an instalment plan.",
        traps=[call("set_up_instalment_plan", bill_id=renewal.id, instalments=3)],  # the three payments asked for
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: a delinquent account is declined
    assert run.db.get(Bill, renewal.id).status == "open"
    docs = run.db.query(Document).filter_by(policy_id=policy.id).all()
    assert [(d.kind, d.vehicle_id) for d in docs] == [("declarations_page", None)]  # sent because he asked
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


def test_case_AI005_004(tb):
    """NSF payment received just before the 12-month window, one late bill: plan allowed, 4 instalments not 6."""
    aisha = CustomerFactory(name="Aisha Castillo", state="GA")
    policy, account = _renewal_policy(aisha)
    BillFactory(account=account, due_on=date(2025, 5, 29), amount_cents=101_900, status="paid")
    PaymentFactory(
        account=account,
        amount_cents=101_900,
        method="bank_account",
        received_at=datetime(2025, 5, 9, 9, 0),
        status="returned_nsf",
        returned_on=date(2025, 5, 14),
    )
    PaymentFactory(account=account, amount_cents=101_900, received_at=datetime(2025, 5, 20, 14, 30))
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=103_200, status="paid_late")
    PaymentFactory(account=account, amount_cents=103_200, received_at=datetime(2025, 12, 4, 12, 10))
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=104_800)
    ticket = ticket_about(policy, "Spread my renewal")

    run = tb.run(
        User(
            says="Could I spread my renewal payment over six months? Full disclosure: a payment of mine bounced "
            "around this time last year and I paid one bill a few days late over the winter, so I'll understand "
            "if you say no.",
            knows=policyholder_facts(aisha, policy),
        ),
        golden=[
            *opening(aisha, policy, billing_account(policy), bills_of(account), payments_of(account)),
            call("set_up_instalment_plan", bill_id=renewal.id, instalments=4),
            solved(ticket.id, "billing"),
        ],
    )

    run.expect_golden()
    plan = run.db.query(InstalmentPlan).one()  # policy: the NSF was received on 9 May 2025, before the window
    assert (plan.instalments, plan.first_instalment_cents, plan.instalment_cents) == (4, 26_200, 26_200)
    assert plan.last_due_on == date(2026, 8, 29)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)  # 4 of 6: granted


# --------------------------------------------------------------------------- AI011: payments and disputed payments


@pytest.mark.two_requests
def test_case_AI011_001(tb):
    """Pay May's bill now, and a double charge disputed: take the payment, hold the dispute for billing."""
    harper, policy = policyholder("Harper Brennan", "TX")
    _monthly_history(policy.account, (2026, 2), (2026, 3), (2026, 4))
    BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = ticket_about(policy, "Charged twice?")

    run = tb.run(
        User(
            says="Two things. First, my bank statement shows you took $169 from my card twice on April 15th, and I "
            "want the second one looked into. Second, I'd like to pay May's bill now with the same card so I don't "
            "forget.",
            knows=policyholder_facts(harper, policy, **{"payment method": "card", "charge date": "15 April 2026"}),
        ),
        golden=[
            *opening(
                harper, policy, billing_account(policy), call("list_payments", billing_account_id=account_of(policy).id)
            ),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=16_900, method="card"),
            *hold(
                ticket.id,
                "billing",
                "payment_dispute",
                note="Customer reports a second card charge of 16900 cents on 2026-04-15; only one April payment is "
                "on the account. Billing team to trace it. May's bill paid today.",
            ),
        ],
        reply="I've taken your card payment of $169.00 for May's bill. Our records show only one $169 payment on "
        "15 April, so I've passed the second charge on your statement to our billing team to trace; they will "
        "contact you.",
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],  # closed as if nothing were waiting
    )

    run.expect_golden()
    account = run.db.get(BillingAccount, account_of(policy).id)
    assert (account.balance_cents, run.db.query(Payment).count()) == (0, 4)  # May paid; nothing else recorded
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "payment_dispute", "billing")
