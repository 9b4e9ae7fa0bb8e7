"""Billing: payment extensions (once per term, at most 10 days) and instalment plans (payment history rules)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    PaymentExtensionFactory,
    PaymentFactory,
    PolicyFactory,
    TicketFactory,
    caller_knows,
)
from domains.auto_insurance.models import Bill, InstalmentPlan, PaymentExtension, Ticket
from pytest_thinkingbox import User, call, derived


def _verify(customer):
    return call(
        "verify_identity",
        email=customer.email,
        date_of_birth=customer.date_of_birth.isoformat(),
        postal_code=customer.postal_code,
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
    aisha = CustomerFactory(name="Aisha Pruitt", state="GA")
    policy = PolicyFactory(customer=aisha)
    _monthly_history(policy.account, (2026, 2), (2026, 3), (2026, 4))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = TicketFactory(requester=aisha, policy_id=policy.id, subject="Payment due date")

    run = tb.run(
        User(
            says="My next insurance payment is due on the 18th but I don't get paid until the end of the month. "
            "Can you move the due date to June 1st?",
            knows=caller_knows(aisha, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=aisha.email),
            _verify(aisha),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=aisha.id),
            call(
                "grant_payment_extension",
                bill_id=bill.id,
                new_due_on=derived(
                    "2026-05-28",
                    "the bill's original_due_on 2026-05-18 plus the 10-day limit, since the 1 June the customer "
                    "asks for is 14 days after it",
                ),
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("grant_payment_extension", bill_id=bill.id, new_due_on="2026-06-01")],  # the date she asked for
    )

    run.expect_golden()
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 28)  # policy: at most 10 days, not 1 June
    assert run.db.query(PaymentExtension).one().new_due_on == date(2026, 5, 28)


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "March's extension has term_start 2026-02-01, the policy's current term, so a second one is "
        "refused with nothing changed and the ticket solved, which is all the solve ending does; the "
        "grant_payment_extension trap catches the agent who grants the five days asked for"
    }
)
def test_case_AI004_002(tb):
    """An extension was already granted in March, in the current term: a second one is refused; ticket solved."""
    rafael = CustomerFactory(name="Rafael Whitfield", state="AZ")
    policy = PolicyFactory(customer=rafael)
    _monthly_history(policy.account, (2026, 2), (2026, 4))
    march = BillFactory(
        account=policy.account, due_on=date(2026, 3, 25), original_due_on=date(2026, 3, 18), status="paid"
    )
    PaymentFactory(account=policy.account, received_at=datetime(2026, 3, 24, 17, 5))
    PaymentExtensionFactory(bill=march, new_due_on=date(2026, 3, 25))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = TicketFactory(requester=rafael, policy_id=policy.id, subject="Extra time to pay")

    run = tb.run(
        User(
            says="Could I have five more days to pay this month's bill? Money is tight until my paycheck clears.",
            knows=caller_knows(rafael, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=rafael.email),
            _verify(rafael),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=rafael.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("grant_payment_extension", bill_id=bill.id, new_due_on="2026-05-23")],  # the five days asked
    )

    run.expect_golden()
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 18)  # policy: one extension per term
    assert run.db.query(PaymentExtension).count() == 1


def test_case_AI004_003(tb):
    """The only earlier extension was in the previous term: it does not count, so grant the 7 days asked for."""
    mei = CustomerFactory(name="Mei Brennan", state="CO")
    policy = PolicyFactory(customer=mei)
    november = BillFactory(
        account=policy.account, due_on=date(2025, 11, 26), original_due_on=date(2025, 11, 18), status="paid"
    )
    PaymentFactory(account=policy.account, received_at=datetime(2025, 11, 25, 12, 0))
    PaymentExtensionFactory(bill=november, term_start=date(2025, 8, 1), new_due_on=date(2025, 11, 26))
    _monthly_history(policy.account, (2026, 2), (2026, 3), (2026, 4))
    bill = BillFactory(account=policy.account, due_on=date(2026, 5, 18))
    ticket = TicketFactory(requester=mei, policy_id=policy.id, subject="Due date")

    run = tb.run(
        User(
            says="I had to push a payment back once last year, I know. Could you move this month's due date to the "
            "25th? I'm waiting on a tax refund.",
            knows=caller_knows(mei, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=mei.email),
            _verify(mei),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=mei.id),
            call(
                "grant_payment_extension",
                bill_id=bill.id,
                new_due_on=derived(
                    "2026-05-25",
                    "the 25th the customer asks for, of this month (May 2026, the bill is due 2026-05-18): 7 days "
                    "after the original due date, inside the 10-day limit",
                ),
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 25)
    assert run.db.get(Ticket, ticket.id).status == "solved"


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
    ticket = TicketFactory(requester=theo, policy_id=policy.id, subject="Split my renewal payment")

    run = tb.run(
        User(
            says="My renewal bill is over eleven hundred dollars. Can I split it into three monthly payments? I know "
            "I've been late a couple of times before.",
            knows=caller_knows(theo, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=theo.email),
            _verify(theo),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_bills", billing_account_id=account.id),
            call("list_payments", billing_account_id=account.id),
            call("list_tickets", requester_id=theo.id),
            call("set_up_instalment_plan", bill_id=renewal.id, instalments=3),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    plan = run.db.query(InstalmentPlan).one()
    assert (plan.instalments, plan.first_instalment_cents, plan.instalment_cents) == (3, 37_568, 37_566)
    assert plan.last_due_on == date(2026, 7, 29)


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "a payment returned_nsf on 27 November 2025 (received 24 November) is inside the last 12 months, "
        "so the plan is declined with nothing set up and the ticket solved, which is all the solve ending does; "
        "the set_up_instalment_plan trap catches the agent who takes 'never missed a payment' at its word"
    }
)
def test_case_AI005_002(tb):
    """A payment bounced (NSF) in November, later made good: an NSF in the last 12 months declines the plan."""
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
    ticket = TicketFactory(requester=harper, policy_id=policy.id, subject="Payment plan request")

    run = tb.run(
        User(
            says="I've never missed a payment with you. Could I pay my renewal in four instalments instead of all "
            "at once?",
            knows=caller_knows(harper, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=harper.email),
            _verify(harper),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_payments", billing_account_id=account.id),
            call("list_tickets", requester_id=harper.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("set_up_instalment_plan", bill_id=renewal.id, instalments=4)],  # the four instalments asked for
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: an NSF return in the last 12 months declines it
    assert run.db.get(Bill, renewal.id).status == "open"


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "April's 84.00 bill is missed and the account is past_due, so the plan is declined with nothing "
        "set up and the ticket solved, which is all the solve ending does; the set_up_instalment_plan trap "
        "catches the agent who takes 'basically spotless' at its word"
    }
)
def test_case_AI005_003(tb):
    """A mid-term bill from April is still unpaid: the account is past due, so the plan is declined."""
    connor = CustomerFactory(name="Connor Lindgren", state="IL")
    policy, account = _renewal_policy(connor)
    BillFactory(account=account, due_on=date(2025, 11, 29), amount_cents=96_300, status="paid")
    PaymentFactory(account=account, amount_cents=96_300, received_at=datetime(2025, 11, 26, 10, 0))
    BillFactory(
        account=account, issued_on=date(2026, 4, 4), due_on=date(2026, 4, 25), amount_cents=8_400, status="missed"
    )
    renewal = BillFactory(account=account, issued_on=date(2026, 5, 1), due_on=date(2026, 5, 29), amount_cents=99_900)
    ticket = TicketFactory(requester=connor, policy_id=policy.id, subject="Instalments for renewal")

    run = tb.run(
        User(
            says="Please split my renewal premium into three payments. My payment history is basically spotless.",
            knows=caller_knows(connor, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=connor.email),
            _verify(connor),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=connor.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("set_up_instalment_plan", bill_id=renewal.id, instalments=3)],  # the three payments asked for
    )

    run.expect_golden()
    assert run.db.query(InstalmentPlan).count() == 0  # policy: a delinquent account is declined
    assert run.db.get(Bill, renewal.id).status == "open"
