"""Coverage changes and cancellations where several rules meet: state minimums read for the right policy, open
major claims on a vehicle already removed, a cancellation asked beside a blocked coverage change, the right policy
of two to cancel, reinstatement together with a new driver, and a removal on the 30-day boundary."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    add_driver,
    billing_account,
    cancel_at_request,
    check_licence,
    create_ticket,
    hold,
    identify,
    liability_limits,
    new_id,
    opening,
    opening_listed,
    policy_claims,
    policyholder_facts,
    reinstate,
    removal,
    remove_vehicle,
    solved,
    state_requirements,
)
from domains.auto_insurance.factories import (
    BillFactory,
    ClaimFactory,
    PaymentFactory,
    PolicyFactory,
    TicketFactory,
    VehicleFactory,
    account_of,
    cancelled,
    car_on,
    licence_record,
    major_claim,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import (
    BillingAccount,
    Coverage,
    Document,
    Driver,
    Policy,
    Ticket,
    TicketComment,
    Vehicle,
)
from domains.auto_insurance.replies import LAPSE
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Adding a driver",
    "Removing a vehicle or a driver",
    "Coverage changes",
    "Open major claims",
    "Cancelling at the customer's request",
    "Reinstatement after cancellation",
    "Payments",
    "Documents",
    "Ticket status, classification and priority",
)


def _coverage(db, policy_id, kind):
    return db.query(Coverage).filter_by(policy_id=policy_id, coverage=kind).one()


# --------------------------------------------------------------------------- AI003: coverage changes


@pytest.mark.distractors
def test_case_AI003_006(tb):
    """'The legal minimum' on the Florida policy, not the Georgia one the customer also has: Florida's recorded
    limits (10/20 and 10 thousand), which are below what Georgia would allow; the Georgia policy is not touched.
    Rules combined: the right policy of two, the state minimums of that policy's state, liability never below
    them."""
    wren, georgia = policyholder("Wren Castellanos", "GA")
    florida = PolicyFactory(
        customer=wren,
        state="FL",
        vehicle__vin=complete_vin("1C4RJFBG0MC733105"),
        vehicle__year=2021,
        vehicle__make="Jeep",
        vehicle__model="Grand Cherokee",
    )
    ticket = TicketFactory(requester=wren, subject="Lower my liability")

    run = tb.run(
        User(
            says="The Jeep at our place in Tampa barely gets driven, it sits there most of the year. Please cut its "
            "liability cover down to the legal minimum to save money. Don't touch the car I have here in Atlanta.",
            knows=caller_facts(wren),
        ),
        golden=[
            *opening_listed(wren, florida, state_requirements("FL")),
            liability_limits(florida, 1_000_000, 2_000_000),
            call("update_coverage", policy_id=florida.id, coverage="property_damage_liability", limit_cents=1_000_000),
            solved(ticket.id, "coverage"),
        ],
    )

    run.expect_golden()
    bi = _coverage(run.db, florida.id, "bodily_injury_liability")
    assert (bi.limit_cents, bi.limit_per_accident_cents) == (1_000_000, 2_000_000)  # Florida's minimums
    assert _coverage(run.db, florida.id, "property_damage_liability").limit_cents == 1_000_000
    assert _coverage(run.db, georgia.id, "bodily_injury_liability").limit_cents == 5_000_000  # untouched
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


@pytest.mark.two_requests
def test_case_AI003_007(tb):
    """Drop collision and medical payments: the only open major claim is on the Civic, which was removed from the
    policy in April; the claim is still on the policy and open, so the collision change is held for the claims team.
    Medical payments is not collision or comprehensive: nothing holds it back, so it is removed today.
    Rules combined: what counts as an open major claim (any vehicle of the policy, removed or not), which changes it
    blocks, a coverage removed, the ticket rule for several requests (hold, with a comment)."""
    abe, policy = policyholder("Abe Kowalczyk", "CO")
    civic = car_on(policy, "2HGFE2F50NH570312", 2022, "Honda", "Civic", date(2022, 7, 1), removed_on=date(2026, 4, 24))
    total = major_claim(
        civic,
        date(2026, 4, 9),
        "Rolled onto its side on an icy mountain road; towed, likely a total loss.",
        damage_cents=1_650_000,
    )
    ticket = ticket_about(policy, "Drop collision")

    run = tb.run(
        User(
            says="Since the Civic was totalled and taken off my policy, I only have the old Accord, which isn't "
            "worth much. Please drop the collision coverage, it's not worth paying for on that car, and drop the "
            "medical payments coverage too; my health plan covers me.",
            knows=caller_facts(abe),
        ),
        golden=[
            *opening_listed(abe, policy, policy_claims(policy), call("get_claim", claim_id=total.id)),
            call("remove_coverage", policy_id=policy.id, coverage="medical_payments"),
            *hold(
                ticket.id,
                "coverage",
                "open_major_claim",
                note=f"Customer asks to remove collision; open major claim {total.id} (the removed Civic) blocks it. "
                "Claims team to review. Medical payments removed today as asked.",
            ),
        ],
        reply="I've removed medical payments coverage from today. I can't remove collision yet: the claim for the "
        "Civic is still open and major, and while it is, the claims team must review any change to collision "
        "first. I've passed that request to them.",
        traps=[call("remove_coverage", policy_id=policy.id, coverage="collision")],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "collision").status == "active"  # policy: blocked by the open major claim
    medical = _coverage(run.db, policy.id, "medical_payments")
    assert (medical.status, medical.changed_on) == ("removed", date(2026, 5, 12))  # not held back by the claim
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "coverage", "open_major_claim", "claims")


@pytest.mark.two_requests
def test_case_AI003_008(tb):
    """Collision deductible down to $250 (only a minor claim is open: granted) and property damage down to $10,000
    in Texas (below the $25,000 minimum: refused, nothing else set in its place).
    Rules combined: deductible values, open major claims (a minor one does not block), state minimums, the ticket
    rule for several requests."""
    mira, policy = policyholder("Mira Solberg", "TX")
    minor_claim(
        policy.vehicles[0],
        date(2026, 5, 3),
        "Windshield chip spread into a crack.",
        damage_cents=39_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Coverage changes")

    run = tb.run(
        User(
            says="Two changes please: lower my collision deductible to $250, and cut my property damage liability "
            "to $10,000, I never drive anywhere busy.",
            knows=policyholder_facts(mira, policy),
        ),
        golden=[
            *opening(mira, policy, policy_claims(policy), state_requirements("TX")),
            call("update_coverage", policy_id=policy.id, coverage="collision", deductible_cents=25_000),
            solved(ticket.id, "coverage", "not_eligible"),
        ],
        reply="Your collision deductible is now $250. I can't lower property damage liability to $10,000: Texas "
        "requires at least $25,000, so that limit stays as it is.",
        traps=[  # a change she did not ask for, in place of the one refused
            call("update_coverage", policy_id=policy.id, coverage="property_damage_liability", limit_cents=2_500_000)
        ],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "collision").deductible_cents == 25_000  # a minor claim blocks nothing
    assert _coverage(run.db, policy.id, "property_damage_liability").limit_cents == 5_000_000  # policy: refused
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", "not_eligible", None)


# --------------------------------------------------------------------------- AI029: cancelling beside other changes


@pytest.mark.two_requests
def test_case_AI029_001(tb):
    """Cancel from 31 May (granted: an open major claim does not block a cancellation) and drop comprehensive
    until then (blocked by the open major theft claim): hold for the claims team under the coverage request.
    Rules combined: cancelling at the customer's request, open major claims, the ticket rule for several
    requests (hold, and the category and reason of the request not granted)."""
    lars, policy = policyholder("Lars Engstrom", "IL")
    theft = major_claim(
        policy.vehicles[0],
        date(2026, 4, 30),
        "Catalytic converter and wheels stolen overnight; car left on blocks.",
        damage_cents=None,
        loss_type="theft",
    )
    ticket = ticket_about(policy, "Cancel and reduce cover")

    run = tb.run(
        User(
            says="I'm moving to Amsterdam and want my policy cancelled from May 31st. Until then the car's sitting "
            "in the garage, so please drop the comprehensive coverage straight away to save a bit.",
            knows=policyholder_facts(lars, policy, **{"end date": "31 May 2026"}),
        ),
        golden=[
            *opening(lars, policy, policy_claims(policy)),
            cancel_at_request(policy, "2026-05-31"),
            *hold(
                ticket.id,
                "coverage",
                "open_major_claim",
                note=f"Customer asks to remove comprehensive until the 2026-05-31 cancellation; open major claim "
                f"{theft.id} blocks it. Claims team to review.",
            ),
        ],
        traps=[call("remove_coverage", policy_id=policy.id, coverage="comprehensive")],
    )

    run.expect_golden()
    ending = run.db.get(Policy, policy.id)
    assert (ending.status, ending.cancellation_effective_on, ending.cancellation_reason) == (
        "cancellation_scheduled",
        date(2026, 5, 31),
        "customer_request",
    )  # policy: a cancellation is not blocked by the claim
    assert _coverage(run.db, policy.id, "comprehensive").status == "active"  # policy: blocked by the open claim
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "coverage", "open_major_claim", "claims")


@pytest.mark.distractors
def test_case_AI010_003(tb):
    """Cancel the policy of the car being sold, not the other one: two active policies, the Tucson's ends on the
    handover date asked. No open ticket: a new one is opened.
    Rules combined: the right policy of two, a later cancellation date used as asked, ticket creation."""
    noor, keep = policyholder("Noor Haddad", "OH")
    tucson = PolicyFactory(
        customer=noor,
        vehicle__vin=complete_vin("KM8J3CA40KU104533"),
        vehicle__year=2019,
        vehicle__make="Hyundai",
        vehicle__model="Tucson",
    )
    old = ticket_about(keep, "Address change", status="solved", created_at=datetime(2026, 4, 2))
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="I'm selling the Tucson; the buyer collects it on May 23rd. Please cancel its insurance from that "
            "day. My other car stays insured as it is. And is anything still owed on the Tucson's policy?",
            knows=caller_facts(noor, **{"end date": "23 May 2026"}),
        ),
        golden=[
            *opening_listed(noor, tucson, billing_account(tucson)),
            create_ticket(noor, tucson, "Cancel the Tucson's policy from 23 May", "cancellation"),
            cancel_at_request(tucson, "2026-05-23"),
            solved(new_ticket),
        ],
    )

    run.expect_golden()
    ending = run.db.get(Policy, tucson.id)
    assert (ending.status, ending.cancellation_effective_on) == ("cancellation_scheduled", date(2026, 5, 23))
    assert run.db.get(Policy, keep.id).status == "active"  # the other policy is not cancelled
    created = run.db.get(Ticket, new_ticket)
    assert created.outcome == ("solved", "normal", "cancellation", None, None)
    assert (created.requester_id, created.policy_id) == (noor.id, tucson.id)


# --------------------------------------------------------------------------- AI006: reinstatement with a new driver


@pytest.mark.two_requests
def test_case_AI006_006(tb):
    """Cancelled for non-payment 22 days ago: the full past due is paid, the policy reinstated (notice sent), and
    the new partner, whose licence is valid, is added from today on the policy once it is in force again. No
    open ticket: one is opened.
    Rules combined: the 30-day window, full past-due payment, reinstatement notice, the licence check and the
    driver's start date, ticket creation."""
    rosa, policy = policyholder("Rosa Okonkwo", "AZ", **cancelled(date(2026, 4, 20)))
    BillFactory(account=policy.account, due_on=date(2026, 2, 25), amount_cents=11_870, status="paid")
    PaymentFactory(account=policy.account, amount_cents=11_870, received_at=datetime(2026, 2, 24, 9, 0))
    BillFactory(account=policy.account, due_on=date(2026, 3, 25), amount_cents=11_870, status="missed")
    samuel_licence = licence_record("Samuel Adeyemi", "AZ", "D22094417", date(1989, 10, 4))
    new_ticket = new_id("T-")

    run = tb.run(
        User(
            says="My policy was cancelled last month after I missed the March payment. I can pay what I owe right "
            "now by card. And once it's back, my partner Samuel moved in and will share the car, so he needs adding.",
            knows=policyholder_facts(
                rosa,
                policy,
                **{
                    "payment method": "card",
                    "partner's full name": "Samuel Adeyemi",
                    "partner's date of birth": "1989-10-04",
                    "partner's licence number": "D22094417",
                    "licence state": "AZ",
                },
            ),
        ),
        golden=[
            *opening(rosa, policy, billing_account(policy), check_licence(samuel_licence)),
            create_ticket(rosa, policy, "Reinstate policy and add a driver", "reinstatement"),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=11_870, method="card"),
            *reinstate(policy),
            add_driver(policy, samuel_licence, "other_household", "2026-05-12"),
            solved(new_ticket),
        ],
        reply="I've taken your card payment of $118.70 and reinstated your policy from today; the notice is in your "
        "email. The days from 20 April to 11 May 2026 are a lapse with no coverage. Samuel is now listed as a "
        "driver from today.",
    )

    run.expect_golden()
    back = run.db.get(Policy, policy.id)
    assert (back.status, back.lapse_start, back.lapse_end) == ("active", date(2026, 4, 20), date(2026, 5, 11))
    assert run.db.get(BillingAccount, account_of(policy).id).past_due_cents == 0
    samuel = run.db.query(Driver).filter_by(licence_number="D22094417").one()
    assert (samuel.effective_on, samuel.relation_to_insured) == (date(2026, 5, 12), "other_household")
    assert run.db.query(Document).one().kind == "reinstatement_notice"
    created = run.db.get(Ticket, new_ticket)
    assert created.outcome == ("solved", "normal", "reinstatement", None, None)
    assert (created.requester_id, created.policy_id) == (rosa.id, policy.id)
    run.rubric(LAPSE.text, phrases=LAPSE.phrases)


# --------------------------------------------------------------------------- AI009: removal on the boundary


@pytest.mark.distractors
def test_case_AI009_009(tb):
    """'Take off the Honda we sold': two Hondas on the policy, the customer reads the sold one's VIN (the Civic).
    Sold exactly 30 days ago with no later claim (the Accord's claim is after, but on the other car): the sale
    date still counts.
    Rules combined: the right vehicle of two alike, the 30-day limit on its last day, claims by vehicle."""
    eli, policy = policyholder("Eli Navarro", "GA")
    accord = policy.vehicles[0]
    civic_vin = complete_vin("2HGFE2F50NH570312")
    civic = VehicleFactory(
        policy=policy, vin=civic_vin, year=2022, make="Honda", model="Civic", acquired_on=date(2022, 6, 20)
    )
    slashed = minor_claim(
        accord, date(2026, 5, 1), "Tyres slashed outside the gym.", damage_cents=52_000, loss_type="vandalism"
    )
    ticket = ticket_about(policy, "Remove the sold Honda")

    run = tb.run(
        User(
            says="Please take off the Honda we sold, from the day we sold it. I've got the VIN here if you need it.",
            knows=policyholder_facts(eli, policy, **{"VIN of the sold car": civic_vin, "sale date": "12 April 2026"}),
        ),
        golden=[
            *opening(eli, policy, policy_claims(policy), call("get_claim", claim_id=slashed.id)),
            remove_vehicle(policy, civic, "2026-04-12"),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, civic) == ("removed", date(2026, 4, 12))  # 30 days ago: the sale date counts
    assert run.db.get(Vehicle, accord.id).status == "active"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI003_009(tb):
    """With a major claim open, the customer drops rental reimbursement and raises bodily injury to 100/300:
    an open major claim only blocks collision and comprehensive, so both changes are made (no hold).
    Rules combined: what an open major claim blocks, removing an optional coverage, raising a liability limit."""
    tess, policy = policyholder("Tess Ridgeway", "NY")
    ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 4, 22),
        severity="major",
        injuries=True,
        estimated_damage_cents=410_000,
        description="Side-impact collision at an intersection; the other driver was hurt.",
    )
    ticket = ticket_about(policy, "Change my coverages")

    run = tb.run(
        User(
            says="After that accident last month I want better liability cover: raise my bodily injury to $100,000 "
            "per person and $300,000 per accident. And drop the rental car coverage, my sister lends me her car.",
            knows=policyholder_facts(tess, policy),
        ),
        golden=[
            *opening(tess, policy, policy_claims(policy)),
            liability_limits(policy, 10_000_000, 30_000_000),
            call("remove_coverage", policy_id=policy.id, coverage="rental_reimbursement"),
            solved(ticket.id, "coverage"),
        ],
    )

    run.expect_golden()
    bi = _coverage(run.db, policy.id, "bodily_injury_liability")
    assert (bi.limit_cents, bi.limit_per_accident_cents) == (10_000_000, 30_000_000)
    assert _coverage(run.db, policy.id, "rental_reimbursement").status == "removed"  # not blocked by the claim
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


@pytest.mark.two_requests
def test_case_AI003_010(tb):
    """Comprehensive deductible up to $1,000 (an allowed value; the major claim on file is closed: granted) and
    collision down to $300, which is not a deductible we offer: refused, not rounded to $250 for her.
    Rules combined: the allowed deductibles, open major claims (a closed one does not block), no rounding in the
    customer's favour, the ticket rule for several requests."""
    ivy, policy = policyholder("Ivy Marchand", "AZ")
    major_claim(
        policy.vehicles[0],
        date(2025, 12, 2),
        "Rolled into a ditch on a gravel road; repaired.",
        damage_cents=720_000,
        closed_on=date(2026, 2, 10),
    )
    ticket = ticket_about(policy, "Deductibles")

    run = tb.run(
        User(
            says="I want to rebalance my deductibles: put comprehensive up to $1,000, and bring collision down to "
            "$300.",
            knows=policyholder_facts(ivy, policy),
        ),
        golden=[
            *identify(ivy),
            call("get_policy", policy_id=policy.id),
            call("search_policy", query="collision deductible amounts"),
            policy_claims(policy),
            call("list_tickets", requester_id=ivy.id),
            call("update_coverage", policy_id=policy.id, coverage="comprehensive", deductible_cents=100_000),
            solved(ticket.id, "coverage", "not_eligible"),
        ],
        reply="Your comprehensive deductible is now $1,000. I can't set collision to $300: deductibles come only in "
        "$250, $500, $1,000, $1,500 or $2,000, so your collision deductible stays at $500.",
        traps=[  # rounded to the nearest allowed value in her favour
            call("update_coverage", policy_id=policy.id, coverage="collision", deductible_cents=25_000)
        ],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "comprehensive").deductible_cents == 100_000
    assert _coverage(run.db, policy.id, "collision").deductible_cents == 50_000  # policy: $300 is not offered
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", "not_eligible", None)
