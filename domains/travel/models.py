"""Records of a corporate travel agency's hotel desk.

Corporate accounts (standing, invoices, negotiated rates, nightly rate caps per
city), their travellers and loyalty profiles, hotels with room types and nightly
room inventory, disruptions hotels report (a closure, an overbooking, rooms out
of order), trips that link a traveller's bookings into one itinerary, bookings
and group bookings, a payment ledger, partner escalations sent to hotels,
approval requests sent to travel managers, and support tickets.

Money is held in integer euro cents, ids are strings with a per-table prefix
(``TRV-``, ``BK-``, ``PAY-`` ...), and every enumerated field has a `Literal`
type below that the tools reuse for their argument schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from domains.shared.tickets import AGENT_TEXT, CommentColumns, TicketColumns

AccountStatus = Literal["active", "credit_hold", "suspended"]
InvoiceStatus = Literal["issued", "paid", "void"]
LoyaltyTier = Literal["member", "silver", "gold", "platinum"]
BookingStatus = Literal["confirmed", "checked_in", "completed", "cancelled", "no_show", "relocated"]
HotelConfirmation = Literal["confirmed", "awaiting", "cannot_honour"]
GroupStatus = Literal["confirmed", "cancelled"]
PaymentKind = Literal["charge", "refund"]
ChargeReason = Literal["booking", "room_upgrade", "extra_nights", "late_checkout", "relocation"]
RefundReason = Literal["cancellation", "hotel_fault", "date_change", "room_downgrade", "duplicate_charge"]
EscalationKind = Literal["duplicate_charge", "overcharge", "service_failure", "relocation"]
EscalationStatus = Literal["sent", "acknowledged", "resolved"]
ApprovalKind = Literal["room_downgrade", "rate_reduction", "cap_exception"]
ApprovalStatus = Literal["pending", "approved", "rejected"]
DisruptionKind = Literal["closure", "overbooking", "out_of_order"]


class Base(DeclarativeBase):
    pass


class CorporateAccount(Base):
    __tablename__ = "corporate_accounts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(16), default="active")
    credit_limit_cents: Mapped[int] = mapped_column(Integer)
    billing_email: Mapped[str] = mapped_column(String(200))
    travel_manager_name: Mapped[str] = mapped_column(String(120))
    travel_manager_email: Mapped[str] = mapped_column(String(200))
    home_city: Mapped[str] = mapped_column(String(80))


class Invoice(Base):
    __tablename__ = "invoices"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    issued_on: Mapped[date] = mapped_column(Date)
    due_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="issued")
    paid_on: Mapped[date | None] = mapped_column(Date, nullable=True)


class Traveller(Base):
    __tablename__ = "travellers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    employee_number: Mapped[str] = mapped_column(String(24))
    job_title: Mapped[str] = mapped_column(String(80))
    card_last4: Mapped[str] = mapped_column(String(4))

    account: Mapped[CorporateAccount] = relationship()


# find_traveller_by_email compares emails in lower case (domains/shared/identity.py)
Index("ix_travellers_email_lower", func.lower(Traveller.email))


class LoyaltyProfile(Base):
    """A traveller's hotel loyalty (VIP) profile; the tier's benefits are set by the policy."""

    __tablename__ = "loyalty_profiles"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), unique=True)
    member_number: Mapped[str] = mapped_column(String(24))
    tier: Mapped[str] = mapped_column(String(16), default="member")
    tier_valid_until: Mapped[date] = mapped_column(Date)
    points: Mapped[int] = mapped_column(Integer, default=0)

    traveller: Mapped[Traveller] = relationship()


class Hotel(Base):
    __tablename__ = "hotels"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(80))
    address: Mapped[str] = mapped_column(String(200))
    check_in_time: Mapped[str] = mapped_column(String(5), default="15:00")
    check_out_time: Mapped[str] = mapped_column(String(5), default="11:00")
    free_cancellation_hours: Mapped[int] = mapped_column(Integer, default=48)
    late_checkout_fee_cents: Mapped[int] = mapped_column(Integer)
    partner_contact_name: Mapped[str] = mapped_column(String(120))
    partner_contact_email: Mapped[str] = mapped_column(String(200))

    room_types: Mapped[list[RoomType]] = relationship(back_populates="hotel", order_by="RoomType.rank")


# search_hotels compares cities in lower case
Index("ix_hotels_city_lower", func.lower(Hotel.city))


class RoomType(Base):
    __tablename__ = "room_types"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    code: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(80))
    rank: Mapped[int] = mapped_column(Integer)  # 1 is the entry room type; higher is better
    rack_rate_cents: Mapped[int] = mapped_column(Integer)
    max_occupancy: Mapped[int] = mapped_column(Integer, default=2)
    rooms: Mapped[int] = mapped_column(Integer)

    hotel: Mapped[Hotel] = relationship(back_populates="room_types")


class NegotiatedRate(Base):
    """A corporate account's contracted nightly rate for one room type, valid for stays checking in between
    ``valid_from`` and ``valid_until``."""

    __tablename__ = "negotiated_rates"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    room_type_id: Mapped[str] = mapped_column(ForeignKey("room_types.id"), index=True)
    nightly_rate_cents: Mapped[int] = mapped_column(Integer)
    valid_from: Mapped[date] = mapped_column(Date)
    valid_until: Mapped[date] = mapped_column(Date)

    room_type: Mapped[RoomType] = relationship()


class RoomNight(Base):
    """Inventory of one room type for one night (the night starting on ``night``)."""

    __tablename__ = "room_inventory"

    room_type_id: Mapped[str] = mapped_column(ForeignKey("room_types.id"), primary_key=True)
    night: Mapped[date] = mapped_column(Date, primary_key=True)
    total_rooms: Mapped[int] = mapped_column(Integer)
    booked_rooms: Mapped[int] = mapped_column(Integer)


class GroupBooking(Base):
    """Several rooms booked together for one event; each room is a booking with its own type and rate."""

    __tablename__ = "group_bookings"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    organiser_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    check_in: Mapped[date] = mapped_column(Date)
    check_out: Mapped[date] = mapped_column(Date)
    free_cancellation_until: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default="confirmed")
    created_at: Mapped[datetime] = mapped_column(DateTime)

    organiser: Mapped[Traveller] = relationship()
    rooms: Mapped[list[Booking]] = relationship(back_populates="group", order_by="Booking.id")


class CityRateCap(Base):
    """A corporate account's travel-policy cap: the highest nightly rate its travellers may book in a city."""

    __tablename__ = "city_rate_caps"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    city: Mapped[str] = mapped_column(String(80))
    max_nightly_rate_cents: Mapped[int] = mapped_column(Integer)


class HotelDisruption(Base):
    """A disruption a hotel reported for the nights ``first_night`` to ``last_night`` (both included): a closure of
    the whole hotel (``room_type_id`` null), or an overbooking or rooms out of order of one room type."""

    __tablename__ = "hotel_disruptions"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    room_type_id: Mapped[str | None] = mapped_column(ForeignKey("room_types.id"), nullable=True, index=True)
    kind: Mapped[str] = mapped_column(String(16))
    first_night: Mapped[date] = mapped_column(Date)
    last_night: Mapped[date] = mapped_column(Date)
    reported_at: Mapped[datetime] = mapped_column(DateTime)
    description: Mapped[str] = mapped_column(Text)


class Trip(Base):
    """One journey of a traveller: an itinerary whose segments are hotel bookings, possibly in several cities."""

    __tablename__ = "trips"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    name: Mapped[str] = mapped_column(String(120), info=AGENT_TEXT)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    traveller: Mapped[Traveller] = relationship()
    segments: Mapped[list[Booking]] = relationship(back_populates="trip", order_by="(Booking.check_in, Booking.id)")


class Booking(Base):
    __tablename__ = "bookings"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    traveller_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    room_type_id: Mapped[str] = mapped_column(ForeignKey("room_types.id"), index=True)
    group_id: Mapped[str | None] = mapped_column(ForeignKey("group_bookings.id"), nullable=True, index=True)
    hotel_reference: Mapped[str] = mapped_column(String(24))
    check_in: Mapped[date] = mapped_column(Date)
    check_out: Mapped[date] = mapped_column(Date)
    nights: Mapped[int] = mapped_column(Integer)
    nightly_rate_cents: Mapped[int] = mapped_column(Integer)
    total_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="confirmed")
    hotel_confirmation: Mapped[str] = mapped_column(String(16), default="confirmed")
    free_cancellation_until: Mapped[datetime] = mapped_column(DateTime)
    late_checkout: Mapped[bool] = mapped_column(Boolean, default=False)
    upgrade_allowance_used: Mapped[bool] = mapped_column(Boolean, default=False)
    booked_at: Mapped[datetime] = mapped_column(DateTime)
    cancelled_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    trip_id: Mapped[str | None] = mapped_column(ForeignKey("trips.id"), nullable=True, default=None, index=True)
    relocated_from_id: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)

    traveller: Mapped[Traveller] = relationship()
    hotel: Mapped[Hotel] = relationship()
    room_type: Mapped[RoomType] = relationship()
    group: Mapped[GroupBooking | None] = relationship(back_populates="rooms")
    trip: Mapped[Trip | None] = relationship(back_populates="segments")
    payments: Mapped[list[Payment]] = relationship(back_populates="booking", order_by="Payment.id")


class Payment(Base):
    """One line of a booking's payment ledger: a charge to the traveller's card or a refund to it."""

    __tablename__ = "payments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer)
    service_fee_cents: Mapped[int] = mapped_column(Integer, default=0)  # withheld from a refund
    card_last4: Mapped[str] = mapped_column(String(4))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    note: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)

    booking: Mapped[Booking] = relationship(back_populates="payments")


class PartnerEscalation(Base):
    """A case sent to a hotel's partner-relations contact about one booking."""

    __tablename__ = "partner_escalations"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    hotel_id: Mapped[str] = mapped_column(ForeignKey("hotels.id"), index=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer, default=0)
    sent_to: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="sent")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    description: Mapped[str] = mapped_column(Text, info=AGENT_TEXT)

    booking: Mapped[Booking] = relationship()


class ApprovalRequest(Base):
    """A request for the corporate account's travel manager to approve a change to a booking."""

    __tablename__ = "approval_requests"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("corporate_accounts.id"), index=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    requested_room_type_id: Mapped[str | None] = mapped_column(ForeignKey("room_types.id"), nullable=True, index=True)
    requested_rate_cents: Mapped[int] = mapped_column(Integer)
    approver_email: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    justification: Mapped[str] = mapped_column(Text, info=AGENT_TEXT)

    booking: Mapped[Booking] = relationship()


class Ticket(TicketColumns, Base):
    requester_id: Mapped[str] = mapped_column(ForeignKey("travellers.id"), index=True)
    booking_id: Mapped[str | None] = mapped_column(ForeignKey("bookings.id"), nullable=True, index=True)

    requester: Mapped[Traveller] = relationship()


class TicketComment(CommentColumns, Base):
    pass
