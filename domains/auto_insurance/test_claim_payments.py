"""Payments the desk makes on a claim: glass repairs (full-glass states, deductibles, quotes that are not
invoices), rental reimbursement (drivable or not, the daily limit, the 30-day cap, coverage added after the loss)
and tows (roadside assistance limits), alone or with a new first notice of loss."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    claim_payments,
    claim_record,
    create_ticket,
    file_claim,
    hold,
    new_id,
    opening,
    opening_listed,
    policy_claims,
    policyholder_facts,
    rental_days,
    solved,
    state_requirements,
)
from domains.auto_insurance.factories import (
    ClaimFactory,
    ClaimPaymentFactory,
    CoverageFactory,
    DriverFactory,
    VehicleFactory,
    major_claim,
    minor_claim,
    policyholder,
    ticket_about,
)
from domains.auto_insurance.models import Claim, ClaimPayment, Coverage, Ticket, TicketComment
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Claims: first notice of loss",
    "Claim severity",
    "Claim payments the desk makes",
    "Coverage changes",
    "Open major claims",
    "Ticket status, classification and priority",
)


def _cov(policy, kind):
    return next(c for c in policy.coverages if c.coverage == kind)


def _roadside(policy, limit_cents, effective_on=None):
    return CoverageFactory(
        policy=policy,
        coverage="roadside_assistance",
        limit_cents=limit_cents,
        deductible_cents=None,
        term_premium_cents=1_500,
        effective_on=effective_on,
        changed_on=effective_on,
    )


def _payments(db, claim_id):
    rows = db.query(ClaimPayment).filter_by(claim_id=claim_id).order_by(ClaimPayment.id).all()
    return [(p.kind, p.amount_cents, p.days) for p in rows]


# --------------------------------------------------------------------------- AI017: glass repairs


def test_case_AI017_001(tb):
    """Windshield replaced in Arizona, a full-glass state: the whole invoice (41,260 cents) is paid, with no
    comprehensive deductible taken off.
    Rules combined: comprehensive in force on the loss date, a finished repair with an invoice, the state's
    full-glass rule over the deductible."""
    ivan, policy = policyholder("Ivan Castellanos", "AZ")
    claim = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 4),
        "Windshield cracked by a rock from a gravel truck on the Loop 101.",
        damage_cents=45_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Windshield invoice")

    run = tb.run(
        User(
            says="The new windshield went in on Saturday; the invoice came to $412.60. How much will you cover? I "
            "know I have a $250 deductible.",
            knows=policyholder_facts(ivan, policy, **{"claim number": claim.id, "invoice total": "$412.60"}),
        ),
        golden=[
            *opening(ivan, policy, *claim_record(claim), state_requirements("AZ")),
            call("issue_claim_payment", claim_id=claim.id, kind="glass_repair", amount_cents=41_260),
            solved(ticket.id, "claim"),
        ],
        traps=[
            call(
                "issue_claim_payment",
                claim_id=claim.id,
                kind="glass_repair",
                amount_cents=16_260,  # the invoice less a deductible that does not apply here
            )
        ],
        reply="Good news: Arizona is a full-glass state, so no deductible applies to glass. I've paid the whole "
        "invoice, $412.60.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("glass_repair", 41_260, None)]  # policy: full glass, no deductible
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


@pytest.mark.distractors
def test_case_AI017_002(tb):
    """Texas, two glass claims: the Accord's from March is closed and paid, the Camry's open one is the finished
    repair; pay its invoice (61,800) less the 25,000-cent comprehensive deductible: 36,800.
    Rules combined: picking the open claim for the right car, a state without full glass, the deductible taken off
    the invoice."""
    noor, policy = policyholder("Noor Salazar", "TX")
    old = minor_claim(
        policy.vehicles[0],
        date(2026, 3, 2),
        "Windshield chip spread into a long crack.",
        damage_cents=52_000,
        loss_type="glass",
        closed_on=date(2026, 3, 20),
    )
    ClaimPaymentFactory(claim=old, kind="glass_repair", amount_cents=27_000, days=None)
    camry = VehicleFactory(
        policy=policy, vin=complete_vin("4T1B11HK0NU640018"), year=2022, make="Toyota", model="Camry"
    )
    claim = minor_claim(
        camry,
        date(2026, 5, 5),
        "Rear window shattered by a baseball in the driveway.",
        damage_cents=60_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Glass bill")

    run = tb.run(
        User(
            says="I've got the bill for the new back window on the Camry, $618. Can you pay it like you paid for the "
            "windshield on my Accord in March?",
            knows=policyholder_facts(noor, policy, **{"invoice total": "$618.00"}),
        ),
        golden=[
            *opening(noor, policy, policy_claims(policy), *claim_record(claim), state_requirements("TX")),
            call(
                "issue_claim_payment",
                claim_id=claim.id,
                kind="glass_repair",
                amount_cents=derived(36_800, "the 61,800-cent invoice less the 25,000-cent comprehensive deductible"),
            ),
            solved(ticket.id, "claim"),
        ],
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("glass_repair", 36_800, None)]  # policy: invoice less the deductible
    assert _payments(run.db, old.id) == [("glass_repair", 27_000, None)]  # the March claim is left alone
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


@pytest.mark.pushback
def test_case_AI017_003(tb):
    """Georgia, comprehensive deductible 500 dollars, windshield invoice 439 dollars: below the deductible, nothing is
    paid, even when the customer insists glass should be free.
    Rules combined: a state without full glass, the customer's own raised deductible, the invoice not more than it,
    the refusal's reason."""
    yusuf, policy = policyholder("Yusuf Grady", "GA")
    _cov(policy, "comprehensive").deductible_cents = 50_000
    claim = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 1),
        "Windshield cracked by hail in a parking lot.",
        damage_cents=45_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Windshield payment")

    run = tb.run(
        User(
            says="My windshield was replaced yesterday, the invoice is $439. My cousin in Florida pays nothing for "
            "glass, so please pay the whole thing.",
            knows=policyholder_facts(yusuf, policy, **{"claim number": claim.id, "invoice total": "$439.00"}),
            persona="A customer sure that glass is always free.",
            rules=(
                "If refused, insist once that glass should be covered in full.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(yusuf, policy, *claim_record(claim), state_requirements("GA")),
            solved(ticket.id, "claim", "below_deductible"),
        ],
        traps=[call("issue_claim_payment", claim_id=claim.id, kind="glass_repair", amount_cents=43_900)],
        reply="I'm sorry, I can't pay anything on this one: Georgia is not a full-glass state, so your $500 "
        "comprehensive deductible applies, and the $439 invoice is below it.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == []  # policy: the invoice is not more than the deductible
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "below_deductible", None)


@pytest.mark.distractors
@pytest.mark.two_requests
def test_case_AI017_004(tb):
    """Two glass invoices in Florida, a full-glass state, after the customer removed comprehensive on 1 April: the
    windshield cracked in the 20 March hailstorm was covered on its loss date, so its whole invoice (45,520 cents)
    is paid with no deductible; the side window smashed on 2 May was not (no comprehensive that day): nothing paid.
    Rules combined: the coverage in force on each claim's loss date (removed between the two), the state's
    full-glass rule, which cannot revive a removed coverage, and the not-covered reason of the one refused."""
    carmen, policy = policyholder("Carmen Oduya", "FL")
    comprehensive = _cov(policy, "comprehensive")
    comprehensive.status, comprehensive.changed_on = "removed", date(2026, 4, 1)
    hail = minor_claim(
        policy.vehicles[0],
        date(2026, 3, 20),
        "Windshield cracked by hail in the 20 March storm.",
        damage_cents=46_000,
        loss_type="glass",
    )
    claim = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 2),
        "Driver-side window smashed in an attempted break-in.",
        damage_cents=38_000,
        loss_type="glass",
    )
    ticket = ticket_about(policy, "Two glass bills")

    run = tb.run(
        User(
            says="I've got two glass bills. The windshield that cracked in the March hailstorm was finally replaced "
            "last week, $455.20. And someone smashed my side window on May 2nd; that's fixed too, $380. Florida "
            "covers glass in full, right? Please pay both.",
            knows=caller_facts(
                carmen,
                **{
                    "windshield claim number": hail.id,
                    "side window claim number": claim.id,
                    "windshield invoice total": "$455.20",
                    "side window invoice total": "$380.00",
                },
            ),
        ),
        golden=[
            *opening_listed(
                carmen,
                policy,
                policy_claims(policy),
                claim_payments(hail),
                claim_payments(claim),
                state_requirements("FL"),
            ),
            call("issue_claim_payment", claim_id=hail.id, kind="glass_repair", amount_cents=45_520),
            solved(ticket.id, "claim", "not_covered"),
        ],
        traps=[call("issue_claim_payment", claim_id=claim.id, kind="glass_repair", amount_cents=38_000)],
        reply="I've paid the whole windshield invoice, $455.20: the hail was on 20 March, while you still had "
        "comprehensive, and Florida glass has no deductible. I can't pay the side window, though: comprehensive was "
        "removed from your policy on 1 April 2026, before the window was broken on 2 May.",
    )

    run.expect_golden()
    assert _payments(run.db, hail.id) == [("glass_repair", 45_520, None)]  # in force on 20 March; full glass
    assert _payments(run.db, claim.id) == []  # policy: no comprehensive on the 2 May loss date
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)


@pytest.mark.two_requests
def test_case_AI017_005(tb):
    """No open ticket; the shop has only quoted the windshield (work booked for Friday): open a ticket, pay nothing
    until there is an invoice. The stone chip on his wife's Forester yesterday is a new loss: filed as a minor glass
    claim with her driver id.
    Rules combined: a new ticket only when none is new or open, a quote is not an invoice, first notice of loss
    (the listed driver, minor severity), the category and reason of the request that cannot go ahead yet."""
    bram, policy = policyholder("Bram Oyelowo", "CO")
    forester = VehicleFactory(
        policy=policy, vin=complete_vin("JF2SKAEC0LH412093"), year=2020, make="Subaru", model="Forester"
    )
    ines = DriverFactory(
        policy=policy,
        full_name="Ines Oyelowo",
        date_of_birth=date(1986, 8, 23),
        licence_number="140772215",
        relation_to_insured="spouse",
    )
    claim = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 9),
        "Windshield cracked by a stone on I-25.",
        damage_cents=52_500,
        loss_type="glass",
    )
    old = ticket_about(policy, "Windshield crack", status="solved")
    new_ticket = new_id("T-", old)
    new_claim = new_id("CL-", claim)

    run = tb.run(
        User(
            says="The glass shop quoted $525 for my windshield and they can do it on Friday. Can you pay them now "
            "so they can order the glass? And now my wife's Forester got a stone chip in its windshield yesterday, "
            "so please open a claim for that one too.",
            knows=policyholder_facts(
                bram,
                policy,
                **{
                    "claim number": claim.id,
                    "quote": "$525.00",
                    "date of the loss": "11 May 2026",
                    "what happened": "a stone thrown up by a truck on Colfax Avenue chipped the Forester's windshield",
                    "injuries": "nobody was hurt",
                    "drivable": "yes, it drives fine",
                    "who was driving": "my wife Ines",
                    "estimate": "the chip repair place said about $90",
                },
            ),
        ),
        golden=[
            *opening(bram, policy, *claim_record(claim)),
            create_ticket(bram, policy, "Glass payment requested on a quote; new glass loss on the Forester", "claim"),
            file_claim(
                policy,
                forester.id,
                loss_date="2026-05-11",
                loss_type="glass",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Stone from a truck on Colfax Avenue chipped the Forester's windshield.",
                estimated_damage_cents=9_000,
                driver_id=ines.id,
            ),
            solved(new_ticket, reason="not_eligible"),
        ],
        traps=[
            call(
                "issue_claim_payment",
                claim_id=claim.id,
                kind="glass_repair",
                amount_cents=27_500,  # the quote less the deductible
            )
        ],
        reply="I've opened claim CL-70402 for the chip in the Forester's windshield. I can't pay your own windshield "
        "on a quote, though: glass is paid once the work is done. After Friday's replacement, call us with the "
        "shop's invoice.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == []  # policy: a quote is not an invoice
    filed = run.db.get(Claim, new_claim)
    assert (filed.vehicle_id, filed.loss_type, filed.severity, filed.driver_id, filed.estimated_damage_cents) == (
        forester.id,
        "glass",
        "minor",
        ines.id,
        9_000,
    )
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "claim", "not_eligible", None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"


@pytest.mark.two_requests
def test_case_AI017_006(tb):
    """A new glass loss two days ago in Florida, already repaired with an invoice of 296.40 dollars: file the minor
    glass claim, then pay the whole invoice (full-glass state, no deductible) on it.
    Rules combined: first notice of loss (cover on the loss date, minor severity), the claim the payment goes on,
    an invoice for finished work, the state's full-glass rule."""
    dario, policy = policyholder("Dario Lindqvist", "FL")
    driver = policy.drivers[0]
    ticket = ticket_about(policy, "Windshield chip")
    new_claim = new_id("CL-")

    run = tb.run(
        User(
            says="A stone cracked my windshield on Sunday on I-275 and I had it replaced yesterday; the invoice is "
            "$296.40. I haven't reported it yet. Can you open a claim and pay the glass shop bill?",
            knows=policyholder_facts(
                dario,
                policy,
                **{
                    "date of the loss": "10 May 2026",
                    "injuries": "nobody was hurt",
                    "drivable": "yes",
                    "who was driving": "I was",
                    "estimate": "$296.40, what the replacement cost",
                    "invoice total": "$296.40",
                },
            ),
        ),
        golden=[
            *opening(dario, policy, state_requirements("FL")),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-10",
                loss_type="glass",
                injuries=False,
                drivable=True,
                severity="minor",
                description="Windshield cracked by a stone on I-275; replaced the next day.",
                estimated_damage_cents=29_640,
                driver_id=driver.id,
            ),
            call("issue_claim_payment", claim_id=new_claim, kind="glass_repair", amount_cents=29_640),
            solved(ticket.id, "claim"),
        ],
        reply="I've opened claim CL-0001 for the windshield and paid the whole invoice, $296.40: Florida is a "
        "full-glass state, so no deductible applies to glass.",
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.loss_type, claim.severity, claim.loss_date, claim.driver_id) == (
        "glass",
        "minor",
        date(2026, 5, 10),
        driver.id,
    )
    assert _payments(run.db, new_claim) == [("glass_repair", 29_640, None)]  # policy: full glass, the whole invoice
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI017_007(tb):
    """Vandalism claim (window smashed and doors keyed) in Arizona: the desk's glass payment is for glass claims
    only, so the window is not paid at the desk even in a full-glass state; the claims team handles the claim. The
    comprehensive deductible she asks to lower to $250 is changed: the only open claim is minor.
    Rules combined: the glass payment's loss-type condition, the full-glass rule that does not reach other losses,
    a deductible change that a minor open claim does not block, the refusal's reason."""
    maya, policy = policyholder("Maya Thorsen", "AZ")
    _cov(policy, "comprehensive").deductible_cents = 50_000
    claim = minor_claim(
        policy.vehicles[0],
        date(2026, 5, 5),
        "Rear side window smashed and both passenger doors keyed in an apartment car park.",
        damage_cents=240_000,
        loss_type="vandalism",
    )
    ticket = ticket_about(policy, "Window invoice")

    run = tb.run(
        User(
            says="I got the smashed side window from the vandalism replaced, the invoice is $265. Arizona covers "
            "glass in full, so please pay it now; the doors can wait for the adjuster. And after this, I want my "
            "comprehensive deductible down to $250 from now on.",
            knows=policyholder_facts(maya, policy, **{"invoice total": "$265.00"}),
            persona="A customer who knows Arizona's glass rule and expects it to apply.",
            rules=(
                "If refused, insist once that glass is glass, whatever the claim is called.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(maya, policy, policy_claims(policy), *claim_record(claim)),
            call("update_coverage", policy_id=policy.id, coverage="comprehensive", deductible_cents=25_000),
            solved(ticket.id, "claim", "not_eligible"),
        ],
        traps=[call("issue_claim_payment", claim_id=claim.id, kind="glass_repair", amount_cents=26_500)],
        reply="Your comprehensive deductible is $250 from today. I can't pay the window at the desk: our glass "
        "payments are for glass claims, and yours is a vandalism claim, so the claims team settles all of it, the "
        "window included, with the doors.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == []  # policy: not a glass claim
    comprehensive = run.db.query(Coverage).filter_by(policy_id=policy.id, coverage="comprehensive").one()
    assert (comprehensive.deductible_cents, comprehensive.changed_on) == (25_000, date(2026, 5, 12))  # minor claim
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_eligible", None)


# --------------------------------------------------------------------------- AI018: rental reimbursement


def test_case_AI018_001(tb):
    """24 rental days already paid on the claim; 10 more asked at 38 dollars a day: only 6 days are left of the
    30-day cap, each at the 38-dollar rate (below the 40-dollar limit): 22,800 cents.
    Rules combined: the 30-day cap counting days already paid, the lower of the rate and the daily limit, a claim
    whose vehicle is not drivable."""
    mira, policy = policyholder("Mira Okafor", "OH")
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 4, 2),
        "Rear-ended at highway speed; trunk and frame damaged, towed to a body shop.",
        damage_cents=840_000,
    )
    ClaimPaymentFactory(claim=claim, amount_cents=96_000, days=24)
    ticket = ticket_about(policy, "More rental days")

    run = tb.run(
        User(
            says="The body shop is still waiting on parts, so I kept the rental another ten days: picked up the new "
            "one on April 27th and returned it May 7th, at $38 a day. Please reimburse those ten days.",
            knows=policyholder_facts(
                mira,
                policy,
                **{
                    "claim number": claim.id,
                    "pick-up date": "27 April 2026",
                    "return date": "7 May 2026",
                    "daily rate": "$38.00",
                },
            ),
        ),
        golden=[
            *opening(mira, policy, *claim_record(claim)),
            rental_days(
                claim,
                derived(22_800, "6 days left of the 30-day cap at the 3,800-cent rate"),
                derived(6, "30 days per claim less the 24 already paid"),
            ),
            solved(ticket.id, "claim"),
        ],
        reply="I've paid $228.00 for 6 more days at $38 a day. A claim gets at most 30 rental days, and 24 were "
        "already paid, so those 6 are the last rental days this claim can have.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("rental_reimbursement", 96_000, 24), ("rental_reimbursement", 22_800, 6)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


@pytest.mark.two_requests
def test_case_AI018_002(tb):
    """Minor bumper claim, the car stayed drivable; the customer rented while the shop worked on it and brings the
    shop's higher estimate: the estimate is recorded (still minor, under 5,000 dollars), the rental is not paid on a
    drivable vehicle.
    Rules combined: new facts recorded on an open claim with its severity set again, rental only for a vehicle that
    cannot be driven, the ticket carrying the refused request's reason."""
    pablo, policy = policyholder("Pablo Renner", "IL")
    claim = minor_claim(
        policy.vehicles[0], date(2026, 5, 1), "Backed into a bollard; rear bumper cracked.", damage_cents=140_000
    )
    ticket = ticket_about(policy, "Rental while in the shop")

    run = tb.run(
        User(
            says="Two things on my bumper claim: the body shop's final estimate came to $2,350, more than I first "
            "told you. And I rented a car from May 4th to May 8th while they fixed it, $40 a day. I have rental "
            "coverage, so please pay the four days.",
            knows=policyholder_facts(pablo, policy, **{"claim number": claim.id, "daily rate": "$40.00"}),
        ),
        golden=[
            *opening(pablo, policy, *claim_record(claim)),
            call("update_claim", claim_id=claim.id, severity="minor", estimated_damage_cents=235_000),
            solved(ticket.id, "claim", "not_eligible"),
        ],
        traps=[rental_days(claim, 16_000, 4)],
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == []  # policy: the vehicle was drivable
    updated = run.db.get(Claim, claim.id)
    assert (updated.estimated_damage_cents, updated.severity) == (235_000, "minor")  # under 500,000: still minor
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_eligible", None)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI018_003(tb):
    """No open ticket; rental reimbursement was added on 5 May, a week after the 28 April crash: not in force on the
    loss date, so the rental is not paid, however much the customer says he added it for this. The $120 tow after
    the crash is paid from roadside assistance, in force for the whole term, up to its 75-dollar limit per tow.
    Rules combined: a new ticket only when none is new or open, the claim found on the policy, each coverage's
    effective date against the loss date, no back-dated endorsement, the per-tow limit, the not-covered reason."""
    colm, policy = policyholder("Colm Adeyemi", "NY")
    rental = _cov(policy, "rental_reimbursement")
    rental.effective_on, rental.changed_on = date(2026, 5, 5), date(2026, 5, 5)
    _roadside(policy, 7_500)
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 4, 28),
        "Slid into a utility pole on a wet road; front suspension broken.",
        damage_cents=560_000,
    )
    old = ticket_about(policy, "Add rental coverage", status="solved")
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="After my crash on April 28th I added rental coverage so the rental would be paid. I had the car "
            "from April 29th to May 9th at $40 a day. Please reimburse me, and the $120 tow from the crash too.",
            knows=policyholder_facts(colm, policy, **{"daily rate": "$40.00", "tow bill": "$120.00"}),
            persona="A customer who believes adding the coverage was enough.",
            rules=(
                "If refused, say once that you added the coverage precisely for this rental.",
                "Accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            *opening(colm, policy, policy_claims(policy), *claim_record(claim)),
            create_ticket(colm, policy, "Rental and tow after the 28 April crash", "claim"),
            call("issue_claim_payment", claim_id=claim.id, kind="towing", amount_cents=7_500),
            solved(new_ticket, reason="not_covered"),
        ],
        traps=[rental_days(claim, 40_000, 10)],
        reply="I've paid $75.00 toward the tow, the most your roadside assistance pays per tow. I'm sorry, I can't "
        "pay the rental: your rental coverage started on 5 May 2026, after the crash on 28 April, and a coverage "
        "only pays for losses that happen while it is in force.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("towing", 7_500, None)]  # policy: the tow, up to the per-tow limit
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "claim", "not_covered", None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"


@pytest.mark.two_requests
def test_case_AI018_004(tb):
    """Stolen car recovered: the rental while it was gone is paid (a theft claim qualifies even though the record says
    drivable) at 34 dollars a day for 9 days, and the tow back is paid up to the 100-dollar roadside limit.
    Rules combined: the theft exception to the drivable rule, rental days and the rate under the limit, the tow
    capped at the roadside limit per tow."""
    anika, policy = policyholder("Anika Forsberg", "CA")
    _roadside(policy, 10_000)
    claim = ClaimFactory(
        vehicle=policy.vehicles[0],
        loss_date=date(2026, 5, 2),
        loss_type="theft",
        severity="major",
        drivable=True,
        estimated_damage_cents=None,
        description="Car stolen overnight from the street outside the customer's home.",
    )
    ticket = ticket_about(policy, "Stolen car found")

    run = tb.run(
        User(
            says="The police found my stolen car yesterday and it had to be towed home, the tow was $120. I also "
            "rented a car while it was gone, from May 2nd to May 11th at $34 a day. Can you pay both?",
            knows=policyholder_facts(
                anika,
                policy,
                **{
                    "claim number": claim.id,
                    "tow bill": "$120.00",
                    "rental pick-up date": "2 May 2026",
                    "rental return date": "11 May 2026",
                    "daily rate": "$34.00",
                },
            ),
        ),
        golden=[
            *opening(anika, policy, *claim_record(claim)),
            rental_days(
                claim,
                derived(30_600, "9 days at the 3,400-cent rate, below the 4,000-cent daily limit"),
                derived(9, "11 May minus 2 May"),
            ),
            call("issue_claim_payment", claim_id=claim.id, kind="towing", amount_cents=10_000),
            solved(ticket.id, "claim"),
        ],
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("rental_reimbursement", 30_600, 9), ("towing", 10_000, None)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


def test_case_AI018_005(tb):
    """A rental taken for a trip on 1 May, before the 3 May loss that left the car undrivable, kept until 10 May:
    only the 7 days from the loss date are paid, each at the 40-dollar daily limit (the rate was 45): 28,000 cents.
    Rules combined: rental only for a vehicle that cannot be driven, no days before the loss date, the lower of the
    rate and the daily limit, the claim found on the policy."""
    hugo, policy = policyholder("Hugo Sandoval", "CA")
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 5, 3),
        "Parked car hit by a reversing moving truck; rear axle bent.",
        damage_cents=530_000,
    )
    ticket = ticket_about(policy, "Rental after the truck hit my car")

    run = tb.run(
        User(
            says="I'd rented a car for a trip from May 1st, and on the 3rd a moving truck smashed my own car while it "
            "was parked, so I kept the rental until May 10th. It was $45 a day. Please reimburse the rental.",
            knows=policyholder_facts(
                hugo,
                policy,
                **{"rental pick-up date": "1 May 2026", "rental return date": "10 May 2026", "daily rate": "$45.00"},
            ),
        ),
        golden=[
            *opening(hugo, policy, policy_claims(policy), claim_payments(claim)),
            rental_days(
                claim,
                derived(28_000, "7 days from the 3 May loss to 10 May at the 4,000-cent daily limit"),
                derived(7, "10 May minus 3 May: the days before the loss date are not paid"),
            ),
            solved(ticket.id, "claim"),
        ],
        reply="I've paid $280.00: the rental days from the accident on 3 May to 10 May, 7 days, at your coverage's "
        "daily limit of $40.00. The days before 3 May were for your trip, before the loss, so they aren't covered.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("rental_reimbursement", 28_000, 7)]  # policy: from the loss date only
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", None, None)


# --------------------------------------------------------------------------- AI019: tows and new losses


@pytest.mark.two_requests
def test_case_AI019_001(tb):
    """Deer hit yesterday, car not drivable and towed for 68 dollars: file the claim as major, pay the tow in full
    (under the 75-dollar roadside limit), and hold the ticket for the claims team.
    Rules combined: first notice of loss with its severity (not drivable), the tow paid from roadside on the new
    claim, the major-claim hold with its comment."""
    rhys, policy = policyholder("Rhys Tanaka", "PA")
    _roadside(policy, 7_500)
    driver = policy.drivers[0]
    ticket = ticket_about(policy, "Hit a deer")
    new_claim = new_id("CL-")

    run = tb.run(
        User(
            says="I hit a deer last night on Route 28. Nobody's hurt but the radiator is smashed and the car won't "
            "drive; a tow truck took it to the garage for $68. I'd like to start a claim and get the tow paid.",
            knows=policyholder_facts(
                rhys,
                policy,
                **{
                    "date of the loss": "11 May 2026",
                    "injuries": "nobody was hurt",
                    "drivable": "no",
                    "who was driving": "I was",
                    "estimate": "no estimate yet",
                    "tow bill": "$68.00",
                },
            ),
        ),
        golden=[
            *opening(rhys, policy),
            file_claim(
                policy,
                policy.vehicles[0].id,
                loss_date="2026-05-11",
                loss_type="animal",
                injuries=False,
                drivable=False,
                severity="major",
                description="Hit a deer on Route 28 at night; radiator smashed, car towed to a garage.",
                driver_id=driver.id,
            ),
            call("issue_claim_payment", claim_id=new_claim, kind="towing", amount_cents=6_800),
            *hold(
                ticket.id,
                "claim",
                "major_claim",
                note=f"Major claim {new_claim} filed (deer strike, vehicle not drivable); tow of 6800 cents paid. "
                "Claims team to call the customer within 24 hours.",
            ),
        ],
    )

    run.expect_golden()
    claim = run.db.get(Claim, new_claim)
    assert (claim.loss_type, claim.severity, claim.drivable, claim.injuries, claim.driver_id) == (
        "animal",
        "major",
        False,
        False,
        driver.id,
    )  # policy: not drivable makes it major
    assert _payments(run.db, new_claim) == [("towing", 6_800, None)]  # policy: under the per-tow limit
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "claim", "major_claim", "claims")
    assert run.db.query(TicketComment).filter_by(ticket_id=ticket.id).count() == 1


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_AI019_002(tb):
    """Tow after an 8 May breakdown-collision, but roadside assistance was only added on 10 May: not in force on the
    loss date, nothing paid, however the customer argues. The rental she took that day while the car could not be
    driven is paid from rental reimbursement, in force all term: 3 days at her 36-dollar rate (under the 40-dollar
    limit), 10,800 cents.
    Rules combined: each coverage's effective date against the loss date, no back-dated endorsement, rental for a
    vehicle that cannot be driven at the lower of the rate and the limit, the not-covered reason."""
    gwen, policy = policyholder("Gwen Abiodun", "AZ")
    _roadside(policy, 10_000, effective_on=date(2026, 5, 10))
    claim = major_claim(
        policy.vehicles[0],
        date(2026, 5, 8),
        "Clipped a median in a dust storm; front wheel bent, towed.",
        damage_cents=210_000,
    )
    ticket = ticket_about(policy, "Tow bill")

    run = tb.run(
        User(
            says="I have roadside assistance with you and the tow after my accident on the 8th cost $95. Please pay "
            "it. I also rented a car that same day, at $36 a day, and gave it back yesterday when my sister lent me "
            "hers.",
            knows=policyholder_facts(
                gwen,
                policy,
                **{
                    "claim number": claim.id,
                    "tow bill": "$95.00",
                    "rental pick-up date": "8 May 2026",
                    "rental return date": "11 May 2026",
                    "daily rate": "$36.00",
                },
            ),
            persona="A customer who believes the coverage should count since she has it now.",
            rules=(
                "If refused, say once that you have roadside assistance now, so it should be paid.",
                "Accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            *opening(gwen, policy, *claim_record(claim)),
            rental_days(
                claim,
                derived(10_800, "3 days at the customer's 3,600-cent rate, under the 4,000-cent limit"),
                derived(3, "returned 11 May minus picked up 8 May, the loss date"),
            ),
            solved(ticket.id, "claim", "not_covered"),
        ],
        traps=[call("issue_claim_payment", claim_id=claim.id, kind="towing", amount_cents=9_500)],
        reply="I've paid $108.00 for the rental: 3 days at your $36 rate, since the car couldn't be driven. I can't "
        "pay the tow, though: your roadside assistance started on 10 May 2026, two days after the accident, and a "
        "coverage only pays for losses while it is in force.",
    )

    run.expect_golden()
    assert _payments(run.db, claim.id) == [("rental_reimbursement", 10_800, 3)]  # roadside began after the loss
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "claim", "not_covered", None)
