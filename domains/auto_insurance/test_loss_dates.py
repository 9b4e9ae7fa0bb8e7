"""Losses whose cover depends on dates kept elsewhere in the records: a past lapse, a vehicle already removed, a
cancellation scheduled or already in effect; and severity read from the facts when more than one rule applies."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    billing_account,
    create_ticket,
    file_claim,
    hold,
    new_id,
    opening,
    opening_listed,
    policy_claims,
    policyholder_facts,
    reinstate,
    rescind,
    solved,
)
from domains.auto_insurance.factories import (
    BillFactory,
    DriverFactory,
    PaymentFactory,
    account_of,
    cancelled,
    cancelling,
    car_on,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import Bill, BillingAccount, Claim, Document, Payment, Policy, Ticket, Vehicle
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Claims: first notice of loss",
    "Claim severity",
    "Payments",
    "Scheduled cancellation for non-payment",
    "Reinstatement after cancellation",
    "Documents",
    "Ticket status, classification and priority",
)


def _behind(policy, missed, amount_cents):
    """February's bill paid, the bills due on the `missed` dates not."""
    BillFactory(account=policy.account, due_on=date(2026, 2, 20), amount_cents=amount_cents, status="paid")
    PaymentFactory(account=policy.account, amount_cents=amount_cents, received_at=datetime(2026, 2, 19, 9, 0))
    for due in missed:
        BillFactory(account=policy.account, due_on=due, amount_cents=amount_cents, status="missed")


# --------------------------------------------------------------------------- AI027: losses and the dates of cover


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI027_001(tb):
    """Fence hit on 25 April, inside the lapse (20-28 April) left by last month's reinstatement: the policy is
    active today but was not on the loss date; nothing is filed. May's bill, which she pays now by card, is taken.
    Her only ticket is solved: open a new one.
    Rules combined: cover on the loss date (lapse dates), a payment the customer makes now, ticket creation, the
    refused report's reason."""
    vera, policy = policyholder(
        "Vera Lindqvist",
        "CO",
        reinstated_on=date(2026, 4, 29),
        lapse_start=date(2026, 4, 20),
        lapse_end=date(2026, 4, 28),
    )
    may = BillFactory(account=policy.account, due_on=date(2026, 5, 20), amount_cents=17_350)
    old = ticket_about(
        policy, "Reinstatement", status="solved", category="reinstatement", created_at=datetime(2026, 4, 29, 10, 30)
    )
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="I clipped a fence post backing out of my sister's driveway on April 25th and cracked a taillight "
            "and the bumper cover. I want to put in a claim. My policy is active, I sorted out the payments with "
            "you last month. And I'll pay May's bill now with my card, so I never fall behind again.",
            knows=policyholder_facts(
                vera,
                policy,
                **{
                    "date of the loss": "2026-04-25",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "I was",
                    "estimate": "about $900",
                    "payment method": "card",
                },
            ),
            persona="A customer who believes paying her arrears put everything right.",
            rules=("If refused, say once that the policy is active, so it should be covered.",),
        ),
        golden=[
            *opening(vera, policy, billing_account(policy)),
            create_ticket(vera, policy, "Claim for a loss on 25 April; May bill payment", "claim"),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=17_350, method="card"),
            solved(new_ticket, reason="not_covered"),
        ],
        reply="I've taken your card payment of $173.50 for May's bill. I'm sorry, I can't file the claim: your "
        "policy was reinstated on 29 April, and the days from 20 to 28 April were a lapse with no coverage. The loss "
        "on 25 April fell inside that lapse, so the car was not insured with us on that date.",
        traps=[
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-04-25",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Backed into a fence post; taillight and bumper cover cracked.",
                estimated_damage_cents=90_000,
                driver_id=policy.drivers[0].id,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Claim).count() == 0  # policy: a loss during a lapse is not covered
    assert run.db.get(Bill, may.id).status == "paid"  # the payment she made now
    assert run.db.query(Payment).filter_by(amount_cents=17_350, method="card").count() == 1
    created = run.db.get(Ticket, new_ticket)
    assert created.outcome == ("solved", "normal", "claim", "not_covered", None)
    assert (created.requester_id, created.policy_id) == (vera.id, policy.id)


def test_case_AI027_002(tb):
    """Loss on 29 April, the day the policy was reinstated (the lapse ended on the 28th): covered. The wife was
    driving and the car had to be towed: major, so filed with her driver id and held for the claims team.
    Rules combined: cover on the loss date (a lapse's last day), a listed driver, severity (not drivable), hold."""
    kofi, policy = policyholder(
        "Kofi Mensah", "GA", reinstated_on=date(2026, 4, 29), lapse_start=date(2026, 4, 14), lapse_end=date(2026, 4, 28)
    )
    wife = DriverFactory(
        policy=policy, full_name="Abena Mensah", date_of_birth=date(1986, 1, 12), relation_to_insured="spouse"
    )
    new_claim = new_id("CL-")
    ticket = ticket_about(policy, "Accident report")

    run = tb.run(
        User(
            says="My wife slid into a ditch on the evening of April 29th after the storm. Nobody was hurt but the "
            "car had to be towed out and the front suspension is broken. I'm not sure if she already called it in.",
            knows=policyholder_facts(
                kofi,
                policy,
                **{
                    "date of the loss": "2026-04-29",
                    "injuries": "nobody was hurt",
                    "drivable": "no, it was towed and can't be driven",
                    "who was driving": "my wife Abena",
                    "estimate": "no estimate yet",
                },
            ),
        ),
        golden=[
            *opening(kofi, policy, policy_claims(policy)),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-04-29",
                loss_type="collision",
                injuries=False,
                drivable=False,
                severity="major",
                description="Slid off a wet road into a ditch; towed out with broken front suspension.",
                driver_id=wife.id,
            ),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Major claim {new_claim} filed (vehicle not drivable). Claims team to call within 24 hours.",
            ),
        ],
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.loss_date, claim.severity, claim.drivable, claim.driver_id) == (
        date(2026, 4, 29),
        "major",
        False,
        wife.id,
    )  # policy: covered from the reinstatement day; not drivable is major
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


@pytest.mark.distractors
def test_case_AI027_003(tb):
    """Hail on 6 May hit both cars in the driveway, but the Camry was removed on 4 May (sold, not yet collected):
    only the Accord's loss is filed (minor); the Camry was not insured on that date.
    Rules combined: cover on the loss date (removed_on), which vehicle, severity, several requests."""
    lena, policy = policyholder("Lena Hoffmann", "TX")
    accord = policy.vehicles[0]
    camry = car_on(policy, "4T1B11HK0NU104533", 2022, "Toyota", "Camry", date(2022, 2, 11), removed_on=date(2026, 5, 4))
    ticket = ticket_about(policy, "Hail damage")

    run = tb.run(
        User(
            says="That hailstorm on May 6th dented both our cars: the Accord, and the Camry we'd sold, which was "
            "still sitting in the driveway waiting for the buyer. Can you open claims for both?",
            knows=policyholder_facts(
                lena,
                policy,
                **{
                    "date of the loss": "2026-05-06",
                    "injuries": "nobody was hurt",
                    "drivable": "both still drive",
                    "who was driving": "nobody, they were parked",
                    "Accord estimate": "$2,300",
                    "Camry estimate": "$1,800",
                },
            ),
        ),
        golden=[
            *opening(lena, policy, policy_claims(policy)),
            file_claim(
                policy,
                accord.id,
                loss_date="2026-05-06",
                loss_type="weather",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Hail dented the roof and hood while parked in the driveway.",
                estimated_damage_cents=230_000,
            ),
            solved(ticket.id, "claim", "not_covered"),
        ],
        traps=[
            file_claim(
                policy,
                camry.id,
                loss_date="2026-05-06",
                loss_type="weather",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Hail dented the Camry while parked in the driveway.",
                estimated_damage_cents=180_000,
            )
        ],
    )

    run.expect_golden()
    claim = run.db.query(Claim).one()  # policy: the Camry was removed before the loss
    assert (claim.vehicle_id, claim.loss_type, claim.severity) == (accord.id, "weather", "minor")
    assert run.db.get(Vehicle, camry.id).status == "removed"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


@pytest.mark.two_requests
def test_case_AI027_004(tb):
    """Deer hit yesterday on a policy scheduled for cancellation on 16 May: still in force, so the minor claim is
    filed; the customer then pays the full past due, so the cancellation is withdrawn with its notice.
    Rules combined: cover on the loss date (a scheduled cancellation not yet effective), severity, paying the
    full past due to stop a scheduled cancellation, documents."""
    ivan, policy = policyholder("Ivan Petrov", "OH", **cancelling(date(2026, 5, 16)))
    _behind(policy, [date(2026, 4, 20)], 17_340)
    ticket = ticket_about(policy, "Deer and my bill")

    run = tb.run(
        User(
            says="I hit a deer last night on the county road, the grille and a headlight are smashed. I know I got a "
            "cancellation letter too, I'm behind a month; is the deer even covered? I'll pay what's overdue right "
            "now by card so the policy doesn't get cancelled.",
            knows=policyholder_facts(
                ivan,
                policy,
                **{
                    "date of the loss": "2026-05-11",
                    "injuries": "nobody was hurt",
                    "drivable": "yes, it drives",
                    "who was driving": "I was",
                    "estimate": "the shop said $1,900",
                    "payment method": "card",
                },
            ),
        ),
        golden=[
            *opening(ivan, policy, billing_account(policy)),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-11",
                loss_type="animal",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Hit a deer on a county road; grille and a headlight smashed.",
                estimated_damage_cents=190_000,
                driver_id=policy.drivers[0].id,
            ),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=17_340, method="card"),
            *rescind(policy),
            solved(ticket.id, "claim"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(Claim).one()  # policy: in force until 16 May, so the 11 May loss is covered
    assert (claim.loss_type, claim.severity, claim.estimated_damage_cents) == ("animal", "minor", 190_000)
    kept = run.db.get(Policy, policy.id)
    assert (kept.status, kept.cancellation_effective_on) == ("active", None)
    assert run.db.get(BillingAccount, account_of(policy).id).past_due_cents == 0
    assert run.db.query(Document).one().kind == "cancellation_rescission_notice"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_AI027_005(tb):
    """Cancelled for non-payment on 4 May, crash on 9 May, customer pays the full past due: the policy is
    reinstated (8 days after, inside 30), but the crash fell in the lapse that reinstatement leaves, so no claim.
    Rules combined: the 30-day reinstatement window, full past-due payment, the lapse, cover on the loss date,
    the ticket rule for several requests (the claim is the one not granted)."""
    paloma, policy = policyholder("Paloma Ruiz", "FL", **cancelled(date(2026, 5, 4)))
    _behind(policy, [date(2026, 3, 20), date(2026, 4, 20)], 13_980)
    ticket = ticket_about(policy, "Accident and cancelled policy")

    run = tb.run(
        User(
            says="Someone ran a stop sign and hit my passenger door on May 9th. When I went to report it I found out "
            "my policy was cancelled on the 4th for missed payments! I'll pay everything I owe right now by card. "
            "Reinstate it and put the accident through, please.",
            knows=policyholder_facts(
                paloma,
                policy,
                **{
                    "date of the loss": "2026-05-09",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "I was",
                    "estimate": "$3,100",
                    "payment method": "card",
                },
            ),
            persona="A stressed driver who thinks paying up should make the accident covered.",
            rules=("If refused, ask once whether paying now makes the accident covered.",),
        ),
        golden=[
            *opening(paloma, policy, billing_account(policy), policy_claims(policy)),
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=27_960, method="card"),
            *reinstate(policy),
            solved(ticket.id, "claim", "not_covered"),
        ],
        reply="I've taken your card payment of $279.60, the full past-due amount, and reinstated your policy from "
        "today; the notice is in your email. But the days from 4 May to 11 May 2026 are a lapse with no coverage, "
        "and the accident on 9 May fell inside it, so I can't file a claim for it: the car was not insured with us "
        "on that date.",
        traps=[
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-09",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Passenger door hit by a driver who ran a stop sign.",
                estimated_damage_cents=310_000,
                driver_id=policy.drivers[0].id,
            )
        ],
    )

    run.expect_golden()
    back = run.db.get(Policy, policy.id)
    assert (back.status, back.lapse_start, back.lapse_end) == ("active", date(2026, 5, 4), date(2026, 5, 11))
    assert run.db.query(Payment).filter_by(amount_cents=27_960).count() == 1
    assert run.db.query(Claim).count() == 0  # policy: the loss date is inside the lapse
    assert run.db.query(Document).one().kind == "reinstatement_notice"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


# --------------------------------------------------------------------------- AI007 and AI012: severity


@pytest.mark.distractors
def test_case_AI007_008(tb):
    """'A tiny engine fire' in the second car, put out at once, car still drives, $700 estimate: a fire is major
    whatever the estimate; filed on the Outback (not the Accord) with the listed daughter as driver; hold.
    Rules combined: which vehicle and driver, loss type, severity (fire), hold for the claims team."""
    dara, policy = policyholder("Dara Quinlan", "IL")
    outback = car_on(policy, "4S4BTACC0L3170628", 2020, "Subaru", "Outback", date(2021, 5, 19))
    daughter = DriverFactory(
        policy=policy, full_name="Niamh Quinlan", date_of_birth=date(2007, 7, 7), relation_to_insured="child"
    )
    new_claim = new_id("CL-")
    ticket = ticket_about(policy, "Small fire in the car")

    run = tb.run(
        User(
            says="My daughter had a tiny engine fire in the Outback on Sunday, some wiring under the hood. She put it "
            "out with the extinguisher straight away and the car still drives. It's really minor, probably $700 to "
            "fix, but I guess I should report it.",
            knows=policyholder_facts(
                dara,
                policy,
                **{
                    "date of the loss": "2026-05-10",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "my daughter Niamh",
                    "estimate": "$700",
                },
            ),
        ),
        golden=[
            *opening_listed(dara, policy),
            file_claim(
                policy,
                outback.id,
                loss_date="2026-05-10",
                loss_type="fire",
                injuries=False,
                drivable=True,
                severity="major",
                description="Wiring fire under the hood, put out with an extinguisher.",
                estimated_damage_cents=70_000,
                driver_id=daughter.id,
            ),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Major claim {new_claim} filed (fire). Claims team to call the customer within 24 hours.",
            ),
        ],
        traps=[call("update_claim", claim_id=new_claim, severity="minor")],  # "it's really minor"
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.vehicle_id, claim.driver_id, claim.loss_type, claim.severity) == (
        outback.id,
        daughter.id,
        "fire",
        "major",
    )  # policy: a fire is major
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


def test_case_AI012_003(tb):
    """The body shop's new estimate is exactly $5,000 on an open minor claim: 500,000 cents or more is major, so
    the claim is updated, made major and held; a closed claim on the same car is left alone.
    Rules combined: new facts on the open claim (not the closed one), the 500,000-cent line, hold."""
    tomas, policy = policyholder("Tomas Eriksen", "NY")
    car = policy.vehicles[0]
    minor_claim(
        car,
        date(2025, 12, 3),
        "Windshield replaced.",
        damage_cents=45_000,
        loss_type="glass",
        closed_on=date(2025, 12, 19),
    )
    dent = minor_claim(car, date(2026, 5, 1), "Front bumper and hood dented by a reversing van.", damage_cents=260_000)
    ticket = ticket_about(policy, "Claim estimate went up")

    run = tb.run(
        User(
            says="The shop finished looking at my car from the van accident on May 1st. Their final estimate is "
            "$5,000 even, the radiator support is damaged too. The car still drives. Can you update the claim?",
            knows=policyholder_facts(tomas, policy, **{"new estimate": "$5,000"}),
        ),
        golden=[
            *opening(tomas, policy, policy_claims(policy), call("get_claim", claim_id=dent.id)),
            call("update_claim", claim_id=dent.id, severity="major", estimated_damage_cents=500_000),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Claim {dent.id} updated: estimate 500000 cents, now major. Claims team to call the customer "
                "within 24 hours.",
            ),
        ],
    )

    run.expect_golden()
    updated = run.db.get(Claim, dent.id)
    assert (updated.severity, updated.estimated_damage_cents) == ("major", 500_000)  # policy: 500,000 or more
    assert run.db.query(Claim).count() == 2
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


@pytest.mark.two_requests
def test_case_AI012_004(tb):
    """Two things: the passenger in last week's minor collision has since seen a doctor (an injury: the open claim
    becomes major), and a new windshield crack on the other car yesterday (a new minor glass claim). The major
    claim holds the ticket for the claims team.
    Rules combined: new facts go on the open claim (no second claim), severity (injury), a first notice of loss
    on the right vehicle, the ticket rule for several requests (hold outlasts solved)."""
    ines, policy = policyholder("Ines Carvalho", "CA")
    accord = policy.vehicles[0]
    prius = car_on(policy, "JTDKARFU0P3091847", 2023, "Toyota", "Prius", date(2023, 6, 2))
    bump = minor_claim(accord, date(2026, 5, 5), "Rear-ended at low speed at a stop light.", damage_cents=140_000)
    new_claim = new_id("CL-", bump)
    ticket = ticket_about(policy, "Claim update and new damage")

    run = tb.run(
        User(
            says="About the Accord claim from last week: my friend who was in the passenger seat went to a doctor "
            "on Friday and has whiplash. Also, yesterday a stone cracked the windshield of our Prius on the freeway, "
            "so I need to report that too.",
            knows=policyholder_facts(
                ines,
                policy,
                **{
                    "injuries": "my passenger has whiplash; nobody was hurt in the windshield incident",
                    "date of the windshield damage": "2026-05-11",
                    "drivable": "both cars can be driven",
                    "who was driving the Prius": "I was",
                    "windshield estimate": "$420",
                },
            ),
        ),
        golden=[
            *opening(ines, policy, policy_claims(policy)),
            call("update_claim", claim_id=bump.id, severity="major", injuries=True),
            file_claim(
                policy,
                prius.id,
                loss_date="2026-05-11",
                loss_type="glass",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Stone thrown up on the freeway cracked the windshield.",
                estimated_damage_cents=42_000,
                driver_id=policy.drivers[0].id,
            ),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Claim {bump.id} updated: passenger injured (whiplash), now major. Minor glass claim {new_claim} "
                "filed for the Prius. Claims team to call the customer within 24 hours.",
            ),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],  # closed although a claim is now major
    )

    run.expect_golden()
    updated = run.db.get(Claim, bump.id)
    assert (updated.severity, updated.injuries) == ("major", True)  # policy: an injury makes it major
    glass = run.db.get(Claim, new_claim)
    assert (glass.vehicle_id, glass.loss_type, glass.severity) == (prius.id, "glass", "minor")
    assert run.db.query(Claim).count() == 2  # policy: no second claim for the collision
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_AI027_006(tb):
    """Cancelled for non-payment 33 days ago: too late to reinstate, no payment taken. But the hit-and-run he
    reports happened on 2 April, while the policy was still in force: that claim is filed (minor) even though the
    policy is cancelled today.
    Rules combined: the 30-day reinstatement window, cover judged on the loss date (not today's status),
    severity, the ticket rule for several requests (the reinstatement is the one refused)."""
    raul, policy = policyholder("Raul Medina", "TX", **cancelled(date(2026, 4, 9)))
    _behind(policy, [date(2026, 3, 20)], 16_220)
    ticket = ticket_about(policy, "Reinstate and a claim")

    run = tb.run(
        User(
            says="I want my policy back, I can pay the overdue bill right now. And I never reported this: on April "
            "2nd someone hit my parked car and drove off, the rear bumper's cracked. I suppose that's not covered "
            "now that the policy's cancelled?",
            knows=policyholder_facts(
                raul,
                policy,
                **{
                    "payment method": "card",
                    "date of the loss": "2026-04-02",
                    "injuries": "nobody, the car was parked",
                    "drivable": "yes",
                    "who was driving": "nobody, it was parked",
                    "estimate": "$1,150",
                },
            ),
            rules=("If refused, ask once whether paying today changes that.",),
        ),
        golden=[
            *opening(raul, policy, billing_account(policy), policy_claims(policy)),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-04-02",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Parked car hit by a driver who left; rear bumper cracked.",
                estimated_damage_cents=115_000,
            ),
            solved(ticket.id, "reinstatement", "outside_window"),
        ],
        reply="I can't reinstate the policy: it was cancelled on 9 April 2026, more than 30 days ago, so you would "
        "need a new policy from our sales team, and I haven't taken any payment. The hit-and-run on 2 April "
        "happened while the policy was still in force, so I've filed that claim for you.",
        traps=[
            call("record_payment", billing_account_id=account_of(policy).id, amount_cents=16_220, method="card"),
            call("reinstate_policy", policy_id=policy.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Policy, policy.id).status == "cancelled"  # policy: 33 days, outside the window
    assert run.db.query(Payment).count() == 1  # only February's: no payment taken
    claim = run.db.query(Claim).one()  # policy: in force on the loss date
    assert (claim.loss_date, claim.severity, claim.estimated_damage_cents) == (date(2026, 4, 2), "minor", 115_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "reinstatement", "outside_window", None)


def test_case_AI007_009(tb):
    """The brother-in-law who hit a mailbox is on the driver list, but as an excluded driver, not a listed one: the
    claim is filed (the car was insured; coverage is the claims team's call) with no driver id; minor, solved.
    Rules combined: cover on the loss date, which drivers count as listed, severity, the desk not deciding
    coverage."""
    bo, policy = policyholder("Bo Lindqvist", "TX")
    dale = DriverFactory(
        policy=policy,
        full_name="Dale Hargrove",
        date_of_birth=date(1991, 12, 5),
        licence_status="suspended",
        relation_to_insured="other_household",
        status="excluded",
    )
    ticket = ticket_about(policy, "Mailbox accident")

    run = tb.run(
        User(
            says="My brother-in-law Dale took my car on Saturday without asking and clipped a neighbour's mailbox. "
            "He's on my policy, so please put the claim under him.",
            knows=policyholder_facts(
                bo,
                policy,
                **{
                    "date of the loss": "2026-05-09",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "Dale Hargrove",
                    "estimate": "$800 for the car and the mailbox",
                },
            ),
        ),
        golden=[
            *opening(bo, policy, call("get_driver", driver_id=dale.id)),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-09",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Car taken by the excluded brother-in-law, who clipped a neighbour's mailbox.",
                estimated_damage_cents=80_000,
            ),
            solved(ticket.id, "claim"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(Claim).one()
    assert (claim.driver_id, claim.severity, claim.estimated_damage_cents) == (None, "minor", 80_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)
