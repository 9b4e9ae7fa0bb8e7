"""Cancellations against the free-cancellation window and hotel fault; new bookings and account standing."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.factories import (
    BookingFactory,
    CorporateAccountFactory,
    InvoiceFactory,
    TicketFactory,
    TravellerFactory,
)
from domains.travel.models import Booking, Payment, Ticket, TicketComment
from domains.travel.seed import (
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_DOUBLE,
    FRA_SINGLE,
    FRANKFURT,
    LIS_STANDARD,
    LISBON,
    LON_DELUXE,
    LONDON,
    NORRLAND,
)
from pytest_thinkingbox import User, call, derived


def test_case_TR001_001(tb):
    """Cancelled nine days ahead, inside the window: refund in full minus the 25.00 service fee, not in full."""
    sofia = TravellerFactory(name="Sofia Brandt")
    booking = BookingFactory(traveller=sofia, check_in=date(2026, 9, 17), nights=3)  # free until 15 Sep 15:00
    ticket = TicketFactory(requester=sofia, booking_id=booking.id, subject="Cancel Lisbon hotel")

    run = tb.run(
        User(
            says="Our Lisbon site visit next week has been called off. Please cancel my hotel. It's more than a "
            "week away, so I expect the full EUR 477 back on my card.",
            knows={"email": sofia.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=sofia.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=sofia.id),
            call("cancel_booking", booking_id=booking.id),
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=derived(
                    45_200,
                    "inside the window (free until 15 Sep 15:00): the 47,700 still refundable less the 2,500 "
                    "service fee",
                ),
                reason="cancellation",
                service_fee_cents=2_500,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (45_200, 2_500)  # policy: the fee applies in-window
    assert run.db.get(Booking, booking.id).status == "cancelled"


def test_case_TR001_002(tb):
    """Cancelled two days ahead at a 72-hour hotel: the window has passed, so one night and the fee are kept."""
    lukas = TravellerFactory(name="Lukas Meyer", account_id=NORRLAND)
    booking = BookingFactory(
        traveller=lukas, room_type_id=AMS_STANDARD, check_in=date(2026, 9, 10), nights=2, nightly_rate_cents=19_000
    )  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=lukas, booking_id=booking.id, subject="Amsterdam cancellation")

    run = tb.run(
        User(
            says="My client meeting in Amsterdam on Thursday was cancelled. Please cancel the Meridian Quay booking. "
            "I'm cancelling two full days ahead, so there shouldn't be any charge.",
            knows={"email": lukas.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=lukas.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=lukas.id),
            call("cancel_booking", booking_id=booking.id),
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=derived(
                    16_500,
                    "the window ended 7 Sep 15:00: the 38,000 still refundable less one night at 19,000 less the "
                    "2,500 service fee",
                ),
                reason="cancellation",
                service_fee_cents=2_500,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "two full days ahead, so there shouldn't be any charge": the kept night refunded too
            call("issue_refund", booking_id=booking.id, amount_cents=19_000, reason="cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 16_500  # policy: one night kept


def test_case_TR001_003(tb):
    """Hotel cannot honour tonight's booking: after the deadline, yet a full refund with no night and no fee."""
    clara = TravellerFactory(name="Clara Moreau")
    booking = BookingFactory(
        traveller=clara,
        room_type_id=FRA_DOUBLE,
        check_in=date(2026, 9, 8),
        nights=4,
        nightly_rate_cents=13_900,
        hotel_confirmation="cannot_honour",
    )  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=clara, booking_id=booking.id, subject="Hotel overbooked")

    run = tb.run(
        User(
            says="The Kestrel Park just emailed me that they are overbooked and can't give me a room tonight. I've "
            "found somewhere else myself. Please cancel that booking and refund whatever you can.",
            knows={"email": clara.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=clara.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=clara.id),
            call("cancel_booking", booking_id=booking.id),
            call("issue_refund", booking_id=booking.id, amount_cents=55_600, reason="hotel_fault", service_fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents, refund.reason) == (55_600, 0, "hotel_fault")


def test_case_TR007_001(tb):
    """New London booking: the negotiated 275.00 applies, not the quoted rack rate; a 12-day overdue invoice is fine."""
    amelia = TravellerFactory(name="Amelia Whitfield", account_id=CASTELLAN)
    InvoiceFactory(
        account_id=CASTELLAN, amount_cents=412_800, issued_on=date(2026, 7, 28), due_on=date(2026, 8, 27)
    )  # 12 days overdue
    ticket = TicketFactory(requester=amelia, subject="Hotel in London, 21-24 Sep")

    run = tb.run(
        User(
            says="Please book me a Deluxe King at The Aldwych Grand in London from 21 to 24 September. The hotel "
            "website shows EUR 325 a night, that's fine by me.",
            knows={"email": amelia.email},
        ),
        golden=[
            call("find_traveller_by_email", email=amelia.email),
            call("get_corporate_account", account_id=CASTELLAN),
            call("list_account_invoices", account_id=CASTELLAN),
            call("search_availability", hotel_id=LONDON, check_in="2026-09-21", check_out="2026-09-24"),
            call("list_tickets", requester_id=amelia.id),
            call(
                "create_booking",
                traveller_id=amelia.id,
                hotel_id=LONDON,
                room_type_id=LON_DELUXE,
                check_in="2026-09-21",
                check_out="2026-09-24",
                nightly_rate_cents=27_500,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # booked at the EUR 325 website rate the traveller quoted
            call(
                "create_booking",
                traveller_id=amelia.id,
                hotel_id=LONDON,
                room_type_id=LON_DELUXE,
                check_in="2026-09-21",
                check_out="2026-09-24",
                nightly_rate_cents=32_500,
            )
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.nightly_rate_cents, booking.total_cents) == (27_500, 82_500)
    assert run.db.query(Payment).one().amount_cents == 82_500


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "Halvorsen Offshore AS is on credit_hold: the policy books nothing and puts the ticket on hold, "
        "priority high, with one internal note for accounts receivable, which is exactly the hold ending; the "
        "create_booking trap catches the agent who books because it is urgent"
    }
)
def test_case_TR007_002(tb):
    """Urgent booking request from an account on credit hold: refuse, ticket on hold (high) with a comment."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    jonas = TravellerFactory(name="Jonas Halvorsen", account_id=account.id)
    ticket = TicketFactory(requester=jonas, subject="Frankfurt hotel tomorrow")

    run = tb.run(
        User(
            says="I need a Business Single at the Kestrel Park in Frankfurt from tomorrow for two nights. It's "
            "urgent, the client is expecting me, so please just book it.",
            knows={"email": jonas.email},
        ),
        golden=[
            call("find_traveller_by_email", email=jonas.email),
            call("get_corporate_account", account_id=account.id),
            call("list_tickets", requester_id=jonas.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Booking request (Kestrel Park, 9-11 Sep) refused: account is on credit hold.",
                public=False,
            ),
        ],
        traps=[  # "it's urgent, so please just book it": the Business Single at the rack rate
            call(
                "create_booking",
                traveller_id=jonas.id,
                hotel_id=FRANKFURT,
                room_type_id=FRA_SINGLE,
                check_in="2026-09-09",
                check_out="2026-09-11",
                nightly_rate_cents=14_900,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 0  # policy: credit hold, no new booking
    assert (run.db.get(Ticket, ticket.id).status, run.db.get(Ticket, ticket.id).priority) == ("hold", "high")


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "the account shows active but its invoice due 25 Jul is 45 days overdue, so it counts as credit "
        "hold: the policy books nothing and holds the ticket (high) with one internal note, which is the hold "
        "ending; the create_booking trap catches the agent who trusts the account status alone"
    }
)
def test_case_TR007_003(tb):
    """Account shows active but an invoice is 45 days overdue: treated as credit hold, so the booking is refused."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH", status="active")
    InvoiceFactory(
        account_id=account.id,
        amount_cents=615_000,
        issued_on=date(2026, 6, 1),
        due_on=date(2026, 7, 1),
        status="paid",
        paid_on=date(2026, 6, 29),
    )
    InvoiceFactory(account_id=account.id, amount_cents=729_400, issued_on=date(2026, 6, 25), due_on=date(2026, 7, 25))
    mia = TravellerFactory(name="Mia Kruger", account_id=account.id)
    ticket = TicketFactory(requester=mia, subject="Lisbon hotel request")

    run = tb.run(
        User(
            says="Could you book me a Standard King at the Harbourline in Lisbon from 14 to 16 September? Our "
            "account is active, I checked with our office.",
            knows={"email": mia.email},
        ),
        golden=[
            call("find_traveller_by_email", email=mia.email),
            call("get_corporate_account", account_id=account.id),
            call("list_account_invoices", account_id=account.id),
            call("list_tickets", requester_id=mia.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Booking request refused: invoice due 25 Jul is 45 days overdue, account treated as credit hold.",
                public=False,
            ),
        ],
        traps=[  # "our account is active": the Standard King booked at the rack rate
            call(
                "create_booking",
                traveller_id=mia.id,
                hotel_id=LISBON,
                room_type_id=LIS_STANDARD,
                check_in="2026-09-14",
                check_out="2026-09-16",
                nightly_rate_cents=18_900,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 0  # policy: an invoice over 30 days overdue means credit hold
    assert run.db.query(TicketComment).one().public is False


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "Solent Marine Ltd is suspended: the policy makes no booking, adds no comment and sets the ticket "
        "solved, which is the whole golden ending; the create_booking trap catches the agent who books anyway"
    }
)
def test_case_TR007_004(tb):
    """Suspended account: no booking at all; the ticket is solved without a comment (not held)."""
    account = CorporateAccountFactory(name="Solent Marine Ltd", status="suspended")
    owen = TravellerFactory(name="Owen Pritchard", account_id=account.id)
    ticket = TicketFactory(requester=owen, subject="Amsterdam booking")

    run = tb.run(
        User(
            says="Please book me a Canal Standard at the Meridian Quay in Amsterdam for 28 to 30 September.",
            knows={"email": owen.email},
        ),
        golden=[
            call("find_traveller_by_email", email=owen.email),
            call("get_corporate_account", account_id=account.id),
            call("list_tickets", requester_id=owen.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # booked as asked, at the Canal Standard rack rate, without looking at the account
            call(
                "create_booking",
                traveller_id=owen.id,
                hotel_id=AMSTERDAM,
                room_type_id=AMS_STANDARD,
                check_in="2026-09-28",
                check_out="2026-09-30",
                nightly_rate_cents=21_000,
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 0  # policy: suspended, no booking
    assert run.db.get(Ticket, ticket.id).status == "solved"
    assert run.db.query(TicketComment).count() == 0
