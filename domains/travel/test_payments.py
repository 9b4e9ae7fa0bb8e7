"""Charges a traveller reports twice: ours to refund, the hotel's to escalate, or not a duplicate at all."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.clock import days_ago
from domains.travel.factories import (
    BookingFactory,
    PartnerEscalationFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
)
from domains.travel.models import PartnerEscalation, Payment, Ticket
from domains.travel.seed import AMS_CANAL_VIEW, CASTELLAN, FRA_SINGLE, LIS_SUPERIOR, LON_DELUXE
from pytest_thinkingbox import User, call


def test_case_TR002_001(tb):
    """Hotel charged the card twice, our ledger shows one charge: escalate to the hotel, refund nothing, hold."""
    daniel = TravellerFactory(name="Daniel Okafor", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=daniel,
        room_type_id=LON_DELUXE,
        check_in=date(2026, 9, 4),
        nights=3,
        nightly_rate_cents=27_500,
        status="completed",
        booked_at=days_ago(30, hour=16),
    )
    ticket = TicketFactory(requester=daniel, booking_id=booking.id, subject="Charged twice for London stay")

    run = tb.run(
        User(
            says="My card was charged EUR 825 twice for my stay at The Aldwych Grand: once when the trip was "
            "booked and again when I checked out on 7 September. Please refund the second charge.",
            knows={"email": daniel.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=daniel.email),
            call("get_booking", booking_id=booking.id),
            call("list_payments", booking_id=booking.id),
            call("list_partner_escalations", booking_id=booking.id),
            call("list_tickets", requester_id=daniel.id),
            call(
                "open_partner_escalation",
                booking_id=booking.id,
                kind="duplicate_charge",
                amount_cents=82_500,
                description="Guest was charged 825.00 at checkout on 7 Sep for a stay we had already charged.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Hotel-side duplicate charge of 82,500 cents escalated to the Aldwych Grand; awaiting its refund.",
                public=False,
            ),
        ],
        traps=[  # "please refund the second charge": refunded by us although only the hotel took it
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=82_500,
                reason="duplicate_charge",
                service_fee_cents=0,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: the hotel refunds its own charge
    assert run.db.query(PartnerEscalation).one().amount_cents == 82_500


def test_case_TR002_002(tb):
    """Our ledger shows the stay charged twice: refund the duplicate ourselves, with no service fee."""
    pieter = TravellerFactory(name="Pieter Jansen")
    booking = BookingFactory(
        traveller=pieter, room_type_id=LIS_SUPERIOR, check_in=date(2026, 9, 14), nights=3, nightly_rate_cents=19_900
    )
    PaymentFactory(booking=booking, created_at=booking.booked_at.replace(minute=4))  # the same charge again
    ticket = TicketFactory(requester=pieter, booking_id=booking.id, subject="Two charges on my card")

    run = tb.run(
        User(
            says="My card statement shows two charges of EUR 597 from Atlas for my Lisbon booking. Did you charge "
            "me twice? I'd like the extra one back.",
            knows={"email": pieter.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=pieter.email),
            call("get_booking", booking_id=booking.id),
            call("list_payments", booking_id=booking.id),
            call("list_tickets", requester_id=pieter.id),
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=59_700,
                reason="duplicate_charge",
                service_fee_cents=0,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # the 25.00 service fee withheld from the duplicate's refund
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=57_200,
                reason="duplicate_charge",
                service_fee_cents=2_500,
            )
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (59_700, 0)
    assert run.db.query(PartnerEscalation).count() == 0


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the second line in the ledger is the 7,000-cent room_upgrade charge Freya Nyberg asked for, not "
        "a duplicate: the policy refunds nothing and sets the ticket solved, which is the whole golden ending; "
        "the issue_refund trap catches the agent who refunds the 'extra charge'"
    }
)
def test_case_TR002_003(tb):
    """The 'duplicate' is the paid upgrade the traveller asked for last week: refund nothing, ticket solved."""
    freya = TravellerFactory(name="Freya Nyberg", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=freya,
        room_type_id=AMS_CANAL_VIEW,
        check_in=date(2026, 9, 24),
        nights=2,
        nightly_rate_cents=22_000,
        payment__amount_cents=37_000,  # booked as a Canal Standard at 185.00
    )
    PaymentFactory(booking=booking, reason="room_upgrade", amount_cents=7_000, created_at=days_ago(6, hour=15))
    ticket = TicketFactory(requester=freya, booking_id=booking.id, subject="Charged twice for Amsterdam")

    run = tb.run(
        User(
            says="Atlas has charged my card twice for the same Amsterdam booking, and I only booked one room. "
            "Please refund the extra charge.",
            knows={"email": freya.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=freya.email),
            call("get_booking", booking_id=booking.id),
            call("list_payments", booking_id=booking.id),
            call("list_tickets", requester_id=freya.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "please refund the extra charge": the upgrade charge refunded as a duplicate
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=7_000,
                reason="duplicate_charge",
                service_fee_cents=0,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: a legitimate charge, not a duplicate
    assert run.db.get(Ticket, ticket.id).status == "solved"


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the hotel's duplicate charge is already escalated and acknowledged: the policy opens nothing new, "
        "refunds nothing and keeps the ticket on hold (high) with one internal note, which is the hold ending; "
        "the issue_refund trap catches the agent who refunds on the hotel's behalf as the traveller asks"
    }
)
def test_case_TR002_004(tb):
    """Hotel duplicate already escalated and acknowledged: open no second escalation and refund nothing; hold."""
    mateus = TravellerFactory(name="Mateus Alves")
    booking = BookingFactory(
        traveller=mateus,
        room_type_id=FRA_SINGLE,
        check_in=date(2026, 9, 1),
        nights=2,
        nightly_rate_cents=12_400,
        status="completed",
        booked_at=days_ago(20, hour=9),
    )
    PartnerEscalationFactory(booking=booking, amount_cents=24_800, status="acknowledged")
    TicketFactory(
        requester=mateus,
        booking_id=booking.id,
        subject="Double charge at Kestrel Park",
        status="hold",
        priority="high",
        created_at=days_ago(3, hour=11),
    )
    ticket = TicketFactory(requester=mateus, booking_id=booking.id, subject="Still waiting for my money")

    run = tb.run(
        User(
            says="The Kestrel Park charged me twice for my stay last week and I still don't have my money back. "
            "I'm tired of waiting for the hotel, please refund me yourselves.",
            knows={"email": mateus.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=mateus.email),
            call("get_booking", booking_id=booking.id),
            call("list_payments", booking_id=booking.id),
            call("list_partner_escalations", booking_id=booking.id),
            call("list_tickets", requester_id=mateus.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Hotel-side duplicate of 24,800 cents already escalated (acknowledged); awaiting the hotel.",
                public=False,
            ),
        ],
        traps=[  # "please refund me yourselves"
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=24_800,
                reason="duplicate_charge",
                service_fee_cents=0,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(PartnerEscalation).count() == 1
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: never refund while escalated
