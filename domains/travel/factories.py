"""Factories for the records a travel task seeds on top of the base hotels, inventory and accounts.

Ids come from sequences (reset before every attempt), dates from the domain clock, so the same task body
always writes the same rows. `BookingFactory` fills in the hotel from the room type, the stay's nights and
total from ``check_in``, ``nights`` and ``nightly_rate_cents``, the hotel's free-cancellation deadline, and a
captured ``booking`` charge of the total (``payment=False`` for none). Bookings seeded here do not touch the
room inventory: the seeded occupancy already counts them. `set_available_rooms` sells a room type down for
one night. `TripFactory` opens an itinerary (pass ``trip=`` to `BookingFactory` for its segments),
`HotelDisruptionFactory` records a closure or overbooking a hotel reported, `CityRateCapFactory` an account's
nightly rate cap in a city.

The arrange helpers at the end name the rows most tasks set up, so that a task's arrange step reads as its
situation: `travellers` (several of one account), `booking_for` (a traveller's booking), `trip_segment`,
`group_booking` and its `group_room` / `group_rooms`, `closure` and `room_disruption`, `approval_request` (one already
with the travel manager) and `cap_exception`, `earlier_ticket` (another matter).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import factory

from domains.shared.factories import CommentFactoryBase, TicketFactoryBase

# Not the package's lazy exports, which mypy sees as Any.
from pytest_thinkingbox.core.backends.base import current_session
from pytest_thinkingbox.core.factories import Factory

from .clock import NOW, TODAY, days_ago
from .models import (
    ApprovalRequest,
    Booking,
    CityRateCap,
    CorporateAccount,
    GroupBooking,
    HotelDisruption,
    Invoice,
    LoyaltyProfile,
    NegotiatedRate,
    PartnerEscalation,
    Payment,
    RoomNight,
    Ticket,
    TicketComment,
    Traveller,
    Trip,
)
from .seed import ACCOUNTS, HOTELS, LIS_STANDARD, VELDHOVEN, hotel_of

_FIRST = ["Sofia", "Lukas", "Hanna", "Pieter", "Amelia", "Jonas", "Clara", "Mateus", "Freya", "Daniel"]
_LAST = ["Brandt", "Meyer", "de Vries", "Jansen", "Whitfield", "Lindqvist", "Moreau", "Alves", "Nyberg", "Okafor"]
_TITLES = ["Project Engineer", "Sales Manager", "Regional Director", "Quality Lead", "Field Consultant"]


def _email(name: str, account_id: str) -> str:
    domain = ACCOUNTS[account_id][4].split("@")[1] if account_id in ACCOUNTS else "example.com"
    local = name.lower().replace("de ", "de").replace(" ", ".").replace("é", "e").replace("ö", "o")
    return f"{local}@{domain}"


def cancellation_deadline(hotel_id: str, check_in: date) -> datetime:
    """The hotel's free-cancellation deadline for a stay: its hours before the 15:00 check-in."""
    return datetime.combine(check_in, time(15, 0)) - timedelta(hours=HOTELS[hotel_id][3])


def set_available_rooms(room_type_id: str, night: date, available: int) -> None:
    """Sell a room type down so that exactly `available` rooms are left for the night of `night`."""
    row = current_session().get(RoomNight, (room_type_id, night))
    assert row is not None, f"the seed has no inventory of {room_type_id} for the night of {night}"
    row.booked_rooms = row.total_rooms - available


class CorporateAccountFactory(Factory[CorporateAccount]):
    class Meta:
        model = CorporateAccount

    id = factory.Sequence(lambda n: f"ACC-{301 + n}")
    name = factory.Sequence(
        lambda n: ["Halvorsen Offshore AS", "Brightwater Logistics GmbH", "Solent Marine Ltd"][n % 3]
    )
    status = "active"
    credit_limit_cents = 2_000_000
    billing_email = factory.Sequence(lambda n: f"accounts{n + 1}@example.com")
    travel_manager_name = factory.Sequence(lambda n: ["Ingrid Solberg", "Markus Hoffmann", "Claire Dawson"][n % 3])
    travel_manager_email = factory.LazyAttribute(
        lambda a: a.travel_manager_name.lower().replace(" ", ".") + "@example.com"
    )
    home_city = factory.Sequence(lambda n: ["Stavanger", "Hamburg", "Southampton"][n % 3])


class NegotiatedRateFactory(Factory[NegotiatedRate]):
    """A task's own contracted rate (the seed's rates are NR-0001 .. NR-0017)."""

    class Meta:
        model = NegotiatedRate

    id = factory.Sequence(lambda n: f"NR-{101 + n:04d}")
    account_id = VELDHOVEN
    room_type_id = LIS_STANDARD
    hotel_id = factory.LazyAttribute(lambda r: hotel_of(r.room_type_id))
    nightly_rate_cents = 15_900
    valid_from = date(2026, 1, 1)
    valid_until = date(2026, 12, 31)


class InvoiceFactory(Factory[Invoice]):
    class Meta:
        model = Invoice

    id = factory.Sequence(lambda n: f"INV-{27001 + n}")
    account_id = VELDHOVEN
    amount_cents = 842_600
    issued_on = factory.LazyFunction(lambda: TODAY - timedelta(days=38))
    due_on = factory.LazyAttribute(lambda i: i.issued_on + timedelta(days=30))
    status = "issued"
    paid_on = None


class TravellerFactory(Factory[Traveller]):
    class Meta:
        model = Traveller

    id = factory.Sequence(lambda n: f"TRV-{3001 + n}")
    account_id = VELDHOVEN
    name = factory.Sequence(lambda n: f"{_FIRST[n % len(_FIRST)]} {_LAST[(n * 3) % len(_LAST)]}")
    email = factory.LazyAttribute(lambda t: _email(t.name, t.account_id))
    phone = factory.Sequence(lambda n: f"+31-6-5550-{1200 + 37 * n:04d}")
    employee_number = factory.Sequence(lambda n: f"E{48211 + 113 * n}")
    job_title = factory.Sequence(lambda n: _TITLES[n % len(_TITLES)])
    card_last4 = factory.Sequence(lambda n: f"{4417 + 263 * n:04d}"[-4:])


class LoyaltyProfileFactory(Factory[LoyaltyProfile]):
    class Meta:
        model = LoyaltyProfile

    id = factory.Sequence(lambda n: f"LP-{4001 + n}")
    traveller = factory.SubFactory(TravellerFactory)
    member_number = factory.Sequence(lambda n: f"MR{77120345 + 9173 * n}")
    tier = "gold"
    tier_valid_until = date(2027, 3, 31)
    points = 48_250


class GroupBookingFactory(Factory[GroupBooking]):
    class Meta:
        model = GroupBooking

    id = factory.Sequence(lambda n: f"GB-{601 + n}")
    organiser = factory.SubFactory(TravellerFactory)
    account_id = factory.SelfAttribute("organiser.account_id")
    hotel_id = "H-101"
    name = "Sales kick-off"
    check_in = factory.LazyFunction(lambda: TODAY + timedelta(days=15))
    check_out = factory.LazyAttribute(lambda g: g.check_in + timedelta(days=3))
    free_cancellation_until = factory.LazyAttribute(
        lambda g: datetime.combine(g.check_in - timedelta(days=14), time(18, 0))
    )
    status = "confirmed"
    created_at = factory.LazyFunction(lambda: days_ago(40))


class TripFactory(Factory[Trip]):
    """A traveller's itinerary; its segments are bookings seeded with ``trip=``."""

    class Meta:
        model = Trip

    id = factory.Sequence(lambda n: f"TRP-{401 + n}")
    traveller = factory.SubFactory(TravellerFactory)
    account_id = factory.SelfAttribute("traveller.account_id")
    name = "Client visits"
    created_at = factory.LazyFunction(lambda: days_ago(25, hour=10))


class HotelDisruptionFactory(Factory[HotelDisruption]):
    """A disruption a hotel reported: a closure of the whole hotel unless ``room_type_id`` names one room type."""

    class Meta:
        model = HotelDisruption

    id = factory.Sequence(lambda n: f"HD-{501 + n}")
    hotel_id = "H-101"
    room_type_id = None
    kind = "closure"
    first_night = factory.LazyFunction(lambda: TODAY + timedelta(days=7))
    last_night = factory.LazyAttribute(lambda d: d.first_night + timedelta(days=2))
    reported_at = factory.LazyFunction(lambda: days_ago(1, hour=17))
    description = "Water damage after a burst pipe; the hotel is closed to guests while repairs are made."


class CityRateCapFactory(Factory[CityRateCap]):
    """A corporate account's cap on the nightly rate its travellers may book in one city."""

    class Meta:
        model = CityRateCap

    id = factory.Sequence(lambda n: f"CAP-{101 + n}")
    account_id = VELDHOVEN
    city = "Lisbon"
    max_nightly_rate_cents = 20_000


class BookingFactory(Factory[Booking]):
    class Meta:
        model = Booking

    id = factory.Sequence(lambda n: f"BK-{5001 + n}")
    traveller = factory.SubFactory(TravellerFactory)
    account_id = factory.SelfAttribute("traveller.account_id")
    room_type_id = LIS_STANDARD
    hotel_id = factory.LazyAttribute(lambda b: hotel_of(b.room_type_id))
    group = None
    trip = None
    hotel_reference = factory.Sequence(lambda n: f"HX{612340 + 71 * n}")
    check_in = factory.LazyFunction(lambda: TODAY + timedelta(days=10))
    nights = 3
    check_out = factory.LazyAttribute(lambda b: b.check_in + timedelta(days=b.nights))
    nightly_rate_cents = 15_900
    total_cents = factory.LazyAttribute(lambda b: b.nightly_rate_cents * b.nights)
    status = "confirmed"
    hotel_confirmation = "confirmed"
    free_cancellation_until = factory.LazyAttribute(lambda b: cancellation_deadline(b.hotel_id, b.check_in))
    late_checkout = False
    upgrade_allowance_used = False
    booked_at = factory.LazyFunction(lambda: days_ago(21, hour=14))
    cancelled_at = None

    @factory.post_generation
    def payment(booking: Booking, create: bool, extracted: Any, **kwargs: Any) -> None:
        """A captured charge of the booking total (``payment=False`` for none)."""
        if extracted is False:
            return
        PaymentFactory(booking=booking, **kwargs)


class PaymentFactory(Factory[Payment]):
    class Meta:
        model = Payment

    id = factory.Sequence(lambda n: f"PAY-{7001 + n}")
    booking = factory.SubFactory(BookingFactory, payment=False)
    kind = "charge"
    reason = "booking"
    amount_cents = factory.LazyAttribute(lambda p: p.booking.total_cents)
    service_fee_cents = 0
    card_last4 = factory.LazyAttribute(lambda p: p.booking.traveller.card_last4)
    created_at = factory.LazyAttribute(lambda p: p.booking.booked_at + timedelta(minutes=2))
    note = None


class PartnerEscalationFactory(Factory[PartnerEscalation]):
    class Meta:
        model = PartnerEscalation

    id = factory.Sequence(lambda n: f"PE-{801 + n}")
    booking = factory.SubFactory(BookingFactory)
    hotel_id = factory.SelfAttribute("booking.hotel_id")
    kind = "duplicate_charge"
    amount_cents = factory.SelfAttribute("booking.total_cents")
    sent_to = factory.LazyAttribute(lambda e: HOTELS[e.hotel_id][6])
    status = "sent"
    created_at = factory.LazyFunction(lambda: days_ago(3, hour=11))
    description = "Traveller reports the hotel charged the stay twice at the property."


class ApprovalRequestFactory(Factory[ApprovalRequest]):
    class Meta:
        model = ApprovalRequest

    id = factory.Sequence(lambda n: f"APR-{901 + n}")
    booking = factory.SubFactory(BookingFactory)
    account_id = factory.SelfAttribute("booking.account_id")
    kind = "room_downgrade"
    requested_room_type_id = LIS_STANDARD
    requested_rate_cents = 15_900
    approver_email = factory.LazyAttribute(lambda r: ACCOUNTS.get(r.account_id, ("",) * 5)[4] or "travel@example.com")
    status = "pending"
    created_at = factory.LazyFunction(lambda: days_ago(3, hour=9))
    decided_at = None
    justification = "Traveller asked to move to a cheaper room type."


class TicketFactory(TicketFactoryBase, Factory[Ticket]):
    """The ticket of the conversation (open, created now) unless told otherwise."""

    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{1001 + n}")
    requester = factory.SubFactory(TravellerFactory)
    subject = "Question about my hotel booking"
    booking_id = None
    created_at = NOW


class TicketCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{2001 + n}")
    ticket = factory.SubFactory(TicketFactory)
    body = "Traveller message."


# --- Arrange helpers: the rows most tasks set up, in the words of the domain ---------------------------------------


def travellers(*names: str, **fields: Any) -> list[Traveller]:
    """One traveller per name, in that order, all with the same other `fields` (a group's organiser and guests, say
    ``account_id=CASTELLAN``)."""
    return [TravellerFactory(name=name, **fields) for name in names]


def group_booking(organiser: Traveller, hotel_id: str, name: str, check_in: date, **fields: Any) -> GroupBooking:
    """A group booking `organiser` made at `hotel_id` under the group's `name`, from `check_in` (three nights unless
    ``check_out`` says otherwise); its rooms come from `group_room` / `group_rooms`."""
    return GroupBookingFactory(organiser=organiser, hotel_id=hotel_id, name=name, check_in=check_in, **fields)


def booking_for(
    traveller: Traveller, room_type_id: str, check_in: date, nights: int, nightly_rate_cents: int, **fields: Any
) -> Booking:
    """A booking of `traveller`: `room_type_id` (at its hotel) from `check_in` for `nights` nights at
    `nightly_rate_cents`, paid in full; other `fields` as `BookingFactory` takes them."""
    return BookingFactory(
        traveller=traveller,
        room_type_id=room_type_id,
        check_in=check_in,
        nights=nights,
        nightly_rate_cents=nightly_rate_cents,
        **fields,
    )


def trip_segment(
    trip: Trip, room_type_id: str, check_in: date, nights: int, nightly_rate_cents: int, **fields: Any
) -> Booking:
    """A segment of `trip`: a booking of the trip's traveller, linked to the trip (see `booking_for`)."""
    return booking_for(trip.traveller, room_type_id, check_in, nights, nightly_rate_cents, trip=trip, **fields)


def group_room(
    group: GroupBooking, traveller: Traveller, room_type_id: str, nightly_rate_cents: int, **fields: Any
) -> Booking:
    """One room of `group` for `traveller`, for the group's dates, booked when the group was."""
    return BookingFactory(
        traveller=traveller,
        group=group,
        room_type_id=room_type_id,
        check_in=group.check_in,
        nights=(group.check_out - group.check_in).days,
        nightly_rate_cents=nightly_rate_cents,
        booked_at=group.created_at,
        **fields,
    )


def group_rooms(
    group: GroupBooking, travellers: list[Traveller], room_type_id: str, nightly_rate_cents: int, **fields: Any
) -> list[Booking]:
    """One room of `group` per traveller, all of one room type and rate (see `group_room`)."""
    return [group_room(group, t, room_type_id, nightly_rate_cents, **fields) for t in travellers]


def closure(hotel_id: str, first_night: date, last_night: date, description: str) -> HotelDisruption:
    """A closure of the whole hotel the hotel reported, for the nights from `first_night` to `last_night`."""
    return HotelDisruptionFactory(
        hotel_id=hotel_id, kind="closure", first_night=first_night, last_night=last_night, description=description
    )


def room_disruption(
    room_type_id: str, kind: str, first_night: date, last_night: date, description: str
) -> HotelDisruption:
    """An `overbooking` or rooms `out_of_order` of one room type, reported by its hotel, for the nights from
    `first_night` to `last_night`."""
    return HotelDisruptionFactory(
        hotel_id=hotel_of(room_type_id),
        room_type_id=room_type_id,
        kind=kind,
        first_night=first_night,
        last_night=last_night,
        description=description,
    )


def approval_request(
    booking: Booking,
    room_type_id: str,
    rate_cents: int,
    status: str,
    created_at: datetime,
    decided_at: datetime | None = None,
    **fields: Any,
) -> ApprovalRequest:
    """A request already sent to the travel manager to move `booking` to `room_type_id` at `rate_cents`: still
    `pending`, or `approved` / `rejected` at `decided_at`; a room downgrade unless ``kind`` says otherwise."""
    return ApprovalRequestFactory(
        booking=booking,
        requested_room_type_id=room_type_id,
        requested_rate_cents=rate_cents,
        status=status,
        created_at=created_at,
        decided_at=decided_at,
        **fields,
    )


def cap_exception(
    booking: Booking,
    room_type_id: str,
    rate_cents: int,
    status: str,
    created_at: datetime,
    decided_at: datetime | None = None,
    **fields: Any,
) -> ApprovalRequest:
    """A city-cap exception already asked of the travel manager for `booking` at `room_type_id` and `rate_cents`, above
    the account's cap for the city (see `approval_request`)."""
    return approval_request(
        booking, room_type_id, rate_cents, status, created_at, decided_at, kind="cap_exception", **fields
    )


def earlier_ticket(
    traveller: Traveller,
    subject: str,
    status: str,
    created_at: datetime,
    booking: Booking | None = None,
    **fields: Any,
) -> Ticket:
    """A ticket of another matter the traveller opened before (`status` as it stands now), about `booking` if one is
    given: the agent works in it only if it is still new or open."""
    return TicketFactory(
        requester=traveller,
        subject=subject,
        status=status,
        created_at=created_at,
        booking_id=booking.id if booking is not None else None,
        **fields,
    )
