"""Adding a coverage mid-term (rental reimbursement needs collision and comprehensive; nothing is added to a policy
that is not active; an added coverage never pays for an earlier loss), alone or with a claim payment or a
scheduled cancellation."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    identify,
    opening,
    policyholder_facts,
    rental_days,
    rescind,
    solved,
)
from domains.auto_insurance.factories import (
    BillFactory,
    PolicyFactory,
    TicketFactory,
    account_of,
    cancelling,
    major_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import BillingAccount, ClaimPayment, Coverage, Document, Policy, Ticket
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Adding a coverage (endorsements)",
    "Claim payments the desk makes",
    "Scheduled cancellation for non-payment",
    "Documents",
    "Ticket status, classification and priority",
)


def _added(db, policy_id, kind):
    rows = db.query(Coverage).filter_by(policy_id=policy_id, coverage=kind).all()
    return [(c.status, c.limit_cents, c.effective_on, c.term_premium_cents) for c in rows]


BASE = ("bodily_injury_liability", "property_damage_liability", "uninsured_motorist", "medical_payments")


# --------------------------------------------------------------------------- AI020: adding a coverage


@pytest.mark.two_requests
def test_case_AI020_001(tb):
    """Rental reimbursement added at 50 dollars a day from today (collision and comprehensive are on), but it cannot
    pay for last week's rental after the 3 May crash: the ticket carries the refused request's category and reason.
    Rules combined: the endorsement's conditions and start date, a coverage in force on the loss date, the
    classification of two requests with one refused."""
    odile, policy = policyholder("Odile Brandvold", "OH", coverages=(*BASE, "collision", "comprehensive"))
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 5, 3),
        "Hit a pothole at speed; both front wheels and the steering rack damaged.",
        damage_cents=610_000,
    )
    ticket = ticket_about(policy, "Rental coverage")

    run = tb.run(
        User(
            says="I'd like to add rental car coverage, the $50 a day option. And once it's on, can it pay for the "
            "rental I've had since my accident on May 3rd? It's $48 a day.",
            knows=policyholder_facts(odile, policy, **{"claim number": claim.id, "daily limit": "$50"}),
        ),
        golden=[
            *opening(odile, policy, call("get_claim", claim_id=claim.id)),
            call("add_coverage", policy_id=policy.id, coverage="rental_reimbursement", limit_cents=5_000),
            solved(ticket.id, "claim", "not_covered"),
        ],
        traps=[rental_days(claim, 43_200, 9)],
        reply="Rental reimbursement at $50 a day is on your policy from today, 12 May 2026. It can't pay for the "
        "rental since your 3 May accident, though: a coverage only pays for losses after it starts.",
    )

    run.expect_golden()
    assert _added(run.db, policy.id, "rental_reimbursement") == [("active", 5_000, date(2026, 5, 12), 3_000)]
    assert run.db.query(ClaimPayment).count() == 0  # policy: added after the loss, it does not pay for it
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


def test_case_AI020_002(tb):
    """No collision on the policy, so rental reimbursement cannot be added; the customer's fallback, roadside
    assistance at 100 dollars a tow, is added: granted as the fallback, so no reason.
    Rules combined: rental's precondition (collision and comprehensive), the fallback request, its category."""
    ezra, policy = policyholder("Ezra Quintero", "FL", coverages=(*BASE, "comprehensive"))
    ticket = ticket_about(policy, "Add coverage")

    run = tb.run(
        User(
            says="I'd like to add rental reimbursement, $40 a day. If I can't get that, then add roadside assistance "
            "instead, the $100 per tow option.",
            knows=policyholder_facts(ezra, policy),
        ),
        golden=[
            *opening(ezra, policy),
            call("add_coverage", policy_id=policy.id, coverage="roadside_assistance", limit_cents=10_000),
            solved(ticket.id, "coverage"),
        ],
        traps=[call("add_coverage", policy_id=policy.id, coverage="rental_reimbursement", limit_cents=4_000)],
    )

    run.expect_golden()
    assert _added(run.db, policy.id, "rental_reimbursement") == []  # policy: needs collision and comprehensive
    assert _added(run.db, policy.id, "roadside_assistance") == [("active", 10_000, date(2026, 5, 12), 1_500)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


@pytest.mark.two_requests
def test_case_AI020_003(tb):
    """Cancellation for non-payment scheduled for Saturday; the customer pays the full past due, so it is withdrawn
    (with its notice), and the policy, active again, gets the roadside assistance asked for.
    Rules combined: the full past-due payment stopping a scheduled cancellation, the rescission notice, the
    endorsement only on an active policy, the category of the first request."""
    sunil, policy = policyholder("Sunil Haugen", "CO", **cancelling(date(2026, 5, 16)))
    BillFactory(account=policy.account, due_on=date(2026, 4, 20), amount_cents=17_340, status="missed")
    BillFactory(account=policy.account, due_on=date(2026, 5, 20), amount_cents=17_340)
    ticket = ticket_about(policy, "Cancellation letter")

    run = tb.run(
        User(
            says="I got a letter saying my policy will be cancelled on Saturday. I can pay what's overdue right now "
            "by card. And while I'm at it, I'd like to add roadside assistance, the $75 per tow option.",
            knows=policyholder_facts(sunil, policy, **{"payment method": "card"}),
        ),
        golden=[
            *opening(sunil, policy, billing_account(policy)),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=17_340, method="card"),
            *rescind(policy),
            call("add_coverage", policy_id=policy.id, coverage="roadside_assistance", limit_cents=7_500),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    back = run.db.get(Policy, policy.id)
    assert (back.status, back.cancellation_effective_on) == ("active", None)  # policy: full past due paid
    account = run.db.get(BillingAccount, account_of(policy).id)
    assert (account.past_due_cents, account.balance_cents) == (0, 17_340)
    docs = run.db.query(Document).filter_by(policy_id=policy.id).all()
    assert [d.kind for d in docs] == ["cancellation_rescission_notice"]
    assert _added(run.db, policy.id, "roadside_assistance") == [("active", 7_500, date(2026, 5, 12), 1_200)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.two_requests
def test_case_AI020_004(tb):
    """Two policies: the Jeep's is cancelling at the end of May at the customer's request, the Accord's is active.
    Roadside at 150 dollars a tow is asked for both cars: added to the Accord's policy from today, refused for the
    Jeep's (no coverage is added to a policy that is not active).
    Rules combined: picking the policy each vehicle is on, the endorsement's active-status condition, its limit
    and start date, the refusal's reason."""
    marta, active = policyholder("Marta Eklund", "TX")
    jeep_policy = PolicyFactory(
        customer=marta,
        vehicle__vin=complete_vin("1C4HJXDG0MW612034"),
        vehicle__year=2021,
        vehicle__make="Jeep",
        vehicle__model="Wrangler",
        **cancelling(date(2026, 5, 31), "customer_request"),
    )
    ticket = TicketFactory(requester=marta, subject="Roadside for the Jeep")

    run = tb.run(
        User(
            says="Could you add roadside assistance, $150 per tow, for my Jeep Wrangler? I'm taking it on a road "
            "trip next week. And the same for my Accord, please; my son drives it to college in Lubbock.",
            knows=caller_facts(marta),
        ),
        golden=[
            *identify(marta),
            call("list_customer_policies", customer_id=marta.id),
            call("get_policy", policy_id=jeep_policy.id),
            call("get_policy", policy_id=active.id),
            call("list_tickets", requester_id=marta.id),
            call("add_coverage", policy_id=active.id, coverage="roadside_assistance", limit_cents=15_000),
            solved(ticket.id, "coverage", "not_eligible"),
        ],
        traps=[
            call("add_coverage", policy_id=jeep_policy.id, coverage="roadside_assistance", limit_cents=15_000),
        ],
        reply="Roadside assistance at $150 per tow is on the Accord's policy from today. I can't add it for the "
        "Wrangler: its policy is set to be cancelled on 31 May 2026, and coverage can only be added to an active "
        "policy.",
    )

    run.expect_golden()
    assert _added(run.db, jeep_policy.id, "roadside_assistance") == []  # policy: not active
    assert _added(run.db, active.id, "roadside_assistance") == [("active", 15_000, date(2026, 5, 12), 2_100)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", "not_eligible", None)
