"""The hotel desk's tools, as an agent sees them.

Reads return plain dicts; writes validate their arguments and the preconditions the call itself would break
(an unknown id, a room type of another hotel, a night with no room left, refunding more than was paid, a
second open escalation of the same kind) and otherwise do what they are told: whether a booking may be made,
a fee withheld or an approval is needed is the policy's question, answered by the agent. Every time comes from
the domain clock and every new id from the rows present.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session, joinedload

from domains.shared.arguments import iso_date
from domains.shared.identity import register_identity
from domains.shared.policy_search import register_policy_search
from domains.shared.tickets import register_ticket_tools
from pytest_thinkingbox import (
    CONFLICT,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PRECONDITION_FAILED,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
    rows_where,
)

from .clock import NOW, TODAY
from .models import (
    ApprovalKind,
    ApprovalRequest,
    Booking,
    CityRateCap,
    CorporateAccount,
    EscalationKind,
    GroupBooking,
    Hotel,
    HotelDisruption,
    Invoice,
    LoyaltyProfile,
    NegotiatedRate,
    PartnerEscalation,
    Payment,
    RefundReason,
    RoomNight,
    RoomType,
    Ticket,
    TicketComment,
    Traveller,
    Trip,
)

tools = ToolSet("travel")

# Read queries built once, each loading in one statement what a look-up per row would take many for.
_RATES_OF = (
    select(NegotiatedRate)
    .where(NegotiatedRate.account_id == bindparam("account_id"))
    .order_by(NegotiatedRate.id)
    .options(joinedload(NegotiatedRate.room_type).joinedload(RoomType.hotel))
)
_INVENTORY_OF = select(RoomNight).where(
    RoomNight.room_type_id.in_(bindparam("room_types", expanding=True)),
    RoomNight.night >= bindparam("arrive"),
    RoomNight.night < bindparam("leave"),
)

POLICY_PATH = Path(__file__).with_name("policy.md")
MAX_NIGHTS = 28


# --------------------------------------------------------------------------- helpers


def _traveller(db: Session, traveller_id: str) -> Traveller:
    return get_or_fail(db, Traveller, traveller_id, "traveller")


def _booking(db: Session, booking_id: str) -> Booking:
    return get_or_fail(db, Booking, booking_id, "booking")


def _room_type_of(db: Session, hotel_id: str, room_type_id: str) -> RoomType:
    room_type = get_or_fail(db, RoomType, room_type_id, "room type")
    if room_type.hotel_id != hotel_id:
        raise ToolFailure(
            INVALID_ARGUMENT, f"room type {room_type_id} belongs to hotel {room_type.hotel_id}, not {hotel_id}"
        )
    return room_type


def _date(value: str, name: str) -> date:
    return iso_date(value, f"{name} {value!r} is not a date like 2026-09-21")


def _stay(check_in: str, check_out: str) -> tuple[date, date]:
    arrive, leave = _date(check_in, "check_in"), _date(check_out, "check_out")
    if arrive < TODAY:
        raise ToolFailure(INVALID_ARGUMENT, f"check_in {arrive} is in the past (today is {TODAY})")
    if leave <= arrive:
        raise ToolFailure(INVALID_ARGUMENT, "check_out must be at least one night after check_in")
    if (leave - arrive).days > MAX_NIGHTS:
        raise ToolFailure(INVALID_ARGUMENT, f"a booking covers at most {MAX_NIGHTS} nights")
    return arrive, leave


def _nights(check_in: date, check_out: date) -> list[date]:
    return [check_in + timedelta(days=i) for i in range((check_out - check_in).days)]


def _inventory(db: Session, room_type_ids: list[str], nights: list[date]) -> dict[tuple[str, date], RoomNight]:
    """The inventory rows of these room types from the first of these nights to the last, by (room type, night),
    in one query."""
    if not nights:
        return {}
    span = {"arrive": min(nights), "leave": max(nights) + timedelta(days=1)}
    found = db.scalars(_INVENTORY_OF, {"room_types": room_type_ids, **span})
    return {(row.room_type_id, row.night): row for row in found}


def _reserve(db: Session, room_type: RoomType, nights: list[date]) -> None:
    """Take one room of `room_type` on each night, or fail naming the nights with none left."""
    stock = _inventory(db, [room_type.id], nights)
    missing = next((night for night in nights if (room_type.id, night) not in stock), None)
    if missing is not None:
        raise ToolFailure(PRECONDITION_FAILED, f"the hotel has not released inventory for the night of {missing} yet")
    rows = [stock[room_type.id, night] for night in nights]
    full = [str(r.night) for r in rows if r.total_rooms - r.booked_rooms < 1]
    if full:
        raise ToolFailure(
            PRECONDITION_FAILED, f"no {room_type.name} ({room_type.id}) is left for the night(s) of {', '.join(full)}"
        )
    for row in rows:
        row.booked_rooms += 1


def _release(db: Session, room_type_id: str, nights: list[date]) -> None:
    stock = _inventory(db, [room_type_id], nights)
    for night in nights:
        row = stock.get((room_type_id, night))
        if row is not None and row.booked_rooms > 0:
            row.booked_rooms -= 1


def _ledger(booking: Booking) -> dict:
    # a relocation carries what was paid from the old booking (transfer_out) to the new one (transfer_in)
    charged = sum(p.amount_cents for p in booking.payments if p.kind in ("charge", "transfer_in"))
    refunded = sum(p.amount_cents for p in booking.payments if p.kind in ("refund", "transfer_out"))
    withheld = sum(p.service_fee_cents for p in booking.payments if p.kind == "refund")
    return {
        "charged_cents": charged,
        "refunded_cents": refunded,
        "service_fees_withheld_cents": withheld,
        "net_paid_cents": charged - refunded,
        "refundable_cents": charged - refunded - withheld,
    }


def _booking_view(booking: Booking) -> dict:
    return {
        **row_dict(booking),
        "traveller_name": booking.traveller.name,
        "hotel_name": booking.hotel.name,
        "room_type_name": booking.room_type.name,
        "room_type_rank": booking.room_type.rank,
        "group_name": booking.group.name if booking.group else None,
        "payments_summary": _ledger(booking),
    }


def _open_booking(db: Session, booking_id: str, allowed: tuple[str, ...] = ("confirmed",)) -> Booking:
    booking = _booking(db, booking_id)
    if booking.status not in allowed:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"booking {booking_id} is {booking.status}; this needs a {' or '.join(allowed)} booking",
        )
    return booking


def _payment(db: Session, booking: Booking, kind: str, reason: str, amount: int, fee: int = 0, note=None) -> Payment:
    payment = Payment(
        id=next_id(db, Payment, "PAY-"),
        kind=kind,
        reason=reason,
        amount_cents=amount,
        service_fee_cents=fee,
        card_last4=booking.traveller.card_last4,
        created_at=NOW,
        note=note,
    )
    booking.payments.append(payment)
    db.flush()
    return payment


def _deadline(hotel: Hotel, check_in: date) -> datetime:
    return datetime.combine(check_in, time(15, 0)) - timedelta(hours=hotel.free_cancellation_hours)


# --------------------------------------------------------------------------- reads: people and accounts


@tools.read
def get_traveller(db: Session, traveller_id: str) -> dict:
    """A traveller's profile: their corporate account (id, name, status), job title, the last four digits of
    the corporate card their bookings are charged to, and their hotel loyalty profile (tier and the date the
    tier is valid until), or null when they have none."""
    traveller = _traveller(db, traveller_id)
    profile = db.scalars(select(LoyaltyProfile).where(LoyaltyProfile.traveller_id == traveller_id)).first()
    account = traveller.account
    return {
        **row_dict(traveller),
        "account": {"id": account.id, "name": account.name, "status": account.status},
        "loyalty": row_dict(profile) if profile else None,
    }


@tools.read
def get_corporate_account(db: Session, account_id: str) -> dict:
    """A corporate account: status (active, credit_hold, suspended), credit limit, the travel manager who
    approves exceptions, and every negotiated nightly rate with its hotel, room type and validity dates."""
    account = get_or_fail(db, CorporateAccount, account_id, "corporate account")
    rates = db.scalars(_RATES_OF, {"account_id": account_id}).all()
    return {
        **row_dict(account),
        "negotiated_rates": [
            {**row_dict(r), "room_type_name": r.room_type.name, "hotel_name": r.room_type.hotel.name} for r in rates
        ],
    }


@tools.read
def list_account_invoices(db: Session, account_id: str) -> dict:
    """A corporate account's invoices, newest first: amount, issue and due dates, status (issued, paid, void),
    and for unpaid invoices past their due date how many days overdue they are."""
    get_or_fail(db, CorporateAccount, account_id, "corporate account")
    invoices = db.scalars(
        select(Invoice).where(Invoice.account_id == account_id).order_by(Invoice.issued_on.desc(), Invoice.id)
    ).all()
    rows = []
    for invoice in invoices:
        overdue = (TODAY - invoice.due_on).days if invoice.status == "issued" and invoice.due_on < TODAY else 0
        rows.append({**row_dict(invoice), "days_overdue": overdue})
    return {
        "account_id": account_id,
        "today": TODAY.isoformat(),
        "invoices": rows,
        "unpaid_cents": sum(i.amount_cents for i in invoices if i.status == "issued"),
    }


# --------------------------------------------------------------------------- reads: hotels and availability


@tools.read
def search_hotels(db: Session, city: str) -> list[dict]:
    """Partner hotels in a city (e.g. Lisbon, London, Frankfurt, Amsterdam) with their room types."""
    hotels = db.scalars(select(Hotel).where(func.lower(Hotel.city) == city.strip().lower()).order_by(Hotel.id)).all()
    if not hotels:
        raise ToolFailure(NOT_FOUND, f"we have no partner hotel in {city!r}")
    return [
        {"id": h.id, "name": h.name, "address": h.address, "room_types": [f"{r.id} {r.name}" for r in h.room_types]}
        for h in hotels
    ]


@tools.read
def get_hotel(db: Session, hotel_id: str) -> dict:
    """A hotel: address, check-in and check-out times, how many hours before check-in free cancellation ends,
    the late checkout fee, the partner-relations contact, and its room types (rank 1 is the entry room type,
    a higher rank is a better room) with rack rates."""
    hotel = get_or_fail(db, Hotel, hotel_id, "hotel")
    return {**row_dict(hotel), "room_types": [row_dict(r) for r in hotel.room_types]}


@tools.read
def search_availability(db: Session, hotel_id: str, check_in: str, check_out: str) -> dict:
    """Rooms left at a hotel for every night from check_in to the night before check_out (dates as YYYY-MM-DD),
    per room type: rank, rack rate, rooms left each night and the fewest left on any night of the stay."""
    hotel = get_or_fail(db, Hotel, hotel_id, "hotel")
    arrive, leave = _date(check_in, "check_in"), _date(check_out, "check_out")
    if leave <= arrive:
        raise ToolFailure(INVALID_ARGUMENT, "check_out must be at least one night after check_in")
    nights = _nights(arrive, leave)
    stock = _inventory(db, [r.id for r in hotel.room_types], nights)
    left = {key: row.total_rooms - row.booked_rooms for key, row in stock.items()}
    result = []
    for room_type in hotel.room_types:
        per_night = {night.isoformat(): left.get((room_type.id, night), 0) for night in nights}
        result.append(
            {
                "room_type_id": room_type.id,
                "name": room_type.name,
                "rank": room_type.rank,
                "rack_rate_cents": room_type.rack_rate_cents,
                "rooms_left_per_night": per_night,
                "rooms_left_every_night": min(per_night.values()),
            }
        )
    return {"hotel_id": hotel_id, "check_in": arrive.isoformat(), "check_out": leave.isoformat(), "room_types": result}


# --------------------------------------------------------------------------- reads: bookings and money


@tools.read
def get_booking(db: Session, booking_id: str) -> dict:
    """Everything about one booking: traveller, hotel, room type and its rank, stay dates and nights, nightly
    rate and total, status, the hotel's confirmation (confirmed, awaiting, cannot_honour), the free-cancellation
    deadline, late checkout and upgrade-allowance flags, the group it belongs to, and a summary of its payments."""
    return _booking_view(_booking(db, booking_id))


@tools.read
def list_traveller_bookings(db: Session, traveller_id: str) -> list[dict]:
    """All bookings of a traveller, latest stay first, with hotel, dates, room type, status, group and trip."""
    _traveller(db, traveller_id)
    bookings = db.scalars(
        select(Booking).where(Booking.traveller_id == traveller_id).order_by(Booking.check_in.desc(), Booking.id)
    ).all()
    return [
        {
            "id": b.id,
            "hotel_name": b.hotel.name,
            "room_type_name": b.room_type.name,
            "check_in": b.check_in.isoformat(),
            "check_out": b.check_out.isoformat(),
            "status": b.status,
            "total_cents": b.total_cents,
            "group_id": b.group_id,
            "trip_id": b.trip_id,
        }
        for b in bookings
    ]


@tools.read
def get_group_booking(db: Session, group_id: str) -> dict:
    """A group booking: its event name, organiser, hotel, dates, the group's free-cancellation deadline and
    status, and every room in it (booking id, traveller, room type, nightly rate, status)."""
    group = get_or_fail(db, GroupBooking, group_id, "group booking")
    return {
        **row_dict(group),
        "organiser_name": group.organiser.name,
        "rooms": [
            {
                "booking_id": b.id,
                "traveller_id": b.traveller_id,
                "traveller_name": b.traveller.name,
                "room_type_id": b.room_type_id,
                "room_type_name": b.room_type.name,
                "nightly_rate_cents": b.nightly_rate_cents,
                "total_cents": b.total_cents,
                "status": b.status,
            }
            for b in group.rooms
        ],
    }


@tools.read
def list_payments(db: Session, booking_id: str) -> dict:
    """A booking's payment ledger as our records show it: every charge to the traveller's card and every refund
    (with any service fee withheld), oldest first, and the totals."""
    booking = _booking(db, booking_id)
    return {"booking_id": booking_id, "payments": [row_dict(p) for p in booking.payments], **_ledger(booking)}


@tools.read
def list_approval_requests(db: Session, booking_id: str) -> list[dict]:
    """Approval requests sent to the travel manager about a booking, with what was asked and the decision
    (pending, approved, rejected)."""
    _booking(db, booking_id)
    rows = rows_where(db, ApprovalRequest.booking_id, booking_id)
    return [row_dict(r) for r in rows]


@tools.read
def list_partner_escalations(db: Session, booking_id: str) -> list[dict]:
    """Escalations already sent to the hotel about a booking: kind, amount, status (sent, acknowledged,
    resolved) and when."""
    _booking(db, booking_id)
    rows = rows_where(db, PartnerEscalation.booking_id, booking_id)
    return [row_dict(r) for r in rows]


# --------------------------------------------------------------------------- reads: trips, disruptions, caps


def _segment(booking: Booking) -> dict:
    return {
        "booking_id": booking.id,
        "hotel_id": booking.hotel_id,
        "hotel_name": booking.hotel.name,
        "city": booking.hotel.city,
        "room_type_id": booking.room_type_id,
        "room_type_name": booking.room_type.name,
        "room_type_rank": booking.room_type.rank,
        "check_in": booking.check_in.isoformat(),
        "check_out": booking.check_out.isoformat(),
        "nights": booking.nights,
        "nightly_rate_cents": booking.nightly_rate_cents,
        "total_cents": booking.total_cents,
        "status": booking.status,
        "hotel_confirmation": booking.hotel_confirmation,
        "free_cancellation_until": booking.free_cancellation_until.isoformat(),
        "group_id": booking.group_id,
        "refundable_cents": _ledger(booking)["refundable_cents"],
    }


@tools.read
def list_traveller_trips(db: Session, traveller_id: str) -> list[dict]:
    """A traveller's trips (itineraries that link several hotel bookings into one journey), newest first: name,
    the cities visited, the first check-in and last check-out, and how many segments (bookings) each has."""
    _traveller(db, traveller_id)
    trips = db.scalars(select(Trip).where(Trip.traveller_id == traveller_id).order_by(Trip.created_at.desc())).all()
    rows = []
    for trip in trips:
        segments = trip.segments
        rows.append(
            {
                "id": trip.id,
                "name": trip.name,
                "cities": list(dict.fromkeys(b.hotel.city for b in segments)),
                "first_check_in": min(b.check_in for b in segments).isoformat() if segments else None,
                "last_check_out": max(b.check_out for b in segments).isoformat() if segments else None,
                "segments": len(segments),
            }
        )
    return rows


@tools.read
def get_trip(db: Session, trip_id: str) -> dict:
    """A trip and its segments in stay order: for each segment (a booking) the hotel and city, room type and rank,
    dates, nightly rate and total, status, the hotel's confirmation, the free-cancellation deadline, the group
    it belongs to and what is still refundable on it."""
    trip = get_or_fail(db, Trip, trip_id, "trip")
    return {**row_dict(trip), "segments": [_segment(b) for b in trip.segments]}


@tools.read
def list_hotel_disruptions(db: Session, hotel_id: str) -> list[dict]:
    """Disruptions a hotel has reported: a closure of the whole hotel, or an overbooking or rooms out of order of
    one room type, for the nights from first_night to last_night (both included), with when it was reported."""
    get_or_fail(db, Hotel, hotel_id, "hotel")
    rows = rows_where(db, HotelDisruption.hotel_id, hotel_id)
    return [
        {
            **row_dict(d),
            "affects": "the whole hotel" if d.room_type_id is None else f"room type {d.room_type_id} only",
        }
        for d in rows
    ]


@tools.read
def list_city_rate_caps(db: Session, account_id: str) -> dict:
    """A corporate account's travel-policy caps: the highest nightly rate its travellers may book, per city.
    A city that is not listed has no cap."""
    get_or_fail(db, CorporateAccount, account_id, "corporate account")
    caps = rows_where(db, CityRateCap.account_id, account_id)
    return {"account_id": account_id, "caps": [row_dict(c) for c in caps]}


# --------------------------------------------------------------------------- writes: bookings


@tools.write
def create_booking(
    db: Session,
    traveller_id: str,
    hotel_id: str,
    room_type_id: str,
    check_in: str,
    check_out: str,
    nightly_rate_cents: int,
) -> dict:
    """Book a room for a traveller from check_in to check_out (YYYY-MM-DD) at the nightly rate you give, take
    one room of the type for every night, and charge the total to the traveller's corporate card. Check the
    account's standing and the rate in the policy first. Returns the booking."""
    traveller = _traveller(db, traveller_id)
    hotel = get_or_fail(db, Hotel, hotel_id, "hotel")
    room_type = _room_type_of(db, hotel_id, room_type_id)
    arrive, leave = _stay(check_in, check_out)
    if nightly_rate_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "nightly_rate_cents must be a positive number of cents")
    nights = _nights(arrive, leave)
    _reserve(db, room_type, nights)
    booking_id = next_id(db, Booking, "BK-")
    booking = Booking(
        id=booking_id,
        traveller_id=traveller_id,
        account_id=traveller.account_id,
        hotel_id=hotel_id,
        room_type_id=room_type_id,
        hotel_reference=f"{room_type.code}{booking_id.removeprefix('BK-')}{hotel_id.removeprefix('H-')}",
        check_in=arrive,
        check_out=leave,
        nights=len(nights),
        nightly_rate_cents=nightly_rate_cents,
        total_cents=nightly_rate_cents * len(nights),
        status="confirmed",
        hotel_confirmation="confirmed",
        free_cancellation_until=_deadline(hotel, arrive),
        booked_at=NOW,
    )
    db.add(booking)
    db.flush()
    _payment(db, booking, "charge", "booking", booking.total_cents)
    return _booking_view(booking)


@tools.write
def modify_booking_dates(db: Session, booking_id: str, check_in: str, check_out: str) -> dict:
    """Change a confirmed booking's stay to check_in .. check_out (YYYY-MM-DD), keeping its room type and nightly
    rate: takes a room for any added night (it must be available) and releases removed nights. It moves no
    money: the result's price_difference_cents (new total minus old) says what to charge or refund under the
    policy. Returns the booking."""
    booking = _open_booking(db, booking_id)
    arrive, leave = _stay(check_in, check_out)
    if (arrive, leave) == (booking.check_in, booking.check_out):
        raise ToolFailure(INVALID_ARGUMENT, f"booking {booking_id} already runs from {arrive} to {leave}")
    old_nights, new_nights = _nights(booking.check_in, booking.check_out), _nights(arrive, leave)
    added = [n for n in new_nights if n not in old_nights]
    removed = [n for n in old_nights if n not in new_nights]
    _reserve(db, booking.room_type, added)
    _release(db, booking.room_type_id, removed)
    old_total = booking.total_cents
    if arrive != booking.check_in and booking.group_id is None:
        booking.free_cancellation_until = _deadline(booking.hotel, arrive)
    booking.check_in, booking.check_out, booking.nights = arrive, leave, len(new_nights)
    booking.total_cents = booking.nightly_rate_cents * booking.nights
    db.flush()
    return {
        **_booking_view(booking),
        "nights_added": [n.isoformat() for n in added],
        "nights_removed": [n.isoformat() for n in removed],
        "price_difference_cents": booking.total_cents - old_total,
    }


@tools.write
def change_room_type(db: Session, booking_id: str, room_type_id: str, nightly_rate_cents: int) -> dict:
    """Move a confirmed booking to another room type of the same hotel at the nightly rate you give (the new
    type must be available every night; the old rooms are released). It moves no money: the result's
    price_difference_cents (new total minus old) says what to charge or refund under the policy. Returns the
    booking."""
    booking = _open_booking(db, booking_id)
    room_type = _room_type_of(db, booking.hotel_id, room_type_id)
    if room_type_id == booking.room_type_id:
        raise ToolFailure(INVALID_ARGUMENT, f"booking {booking_id} is already a {room_type.name}")
    if nightly_rate_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "nightly_rate_cents must be a positive number of cents")
    nights = _nights(booking.check_in, booking.check_out)
    _reserve(db, room_type, nights)
    _release(db, booking.room_type_id, nights)
    old_total = booking.total_cents
    booking.room_type = room_type
    booking.nightly_rate_cents = nightly_rate_cents
    booking.total_cents = nightly_rate_cents * booking.nights
    db.flush()
    return {**_booking_view(booking), "price_difference_cents": booking.total_cents - old_total}


@tools.write
def cancel_booking(db: Session, booking_id: str) -> dict:
    """Cancel a confirmed booking and release its rooms. It moves no money: refund what the policy says with
    issue_refund afterwards. Returns the booking with its payments summary."""
    booking = _open_booking(db, booking_id)
    _release(db, booking.room_type_id, _nights(booking.check_in, booking.check_out))
    booking.status = "cancelled"
    booking.cancelled_at = NOW
    db.flush()
    return _booking_view(booking)


@tools.write
def relocate_booking(db: Session, booking_id: str, hotel_id: str, room_type_id: str, nightly_rate_cents: int) -> dict:
    """Move a confirmed booking the hotel cannot honour to another hotel for the same dates: books the room type
    you give at that hotel at the nightly rate you give (it must be available every night), releases the old
    rooms and marks the old booking relocated. What was paid on the old booking is carried to the new one
    (transfer lines in both ledgers); no other money moves: the result's price_difference_cents (new total minus
    the amount carried) says what to refund under the policy. Returns the new booking."""
    old = _open_booking(db, booking_id)
    if hotel_id == old.hotel_id:
        raise ToolFailure(INVALID_ARGUMENT, f"booking {booking_id} is already at hotel {hotel_id}; relocate elsewhere")
    hotel = get_or_fail(db, Hotel, hotel_id, "hotel")
    room_type = _room_type_of(db, hotel_id, room_type_id)
    if nightly_rate_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "nightly_rate_cents must be a positive number of cents")
    nights = _nights(old.check_in, old.check_out)
    _reserve(db, room_type, nights)
    _release(db, old.room_type_id, nights)
    carried = _ledger(old)["net_paid_cents"]
    new_id = next_id(db, Booking, "BK-")
    new = Booking(
        id=new_id,
        traveller_id=old.traveller_id,
        account_id=old.account_id,
        hotel_id=hotel_id,
        room_type_id=room_type_id,
        group_id=old.group_id,
        trip_id=old.trip_id,
        hotel_reference=f"{room_type.code}{new_id.removeprefix('BK-')}{hotel_id.removeprefix('H-')}",
        check_in=old.check_in,
        check_out=old.check_out,
        nights=old.nights,
        nightly_rate_cents=nightly_rate_cents,
        total_cents=nightly_rate_cents * old.nights,
        status="confirmed",
        hotel_confirmation="confirmed",
        free_cancellation_until=_deadline(hotel, old.check_in),
        upgrade_allowance_used=old.upgrade_allowance_used,
        booked_at=NOW,
        relocated_from_id=old.id,
    )
    db.add(new)
    old.status = "relocated"
    db.flush()
    if carried > 0:
        _payment(db, old, "transfer_out", "relocation", carried, note=f"carried to {new_id}")
        _payment(db, new, "transfer_in", "relocation", carried, note=f"carried from {old.id}")
    return {**_booking_view(new), "carried_over_cents": carried, "price_difference_cents": new.total_cents - carried}


@tools.write
def create_trip(db: Session, traveller_id: str, name: str) -> dict:
    """Open a new trip (an itinerary) for a traveller, to which their bookings for one journey are then added
    with add_booking_to_trip. name says what the journey is for. Returns the trip."""
    traveller = _traveller(db, traveller_id)
    if not name.strip():
        raise ToolFailure(INVALID_ARGUMENT, "give the trip a name, e.g. the purpose of the journey")
    trip = Trip(
        id=next_id(db, Trip, "TRP-"),
        traveller_id=traveller_id,
        account_id=traveller.account_id,
        name=name.strip(),
        created_at=NOW,
    )
    db.add(trip)
    db.flush()
    return {**row_dict(trip), "segments": []}


@tools.write
def add_booking_to_trip(db: Session, booking_id: str, trip_id: str) -> dict:
    """Add a confirmed booking of the trip's traveller to a trip as one of its segments (a booking belongs to at
    most one trip). Returns the trip with its segments."""
    trip = get_or_fail(db, Trip, trip_id, "trip")
    booking = _open_booking(db, booking_id)
    if booking.traveller_id != trip.traveller_id:
        raise ToolFailure(
            INVALID_ARGUMENT, f"booking {booking_id} is not a booking of the trip's traveller {trip.traveller_id}"
        )
    if booking.trip_id is not None:
        raise ToolFailure(CONFLICT, f"booking {booking_id} already belongs to trip {booking.trip_id}")
    booking.trip_id = trip_id
    db.flush()
    db.refresh(trip)
    return {**row_dict(trip), "segments": [_segment(b) for b in trip.segments]}


# --------------------------------------------------------------------------- writes: money


@tools.write
def issue_refund(
    db: Session,
    booking_id: str,
    amount_cents: int,
    reason: RefundReason,
    service_fee_cents: int = 0,
    note: str | None = None,
) -> dict:
    """Refund money to the traveller's card on a booking. amount_cents is what the traveller gets back;
    service_fee_cents is the service fee withheld from this refund when the policy calls for one (0 otherwise).
    Both together cannot exceed what is still refundable on the booking. Returns the refund."""
    booking = _booking(db, booking_id)
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")
    if service_fee_cents < 0:
        raise ToolFailure(INVALID_ARGUMENT, "service_fee_cents cannot be negative")
    refundable = _ledger(booking)["refundable_cents"]
    if amount_cents + service_fee_cents > refundable:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"cannot refund {amount_cents} cents with a {service_fee_cents}-cent fee on booking {booking_id}: "
            f"only {refundable} cents remain refundable",
        )
    return row_dict(_payment(db, booking, "refund", reason, amount_cents, service_fee_cents, note))


@tools.write
def charge_booking(
    db: Session, booking_id: str, amount_cents: int, reason: Literal["room_upgrade", "extra_nights"]
) -> dict:
    """Charge an additional amount to the traveller's corporate card on a booking: the price difference of a
    paid room upgrade (reason room_upgrade) or of added nights (reason extra_nights). Returns the charge."""
    booking = _open_booking(db, booking_id, ("confirmed", "checked_in"))
    if not 0 < amount_cents <= 1_000_000:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be between 1 and 1000000 cents")
    return row_dict(_payment(db, booking, "charge", reason, amount_cents))


@tools.write
def arrange_late_checkout(db: Session, booking_id: str, fee_cents: int) -> dict:
    """Arrange a late checkout (until 14:00) with the hotel for a booking. fee_cents is 0 when the checkout is
    complimentary or the hotel's late checkout fee (see get_hotel), which is charged to the traveller's card.
    Returns the booking."""
    booking = _open_booking(db, booking_id, ("confirmed", "checked_in"))
    if booking.late_checkout:
        raise ToolFailure(CONFLICT, f"booking {booking_id} already has a late checkout")
    fee = booking.hotel.late_checkout_fee_cents
    if fee_cents not in (0, fee):
        raise ToolFailure(INVALID_ARGUMENT, f"fee_cents must be 0 or the hotel's late checkout fee of {fee} cents")
    booking.late_checkout = True
    if fee_cents:
        _payment(db, booking, "charge", "late_checkout", fee_cents)
    db.flush()
    return _booking_view(booking)


@tools.write
def apply_upgrade_allowance(db: Session, booking_id: str, room_type_id: str) -> dict:
    """Give a loyalty member their complimentary upgrade: move the booking to a better room type (a higher
    rank) at the same nightly rate and mark the stay's upgrade allowance as used. The room type must be
    available every night. Check the traveller's tier and the allowance rules in the policy first."""
    booking = _open_booking(db, booking_id, ("confirmed", "checked_in"))
    room_type = _room_type_of(db, booking.hotel_id, room_type_id)
    if room_type.rank <= booking.room_type.rank:
        raise ToolFailure(
            INVALID_ARGUMENT,
            f"{room_type.name} (rank {room_type.rank}) is not above the booked {booking.room_type.name} "
            f"(rank {booking.room_type.rank})",
        )
    nights = [n for n in _nights(booking.check_in, booking.check_out) if n >= TODAY]
    _reserve(db, room_type, nights)
    _release(db, booking.room_type_id, nights)
    booking.room_type = room_type
    booking.upgrade_allowance_used = True
    db.flush()
    return _booking_view(booking)


# --------------------------------------------------------------------------- writes: escalations and approvals


@tools.write
def open_partner_escalation(
    db: Session, booking_id: str, kind: EscalationKind, amount_cents: int, description: str
) -> dict:
    """Send an escalation about a booking to the hotel's partner-relations contact (for example a charge the
    hotel took at the property that we did not take). amount_cents is the amount in question (0 if none).
    Returns the escalation."""
    booking = _booking(db, booking_id)
    if amount_cents < 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents cannot be negative")
    if not description.strip():
        raise ToolFailure(INVALID_ARGUMENT, "describe the problem for the hotel in a sentence or two")
    existing = db.scalars(
        select(PartnerEscalation).where(
            PartnerEscalation.booking_id == booking_id,
            PartnerEscalation.kind == kind,
            PartnerEscalation.status != "resolved",
        )
    ).first()
    if existing is not None:
        raise ToolFailure(CONFLICT, f"escalation {existing.id} about {kind} on booking {booking_id} is still open")
    escalation = PartnerEscalation(
        id=next_id(db, PartnerEscalation, "PE-"),
        hotel_id=booking.hotel_id,
        booking_id=booking_id,
        kind=kind,
        amount_cents=amount_cents,
        sent_to=booking.hotel.partner_contact_email,
        status="sent",
        created_at=NOW,
        description=description.strip(),
    )
    db.add(escalation)
    db.flush()
    return row_dict(escalation)


@tools.write
def create_approval_request(
    db: Session,
    booking_id: str,
    kind: ApprovalKind,
    requested_rate_cents: int,
    justification: str,
    requested_room_type_id: str | None = None,
) -> dict:
    """Ask the booking account's travel manager to approve a change to a booking (a move to another room type,
    or a lower nightly rate), giving the room type and nightly rate asked for and why. The booking is not
    changed. Returns the request."""
    booking = _open_booking(db, booking_id)
    if requested_room_type_id is not None:
        _room_type_of(db, booking.hotel_id, requested_room_type_id)
    if requested_rate_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "requested_rate_cents must be a positive number of cents")
    if not justification.strip():
        raise ToolFailure(INVALID_ARGUMENT, "say in a sentence why the change is requested")
    pending = db.scalars(
        select(ApprovalRequest).where(ApprovalRequest.booking_id == booking_id, ApprovalRequest.status == "pending")
    ).first()
    if pending is not None:
        raise ToolFailure(CONFLICT, f"approval request {pending.id} for booking {booking_id} is still pending")
    account = get_or_fail(db, CorporateAccount, booking.account_id, "corporate account")
    request = ApprovalRequest(
        id=next_id(db, ApprovalRequest, "APR-"),
        account_id=account.id,
        booking_id=booking_id,
        kind=kind,
        requested_room_type_id=requested_room_type_id,
        requested_rate_cents=requested_rate_cents,
        approver_email=account.travel_manager_email,
        status="pending",
        created_at=NOW,
        justification=justification.strip(),
    )
    db.add(request)
    db.flush()
    return row_dict(request)


# --------------------------------------------------------------------------- shared: identity, tickets, policy

register_identity(tools, Traveller, "traveller")
# The ticket classification the policy decides (see "Ticket classification" in policy.md).
TICKET_CATEGORIES = (
    "group_booking",
    "new_booking",
    "cancellation",
    "date_change",
    "room_upgrade",
    "room_downgrade",
    "late_checkout",
    "loyalty_upgrade",
    "billing",
    "relocation",
)
TICKET_REASONS = (
    "over_limit",
    "credit_hold",
    "awaiting_hotel",
    "identity_not_verified",
    "needs_approval",
    "awaiting_organiser",
    "account_suspended",
    "not_authorised",
    "approval_rejected",
    "no_availability",
    "not_eligible",
    "outside_window",
    "over_city_cap",
)
TICKET_QUEUES = (
    "accounts_receivable",
    "partner_relations",
    "payments",
    "approvals",
    "group_desk",
)
register_ticket_tools(
    tools,
    Ticket,
    TicketComment,
    requester=Traveller,
    now=NOW,
    requester_label="traveller",
    categories=TICKET_CATEGORIES,
    reasons=TICKET_REASONS,
    queues=TICKET_QUEUES,
    link=("booking_id", Booking, "booking"),
)
register_policy_search(tools, POLICY_PATH, '"cancellation service fee", "room downgrade approval"')
