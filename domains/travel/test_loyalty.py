"""Loyalty benefits: complimentary late checkout by tier and validity, and the once-per-stay upgrade allowance."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    allowance_upgrade,
    availability,
    charge_booking,
    get_booking,
    get_hotel,
    get_traveller,
    late_checkout,
    list_bookings,
    new_ticket,
    opening,
    paid_upgrade,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    BookingFactory,
    LoyaltyProfileFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    earlier_ticket,
)
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
from pytest_thinkingbox import User, derived

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
            knows=traveller_facts(marta, booking),
        ),
        golden=[
            *opening(marta, get_traveller(marta), get_booking(booking)),
            late_checkout(booking, 0),
            solved(ticket.id, "late_checkout"),
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
                **traveller_facts(bram, booking),
                "accept the late checkout fee": "yes, I accept the fee if there is one",
            },
        ),
        golden=[
            *opening(bram, get_traveller(bram), get_booking(booking), get_hotel(LISBON), *standing(VELDHOVEN)),
            late_checkout(booking, 4_000),
            solved(ticket.id, "late_checkout"),
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
    booking = booking_for(karin, LIS_SUPERIOR, date(2026, 9, 16), 3, 20_500)
    ticket = TicketFactory(requester=karin, booking_id=booking.id, subject="Platinum upgrade")

    run = tb.run(
        User(
            says="As a Platinum member I get a free upgrade, so please put me in the Junior Suite for my Lisbon stay. "
            "I'm there for three nights of client meetings and would appreciate the space.",
            knows=traveller_facts(karin, booking),
        ),
        golden=[
            *opening(
                karin, get_traveller(karin), get_booking(booking), availability(LISBON, "2026-09-16", "2026-09-19")
            ),
            allowance_upgrade(booking, LIS_EXECUTIVE),
            solved(ticket.id, "loyalty_upgrade"),
        ],
        traps=[  # "please put me in the Junior Suite": two ranks up
            allowance_upgrade(booking, LIS_SUITE)
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
    # booked a Deluxe King, already upgraded once with the allowance
    weekend = booking_for(victoria, LON_CLUB, date(2026, 9, 12), 3, 27_500, upgrade_allowance_used=True)
    october = booking_for(victoria, LON_DELUXE, date(2026, 10, 19), 2, 27_500)
    ticket = TicketFactory(requester=victoria, booking_id=weekend.id, subject="Suite upgrade")

    run = tb.run(
        User(
            says="I'm Platinum, so I'd like my complimentary upgrade to the Aldwych Suite for my London stay this "
            "weekend, please. I only want it if it's complimentary. If it can't be done this weekend, then use my "
            "free upgrade on my October stay at the Aldwych instead.",
            knows={
                **traveller_facts(victoria, weekend),
                "October booking reference": october.id,
                "paid upgrade": "no, I will not pay for an upgrade; I only want it if it's complimentary",
            },
        ),
        golden=[
            *opening(
                victoria,
                get_traveller(victoria),
                get_booking(weekend),
                get_booking(october),
                availability(LONDON, "2026-10-19", "2026-10-21"),
            ),
            allowance_upgrade(october, LON_CLUB),
            solved(ticket.id, "loyalty_upgrade"),
        ],
        traps=[  # "I'm Platinum": a second complimentary upgrade this weekend, or the suite she names in October
            allowance_upgrade(weekend, LON_SUITE),
            allowance_upgrade(october, LON_SUITE),
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
    booking = booking_for(maja, AMS_STANDARD, date(2026, 9, 14), 2, 19_000)
    ticket = TicketFactory(requester=maja, booking_id=booking.id, subject="Requests for my Amsterdam stay")

    run = tb.run(
        User(
            says="Two small things for my Meridian Quay stay next week. I'd like a late checkout on the last day, "
            "and since I'm a Gold member, could you bump me up to a Canal View room for free? I won't pay extra "
            "for the room though.",
            knows={**traveller_facts(maja, booking), "paid upgrade": "no, I only want the Canal View if it's free"},
        ),
        golden=[
            *opening(maja, get_traveller(maja), get_booking(booking)),
            late_checkout(booking, 0),
            solved(ticket.id, "late_checkout", "not_eligible"),
        ],
        traps=[allowance_upgrade(booking, AMS_CANAL_VIEW)],  # "I'm Gold"
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
    # booked a Classic Double in August, upgraded with the allowance
    booking_for(
        lena,
        LON_DELUXE,
        date(2026, 8, 18),
        3,
        23_000,
        status="completed",
        upgrade_allowance_used=True,
        booked_at=days_ago(40, hour=11),
    )
    booking = booking_for(lena, LON_CLASSIC, date(2026, 9, 21), 3, 23_000)
    ticket = TicketFactory(requester=lena, booking_id=booking.id, subject="Platinum upgrade again?")

    run = tb.run(
        User(
            says="I'm back at the Aldwych later this month. I already used my Platinum room upgrade on my London "
            "stay in August, so is there still one for this trip? If there is, I'd love it, whatever the next room "
            "up happens to be.",
            knows=traveller_facts(lena, booking),
        ),
        golden=[
            *opening(
                lena,
                get_traveller(lena),
                list_bookings(lena),
                get_booking(booking),
                availability(LONDON, "2026-09-21", "2026-09-24"),
            ),
            allowance_upgrade(booking, LON_DELUXE),
            solved(ticket.id, "loyalty_upgrade"),
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
    booking = booking_for(oscar, LON_DELUXE, date(2026, 9, 16), 2, 27_500)
    closed = earlier_ticket(oscar, "Is breakfast included?", "closed", days_ago(12, hour=9), booking)

    run = tb.run(
        User(
            says="Could I keep my room at The Aldwych Grand a bit longer on the last morning of next week's stay? "
            "My flight home isn't until the evening and I'd rather not sit in the lobby. I'm a Silver member with "
            "the hotel chain, if that helps.",
            knows={
                **traveller_facts(oscar, booking),
                "accept the late checkout fee": "yes, that's fine, charge it to my card",
            },
        ),
        golden=[
            *opening(oscar, get_traveller(oscar), get_booking(booking), get_hotel(LONDON), *standing(CASTELLAN)),
            new_ticket(oscar, "Late checkout at the Aldwych", "late_checkout", booking),
            late_checkout(booking, 5_000),
            solved("T-1002"),
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
    booking = booking_for(ruben, LIS_SUPERIOR, date(2026, 9, 16), 3, 19_900)
    ticket = TicketFactory(requester=ruben, booking_id=booking.id, subject="Upgrade in Lisbon")

    run = tb.run(
        User(
            says="As a Platinum member I get a free room upgrade, so please move me up from the Superior for my "
            "Lisbon stay next week. If for some reason it isn't free this time, I'd still pay for the Executive "
            "Room, as long as it's no more than 60 euros a night extra.",
            knows=traveller_facts(ruben, booking),
            persona="A regional director who travels a lot and knows his way around hotel perks.",
            rules=(
                "Pay for an Executive Room only if it costs at most 60 euros a night more than your current rate; "
                "otherwise keep your room as it is.",
            ),
        ),
        golden=[
            *opening(
                ruben,
                get_traveller(ruben),
                get_booking(booking),
                *standing(VELDHOVEN),
                availability(LISBON, "2026-09-16", "2026-09-19"),
            ),
            *paid_upgrade(
                booking,
                LIS_EXECUTIVE,
                24_900,
                derived(15_000, "(24,900 negotiated Executive - 19,900) x 3 nights; 50.00 a night"),
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # priced at the Executive rack rate of 299.00
            charge_booking(booking, 30_000, "room_upgrade")
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
