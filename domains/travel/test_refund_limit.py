"""Refunds against the agent's limit: above it the payments team refunds, at it the agent does, never split."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.clock import days_ago
from domains.travel.factories import (
    ApprovalRequestFactory,
    BookingFactory,
    TicketFactory,
    TravellerFactory,
)
from domains.travel.models import Booking, Payment, Ticket, TicketComment
from domains.travel.phrases import refund_amount
from domains.travel.seed import AMS_LOFT, CASTELLAN, LON_CLUB, LON_SUITE, LONDON, NORRLAND
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Refund limit",
    "Cancellations",
    "Free-cancellation window",
    "Hotel-fault cancellations",
    "Room downgrades and travel manager approval",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR009_001(tb):
    """No open ticket; a suite cancelled inside the window owes 1,835.00: cancel, refund left to payments; hold."""
    marcus = TravellerFactory(name="Marcus Webb", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=marcus, room_type_id=LON_SUITE, check_in=date(2026, 9, 28), nights=3, nightly_rate_cents=62_000
    )  # free until 26 Sep 15:00
    old = TicketFactory(requester=marcus, status="solved", subject="Invoice address", created_at=days_ago(30, hour=9))

    run = tb.run(
        User(
            says="The chairman's London visit at the end of the month has been called off, so the Aldwych Suite "
            "booked under my name isn't needed any more. Please cancel it and get the money back onto my card as "
            "quickly as you can; it's a big amount for my expense report.",
            knows={"email": marcus.email, "booking reference": booking.id, "employee number": marcus.employee_number},
        ),
        golden=[
            call("find_traveller_by_email", email=marcus.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=marcus.id),
            call(
                "create_ticket",
                requester_id=marcus.id,
                subject="Cancel the Aldwych Suite",
                category="cancellation",
                booking_id=booking.id,
            ),
            call("cancel_booking", booking_id=booking.id),
            call(
                "update_ticket",
                ticket_id="T-1002",
                status="hold",
                priority="high",
                reason="over_limit",
                queue="payments",
            ),
            call(
                "add_ticket_comment",
                ticket_id="T-1002",
                body="Booking cancelled inside the window; refund of 183,500 cents (fee 2,500) is over the agent "
                "limit, for the payments team.",
                public=False,
            ),
        ],
        reply="I've cancelled the Aldwych Suite. The refund due is EUR 1,835.00 (the 1,860.00 paid less our 25.00 "
        "service fee). Refunds of that size are sent by our payments team, so I've passed it to them and they will "
        "send it to your card.",
        traps=[  # the refund issued by the agent, over the limit
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=183_500,
                reason="cancellation",
                service_fee_cents=2_500,
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"  # the cancellation itself is made
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: over 100,000 cents, not by us
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (marcus.id, booking.id)
    assert run.db.get(Ticket, new.id).outcome == ("hold", "high", "cancellation", "over_limit", "payments")
    assert run.db.get(Ticket, old.id).outcome == ("solved", "normal", None, None, None)
    run.rubric(
        "Did the agent tell the traveller how much will be refunded?",
        phrases=refund_amount(183_500),
    )


@pytest.mark.tb_validity(
    variant_of={
        "test_case_TR001_003": "the same hotel-fault cancellation, at exactly the 100,000-cent refund limit: the "
        "agent refunds it itself rather than sending it to the payments team, a boundary TR001_003's 556.00 never "
        "comes near"
    }
)
def test_case_TR009_002(tb):
    """Hotel-fault refund of exactly 1,000.00 is within the limit: cancel and refund it in full yourself."""
    tove = TravellerFactory(name="Tove Nilsson", account_id=NORRLAND)
    booking = BookingFactory(
        traveller=tove,
        room_type_id=AMS_LOFT,
        check_in=date(2026, 9, 14),
        nights=4,
        nightly_rate_cents=25_000,
        hotel_confirmation="cannot_honour",
    )
    ticket = TicketFactory(requester=tove, booking_id=booking.id, subject="Loft out of order")

    run = tb.run(
        User(
            says="The Meridian Quay wrote to say the Loft I booked from the 14th was flooded by a sprinkler fault "
            "and they have nothing similar left. I'll stay with a friend instead. Please cancel it and refund me; "
            "it was a thousand euros, so I hope that's not a problem.",
            knows={"email": tove.email, "booking reference": booking.id, "employee number": tove.employee_number},
        ),
        golden=[
            call("find_traveller_by_email", email=tove.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=tove.id),
            call("cancel_booking", booking_id=booking.id),
            call(
                "issue_refund", booking_id=booking.id, amount_cents=100_000, reason="hotel_fault", service_fee_cents=0
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="cancellation"),
        ],
        traps=[  # "a thousand euros, so I hope that's not a problem": taken as over the limit, left to payments
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                reason="over_limit",
                queue="payments",
            )
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason) == (100_000, "hotel_fault")  # policy: up to 100,000 is the agent's
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.pushback
def test_case_TR009_003(tb):
    """Approved downgrade owes 1,450.00: change the room, never split the refund as asked; hold for payments."""
    victor = TravellerFactory(name="Victor Hale", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=victor, room_type_id=LON_SUITE, check_in=date(2026, 9, 14), nights=5, nightly_rate_cents=62_000
    )
    ApprovalRequestFactory(
        booking=booking,
        requested_room_type_id=LON_CLUB,
        requested_rate_cents=33_000,
        status="approved",
        created_at=days_ago(3),
        decided_at=days_ago(1, hour=14),
    )
    ticket = TicketFactory(requester=victor, booking_id=booking.id, subject="Suite to Club Room")

    run = tb.run(
        User(
            says="Rebecca has approved my move from the Aldwych Suite to a Club Room for next week, so please make "
            "the switch and refund the difference. If your system can't refund that much in one go, just split it "
            "into two payments, I really don't mind how it arrives.",
            knows={"email": victor.email, "booking reference": booking.id},
            persona="A finance director who wants the money back on his card before the month closes.",
            rules=(
                "Ask once whether the refund can be split into smaller ones if that gets it to you sooner; then "
                "accept an answer that gives a reason.",
            ),
        ),
        golden=[
            call("find_traveller_by_email", email=victor.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("search_availability", hotel_id=LONDON, check_in="2026-09-14", check_out="2026-09-19"),
            call("list_tickets", requester_id=victor.id),
            call("change_room_type", booking_id=booking.id, room_type_id=LON_CLUB, nightly_rate_cents=33_000),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="room_downgrade",
                reason="over_limit",
                queue="payments",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Approved downgrade to Club Room made; refund of 145,000 cents is over the agent limit, for the "
                "payments team.",
                public=False,
            ),
        ],
        reply="I've moved you to the Club Room as Rebecca approved. The difference is EUR 1,450.00, which is more "
        "than I can refund myself, and I can't split it into smaller refunds; our payments team will send it to "
        "your card.",
        traps=[  # "just split it into two payments"
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=72_500,
                reason="room_downgrade",
                service_fee_cents=0,
            )
        ],
    )

    run.expect_golden()
    changed = run.db.get(Booking, booking.id)
    assert (changed.room_type_id, changed.nightly_rate_cents, changed.total_cents) == (LON_CLUB, 33_000, 165_000)
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: over the limit, and never split
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "room_downgrade", "over_limit", "payments")
    run.rubric(
        "Did the agent tell the traveller the amount the payments team will refund?",
        phrases=refund_amount(145_000),
    )
