"""Cancellation: reinstatement windows and full payment, stopping a scheduled cancellation, and cancelling at the
customer's request."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    cancel_at_request,
    create_ticket,
    hold,
    new_id,
    opening,
    opening_listed,
    pending,
    policyholder_facts,
    reinstate,
    rescind,
    solved,
    unverified,
)
from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    PaymentFactory,
    PolicyFactory,
    cancelled,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import BillingAccount, Document, Payment, Policy, Ticket, TicketComment
from domains.auto_insurance.replies import LAPSE, cancellation_date, remaining_past_due
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Payments",
    "Scheduled cancellation for non-payment",
    "Cancelling at the customer's request",
    "Reinstatement after cancellation",
    "Documents",
    "Ticket status, classification and priority",
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
    ticket = ticket_about(policy, "Policy cancelled")

    run = tb.run(
        User(
            says="I just found out my car insurance was cancelled because I missed payments while I was in "
            "hospital. I can pay whatever I owe right now by card. Please turn my policy back on, I need to "
            "drive to work.",
            knows=policyholder_facts(brianna, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(brianna, policy, billing_account(policy)),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=24_580, method="card"),
            *reinstate(policy),
            solved(ticket.id, "reinstatement"),
        ],
        reply="I've taken your card payment of $245.80, the full past-due amount, and reinstated your policy from "
        "today; the reinstatement notice is on its way to your email. Please note that from 2 May to 11 May 2026 "
        "you had no coverage: those days are a lapse.",
    )

    run.expect_golden()
    reinstated = run.db.get(Policy, policy.id)
    assert (reinstated.status, reinstated.lapse_start, reinstated.lapse_end) == (
        "active",
        date(2026, 5, 2),
        date(2026, 5, 11),
    )
    assert run.db.get(BillingAccount, policy.account.id).past_due_cents == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "reinstatement", None, None)
    run.rubric(LAPSE.text, phrases=LAPSE.phrases)  # the lapse is on the record; telling her is the reply's


def test_case_AI006_002(tb):
    """Cancelled 34 days ago: past the 30-day window, so no reinstatement and no payment taken; ticket solved."""
    dwayne = CustomerFactory(name="Dwayne Abbott", state="NY")
    policy = _lapsed_policy(dwayne, cancelled_on=date(2026, 4, 8), missed=[date(2026, 3, 10)], amount_cents=15_800)
    ticket_about(policy, "Cancellation notice", status="solved")
    ticket = ticket_about(policy, "Reinstate my policy")

    run = tb.run(
        User(
            says="My policy got cancelled last month because I fell behind on the bills. I have the money now and "
            "can pay the whole overdue amount today by card. Can you put the same policy back in place "
            "instead of me starting over?",
            knows=policyholder_facts(dwayne, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(dwayne, policy),
            solved(ticket.id, "reinstatement", "outside_window"),
        ],
        traps=[  # "I can pay the whole overdue amount today": take it and switch the policy back on
            call("record_payment", billing_account_id=policy.account.id, amount_cents=15_800, method="card"),
            call("reinstate_policy", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: past 30 days, no reinstatement
    assert run.db.query(Payment).count() == 1  # only February's
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "reinstatement", "outside_window", None)


def test_case_AI006_003(tb):
    """Inside the window but the customer can pay only $150 of $312.40: no payment, no reinstatement; pending."""
    megan = CustomerFactory(name="Megan Osei", state="FL")
    policy = _lapsed_policy(
        megan, cancelled_on=date(2026, 4, 24), missed=[date(2026, 3, 20), date(2026, 4, 20)], amount_cents=15_620
    )
    ticket = ticket_about(policy, "Get my insurance back")

    run = tb.run(
        User(
            says="My insurance was cancelled a couple of weeks ago. I can pay $150 today and the rest when I get "
            "paid on Friday. Can you reinstate it now with the $150?",
            knows=policyholder_facts(
                megan,
                policy,
                **{"payment method": "card", "pay today": "$150 only; I cannot pay the full amount until Friday"},
            ),
        ),
        golden=[
            *opening(megan, policy, billing_account(policy)),
            *pending(
                ticket.id,
                "reinstatement",
                "insufficient_payment",
                note="Customer cannot pay the full past due (31240 cents) today. Reinstatement possible until "
                "2026-05-24 once paid in full; waiting for the customer.",
            ),
        ],
        reply="I can't reinstate the policy with a part payment, so I haven't taken the $150. To reinstate it you "
        "need to pay the full past-due amount of $312.40 in one go, and you can do that until 24 May 2026; after "
        "that date it can no longer be reinstated.",
        traps=[  # "Can you reinstate it now with the $150?"
            call("record_payment", billing_account_id=policy.account.id, amount_cents=15_000, method="card"),
            call("reinstate_policy", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: no reinstatement without the full past due
    assert run.db.query(Payment).count() == 1  # policy: a partial payment is not taken
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "reinstatement", "insufficient_payment", None)


def test_case_AI006_004(tb):
    """The customer cancelled the policy herself and wants it back: only underwriting reinstates it; hold, high."""
    aisha, policy = policyholder("Aisha Whitfield", "CO", **cancelled(date(2026, 5, 1), "customer_request"))
    ticket = ticket_about(policy, "Undo my cancellation")

    run = tb.run(
        User(
            says="I called at the end of April and cancelled my insurance because I thought I'd sold my car, but the "
            "buyer backed out at the last minute. I still have the car and I need it insured again. Can you just "
            "switch my old policy back on? I'll pay whatever it takes.",
            knows=policyholder_facts(aisha, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(aisha, policy),
            *hold(
                ticket.id,
                "reinstatement",
                "underwriting_review",
                note="Policy cancelled on 2026-05-01 at the customer's request; she asks to reinstate it (sale fell "
                "through). Underwriting to decide.",
            ),
        ],
        reply="Because the policy was cancelled at your request rather than for a missed payment, I can't switch it "
        "back on myself: our underwriting team has to review it. I've passed your request to underwriting and "
        "they will contact you.",
        traps=[call("reinstate_policy", policy_id=policy.id)],  # "can you just switch my old policy back on?"
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: only underwriting reinstates this one
    assert run.db.query(Payment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "reinstatement",
        "underwriting_review",
        "underwriting",
    )


def test_case_AI006_005(tb):
    """Cancelled exactly 30 days ago, no open ticket: open one, take the full past due, reinstate, notice."""
    dwayne = CustomerFactory(name="Dwayne Lindgren", state="PA")
    policy = _lapsed_policy(dwayne, cancelled_on=date(2026, 4, 12), missed=[date(2026, 3, 20)], amount_cents=14_350)
    old = ticket_about(policy, "Cancellation notice", status="solved", created_at=datetime(2026, 4, 13, 11, 0))
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="My car insurance was cancelled last month after I missed the March payment. I've sorted my money "
            "out and can pay everything I owe right now from my bank account. Is it too late to get the same "
            "policy back?",
            knows=policyholder_facts(dwayne, policy, **{"payment method": "bank account"}),
        ),
        golden=[
            *opening(dwayne, policy, billing_account(policy)),
            create_ticket(dwayne, policy, "Reinstate policy cancelled for non-payment", "reinstatement"),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=14_350, method="bank_account"),
            *reinstate(policy),
            solved(new_ticket),
        ],
        reply="It isn't too late: the policy was cancelled on 12 April 2026, exactly 30 days ago, the last day it "
        "can be reinstated. I've taken your payment of $143.50 from your bank account and reinstated it from "
        "today; the notice is in your email. From 12 April to 11 May 2026 you had no coverage: those days are a "
        "lapse.",
    )

    run.expect_golden()
    back = run.db.get(Policy, policy.id)
    assert (back.status, back.lapse_start, back.lapse_end) == ("active", date(2026, 4, 12), date(2026, 5, 11))
    assert run.db.get(BillingAccount, policy.account.id).past_due_cents == 0
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "reinstatement", None, None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"  # the old ticket is left alone
    run.rubric(LAPSE.text, phrases=LAPSE.phrases)


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
    ticket = ticket_about(policy, "Cancellation letter")

    run = tb.run(
        User(
            says="I got a letter saying my policy will be cancelled this weekend because of a missed payment. I "
            "want to pay what's overdue right now by card so I keep my coverage. I drive my kids to school "
            "every day.",
            knows=policyholder_facts(rafael, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(rafael, policy, billing_account(policy)),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=18_760, method="card"),
            *rescind(policy),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("active", None)
    assert run.db.get(BillingAccount, policy.account.id).balance_cents == 18_760  # May's bill is still open
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


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
    ticket = ticket_about(policy, "Keep my policy")

    run = tb.run(
        User(
            says="I got the letter about my policy being cancelled. I can pay $100 today toward what I owe. Please"
            " take it and stop the cancellation, I'll pay the rest next month when my hours go back up.",
            knows=policyholder_facts(
                mei,
                policy,
                **{"payment method": "card", "pay today": "$100 only; I cannot pay the rest until next month"},
            ),
        ),
        golden=[
            *opening(mei, policy, billing_account(policy)),
            call("record_payment", billing_account_id=policy.account.id, amount_cents=10_000, method="card"),
            solved(ticket.id, "cancellation", "insufficient_payment"),
        ],
        reply="I've taken your $100 payment, but it doesn't cover the full past-due amount, so the cancellation "
        "still stands: your policy will be cancelled on 16 May 2026 unless the remaining $87.60 is paid before "
        "then.",
        traps=[call("rescind_cancellation", policy_id=policy.id)],  # "take it and stop the cancellation"
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancellation_scheduled"  # policy: a partial payment stops nothing
    assert run.db.get(BillingAccount, policy.account.id).past_due_cents == 8_760
    assert run.db.query(Document).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "insufficient_payment", None)
    remaining, cancelled_on = remaining_past_due(8_760), cancellation_date(date(2026, 5, 16))
    run.rubric(remaining.text, phrases=remaining.phrases)  # what the policy makes the agent tell her
    run.rubric(cancelled_on.text, phrases=cancelled_on.phrases)


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
    ticket = ticket_about(policy, "Stop cancellation")

    run = tb.run(
        User(
            says="I'm calling for my policy that's about to be cancelled; I had a letter last week. I'll pay the "
            "overdue amount by card right now, just make sure it doesn't get cancelled. I can't be without "
            "insurance.",
            knows=policyholder_facts(theo, policy, date_of_birth="1990-03-07", **{"payment method": "card"}),
        ),
        golden=[
            *unverified(
                theo,
                "1990-03-07",
                ticket.id,
                "cancellation",
                note="Identity not verified (date of birth did not match); no payment taken and nothing changed.",
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
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "cancellation", "identity_not_verified", None)


# --------------------------------------------------------------------------- AI010: cancelling on request


def test_case_AI010_001(tb):
    """Customer moving abroad cancels from 31 May; her only ticket is solved: open a new one and cancel from 31 May."""
    mei, policy = policyholder("Mei Kowalski", "NY")
    old = ticket_about(policy, "Copy of ID card", status="solved", created_at=datetime(2026, 3, 2, 15, 0))
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="I'm moving to Germany for work at the end of the month and I'm selling my car before I fly. I "
            "need my car insurance to end on the 31st of May, the day after the buyer takes the car. Can you set "
            "that up?",
            knows=caller_facts(mei, **{"end date": "31 May 2026"}),
        ),
        golden=[
            *opening_listed(mei, policy),
            create_ticket(mei, policy, "Cancel policy from 31 May (moving abroad)", "cancellation"),
            cancel_at_request(policy, "2026-05-31"),
            solved(new_ticket),
        ],
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on, ending.cancellation_reason) == (
        "cancellation_scheduled",
        date(2026, 5, 31),
        "customer_request",
    )
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "cancellation", None, None)
    assert (run.db.get(Ticket, new_ticket).requester_id, run.db.get(Ticket, new_ticket).policy_id) == (
        mei.id,
        policy.id,
    )
    assert run.db.get(Ticket, old.id).outcome == ("solved", "normal", None, None, None)  # the old ticket is not reused


@pytest.mark.pushback
def test_case_AI010_002(tb):
    """Customer wants the cancellation back-dated to 1 May, or else today: never back-dated, so cancelled from today."""
    luis, policy = policyholder("Luis Whitfield", "OH")
    ticket = ticket_about(policy, "Cancel my insurance")

    run = tb.run(
        User(
            says="We moved to Toronto on May 1st and the car has sat in my brother's garage ever since, nobody has "
            "driven it. Please cancel my insurance as of May 1st and give me back what I paid for these two weeks. "
            "If you can't go back to the 1st, then cancel it today.",
            knows=policyholder_facts(luis, policy, **{"date moved": "1 May 2026"}),
            persona="A customer who has already left the country and wants to be done with it.",
            rules=(
                "If the agent will not cancel from 1 May, ask once more for 1 May.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(luis, policy),
            cancel_at_request(
                policy, derived("2026-05-12", "1 May is earlier than today, 12 May 2026: cancelled from today")
            ),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 12))
    # granted, from today
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)
