"""Total losses (removal from the loss date past an open major claim, the last vehicle and its replacement, the
credit of its premium) and principal drivers (a driver who leaves is removed only once their vehicle has another
principal driver with a valid licence, or goes with them)."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    add_driver,
    add_vehicle,
    cancel_at_request,
    check_licence,
    claim_payments,
    claim_record,
    create_ticket,
    decode_vin,
    hold,
    id_card,
    liability_limits,
    new_id,
    opening,
    policy_claims,
    policyholder_facts,
    premium_adjustments,
    removal,
    removal_credit,
    remove_driver,
    remove_vehicle,
    rental_days,
    solved,
    state_requirements,
)
from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    DriverFactory,
    PolicyFactory,
    car_on,
    licence_record,
    major_claim,
    minor_claim,
    policyholder,
    suspended,
    ticket_about,
)
from domains.auto_insurance.models import (
    ClaimPayment,
    Coverage,
    Document,
    Driver,
    Policy,
    PremiumAdjustment,
    Ticket,
    TicketComment,
    Vehicle,
)
from domains.auto_insurance.vin import complete_vin
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Removing a vehicle or a driver",
    "Principal drivers",
    "Total loss",
    "Coverage changes",
    "Open major claims",
    "Adding a vehicle: the VIN",
    "Adding a vehicle: the effective date",
    "Claim payments the desk makes",
    "Mid-term premium credits and refunds",
    "Documents",
    "Ticket status, classification and priority",
)

CRV = complete_vin("7FARS4H70SE031842")  # 2025 Honda CR-V


def _liability(db, policy_id):
    kinds = ("bodily_injury_liability", "property_damage_liability")
    return db.query(Coverage).filter(Coverage.policy_id == policy_id, Coverage.coverage.in_(kinds)).all()


# --------------------------------------------------------------------------- AI014: total loss


@pytest.mark.two_requests
def test_case_AI014_001(tb):
    """Camry declared a total loss on its open major claim: removed from the loss date (20 April) despite the open
    claim, its premium credited from that date; the rental while it sat at the shop is paid at the 4,000-cent daily
    limit for 20 days.
    Rules combined: the total-loss exception to the open-major-claim block, the removal date set by the loss date,
    the credit quoted from it, rental days and the daily limit."""
    jonas, policy = policyholder(
        "Jonas Ekwueme", "AZ", account__pay_plan="paid_in_full", vehicle__term_premium_cents=39_000
    )
    camry = car_on(policy, "4T1B11HK0NU615520", 2022, "Toyota", "Camry", date(2022, 1, 15), premium=42_000)
    claim = major_claim(
        camry,
        date(2026, 4, 20),
        "Broadsided by a pickup that ran a red light; frame bent, vehicle towed.",
        damage_cents=1_480_000,
        total_loss=True,
    )
    ticket = ticket_about(policy, "Camry written off")

    run = tb.run(
        User(
            says="Your adjuster wrote off my Camry after the crash on April 20th. Please take it off the policy from "
            "the crash, and I also have a rental bill to claim: I picked the rental up the day after the crash and "
            "returned it yesterday, at $45 a day.",
            knows=policyholder_facts(
                jonas,
                policy,
                **{
                    "claim number": claim.id,
                    "rental pick-up date": "21 April 2026",
                    "rental return date": "11 May 2026",
                    "daily rate": "$45.00",
                },
            ),
        ),
        golden=[
            *opening(jonas, policy, policy_claims(policy), claim_payments(claim)),
            *removal_credit(policy, camry, "2026-04-20", 23_900),
            rental_days(
                claim,
                derived(80_000, "20 days (21 April to 11 May) at the 4,000-cent daily limit, below $45"),
                derived(20, "11 May minus 21 April"),
            ),
            solved(ticket.id, "vehicle"),
        ],
        reply="The Camry is off your policy from 20 April 2026, the date of the loss, and $239.00 of unused premium "
        "is refunded to you. For the rental I've paid $800.00: 20 days at your coverage's daily limit of $40.00, "
        "which is less than the $45 you paid.",
    )

    run.expect_golden()
    assert removal(run.db, camry) == ("removed", date(2026, 4, 20))  # policy: total loss, from the loss date
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", camry.id, date(2026, 4, 20), 23_900, 0, 23_900)
    ]
    paid = run.db.query(ClaimPayment).filter_by(claim_id=claim.id).all()
    assert [(p.kind, p.amount_cents, p.days) for p in paid] == [("rental_reimbursement", 80_000, 20)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI014_002(tb):
    """The customer says the Outback is 'totalled', but its open major claim does not show a total loss: it is not
    removed; the request is held for the claims team. The rental she had while it could not be driven is paid: 6
    days at the 40-dollar daily limit (she paid 45), 24,000 cents.
    Rules combined: only the claims team declares a total loss, the open-major-claim block, rental for a vehicle
    that cannot be driven at the lower of the rate and the limit, the hold's reason, queue, priority and comment."""
    sofia, policy = policyholder("Sofia Brandt", "FL")
    outback = car_on(policy, "4S4BTAFC0N3190224", 2022, "Subaru", "Outback", date(2022, 7, 1), premium=33_000)
    claim = major_claim(
        outback,
        date(2026, 5, 4),
        "Flood water reached the seats during the storm; engine will not start.",
        damage_cents=910_000,
        loss_type="weather",
    )
    ticket = ticket_about(policy, "Flooded car")

    run = tb.run(
        User(
            says="My Outback was flooded in last week's storm. The body shop says it's totalled, no question. Take "
            "it off my policy today, I'm not paying to insure a car that's dead. And reimburse the rental I had "
            "while it sat at the shop: May 5th to yesterday, $45 a day. My sister lends me her car now.",
            knows=policyholder_facts(
                sofia,
                policy,
                **{
                    "claim number": claim.id,
                    "rental pick-up date": "5 May 2026",
                    "rental return date": "11 May 2026",
                    "daily rate": "$45.00",
                },
            ),
            persona="A frustrated customer who thinks the decision is obvious.",
            rules=(
                "If refused, insist once that the body shop already said the car is totalled.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(sofia, policy, policy_claims(policy), *claim_record(claim)),
            rental_days(
                claim,
                derived(24_000, "6 days at the 4,000-cent daily limit, below the 4,500-cent rate"),
                derived(6, "returned 11 May minus picked up 5 May"),
            ),
            *hold(
                ticket.id,
                "vehicle",
                "open_major_claim",
                note=f"Customer asks to remove the 2022 Subaru Outback; open major claim {claim.id} is not declared "
                "a total loss. Claims team to review. Rental of 6 days paid on the claim today.",
            ),
        ],
        reply="I've paid $240.00 for your rental: 6 days at your coverage's daily limit of $40. I can't take the "
        "Outback off yet: its claim is open and the claims team hasn't declared it a total loss, so they must review "
        "the request first. I've passed it to them.",
        traps=[remove_vehicle(policy, outback, "2026-05-12")],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, outback.id).status == "active"  # policy: not declared a total loss, claim open major
    assert run.db.query(PremiumAdjustment).count() == 0
    paid = run.db.query(ClaimPayment).filter_by(claim_id=claim.id).all()
    assert [(p.kind, p.amount_cents, p.days) for p in paid] == [("rental_reimbursement", 24_000, 6)]  # at the limit
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "vehicle", "open_major_claim", "claims")
    assert run.db.query(TicketComment).filter_by(ticket_id=ticket.id).count() == 1


def test_case_AI014_003(tb):
    """Only car a declared total loss; replacement CR-V bought 5 days ago (NY): add the CR-V from its purchase date
    (newly acquired beats the next-day rule), send its ID card, then remove the wreck from its loss date and refund
    its premium from then.
    Rules combined: the VIN check and model year, newly acquired cover, the last-vehicle rule met by adding first,
    the total-loss removal date, the credit, the ID card."""
    kofi, policy = policyholder(
        "Kofi Lindahl", "NY", account__pay_plan="paid_in_full", vehicle__term_premium_cents=52_000
    )
    wreck = policy.vehicles[0]
    major_claim(
        wreck,
        date(2026, 4, 26),
        "Engine fire on the Thruway shoulder; vehicle burned out.",
        damage_cents=2_100_000,
        total_loss=True,
        loss_type="fire",
    )
    ticket = ticket_about(policy, "Replacement car")
    new_vehicle = new_id("V-", *policy.vehicles)

    run = tb.run(
        User(
            says="After my car burned out last month and your people wrote it off, I bought a Honda CR-V on May 7th. "
            "Please put the CR-V on my policy and take the burned one off.",
            knows=policyholder_facts(
                kofi, policy, **{"VIN": CRV, "make": "Honda", "model": "CR-V", "purchase date": "7 May 2026"}
            ),
        ),
        golden=[
            *opening(kofi, policy, policy_claims(policy), decode_vin(CRV)),
            add_vehicle(policy, CRV, 2025, "Honda", "CR-V", acquired_on="2026-05-07", effective_on="2026-05-07"),
            id_card(policy, new_vehicle),
            *removal_credit(policy, wreck, "2026-04-26", 27_867),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    crv = run.db.get(Vehicle, new_vehicle)
    assert (crv.vin, crv.year, crv.acquired_on, crv.effective_on) == (CRV, 2025, date(2026, 5, 7), date(2026, 5, 7))
    assert removal(run.db, wreck) == ("removed", date(2026, 4, 26))  # policy: total loss, from the loss date
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", wreck.id, date(2026, 4, 26), 27_867, 0, 27_867)
    ]
    docs = run.db.query(Document).filter_by(policy_id=policy.id).all()
    assert [(d.kind, d.vehicle_id) for d in docs] == [("insurance_id_card", new_vehicle)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI014_004(tb):
    """Only car a declared total loss, no replacement yet, no open ticket: open one; the car is not removed (the
    policy keeps a vehicle) and nothing is cancelled since she did not ask to cancel. Her liability goes down to
    Ohio's legal minimums (25/50 and 25 thousand) as she asks: nothing holds back a liability change.
    Rules combined: a new ticket, the total-loss rule's last-vehicle limit, cancel only on request, the state's
    minimums read for "the legal minimum", the refusal's reason."""
    amara, policy = policyholder("Amara Quist", "OH", vehicle__term_premium_cents=47_000)
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 4, 30),
        "Rolled into a ditch avoiding a deer; roof crushed.",
        damage_cents=1_650_000,
        total_loss=True,
    )
    old = ticket_about(policy, "Claim filed", status="solved")
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="The claims people told me my Accord is a total loss. Can you take it off my policy from the "
            "accident? I'll be shopping for another car over the summer and want to keep my policy for it. Until "
            "then, lower my liability cover to the legal minimum; I won't be driving anyway.",
            knows=policyholder_facts(amara, policy, **{"claim number": claim.id}),
        ),
        golden=[
            *opening(amara, policy, policy_claims(policy), state_requirements("OH")),
            create_ticket(amara, policy, "Remove total-loss Accord; liability to the minimum", "vehicle"),
            liability_limits(policy, 2_500_000, 5_000_000),
            call("update_coverage", policy_id=policy.id, coverage="property_damage_liability", limit_cents=2_500_000),
            solved(new_ticket, reason="not_eligible"),
        ],
        traps=[cancel_at_request(policy, "2026-05-12")],
        reply="Your liability limits are now Ohio's legal minimums from today: $25,000 per person and $50,000 per "
        "accident for bodily injury, and $25,000 for property damage. Your Accord is the only vehicle on the "
        "policy, and a policy must keep at least one, so I can't take it off yet. When you buy the next car, call "
        "us: we'll add it and then remove the Accord from the date of the accident, 30 April 2026. I haven't "
        "cancelled anything.",
    )

    run.expect_golden()
    assert run.db.get(Vehicle, policy.vehicles[0].id).status == "active"  # policy: the only vehicle stays
    assert run.db.get(Policy, policy.id).status == "active"  # policy: nothing cancelled
    assert run.db.query(PremiumAdjustment).count() == 0
    limits = {c.coverage: (c.limit_cents, c.limit_per_accident_cents) for c in _liability(run.db, policy.id)}
    assert limits == {
        "bodily_injury_liability": (2_500_000, 5_000_000),
        "property_damage_liability": (2_500_000, None),
    }  # Ohio's recorded minimums
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "vehicle", "not_eligible", None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"


@pytest.mark.distractors
def test_case_AI014_005(tb):
    """Two claims: the Tucson's closed claim shows a total loss from 25 March, the Accord's open one does not. The
    Tucson comes off from its loss date although that is 48 days ago (the sale-date limit does not apply), and its
    premium is credited from then.
    Rules combined: the total-loss flag read on the right claim, the loss date over the 30-day sale limit, the
    credit quoted from the loss date."""
    elena, policy = policyholder(
        "Elena Moravec", "PA", account__pay_plan="paid_in_full", vehicle__term_premium_cents=38_500
    )
    minor_claim(
        policy.vehicles[0],
        date(2026, 5, 6),
        "Rear window smashed and door panels scratched in a parking garage.",
        damage_cents=95_000,
        loss_type="vandalism",
    )
    tucson = car_on(policy, "KM8J3CA40KU105529", 2019, "Hyundai", "Tucson", date(2019, 4, 4), premium=36_000)
    total = major_claim(
        tucson,
        date(2026, 3, 25),
        "Hit head-on by a wrong-way driver; airbags deployed, vehicle written off.",
        damage_cents=1_120_000,
        closed_on=date(2026, 4, 28),
        total_loss=True,
    )
    ticket = ticket_about(policy, "Written-off car still on policy")

    run = tb.run(
        User(
            says="My Tucson was written off after the head-on crash in March and the claim has been paid, but I see "
            "it's still on my policy. Please take it off and give me back the premium since it was wrecked.",
            knows=policyholder_facts(elena, policy, **{"claim number": total.id}),
        ),
        golden=[
            *opening(elena, policy, policy_claims(policy), call("get_claim", claim_id=total.id)),
            *removal_credit(policy, tucson, "2026-03-25", 25_657),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, tucson) == ("removed", date(2026, 3, 25))  # policy: total loss, from its loss date
    assert run.db.get(Vehicle, policy.vehicles[0].id).status == "active"
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", tucson.id, date(2026, 3, 25), 25_657, 0, 25_657)
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI014_006(tb):
    """Two requests: the total-loss Camry comes off from its loss date with its credit (the total-loss exception),
    but the collision deductible on the remaining car cannot change while that claim is open and major: held for
    the claims team under the coverage request.
    Rules combined: the total-loss removal and its credit, the open-major-claim block that still applies to
    deductibles, the ticket taking the held request's category, reason and queue."""
    petra, policy = policyholder("Petra Lindholm", "IL", vehicle__term_premium_cents=37_500)
    camry = car_on(policy, "4T1B11HK0NU622467", 2022, "Toyota", "Camry", date(2022, 2, 20), premium=40_000)
    claim = major_claim(
        camry,
        date(2026, 4, 18),
        "Struck by a delivery van that lost its brakes; passenger side caved in.",
        damage_cents=1_260_000,
        total_loss=True,
    )
    BillFactory(account=policy.account, due_on=date(2026, 5, 18), amount_cents=16_900)
    ticket = ticket_about(policy, "Written-off Camry and deductible")

    run = tb.run(
        User(
            says="Your adjuster declared my Camry a total loss, so please take it off the policy. And to save money "
            "I want the collision deductible on my Accord raised to $1,000.",
            knows=policyholder_facts(petra, policy, **{"claim number": claim.id}),
        ),
        golden=[
            *opening(petra, policy, policy_claims(policy), call("get_claim", claim_id=claim.id)),
            *removal_credit(policy, camry, "2026-04-18", 23_204),
            *hold(
                ticket.id,
                "coverage",
                "open_major_claim",
                note=f"Customer asks to raise the collision deductible to 100000 cents; blocked by open major claim "
                f"{claim.id} (the total-loss Camry, removed from 18 April and credited). Claims team to review.",
            ),
        ],
        traps=[call("update_coverage", policy_id=policy.id, coverage="collision", deductible_cents=100_000)],
    )

    run.expect_golden()
    assert removal(run.db, camry) == ("removed", date(2026, 4, 18))  # policy: total loss, from the loss date
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", camry.id, date(2026, 4, 18), 23_204, 16_900, 6_304)
    ]
    collision = run.db.query(Coverage).filter_by(policy_id=policy.id, coverage="collision").one()
    assert collision.deductible_cents == 50_000  # policy: the open major claim still blocks deductible changes
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "coverage", "open_major_claim", "claims")
    assert run.db.query(TicketComment).filter_by(ticket_id=ticket.id).count() == 1


# --------------------------------------------------------------------------- AI015: principal drivers


def _household(customer, state, child_name, child_licence, child_born):
    """A policy with the customer's Accord and the child's Civic, each assigned to its principal driver."""
    policy = PolicyFactory(customer=customer, state=state)
    insured = policy.drivers[0]
    policy.vehicles[0].principal_driver_id = insured.id
    child = DriverFactory(
        policy=policy,
        full_name=child_name,
        date_of_birth=child_born,
        licence_number=child_licence,
        relation_to_insured="child",
        effective_on=date(2026, 2, 1),
    )
    civic = car_on(
        policy, "2HGFE2F50NH570912", 2022, "Honda", "Civic", date(2024, 8, 30), premium=31_000, principal=child.id
    )
    return policy, insured, child, civic


def test_case_AI015_001(tb):
    """Son moved out on 25 April without the Civic he drives most; the mother will drive it: her licence checks out,
    so she becomes the Civic's principal driver, then the son is removed from today.
    Rules combined: the principal-driver reassignment before removal, the licence check on the new principal,
    removal from today rather than the move-out date."""
    ruth = CustomerFactory(name="Ruth Abernathy", state="CO")
    policy, insured, son, civic = _household(ruth, "CO", "Caleb Abernathy", "118204557", date(2003, 9, 17))
    licence_record(ruth.name, "CO", insured.licence_number, ruth.date_of_birth)
    ticket = ticket_about(policy, "Son moved out")

    run = tb.run(
        User(
            says="My son Caleb moved to Seattle on April 25th and left his Civic with me; I'll be the one driving it "
            "from now on. Please take him off the policy from the day he moved.",
            knows=policyholder_facts(ruth, policy, **{"move-out date": "25 April 2026"}),
        ),
        golden=[
            *opening(ruth, policy),
            call("check_licence", licence_number=insured.licence_number, licence_state="CO"),
            call("assign_principal_driver", policy_id=policy.id, vehicle_id=civic.id, driver_id=insured.id),
            remove_driver(policy, son, derived("2026-05-12", "drivers are removed from today, not the move-out date")),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, civic.id).principal_driver_id == insured.id  # policy: reassigned before removal
    assert removal(run.db, son) == ("removed", date(2026, 5, 12))  # policy: from today
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


@pytest.mark.two_requests
def test_case_AI015_002(tb):
    """Daughter moved out and took the Civic (title transferred 5 May): the Civic comes off from the transfer date
    with its premium credited, and she is removed from today; no new principal driver is needed.
    Rules combined: a departing principal driver who takes the vehicle, the vehicle's transfer date within 30 days
    with no claim after it, the credit, the driver's removal from today."""
    walter = CustomerFactory(name="Walter Nyberg", state="GA")
    policy, insured, daughter, civic = _household(walter, "GA", "Linnea Nyberg", "058833120", date(2001, 2, 6))
    ticket = ticket_about(policy, "Daughter moved out")

    run = tb.run(
        User(
            says="My daughter Linnea has her own place now and she took her Civic with her; I signed the title over "
            "to her on May 5th and she's getting her own insurance. Please take her and the Civic off my policy.",
            knows=policyholder_facts(walter, policy, **{"title transfer date": "5 May 2026"}),
        ),
        golden=[
            *opening(walter, policy, policy_claims(policy)),
            *removal_credit(policy, civic, "2026-05-05", 15_071),
            remove_driver(policy, daughter, derived("2026-05-12", "drivers are removed from today")),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, civic) == ("removed", date(2026, 5, 5))  # policy: no longer owned, 7 days ago
    assert premium_adjustments(run.db, policy.id) == [
        ("vehicle_removal_credit", civic.id, date(2026, 5, 5), 15_071, 0, 15_071)
    ]
    assert removal(run.db, daughter) == ("removed", date(2026, 5, 12))
    assert run.db.get(Vehicle, policy.vehicles[0].id).principal_driver_id == insured.id  # unchanged
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


@pytest.mark.pushback
def test_case_AI015_003(tb):
    """Son moved out; the customer names his wife for the Civic, listed as valid, but the state's record shows her
    licence suspended today, so she cannot take it over. His fallback, himself as the Civic's principal driver,
    qualifies (his licence checks out): he is assigned, then the son is removed from today; the request counts as
    granted, so the ticket is solved with no reason.
    Rules combined: the licence check on the new principal over the stale driver list, the reassignment before the
    removal, removal from today, the fallback the customer asks for."""
    henrik = CustomerFactory(name="Henrik Zapata", state="TX")
    policy, insured, son, civic = _household(henrik, "TX", "Mateo Zapata", "40117735", date(2004, 6, 2))
    licence_record(henrik.name, "TX", insured.licence_number, henrik.date_of_birth)
    wife = DriverFactory(
        policy=policy,
        full_name="Lucia Zapata",
        date_of_birth=date(1979, 10, 12),
        licence_number="27730418",
        relation_to_insured="spouse",
    )
    lucia_licence = licence_record(
        "Lucia Zapata", "TX", "27730418", date(1979, 10, 12), **suspended(date(2026, 6, 20), violations=3)
    )
    ticket = ticket_about(policy, "Remove son")

    run = tb.run(
        User(
            says="Our son Mateo moved out for college. My wife Lucia will drive his Civic from now on, so please "
            "take Mateo off the policy. If Lucia can't be the Civic's main driver for some reason, put me down for "
            "it instead.",
            knows=policyholder_facts(henrik, policy, **{"who drives the Civic now": "Lucia"}),
            persona="A customer who thinks the suspension is a technicality.",
            rules=("If the agent will not give the Civic to Lucia, ask once to go ahead with her anyway.",),
        ),
        golden=[
            *opening(henrik, policy),
            check_licence(lucia_licence),
            call("check_licence", licence_number=insured.licence_number, licence_state="TX"),
            call("assign_principal_driver", policy_id=policy.id, vehicle_id=civic.id, driver_id=insured.id),
            remove_driver(policy, son, derived("2026-05-12", "drivers are removed from today")),
            solved(ticket.id, "driver"),
        ],
        traps=[call("assign_principal_driver", policy_id=policy.id, vehicle_id=civic.id, driver_id=wife.id)],
        reply="The state's record shows Lucia's licence is suspended, so she can't be the Civic's main driver. As "
        "you asked, you are now the Civic's principal driver instead, and Mateo is off the policy from today.",
    )

    run.expect_golden()
    assert run.db.get(Vehicle, civic.id).principal_driver_id == insured.id  # policy: not Lucia, suspended today
    assert removal(run.db, son) == ("removed", date(2026, 5, 12))  # after the Civic was reassigned
    assert run.db.get(Driver, wife.id).status == "listed"  # nothing else changes for her
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)  # the fallback


@pytest.mark.two_requests
def test_case_AI015_004(tb):
    """Son moves out and the customer's partner moves in to drive the Civic: check and add the partner, make them the
    Civic's principal driver, then remove the son from today.
    Rules combined: adding a driver on a valid licence record, the new principal listed before assignment, the
    removal only after reassignment, removal from today."""
    dana = CustomerFactory(name="Dana Whitcombe", state="AZ")
    policy, _insured, son, civic = _household(dana, "AZ", "Eli Whitcombe", "D04417729", date(2005, 1, 30))
    sam_licence = licence_record("Sam Ortega", "AZ", "D09981342", date(1983, 8, 21))
    ticket = ticket_about(policy, "Household changes")
    new_driver = new_id("D-", *policy.drivers)

    run = tb.run(
        User(
            says="Big changes at home: my son Eli moved out last week, and my partner Sam Ortega has moved in. Sam "
            "will drive the Civic that Eli used to drive. Can you add Sam and take Eli off?",
            knows=policyholder_facts(
                dana,
                policy,
                **{
                    "Sam's full name": "Sam Ortega",
                    "Sam's date of birth": "1983-08-21",
                    "Sam's licence number": "D09981342",
                    "Sam's licence state": "AZ",
                    "relation": "partner living in the household",
                },
            ),
        ),
        golden=[
            *opening(dana, policy, check_licence(sam_licence)),
            add_driver(policy, sam_licence, "other_household", "2026-05-12"),
            call("assign_principal_driver", policy_id=policy.id, vehicle_id=civic.id, driver_id=new_driver),
            remove_driver(policy, son, "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    sam = run.db.get(Driver, new_driver)
    assert (sam.full_name, sam.effective_on, sam.relation_to_insured) == (
        "Sam Ortega",
        date(2026, 5, 12),
        "other_household",
    )
    assert run.db.get(Vehicle, civic.id).principal_driver_id == new_driver  # policy: reassigned before the removal
    assert removal(run.db, son) == ("removed", date(2026, 5, 12))
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


def test_case_AI015_005(tb):
    """Son moving out is the principal driver of two vehicles, the Civic the customer mentions and the old pickup:
    both need a new principal (the customer for the Civic, his wife for the pickup, each licence checked) before
    the son is removed.
    Rules combined: every vehicle of the departing driver reassigned, a licence check for each new principal, the
    removal from today only after both."""
    omar = CustomerFactory(name="Omar Castellano", state="CO")
    policy, insured, son, civic = _household(omar, "CO", "Nico Castellano", "120455871", date(2004, 3, 11))
    pickup = car_on(
        policy, "1FTEW1EP0NKD10295", 2022, "Ford", "F-150", date(2023, 1, 9), premium=29_800, principal=son.id
    )
    wife = DriverFactory(
        policy=policy,
        full_name="Ana Castellano",
        date_of_birth=date(1977, 12, 2),
        licence_number="097712345",
        relation_to_insured="spouse",
    )
    for number, holder, born in (
        (insured.licence_number, omar.name, omar.date_of_birth),
        ("097712345", "Ana Castellano", date(1977, 12, 2)),
    ):
        licence_record(holder, "CO", number, born)
    ticket = ticket_about(policy, "Son leaving home")

    run = tb.run(
        User(
            says="Our son Nico is moving out for good this week and isn't taking any car. I'll drive his Civic from "
            "now on. Please take him off the policy.",
            knows=policyholder_facts(omar, policy, **{"who will drive the pickup": "my wife Ana will drive the F-150"}),
        ),
        golden=[
            *opening(omar, policy),
            call("check_licence", licence_number=insured.licence_number, licence_state="CO"),
            call("check_licence", licence_number="097712345", licence_state="CO"),
            call("assign_principal_driver", policy_id=policy.id, vehicle_id=civic.id, driver_id=insured.id),
            call("assign_principal_driver", policy_id=policy.id, vehicle_id=pickup.id, driver_id=wife.id),
            remove_driver(policy, son, "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, civic.id).principal_driver_id == insured.id
    assert run.db.get(Vehicle, pickup.id).principal_driver_id == wife.id  # policy: every vehicle he drove most
    assert removal(run.db, son) == ("removed", date(2026, 5, 12))
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)
