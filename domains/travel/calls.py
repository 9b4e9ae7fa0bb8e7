"""Golden-path building blocks the travel tasks share.

A task's golden calls read as its decision: `opening` for what every
conversation starts with (identify the traveller, read the records the request
is about, look for their ticket), the calls of the decision itself (`cancel`,
`issue_refund`, `book`, `relocate`, ...), then how the ticket ends (`solved`,
`left_pending`, `on_hold`). `new_ticket` opens a ticket when the traveller has
none for the matter; `traveller_facts` and `cancel_facts` are what a traveller
can tell the desk, for `User.knows`.

The ids a create tool gives (``T-0001``, ``BK-5002`` for a relocation's new
booking) stay written out in the tasks, as their assertions name them.
"""

from __future__ import annotations

from typing import Any

from domains.shared.calls import internal_note, ticket_update
from domains.shared.calls import solved as solved  # re-exported for the tasks
from pytest_thinkingbox import Call, call

from .models import Booking, GroupBooking, Traveller, Trip
from .seed import HOTELS, hotel_of

#: TR-125 to TR-131: the team a waiting ticket goes to, by the reason it waits (a ticket that waits for the
#: traveller's own employee number gets none). Restated from the policy rather than taken from the rules, so that
#: the golden path does not lean on the rules it is checked against.
QUEUES = {
    "credit_hold": "accounts_receivable",
    "awaiting_hotel": "partner_relations",
    "over_limit": "payments",
    "needs_approval": "approvals",
    "awaiting_organiser": "group_desk",
}

#: TR-28, TR-29, TR-33: the service fee a cancellation refund keeps, inside the window or after it
SERVICE_FEE = 2_500


# --- What the traveller tells ----------------------------------------------------------------------------------------


def traveller_facts(traveller: Traveller, about: Booking | GroupBooking | Trip | None = None) -> dict[str, str]:
    """What a traveller tells the desk, for `User.knows`: their email (TR-8) and the reference of the booking, group
    or trip the request is about, if there is one. Add the task's own facts with
    ``{**traveller_facts(...), "fact": "..."}``."""
    facts = {"email": traveller.email}
    if isinstance(about, Booking):
        facts["booking reference"] = about.id
    elif isinstance(about, GroupBooking):
        facts["group reference"] = about.id
    elif isinstance(about, Trip):
        facts["trip reference"] = about.id
    return facts


def cancel_facts(traveller: Traveller, about: Booking | GroupBooking | Trip) -> dict[str, str]:
    """What a traveller who asks to cancel tells: their email, the reference of the booking, group or trip, and
    their own employee number, the second check a cancellation needs (TR-10)."""
    return {**traveller_facts(traveller, about), "employee number": traveller.employee_number}


# --- Opening: identify the traveller, read the records, find the ticket ----------------------------------------------


def identify(traveller: Traveller) -> list[Call]:
    """Find the traveller by the email they give (TR-8)."""
    return [call("find_traveller_by_email", email=traveller.email)]


def opening(traveller: Traveller, *reads: Call) -> list[Call]:
    """How a conversation starts (TR-2, TR-3): identify the traveller, read the records the request is about
    (`reads`), then look for the traveller's ticket."""
    return [*identify(traveller), *reads, call("list_tickets", requester_id=traveller.id)]


def get_traveller(traveller: Traveller) -> Call:
    """Read a traveller's profile: account, employee number, loyalty tier."""
    return call("get_traveller", traveller_id=traveller.id)


def get_booking(booking: Booking) -> Call:
    return call("get_booking", booking_id=booking.id)


def list_bookings(traveller: Traveller) -> Call:
    """List the traveller's bookings, when they do not say which one they mean."""
    return call("list_traveller_bookings", traveller_id=traveller.id)


def get_group(group: GroupBooking) -> Call:
    """Read a group booking: its organiser, rooms and the group's free-cancellation deadline (TR-26)."""
    return call("get_group_booking", group_id=group.id)


def find_trip(traveller: Traveller, trip: Trip) -> list[Call]:
    """List the traveller's trips and read the one they mean, with its segments."""
    return [call("list_traveller_trips", traveller_id=traveller.id), call("get_trip", trip_id=trip.id)]


def get_account(account_id: str) -> Call:
    """Read a corporate account: its status and negotiated rates (TR-11, TR-16)."""
    return call("get_corporate_account", account_id=account_id)


def standing(account_id: str) -> list[Call]:
    """Read an account and its invoices, its standing before a booking or a change that charges money (TR-11 to
    TR-13)."""
    return [get_account(account_id), call("list_account_invoices", account_id=account_id)]


def rate_caps(account_id: str) -> Call:
    """List the account's city rate caps (TR-83)."""
    return call("list_city_rate_caps", account_id=account_id)


def availability(hotel_id: str, check_in: str, check_out: str) -> Call:
    """Search the rooms a hotel has left on the nights from `check_in` to `check_out` (TR-20, TR-38)."""
    return call("search_availability", hotel_id=hotel_id, check_in=check_in, check_out=check_out)


def get_hotel(hotel_id: str) -> Call:
    return call("get_hotel", hotel_id=hotel_id)


def payments(booking: Booking) -> Call:
    """List the charges and refunds on a booking."""
    return call("list_payments", booking_id=booking.id)


def list_escalations(booking: Booking) -> Call:
    """List the partner escalations already sent about a booking."""
    return call("list_partner_escalations", booking_id=booking.id)


def approvals(booking: Booking) -> Call:
    """List a booking's approval requests and what the travel manager decided (TR-85)."""
    return call("list_approval_requests", booking_id=booking.id)


def disruptions(hotel_id: str) -> Call:
    """List the disruptions a hotel reported (TR-75)."""
    return call("list_hotel_disruptions", hotel_id=hotel_id)


def search_hotels(city: str) -> Call:
    """List the partner hotels of a city."""
    return call("search_hotels", city=city)


def relocation_search(hotel_id: str, partner_id: str, check_in: str, check_out: str) -> list[Call]:
    """Look for where to relocate a stay at a disrupted hotel (TR-75, TR-78): its disruptions, the partner hotels of
    its city, the partner hotel's own disruptions and its rooms for the whole stay."""
    return [
        disruptions(hotel_id),
        search_hotels(HOTELS[hotel_id][1]),
        disruptions(partner_id),
        availability(partner_id, check_in, check_out),
    ]


# --- The decision ----------------------------------------------------------------------------------------------------


def _id(booking: Booking | str) -> str:
    return booking if isinstance(booking, str) else booking.id


def issue_refund(booking: Booking | str, amount_cents: Any, reason: str, service_fee_cents: int = 0) -> Call:
    """Refund `amount_cents` on a booking (or on the id of one a relocation made) for `reason`, with no service fee
    unless the refund is a cancellation's (TR-33, TR-34)."""
    return call(
        "issue_refund",
        booking_id=_id(booking),
        amount_cents=amount_cents,
        reason=reason,
        service_fee_cents=service_fee_cents,
    )


def cancel_booking(booking: Booking) -> Call:
    """Cancel a booking, with no refund of our own: the refund is over the limit, or nothing is left (TR-29, TR-31)."""
    return call("cancel_booking", booking_id=booking.id)


def cancel(booking: Booking, amount_cents: Any) -> list[Call]:
    """Cancel a booking and refund what is still refundable, less a night after the window, less the service fee
    (TR-27 to TR-29)."""
    return [cancel_booking(booking), issue_refund(booking, amount_cents, "cancellation", SERVICE_FEE)]


def cancel_for_hotel(booking: Booking, amount_cents: Any) -> list[Call]:
    """Cancel a booking the hotel is at fault for and refund all that is still refundable, no fee (TR-30, TR-36)."""
    return [cancel_booking(booking), issue_refund(booking, amount_cents, "hotel_fault")]


def charge_booking(booking: Booking | str, amount_cents: Any, reason: str) -> Call:
    """Charge `amount_cents` on a booking (or on the id of one a relocation made) for `reason` (added nights, a paid
    upgrade)."""
    return call("charge_booking", booking_id=_id(booking), amount_cents=amount_cents, reason=reason)


def move_dates(booking: Booking, check_in: Any, check_out: Any) -> Call:
    """Change a booking's dates; it keeps its room type and nightly rate (TR-37)."""
    return call("modify_booking_dates", booking_id=booking.id, check_in=check_in, check_out=check_out)


def change_room(booking: Booking, room_type_id: str, nightly_rate_cents: int) -> Call:
    """Move a booking to another room type of its hotel at `nightly_rate_cents`."""
    return call(
        "change_room_type", booking_id=booking.id, room_type_id=room_type_id, nightly_rate_cents=nightly_rate_cents
    )


def paid_upgrade(booking: Booking, room_type_id: str, nightly_rate_cents: int, amount_cents: Any) -> list[Call]:
    """Move a booking up to a room type at the rate that applies and charge the difference (TR-43 on)."""
    return [
        change_room(booking, room_type_id, nightly_rate_cents),
        charge_booking(booking, amount_cents, "room_upgrade"),
    ]


def downgrade(booking: Booking, room_type_id: str, nightly_rate_cents: int, amount_cents: Any) -> list[Call]:
    """Move a booking down to a room type at the approved rate and refund the difference, no fee."""
    return [
        change_room(booking, room_type_id, nightly_rate_cents),
        issue_refund(booking, amount_cents, "room_downgrade"),
    ]


def allowance_upgrade(booking: Booking | str, room_type_id: str) -> Call:
    """The loyalty allowance's complimentary upgrade to `room_type_id` (on a booking, or the id of one a relocation
    made)."""
    return call("apply_upgrade_allowance", booking_id=_id(booking), room_type_id=room_type_id)


def late_checkout(booking: Booking, fee_cents: int) -> Call:
    """Arrange a late checkout, complimentary (0) or at the hotel's fee."""
    return call("arrange_late_checkout", booking_id=booking.id, fee_cents=fee_cents)


def book(traveller: Traveller, room_type_id: str, check_in: str, check_out: str, nightly_rate_cents: int) -> Call:
    """Book the traveller a room type (at its hotel) for the nights from `check_in` to `check_out` (TR-22)."""
    return call(
        "create_booking",
        traveller_id=traveller.id,
        hotel_id=hotel_of(room_type_id),
        room_type_id=room_type_id,
        check_in=check_in,
        check_out=check_out,
        nightly_rate_cents=nightly_rate_cents,
    )


def create_trip(traveller: Traveller, name: str) -> Call:
    """Open a new trip for the traveller, to hold the bookings of one journey."""
    return call("create_trip", traveller_id=traveller.id, name=name)


def add_to_trip(booking_id: str, trip_id: str) -> Call:
    """Link a booking to a trip as one of its segments."""
    return call("add_booking_to_trip", booking_id=booking_id, trip_id=trip_id)


def relocate(booking: Booking | str, room_type_id: str, nightly_rate_cents: int) -> Call:
    """Relocate a booking to a room type of the partner hotel; the tool makes a new booking (TR-79)."""
    return call(
        "relocate_booking",
        booking_id=_id(booking),
        hotel_id=hotel_of(room_type_id),
        room_type_id=room_type_id,
        nightly_rate_cents=nightly_rate_cents,
    )


def escalate(booking: Booking, kind: str, amount_cents: Any, description: str) -> Call:
    """Open a partner escalation to the booking's hotel: a claim for `amount_cents` of `kind`."""
    return call(
        "open_partner_escalation", booking_id=booking.id, kind=kind, amount_cents=amount_cents, description=description
    )


def request_approval(booking: Booking, kind: str, room_type_id: str, rate_cents: int, justification: str) -> Call:
    """Ask the travel manager to approve a change of `booking` to `room_type_id` at `rate_cents` (TR-85)."""
    return call(
        "create_approval_request",
        booking_id=booking.id,
        kind=kind,
        requested_rate_cents=rate_cents,
        justification=justification,
        requested_room_type_id=room_type_id,
    )


# --- How the ticket ends ---------------------------------------------------------------------------------------------


def new_ticket(traveller: Traveller, subject: str, category: str, booking: Booking | None = None) -> Call:
    """Open the conversation's ticket when the traveller has no new or open one (TR-3): the traveller the requester,
    the booking the request is about linked (none for a new booking)."""
    linked = {"booking_id": booking.id} if booking is not None else {}
    return call("create_ticket", requester_id=traveller.id, subject=subject, category=category, **linked)


# `solved` (TR-89) and `internal_note` are domains/shared/calls.py's.


def left_pending(ticket_id: str, category: str, reason: str, note: str) -> list[Call]:
    """The ticket pending, waiting on the traveller's side (TR-90), for the team its reason goes to, with one
    internal comment saying what we wait for (TR-95)."""
    pending = ticket_update(ticket_id, "pending", category=category, reason=reason, queue=QUEUES.get(reason))
    return [pending, internal_note(ticket_id, note)]


def hold_update(ticket_id: str, reason: str, category: str | None = None) -> Call:
    """The update alone that puts the ticket on hold for the team its reason goes to (TR-91, TR-125), priority high
    (TR-94): `on_hold` without its note, as a trap names a hold that should not happen."""
    return ticket_update(ticket_id, "hold", priority="high", category=category, reason=reason, queue=QUEUES[reason])


def on_hold(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket on hold for the team its reason goes to (TR-91, TR-125), priority high (TR-94), with one internal
    comment saying what we wait for (TR-95); no category when the ticket was created with it."""
    return [hold_update(ticket_id, reason, category), internal_note(ticket_id, note)]
