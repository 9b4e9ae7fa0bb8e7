"""Warranty claims (coverage, plans, resolution, safety) and installation appointments (fees, limits)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from domains.retail.clock import TODAY, days_ago
from domains.retail.factories import (
    CustomerFactory,
    InstallationJobFactory,
    OrderFactory,
    ShipmentFactory,
    TicketFactory,
    WarrantyClaimFactory,
    WarrantyFactory,
)
from domains.retail.models import (
    InstallationJob,
    PointsAdjustment,
    Refund,
    Ticket,
    WarrantyClaim,
)
from domains.retail.seed import DISHWASHER, ESPRESSO, FRIDGE, HEATER, LAPTOP, PHONE, TV
from pytest_thinkingbox import User, call, derived


def _owned(customer, product, *, bought_days_ago):
    """A delivered order of one product, bought `bought_days_ago` days ago."""
    order = OrderFactory(customer=customer, placed_at=days_ago(bought_days_ago), lines=[product])
    ShipmentFactory(order=order)
    return order


def test_case_RT006_001(tb):
    """Laptop that will not power on, within its warranty: file a defect claim, resolved by repair (price >= $150)."""
    priya = CustomerFactory(name="Priya Chen")
    order = _owned(priya, LAPTOP, bought_days_ago=200)
    warranty = WarrantyFactory(
        customer=priya, product_id=LAPTOP, order_id=order.id, starts_on=TODAY - timedelta(days=195)
    )
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="Laptop dead")

    run = tb.run(
        User(
            says="My Aurora laptop won't turn on at all anymore, no lights, nothing, even when plugged in. "
            "I'd like a brand-new one.",
            knows={"email": priya.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=priya.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=priya.id),
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Laptop does not power on, no lights when plugged in.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # the brand-new laptop she asks for, though a $1,299 product with no earlier claim is repaired
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="replacement",
                description="Laptop does not power on; customer wants a new one.",
            )
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.issue, claim.resolution) == ("defect", "repair")


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the warranty expired 10 days ago, so the claim is not covered: the policy files nothing and solves "
        "the ticket as a refusal, which is exactly the solve ending"
    }
)
def test_case_RT006_002(tb):
    """Espresso machine failed 10 days after its warranty expired: no claim; the ticket is solved as a refusal."""
    daniel = CustomerFactory(name="Daniel Walsh", tier="plus")
    order = _owned(daniel, ESPRESSO, bought_days_ago=745)
    warranty = WarrantyFactory(
        customer=daniel,
        product_id=ESPRESSO,
        order_id=order.id,
        starts_on=TODAY - timedelta(days=740),
        expires_on=TODAY - timedelta(days=10),
    )
    ticket = TicketFactory(requester=daniel, order_id=order.id, subject="Espresso machine not heating")

    run = tb.run(
        User(
            says="My Duo espresso machine stopped heating the water. It has a two-year warranty, "
            "so please get it fixed for me.",
            knows={"email": daniel.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=daniel.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=daniel.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "it has a two-year warranty": the repair he asks for, filed on the expired warranty
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Espresso machine no longer heats the water.",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: a claim after expires_on is not covered
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_RT006_003(tb):
    """Dropped phone on an accident-protection plan with no earlier accident claim: covered, resolved by repair."""
    amara = CustomerFactory(name="Amara Nair", tier="plus")
    order = _owned(amara, PHONE, bought_days_ago=125)
    warranty = WarrantyFactory(
        customer=amara,
        product_id=PHONE,
        order_id=order.id,
        plan="accident_protection",
        starts_on=TODAY - timedelta(days=120),
        expires_on=TODAY + timedelta(days=610),
    )
    ticket = TicketFactory(requester=amara, order_id=order.id, subject="Cracked phone screen")

    run = tb.run(
        User(
            says="I dropped my Nimbus phone on the pavement and the screen is cracked all over. "
            "Is there anything you can do?",
            knows={"email": amara.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=amara.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=amara.id),
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="accidental_damage",
                resolution="repair",
                description="Screen cracked after a drop on the pavement.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    claim = run.db.query(WarrantyClaim).one()
    assert (claim.issue, claim.resolution) == ("accidental_damage", "repair")


def test_case_RT006_004(tb):
    """TV fault on a warranty that already had an approved repair: this claim is resolved by replacement."""
    oliver = CustomerFactory(name="Oliver Haddad")
    order = _owned(oliver, TV, bought_days_ago=505)
    warranty = WarrantyFactory(
        customer=oliver,
        product_id=TV,
        order_id=order.id,
        plan="extended",
        starts_on=TODAY - timedelta(days=500),
        expires_on=TODAY + timedelta(days=595),
    )
    WarrantyClaimFactory(warranty=warranty, created_at=days_ago(150), description="Backlight failure, repaired.")
    ticket = TicketFactory(requester=oliver, order_id=order.id, subject="TV lines on screen")

    run = tb.run(
        User(
            says="My Vista TV has green vertical lines across the picture now. Can you send someone to repair it?",
            knows={"email": oliver.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=oliver.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=oliver.id),
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="replacement",
                description="Green vertical lines across the picture.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # the repair visit he asks for, though an earlier approved claim makes this one a replacement
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Green vertical lines on the TV picture; send a technician.",
            )
        ],
    )

    run.expect_golden()
    new_claim = run.db.query(WarrantyClaim).order_by(WarrantyClaim.id.desc()).first()
    assert new_claim.resolution == "replacement"


def test_case_RT006_005(tb):
    """Heater with a burning smell, in warranty: file the defect claim and also hold the ticket as urgent (safety)."""
    kenji = CustomerFactory(name="Kenji Rossi")
    order = _owned(kenji, HEATER, bought_days_ago=100)
    warranty = WarrantyFactory(
        customer=kenji, product_id=HEATER, order_id=order.id, starts_on=TODAY - timedelta(days=95)
    )
    ticket = TicketFactory(requester=kenji, order_id=order.id, subject="Heater problem")

    run = tb.run(
        User(
            says="The ceramic heater I bought from you gives off a burning smell after a few minutes on. "
            "I'd like it replaced under warranty.",
            knows={"email": kenji.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=kenji.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=kenji.id),
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="replacement",
                description="Burning smell after a few minutes of use.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="urgent"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Safety report: burning smell from the heater. For the product safety team.",
                public=False,
            ),
        ],
    )

    run.expect_golden()
    held = run.db.get(Ticket, ticket.id)
    assert (held.status, held.priority) == ("hold", "urgent")
    assert run.db.query(WarrantyClaim).one().resolution == "replacement"


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the phone was dropped and its manufacturer plan never covers accidental damage, so the policy files "
        "no claim and solves the ticket as a refusal, which is exactly the solve ending"
    }
)
def test_case_RT006_006(tb):
    """Dropped phone on the manufacturer plan: accidental damage is not covered, so no claim is filed."""
    elena = CustomerFactory(name="Elena Walsh")
    order = _owned(elena, PHONE, bought_days_ago=60)
    warranty = WarrantyFactory(
        customer=elena, product_id=PHONE, order_id=order.id, starts_on=TODAY - timedelta(days=55)
    )
    ticket = TicketFactory(requester=elena, order_id=order.id, subject="Phone screen broken")

    run = tb.run(
        User(
            says="My phone's screen is smashed and the touch doesn't work anymore. It's only two months old, "
            "that has to be covered by the warranty.",
            knows={
                "email": elena.email,
                "order id": order.id,
                "what happened": "it slipped out of my hand onto the kitchen tiles",
            },
        ),
        golden=[
            call("find_customer_by_email", email=elena.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=elena.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "that has to be covered": the smashed screen filed as a defect without asking what happened
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Screen smashed, touch no longer works.",
            ),
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: the manufacturer plan never covers accidental damage


def test_case_RT006_007(tb):
    """Smoking heater whose warranty has expired: no claim, but a safety report still goes on urgent hold."""
    tomas = CustomerFactory(name="Tomas Okafor", tier="plus")
    order = _owned(tomas, HEATER, bought_days_ago=400)
    warranty = WarrantyFactory(
        customer=tomas,
        product_id=HEATER,
        order_id=order.id,
        starts_on=TODAY - timedelta(days=395),
        expires_on=TODAY - timedelta(days=31),
    )
    ticket = TicketFactory(requester=tomas, order_id=order.id, subject="Heater")

    run = tb.run(
        User(
            says="My space heater started smoking out of the back grille last night. Can I get it repaired?",
            knows={"email": tomas.email, "order id": order.id},
        ),
        golden=[
            call("find_customer_by_email", email=tomas.email),
            call("get_order", order_id=order.id),
            call("get_warranty", warranty_id=warranty.id),
            call("list_tickets", requester_id=tomas.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="urgent"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Safety report: heater smoking. Warranty expired, no claim. For the product safety team.",
                public=False,
            ),
        ],
        traps=[  # the repair he asks for, filed on a warranty that expired a month ago
            call(
                "file_warranty_claim",
                warranty_id=warranty.id,
                issue="defect",
                resolution="repair",
                description="Heater smoking from the back grille.",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(WarrantyClaim).count() == 0  # policy: expired warranty, no claim even for a safety report
    assert run.db.get(Ticket, ticket.id).priority == "urgent"


# --------------------------------------------------------------------------- installation appointments


def _installation(customer, product, *, scheduled_for, **job):
    order = _owned(customer, product, bought_days_ago=8)
    return order, InstallationJobFactory(order=order, product_id=product, scheduled_for=scheduled_for, **job)


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
            call("find_customer_by_email", email=sarah.email),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=sarah.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived(
                    "2026-03-21T10:00", "the time she gives, Saturday 21 March 2026 at 10:00, in ISO form"
                ),
                fee_cents=0,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    moved = run.db.get(InstallationJob, job.id)
    assert (moved.scheduled_for, moved.reschedule_fees_cents) == (datetime(2026, 3, 21, 10, 0), 0)


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
            call("find_customer_by_email", email=marcus.email),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=marcus.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived("2026-03-19T13:00", "the time he gives, Thursday 19 March 2026 at 13:00, in ISO form"),
                fee_cents=3_500,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).reschedule_fees_cents == 3_500


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
            call("find_customer_by_email", email=grace.email),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=grace.id),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=4_000),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).cancellation_fee_cents == 4_000
    assert run.db.query(Refund).one().amount_cents == 15_900


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
            call("find_customer_by_email", email=daniel.email),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=daniel.id),
            call("cancel_installation", job_id=job.id, cancellation_fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).status == "cancelled"
    assert run.db.query(Refund).one().amount_cents == 14_900


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the job has already been rescheduled twice, so a third move is refused; she does not want to "
        "cancel, so the policy changes nothing and solves the ticket, which is exactly the solve ending"
    }
)
def test_case_RT007_005(tb):
    """Job already rescheduled twice: a third move is refused; the appointment stays as it is."""
    priya = CustomerFactory(name="Priya Lindqvist", tier="plus")
    order, job = _installation(
        priya, TV, scheduled_for=datetime(2026, 3, 21, 9, 0), reschedule_count=2, fee_cents=9_900
    )
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="TV mounting date")

    run = tb.run(
        User(
            says="Sorry to bother you again, but can we move the TV wall-mounting appointment one more time, "
            "to the Wednesday after? If that's not possible, leave it as it is, I don't want to cancel.",
            knows={
                "email": priya.email,
                "order id": order.id,
                "installation job": job.id,
                "new time": "Wednesday 25 March 2026 at 09:00",
            },
        ),
        golden=[
            call("find_customer_by_email", email=priya.email),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=priya.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # the third move she asks for, to Wednesday 25 March at 09:00 (free, more than 48 hours ahead)
            call("reschedule_installation", job_id=job.id, new_time="2026-03-25T09:00", fee_cents=0)
        ],
    )

    run.expect_golden()
    kept = run.db.get(InstallationJob, job.id)
    # policy: a job rescheduled twice cannot be moved again, and she does not want it cancelled
    assert (kept.status, kept.scheduled_for, kept.reschedule_count) == ("scheduled", datetime(2026, 3, 21, 9, 0), 2)


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
            call("find_customer_by_email", email=oliver.email),
            call("get_customer", customer_id=oliver.id),
            call("get_installation_job", job_id=job.id),
            call("list_tickets", requester_id=oliver.id),
            call(
                "reschedule_installation",
                job_id=job.id,
                new_time=derived(
                    "2026-03-18T09:00", "the time he gives, Wednesday 18 March 2026 at 09:00, in ISO form"
                ),
                fee_cents=0,
            ),
            call("adjust_points", customer_id=oliver.id, points=1_000, reason="courtesy", order_id=order.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(InstallationJob, job.id).reschedule_count == 0
    assert run.db.query(PointsAdjustment).one().points == 1_000
