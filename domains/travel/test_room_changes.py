"""Room type changes: downgrades behind the travel manager's approval, paid upgrades at the right rate."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.clock import days_ago
from domains.travel.factories import (
    ApprovalRequestFactory,
    BookingFactory,
    TicketFactory,
    TravellerFactory,
    set_available_rooms,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_LOFT,
    AMSTERDAM,
    CASTELLAN,
    FRA_SINGLE,
    FRA_STUDIO,
    FRANKFURT,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LISBON,
    LON_CLASSIC,
    LON_CLUB,
    LONDON,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call


def test_case_TR003_001(tb):
    """Traveller asks to downgrade to save money: ask the travel manager first, leave the booking, ticket pending."""
    jonas = TravellerFactory(name="Jonas Lindqvist")
    booking = BookingFactory(
        traveller=jonas, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 14), nights=4, nightly_rate_cents=24_900
    )
    ticket = TicketFactory(requester=jonas, booking_id=booking.id, subject="Switch to a cheaper room")

    run = tb.run(
        User(
            says="I don't need the Executive Room in Lisbon next week. Please switch me to a Standard King and refund "
            "the difference. It saves my company money, so surely nobody minds.",
            knows={"email": jonas.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=jonas.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_tickets", requester_id=jonas.id),
            call(
                "create_approval_request",
                booking_id=booking.id,
                kind="room_downgrade",
                requested_rate_cents=15_900,
                justification="Traveller asks to move from the Executive Room to a Standard King.",
                requested_room_type_id=LIS_STANDARD,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Downgrade to Standard King sent to the travel manager for approval; booking unchanged.",
                public=False,
            ),
        ],
        traps=[  # "switch me to a Standard King and refund the difference" before the travel manager decides
            call("change_room_type", booking_id=booking.id, room_type_id=LIS_STANDARD, nightly_rate_cents=15_900),
            call(
                "issue_refund", booking_id=booking.id, amount_cents=36_000, reason="room_downgrade", service_fee_cents=0
            ),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LIS_EXECUTIVE  # policy: approval first
    assert run.db.query(ApprovalRequest).one().requested_rate_cents == 15_900
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0


def test_case_TR003_002(tb):
    """The travel manager approved the downgrade: change the room and refund the difference with no service fee."""
    hanna = TravellerFactory(name="Hanna de Vries")
    booking = BookingFactory(
        traveller=hanna, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 15), nights=4, nightly_rate_cents=24_900
    )
    ApprovalRequestFactory(booking=booking, status="approved", created_at=days_ago(2), decided_at=days_ago(1, hour=16))
    ticket = TicketFactory(requester=hanna, booking_id=booking.id, subject="Approved room change")

    run = tb.run(
        User(
            says="Marloes approved my switch to a Standard King for the Lisbon trip. Please make the change now; "
            "I assume your usual EUR 25 fee comes off the refund.",
            knows={"email": hanna.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=hanna.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-15", check_out="2026-09-19"),
            call("list_tickets", requester_id=hanna.id),
            call("change_room_type", booking_id=booking.id, room_type_id=LIS_STANDARD, nightly_rate_cents=15_900),
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=36_000,
                reason="room_downgrade",
                service_fee_cents=0,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I assume your usual EUR 25 fee comes off the refund"
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=33_500,
                reason="room_downgrade",
                service_fee_cents=2_500,
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 63_600
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (36_000, 0)  # policy: no fee on a downgrade


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the approval request on file for the Classic Double was rejected: the policy changes nothing, "
        "creates no new request and sets the ticket solved, which is the whole golden ending; the "
        "change_room_type and issue_refund traps catch the agent who takes 'Rebecca told me it's fine' at its word"
    }
)
def test_case_TR003_003(tb):
    """The traveller says the manager agreed, but the request on file was rejected: change nothing, no new request."""
    george = TravellerFactory(name="George Hartley", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=george, room_type_id=LON_CLUB, check_in=date(2026, 9, 16), nights=3, nightly_rate_cents=33_000
    )
    ApprovalRequestFactory(
        booking=booking,
        requested_room_type_id=LON_CLASSIC,
        requested_rate_cents=23_000,
        status="rejected",
        created_at=days_ago(4),
        decided_at=days_ago(1, hour=12),
    )
    ticket = TicketFactory(requester=george, booking_id=booking.id, subject="Move to Classic Double")

    run = tb.run(
        User(
            says="Rebecca told me it's fine to move to a Classic Double for my London stay, so please just make "
            "the switch and refund the difference.",
            knows={"email": george.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=george.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("list_tickets", requester_id=george.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "Rebecca told me it's fine": switched at the requested 230.00 and the difference refunded
            call("change_room_type", booking_id=booking.id, room_type_id=LON_CLASSIC, nightly_rate_cents=23_000),
            call(
                "issue_refund", booking_id=booking.id, amount_cents=30_000, reason="room_downgrade", service_fee_cents=0
            ),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LON_CLUB  # policy: the request was rejected
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    assert run.db.query(ApprovalRequest).count() == 1
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_TR004_001(tb):
    """Paid upgrade to a Club Room: charge the difference to the negotiated 330.00, not to the 395.00 rack rate."""
    thomas = TravellerFactory(name="Thomas Reid", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=thomas, room_type_id=LON_CLASSIC, check_in=date(2026, 9, 15), nights=3, nightly_rate_cents=23_000
    )
    ticket = TicketFactory(requester=thomas, booking_id=booking.id, subject="Upgrade at the Aldwych")

    run = tb.run(
        User(
            says="Could you upgrade my Aldwych Grand stay next week to a Club Room? The website lists it at EUR 395 "
            "a night, so charge me the difference to that.",
            knows={"email": thomas.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=thomas.email),
            call("get_booking", booking_id=booking.id),
            call("get_corporate_account", account_id=CASTELLAN),
            call("list_account_invoices", account_id=CASTELLAN),
            call("search_availability", hotel_id=LONDON, check_in="2026-09-15", check_out="2026-09-18"),
            call("list_tickets", requester_id=thomas.id),
            call("change_room_type", booking_id=booking.id, room_type_id=LON_CLUB, nightly_rate_cents=33_000),
            call("charge_booking", booking_id=booking.id, amount_cents=30_000, reason="room_upgrade"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "charge me the difference to that": the 395.00 rack rate less 230.00, three nights
            call("charge_booking", booking_id=booking.id, amount_cents=49_500, reason="room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).nightly_rate_cents == 33_000
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 30_000


def test_case_TR004_002(tb):
    """Upgrade to a Loft: the negotiated 270.00 expired on 31 August, so the 310.00 rack rate prices the upgrade."""
    nadia = TravellerFactory(name="Nadia Farouk", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=nadia, room_type_id=AMS_CANAL_VIEW, check_in=date(2026, 9, 22), nights=2, nightly_rate_cents=22_000
    )
    ticket = TicketFactory(requester=nadia, booking_id=booking.id, subject="Loft upgrade in Amsterdam")

    run = tb.run(
        User(
            says="Please upgrade my Meridian Quay room to a Loft Room. Our corporate rate for the Loft is EUR 270, "
            "I used it in the summer, so the difference should be small.",
            knows={"email": nadia.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=nadia.email),
            call("get_booking", booking_id=booking.id),
            call("get_corporate_account", account_id=CASTELLAN),
            call("list_account_invoices", account_id=CASTELLAN),
            call("search_availability", hotel_id=AMSTERDAM, check_in="2026-09-22", check_out="2026-09-24"),
            call("list_tickets", requester_id=nadia.id),
            call("change_room_type", booking_id=booking.id, room_type_id=AMS_LOFT, nightly_rate_cents=31_000),
            call("charge_booking", booking_id=booking.id, amount_cents=18_000, reason="room_upgrade"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "our corporate rate for the Loft is EUR 270": the expired rate less 220.00, two nights
            call("charge_booking", booking_id=booking.id, amount_cents=10_000, reason="room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 62_000
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 18_000


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the Studio Suite has no room left on the night of 17 September: the policy changes nothing, "
        "charges nothing and sets the refused request solved, which is the whole golden ending; the "
        "charge_booking trap catches the agent who charges the difference the traveller offers to pay"
    }
)
def test_case_TR004_003(tb):
    """Studio Suite sold out for one night of the stay: no upgrade and no charge; ticket solved."""
    lotte = TravellerFactory(name="Lotte Hendriks")
    booking = BookingFactory(
        traveller=lotte, room_type_id=FRA_SINGLE, check_in=date(2026, 9, 16), nights=3, nightly_rate_cents=12_400
    )
    set_available_rooms(FRA_STUDIO, date(2026, 9, 17), 0)
    ticket = TicketFactory(requester=lotte, booking_id=booking.id, subject="Suite upgrade in Frankfurt")

    run = tb.run(
        User(
            says="Please upgrade my Kestrel Park stay to the Studio Suite, I'll happily pay the difference.",
            knows={"email": lotte.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=lotte.email),
            call("get_booking", booking_id=booking.id),
            call("search_availability", hotel_id=FRANKFURT, check_in="2026-09-16", check_out="2026-09-19"),
            call("list_tickets", requester_id=lotte.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I'll happily pay the difference": the 269.00 rack rate less 124.00, three nights, charged
            call("charge_booking", booking_id=booking.id, amount_cents=43_500, reason="room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == FRA_SINGLE
    assert run.db.query(Payment).filter_by(reason="room_upgrade").count() == 0  # policy: no room, no upgrade
