"""Coverage changes blocked or not by open major claims, first notice of loss with severity and cover dates, and
new facts on open claims."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    add_vehicle,
    create_ticket,
    decode_vin,
    file_claim,
    hold,
    id_card,
    identify,
    liability_limits,
    new_id,
    opening,
    policy_claims,
    policyholder_facts,
    solved,
    state_requirements,
)
from domains.auto_insurance.factories import (
    ClaimFactory,
    CustomerFactory,
    PolicyFactory,
    TicketFactory,
    VehicleFactory,
    car_on,
    major_claim,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import Claim, Coverage, Document, Ticket, TicketComment, Vehicle
from domains.auto_insurance.replies import policyholder_must_call
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Coverage changes",
    "Open major claims",
    "Claims: first notice of loss",
    "Claim severity",
    "Adding a vehicle: the effective date",
    "Documents",
    "Ticket status, classification and priority",
)

CX5 = complete_vin("JM3KFBCM0T1540217")  # 2026 Mazda CX-5
TRUCK = complete_vin("1FTEW1EP0PKD33572")  # 2023 Ford F-150


def _coverage(db, policy_id, kind):
    return db.query(Coverage).filter_by(policy_id=policy_id, coverage=kind).one()


# --------------------------------------------------------------------------- AI003: coverage changes and claims


def test_case_AI003_001(tb):
    """Drop collision with a major claim on file that is already closed: nothing blocks it, so remove it."""
    mei, policy = policyholder("Mei Castillo", "AZ")
    major_claim(
        policy.vehicles[0],
        date(2026, 1, 9),
        "Side impact at an intersection; vehicle towed and repaired.",
        damage_cents=820_000,
        closed_on=date(2026, 3, 20),
    )
    ticket = ticket_about(policy, "Lower my premium")

    run = tb.run(
        User(
            says="I want to cut my premium; it went up again this year. Please take collision coverage off my "
            "policy, I'll keep everything else as it is. The car is paid off and I'd rather take the risk "
            "myself.",
            knows=policyholder_facts(mei, policy),
        ),
        golden=[
            *opening(mei, policy, policy_claims(policy)),
            call("remove_coverage", policy_id=policy.id, coverage="collision"),
            solved(ticket.id, "coverage"),
        ],
    )

    run.expect_golden()
    collision = _coverage(run.db, policy.id, "collision")
    assert (collision.status, collision.changed_on) == (
        "removed",
        date(2026, 5, 12),
    )  # policy: a closed claim blocks nothing
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


@pytest.mark.two_requests
def test_case_AI003_002(tb):
    """Raise the collision deductible while the car's crash claim is open and major: no change, hold for the claims
    team (high). The bodily injury limits he also asks to raise to 100/300 thousand are changed: an open major claim
    holds back only collision and comprehensive.
    Rules combined: the open-major-claim block and what it covers, a liability limit raised, the ticket rule for
    several requests (the hold outlasts the change)."""
    connor, policy = policyholder("Connor Delgado", "IL")
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 4, 27),
        "Rear-ended a box truck on I-55; front end crushed, vehicle towed.",
        damage_cents=740_000,
    )
    ticket = ticket_about(policy, "Change deductible")

    run = tb.run(
        User(
            says="After the crash last month I've been rethinking my cover. I'd like to raise my collision deductible "
            "to $1,000 starting today, to bring the premium down, and raise my bodily injury liability to $100,000 "
            "per person and $300,000 per accident. I know the car is in the shop, but that shouldn't matter for "
            "either, should it?",
            knows=policyholder_facts(connor, policy),
        ),
        golden=[
            *opening(connor, policy, policy_claims(policy)),
            liability_limits(policy, 10_000_000, 30_000_000),
            *hold(
                ticket.id,
                "coverage",
                "open_major_claim",
                note=f"Customer asks to raise the collision deductible to 100000 cents; blocked by open major claim "
                f"{claim.id}. Claims team to review. Bodily injury limits raised today as asked.",
            ),
        ],
        reply="Your bodily injury limits are now $100,000 per person and $300,000 per accident, from today. The "
        "collision deductible I can't change yet: your crash claim is still open and major, so the claims team has "
        "to review that request first. I've passed it to them.",
        traps=[call("update_coverage", policy_id=policy.id, coverage="collision", deductible_cents=100_000)],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "collision").deductible_cents == 50_000  # policy: blocked by the claim
    bodily = _coverage(run.db, policy.id, "bodily_injury_liability")
    assert (bodily.limit_cents, bodily.limit_per_accident_cents) == (10_000_000, 30_000_000)  # not blocked
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "coverage", "open_major_claim", "claims")
    assert run.db.query(TicketComment).filter_by(ticket_id=ticket.id).count() == 1


def test_case_AI003_003(tb):
    """Raise the comprehensive deductible with only a minor glass claim open: not a major claim, so change it."""
    brianna, policy = policyholder("Brianna Osei", "NY")
    minor_claim(
        policy.vehicles[0],
        date(2026, 5, 3),
        "Windshield cracked by a stone on the Thruway.",
        damage_cents=42_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Comprehensive deductible")

    run = tb.run(
        User(
            says="Can I raise my comprehensive deductible to $1,000? I'm trying to bring my premium down. I know I"
            " have a windshield claim going on at the moment, does that stop me from changing it?",
            knows=policyholder_facts(brianna, policy),
        ),
        golden=[
            *opening(brianna, policy, policy_claims(policy)),
            call("update_coverage", policy_id=policy.id, coverage="comprehensive", deductible_cents=100_000),
            solved(ticket.id, "coverage"),
        ],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "comprehensive").deductible_cents == 100_000  # policy: a minor claim
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


def test_case_AI003_004(tb):
    """Liability to 'the legal minimum': Texas's recorded limits, not the customer's 25/50/25; med pay removed."""
    theo, policy = policyholder("Theo Brennan", "TX")
    ticket = ticket_about(policy, "Cheaper cover")

    run = tb.run(
        User(
            says="I'm retired and barely drive any more. Please cut my liability cover down to the legal minimum "
            "for Texas, which I believe is 25/50/25, and take the medical payments coverage off completely. "
            "Leave everything else alone.",
            knows=policyholder_facts(theo, policy),
        ),
        golden=[
            *opening(theo, policy, state_requirements("TX")),
            liability_limits(policy, 3_000_000, 6_000_000),
            call("update_coverage", policy_id=policy.id, coverage="property_damage_liability", limit_cents=2_500_000),
            call("remove_coverage", policy_id=policy.id, coverage="medical_payments"),
            solved(ticket.id, "coverage"),
        ],
        reply="Done. Texas's legal minimums are $30,000 per person and $60,000 per accident for bodily injury and "
        "$25,000 for property damage, so those are your new liability limits from today, and medical payments "
        "coverage is removed.",
    )

    run.expect_golden()
    bodily = _coverage(run.db, policy.id, "bodily_injury_liability")
    assert (bodily.limit_cents, bodily.limit_per_accident_cents) == (3_000_000, 6_000_000)  # TX's, not 25/50
    assert _coverage(run.db, policy.id, "property_damage_liability").limit_cents == 2_500_000
    assert _coverage(run.db, policy.id, "medical_payments").status == "removed"
    assert _coverage(run.db, policy.id, "collision").status == "active"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "coverage", None, None)


@pytest.mark.two_requests
def test_case_AI003_005(tb):
    """Declarations page sent; comprehensive removal held for claims, a hail claim is open and major."""
    rafael, policy = policyholder("Rafael Osei", "CO")
    claim = ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 4, 29),
        loss_type="weather",
        severity="major",
        estimated_damage_cents=640_000,
        description="Hailstorm dented the roof, hood and trunk and broke the rear window.",
    )
    ticket = ticket_about(policy, "Dec page and comprehensive")

    run = tb.run(
        User(
            says="Could you email me a copy of my declarations page? My lender wants it. And since the car is sitting "
            "in the body shop after that hailstorm anyway, please take comprehensive off for now to save me some "
            "money.",
            knows=policyholder_facts(rafael, policy),
        ),
        golden=[
            *opening(rafael, policy, policy_claims(policy)),
            call("send_document", policy_id=policy.id, kind="declarations_page"),
            *hold(
                ticket.id,
                "coverage",
                "open_major_claim",
                note=f"Customer asks to remove comprehensive; blocked by open major hail claim {claim.id}. "
                "Declarations page sent. Claims team to review.",
            ),
        ],
        traps=[call("remove_coverage", policy_id=policy.id, coverage="comprehensive")],
    )

    run.expect_golden()
    assert _coverage(run.db, policy.id, "comprehensive").status == "active"  # policy: blocked by the open claim
    assert run.db.query(Document).one().kind == "declarations_page"
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "coverage", "open_major_claim", "claims")


# --------------------------------------------------------------------------- AI007: first notice of loss


def test_case_AI007_001(tb):
    """Parking-lot bump, drivable, no injuries, $1,450 estimate: a minor collision claim; ticket solved."""
    luis, policy = policyholder("Luis Abbott", "TX")
    vehicle, driver = policy.vehicles[0], policy.drivers[0]
    ticket = ticket_about(policy, "Report an accident")

    run = tb.run(
        User(
            says="I backed into a concrete pole at the grocery store yesterday and dented my rear bumper and a "
            "taillight. Nobody else was involved, it was just me being careless. I need to open a claim for "
            "the repair.",
            knows=policyholder_facts(
                luis,
                policy,
                **{
                    "date of the accident": "2026-05-11",
                    "injuries": "nobody was hurt, I was alone",
                    "drivable": "yes, the car drives fine",
                    "who was driving": "I was driving",
                    "estimate": "the body shop quoted $1,450",
                },
            ),
        ),
        golden=[
            *opening(luis, policy),
            file_claim(
                policy,
                vehicle.id,
                loss_date="2026-05-11",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Backed into a concrete pole in a parking lot; rear bumper and taillight damaged.",
                estimated_damage_cents=145_000,
                driver_id=driver.id,
            ),
            solved(ticket.id, "claim"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(Claim).one()
    assert (claim.severity, claim.status, claim.estimated_damage_cents) == ("minor", "open", 145_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


def test_case_AI007_002(tb):
    """'Just a small bump', but a passenger went to urgent care: injuries make it major; ticket on hold, high."""
    harper, policy = policyholder("Harper Kowalski", "OH")
    vehicle, driver = policy.vehicles[0], policy.drivers[0]
    earlier = minor_claim(
        vehicle,
        date(2025, 9, 14),
        "Windshield chip repaired.",
        damage_cents=38_000,
        loss_type="glass",
        closed_on=date(2025, 10, 2),
    )
    new_claim = new_id("CL-", earlier)
    ticket = ticket_about(policy, "Minor accident")

    run = tb.run(
        User(
            says="Someone tapped my back bumper at a red light on Sunday. It's just a small bump, really, hardly a"
            " scratch on the car, but the other driver gave me his details and I should probably report it.",
            knows=policyholder_facts(
                harper,
                policy,
                **{
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
            *opening(harper, policy),
            file_claim(
                policy,
                vehicle.id,
                loss_date="2026-05-10",
                loss_type="collision",
                injuries=True,
                drivable=True,
                severity="major",
                description="Rear-ended at a red light; passenger (daughter) treated at urgent care for neck pain.",
                driver_id=driver.id,
            ),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Major claim {new_claim} filed (passenger injured). Claims team to call the customer within "
                "24 hours.",
            ),
        ],
        traps=[call("update_claim", claim_id=new_claim, severity="minor")],  # "just a small bump, really"
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.severity, claim.injuries) == ("major", True)  # policy: an injured passenger makes it major
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


@pytest.mark.two_requests
def test_case_AI007_003(tb):
    """Deer hit with the new truck two days before it was added to the policy: not covered then; nothing filed for
    it. The dent a runaway shopping cart left in the parked Accord on Sunday is covered: filed as a minor claim
    with no driver. Ticket solved with the refused report's reason.
    Rules combined: cover on the loss date (a vehicle's effective date), first notice of loss and severity, the
    ticket rule for several requests."""
    dwayne, policy = policyholder("Dwayne Nakamura", "TX")
    accord = policy.vehicles[0]
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
    ticket = ticket_about(policy, "Deer collision")
    new_claim = new_id("CL-")

    run = tb.run(
        User(
            says="Rough week. I hit a deer with my new F-150 on Friday night; the grille and a headlight are "
            "smashed. I added the truck to my policy, so please open a claim. And on Sunday a runaway shopping cart "
            "dented the Accord's passenger door while it was parked at the grocery store, so I need a claim for "
            "that too.",
            knows=policyholder_facts(
                dwayne,
                policy,
                **{
                    "date of the deer accident": "2026-05-08",
                    "date of the Accord damage": "2026-05-10",
                    "injuries": "no one was hurt either time",
                    "drivable": "yes, both still drive",
                    "who was driving": "I was driving the truck; nobody was in the Accord, it was parked",
                    "deer damage estimate": "about $3,200",
                    "Accord damage estimate": "about $650",
                },
            ),
        ),
        golden=[
            *opening(dwayne, policy),
            file_claim(
                policy,
                accord.id,
                loss_date="2026-05-10",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Runaway shopping cart dented the passenger door of the parked Accord.",
                estimated_damage_cents=65_000,
            ),
            solved(ticket.id, "claim", "not_covered"),
        ],
        reply="I've opened claim CL-0001 for the dent in the Accord's door. I'm sorry, I can't open one for "
        "Friday's deer collision: your F-150 has been covered on your policy only from 10 May 2026, and the accident "
        "happened on 8 May, before that date, so the truck wasn't insured with us then.",
        traps=[  # "I added the truck to my policy, so please open a claim"
            file_claim(
                policy,
                truck.id,
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
    claims = run.db.query(Claim).all()
    assert [(c.id, c.vehicle_id, c.loss_date, c.severity) for c in claims] == [
        (new_claim, accord.id, date(2026, 5, 10), "minor")
    ]  # policy: the truck was not covered on its loss date; the Accord was
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


def test_case_AI007_004(tb):
    """Old car stolen, no open ticket: open one, file the theft as major, hold for the claims team."""
    connor, policy = policyholder(
        "Connor Whitfield",
        "CO",
        vehicle__vin=complete_vin("2HGFG3B50CH512644"),
        vehicle__year=2012,
        vehicle__make="Honda",
        vehicle__model="Civic",
    )
    old = ticket_about(policy, "Address change", status="solved")
    new_ticket, new_claim = new_id("T-", old), new_id("CL-")

    run = tb.run(
        User(
            says="Someone stole my car from outside my house last night. It's only an old 2012 Civic, not worth "
            "much, so please don't make a big thing of it, I just need it on record for the police report and "
            "whatever you can do.",
            knows=policyholder_facts(
                connor,
                policy,
                **{
                    "date of the loss": "11 May 2026",
                    "injuries": "no one was hurt",
                    "drivable": "no, the car is gone",
                    "who was driving": "nobody, it was parked",
                    "estimate": "I don't have one",
                },
            ),
        ),
        golden=[
            *opening(connor, policy),
            create_ticket(connor, policy, "Stolen vehicle", "claim"),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-11",
                loss_type="theft",
                injuries=False,
                drivable=False,
                severity="major",
                description="2012 Honda Civic stolen overnight from outside the customer's home.",
            ),
            *hold(
                new_ticket,
                None,
                "major_claim",
                note=f"Theft claim {new_claim} filed (major). Claims team to call the customer within 24 hours.",
            ),
        ],
        traps=[call("update_claim", claim_id=new_claim, severity="minor")],  # "please don't make a big thing of it"
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.loss_type, claim.severity, claim.drivable) == ("theft", "major", False)  # policy: theft is major
    assert run.db.get(Ticket, new_ticket).outcome == ("hold", "high", "claim", "major_claim", "claims")
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome == ("solved", "normal", None, None, None)


def test_case_AI007_005(tb):
    """Car bought 8 days ago (CA), bumped 3 days ago: newly acquired, added from purchase, claim filed."""
    megan, policy = policyholder("Megan Lindgren", "CA")
    new_vehicle, new_claim = new_id("V-", *policy.vehicles), new_id("CL-")
    ticket = ticket_about(policy, "New car and a dent")

    run = tb.run(
        User(
            says="I bought a Mazda CX-5 last Monday and haven't added it to my policy yet, so please add it. And "
            "the annoying part: someone backed into it in a parking garage on Saturday, so I need to report that "
            "too. Nobody was hurt and it drives fine.",
            knows=policyholder_facts(
                megan,
                policy,
                **{
                    "VIN": CX5,
                    "purchase date": "4 May 2026",
                    "make": "Mazda",
                    "model": "CX-5",
                    "date of the accident": "9 May 2026",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "I was, I was parked and sitting in it",
                    "estimate": "the body shop said about $2,300",
                },
            ),
        ),
        golden=[
            *opening(megan, policy, decode_vin(CX5)),
            add_vehicle(policy, CX5, 2026, "Mazda", "CX-5", acquired_on="2026-05-04", effective_on="2026-05-04"),
            id_card(policy, new_vehicle),
            file_claim(
                policy,
                new_vehicle,
                loss_date="2026-05-09",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Another car backed into the parked CX-5 in a parking garage.",
                estimated_damage_cents=230_000,
                driver_id=policy.drivers[0].id,
            ),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 4)  # policy: newly acquired, not tomorrow
    claim = run.db.get(Claim, new_claim)
    assert (claim.vehicle_id, claim.severity, claim.estimated_damage_cents) == (new_vehicle, "minor", 230_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


def test_case_AI007_006(tb):
    """Truck bought 20 days ago (TX), crashed 6 days ago: added from today, so the crash is not covered."""
    luis, policy = policyholder("Luis Delgado", "TX")
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Truck and accident")

    run = tb.run(
        User(
            says="I got a used F-150 about three weeks ago and never got round to adding it to my insurance. Last "
            "Wednesday I scraped it along a concrete barrier in a car park. Can you add the truck and put a claim "
            "in for the damage at the same time?",
            knows=policyholder_facts(
                luis,
                policy,
                **{
                    "VIN": TRUCK,
                    "purchase date": "22 April 2026",
                    "make": "Ford",
                    "model": "F-150",
                    "date of the accident": "6 May 2026",
                    "injuries": "no",
                    "drivable": "yes",
                    "who was driving": "me",
                    "estimate": "about $1,900",
                },
            ),
        ),
        golden=[
            *opening(luis, policy, decode_vin(TRUCK)),
            add_vehicle(
                policy,
                TRUCK,
                2023,
                "Ford",
                "F-150",
                acquired_on="2026-04-22",
                effective_on=derived(
                    "2026-05-12",
                    "bought on 22 April 2026, 20 days ago (more than 14, not newly acquired); TX is a same-day state",
                ),
            ),
            id_card(policy, new_vehicle),
            solved(ticket.id, "claim", "not_covered"),
        ],
        reply="I've added your F-150 to the policy, covered from today, 12 May 2026, and emailed its ID card. I "
        "can't file a claim for the barrier scrape on 6 May, though: the truck wasn't insured with us on that date.",
        traps=[
            file_claim(
                policy,
                new_vehicle,
                loss_date="2026-05-06",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Scraped along a concrete barrier in a car park.",
                estimated_damage_cents=190_000,
                driver_id=policy.drivers[0].id,
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 12)
    assert run.db.query(Claim).count() == 0  # policy: not insured with us on 6 May
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


def test_case_AI007_007(tb):
    """Caller reports a crash in his wife's car, which is on her own policy: not his policy, so no claim; solved."""
    gabriel = CustomerFactory(name="Gabriel Nakamura", state="IL", date_of_birth=date(1979, 12, 3))
    PolicyFactory(customer=gabriel)
    sofia = CustomerFactory(name="Sofia Nakamura", state="IL", date_of_birth=date(1981, 6, 22))
    her_policy = PolicyFactory(customer=sofia)
    ticket = TicketFactory(requester=gabriel, subject="Accident report")

    run = tb.run(
        User(
            says="My wife's car got rear-ended at a stoplight this morning while I was driving it. We're both with "
            "you, she has her own policy for her car. She's at work and can't call, so I'll report it for her; I've "
            "got her policy number here.",
            knows=caller_facts(
                gabriel,
                **{
                    "wife's policy number": her_policy.id,
                    "date of the accident": "12 May 2026",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "estimate": "no estimate yet",
                },
            ),
        ),
        golden=[
            *identify(gabriel),
            call("list_customer_policies", customer_id=gabriel.id),
            call("list_tickets", requester_id=gabriel.id),
            solved(ticket.id, "claim", "not_policyholder"),
        ],
        reply="I'm sorry, I can't take the report on your wife's policy: only the policyholder can report a loss on "
        "it, so she will need to contact us herself. Nothing has been filed.",
        traps=[
            file_claim(
                her_policy,
                her_policy.vehicles[0].id,
                loss_date="2026-05-12",
                loss_type="collision",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Rear-ended at a stoplight.",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Claim).count() == 0  # policy: a loss is reported by the policyholder only
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_policyholder", None)
    told = policyholder_must_call("she", "wife")
    run.rubric(told.text, phrases=told.phrases)  # the refusal is on the ticket; where to turn is only in the reply


# --------------------------------------------------------------------------- AI012: new facts on an open claim


@pytest.mark.distractors
def test_case_AI012_001(tb):
    """New facts make the Tucson's open claim major (not the Accord's glass claim): update it, hold."""
    aisha, policy = policyholder("Aisha Nakamura", "NY")
    accord = policy.vehicles[0]
    tucson = car_on(policy, "KM8J3CA40KU104533", 2019, "Hyundai", "Tucson", date(2023, 4, 1))
    glass = minor_claim(
        accord, date(2026, 5, 2), "Windshield cracked by a stone.", damage_cents=52_000, loss_type="glass"
    )
    bump = minor_claim(
        tucson,
        date(2026, 5, 6),
        "Rear-ended in stop-and-go traffic; bumper and tailgate damaged.",
        damage_cents=210_000,
    )
    ticket = ticket_about(policy, "Update on my claim")

    run = tb.run(
        User(
            says="I'm calling about the claim for the Tucson, the one where I was rear-ended last week. The body "
            "shop took the bumper off and found the frame is bent. They now say it's about $6,200 and that it isn't "
            "safe to drive until it's fixed.",
            knows=policyholder_facts(
                aisha,
                policy,
                **{
                    "new estimate": "$6,200",
                    "drivable": "no, the shop says it isn't safe",
                    "injuries": "no, nobody was hurt",
                },
            ),
        ),
        golden=[
            *opening(aisha, policy, policy_claims(policy)),
            call("update_claim", claim_id=bump.id, severity="major", drivable=False, estimated_damage_cents=620_000),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Claim {bump.id} updated: frame damage, not drivable, estimate 620000 cents; now major. Claims "
                "team to call the customer within 24 hours.",
            ),
        ],
        traps=[  # the other open claim on the policy, the Accord's windshield
            call("update_claim", claim_id=glass.id, severity="major", drivable=False, estimated_damage_cents=620_000)
        ],
    )

    run.expect_golden()
    updated = run.db.get(Claim, bump.id)
    assert (updated.severity, updated.drivable, updated.estimated_damage_cents) == ("major", False, 620_000)
    assert run.db.get(Claim, glass.id).severity == "minor"
    assert run.db.query(Claim).count() == 2  # policy: new facts go on the open claim, not a second one
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")


def test_case_AI012_002(tb):
    """New estimate of $4,950 on an open minor claim: record it; still under $5,000, so it stays minor; solved."""
    mei, policy = policyholder("Mei Delgado", "FL")
    major_claim(
        policy.vehicles[0],
        date(2025, 8, 30),
        "Flooded in a storm surge; engine replaced.",
        damage_cents=910_000,
        closed_on=date(2025, 11, 14),
    )
    bump = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 4),
        "Sideswiped while parked; driver-side doors scraped.",
        damage_cents=180_000,
    )
    ticket = ticket_about(policy, "New estimate for my claim")

    run = tb.run(
        User(
            says="Quick update on my claim for the car that got sideswiped last week: the body shop found the "
            "mirror motor and a door panel need replacing too, so their estimate went up to $4,950. The car still "
            "drives fine. Can you put that on the claim?",
            knows=policyholder_facts(mei, policy, **{"new estimate": "$4,950"}),
        ),
        golden=[
            *opening(mei, policy, policy_claims(policy)),
            call("update_claim", claim_id=bump.id, estimated_damage_cents=495_000),
            solved(ticket.id, "claim"),
        ],
        traps=[call("update_claim", claim_id=bump.id, severity="major")],  # 4,950 is under the 5,000 line
    )

    run.expect_golden()
    updated = run.db.get(Claim, bump.id)
    assert (updated.severity, updated.estimated_damage_cents) == ("minor", 495_000)  # policy: under 500,000 cents
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)
