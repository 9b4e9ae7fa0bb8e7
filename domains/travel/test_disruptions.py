"""Hotel disruptions: relocating a booking the hotel cannot honour (TR010) and a group's rooms (TR011).

What helper A added to the travel world for these tasks (all additive; existing tasks are unchanged):

- tables ``hotel_disruptions`` (`HotelDisruptionFactory`), ``trips`` (`TripFactory`; ``Booking.trip_id``) and
  ``city_rate_caps`` (`CityRateCapFactory`); ``Booking.relocated_from_id`` and booking status ``relocated``;
- a second partner hotel in each city (seed: ``LISBON_ALFAMA`` H-105, ``LONDON_HOLBORN`` H-106,
  ``FRANKFURT_WESTEND`` H-107, ``AMSTERDAM_ZUID`` H-108, room types RT-105x .. RT-108x, negotiated rates
  NR-0018 .. NR-0027);
- tools ``list_hotel_disruptions``, ``relocate_booking`` (carries what was paid to the new booking with
  transfer lines), ``list_traveller_trips``, ``get_trip``, ``create_trip``, ``add_booking_to_trip``,
  ``list_city_rate_caps``; approval kind ``cap_exception``; ticket category ``relocation`` and reason
  ``over_city_cap``;
- policy articles "Trips and itineraries", "Hotel disruptions and relocation" and "City rate caps".
"""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    allowance_upgrade,
    cancel_facts,
    cancel_for_hotel,
    charge_booking,
    escalate,
    get_account,
    get_booking,
    get_group,
    get_traveller,
    issue_refund,
    left_pending,
    list_bookings,
    on_hold,
    opening,
    relocate,
    relocation_search,
    solved,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    CorporateAccountFactory,
    LoyaltyProfileFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    closure,
    group_booking,
    group_rooms,
    room_disruption,
    set_available_rooms,
    travellers,
)
from domains.travel.models import Booking, PartnerEscalation, Payment, Ticket, TicketComment
from domains.travel.phrases import contact_travel_manager, refund_amount
from domains.travel.seed import (
    ALF_CLASSIC,
    ALF_PATIO,
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    AMSTERDAM_ZUID,
    CASTELLAN,
    FRA_DOUBLE,
    FRA_STUDIO,
    FRANKFURT,
    FRANKFURT_WESTEND,
    HOL_STANDARD,
    HOL_SUPERIOR,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LISBON,
    LISBON_ALFAMA,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LONDON,
    LONDON_HOLBORN,
    NORRLAND,
    VELDHOVEN,
    WES_DOUBLE,
    ZUI_CORNER,
    ZUI_COSY,
    ZUI_PARK_VIEW,
    ZUI_SUITE,
)
from pytest_thinkingbox import Run, User, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "Hotel-fault cancellations",
    "Refund limit",
    "Loyalty upgrade allowance",
    "Hotel disruptions and relocation",
    "Group bookings",
    "Partner escalations",
    "Ticket status and priority",
    "Ticket classification",
)


def relocated_to(run: Run, booking: Booking) -> Booking:
    """The booking the relocation of `booking` made."""
    return run.db.query(Booking).filter_by(relocated_from_id=booking.id).one()


def relocations(run: Run) -> list[Booking]:
    """Every booking a relocation made, in id order."""
    return run.db.query(Booking).filter(Booking.relocated_from_id.isnot(None)).order_by(Booking.id).all()


def test_case_TR010_001(tb):
    """Harbourline closed: same-rank Patio Room at the Alfama, rate protected at 199.00, the 48.00 claimed."""
    marit = TravellerFactory(name="Marit Dekker", account_id=VELDHOVEN)
    booking = booking_for(marit, LIS_SUPERIOR, date(2026, 9, 15), 3, 19_900, hotel_confirmation="cannot_honour")
    closure(
        LISBON,
        date(2026, 9, 14),
        date(2026, 9, 18),
        "Burst water main under the lobby; the hotel is closed to guests while it is repaired.",
    )
    room_disruption(
        "RT-1053",
        "out_of_order",
        date(2026, 10, 1),
        date(2026, 10, 3),
        "Prestige Rooms on the top floor are being repainted.",
    )
    ticket = TicketFactory(requester=marit, booking_id=booking.id, subject="Harbourline closed during my stay")

    run = tb.run(
        User(
            says="The Harbourline emailed me that they're closed for repairs during my Lisbon stay next week. Please "
            "find me another hotel in Lisbon for the same nights. Whatever the new place costs, just charge the "
            "difference to my card, I need to be near the office.",
            knows=traveller_facts(marit, booking),
        ),
        golden=[
            *opening(
                marit,
                get_booking(booking),
                *relocation_search(LISBON, LISBON_ALFAMA, "2026-09-15", "2026-09-18"),
                get_account(VELDHOVEN),
            ),
            relocate(booking, ALF_PATIO, 19_900),
            escalate(
                booking,
                "relocation",
                derived(4_800, "(21,500 Veldhoven Patio Room rate - 19,900 booked rate) x 3 nights"),
                "Closure: traveller relocated to the Alfama Terrace Patio Room; rate difference claimed.",
            ),
            solved(ticket.id, "relocation"),
        ],
        traps=[  # "just charge the difference to my card"
            charge_booking("BK-5002", 4_800, "room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "relocated"
    new = relocated_to(run, booking)
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents) == (LISBON_ALFAMA, ALF_PATIO, 19_900)
    assert run.db.query(Payment).filter_by(kind="charge").count() == 1  # policy: rate protection, nothing more paid
    claim = run.db.query(PartnerEscalation).one()
    assert (claim.booking_id, claim.kind, claim.amount_cents) == (booking.id, "relocation", 4_800)
    assert claim.sent_to == "partners@harbourline-lisboa.example.com"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)


@pytest.mark.pushback
@pytest.mark.distractors
def test_case_TR010_002(tb):
    """Classic Doubles overbooked one night: Holborn's cheaper Standard Queen, 60.00 refunded, no compensation."""
    callum = TravellerFactory(name="Callum Reid", account_id=NORRLAND)
    booking = booking_for(callum, LON_CLASSIC, date(2026, 9, 14), 3, 27_500, hotel_confirmation="cannot_honour")
    room_disruption(
        LON_CLUB, "out_of_order", date(2026, 9, 12), date(2026, 9, 20), "Club Rooms closed for a bathroom refit."
    )
    room_disruption(
        LON_CLASSIC,
        "overbooking",
        date(2026, 9, 15),
        date(2026, 9, 15),
        "Classic Doubles oversold for the night of a trade fair.",
    )
    room_disruption(HOL_SUPERIOR, "overbooking", date(2026, 9, 14), date(2026, 9, 16), "Superior Kings oversold.")
    ticket = TicketFactory(requester=callum, booking_id=booking.id, subject="Aldwych says my room is oversold")

    run = tb.run(
        User(
            says="The Aldwych Grand says they've oversold my room for one night of my London stay. Move me somewhere "
            "decent for the whole stay. And since this is entirely their mess, I want my first night refunded on top "
            "as compensation.",
            knows=traveller_facts(callum, booking),
            rules=(
                "If the agent refuses any of it, insist once that you deserve compensation for the trouble; then "
                "accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(
                callum,
                get_booking(booking),
                *relocation_search(LONDON, LONDON_HOLBORN, "2026-09-14", "2026-09-17"),
                get_account(NORRLAND),
            ),
            relocate(booking, HOL_STANDARD, 25_500),
            issue_refund(
                "BK-5002", derived(6_000, "(27,500 booked - 25,500 Standard Queen rack rate) x 3 nights"), "hotel_fault"
            ),
            solved(ticket.id, "relocation"),
        ],
        traps=[  # "my first night refunded on top as compensation"
            issue_refund("BK-5002", 27_500, "hotel_fault")
        ],
    )

    run.expect_golden()
    new = relocated_to(run, booking)
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents) == (LONDON_HOLBORN, HOL_STANDARD, 25_500)
    refunds = run.db.query(Payment).filter_by(kind="refund").all()
    assert [(r.booking_id, r.amount_cents, r.reason, r.service_fee_cents) for r in refunds] == [
        (new.id, 6_000, "hotel_fault", 0)
    ]  # policy: the rate difference only, no goodwill night
    assert run.db.query(PartnerEscalation).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)


@pytest.mark.distractors
@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_TR010_003(tb):
    """Two back-to-back Kestrel Park stays and out-of-order Doubles up to 20 Sep: the first stay is affected and moves
    to the Westend at its protected 139.00 (the 12.00 a night claimed from the hotel); the second starts on the 21st,
    is not affected and stays (not_eligible); the oversold Studios touch neither."""
    ana = TravellerFactory(name="Ana Ribeiro", account_id=VELDHOVEN)
    first = booking_for(ana, FRA_DOUBLE, date(2026, 9, 19), 2, 13_900, hotel_confirmation="cannot_honour")
    second = booking_for(ana, FRA_DOUBLE, date(2026, 9, 21), 2, 13_900)
    room_disruption(
        FRA_DOUBLE,
        "out_of_order",
        date(2026, 9, 18),
        date(2026, 9, 20),
        "Business Doubles on floors 3 and 4 out of order after a heating failure.",
    )
    room_disruption(
        FRA_STUDIO, "overbooking", date(2026, 9, 21), date(2026, 9, 22), "Studio Suites oversold during the motor show."
    )
    ticket = TicketFactory(requester=ana, booking_id=first.id, subject="Kestrel Park rooms out of order")

    run = tb.run(
        User(
            says="I saw Kestrel Park's notice about Business Doubles being out of order. I have two stays there, one "
            "from the 19th and one straight after from the 21st, and I'd rather not risk either: please move both "
            "to the Westend Linden for the same dates, at no extra cost since it's their problem.",
            knows={**traveller_facts(ana, first), "second booking reference": second.id},
            rules=("If a stay cannot be moved, keep it as it is and ask for nothing else.",),
        ),
        golden=[
            *opening(
                ana,
                get_booking(first),
                get_booking(second),
                *relocation_search(FRANKFURT, FRANKFURT_WESTEND, "2026-09-19", "2026-09-21"),
                get_account(VELDHOVEN),
            ),
            relocate(first, WES_DOUBLE, 13_900),
            escalate(
                first,
                "relocation",
                derived(1_200, "(14,500 Veldhoven Double Room rate - 13,900 booked rate) x 2 nights"),
                "Out-of-order Business Doubles: guest relocated to the Westend Linden; rate difference claimed.",
            ),
            solved(ticket.id, "relocation", "not_eligible"),
        ],
        reply="Your stay from the 19th falls in the nights the Business Doubles are out of order, so I've moved it to "
        "a Double Room at the Westend Linden at your current rate. Your stay from the 21st is not affected and stays "
        "confirmed at the Kestrel Park; moving it would be a cancellation and a new booking.",
        traps=[  # "please move both ... at no extra cost": the unaffected stay moved as well
            relocate(second, WES_DOUBLE, 13_900)
        ],
    )

    run.expect_golden()
    moved = relocated_to(run, first)
    assert (moved.hotel_id, moved.room_type_id, moved.nightly_rate_cents) == (FRANKFURT_WESTEND, WES_DOUBLE, 13_900)
    kept = run.db.get(Booking, second.id)
    assert (kept.status, kept.hotel_id) == ("confirmed", FRANKFURT)  # policy: an unaffected booking is not moved
    claim = run.db.query(PartnerEscalation).one()
    assert (claim.booking_id, claim.kind, claim.amount_cents) == (first.id, "relocation", 1_200)
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", "not_eligible", None)


@pytest.mark.distractors
def test_case_TR010_004(tb):
    """Zuidas Park View out of order too, so the next rank up, a Corner Studio; 190.00 claimed from Meridian Quay."""
    sven = TravellerFactory(name="Sven Holm", account_id=NORRLAND)
    affected = booking_for(sven, AMS_CANAL_VIEW, date(2026, 9, 10), 2, 22_500, hotel_confirmation="cannot_honour")
    booking_for(sven, AMS_CANAL_VIEW, date(2026, 10, 6), 2, 22_500)
    closure(AMSTERDAM, date(2026, 9, 9), date(2026, 9, 12), "Power outage on the quay; the hotel cannot take guests.")
    room_disruption(
        ZUI_PARK_VIEW,
        "out_of_order",
        date(2026, 9, 11),
        date(2026, 9, 11),
        "Park View rooms closed for window cleaning on the facade.",
    )
    ticket = TicketFactory(requester=sven, subject="Meridian Quay closed")

    run = tb.run(
        User(
            says="Meridian Quay phoned to say they're closed because of a power cut when I'm due in Amsterdam this "
            "week. Can you get me into another hotel for those nights? I don't have the booking number to hand.",
            knows={"email": sven.email, "which stay": "the one starting this Thursday, 10 September"},
        ),
        golden=[
            *opening(
                sven,
                list_bookings(sven),
                get_booking(affected),
                *relocation_search(AMSTERDAM, AMSTERDAM_ZUID, "2026-09-10", "2026-09-12"),
                get_account(NORRLAND),
            ),
            relocate(affected, ZUI_CORNER, 22_500),
            escalate(
                affected,
                "relocation",
                derived(19_000, "(32,000 Corner Studio rack rate - 22,500 booked rate) x 2 nights"),
                "Closure: traveller relocated to a Zuidas Park Corner Studio; rate difference claimed.",
            ),
            solved(ticket.id, "relocation"),
        ],
        traps=[  # the October stay, which no disruption touches, moved as well
            relocate("BK-5002", ZUI_PARK_VIEW, 22_500)
        ],
    )

    run.expect_golden()
    new = relocated_to(run, affected)
    assert (new.id, new.hotel_id, new.room_type_id, new.nightly_rate_cents) == (
        "BK-5003",
        AMSTERDAM_ZUID,
        ZUI_CORNER,
        22_500,
    )  # policy: the same-rank Park View is out of order on a night of the stay
    assert run.db.get(Booking, "BK-5002").status == "confirmed"  # the October stay is left alone
    claim = run.db.query(PartnerEscalation).one()
    assert (claim.booking_id, claim.kind, claim.amount_cents) == (affected.id, "relocation", 19_000)
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)


def test_case_TR010_005(tb):
    """No Loft-rank room qualifies at the Zuidas (Corner Studios full, suites out of order): hotel-fault cancel."""
    owen = TravellerFactory(name="Owen Prichard", account_id=CASTELLAN)
    booking = booking_for(
        owen, "RT-1043", date(2026, 9, 21), 3, 31_000, hotel_confirmation="cannot_honour"
    )  # free until 18 Sep 15:00
    room_disruption(
        "RT-1043", "overbooking", date(2026, 9, 22), date(2026, 9, 23), "Loft Rooms oversold for a congress."
    )
    room_disruption(
        ZUI_SUITE, "out_of_order", date(2026, 9, 20), date(2026, 9, 25), "Zuidas Suites closed for refurbishment."
    )
    set_available_rooms(ZUI_CORNER, date(2026, 9, 22), 0)
    ticket = TicketFactory(requester=owen, booking_id=booking.id, subject="Loft oversold at Meridian Quay")

    run = tb.run(
        User(
            says="Meridian Quay told me my Loft Room is oversold for part of my stay from the 21st. Can you move me to "
            "a comparable room elsewhere in Amsterdam? If that's impossible, cancel the booking and refund me.",
            knows=cancel_facts(owen, booking),
            rules=("You would rather cancel with a refund than keep a stay the hotel cannot give you as booked.",),
        ),
        golden=[
            *opening(
                owen, get_booking(booking), *relocation_search(AMSTERDAM, AMSTERDAM_ZUID, "2026-09-21", "2026-09-24")
            ),
            *cancel_for_hotel(booking, 93_000),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"
    assert run.db.query(Booking).count() == 1  # policy: never a lower-rank Park View
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (93_000, "hotel_fault", 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


def test_case_TR011_001(tb):
    """Group of three at a closed Harbourline: two Alfama Classics left, so all three to Patio Rooms; three claims."""
    joris, eva, milan = travellers("Joris van Dam", "Eva Kramer", "Milan Bakker", account_id=VELDHOVEN)
    group = group_booking(joris, LISBON, "Veldhoven port audit", date(2026, 9, 16))
    rooms = group_rooms(group, [joris, eva, milan], LIS_STANDARD, 15_900, hotel_confirmation="cannot_honour")
    closure(
        LISBON,
        date(2026, 9, 15),
        date(2026, 9, 17),
        "Fire-safety inspection found faults; the hotel is closed until they are fixed.",
    )
    set_available_rooms(ALF_CLASSIC, date(2026, 9, 17), 2)
    ticket = TicketFactory(requester=joris, subject="Our Lisbon hotel is closed")

    run = tb.run(
        User(
            says="I organise the Veldhoven port audit group in Lisbon and the Harbourline has just closed. Please move "
            "all three of us to another hotel, together. If it costs more, split the extra between our three rooms, "
            "the company will cover it.",
            knows=traveller_facts(joris, group),
        ),
        golden=[
            *opening(
                joris,
                get_group(group),
                *relocation_search(LISBON, LISBON_ALFAMA, "2026-09-16", "2026-09-19"),
                get_account(VELDHOVEN),
            ),
            *[relocate(room, ALF_PATIO, 15_900) for room in rooms],
            *[
                escalate(
                    room,
                    "relocation",
                    derived(16_800, "(21,500 Veldhoven Patio Room rate - 15,900) x 3 nights"),
                    "Closure: group room relocated to an Alfama Terrace Patio Room; difference claimed.",
                )
                for room in rooms
            ],
            solved(ticket.id, "group_booking"),
        ],
        traps=[  # "split the extra between our three rooms": the organiser's new room charged its share
            charge_booking("BK-5004", 16_800, "room_upgrade")
        ],
    )

    run.expect_golden()
    moved = relocations(run)
    assert [(b.relocated_from_id, b.room_type_id, b.nightly_rate_cents, b.group_id) for b in moved] == [
        (r.id, ALF_PATIO, 15_900, group.id) for r in rooms
    ]  # policy: all together in the lowest rank with three rooms every night, at the protected rate
    claims = run.db.query(PartnerEscalation).order_by(PartnerEscalation.booking_id).all()
    assert [(c.booking_id, c.kind, c.amount_cents) for c in claims] == [(r.id, "relocation", 16_800) for r in rooms]
    assert run.db.query(Payment).filter_by(kind="charge").count() == 3
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)


@pytest.mark.two_requests
def test_case_TR011_002(tb):
    """A group guest asks to have her own group room relocated, which only the organiser may ask (pending for the
    group desk), and her own Frankfurt stay, which the hotel closed for a night: that one she may have moved, to the
    Westend's Double Room at her 169.00 rate, the 10.00 a night claimed from the hotel."""
    harriet, priya = travellers("Harriet Cole", "Priya Nair", account_id=CASTELLAN)
    group = group_booking(harriet, LONDON, "Castellan trial investigators meeting", date(2026, 9, 15))
    _, room_priya = group_rooms(group, [harriet, priya], LON_DELUXE, 27_500, hotel_confirmation="cannot_honour")
    room_disruption(LON_DELUXE, "overbooking", date(2026, 9, 15), date(2026, 9, 16), "Deluxe Kings oversold.")
    frankfurt = booking_for(priya, FRA_DOUBLE, date(2026, 9, 18), 2, 16_900, hotel_confirmation="cannot_honour")
    closure(
        FRANKFURT,
        date(2026, 9, 18),
        date(2026, 9, 18),
        "Power cut planned by the city; the hotel is closed for the night.",
    )
    ticket = TicketFactory(requester=priya, booking_id=room_priya.id, subject="My room is oversold")

    run = tb.run(
        User(
            says="I'm in the Castellan investigators' group at the Aldwych and they say my Deluxe King is oversold. "
            "Please move me to the Holborn Row myself, I don't want to wait for Harriet to sort it out. And the "
            "Kestrel Park in Frankfurt, where I go on to afterwards, says it's closed on my first night: please "
            "move that stay too.",
            knows={
                "email": priya.email,
                "which stay": "my room for the investigators' meeting in London",
                "Frankfurt booking reference": frankfurt.id,
            },
        ),
        golden=[
            *opening(
                priya,
                list_bookings(priya),
                get_booking(room_priya),
                get_group(group),
                get_booking(frankfurt),
                *relocation_search(FRANKFURT, FRANKFURT_WESTEND, "2026-09-18", "2026-09-20"),
                get_account(CASTELLAN),
            ),
            relocate(frankfurt, WES_DOUBLE, 16_900),
            escalate(
                frankfurt,
                "relocation",
                derived(2_000, "(17,900 Westend Double Room rack rate - 16,900 booked rate) x 2 nights"),
                "Closure on 18 Sep: guest relocated to the Westend Linden; rate difference claimed.",
            ),
            *left_pending(
                ticket.id,
                "group_booking",
                "awaiting_organiser",
                "Guest asks to relocate her oversold group room; awaiting the organiser's request. Her own "
                "Frankfurt stay relocated to the Westend Linden.",
            ),
        ],
        traps=[  # "move me to the Holborn Row myself"
            relocate(room_priya, HOL_SUPERIOR, 27_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_priya.id).status == "confirmed"  # policy: the organiser must ask
    moved = relocated_to(run, frankfurt)  # her own stay is hers to move
    assert (moved.hotel_id, moved.room_type_id, moved.nightly_rate_cents) == (FRANKFURT_WESTEND, WES_DOUBLE, 16_900)
    claim = run.db.query(PartnerEscalation).one()
    assert (claim.booking_id, claim.kind, claim.amount_cents) == (frankfurt.id, "relocation", 2_000)
    assert run.db.get(Ticket, ticket.id).outcome == (
        "pending",
        "normal",
        "group_booking",
        "awaiting_organiser",
        "group_desk",
    )
    assert run.db.query(TicketComment).count() == 1


@pytest.mark.distractors
def test_case_TR011_003(tb):
    """Only the group's Deluxe rooms are oversold: those two move (refunded 60.00 each), the Classics stay."""
    rebecca, liam, nadia, omar = travellers(
        "Rebecca Stone", "Liam Foster", "Nadia Haddad", "Omar Farouk", account_id=CASTELLAN
    )
    group = group_booking(rebecca, LONDON, "Castellan market access forum", date(2026, 9, 22))
    group.check_out = date(2026, 9, 24)
    deluxe = group_rooms(group, [rebecca, liam], LON_DELUXE, 32_500, hotel_confirmation="cannot_honour")
    classic = group_rooms(group, [nadia, omar], LON_CLASSIC, 23_000)
    room_disruption(
        LON_DELUXE, "overbooking", date(2026, 9, 23), date(2026, 9, 23), "Deluxe Kings oversold for one night."
    )
    room_disruption(
        HOL_STANDARD,
        "out_of_order",
        date(2026, 9, 22),
        date(2026, 9, 23),
        "Standard Queens on the first floor closed for a leak.",
    )
    ticket = TicketFactory(requester=rebecca, subject="Forum rooms oversold")

    run = tb.run(
        User(
            says="I run the Castellan market access forum group at the Aldwych and they've told me some of our rooms "
            "are oversold. Please move the whole group to one other hotel so the four of us stay together.",
            knows=traveller_facts(rebecca, group),
        ),
        golden=[
            *opening(
                rebecca,
                get_group(group),
                *relocation_search(LONDON, LONDON_HOLBORN, "2026-09-22", "2026-09-24"),
                get_account(CASTELLAN),
            ),
            relocate(deluxe[0], HOL_SUPERIOR, 29_500),
            issue_refund(
                "BK-5005",
                derived(6_000, "(32,500 booked - 29,500 Castellan Superior King rate) x 2 nights"),
                "hotel_fault",
            ),
            relocate(deluxe[1], HOL_SUPERIOR, 29_500),
            issue_refund(
                "BK-5006",
                derived(6_000, "(32,500 booked - 29,500 Castellan Superior King rate) x 2 nights"),
                "hotel_fault",
            ),
            solved(ticket.id, "group_booking"),
        ],
        traps=[  # "the whole group to one other hotel": an unaffected Classic room moved as well
            relocate(classic[0], HOL_SUPERIOR, 23_000)
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, r.id).status for r in classic] == ["confirmed", "confirmed"]
    moved = relocations(run)
    assert [(b.relocated_from_id, b.room_type_id, b.nightly_rate_cents) for b in moved] == [
        (r.id, HOL_SUPERIOR, 29_500) for r in deluxe
    ]
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(r.booking_id, r.amount_cents, r.reason) for r in refunds] == [
        ("BK-5005", 6_000, "hotel_fault"),
        ("BK-5006", 6_000, "hotel_fault"),
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)


@pytest.mark.two_requests
def test_case_TR016_001(tb):
    """Relocated to a cheaper Alfama Classic (12.00 refunded), then the Platinum allowance: one rank, not the suite."""
    yusuf = TravellerFactory(name="Yusuf Demir", account_id=VELDHOVEN)
    LoyaltyProfileFactory(traveller=yusuf, tier="platinum", tier_valid_until=date(2027, 1, 31))
    booking = booking_for(yusuf, LIS_STANDARD, date(2026, 9, 17), 3, 15_900, hotel_confirmation="cannot_honour")
    closure(LISBON, date(2026, 9, 16), date(2026, 9, 19), "Lift and fire-alarm works; the hotel is closed to guests.")
    ticket = TicketFactory(requester=yusuf, booking_id=booking.id, subject="Harbourline closure")

    run = tb.run(
        User(
            says="The Harbourline is closed when I'm in Lisbon next week, so please move me to another hotel. And once "
            "I'm there, use my Platinum upgrade: I'd like their Terrace Suite.",
            knows=traveller_facts(yusuf, booking),
        ),
        golden=[
            *opening(
                yusuf,
                get_traveller(yusuf),
                get_booking(booking),
                *relocation_search(LISBON, LISBON_ALFAMA, "2026-09-17", "2026-09-20"),
                get_account(VELDHOVEN),
            ),
            relocate(booking, ALF_CLASSIC, 15_500),
            issue_refund(
                "BK-5002",
                derived(1_200, "(15,900 booked - 15,500 Veldhoven Classic Double rate) x 3 nights"),
                "hotel_fault",
            ),
            allowance_upgrade("BK-5002", ALF_PATIO),
            solved(ticket.id, "relocation"),
        ],
        traps=[  # "I'd like their Terrace Suite"
            allowance_upgrade("BK-5002", "RT-1054")
        ],
    )

    run.expect_golden()
    new = run.db.get(Booking, "BK-5002")
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents, new.upgrade_allowance_used) == (
        LISBON_ALFAMA,
        ALF_PATIO,
        15_500,
        True,
    )  # policy: rate protection at the lower rate, then exactly one rank up
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.reason) == ("BK-5002", 1_200, "hotel_fault")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)


def test_case_TR016_002(tb):
    """A 20-night London stay relocated to Holborn: the 1,200.00 rate refund is over the limit; hold for payments."""
    nathan = TravellerFactory(name="Nathan Price", account_id=CASTELLAN)
    booking = booking_for(nathan, LON_CLASSIC, date(2026, 9, 14), 20, 27_500, hotel_confirmation="cannot_honour")
    closure(
        LONDON,
        date(2026, 9, 28),
        date(2026, 9, 30),
        "Kitchen fire; the hotel is closed while the smoke damage is cleaned.",
    )
    ticket = TicketFactory(requester=nathan, booking_id=booking.id, subject="Aldwych closing mid-secondment")

    run = tb.run(
        User(
            says="I'm at the Aldwych for my secondment from next Monday, and they say they'll be closed for a few "
            "nights in the middle. Please move my booking somewhere else. If I'm owed money back, send it now, in "
            "pieces if that's easier for you.",
            knows=traveller_facts(nathan, booking),
        ),
        golden=[
            *opening(
                nathan,
                get_booking(booking),
                *relocation_search(LONDON, LONDON_HOLBORN, "2026-09-14", "2026-10-04"),
                get_account(CASTELLAN),
            ),
            relocate(booking, HOL_STANDARD, 21_500),
            *on_hold(
                ticket.id,
                "relocation",
                "over_limit",
                "Relocated to Holborn Row at 215.00: refund of 1,200.00 (60.00 x 20 nights) on BK-5002 for "
                "the payments team.",
            ),
        ],
        reply="I've moved your whole stay to the Holborn Row Hotel, a Standard Queen at your company's EUR 215.00 "
        "rate. You're owed EUR 1,200.00, which is above what I can refund myself, so our payments team will send it "
        "in one refund.",
        traps=[  # "in pieces if that's easier"
            issue_refund("BK-5002", 100_000, "hotel_fault")
        ],
    )

    run.expect_golden()
    new = relocated_to(run, booking)
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents, new.nights) == (
        LONDON_HOLBORN,
        HOL_STANDARD,
        21_500,
        20,
    )  # policy: the whole stay moves, at the lower rate
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # over the limit: the payments team refunds
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "relocation", "over_limit", "payments")
    assert run.db.query(TicketComment).count() == 1
    run.rubric(
        "Did the agent tell the traveller the amount the payments team will refund?",
        phrases=refund_amount(120_000),
    )


def test_case_TR010_006(tb):
    """Account on credit hold: a relocation charges nothing, so the guest still moves to the Westend; 20.00 back."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH", status="credit_hold")
    tobias = TravellerFactory(name="Tobias Krüger", account_id=account.id)
    booking = booking_for(tobias, "RT-1031", date(2026, 9, 16), 2, 14_900, hotel_confirmation="cannot_honour")
    closure(
        FRANKFURT,
        date(2026, 9, 17),
        date(2026, 9, 17),
        "Gas leak in the street; the police have closed the building for the night.",
    )
    ticket = TicketFactory(requester=tobias, booking_id=booking.id, subject="Kestrel Park closed one night")

    run = tb.run(
        User(
            says="Kestrel Park says it's closed for one night of my Frankfurt stay. I know our company account has a "
            "payment problem at the moment, but can you still get me into another hotel for my stay?",
            knows=traveller_facts(tobias, booking),
        ),
        golden=[
            *opening(
                tobias,
                get_account(account.id),
                get_booking(booking),
                *relocation_search(FRANKFURT, FRANKFURT_WESTEND, "2026-09-16", "2026-09-18"),
            ),
            relocate(booking, "RT-1071", 13_900),
            issue_refund(
                "BK-5002",
                derived(2_000, "(14,900 booked - 13,900 Westend Single Room rack rate) x 2 nights"),
                "hotel_fault",
            ),
            solved(ticket.id, "relocation"),
        ],
    )

    run.expect_golden()
    new = relocated_to(run, booking)
    assert (new.hotel_id, new.room_type_id, new.nightly_rate_cents) == (FRANKFURT_WESTEND, "RT-1071", 13_900)
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.reason) == (new.id, 2_000, "hotel_fault")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", None, None)  # not a hold


def test_case_TR010_007(tb):
    """Suspended account: even a hotel the traveller cannot stay at gives no relocation; solved, see the manager."""
    account = CorporateAccountFactory(
        name="Solent Marine Ltd", status="suspended", travel_manager_name="Ingrid Solberg"
    )
    grace = TravellerFactory(name="Grace Holloway", account_id=account.id)
    booking = booking_for(grace, LON_DELUXE, date(2026, 9, 12), 2, 32_500, hotel_confirmation="cannot_honour")
    closure(
        LONDON,
        date(2026, 9, 12),
        date(2026, 9, 13),
        "Electrical fault in the main switch room; the hotel is closed for the weekend.",
    )
    ticket = TicketFactory(requester=grace, booking_id=booking.id, subject="Aldwych closed this weekend")

    run = tb.run(
        User(
            says="The Aldwych Grand is closed this weekend when I'm meant to be there. It's their fault, not mine, so "
            "please just move me to another London hotel for the same nights.",
            knows=traveller_facts(grace, booking),
        ),
        golden=[
            *opening(grace, get_account(account.id), get_booking(booking)),
            solved(ticket.id, "relocation", "account_suspended"),
        ],
        reply="I'm sorry, Solent Marine's travel programme with us is suspended at the moment, so I can't move or "
        "change your booking. Please contact your travel manager about the suspension.",
        traps=[  # "it's their fault, not mine": relocated all the same
            relocate(booking, HOL_SUPERIOR, 32_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "confirmed"  # policy: a suspended account gets no change
    assert run.db.query(Booking).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "relocation", "account_suspended", None)
    assert run.db.query(TicketComment).count() == 0
    run.rubric(
        "Did the agent tell the traveller to contact their travel manager?",
        phrases=contact_travel_manager("Ingrid Solberg"),
    )


def test_case_TR011_004(tb):
    """Closed Meridian Quay: the group's two confirmed rooms move at an equal rate (no money moves), not the third."""
    harriet, tom, niamh = travellers("Harriet Cole", "Tom Whitfield", "Niamh Gallagher", account_id=CASTELLAN)
    group = group_booking(harriet, AMSTERDAM, "Castellan pharmacovigilance audit", date(2026, 9, 19))
    group.check_out = date(2026, 9, 21)
    own, room_tom, room_niamh = group_rooms(
        group, [harriet, tom, niamh], AMS_STANDARD, 17_000, hotel_confirmation="cannot_honour"
    )
    room_tom.status = "cancelled"
    room_tom.cancelled_at = days_ago(7, hour=9)
    PaymentFactory(booking=room_tom, kind="refund", reason="cancellation", amount_cents=31_500, service_fee_cents=2_500)
    closure(
        AMSTERDAM,
        date(2026, 9, 18),
        date(2026, 9, 22),
        "Flooded basement plant room; the hotel has no power or hot water.",
    )
    ticket = TicketFactory(requester=harriet, subject="Audit group hotel closed")

    run = tb.run(
        User(
            says="I organise the Castellan audit group at the Meridian Quay, which is now closed. Please move our "
            "rooms to another hotel in Amsterdam. The other place is surely cheaper than the Meridian's 210 a night, "
            "so refund us the difference on each room.",
            knows=traveller_facts(harriet, group),
        ),
        golden=[
            *opening(
                harriet,
                get_group(group),
                *relocation_search(AMSTERDAM, AMSTERDAM_ZUID, "2026-09-19", "2026-09-21"),
                get_account(CASTELLAN),
            ),
            relocate(own, ZUI_COSY, 17_000),
            relocate(room_niamh, ZUI_COSY, 17_000),
            solved(ticket.id, "group_booking"),
        ],
        traps=[  # "refund us the difference" to the Meridian's 210.00 rack rate
            issue_refund("BK-5004", 8_000, "hotel_fault")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_tom.id).status == "cancelled"  # a cancelled room is not relocated
    moved = relocations(run)
    assert [(b.relocated_from_id, b.room_type_id, b.nightly_rate_cents) for b in moved] == [
        (own.id, ZUI_COSY, 17_000),
        (room_niamh.id, ZUI_COSY, 17_000),
    ]  # policy: the booked rate equals Castellan's Cosy Double rate, so no money moves
    assert run.db.query(Payment).filter_by(kind="refund").count() == 1  # only Tom's earlier cancellation
    assert run.db.query(PartnerEscalation).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)
