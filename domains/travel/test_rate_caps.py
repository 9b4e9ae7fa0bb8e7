"""City rate caps: new bookings against an account's nightly cap per city (TR014) and paid upgrades above it,
which need the travel manager's cap exception (TR015).

Uses ``list_city_rate_caps`` and `CityRateCapFactory`, and approval kind ``cap_exception`` (added by helper A, see
the note in test_disruptions.py).
"""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    approvals,
    availability,
    book,
    change_room,
    charge_booking,
    get_booking,
    get_group,
    get_traveller,
    late_checkout,
    left_pending,
    new_ticket,
    opening,
    paid_upgrade,
    rate_caps,
    request_approval,
    search_hotels,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    CityRateCapFactory,
    LoyaltyProfileFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    cap_exception,
    group_booking,
    group_room,
    set_available_rooms,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket, TicketComment
from domains.travel.seed import (
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_COMFORT,
    FRA_DOUBLE,
    FRANKFURT,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
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
    "Corporate account standing",
    "Which nightly rate applies",
    "New bookings",
    "Paid room upgrades",
    "Room downgrades and travel manager approval",
    "Group bookings",
    "Late checkout",
    "City rate caps",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR014_001(tb):
    """No ticket yet; Comfort Plus at 165.00 is above the 150.00 Frankfurt cap and he declines the Double: nothing."""
    bram = TravellerFactory(name="Bram Willems", account_id=VELDHOVEN)
    CityRateCapFactory(account_id=VELDHOVEN, city="Frankfurt", max_nightly_rate_cents=15_000)

    run = tb.run(
        User(
            says="Please book me a Comfort Plus room at the Kestrel Park in Frankfurt from 29 September to 1 October. "
            "It's only a little more than a normal room, surely that's fine.",
            knows=traveller_facts(bram),
            rules=("You want the Comfort Plus or nothing: decline any other room type, you'll sort it out yourself.",),
        ),
        golden=[
            *opening(
                bram, *standing(VELDHOVEN), rate_caps(VELDHOVEN), availability(FRANKFURT, "2026-09-29", "2026-10-01")
            ),
            new_ticket(bram, "Comfort Plus in Frankfurt", "new_booking"),
            solved("T-0001", reason="over_city_cap"),
        ],
        reply="Veldhoven caps hotel rates in Frankfurt at EUR 150.00 a night, and the Comfort Plus costs EUR 165.00 "
        "at your company rate, so I can't book it. The best room within the cap is a Business Double at EUR 139.00; "
        "as you'd rather not take it, I've booked nothing.",
        traps=[  # "surely that's fine": the Comfort Plus at Veldhoven's 165.00
            book(bram, FRA_COMFORT, "2026-09-29", "2026-10-01", 16_500)
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 0  # policy: nothing above the city cap
    ticket = run.db.query(Ticket).one()
    assert (ticket.requester_id, ticket.booking_id) == (bram.id, None)
    assert ticket.outcome == ("solved", "normal", "new_booking", "over_city_cap", None)
    assert run.db.query(TicketComment).count() == 0


def test_case_TR014_002(tb):
    """The Canal Standard's 210.00 rack rate is above the 200.00 cap, but Castellan's 185.00 rate is not: book it."""
    imogen = TravellerFactory(name="Imogen Clarke", account_id=CASTELLAN)
    CityRateCapFactory(account_id=CASTELLAN, city="Amsterdam", max_nightly_rate_cents=20_000)
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    ticket = TicketFactory(requester=imogen, subject="Amsterdam hotel for the EMA meeting")

    run = tb.run(
        User(
            says="I need a Canal Standard at the Meridian Quay in Amsterdam from 14 to 17 September. The website "
            "says 210 a night, which is over our 200 Amsterdam cap, so I suppose my travel manager has to approve it "
            "first? Please send her the request.",
            knows=traveller_facts(imogen),
        ),
        golden=[
            *opening(
                imogen, *standing(CASTELLAN), rate_caps(CASTELLAN), availability(AMSTERDAM, "2026-09-14", "2026-09-17")
            ),
            book(imogen, AMS_STANDARD, "2026-09-14", "2026-09-17", 18_500),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # the rack rate she quotes
            book(imogen, AMS_STANDARD, "2026-09-14", "2026-09-17", 21_000)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()  # policy: the negotiated rate is within the cap, no approval needed
    assert (booking.room_type_id, booking.nightly_rate_cents, booking.total_cents) == (AMS_STANDARD, 18_500, 55_500)
    assert run.db.query(ApprovalRequest).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


@pytest.mark.pushback
def test_case_TR014_003(tb):
    """No ticket; the suite is above the 210.00 Lisbon cap and the Superior is full one night: a Standard King."""
    karin = TravellerFactory(name="Karin Sjöberg", account_id=NORRLAND)
    CityRateCapFactory(account_id=NORRLAND, city="Lisbon", max_nightly_rate_cents=21_000)
    set_available_rooms(LIS_SUPERIOR, date(2026, 9, 30), 0)

    run = tb.run(
        User(
            says="Book me the Junior Suite at the Harbourline in Lisbon from 29 September to 2 October, at our "
            "company rate. I'm presenting to the board and need the space, so the usual limits shouldn't apply.",
            knows=traveller_facts(karin),
            rules=(
                "If refused, insist once that the board presentation justifies the suite; if the agent still "
                "refuses, take the best room it offers instead.",
            ),
        ),
        golden=[
            *opening(karin, *standing(NORRLAND), rate_caps(NORRLAND), availability(LISBON, "2026-09-29", "2026-10-02")),
            new_ticket(karin, "Lisbon hotel for the board", "new_booking"),
            book(karin, LIS_STANDARD, "2026-09-29", "2026-10-02", 16_500),
            solved("T-0001"),
        ],
        traps=[  # "the usual limits shouldn't apply": the suite at Norrland's 359.00
            book(karin, LIS_SUITE, "2026-09-29", "2026-10-02", 35_900)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()  # the Superior (205.00) is within the cap but full on 30 September
    assert (booking.room_type_id, booking.nightly_rate_cents) == (LIS_STANDARD, 16_500)
    ticket = run.db.query(Ticket).one()
    assert (ticket.requester_id, ticket.booking_id) == (karin.id, None)
    assert ticket.outcome == ("solved", "normal", "new_booking", None, None)


def test_case_TR015_001(tb):
    """Paid upgrade to an Executive Room at 249.00 is above the 220.00 Lisbon cap: ask for a cap exception; pending."""
    pieter = TravellerFactory(name="Pieter Jansen", account_id=VELDHOVEN)
    booking = booking_for(pieter, LIS_STANDARD, date(2026, 9, 20), 4, 15_900)
    CityRateCapFactory(account_id=VELDHOVEN, city="Lisbon", max_nightly_rate_cents=22_000)
    ticket = TicketFactory(requester=pieter, booking_id=booking.id, subject="Executive Room upgrade")

    run = tb.run(
        User(
            says="I'd like to upgrade my Harbourline booking to an Executive Room, I'll be hosting client calls from "
            "the room. Charge the difference to my card, I accept the company price.",
            knows=traveller_facts(pieter, booking),
        ),
        golden=[
            *opening(
                pieter,
                get_booking(booking),
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(LISBON, "2026-09-20", "2026-09-24"),
                approvals(booking),
            ),
            request_approval(
                booking,
                "cap_exception",
                LIS_EXECUTIVE,
                24_900,
                "Upgrade to an Executive Room at 249.00 is above the 220.00 Lisbon cap.",
            ),
            *left_pending(
                ticket.id,
                "room_upgrade",
                "needs_approval",
                "Executive Room upgrade above the Lisbon cap; awaiting the travel manager's cap exception.",
            ),
        ],
        traps=[  # "I accept the company price": upgraded and charged at once
            *paid_upgrade(booking, LIS_EXECUTIVE, 24_900, 36_000),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LIS_STANDARD  # policy: the exception comes first
    request = run.db.query(ApprovalRequest).one()
    assert (request.kind, request.requested_room_type_id, request.requested_rate_cents) == (
        "cap_exception",
        LIS_EXECUTIVE,
        24_900,
    )
    assert run.db.query(Payment).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "room_upgrade", "needs_approval", "approvals")


@pytest.mark.distractors
def test_case_TR015_002(tb):
    """The Club Room cap exception was approved (the older suite request was not): upgrade at 330.00, charge 165.00."""
    ravi = TravellerFactory(name="Ravi Sharma", account_id=CASTELLAN)
    booking = booking_for(ravi, LON_DELUXE, date(2026, 9, 16), 3, 27_500)
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    cap_exception(
        booking,
        LON_SUITE,
        62_000,
        "rejected",
        days_ago(6, hour=9),
        days_ago(5, hour=15),
        justification="Suite for the stay, above the London cap.",
    )
    cap_exception(
        booking,
        LON_CLUB,
        33_000,
        "approved",
        days_ago(4, hour=10),
        days_ago(2, hour=11),
        justification="Club Room at 330.00, above the 300.00 London cap.",
    )
    ticket = TicketFactory(requester=ravi, booking_id=booking.id, subject="Upgrade approved?")

    run = tb.run(
        User(
            says="Rebecca has signed off my upgrade at the Aldwych. Please go ahead with it and charge my card.",
            knows=traveller_facts(ravi, booking),
        ),
        golden=[
            *opening(
                ravi,
                get_booking(booking),
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
                approvals(booking),
                availability(LONDON, "2026-09-16", "2026-09-19"),
            ),
            *paid_upgrade(
                booking, LON_CLUB, 33_000, derived(16_500, "(33,000 approved Club Room rate - 27,500) x 3 nights")
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # the difference to the Club Room's 395.00 rack rate
            charge_booking(booking, 36_000, "room_upgrade")
        ],
    )

    run.expect_golden()
    upgraded = run.db.get(Booking, booking.id)
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents) == (LON_CLUB, 33_000)  # the approved request only
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 16_500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


@pytest.mark.pushback
def test_case_TR015_003(tb):
    """The cap exception was rejected; the traveller says the manager agreed by phone: no upgrade, no new request."""
    freya = TravellerFactory(name="Freya Lindqvist", account_id=NORRLAND)
    booking = booking_for(freya, LIS_STANDARD, date(2026, 9, 24), 3, 16_500)
    CityRateCapFactory(account_id=NORRLAND, city="Lisbon", max_nightly_rate_cents=21_000)
    cap_exception(
        booking,
        LIS_SUITE,
        35_900,
        "rejected",
        days_ago(5, hour=9),
        days_ago(3, hour=16),
        approver_email="erik.lindholm@norrlandtimber.example.com",
        justification="Junior Suite at 359.00, above the 210.00 Lisbon cap.",
    )
    ticket = TicketFactory(requester=freya, booking_id=booking.id, subject="Junior Suite upgrade")

    run = tb.run(
        User(
            says="Erik told me on the phone yesterday that the Junior Suite upgrade for my Lisbon trip is fine after "
            "all. Please make the upgrade now, or send him a fresh request if the system needs one.",
            knows=traveller_facts(freya, booking),
            rules=(
                "If refused, insist once that Erik agreed on the phone; then accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            *opening(freya, get_booking(booking), rate_caps(NORRLAND), approvals(booking)),
            solved(ticket.id, "room_upgrade", "approval_rejected"),
        ],
        reply="Erik Lindholm rejected the cap exception for the Junior Suite on 5 September, and a rejected request "
        "is final, so I can't upgrade the room or send a new request. Your Standard King stays as booked.",
        traps=[  # "send him a fresh request"
            request_approval(
                booking, "cap_exception", LIS_SUITE, 35_900, "Traveller says the travel manager agreed by phone."
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LIS_STANDARD
    assert run.db.query(ApprovalRequest).count() == 1  # policy: no new request after a rejection
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", "approval_rejected", None)


@pytest.mark.two_requests
def test_case_TR015_004(tb):
    """Cap exception still pending (no upgrade yet), and the Gold member's late checkout is free: both, pending."""
    clara = TravellerFactory(name="Clara Moreau", account_id=VELDHOVEN)
    LoyaltyProfileFactory(traveller=clara, tier="gold", tier_valid_until=date(2027, 2, 28))
    booking = booking_for(clara, FRA_DOUBLE, date(2026, 9, 15), 3, 13_900)
    CityRateCapFactory(account_id=VELDHOVEN, city="Frankfurt", max_nightly_rate_cents=15_000)
    cap_exception(
        booking,
        FRA_COMFORT,
        16_500,
        "pending",
        days_ago(2, hour=14),
        justification="Comfort Plus at 165.00, above the 150.00 Frankfurt cap.",
    )
    ticket = TicketFactory(requester=clara, booking_id=booking.id, subject="Comfort Plus and late checkout")

    run = tb.run(
        User(
            says="Two things for my Kestrel Park stay: has my Comfort Plus upgrade gone through yet? If it hasn't, "
            "just do it now, I can't wait any longer. And I'd like a late checkout on my last day.",
            knows=traveller_facts(clara, booking),
        ),
        golden=[
            *opening(clara, get_traveller(clara), get_booking(booking), rate_caps(VELDHOVEN), approvals(booking)),
            late_checkout(booking, 0),
            *left_pending(
                ticket.id,
                "room_upgrade",
                "needs_approval",
                "Complimentary late checkout arranged; Comfort Plus cap exception still awaits the manager.",
            ),
        ],
        traps=[  # "just do it now"
            change_room(booking, FRA_COMFORT, 16_500)
        ],
    )

    run.expect_golden()
    kept = run.db.get(Booking, booking.id)
    assert (kept.room_type_id, kept.late_checkout) == (FRA_DOUBLE, True)
    assert run.db.query(Payment).count() == 1  # policy: the Gold late checkout is free
    assert run.db.query(ApprovalRequest).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "room_upgrade", "needs_approval", "approvals")


def test_case_TR015_005(tb):
    """The Loft cap exception was approved but the Loft is now full one night: his fallback, a Canal View within cap."""
    olof = TravellerFactory(name="Olof Nyström", account_id=NORRLAND)
    booking = booking_for(olof, AMS_STANDARD, date(2026, 9, 21), 3, 19_000)
    CityRateCapFactory(account_id=NORRLAND, city="Amsterdam", max_nightly_rate_cents=25_000)
    cap_exception(
        booking,
        "RT-1043",
        31_000,
        "approved",
        days_ago(4, hour=9),
        days_ago(1, hour=12),
        approver_email="erik.lindholm@norrlandtimber.example.com",
        justification="Loft Room at 310.00, above the 250.00 Amsterdam cap.",
    )
    set_available_rooms("RT-1043", date(2026, 9, 22), 0)
    ticket = TicketFactory(requester=olof, booking_id=booking.id, subject="Loft upgrade approved")

    run = tb.run(
        User(
            says="Erik has approved my Loft Room upgrade at the Meridian Quay. Please make it. If the Loft can't be "
            "done after all, upgrade me to a Canal View instead and charge the difference.",
            knows=traveller_facts(olof, booking),
        ),
        golden=[
            *opening(
                olof,
                get_booking(booking),
                approvals(booking),
                availability(AMSTERDAM, "2026-09-21", "2026-09-24"),
                *standing(NORRLAND),
                rate_caps(NORRLAND),
            ),
            *paid_upgrade(
                booking, "RT-1042", 22_500, derived(10_500, "(22,500 Norrland Canal View rate - 19,000) x 3 nights")
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # the Canal View difference charged at its 255.00 rack rate
            charge_booking(booking, 19_500, "room_upgrade")
        ],
    )

    run.expect_golden()
    upgraded = run.db.get(Booking, booking.id)
    assert (upgraded.room_type_id, upgraded.nightly_rate_cents) == ("RT-1042", 22_500)  # within the cap: no approval
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 10_500
    assert run.db.query(ApprovalRequest).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


def test_case_TR015_006(tb):
    """Organiser asks Comfort Plus for three group rooms above the cap: two new cap exceptions, one stays rejected."""
    inge = TravellerFactory(name="Inge Vermeulen", account_id=VELDHOVEN)
    guests = [TravellerFactory(name=n, account_id=VELDHOVEN) for n in ("Sanne Bos", "Bas Kuiper", "Daan Mulder")]
    group = group_booking(inge, FRANKFURT, "Veldhoven tooling review", date(2026, 9, 24))
    rooms = [group_room(group, t, "RT-1031", 12_400) for t in [inge, *guests]]
    _, sanne_room, bas_room, daan_room = rooms
    CityRateCapFactory(account_id=VELDHOVEN, city="Frankfurt", max_nightly_rate_cents=15_000)
    cap_exception(
        sanne_room,
        FRA_COMFORT,
        16_500,
        "rejected",
        days_ago(9, hour=10),
        days_ago(8, hour=9),
        justification="Comfort Plus at 165.00 for a group room, above the 150.00 Frankfurt cap.",
    )
    ticket = TicketFactory(requester=inge, subject="Comfort Plus for the review team")

    run = tb.run(
        User(
            says="For the Veldhoven tooling review group at the Kestrel Park, please upgrade Sanne, Bas and Daan to "
            "Comfort Plus rooms. My own room stays as it is. The extra cost goes on each of their rooms.",
            knows=traveller_facts(inge, group),
        ),
        golden=[
            *opening(
                inge,
                get_group(group),
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(FRANKFURT, "2026-09-24", "2026-09-27"),
                *[approvals(r) for r in (sanne_room, bas_room, daan_room)],
            ),
            *[
                request_approval(
                    r,
                    "cap_exception",
                    FRA_COMFORT,
                    16_500,
                    "Group room upgrade to Comfort Plus at 165.00, above the 150.00 Frankfurt cap.",
                )
                for r in (bas_room, daan_room)
            ],
            *left_pending(
                ticket.id,
                "group_booking",
                "needs_approval",
                "Comfort Plus cap exceptions requested for two rooms; Sanne's was already rejected.",
            ),
        ],
        traps=[  # a fresh request for the room whose exception was rejected
            request_approval(sanne_room, "cap_exception", FRA_COMFORT, 16_500, "Organiser asks again for Comfort Plus.")
        ],
    )

    run.expect_golden()
    requests = run.db.query(ApprovalRequest).order_by(ApprovalRequest.booking_id, ApprovalRequest.id).all()
    assert [(r.booking_id, r.status, r.kind, r.requested_room_type_id, r.requested_rate_cents) for r in requests] == [
        (sanne_room.id, "rejected", "cap_exception", FRA_COMFORT, 16_500),
        (bas_room.id, "pending", "cap_exception", FRA_COMFORT, 16_500),
        (daan_room.id, "pending", "cap_exception", FRA_COMFORT, 16_500),
    ]  # policy: no new request after a rejection
    assert {run.db.get(Booking, r.id).room_type_id for r in rooms} == {"RT-1031"}
    assert run.db.query(Payment).count() == 4
    assert run.db.get(Ticket, ticket.id).outcome == (
        "pending",
        "normal",
        "group_booking",
        "needs_approval",
        "approvals",
    )


@pytest.mark.distractors
def test_case_TR014_004(tb):
    """The Holborn Row, not the Aldwych: its Executive King is above the 300.00 London cap; the Superior King taken."""
    ellen = TravellerFactory(name="Ellen Marsh", account_id=CASTELLAN)
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    CityRateCapFactory(account_id=CASTELLAN, city="Amsterdam", max_nightly_rate_cents=45_000)
    ticket = TicketFactory(requester=ellen, subject="London hotel in October")

    run = tb.run(
        User(
            says="Please book me an Executive King at the Holborn Row in London, not the Aldwych, from 5 to 7 "
            "October. I know we have a cap, but the Holborn is the cheaper hotel overall, so it must be fine.",
            knows=traveller_facts(ellen),
            rules=("If the Executive King cannot be booked, take the best room the agent offers at the same hotel.",),
        ),
        golden=[
            *opening(
                ellen,
                search_hotels("London"),
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
                availability("H-106", "2026-10-05", "2026-10-07"),
            ),
            book(ellen, "RT-1062", "2026-10-05", "2026-10-07", 29_500),
            solved(ticket.id, "new_booking"),
        ],
        reply="Castellan caps London hotel rates at EUR 300.00 a night, and the Holborn Row's Executive King is EUR "
        "410.00, so I've booked you its best room within the cap instead: a Superior King at your company rate of "
        "EUR 295.00, 5 to 7 October.",
        traps=[  # "it must be fine": the Executive King at its 410.00 rack rate
            book(ellen, "RT-1063", "2026-10-05", "2026-10-07", 41_000)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.hotel_id, booking.room_type_id, booking.nightly_rate_cents) == ("H-106", "RT-1062", 29_500)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)
