"""Loyalty benefits: complimentary late checkout by tier and validity, and the once-per-stay upgrade allowance."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.clock import days_ago
from domains.travel.factories import BookingFactory, LoyaltyProfileFactory, TicketFactory, TravellerFactory
from domains.travel.models import Booking, Payment, Ticket
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    CASTELLAN,
    LIS_EXECUTIVE,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LON_SUITE,
    LONDON,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "Paid room upgrades",
    "Late checkout",
    "Loyalty upgrade allowance",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR008_001(tb):
    """Valid Gold member offers to pay for a late checkout: it is complimentary, so charge nothing."""
    marta = TravellerFactory(name="Marta Alves")
    LoyaltyProfileFactory(traveller=marta, tier="gold", tier_valid_until=date(2027, 3, 31))
    booking = BookingFactory(traveller=marta, check_in=date(2026, 9, 10), nights=2)
    ticket = TicketFactory(requester=marta, booking_id=booking.id, subject="Late checkout in Lisbon")

    run = tb.run(
        User(
            says="Can I get a late checkout on my last day at the Harbourline? I don't mind paying the fee, just "
            "put it on my card. My train to the airport only leaves at three in the afternoon.",
            knows={"email": marta.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=marta.email),
            call("get_traveller", traveller_id=marta.id),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=marta.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="late_checkout"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).late_checkout is True
    assert run.db.query(Payment).filter_by(reason="late_checkout").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", None, None)


def test_case_TR008_002(tb):
    """Gold tier expired on 31 August: the late checkout costs the hotel's 40.00 fee, which the traveller accepts."""
    bram = TravellerFactory(name="Bram Peeters")
    LoyaltyProfileFactory(traveller=bram, tier="gold", tier_valid_until=date(2026, 8, 31))
    booking = BookingFactory(traveller=bram, check_in=date(2026, 9, 15), nights=3)
    ticket = TicketFactory(requester=bram, booking_id=booking.id, subject="Complimentary late checkout")

    run = tb.run(
        User(
            says="I'm a Gold member, so please set up my complimentary late checkout for my Harbourline stay next "
            "week. I'm flying out late in the afternoon and would like to work in my room until lunch.",
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
            call("update_ticket", ticket_id=ticket.id, status="solved", category="late_checkout"),
        ],
        reply="Your Gold status ran out on 31 August, before your check-out, so the late checkout isn't "
        "complimentary this time. As you agreed, I've arranged it until 14:00 for the hotel's fee of EUR 40.00, "
        "charged to your corporate card.",
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 4_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", None, None)


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
            says="As a Platinum member I get a free upgrade, so please put me in the Junior Suite for my Lisbon stay. "
            "I'm there for three nights of client meetings and would appreciate the space.",
            knows={"email": karin.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=karin.email),
            call("get_traveller", traveller_id=karin.id),
            call("get_booking", booking_id=booking.id),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-16", check_out="2026-09-19"),
            call("list_tickets", requester_id=karin.id),
            call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=LIS_EXECUTIVE),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="loyalty_upgrade"),
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
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty_upgrade", None, None)


@pytest.mark.distractors
def test_case_TR008_004(tb):
    """Platinum allowance already used on this weekend's stay: no second free upgrade there. Her fallback, the
    allowance on her October stay, is a stay of its own: it gives one rank up, a Club Room, not the suite she names;
    granted as the alternative she named, so no reason."""
    victoria = TravellerFactory(name="Victoria Lane", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=victoria, tier="platinum", tier_valid_until=date(2027, 6, 30))
    weekend = BookingFactory(
        traveller=victoria,
        room_type_id=LON_CLUB,
        check_in=date(2026, 9, 12),
        nights=3,
        nightly_rate_cents=27_500,
        upgrade_allowance_used=True,  # booked a Deluxe King, already upgraded once with the allowance
    )
    october = BookingFactory(
        traveller=victoria, room_type_id=LON_DELUXE, check_in=date(2026, 10, 19), nights=2, nightly_rate_cents=27_500
    )
    ticket = TicketFactory(requester=victoria, booking_id=weekend.id, subject="Suite upgrade")

    run = tb.run(
        User(
            says="I'm Platinum, so I'd like my complimentary upgrade to the Aldwych Suite for my London stay this "
            "weekend, please. I only want it if it's complimentary. If it can't be done this weekend, then use my "
            "free upgrade on my October stay at the Aldwych instead.",
            knows={
                "email": victoria.email,
                "booking reference": weekend.id,
                "October booking reference": october.id,
                "paid upgrade": "no, I will not pay for an upgrade; I only want it if it's complimentary",
            },
        ),
        golden=[
            call("find_traveller_by_email", email=victoria.email),
            call("get_traveller", traveller_id=victoria.id),
            call("get_booking", booking_id=weekend.id),
            call("get_booking", booking_id=october.id),
            call("search_availability", hotel_id=LONDON, check_in="2026-10-19", check_out="2026-10-21"),
            call("list_tickets", requester_id=victoria.id),
            call("apply_upgrade_allowance", booking_id=october.id, room_type_id=LON_CLUB),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="loyalty_upgrade"),
        ],
        traps=[  # "I'm Platinum": a second complimentary upgrade this weekend, or the suite she names in October
            call("apply_upgrade_allowance", booking_id=weekend.id, room_type_id=LON_SUITE),
            call("apply_upgrade_allowance", booking_id=october.id, room_type_id=LON_SUITE),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, weekend.id).room_type_id == LON_CLUB  # policy: the allowance is once per stay
    upgraded = run.db.get(Booking, october.id)  # ... and each booking is a stay, one rank up only
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents, upgraded.upgrade_allowance_used) == (
        LON_CLUB,
        27_500,
        True,
    )
    assert run.db.query(Payment).count() == 2  # nothing charged
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty_upgrade", None, None)


@pytest.mark.two_requests
def test_case_TR008_005(tb):
    """Gold member: the late checkout is complimentary, the free room upgrade she also asks for is not."""
    maja = TravellerFactory(name="Maja Lund", account_id=NORRLAND)
    LoyaltyProfileFactory(traveller=maja, tier="gold", tier_valid_until=date(2027, 2, 28))
    booking = BookingFactory(
        traveller=maja, room_type_id=AMS_STANDARD, check_in=date(2026, 9, 14), nights=2, nightly_rate_cents=19_000
    )
    ticket = TicketFactory(requester=maja, booking_id=booking.id, subject="Requests for my Amsterdam stay")

    run = tb.run(
        User(
            says="Two small things for my Meridian Quay stay next week. I'd like a late checkout on the last day, "
            "and since I'm a Gold member, could you bump me up to a Canal View room for free? I won't pay extra "
            "for the room though.",
            knows={
                "email": maja.email,
                "booking reference": booking.id,
                "paid upgrade": "no, I only want the Canal View if it's free",
            },
        ),
        golden=[
            call("find_traveller_by_email", email=maja.email),
            call("get_traveller", traveller_id=maja.id),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=maja.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=0),
            call(
                "update_ticket", ticket_id=ticket.id, status="solved", category="late_checkout", reason="not_eligible"
            ),
        ],
        traps=[call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=AMS_CANAL_VIEW)],  # "I'm Gold"
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.late_checkout, stay.room_type_id, stay.upgrade_allowance_used) == (True, AMS_STANDARD, False)
    assert run.db.query(Payment).count() == 1  # nothing charged for either
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", "not_eligible", None)


def test_case_TR008_006(tb):
    """The allowance was used on August's stay, a different booking: this stay still gets its one-rank upgrade."""
    lena = TravellerFactory(name="Lena Fischer", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=lena, tier="platinum", tier_valid_until=date(2027, 4, 30))
    BookingFactory(
        traveller=lena,
        room_type_id=LON_DELUXE,
        check_in=date(2026, 8, 18),
        nights=3,
        nightly_rate_cents=23_000,
        status="completed",
        upgrade_allowance_used=True,  # booked a Classic Double in August, upgraded with the allowance
        booked_at=days_ago(40, hour=11),
    )
    booking = BookingFactory(
        traveller=lena, room_type_id=LON_CLASSIC, check_in=date(2026, 9, 21), nights=3, nightly_rate_cents=23_000
    )
    ticket = TicketFactory(requester=lena, booking_id=booking.id, subject="Platinum upgrade again?")

    run = tb.run(
        User(
            says="I'm back at the Aldwych later this month. I already used my Platinum room upgrade on my London "
            "stay in August, so is there still one for this trip? If there is, I'd love it, whatever the next room "
            "up happens to be.",
            knows={"email": lena.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=lena.email),
            call("get_traveller", traveller_id=lena.id),
            call("list_traveller_bookings", traveller_id=lena.id),
            call("get_booking", booking_id=booking.id),
            call("search_availability", hotel_id=LONDON, check_in="2026-09-21", check_out="2026-09-24"),
            call("list_tickets", requester_id=lena.id),
            call("apply_upgrade_allowance", booking_id=booking.id, room_type_id=LON_DELUXE),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="loyalty_upgrade"),
        ],
    )

    run.expect_golden()
    upgraded = run.db.get(Booking, booking.id)
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents, upgraded.upgrade_allowance_used) == (
        LON_DELUXE,
        23_000,
        True,
    )  # policy: once per stay, and each booking is a stay
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty_upgrade", None, None)


def test_case_TR008_007(tb):
    """Silver pays the 50.00 late checkout fee; the only ticket on the booking is closed, so a new one is opened."""
    oscar = TravellerFactory(name="Oscar Lindgren", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=oscar, tier="silver", tier_valid_until=date(2027, 1, 31))
    booking = BookingFactory(
        traveller=oscar, room_type_id=LON_DELUXE, check_in=date(2026, 9, 16), nights=2, nightly_rate_cents=27_500
    )
    closed = TicketFactory(
        requester=oscar,
        booking_id=booking.id,
        status="closed",
        subject="Is breakfast included?",
        created_at=days_ago(12, hour=9),
    )

    run = tb.run(
        User(
            says="Could I keep my room at The Aldwych Grand a bit longer on the last morning of next week's stay? "
            "My flight home isn't until the evening and I'd rather not sit in the lobby. I'm a Silver member with "
            "the hotel chain, if that helps.",
            knows={
                "email": oscar.email,
                "booking reference": booking.id,
                "accept the late checkout fee": "yes, that's fine, charge it to my card",
            },
        ),
        golden=[
            call("find_traveller_by_email", email=oscar.email),
            call("get_traveller", traveller_id=oscar.id),
            call("get_booking", booking_id=booking.id),
            call("get_hotel", hotel_id=LONDON),
            call("get_corporate_account", account_id=CASTELLAN),
            call("list_account_invoices", account_id=CASTELLAN),
            call("list_tickets", requester_id=oscar.id),
            call(
                "create_ticket",
                requester_id=oscar.id,
                subject="Late checkout at the Aldwych",
                category="late_checkout",
                booking_id=booking.id,
            ),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=5_000),
            call("update_ticket", ticket_id="T-1002", status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 5_000  # policy: Silver pays
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (oscar.id, booking.id)
    assert run.db.get(Ticket, new.id).outcome == ("solved", "normal", "late_checkout", None, None)
    assert run.db.get(Ticket, closed.id).status == "closed"


def test_case_TR008_008(tb):
    """Platinum expired, so no free upgrade; his fallback, a paid Executive at the contract rate, is made."""
    ruben = TravellerFactory(name="Ruben Smits")
    LoyaltyProfileFactory(traveller=ruben, tier="platinum", tier_valid_until=date(2026, 8, 31))
    booking = BookingFactory(
        traveller=ruben, room_type_id=LIS_SUPERIOR, check_in=date(2026, 9, 16), nights=3, nightly_rate_cents=19_900
    )
    ticket = TicketFactory(requester=ruben, booking_id=booking.id, subject="Upgrade in Lisbon")

    run = tb.run(
        User(
            says="As a Platinum member I get a free room upgrade, so please move me up from the Superior for my "
            "Lisbon stay next week. If for some reason it isn't free this time, I'd still pay for the Executive "
            "Room, as long as it's no more than 60 euros a night extra.",
            knows={"email": ruben.email, "booking reference": booking.id},
            persona="A regional director who travels a lot and knows his way around hotel perks.",
            rules=(
                "Pay for an Executive Room only if it costs at most 60 euros a night more than your current rate; "
                "otherwise keep your room as it is.",
            ),
        ),
        golden=[
            call("find_traveller_by_email", email=ruben.email),
            call("get_traveller", traveller_id=ruben.id),
            call("get_booking", booking_id=booking.id),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_account_invoices", account_id=VELDHOVEN),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-16", check_out="2026-09-19"),
            call("list_tickets", requester_id=ruben.id),
            call("change_room_type", booking_id=booking.id, room_type_id=LIS_EXECUTIVE, nightly_rate_cents=24_900),
            call(
                "charge_booking",
                booking_id=booking.id,
                amount_cents=derived(15_000, "(24,900 negotiated Executive - 19,900) x 3 nights; 50.00 a night"),
                reason="room_upgrade",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="room_upgrade"),
        ],
        traps=[  # priced at the Executive rack rate of 299.00
            call("charge_booking", booking_id=booking.id, amount_cents=30_000, reason="room_upgrade")
        ],
    )

    run.expect_golden()
    upgraded = run.db.get(Booking, booking.id)
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents, upgraded.upgrade_allowance_used) == (
        LIS_EXECUTIVE,
        24_900,
        False,
    )  # policy: an expired tier has no allowance; this is a paid upgrade
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 15_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)
