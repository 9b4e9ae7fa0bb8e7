"""Coverage changes blocked or not by open major claims, and first notice of loss with severity and cover dates."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.factories import (
    ClaimFactory,
    CustomerFactory,
    PolicyFactory,
    TicketFactory,
    VehicleFactory,
    caller_knows,
)
from domains.auto_insurance.models import Claim, Coverage, Ticket, TicketComment
from domains.auto_insurance.vin import complete_vin
from pytest_thinkingbox import User, call


def _verify(customer):
    return call(
        "verify_identity",
        email=customer.email,
        date_of_birth=customer.date_of_birth.isoformat(),
        postal_code=customer.postal_code,
    )


def _coverage(db, policy_id, kind):
    return db.query(Coverage).filter_by(policy_id=policy_id, coverage=kind).one()


# --------------------------------------------------------------------------- AI003: coverage changes and claims


def test_case_AI003_001(tb):
    """Drop collision with a major claim on file that is already closed: nothing blocks it, so remove it."""
    mei = CustomerFactory(name="Mei Castillo", state="AZ")
    policy = PolicyFactory(customer=mei)
    ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 1, 9),
        severity="major",
        status="closed",
        drivable=False,
        estimated_damage_cents=820_000,
        closed_on=date(2026, 3, 20),
        description="Side impact at an intersection; vehicle towed and repaired.",
    )
    ticket = TicketFactory(requester=mei, policy_id=policy.id, subject="Lower my premium")

    run = tb.run(
        User(
            says="I want to cut my premium. Please take collision coverage off my policy, I'll keep everything else.",
            knows=caller_knows(mei, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=mei.email),
            _verify(mei),
            call("get_policy", policy_id=policy.id),
            call("list_policy_claims", policy_id=policy.id),
            call("list_tickets", requester_id=mei.id),
            call("remove_coverage", policy_id=policy.id, coverage="collision"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    collision = _coverage(run.db, policy.id, "collision")
    assert (collision.status, collision.changed_on) == ("removed", date(2026, 5, 12))


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the car's crash claim is open and major, so the deductible change waits for the claims team: hold, "
        "priority high and one internal note is exactly the policy's ending here (the note's wording is free text); "
        "the update_coverage trap catches the agent who raises the deductible as asked"
    }
)
def test_case_AI003_002(tb):
    """Raise the collision deductible while the car's crash claim is open and major: no change; hold, high."""
    connor = CustomerFactory(name="Connor Delgado", state="IL")
    policy = PolicyFactory(customer=connor)
    claim = ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 4, 27),
        severity="major",
        drivable=False,
        estimated_damage_cents=740_000,
        description="Rear-ended a box truck on I-55; front end crushed, vehicle towed.",
    )
    ticket = TicketFactory(requester=connor, policy_id=policy.id, subject="Change deductible")

    run = tb.run(
        User(
            says="I'd like to raise my collision deductible to $1,000 starting today, the premium is too high.",
            knows=caller_knows(connor, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=connor.email),
            _verify(connor),
            call("get_policy", policy_id=policy.id),
            call("list_policy_claims", policy_id=policy.id),
            call("list_tickets", requester_id=connor.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body=f"Customer asks to raise the collision deductible to 100000 cents; blocked by open major claim "
                f"{claim.id}. Claims team to review.",
                public=False,
            ),
        ],
        traps=[call("update_coverage", policy_id=policy.id, coverage="collision", deductible_cents=100_000)],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "collision").deductible_cents == 50_000  # policy: blocked by the claim
    held = run.db.get(Ticket, ticket.id)
    assert (held.status, held.priority) == ("hold", "high")


def test_case_AI003_003(tb):
    """Raise the comprehensive deductible with only a minor glass claim open: not a major claim, so change it."""
    brianna = CustomerFactory(name="Brianna Osei", state="NY")
    policy = PolicyFactory(customer=brianna)
    ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 5, 3),
        loss_type="glass",
        severity="minor",
        estimated_damage_cents=42_000,
        description="Windshield cracked by a stone on the Thruway.",
    )
    ticket = TicketFactory(requester=brianna, policy_id=policy.id, subject="Comprehensive deductible")

    run = tb.run(
        User(
            says="Can I raise my comprehensive deductible to $1,000? I know I have a windshield claim going on, "
            "does that stop me?",
            knows=caller_knows(brianna, **{"policy number": policy.id}),
        ),
        golden=[
            call("find_customer_by_email", email=brianna.email),
            _verify(brianna),
            call("get_policy", policy_id=policy.id),
            call("list_policy_claims", policy_id=policy.id),
            call("list_tickets", requester_id=brianna.id),
            call("update_coverage", policy_id=policy.id, coverage="comprehensive", deductible_cents=100_000),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "comprehensive").deductible_cents == 100_000
    assert run.db.query(TicketComment).count() == 0


# --------------------------------------------------------------------------- AI007: first notice of loss


def test_case_AI007_001(tb):
    """Parking-lot bump, drivable, no injuries, $1,450 estimate: a minor collision claim; ticket solved."""
    luis = CustomerFactory(name="Luis Abbott", state="TX")
    policy = PolicyFactory(customer=luis)
    vehicle, driver = policy.vehicles[0], policy.drivers[0]
    ticket = TicketFactory(requester=luis, policy_id=policy.id, subject="Report an accident")

    run = tb.run(
        User(
            says="I backed into a concrete pole at the grocery store yesterday and dented my rear bumper and a "
            "taillight. I need to open a claim.",
            knows=caller_knows(
                luis,
                **{
                    "policy number": policy.id,
                    "date of the accident": "2026-05-11",
                    "injuries": "nobody was hurt, I was alone",
                    "drivable": "yes, the car drives fine",
                    "who was driving": "I was driving",
                    "estimate": "the body shop quoted $1,450",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=luis.email),
            _verify(luis),
            call("get_policy", policy_id=policy.id),
            call("list_tickets", requester_id=luis.id),
            call(
                "file_claim",
                policy_id=policy.id,
                vehicle_id=vehicle.id,
                loss_date="2026-05-11",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Backed into a concrete pole in a parking lot; rear bumper and taillight damaged.",
                estimated_damage_cents=145_000,
                driver_id=driver.id,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(Claim).one()
    assert (claim.severity, claim.status, claim.estimated_damage_cents) == ("minor", "open", 145_000)


def test_case_AI007_002(tb):
    """'Just a small bump', but a passenger went to urgent care: injuries make it major; ticket on hold, high."""
    harper = CustomerFactory(name="Harper Kowalski", state="OH")
    policy = PolicyFactory(customer=harper)
    vehicle, driver = policy.vehicles[0], policy.drivers[0]
    ClaimFactory(
        vehicle=vehicle,
        loss_date=date(2025, 9, 14),
        loss_type="glass",
        status="closed",
        estimated_damage_cents=38_000,
        closed_on=date(2025, 10, 2),
        description="Windshield chip repaired.",
    )
    new_claim = "CL-70402"
    ticket = TicketFactory(requester=harper, policy_id=policy.id, subject="Minor accident")

    run = tb.run(
        User(
            says="Someone tapped my back bumper at a red light on Sunday. It's just a small bump, really, but I "
            "should probably report it.",
            knows=caller_knows(
                harper,
                **{
                    "policy number": policy.id,
                    "date of the accident": "2026-05-10",
                    "injuries": "my daughter was in the passenger seat and had neck pain, we took her to urgent "
                    "care that evening",
                    "drivable": "yes, I drove it home",
                    "who was driving": "I was driving",
                    "estimate": "I don't have an estimate yet",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=harper.email),
            _verify(harper),
            call("get_policy", policy_id=policy.id),
            call("list_tickets", requester_id=harper.id),
            call(
                "file_claim",
                policy_id=policy.id,
                vehicle_id=vehicle.id,
                loss_date="2026-05-10",
                loss_type="collision",
                injuries=True,
                drivable=True,
                severity="major",
                description="Rear-ended at a red light; passenger (daughter) treated at urgent care for neck pain.",
                driver_id=driver.id,
            ),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body=f"Major claim {new_claim} filed (passenger injured). Claims team to call the customer within "
                "24 hours.",
                public=False,
            ),
        ],
        traps=[call("update_claim", claim_id=new_claim, severity="minor")],  # "just a small bump, really"
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.severity, claim.injuries) == ("major", True)  # policy: an injured passenger makes it major
    assert run.db.get(Ticket, ticket.id).status == "hold"


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the F-150 was effective from 10 May 2026 and the deer hit it on 8 May, so the policy files no "
        "claim, tells the customer it was not insured then and closes the ticket as solved; the file_claim trap "
        "catches the agent who opens the claim because the truck is on the policy now"
    }
)
def test_case_AI007_003(tb):
    """Deer hit with the new truck two days before it was added to the policy: not covered then; file nothing."""
    dwayne = CustomerFactory(name="Dwayne Nakamura", state="TX")
    policy = PolicyFactory(customer=dwayne)
    truck_vin = complete_vin("1FTEW1EP0NKD09318")
    truck = VehicleFactory(
        policy=policy,
        vin=truck_vin,
        year=2022,
        make="Ford",
        model="F-150",
        acquired_on=date(2026, 4, 15),
        effective_on=date(2026, 5, 10),
    )
    ticket = TicketFactory(requester=dwayne, policy_id=policy.id, subject="Deer collision")

    run = tb.run(
        User(
            says="I hit a deer with my new F-150 on Friday night. The grille and a headlight are smashed. I added "
            "the truck to my policy, so please open a claim.",
            knows=caller_knows(
                dwayne,
                **{
                    "policy number": policy.id,
                    "date of the accident": "2026-05-08",
                    "injuries": "no one was hurt",
                    "drivable": "yes, it still drives",
                    "who was driving": "I was driving",
                    "estimate": "about $3,200",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=dwayne.email),
            _verify(dwayne),
            call("get_policy", policy_id=policy.id),
            call("list_tickets", requester_id=dwayne.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I added the truck to my policy, so please open a claim"
            call(
                "file_claim",
                policy_id=policy.id,
                vehicle_id=truck.id,
                loss_date="2026-05-08",
                loss_type="animal",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Hit a deer at night; grille and a headlight smashed.",
                estimated_damage_cents=320_000,
                driver_id=policy.drivers[0].id,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Claim).count() == 0  # policy: the truck was not covered on the loss date
    assert run.db.get(Ticket, ticket.id).status == "solved"
