"""Loyalty benefits: complimentary late checkout by tier and validity, and the once-per-stay upgrade allowance."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.factories import BookingFactory, LoyaltyProfileFactory, TicketFactory, TravellerFactory
from domains.travel.models import Booking, Payment, Ticket
from domains.travel.seed import (
    CASTELLAN,
    LIS_EXECUTIVE,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LON_CLUB,
    LON_SUITE,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call


def test_case_TR008_001(tb):
    """Valid Gold member offers to pay for a late checkout: it is complimentary, so charge nothing."""
    marta = TravellerFactory(name="Marta Alves")
    LoyaltyProfileFactory(traveller=marta, tier="gold", tier_valid_until=date(2027, 3, 31))
    booking = BookingFactory(traveller=marta, check_in=date(2026, 9, 10), nights=2)
    ticket = TicketFactory(requester=marta, booking_id=booking.id, subject="Late checkout in Lisbon")

    run = tb.run(
        User(
            says="Can I get a late checkout on my last day at the Harbourline? I don't mind paying the fee, just "
            "put it on my card.",
            knows={"email": marta.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=marta.email),
            call("get_traveller", traveller_id=marta.id),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=marta.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).late_checkout is True
    assert run.db.query(Payment).filter_by(reason="late_checkout").count() == 0


def test_case_TR008_002(tb):
    """Gold tier expired on 31 August: the late checkout costs the hotel's 40.00 fee, which the traveller accepts."""
    bram = TravellerFactory(name="Bram Peeters")
    LoyaltyProfileFactory(traveller=bram, tier="gold", tier_valid_until=date(2026, 8, 31))
    booking = BookingFactory(traveller=bram, check_in=date(2026, 9, 15), nights=3)
    ticket = TicketFactory(requester=bram, booking_id=booking.id, subject="Complimentary late checkout")

    run = tb.run(
        User(
            says="I'm a Gold member, so please set up my complimentary late checkout for my Harbourline stay next "
            "week.",
            knows={
                "email": bram.email,
                "booking reference": booking.id,
                "accept the late checkout fee": "yes, I accept the fee if there is one",
            },
        ),
        golden=[
            call("find_traveller_by_email", email=bram.email),
            call("get_traveller", traveller_id=bram.id),
            call("get_booking", booking_id=booking.id),
            call("get_hotel", hotel_id=LISBON),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_account_invoices", account_id=VELDHOVEN),
            call("list_tickets", requester_id=bram.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=4_000),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 4_000


def test_case_TR008_003(tb):
    """Platinum member asks for the Junior Suite: the allowance gives exactly one rank up, the Executive Room."""
    karin = TravellerFactory(name="Karin Holm", account_id=NORRLAND)
    LoyaltyProfileFactory(traveller=karin, tier="platinum", tier_valid_until=date(2027, 1, 31))
    booking = BookingFactory(
        traveller=karin, room_type_id=LIS_SUPERIOR, check_in=date(2026, 9, 16), nights=3, nightly_rate_cents=20_500
    )
    ticket = TicketFactory(requester=karin, booking_id=booking.id, subject="Platinum upgrade")

    run = tb.run(
        User(
            says="As a Platinum member I get a free upgrade, so please put me in the Junior Suite for my Lisbon stay.",
            knows={"email": karin.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=karin.email),
            call("get_traveller", traveller_id=karin.id),
            call("get_booking", booking_id=booking.id),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-16", check_out="2026-09-19"),
            call("list_tickets", requester_id=karin.id),
            call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=LIS_EXECUTIVE),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "please put me in the Junior Suite": two ranks up
            call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=LIS_SUITE)
        ],
    )

    run.expect_golden()
    upgraded = run.db.get(Booking, booking.id)
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents, upgraded.upgrade_allowance_used) == (
        LIS_EXECUTIVE,
        20_500,
        True,
    )
    assert run.db.query(Payment).count() == 1


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "the booking's upgrade_allowance_used is already true and Victoria Lane refuses a paid upgrade: "
        "the policy changes nothing and sets the ticket solved, which is the whole golden ending; the "
        "apply_upgrade_allowance trap catches the agent who grants the Aldwych Suite because she is Platinum"
    }
)
def test_case_TR008_004(tb):
    """Platinum allowance already used on this stay: no second free upgrade; the traveller won't pay; solved."""
    victoria = TravellerFactory(name="Victoria Lane", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=victoria, tier="platinum", tier_valid_until=date(2027, 6, 30))
    booking = BookingFactory(
        traveller=victoria,
        room_type_id=LON_CLUB,
        check_in=date(2026, 9, 12),
        nights=3,
        nightly_rate_cents=27_500,
        upgrade_allowance_used=True,  # booked a Deluxe King, already upgraded once with the allowance
    )
    ticket = TicketFactory(requester=victoria, booking_id=booking.id, subject="Suite upgrade")

    run = tb.run(
        User(
            says="I'm Platinum, so I'd like my complimentary upgrade to the Aldwych Suite for my London stay this "
            "weekend, please. I only want it if it's complimentary.",
            knows={
                "email": victoria.email,
                "booking reference": booking.id,
                "paid upgrade": "no, I will not pay for an upgrade; I only want it if it's complimentary",
            },
        ),
        golden=[
            call("find_traveller_by_email", email=victoria.email),
            call("get_traveller", traveller_id=victoria.id),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=victoria.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I'm Platinum": a second complimentary upgrade, to the suite she names
            call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=LON_SUITE)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LON_CLUB  # policy: the allowance is once per stay
    assert run.db.get(Ticket, ticket.id).status == "solved"
