"""Trips: cancelling a multi-city trip segment by segment (TR012) and booking a new trip or a new stay (TR013).

Uses the trip tools helper A added (see the note in test_disruptions.py): ``list_traveller_trips``, ``get_trip``,
``create_trip``, ``add_booking_to_trip``, and ``list_city_rate_caps``; factories `TripFactory` (pass ``trip=`` to
`BookingFactory` for a segment) and `CityRateCapFactory`.
"""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    add_to_trip,
    availability,
    book,
    cancel,
    cancel_booking,
    cancel_facts,
    cancel_for_hotel,
    charge_booking,
    create_trip,
    find_trip,
    get_account,
    get_group,
    get_traveller,
    issue_refund,
    late_checkout,
    left_pending,
    move_dates,
    new_ticket,
    on_hold,
    opening,
    rate_caps,
    relocate,
    relocation_search,
    request_approval,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    CityRateCapFactory,
    LoyaltyProfileFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    TripFactory,
    booking_for,
    earlier_ticket,
    group_booking,
    room_disruption,
    set_available_rooms,
    travellers,
    trip_segment,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket, TicketComment, Trip
from domains.travel.phrases import refund_amount
from domains.travel.seed import (
    ALF_CLASSIC,
    ALF_PATIO,
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    AMSTERDAM_ZUID,
    CASTELLAN,
    FRA_DOUBLE,
    FRA_SINGLE,
    FRANKFURT,
    LIS_STANDARD,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LISBON_ALFAMA,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LONDON,
    NORRLAND,
    VELDHOVEN,
    ZUI_COSY,
)
from pytest_thinkingbox import User, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "New bookings",
    "Free-cancellation window",
    "Cancellations",
    "The service fee",
    "Date changes",
    "Hotel-fault cancellations",
    "Group bookings",
    "Late checkout",
    "Refund limit",
    "Hotel disruptions and relocation",
    "Trips and itineraries",
    "City rate caps",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR012_001(tb):
    """Three-city trip cancelled: Amsterdam past its window, Frankfurt inside, London hotel at fault; three refunds."""
    hanna = TravellerFactory(name="Hanna Vogel", account_id=VELDHOVEN)
    trip = TripFactory(traveller=hanna, name="Rhine and Thames client tour")
    ams = trip_segment(trip, AMS_STANDARD, date(2026, 9, 10), 2, 21_000)  # free until 7 Sep 15:00
    fra = trip_segment(trip, FRA_DOUBLE, date(2026, 9, 12), 2, 13_900)  # free until 11 Sep 15:00
    lon = trip_segment(trip, LON_CLASSIC, date(2026, 9, 14), 2, 27_500, hotel_confirmation="cannot_honour")
    ticket = TicketFactory(requester=hanna, booking_id=ams.id, subject="Client tour called off")

    run = tb.run(
        User(
            says="Our client tour has been called off. Please cancel my whole trip, the Amsterdam, Frankfurt and "
            "London hotels. One refund for the lot is fine, and I'd expect everything back since I'm cancelling all "
            "of it at once.",
            knows=cancel_facts(hanna, trip),
        ),
        golden=[
            *opening(hanna, *find_trip(hanna, trip)),
            *cancel(ams, derived(18_500, "window passed: 42,000 less one night at 21,000 less the 2,500 fee")),
            *cancel(fra, derived(25_300, "inside the window: 27,800 less the 2,500 fee")),
            *cancel_for_hotel(lon, 55_000),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # "I'd expect everything back": the Amsterdam night kept refunded as well
            issue_refund(ams, 21_000, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert {b.status for b in run.db.query(Booking)} == {"cancelled"}
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(r.booking_id, r.amount_cents, r.reason, r.service_fee_cents) for r in refunds] == [
        (ams.id, 18_500, "cancellation", 2_500),
        (fra.id, 25_300, "cancellation", 2_500),
        (lon.id, 55_000, "hotel_fault", 0),
    ]  # policy: one refund per segment, each under its own rule
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


def test_case_TR012_002(tb):
    """Trip cancelled: the Lisbon suite's 1,411.00 refund goes to payments, Amsterdam refunded, Frankfurt left."""
    elin = TravellerFactory(name="Elin Nyberg", account_id=NORRLAND)
    trip = TripFactory(traveller=elin, name="Iberia and Benelux supplier visits")
    fra = trip_segment(
        trip, FRA_SINGLE, date(2026, 9, 18), 2, 14_900, status="cancelled", cancelled_at=days_ago(4, hour=16)
    )
    PaymentFactory(booking=fra, kind="refund", reason="cancellation", amount_cents=27_300, service_fee_cents=2_500)
    lis = trip_segment(trip, LIS_SUITE, date(2026, 9, 22), 4, 35_900)  # free until 20 Sep 15:00
    ams = trip_segment(trip, AMS_STANDARD, date(2026, 9, 26), 2, 19_000)  # free until 23 Sep 15:00
    ticket = TicketFactory(requester=elin, booking_id=lis.id, subject="Cancel the rest of my trip")

    run = tb.run(
        User(
            says="The supplier visits are off. Please cancel what's left of my trip, the Lisbon suite and the "
            "Amsterdam hotel. If the Lisbon refund is too big for you, just send it in two parts.",
            knows=cancel_facts(elin, trip),
        ),
        golden=[
            *opening(elin, *find_trip(elin, trip)),
            cancel_booking(lis),
            *cancel(ams, derived(35_500, "inside the window: 38,000 less the 2,500 fee")),
            *on_hold(
                ticket.id,
                "cancellation",
                "over_limit",
                "Lisbon suite cancelled inside the window: refund of 1,411.00 (143,600 less the 2,500 fee) "
                "for the payments team.",
            ),
        ],
        reply="I've cancelled the Lisbon suite and the Amsterdam hotel; the Frankfurt stay was already cancelled. "
        "Amsterdam is refunded EUR 355.00. The Lisbon refund of EUR 1,411.00 is above what I can issue, so our "
        "payments team will send it in one refund.",
        traps=[  # "send it in two parts"
            issue_refund(lis, 100_000, "cancellation", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, b.id).status for b in (fra, lis, ams)] == ["cancelled"] * 3
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.id).all()
    assert [(r.booking_id, r.amount_cents) for r in refunds] == [(fra.id, 27_300), (ams.id, 35_500)]
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "cancellation", "over_limit", "payments")
    assert run.db.query(TicketComment).count() == 1
    run.rubric(
        "Did the agent tell the traveller the Lisbon refund amount that the payments team will send?",
        phrases=refund_amount(141_100),
    )


@pytest.mark.two_requests
def test_case_TR012_003(tb):
    """A guest cancels her trip: her Amsterdam stay is cancelled, the London group room waits for the organiser."""
    harriet, zoe = travellers("Harriet Cole", "Zoe Marsh", account_id=CASTELLAN)
    trip = TripFactory(traveller=zoe, name="Congress and site visit")
    group = group_booking(harriet, LONDON, "Castellan oncology congress", date(2026, 9, 15))
    group.check_out = date(2026, 9, 17)
    booking_for(harriet, LON_DELUXE, date(2026, 9, 15), 2, 27_500, group=group)
    room = booking_for(zoe, LON_DELUXE, date(2026, 9, 15), 2, 27_500, group=group, trip=trip)
    ams = trip_segment(trip, AMS_CANAL_VIEW, date(2026, 9, 17), 2, 22_000)  # free until 14 Sep 15:00
    ticket = TicketFactory(requester=zoe, booking_id=room.id, subject="Cancel my congress trip")

    run = tb.run(
        User(
            says="I can't go to the congress any more. Please cancel my London room and my Amsterdam hotel after it, "
            "the whole trip.",
            knows=cancel_facts(zoe, trip),
        ),
        golden=[
            *opening(zoe, *find_trip(zoe, trip), get_group(group)),
            *cancel(ams, derived(41_500, "inside the window: 44,000 less the 2,500 fee")),
            *left_pending(
                ticket.id,
                "cancellation",
                "awaiting_organiser",
                "Amsterdam stay cancelled and refunded; the London group room awaits the organiser's request.",
            ),
        ],
        traps=[cancel_booking(room)],  # "cancel my London room"
    )

    run.expect_golden()
    assert run.db.get(Booking, room.id).status == "confirmed"  # policy: only the organiser cancels a group room
    assert run.db.get(Booking, ams.id).status == "cancelled"
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.service_fee_cents) == (ams.id, 41_500, 2_500)
    assert run.db.get(Ticket, ticket.id).outcome == (
        "pending",
        "normal",
        "cancellation",
        "awaiting_organiser",
        "group_desk",
    )


def test_case_TR013_001(tb):
    """No ticket yet: a new Lisbon-Frankfurt trip at the negotiated rates (not the quoted 239.00), linked as a trip."""
    lukas = TravellerFactory(name="Lukas Brenner", account_id=VELDHOVEN)
    CityRateCapFactory(account_id=VELDHOVEN, city="Lisbon", max_nightly_rate_cents=22_000)
    CityRateCapFactory(account_id=VELDHOVEN, city="Frankfurt", max_nightly_rate_cents=15_000)

    run = tb.run(
        User(
            says="I need a new trip booked: the Harbourline in Lisbon, a Superior River View from 21 to 24 September "
            "(their website says 239 a night), then the Kestrel Park in Frankfurt, a Business Single from the 24th "
            "to the 26th. Please keep both hotels together as one trip.",
            knows=traveller_facts(lukas),
        ),
        golden=[
            *opening(
                lukas,
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(LISBON, "2026-09-21", "2026-09-24"),
                availability(FRANKFURT, "2026-09-24", "2026-09-26"),
            ),
            new_ticket(lukas, "New Lisbon and Frankfurt trip", "new_booking"),
            create_trip(lukas, "Lisbon and Frankfurt"),
            book(lukas, LIS_SUPERIOR, "2026-09-21", "2026-09-24", 19_900),
            add_to_trip("BK-0001", "TRP-0001"),
            book(lukas, FRA_SINGLE, "2026-09-24", "2026-09-26", 12_400),
            add_to_trip("BK-0002", "TRP-0001"),
            solved("T-0001"),
        ],
        traps=[  # "their website says 239 a night"
            book(lukas, LIS_SUPERIOR, "2026-09-21", "2026-09-24", 23_900)
        ],
    )

    run.expect_golden()
    bookings = run.db.query(Booking).order_by(Booking.id).all()
    assert [(b.room_type_id, b.nightly_rate_cents, b.trip_id) for b in bookings] == [
        (LIS_SUPERIOR, 19_900, "TRP-0001"),
        (FRA_SINGLE, 12_400, "TRP-0001"),
    ]  # policy: the negotiated rates, both stays in one trip
    assert run.db.query(Trip).one().traveller_id == lukas.id
    new = run.db.query(Ticket).one()
    assert (new.requester_id, new.booking_id) == (lukas.id, None)
    assert new.outcome == ("solved", "normal", "new_booking", None, None)


def test_case_TR013_002(tb):
    """New London-Amsterdam trip: the Club Room is above Castellan's London cap, so its Deluxe King is booked."""
    george = TravellerFactory(name="George Hartley", account_id=CASTELLAN)
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    CityRateCapFactory(account_id=CASTELLAN, city="Amsterdam", max_nightly_rate_cents=25_000)
    ticket = TicketFactory(requester=george, subject="Trip to London and Amsterdam")

    run = tb.run(
        User(
            says="Please book my trip for the end of the month: a Club Room at the Aldwych Grand from 28 to 30 "
            "September, then a Canal View at the Meridian Quay in Amsterdam from the 30th to 2 October. One trip, "
            "please.",
            knows=traveller_facts(george),
            rules=("If the Club Room cannot be booked, take the best room the agent offers at the same hotel.",),
        ),
        golden=[
            *opening(
                george,
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
                availability(LONDON, "2026-09-28", "2026-09-30"),
                availability(AMSTERDAM, "2026-09-30", "2026-10-02"),
            ),
            create_trip(george, "London and Amsterdam"),
            book(george, LON_DELUXE, "2026-09-28", "2026-09-30", 27_500),
            add_to_trip("BK-0001", "TRP-0001"),
            book(george, AMS_CANAL_VIEW, "2026-09-30", "2026-10-02", 22_000),
            add_to_trip("BK-0002", "TRP-0001"),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # the Club Room as asked, at Castellan's 330.00 rate
            book(george, LON_CLUB, "2026-09-28", "2026-09-30", 33_000)
        ],
    )

    run.expect_golden()
    bookings = run.db.query(Booking).order_by(Booking.id).all()
    assert [(b.room_type_id, b.nightly_rate_cents, b.trip_id) for b in bookings] == [
        (LON_DELUXE, 27_500, "TRP-0001"),
        (AMS_CANAL_VIEW, 22_000, "TRP-0001"),
    ]  # policy: nothing above the 300.00 London cap; the best room type within it
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


@pytest.mark.distractors
def test_case_TR013_003(tb):
    """Lisbon stay added to the current trip (not August's): Norrland's Patio rate expired, so the 225.00 rack rate."""
    johan = TravellerFactory(name="Johan Ek", account_id=NORRLAND)
    old_trip = TripFactory(traveller=johan, name="Summer timber fair", created_at=days_ago(70, hour=9))
    trip_segment(
        old_trip, AMS_STANDARD, date(2026, 8, 3), 3, 19_000, status="completed", booked_at=days_ago(70, hour=9)
    )
    trip = TripFactory(traveller=johan, name="Autumn buyers' tour", created_at=days_ago(12, hour=11))
    trip_segment(trip, AMS_CANAL_VIEW, date(2026, 9, 28), 2, 22_500, booked_at=days_ago(12, hour=11))
    CityRateCapFactory(account_id=NORRLAND, city="Lisbon", max_nightly_rate_cents=25_000)
    ticket = TicketFactory(requester=johan, subject="Add Lisbon to my autumn trip")

    run = tb.run(
        User(
            says="Please add a Lisbon leg to my autumn buyers' tour, before Amsterdam: a Patio Room at the Alfama "
            "Terrace from 25 to 28 September. We had a contract rate of 195 there, so use that.",
            knows=traveller_facts(johan),
        ),
        golden=[
            *opening(
                johan,
                *find_trip(johan, trip),
                *standing(NORRLAND),
                rate_caps(NORRLAND),
                availability(LISBON_ALFAMA, "2026-09-25", "2026-09-28"),
            ),
            book(johan, ALF_PATIO, "2026-09-25", "2026-09-28", 22_500),
            add_to_trip("BK-5003", trip.id),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # "use that": the contract rate that ended on 31 August
            book(johan, ALF_PATIO, "2026-09-25", "2026-09-28", 19_500)
        ],
    )

    run.expect_golden()
    new = run.db.get(Booking, "BK-5003")
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents, new.trip_id) == (
        LISBON_ALFAMA,
        ALF_PATIO,
        22_500,
        trip.id,
    )  # policy: an expired negotiated rate is never used; the stay joins the current trip
    assert run.db.query(Booking).count() == 3
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)
    assert run.db.query(Payment).filter_by(booking_id="BK-5003").one().amount_cents == 67_500


@pytest.mark.distractors
def test_case_TR012_004(tb):
    """Back with the right employee number after a failed check: both segments, each inside its own window, are
    cancelled and refunded one by one less the fee. The ticket of the failed attempt is pending (another matter's
    status), so a new one is opened, linking the Lisbon segment he names first."""
    mateus = TravellerFactory(name="Mateus Alves", account_id=VELDHOVEN)
    trip = TripFactory(traveller=mateus, name="Porto-Lisbon-Frankfurt commissioning")
    lis = trip_segment(trip, LIS_SUPERIOR, date(2026, 9, 21), 3, 19_900)  # free until 19 Sep 15:00
    fra = trip_segment(trip, FRA_SINGLE, date(2026, 9, 24), 2, 12_400)  # free until 23 Sep 15:00
    failed = earlier_ticket(
        mateus,
        "Cancel commissioning trip",
        "pending",
        days_ago(2, hour=16),
        lis,
        category="cancellation",
        reason="identity_not_verified",
    )

    run = tb.run(
        User(
            says="I tried to cancel my commissioning trip on Sunday, but the employee number I had with me was an old "
            "one. I have my badge now. The commissioning is postponed to next year, so please cancel both hotels "
            "of the trip, Lisbon and Frankfurt.",
            knows=cancel_facts(mateus, trip),
        ),
        golden=[
            *opening(mateus, *find_trip(mateus, trip)),
            new_ticket(mateus, "Cancel the commissioning trip", "cancellation", lis),
            *cancel(lis, derived(57_200, "inside the window: the 59,700 paid less the 2,500 service fee")),
            *cancel(fra, derived(22_300, "inside the window: the 24,800 paid less the 2,500 service fee")),
            solved("T-1002"),
        ],
        traps=[  # the failed attempt's pending ticket worked instead of a new one
            solved(failed.id, reason="outside_window")
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, b.id).status for b in (lis, fra)] == ["cancelled", "cancelled"]
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(r.booking_id, r.amount_cents, r.service_fee_cents) for r in refunds] == [
        (lis.id, 57_200, 2_500),
        (fra.id, 22_300, 2_500),
    ]  # policy: one refund per segment, each under its own window
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (mateus.id, lis.id)
    assert new.outcome == ("solved", "normal", "cancellation", None, None)
    assert run.db.get(Ticket, failed.id).outcome == ("pending", "normal", "cancellation", "identity_not_verified", None)
    assert run.db.query(TicketComment).count() == 0


@pytest.mark.two_requests
def test_case_TR017_001(tb):
    """Trip: the oversold Amsterdam segment relocated to a cheaper Zuidas room (refund), the Lisbon leg cancelled."""
    astrid = TravellerFactory(name="Astrid Berg", account_id=NORRLAND)
    trip = TripFactory(traveller=astrid, name="Amsterdam and Lisbon buyers")
    ams = trip_segment(trip, AMS_STANDARD, date(2026, 9, 15), 2, 19_000, hotel_confirmation="cannot_honour")
    lis = trip_segment(trip, LIS_STANDARD, date(2026, 9, 17), 3, 16_500)  # free until 15 Sep 15:00
    room_disruption(
        AMS_STANDARD, "overbooking", date(2026, 9, 16), date(2026, 9, 16), "Canal Standards oversold for one night."
    )
    ticket = TicketFactory(requester=astrid, booking_id=ams.id, subject="Changes to my buyers' trip")

    run = tb.run(
        User(
            says="Two things about my buyers' trip. Meridian Quay says my Amsterdam room is oversold, so please get me "
            "into another hotel there. And the Lisbon part is off, the buyer cancelled: please cancel that hotel.",
            knows=cancel_facts(astrid, trip),
        ),
        golden=[
            *opening(
                astrid,
                *find_trip(astrid, trip),
                *relocation_search(AMSTERDAM, AMSTERDAM_ZUID, "2026-09-15", "2026-09-17"),
                get_account(NORRLAND),
            ),
            relocate(ams, ZUI_COSY, 18_000),
            issue_refund(
                "BK-5003",
                derived(2_000, "(19,000 booked - 18,000 Norrland Cosy Double rate) x 2 nights"),
                "hotel_fault",
            ),
            *cancel(lis, derived(47_000, "inside the window: 49,500 less the 2,500 fee")),
            solved(ticket.id, "relocation"),
        ],
        traps=[  # the hotel is at fault, so the whole Amsterdam stay refunded as well as moved
            issue_refund("BK-5003", 36_000, "hotel_fault")
        ],
    )

    run.expect_golden()
    new = run.db.get(Booking, "BK-5003")
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents, new.trip_id) == (
        AMSTERDAM_ZUID,
        ZUI_COSY,
        18_000,
        trip.id,
    )  # the relocated stay stays in the trip
    assert run.db.get(Booking, lis.id).status == "cancelled"
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.id).all()
    assert [(r.booking_id, r.amount_cents, r.reason, r.service_fee_cents) for r in refunds] == [
        ("BK-5003", 2_000, "hotel_fault", 0),
        (lis.id, 47_000, "cancellation", 2_500),
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)


def test_case_TR013_004(tb):
    """New trip: the Amsterdam Loft is full one night, so only the Frankfurt stay is booked and linked to it."""
    sofia = TravellerFactory(name="Sofia Brandt", account_id=VELDHOVEN)
    set_available_rooms("RT-1043", date(2026, 9, 25), 0)
    ticket = TicketFactory(requester=sofia, subject="Frankfurt and Amsterdam trip")

    run = tb.run(
        User(
            says="Please book a trip for me: a Comfort Plus at the Kestrel Park in Frankfurt from 22 to 24 September, "
            "then a Loft Room at the Meridian Quay in Amsterdam from the 24th to the 26th. If the Amsterdam room "
            "can't be done, book Frankfurt anyway and I'll sort Amsterdam out myself.",
            knows=traveller_facts(sofia),
        ),
        golden=[
            *opening(
                sofia,
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(FRANKFURT, "2026-09-22", "2026-09-24"),
                availability(AMSTERDAM, "2026-09-24", "2026-09-26"),
            ),
            create_trip(sofia, "Frankfurt and Amsterdam"),
            book(sofia, "RT-1033", "2026-09-22", "2026-09-24", 16_500),
            add_to_trip("BK-0001", "TRP-0001"),
            solved(ticket.id, "new_booking", "no_availability"),
        ],
        traps=[  # another Amsterdam room type booked instead of the full Loft, unasked
            book(sofia, AMS_CANAL_VIEW, "2026-09-24", "2026-09-26", 25_500)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()  # policy: the full stay is left out, the other still booked
    assert (booking.hotel_id, booking.room_type_id, booking.nightly_rate_cents, booking.trip_id) == (
        FRANKFURT,
        "RT-1033",
        16_500,
        "TRP-0001",
    )
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", "no_availability", None)


@pytest.mark.pushback
def test_case_TR012_005(tb):
    """Trip cancelled: the Alfama stay she was relocated to is an ordinary booking (fee due); Frankfurt past window."""
    amelia = TravellerFactory(name="Amelia Whitfield", account_id=VELDHOVEN)
    trip = TripFactory(traveller=amelia, name="Frankfurt and Lisbon plant visits")
    fra = trip_segment(trip, FRA_DOUBLE, date(2026, 9, 8), 2, 13_900)  # free until 7 Sep 15:00
    old = trip_segment(
        trip, LIS_STANDARD, date(2026, 9, 16), 3, 15_900, status="relocated", hotel_confirmation="cannot_honour"
    )
    PaymentFactory(
        booking=old, kind="transfer_out", reason="relocation", amount_cents=47_700, created_at=days_ago(2, hour=10)
    )
    new = trip_segment(
        trip,
        ALF_CLASSIC,
        date(2026, 9, 16),
        3,
        15_500,
        relocated_from_id=old.id,
        booked_at=days_ago(2, hour=10),
        payment=False,
    )  # free until 14 Sep 15:00
    PaymentFactory(booking=new, kind="transfer_in", reason="relocation", amount_cents=47_700)
    PaymentFactory(booking=new, kind="refund", reason="hotel_fault", amount_cents=1_200)
    ticket = TicketFactory(requester=amelia, booking_id=fra.id, subject="Cancel my plant visits")

    run = tb.run(
        User(
            says="My plant visits are cancelled, so please cancel the rest of my trip, Frankfurt and Lisbon. The "
            "Lisbon hotel is only the one you moved me to because the Harbourline let me down, so that one should be "
            "refunded in full without any fee.",
            knows=cancel_facts(amelia, trip),
            rules=(
                "If any fee is kept from the Lisbon refund, object once that the hotel was to blame; then accept an "
                "answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(amelia, *find_trip(amelia, trip)),
            *cancel(fra, derived(11_400, "window passed: 27,800 less one night at 13,900 less the 2,500 fee")),
            *cancel(new, derived(44_000, "inside the Alfama's window: 46,500 still refundable less the 2,500 fee")),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, b.id).status for b in (fra, old, new)] == ["cancelled", "relocated", "cancelled"]
    refunds = run.db.query(Payment).filter_by(kind="refund", reason="cancellation").order_by(Payment.booking_id).all()
    assert [(r.booking_id, r.amount_cents, r.service_fee_cents) for r in refunds] == [
        (fra.id, 11_400, 2_500),
        (new.id, 44_000, 2_500),
    ]  # policy: the relocated stay is an ordinary booking; the old hotel's fault does not carry over
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


@pytest.mark.two_requests
def test_case_TR017_002(tb):
    """Trip: London extended a night at its own 330.00 (the cap does not apply to date changes); Amsterdam moved."""
    ruth = TravellerFactory(name="Ruth Adeyemi", account_id=CASTELLAN)
    trip = TripFactory(traveller=ruth, name="London and Amsterdam regulators")
    lon = trip_segment(trip, LON_CLUB, date(2026, 9, 14), 3, 33_000)
    ams = trip_segment(trip, AMS_CANAL_VIEW, date(2026, 9, 17), 2, 22_000)  # free until 14 Sep 15:00
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    ticket = TicketFactory(requester=ruth, booking_id=lon.id, subject="One more night in London")

    run = tb.run(
        User(
            says="My London meetings run a day longer, so please add a night to my Aldwych stay, checking out on the "
            "18th. Then push my Amsterdam hotel back a day so it runs from the 18th to the 20th. I know our London cap "
            "is 300 now, so ask Rebecca to approve the extra night if you have to.",
            knows=traveller_facts(ruth, trip),
        ),
        golden=[
            *opening(
                ruth,
                *find_trip(ruth, trip),
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
                availability(LONDON, "2026-09-17", "2026-09-18"),
                availability(AMSTERDAM, "2026-09-19", "2026-09-20"),
            ),
            move_dates(lon, "2026-09-14", "2026-09-18"),
            charge_booking(lon, 33_000, "extra_nights"),
            move_dates(ams, "2026-09-18", "2026-09-20"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # "ask Rebecca to approve the extra night"
            request_approval(
                lon, "cap_exception", LON_CLUB, 33_000, "Extra London night at 330.00, above the 300.00 cap."
            )
        ],
    )

    run.expect_golden()
    assert (run.db.get(Booking, lon.id).check_out, run.db.get(Booking, ams.id).check_in) == (
        date(2026, 9, 18),
        date(2026, 9, 18),
    )
    charges = run.db.query(Payment).filter_by(reason="extra_nights").all()
    assert [(c.booking_id, c.amount_cents) for c in charges] == [(lon.id, 33_000)]  # the booking's own rate
    assert run.db.query(Payment).count() == 3  # the moved Amsterdam stay moves no money
    assert run.db.query(ApprovalRequest).count() == 0  # policy: caps do not apply to date changes
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


@pytest.mark.two_requests
def test_case_TR012_006(tb):
    """In-house in Frankfurt: the rest of the trip cancelled (Amsterdam keeps a night), free Gold late checkout kept."""
    jonas = TravellerFactory(name="Jonas Lindqvist", account_id=VELDHOVEN)
    LoyaltyProfileFactory(traveller=jonas, tier="gold", tier_valid_until=date(2026, 12, 31))
    trip = TripFactory(traveller=jonas, name="Rhine-Amstel-Thames roadshow")
    fra = trip_segment(trip, FRA_SINGLE, date(2026, 9, 6), 3, 12_400, status="checked_in")
    ams = trip_segment(trip, AMS_STANDARD, date(2026, 9, 9), 2, 21_000)  # free until 6 Sep 15:00
    lon = trip_segment(trip, LON_CLASSIC, date(2026, 9, 11), 2, 27_500)  # free until 9 Sep 15:00
    ticket = TicketFactory(requester=jonas, booking_id=ams.id, subject="Roadshow cut short")

    run = tb.run(
        User(
            says="I have to fly home from Frankfurt tomorrow for a family matter, so please cancel the rest of my "
            "roadshow trip after Frankfurt. And could I have a late checkout at the Kestrel Park tomorrow? My flight "
            "is in the afternoon.",
            knows=cancel_facts(jonas, trip),
        ),
        golden=[
            *opening(jonas, get_traveller(jonas), *find_trip(jonas, trip)),
            *cancel(ams, derived(18_500, "window passed: 42,000 less one night at 21,000 less the 2,500 fee")),
            *cancel(lon, derived(52_500, "inside the window: 55,000 less the 2,500 fee")),
            late_checkout(fra, 0),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # a family emergency: the Amsterdam night kept refunded as well
            issue_refund(ams, 21_000, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, b.id).status for b in (fra, ams, lon)] == ["checked_in", "cancelled", "cancelled"]
    assert run.db.get(Booking, fra.id).late_checkout is True
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(r.booking_id, r.amount_cents, r.service_fee_cents) for r in refunds] == [
        (ams.id, 18_500, 2_500),
        (lon.id, 52_500, 2_500),
    ]
    assert run.db.query(Payment).filter_by(reason="late_checkout").count() == 0  # policy: Gold, complimentary
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)
