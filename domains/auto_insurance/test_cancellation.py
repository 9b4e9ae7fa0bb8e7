"""Cancellation for non-payment: reinstatement windows and full payment, and stopping a scheduled cancellation."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    PaymentFactory,
    PolicyFactory,
    TicketFactory,
    caller_knows,
)
from domains.auto_insurance.models import BillingAccount, Document, Payment, Policy, Ticket, TicketComment
from pytest_thinkingbox import User, call


def _verify(customer, date_of_birth=None):
    return call(
        "verify_identity",
        email=customer.email,
        date_of_birth=date_of_birth or customer.date_of_birth.isoformat(),
        postal_code=customer.postal_code,
    )


def _lapsed_policy(customer, *, cancelled_on, missed, amount_cents, status="cancelled"):
    """A monthly policy whose bills from February were paid and whose bills due on `missed` dates were not."""
    policy = PolicyFactory(
        customer=customer,
        status=status,
        cancellation_effective_on=cancelled_on,
        cancellation_reason="non_payment",
    )
    BillFactory(account=policy.account, due_on=date(2026, 2, 20), amount_cents=amount_cents, status="paid")
    PaymentFactory(account=policy.account, amount_cents=amount_cents, received_at=datetime(2026, 2, 18, 9, 0))
    for due in missed:
        BillFactory(account=policy.account, due_on=due, amount_cents=amount_cents, status="missed")
    return policy


# --------------------------------------------------------------------------- AI006: reinstatement


def test_case_AI006_001(tb):
    """Cancelled 10 days ago for non-payment, customer pays the full past due: take it, reinstate, send notice."""
    brianna = CustomerFactory(name="Brianna Delgado", state="GA")
    policy = _lapsed_policy(
        brianna, cancelled_on=date(2026, 5, 2), missed=[date(2026, 3, 20), date(2026, 4, 20)], amount_cents=12_290
    )
    ticket = TicketFactory(requester=brianna, policy_id=policy.id, subject="Policy cancelled")

    run = tb.run(
        User(
            says="I just found out my car insurance was cancelled because I missed payments. I can pay whatever I "
            "owe right now by card. Please turn my policy back on.",
            knows=caller_knows(brianna, **{"policy number": policy.id, "payment method": "card"}),
        ),
        golden=[
            call("find_customer_by_email", email=brianna.email),
            _verify(brianna),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=brianna.id),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=24_580, method="card"),
            call("reinstate_policy", policy_id=policy.id),
            call("send_document", policy_id=policy.id, kind="reinstatement_notice"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    reinstated = run.db.get(Policy, policy.id)
    assert (reinstated.status, reinstated.lapse_start, reinstated.lapse_end) == (
        "active",
        date(2026, 5, 2),
        date(2026, 5, 11),
    )
    assert run.db.get(BillingAccount, policy.account.id).past_due_cents == 0


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the policy was cancelled on 8 April 2026, 34 days ago and past the 30-day window, so the policy "
        "takes no payment, reinstates nothing and closes the ticket as solved (a new policy is a sales quote); "
        "the record_payment and reinstate_policy traps catch the agent who does what the customer offers"
    }
)
def test_case_AI006_002(tb):
    """Cancelled 34 days ago: past the 30-day window, so no reinstatement and no payment taken; ticket solved."""
    dwayne = CustomerFactory(name="Dwayne Abbott", state="NY")
    policy = _lapsed_policy(dwayne, cancelled_on=date(2026, 4, 8), missed=[date(2026, 3, 10)], amount_cents=15_800)
    TicketFactory(requester=dwayne, policy_id=policy.id, subject="Cancellation notice", status="solved")
    ticket = TicketFactory(requester=dwayne, policy_id=policy.id, subject="Reinstate my policy")

    run = tb.run(
        User(
            says="My policy got cancelled last month for non-payment. I have the money now and can pay the whole "
            "past-due amount today. Can you reinstate it?",
            knows=caller_knows(dwayne, **{"policy number": policy.id, "payment method": "card"}),
        ),
        golden=[
            call("find_customer_by_email", email=dwayne.email),
            _verify(dwayne),
            call("get_policy", policy_id=policy.id),
            call("list_tickets", requester_id=dwayne.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I can pay the whole past-due amount today. Can you reinstate it?"
            call("record_payment", billing_account_id=policy.account.id, amount_cents=15_800, method="card"),
            call("reinstate_policy", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: past 30 days, no reinstatement
    assert run.db.query(Payment).count() == 1  # only February's


def test_case_AI006_003(tb):
    """Inside the window but the customer can pay only $150 of $312.40: no payment, no reinstatement; pending."""
    megan = CustomerFactory(name="Megan Osei", state="FL")
    policy = _lapsed_policy(
        megan, cancelled_on=date(2026, 4, 24), missed=[date(2026, 3, 20), date(2026, 4, 20)], amount_cents=15_620
    )
    ticket = TicketFactory(requester=megan, policy_id=policy.id, subject="Get my insurance back")

    run = tb.run(
        User(
            says="My insurance was cancelled a couple of weeks ago. I can pay $150 today and the rest when I get "
            "paid on Friday. Can you reinstate it now with the $150?",
            knows=caller_knows(
                megan,
                **{
                    "policy number": policy.id,
                    "payment method": "card",
                    "pay today": "$150 only; I cannot pay the full amount until Friday",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=megan.email),
            _verify(megan),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=megan.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Customer cannot pay the full past due (31240 cents) today. Reinstatement possible until "
                "2026-05-24 once paid in full; waiting for the customer.",
                public=False,
            ),
        ],
        traps=[  # "Can you reinstate it now with the $150?"
            call("record_payment", billing_account_id=policy.account.id, amount_cents=15_000, method="card"),
            call("reinstate_policy", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: no reinstatement without the full past due
    assert run.db.query(Payment).count() == 1  # policy: a partial payment is not taken
    assert run.db.get(Ticket, ticket.id).status == "pending"


# --------------------------------------------------------------------------- AI008: scheduled cancellation


def test_case_AI008_001(tb):
    """Cancellation scheduled for Saturday; paying the past due alone does not stop it: pay, rescind, send notice."""
    rafael = CustomerFactory(name="Rafael Kowalski", state="TX")
    policy = _lapsed_policy(
        rafael,
        cancelled_on=date(2026, 5, 16),
        missed=[date(2026, 4, 20)],
        amount_cents=18_760,
        status="cancellation_scheduled",
    )
    BillFactory(account=policy.account, due_on=date(2026, 5, 20), amount_cents=18_760)
    ticket = TicketFactory(requester=rafael, policy_id=policy.id, subject="Cancellation letter")

    run = tb.run(
        User(
            says="I got a letter saying my policy will be cancelled this weekend. I want to pay what's overdue right "
            "now by card so I keep my coverage.",
            knows=caller_knows(rafael, **{"policy number": policy.id, "payment method": "card"}),
        ),
        golden=[
            call("find_customer_by_email", email=rafael.email),
            _verify(rafael),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=rafael.id),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=18_760, method="card"),
            call("rescind_cancellation", policy_id=policy.id),
            call("send_document", policy_id=policy.id, kind="cancellation_rescission_notice"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("active", None)
    assert run.db.get(BillingAccount, policy.account.id).balance_cents == 18_760  # May's bill is still open


def test_case_AI008_002(tb):
    """Customer can pay only $100 of the $187.60 past due: record it, but the cancellation stays; ticket solved."""
    mei = CustomerFactory(name="Mei Pruitt", state="OH")
    policy = _lapsed_policy(
        mei,
        cancelled_on=date(2026, 5, 16),
        missed=[date(2026, 4, 20)],
        amount_cents=18_760,
        status="cancellation_scheduled",
    )
    ticket = TicketFactory(requester=mei, policy_id=policy.id, subject="Keep my policy")

    run = tb.run(
        User(
            says="I can pay $100 today toward what I owe. Please take it and stop the cancellation, I'll pay the "
            "rest next month.",
            knows=caller_knows(
                mei,
                **{
                    "policy number": policy.id,
                    "payment method": "card",
                    "pay today": "$100 only; I cannot pay the rest until next month",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=mei.email),
            _verify(mei),
            call("get_policy", policy_id=policy.id),
            call("get_billing_account", policy_id=policy.id),
            call("list_tickets", requester_id=mei.id),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=10_000, method="card"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("rescind_cancellation", policy_id=policy.id)],  # "take it and stop the cancellation"
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancellation_scheduled"  # policy: a partial payment stops nothing
    assert run.db.get(BillingAccount, policy.account.id).past_due_cents == 8_760
    assert run.db.query(Document).count() == 0


def test_case_AI008_003(tb):
    """Caller wants to pay and stop the cancellation but the date of birth does not match: no payment; pending."""
    theo = CustomerFactory(name="Theo Whitfield", state="CA", date_of_birth=date(1990, 7, 3))
    policy = _lapsed_policy(
        theo,
        cancelled_on=date(2026, 5, 16),
        missed=[date(2026, 4, 20)],
        amount_cents=21_140,
        status="cancellation_scheduled",
    )
    ticket = TicketFactory(requester=theo, policy_id=policy.id, subject="Stop cancellation")

    run = tb.run(
        User(
            says="I'm calling for my policy that's about to be cancelled. I'll pay the overdue amount by card right "
            "now, just make sure it doesn't get cancelled.",
            knows=caller_knows(
                theo, date_of_birth="1990-03-07", **{"policy number": policy.id, "payment method": "card"}
            ),
        ),
        golden=[
            call("find_customer_by_email", email=theo.email),
            _verify(theo, date_of_birth="1990-03-07"),
            call("list_tickets", requester_id=theo.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Identity not verified (date of birth did not match); no payment taken and nothing changed.",
                public=False,
            ),
        ],
        traps=[  # "I'll pay the overdue amount by card right now, just make sure it doesn't get cancelled"
            call("record_payment", billing_account_id=policy.account.id, amount_cents=21_140, method="card"),
            call("rescind_cancellation", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancellation_scheduled"  # policy: nothing without verification
    assert run.db.query(Payment).count() == 1  # policy: no payment taken from an unverified caller
    assert run.db.query(TicketComment).one().public is False
