"""Warranty claims (coverage, plans, resolution, safety) and installation appointments (fees, limits)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from domains.retail.calls import (
    address_facts,
    courtesy_points,
    file_claim,
    get_customer,
    get_job,
    get_order,
    get_promotion,
    get_warranty,
    hold,
    issue_refund,
    list_orders,
    new_id,
    new_ticket,
    open_return,
    opening,
    pending,
    reschedule,
    safety_hold,
    ship_to,
    solved,
)
from domains.retail.checks import STOP_USING, STOP_USING_PHRASES, internal_notes
from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    PointsAdjustmentFactory,
    TicketFactory,
    WarrantyClaimFactory,
    delivered_order,
    ticket_about,
    warranty_on,
)
from domains.retail.models import (
    InstallationJob,
    Order,
    PointsAdjustment,
    Refund,
    Return,
    Ticket,
    WarrantyClaim,
)
from domains.retail.seed import BLENDER, DISHWASHER, ESPRESSO, FRIDGE, HEADPHONES, HEATER, LAPTOP, PHONE, TV
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Returns: eligibility and windows",
    "Warranty claims",
    "Product safety reports",
    "Installation appointments",
    "Courtesy points",
    "Promo codes after purchase",
    "Address changes and cancellations",
    "Ticket status, priority and classification",
)


def _installation(customer, product, *, scheduled_for, **job):
    """A delivered order of an installable product, bought 8 days ago, and its installation appointment."""
    order = delivered_order(customer, [product], placed_days_ago=8)
    return order, InstallationJobFactory(order=order, product_id=product, scheduled_for=scheduled_for, **job)


def test_case_RT006_001(tb):
    """Laptop that will not power on, within its warranty: file a defect claim, resolved by repair (price >= $150)."""
    priya = CustomerFactory(name="Priya Chen")
    order = delivered_order(priya, [LAPTOP], placed_days_ago=200)
    warranty = warranty_on(order, LAPTOP, starts_on=TODAY - timedelta(days=195))
    ticket = ticket_about(order, "Laptop dead")

    run = tb.run(
        User(
            says="My Aurora laptop won't turn on at all anymore, no lights, nothing, even when plugged in. "
            "I'd like a brand-new one.",
            knows={"email": priya.email, "order id": order.id},
        ),
        golden=[
            *opening(priya, get_order(order), get_warranty(warranty)),
            file_claim(warranty, "defect", "repair", "Laptop does not power on, no lights when plugged in."),
            solved(ticket.id, "warranty"),
        ],
        traps=[  # the brand-new laptop she asks for, though a $1,299 product with no earlier claim is repaired
            file_claim(warranty, "defect", "replacement", "Laptop does not power on; customer wants a new one.")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.issue, claim.resolution) == ("defect", "repair")
    # a repair rather than the new laptop she wanted is still the claim granted: no reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", None, None)


@pytest.mark.two_requests
def test_case_RT006_002(tb):
    """Espresso machine failed 10 days after its warranty expired: no claim, a refusal for the deadline; the SPRING15
    code he forgot on the new machine he ordered yesterday is applied (15% of $449)."""
    daniel = CustomerFactory(name="Daniel Walsh", tier="plus")
    order = delivered_order(daniel, [ESPRESSO], placed_days_ago=745)
    warranty = warranty_on(
        order, ESPRESSO, starts_on=TODAY - timedelta(days=740), expires_on=TODAY - timedelta(days=10)
    )
    new_order = OrderFactory(customer=daniel, status="processing", placed_at=days_ago(1, hour=19), lines=[ESPRESSO])
    ticket = ticket_about(order, "Espresso machine not heating")

    run = tb.run(
        User(
            says="My Duo espresso machine stopped heating the water. It has a two-year warranty, "
            "so please get it fixed for me. I couldn't go without coffee, so I ordered a second one last night, "
            "and of course I forgot to enter the SPRING15 code.",
            knows={"email": daniel.email, "order id": order.id, "new order id": new_order.id},
        ),
        golden=[
            *opening(daniel, get_order(order), get_warranty(warranty), get_order(new_order), get_promotion("SPRING15")),
            call("apply_promo_code", order_id=new_order.id, code="SPRING15"),
            solved(ticket.id, "warranty", "outside_window"),
        ],
        reply="Your machine's two-year warranty ran until 6 March 2026, so it expired 10 days ago and I can't "
        "file a repair claim. I've added SPRING15 to the machine you ordered last night: $67.35 goes back to "
        "your card.",
        traps=[  # "it has a two-year warranty": the repair he asks for, filed on the expired warranty
            file_claim(warranty, "defect", "repair", "Espresso machine no longer heats the water.")
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: a claim after expires_on is not covered
    adjusted = run.db.get(Order, new_order.id)
    assert (adjusted.promo_code, adjusted.discount_cents) == ("SPRING15", 6_735)
    assert run.db.query(Refund).one().amount_cents == 6_735
    # the warranty came first and was refused for its date: its category and reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", "outside_window", None)


def test_case_RT006_003(tb):
    """Dropped phone on an accident-protection plan with no earlier accident claim: covered, resolved by repair."""
    amara = CustomerFactory(name="Amara Nair", tier="plus")
    order = delivered_order(amara, [PHONE], placed_days_ago=125)
    warranty = warranty_on(
        order,
        PHONE,
        starts_on=TODAY - timedelta(days=120),
        plan="accident_protection",
        expires_on=TODAY + timedelta(days=610),
    )
    ticket = ticket_about(order, "Cracked phone screen")

    run = tb.run(
        User(
            says="I dropped my Nimbus phone on the pavement and the screen is cracked all over. "
            "Is there anything you can do?",
            knows={"email": amara.email, "order id": order.id},
        ),
        golden=[
            *opening(amara, get_order(order), get_warranty(warranty)),
            file_claim(warranty, "accidental_damage", "repair", "Screen cracked after a drop on the pavement."),
            solved(ticket.id, "warranty"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.issue, claim.resolution) == ("accidental_damage", "repair")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", None, None)


def test_case_RT006_004(tb):
    """TV fault on a warranty that already had an approved repair: this claim is resolved by replacement."""
    oliver = CustomerFactory(name="Oliver Haddad")
    order = delivered_order(oliver, [TV], placed_days_ago=505)
    warranty = warranty_on(
        order, TV, starts_on=TODAY - timedelta(days=500), plan="extended", expires_on=TODAY + timedelta(days=595)
    )
    WarrantyClaimFactory(warranty=warranty, created_at=days_ago(150), description="Backlight failure, repaired.")
    ticket = ticket_about(order, "TV lines on screen")

    run = tb.run(
        User(
            says="My Vista TV has green vertical lines across the picture now. Can you send someone to repair it?",
            knows={"email": oliver.email, "order id": order.id},
        ),
        golden=[
            *opening(oliver, get_order(order), get_warranty(warranty)),
            file_claim(warranty, "defect", "replacement", "Green vertical lines across the picture."),
            solved(ticket.id, "warranty"),
        ],
        traps=[  # the repair visit he asks for, though an earlier approved claim makes this one a replacement
            file_claim(warranty, "defect", "repair", "Green vertical lines on the TV picture; send a technician.")
        ],
    )

    run.expect_golden()
    new_claim = run.db.query(WarrantyClaim).order_by(WarrantyClaim.id.desc()).first()
    assert new_claim.resolution == "replacement"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", None, None)


def test_case_RT006_005(tb):
    """Heater with a burning smell, in warranty: file the defect claim and also hold the ticket as urgent (safety)."""
    kenji = CustomerFactory(name="Kenji Rossi")
    order = delivered_order(kenji, [HEATER], placed_days_ago=100)
    warranty = warranty_on(order, HEATER, starts_on=TODAY - timedelta(days=95))
    ticket = ticket_about(order, "Heater problem")

    run = tb.run(
        User(
            says="The ceramic heater I bought from you gives off a burning smell after a few minutes on. "
            "I'd like it replaced under warranty.",
            knows={"email": kenji.email, "order id": order.id},
        ),
        golden=[
            *opening(kenji, get_order(order), get_warranty(warranty)),
            file_claim(warranty, "defect", "replacement", "Burning smell after a few minutes of use."),
            *safety_hold(ticket.id, "Safety report: burning smell from the heater. For the product safety team."),
        ],
        reply="Please stop using the heater and unplug it. I've reported the burning smell to our product safety "
        "team, and as your heater is under warranty I've filed a claim for a replacement.",
        traps=[  # "I'd like it replaced": a new heater shipped at once, outside the warranty claim
            call("create_replacement_order", order_id=order.id, reason="damaged")
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "safety", "safety_risk", "safety_team")
    assert internal_notes(run.db, ticket.id) == 1
    assert run.db.query(WarrantyClaim).one().resolution == "replacement"
    assert run.db.query(Order).filter(Order.replacement_for == order.id).count() == 0
    run.rubric(STOP_USING, phrases=STOP_USING_PHRASES)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT006_006(tb):
    """Dropped phone on the manufacturer plan: accidental damage is not covered, so no claim is filed; the sealed
    headphones she sends back are inside the 30-day window: open the return, and the ticket waits for the item."""
    elena = CustomerFactory(name="Elena Walsh")
    order = delivered_order(elena, [PHONE], placed_days_ago=60)
    warranty = warranty_on(order, PHONE, starts_on=TODAY - timedelta(days=55))
    headphones_order = delivered_order(elena, [HEADPHONES], placed_days_ago=16)  # delivered 11 days ago
    ticket = ticket_about(order, "Phone screen broken")

    run = tb.run(
        User(
            says="My phone's screen is smashed and the touch doesn't work anymore. It's only two months old, "
            "that has to be covered by the warranty. Separately, I'd like to send back the headphones I bought "
            "a couple of weeks ago, they're still sealed in the box.",
            knows={
                "email": elena.email,
                "order id": order.id,
                "what happened": "it slipped out of my hand onto the kitchen tiles",
                "headphones order id": headphones_order.id,
                "headphones condition": "unopened, still sealed",
            },
        ),
        golden=[
            *opening(elena, get_order(order), get_warranty(warranty), get_order(headphones_order)),
            open_return(headphones_order.items[0], "unopened"),
            *pending(
                ticket.id,
                "warranty",
                "awaiting_item",
                "Phone drop not covered by the manufacturer plan; headphones return approved, awaiting the item.",
            ),
        ],
        traps=[  # "that has to be covered": the smashed screen filed as a defect without asking what happened
            file_claim(warranty, "defect", "repair", "Screen smashed, touch no longer works."),
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: the manufacturer plan never covers accidental damage
    rma = run.db.query(Return).one()
    assert (rma.order_item_id, rma.status, rma.declared_condition) == (
        headphones_order.items[0].id,
        "approved",
        "unopened",
    )
    # the phone came first (its category); the ticket now waits for the headphones, and that wait gives the reason
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "warranty", "awaiting_item", None)
    assert internal_notes(run.db, ticket.id) == 1


@pytest.mark.two_requests
def test_case_RT006_007(tb):
    """Smoking heater whose warranty has expired: no claim, but a safety report still goes on urgent hold; the
    dishwasher installation he moves is 30 hours away, so a plus member pays the $35 reschedule fee."""
    tomas = CustomerFactory(name="Tomas Okafor", tier="plus")
    order = delivered_order(tomas, [HEATER], placed_days_ago=400)
    warranty = warranty_on(order, HEATER, starts_on=TODAY - timedelta(days=395), expires_on=TODAY - timedelta(days=31))
    _dishwasher_order, job = _installation(tomas, DISHWASHER, scheduled_for=datetime(2026, 3, 17, 15, 0))
    ticket = ticket_about(order, "Heater")

    run = tb.run(
        User(
            says="My space heater started smoking out of the back grille last night. Can I get it repaired? And "
            "I have to work late tomorrow, so please move the dishwasher installation to Thursday afternoon.",
            knows={
                "email": tomas.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Thursday 19 March 2026 at 13:00",
            },
        ),
        golden=[
            *opening(tomas, get_order(order), get_warranty(warranty), get_job(job)),
            reschedule(
                job, derived("2026-03-19T13:00", "the time he gives, Thursday 19 March 2026 at 13:00, in ISO"), 3_500
            ),
            *safety_hold(
                ticket.id, "Safety report: heater smoking. Warranty expired, no claim. For the product safety team."
            ),
        ],
        reply="Please stop using the heater and unplug it. Its warranty ended last month, so I can't file a repair "
        "claim, but I've passed your report to our product safety team. Your dishwasher installation is moved to "
        "Thursday 19 March at 13:00; as it was less than 48 hours away, the $35 reschedule fee applies.",
        traps=[  # the repair he asks for, filed on a warranty that expired a month ago
            file_claim(warranty, "defect", "repair", "Heater smoking from the back grille.")
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: expired warranty, no claim even for a safety report
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.scheduled_for, moved.reschedule_fees_cents) == (datetime(2026, 3, 19, 13, 0), 3_500)
    # the safety hold wins over the expired warranty's refusal
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "urgent", "safety", "safety_risk", "safety_team")
    assert internal_notes(run.db, ticket.id) == 1
    run.rubric(STOP_USING, phrases=STOP_USING_PHRASES)


# --------------------------------------------------------------------------- installation appointments


def test_case_RT007_001(tb):
    """Reschedule requested 50 hours ahead: just over the 48-hour line, so it is free."""
    sarah = CustomerFactory(name="Sarah Okafor")
    order, job = _installation(sarah, DISHWASHER, scheduled_for=datetime(2026, 3, 18, 11, 0))
    ticket = TicketFactory(requester=sarah, order_id=order.id, subject="Move installation", status="new")

    run = tb.run(
        User(
            says="I can't be home on Wednesday for the dishwasher installation. Could you move it to Saturday "
            "morning? I hope there's no charge.",
            knows={
                "email": sarah.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Saturday 21 March 2026 at 10:00",
            },
        ),
        golden=[
            *opening(sarah, get_job(job)),
            reschedule(
                job, derived("2026-03-21T10:00", "the time she gives, Saturday 21 March 2026 at 10:00, in ISO form"), 0
            ),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.scheduled_for, moved.reschedule_fees_cents) == (datetime(2026, 3, 21, 10, 0), 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


def test_case_RT007_002(tb):
    """Reschedule requested 30 hours ahead by a standard member: the $35 late reschedule fee applies."""
    marcus = CustomerFactory(name="Marcus Ferreira")
    order, job = _installation(marcus, DISHWASHER, scheduled_for=datetime(2026, 3, 17, 15, 0))
    ticket = TicketFactory(requester=marcus, order_id=order.id, subject="Reschedule installation")

    run = tb.run(
        User(
            says="Something came up at work, I need to push tomorrow's dishwasher installation to Thursday afternoon.",
            knows={
                "email": marcus.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Thursday 19 March 2026 at 13:00",
            },
        ),
        golden=[
            *opening(marcus, get_job(job)),
            reschedule(
                job,
                derived("2026-03-19T13:00", "the time he gives, Thursday 19 March 2026 at 13:00, in ISO form"),
                3_500,
            ),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).reschedule_fees_cents == 3_500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


def test_case_RT007_003(tb):
    """Plus member cancels 23 hours before: keep the $40 late-cancellation charge and refund the rest of the fee."""
    grace = CustomerFactory(name="Grace Rossi", tier="plus")
    order, job = _installation(grace, FRIDGE, scheduled_for=datetime(2026, 3, 17, 8, 0), fee_cents=19_900)
    ticket = TicketFactory(requester=grace, order_id=order.id, subject="Cancel installation")

    run = tb.run(
        User(
            says="My brother-in-law is going to install the fridge for us, so please cancel tomorrow's "
            "installation appointment and refund the installation fee.",
            knows={"email": grace.email, "order id": order.id, "installation job": job.id},
        ),
        golden=[
            *opening(grace, get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=4_000),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).cancellation_fee_cents == 4_000
    assert run.db.query(Refund).one().amount_cents == 15_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


def test_case_RT007_004(tb):
    """Premium member cancels 29 hours before: premium members pay no late-cancellation charge."""
    daniel = CustomerFactory(name="Daniel Chen", tier="premium")
    order, job = _installation(daniel, DISHWASHER, scheduled_for=datetime(2026, 3, 17, 14, 0))
    ticket = TicketFactory(requester=daniel, order_id=order.id, subject="Cancel installation")

    run = tb.run(
        User(
            says="Please cancel the dishwasher installation booked for tomorrow, we've decided to install it "
            "ourselves.",
            knows={"email": daniel.email, "order id": order.id, "installation job": job.id},
        ),
        golden=[
            *opening(daniel, get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=0),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).status == "cancelled"
    assert run.db.query(Refund).one().amount_cents == 14_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


@pytest.mark.two_requests
def test_case_RT007_005(tb):
    """TV job already rescheduled twice: a third move is refused and it stays as it is (she will not cancel); her
    dishwasher visit, never moved and 77 hours away, is moved free of charge."""
    priya = CustomerFactory(name="Priya Lindqvist", tier="plus")
    order, job = _installation(
        priya, TV, scheduled_for=datetime(2026, 3, 21, 9, 0), reschedule_count=2, fee_cents=9_900
    )
    _dishwasher_order, dishwasher_job = _installation(priya, DISHWASHER, scheduled_for=datetime(2026, 3, 19, 14, 0))
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="TV mounting date")

    run = tb.run(
        User(
            says="Sorry to bother you again, but can we move the TV wall-mounting appointment one more time, "
            "to the Wednesday after? If that's not possible, leave it as it is, I don't want to cancel. And the "
            "dishwasher installation on Thursday has to move as well, to next Tuesday morning.",
            knows={
                "email": priya.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Wednesday 25 March 2026 at 09:00",
                "dishwasher installation job": dishwasher_job.id,
                "new dishwasher time": "Tuesday 24 March 2026 at 10:00",
            },
        ),
        golden=[
            *opening(priya, get_job(job), get_job(dishwasher_job)),
            reschedule(
                dishwasher_job,
                derived("2026-03-24T10:00", "the time she gives, Tuesday 24 March 2026 at 10:00, in ISO"),
                0,
            ),
            solved(ticket.id, "installation", "not_eligible"),
        ],
        traps=[  # the third move she asks for, to Wednesday 25 March at 09:00 (free, more than 48 hours ahead)
            reschedule(job, "2026-03-25T09:00", 0)
        ],
    )

    run.expect_golden()
    kept = run.db.get(InstallationJob, job.id)
    # policy: a job rescheduled twice cannot be moved again, and she does not want it cancelled
    assert (kept.status, kept.scheduled_for, kept.reschedule_count) == ("scheduled", datetime(2026, 3, 21, 9, 0), 2)
    moved = run.db.get(InstallationJob, dishwasher_job.id)
    assert (moved.scheduled_for, moved.reschedule_count, moved.reschedule_fees_cents) == (
        datetime(2026, 3, 24, 10, 0),
        1,
        0,
    )
    # the TV came first and was refused: its reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", "not_eligible", None)


@pytest.mark.two_requests
def test_case_RT007_006(tb):
    """Technician missed the visit: rebook free of charge and give courtesy points (standard 500 + 500 tenure)."""
    oliver = CustomerFactory(name="Oliver Chen", member_since=TODAY - timedelta(days=6 * 365 + 40))
    order, job = _installation(oliver, DISHWASHER, scheduled_for=datetime(2026, 3, 14, 10, 0), status="missed")
    ticket = TicketFactory(requester=oliver, order_id=order.id, subject="Installer never came")

    run = tb.run(
        User(
            says="I took Saturday morning off for the dishwasher installation and nobody showed up. I need a new "
            "appointment, and frankly I'd like something for the wasted morning.",
            knows={
                "email": oliver.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Wednesday 18 March 2026 at 09:00",
            },
        ),
        golden=[
            *opening(oliver, get_customer(oliver), get_job(job)),
            reschedule(
                job, derived("2026-03-18T09:00", "the time he gives, Wednesday 18 March 2026 at 09:00, in ISO form"), 0
            ),
            courtesy_points(oliver, 1_000, order),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).reschedule_count == 0
    assert run.db.query(PointsAdjustment).one().points == 1_000
    # the new appointment was asked for first, so the ticket is about the installation
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


@pytest.mark.two_requests
def test_case_RT006_008(tb):
    """Laptop keyboard fault is a covered defect (repair); the phone dropped on a manufacturer plan is refused."""
    sofia = CustomerFactory(name="Sofia Lindgren")
    laptop_order = delivered_order(sofia, [LAPTOP], placed_days_ago=150)
    laptop_warranty = warranty_on(laptop_order, LAPTOP, starts_on=TODAY - timedelta(days=145))
    phone_order = delivered_order(sofia, [PHONE], placed_days_ago=90)
    phone_warranty = warranty_on(phone_order, PHONE, starts_on=TODAY - timedelta(days=85))
    ticket = ticket_about(laptop_order, "Laptop keyboard and phone")

    run = tb.run(
        User(
            says="Two problems, sorry. First, half a dozen keys on my Aurora laptop stopped responding last week, "
            "and it has never been dropped or spilled on. Second, my Nimbus phone fell out of my bag onto the "
            "train platform and the back glass shattered. Can you sort both out under the warranty?",
            knows={
                "email": sofia.email,
                "laptop order number": laptop_order.id,
                "phone order number": phone_order.id,
            },
        ),
        golden=[
            *opening(
                sofia,
                get_order(laptop_order),
                get_warranty(laptop_warranty),
                get_order(phone_order),
                get_warranty(phone_warranty),
            ),
            file_claim(
                laptop_warranty, "defect", "repair", "Several keyboard keys stopped responding; no drop or spill."
            ),
            solved(ticket.id, "warranty", "not_eligible"),
        ],
        traps=[  # her second request: the dropped phone claimed on a plan that never covers accidents
            file_claim(
                phone_warranty, "accidental_damage", "repair", "Back glass shattered after a fall on a train platform."
            )
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.warranty_id, claim.issue, claim.resolution) == (laptop_warranty.id, "defect", "repair")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", "not_eligible", None)


@pytest.mark.distractors
def test_case_RT006_009(tb):
    """Two Aurora laptops on file: the serial number picks the new one, in warranty, so file its defect (repair)."""
    kofi = CustomerFactory(name="Kofi Mensah", member_since=TODAY - timedelta(days=4 * 365))
    old_order = delivered_order(kofi, [LAPTOP], placed_days_ago=800)
    old_warranty = warranty_on(old_order, LAPTOP, starts_on=TODAY - timedelta(days=795))
    new_order = delivered_order(kofi, [LAPTOP], placed_days_ago=70)
    new_warranty = warranty_on(new_order, LAPTOP, starts_on=TODAY - timedelta(days=65))
    ticket = TicketFactory(requester=kofi, subject="Laptop keeps switching off")

    run = tb.run(
        User(
            says="My Aurora 14 laptop has started switching itself off every ten minutes or so, even when it's "
            "plugged in and the battery shows full. It's the one I use for work and I can't get anything done. "
            "Can you get it repaired under the warranty?",
            knows={
                "email": kofi.email,
                "serial number": new_warranty.serial_number,
                "when bought": "in early January this year",
            },
        ),
        golden=[
            *opening(kofi, list_orders(kofi), get_order(new_order), get_order(old_order), get_warranty(new_warranty)),
            file_claim(
                new_warranty, "defect", "repair", "Laptop switches itself off every ten minutes, even on mains power."
            ),
            solved(ticket.id, "warranty"),
        ],
        traps=[  # the first Aurora on file, bought two years ago: its warranty expired long ago
            file_claim(old_warranty, "defect", "repair", "Laptop switches itself off every ten minutes.")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.warranty_id, claim.resolution) == (new_warranty.id, "repair")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT006_010(tb):
    """Accident plan already used for an accidental-damage claim: refuse the second; do not refile it as a defect.
    The new phone she ordered yesterday has not shipped, so it goes to her office (profile postal code given)."""
    maya = CustomerFactory(name="Maya Goldberg", tier="plus", postal_code="97214", city="Portland")
    order = delivered_order(maya, [PHONE], placed_days_ago=300)
    warranty = warranty_on(
        order,
        PHONE,
        starts_on=TODAY - timedelta(days=295),
        plan="accident_protection",
        expires_on=TODAY + timedelta(days=435),
    )
    WarrantyClaimFactory(
        warranty=warranty,
        issue="accidental_damage",
        resolution="repair",
        created_at=days_ago(120),
        description="Screen cracked in a fall; repaired.",
    )
    new_order = OrderFactory(customer=maya, status="processing", placed_at=days_ago(1, hour=12), lines=[PHONE])
    ticket = ticket_about(order, "Phone dropped in water")
    office = ("1120 SW Fifth Avenue, Floor 9", "Portland", "97204")

    run = tb.run(
        User(
            says="My Nimbus phone slipped into the bath last night and now it won't switch on at all. I pay for "
            "accident protection exactly for this kind of thing. And if the accident cover won't do it for some "
            "reason, then just log it as a fault: it doesn't turn on, so it is faulty, isn't it? I've had to order "
            "a new phone in the meantime; please have that one delivered to my office instead of my home.",
            knows={
                "email": maya.email,
                "order number": order.id,
                "what happened": "it fell into the bath",
                "new phone order number": new_order.id,
                "postal code": "97214",
                **address_facts(office, "office"),
            },
            persona="Frustrated and quick to argue; looks for another way when she is told no.",
            rules=(
                "If the agent refuses the accident claim, ask them to file it as a defect instead.",
                "Once the agent has answered both, do not argue further.",
            ),
        ),
        golden=[
            *opening(maya, get_order(order), get_warranty(warranty), get_order(new_order)),
            ship_to(new_order, office),
            solved(ticket.id, "warranty", "not_eligible"),
        ],
        traps=[
            # the accident cover she pays for, though it already paid for one accidental-damage claim
            file_claim(warranty, "accidental_damage", "replacement", "Phone dropped in the bath; no longer powers on."),
            # her fallback: water damage logged as a defect
            file_claim(warranty, "defect", "replacement", "Phone does not power on."),
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 1  # only the earlier repair
    moved = run.db.get(Order, new_order.id)
    assert (moved.ship_line, moved.ship_postal_code) == ("1120 SW Fifth Avenue, Floor 9", "97204")
    # the phone came first and was refused: its category and reason
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", "not_eligible", None)


def test_case_RT006_011(tb):
    """Sparks from a 3-month-old espresso machine, no ticket yet: open one, file the defect, hold it for safety."""
    wei = CustomerFactory(name="Wei Chen", tier="premium")
    order = delivered_order(wei, [ESPRESSO], placed_days_ago=90)
    warranty = warranty_on(
        order, ESPRESSO, starts_on=TODAY - timedelta(days=85), expires_on=TODAY + timedelta(days=645)
    )

    run = tb.run(
        User(
            says="This morning my espresso machine made a loud pop and there were sparks coming from behind the "
            "water tank. I pulled the plug straight away, but I'm honestly nervous about touching it again. It's "
            "only a few months old. What happens now?",
            knows={"email": wei.email, "order number": order.id},
        ),
        golden=[
            *opening(wei, get_order(order), get_warranty(warranty)),
            new_ticket(wei, "Safety report: espresso machine sparking", "safety", order),
            file_claim(warranty, "defect", "repair", "Loud pop and sparks from behind the water tank; unplugged."),
            *hold(
                "T-0001",
                None,
                "safety_risk",
                "Safety report: sparks from the espresso machine. For the product safety team.",
                priority="urgent",
            ),
        ],
        reply="You did the right thing pulling the plug: please keep it unplugged and stop using the machine. I've "
        "passed your report to our product safety team and filed a warranty claim, so it will be repaired.",
        traps=[  # a new machine shipped straight away instead of the claim and the safety review
            call("create_replacement_order", order_id=order.id, reason="damaged")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.issue, claim.resolution) == ("defect", "repair")  # 449.00 is above 150.00, no earlier claim
    opened = run.db.get(Ticket, "T-0001")
    assert (opened.requester_id, opened.order_id) == (wei.id, order.id)
    assert run.db.get(Ticket, "T-0001").outcome == ("hold", "urgent", "safety", "safety_risk", "safety_team")
    assert internal_notes(run.db, "T-0001") == 1
    assert run.db.query(Refund).count() == 0
    run.rubric(STOP_USING, phrases=STOP_USING_PHRASES)


@pytest.mark.two_requests
def test_case_RT007_007(tb):
    """Missed fridge installation rebooked for free; courtesy points refused (one given 30 days ago)."""
    ana = CustomerFactory(name="Ana Costa", tier="plus")
    PointsAdjustmentFactory(customer=ana, points=1_000, created_at=days_ago(30), note="Courtesy for a late parcel.")
    order, job = _installation(
        ana, FRIDGE, scheduled_for=datetime(2026, 3, 13, 13, 0), status="missed", fee_cents=19_900
    )
    ticket = TicketFactory(requester=ana, order_id=order.id, subject="Fridge installer no-show")

    run = tb.run(
        User(
            says="Your installer never turned up for my fridge on Friday afternoon. I'd taken the afternoon off "
            "work for it. I need a new appointment, Wednesday afternoon if you can. And I'd expect some points on "
            "my account for the wasted afternoon.",
            knows={
                "email": ana.email,
                "order number": order.id,
                "installation job": job.id,
                "new time": "Wednesday 18 March 2026 at 14:00",
            },
        ),
        golden=[
            *opening(ana, get_customer(ana), get_job(job)),
            reschedule(
                job, derived("2026-03-18T14:00", "the time she gives, Wednesday 18 March 2026 at 14:00, in ISO"), 0
            ),
            solved(ticket.id, "installation", "not_eligible"),
        ],
        reply="I've moved your installation to Wednesday 18 March at 14:00, free of charge since our technician "
        "missed the visit. I can't add courtesy points this time: you received courtesy points 30 days ago, and "
        "they can be given once every 90 days.",
        traps=[  # her second request: plus-tier courtesy points, though her last courtesy was 30 days ago
            courtesy_points(ana, 1_000, order)
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.status, moved.scheduled_for, moved.reschedule_fees_cents) == (
        "scheduled",
        datetime(2026, 3, 18, 14, 0),
        0,
    )
    assert run.db.query(PointsAdjustment).count() == 1  # only the earlier one
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", "not_eligible", None)


def test_case_RT007_008(tb):
    """Late reschedule would cost $35, so the customer cancels as she said she would: keep the $40 charge."""
    bea = CustomerFactory(name="Beatrice Carter")
    order, job = _installation(bea, DISHWASHER, scheduled_for=datetime(2026, 3, 17, 12, 0))
    ticket = TicketFactory(requester=bea, order_id=order.id, subject="Installation tomorrow")

    run = tb.run(
        User(
            says="I need to move tomorrow's dishwasher installation, my son's school has called me in for a "
            "meeting at noon. But if moving it is going to cost me anything extra, then don't bother: cancel the "
            "appointment altogether and I'll get a local plumber to fit it.",
            knows={"email": bea.email, "order number": order.id, "installation job": job.id},
            persona="A working parent juggling appointments; practical, does not want to pay twice.",
            rules=(
                "If the agent says moving the appointment costs a fee, ask for it to be cancelled instead.",
                "Accept a cost the agent explains; do not argue about it.",
            ),
        ),
        golden=[
            *opening(bea, get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=4_000),
            solved(ticket.id, "installation"),
        ],
        reply="Moving an appointment that is less than 48 hours away costs $35, so as you asked I've cancelled it "
        "instead. The late-cancellation charge is $40, so $109.00 of your $149.00 installation fee goes back to "
        "your card.",
    )

    run.expect_golden()
    cancelled = run.db.get(InstallationJob, job.id)
    assert (cancelled.status, cancelled.cancellation_fee_cents, cancelled.reschedule_fees_cents) == (
        "cancelled",
        4_000,
        0,
    )
    assert run.db.query(Refund).one().amount_cents == 10_900
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


def test_case_RT006_012(tb):
    """Blender motor dead after 10 months, 24-month warranty: covered; under $150, so a replacement; open a ticket."""
    joao = CustomerFactory(name="Joao Pereira")
    order = delivered_order(joao, [BLENDER], placed_days_ago=305)
    warranty = warranty_on(
        order, BLENDER, starts_on=TODAY - timedelta(days=300), expires_on=TODAY + timedelta(days=430)
    )
    closed = TicketFactory(requester=joao, status="closed", subject="Delivery slot", created_at=days_ago(300))
    new_ticket_id = new_id("T-", closed)

    run = tb.run(
        User(
            says="My Breeze blender just hums and the blades don't turn any more. It's less than a year old. "
            "Can you fix it?",
            knows={"email": joao.email, "order id": order.id},
        ),
        golden=[
            *opening(joao, get_order(order), get_warranty(warranty)),
            new_ticket(joao, "Blender motor fault under warranty", "warranty", order),
            file_claim(warranty, "defect", "replacement", "Blender motor hums but the blades do not turn."),
            solved(new_ticket_id),
        ],
        traps=[  # the repair he asks for, though a product under $150 is replaced
            file_claim(warranty, "defect", "repair", "Blender motor hums; customer asks for a repair.")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.warranty_id, claim.issue, claim.resolution) == (warranty.id, "defect", "replacement")
    opened = run.db.get(Ticket, new_ticket_id)
    assert (opened.requester_id, opened.order_id) == (joao.id, order.id)
    assert opened.outcome == ("solved", "normal", "warranty", None, None)


@pytest.mark.distractors
def test_case_RT006_013(tb):
    """TV with two warranties: the extended one ends today (inclusive), and its own record has no claim: repair."""
    ingrid = CustomerFactory(name="Ingrid Halvorsen", tier="plus")
    order = delivered_order(ingrid, [TV], placed_days_ago=1_100)
    manufacturer = warranty_on(order, TV, starts_on=date(2023, 3, 17), expires_on=date(2025, 3, 16))
    WarrantyClaimFactory(warranty=manufacturer, created_at=datetime(2024, 6, 3, 10, 0))
    extended = warranty_on(order, TV, starts_on=date(2025, 3, 17), plan="extended", expires_on=date(2026, 3, 16))
    ticket = ticket_about(order, "TV no picture")

    run = tb.run(
        User(
            says="My Vista TV has sound but no picture since last night. I think my extended warranty runs out "
            "about now, so I hope I'm still in time. It was repaired once before, so I'd rather have a new one.",
            knows={"email": ingrid.email, "order id": order.id},
        ),
        golden=[
            *opening(ingrid, get_order(order), get_warranty(manufacturer), get_warranty(extended)),
            file_claim(extended, "defect", "repair", "TV has sound but no picture."),
            solved(ticket.id, "warranty"),
        ],
        traps=[  # a replacement because of the repair on the other, expired warranty
            file_claim(extended, "defect", "replacement", "TV has sound but no picture; repaired once before.")
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).filter(WarrantyClaim.created_at > days_ago(1)).one()
    # covered on its last day; the earlier repair was on the manufacturer warranty, not this one
    assert (claim.warranty_id, claim.issue, claim.resolution) == (extended.id, "defect", "repair")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "warranty", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_RT006_014(tb):
    """Heater plug melted, warranty void: no claim, no refund; a safety report on urgent hold in a new ticket. The
    blender she ordered on Saturday has not shipped, so her cancellation (profile postal code given) is made."""
    carla = CustomerFactory(name="Carla Mendes", postal_code="85719", city="Tucson")
    order = delivered_order(carla, [HEATER], placed_days_ago=70)
    warranty = warranty_on(order, HEATER, starts_on=TODAY - timedelta(days=65), void=True)
    blender_order = OrderFactory(customer=carla, status="processing", placed_at=days_ago(2, hour=16), lines=[BLENDER])
    closed = TicketFactory(requester=carla, status="closed", subject="Delivery date", created_at=days_ago(66))
    new_ticket_id = new_id("T-", closed)

    run = tb.run(
        User(
            says="The plug on my Ember space heater has melted into the socket! I want my money back for this "
            "dangerous thing. And cancel the blender I ordered on Saturday, I don't trust your products any more.",
            knows={
                "email": carla.email,
                "order id": order.id,
                "blender order id": blender_order.id,
                "postal code": "85719",
            },
            rules=("If a refund is refused, insist once that a product that melts should be refunded.",),
        ),
        golden=[
            *opening(carla, get_order(order), get_warranty(warranty), get_order(blender_order)),
            new_ticket(carla, "Heater plug melted", "safety", order),
            call("cancel_order", order_id=blender_order.id),
            *hold(
                new_ticket_id,
                None,
                "safety_risk",
                "Safety report: heater plug melted into the socket. Warranty is void, no claim filed.",
                priority="urgent",
            ),
        ],
        traps=[  # the refund she demands: a safety report never results in a refund from the agent
            issue_refund(order, 6_900, "damaged")
        ],
        reply="Please stop using the heater and unplug it at the wall if it is safe to do so. I've passed this to "
        "our product safety team. I've also cancelled your blender order and refunded $89.00 to your card.",
    )

    run.expect_golden()
    assert run.db.get(Order, blender_order.id).status == "cancelled"
    refund = run.db.query(Refund).one()  # the blender's payment; nothing for the heater (a safety report)
    assert (refund.order_id, refund.amount_cents, refund.reason) == (blender_order.id, 8_900, "order_cancelled")
    assert run.db.query(WarrantyClaim).count() == 0  # the warranty is void
    assert run.db.get(Ticket, new_ticket_id).outcome == ("hold", "urgent", "safety", "safety_risk", "safety_team")
    assert internal_notes(run.db, new_ticket_id) == 1
    run.rubric(STOP_USING, phrases=STOP_USING_PHRASES)


@pytest.mark.distractors
def test_case_RT007_009(tb):
    """Premium member moves today's 15:00 dishwasher visit, 6 hours ahead: free; the TV visit stays as it is."""
    nora = CustomerFactory(name="Nora Valdez", tier="premium")
    order = delivered_order(nora, [DISHWASHER, TV], placed_days_ago=9)
    dishwasher_job = InstallationJobFactory(
        order=order, product_id=DISHWASHER, scheduled_for=datetime(2026, 3, 16, 15, 0)
    )
    tv_job = InstallationJobFactory(order=order, product_id=TV, scheduled_for=datetime(2026, 3, 19, 11, 0))
    ticket = ticket_about(order, "Installation today")

    run = tb.run(
        User(
            says="Something's come up at work and I can't be home this afternoon for the dishwasher installation. "
            "Can we move it to Wednesday morning?",
            knows={"email": nora.email, "order id": order.id, "new time": "Wednesday 18 March 2026 at 09:00"},
        ),
        golden=[
            *opening(nora, get_order(order), get_job(dishwasher_job)),
            reschedule(
                dishwasher_job,
                derived("2026-03-18T09:00", "the time she gives, Wednesday 18 March 2026 09:00, in ISO"),
                0,
            ),
            solved(ticket.id, "installation"),
        ],
        traps=[  # the $35 late-reschedule fee, which premium members never pay
            reschedule(dishwasher_job, "2026-03-20T09:00", 3_500)
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, dishwasher_job.id)
    assert (moved.scheduled_for, moved.reschedule_count, moved.reschedule_fees_cents) == (
        datetime(2026, 3, 18, 9, 0),
        1,
        0,
    )
    assert run.db.get(InstallationJob, tv_job.id).scheduled_for == datetime(2026, 3, 19, 11, 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)


@pytest.mark.pushback
def test_case_RT007_010(tb):
    """Third move refused (two reschedules already); she cancels instead, 47 hours ahead: the $40 charge is kept."""
    alma = CustomerFactory(name="Alma Johansson")
    order, job = _installation(alma, FRIDGE, scheduled_for=datetime(2026, 3, 18, 8, 0), reschedule_count=2)
    ticket = TicketFactory(requester=alma, order_id=order.id, subject="Fridge installation")

    run = tb.run(
        User(
            says="I need to move the fridge installation on Wednesday morning again, sorry. Next week would be better.",
            knows={"email": alma.email, "order id": order.id},
            rules=(
                "If the appointment cannot be moved, protest once, then ask to cancel it instead.",
                "Accept a cost the agent explains; do not argue about it.",
            ),
        ),
        golden=[
            *opening(alma, get_order(order), get_job(job)),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=4_000),
            solved(ticket.id, "installation"),
        ],
    )

    run.expect_golden()
    cancelled = run.db.get(InstallationJob, job.id)
    assert (cancelled.status, cancelled.cancellation_fee_cents, cancelled.reschedule_count) == ("cancelled", 4_000, 2)
    assert run.db.query(Refund).one().amount_cents == 10_900  # the 149.00 fee less the 40.00 charge
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "installation", None, None)
