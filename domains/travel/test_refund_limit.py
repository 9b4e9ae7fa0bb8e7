"""Refunds against the agent's limit: above it the payments team refunds, at it the agent does, never split."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    approvals,
    availability,
    cancel_booking,
    cancel_facts,
    cancel_for_hotel,
    change_room,
    get_booking,
    hold_update,
    issue_refund,
    new_ticket,
    on_hold,
    opening,
    solved,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    TicketFactory,
    TravellerFactory,
    approval_request,
    booking_for,
    earlier_ticket,
)
from domains.travel.models import Booking, Payment, Ticket, TicketComment
from domains.travel.phrases import refund_amount
from domains.travel.seed import AMS_LOFT, CASTELLAN, LON_CLUB, LON_SUITE, LONDON, NORRLAND
from pytest_thinkingbox import User

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
    booking = booking_for(marcus, LON_SUITE, date(2026, 9, 28), 3, 62_000)  # free until 26 Sep 15:00
    old = earlier_ticket(marcus, "Invoice address", "solved", days_ago(30, hour=9))

    run = tb.run(
        User(
            says="The chairman's London visit at the end of the month has been called off, so the Aldwych Suite "
            "booked under my name isn't needed any more. Please cancel it and get the money back onto my card as "
            "quickly as you can; it's a big amount for my expense report.",
            knows=cancel_facts(marcus, booking),
        ),
        golden=[
            *opening(marcus, get_booking(booking)),
            new_ticket(marcus, "Cancel the Aldwych Suite", "cancellation", booking),
            cancel_booking(booking),
            *on_hold(
                "T-1002",
                None,
                "over_limit",
                "Booking cancelled inside the window; refund of 183,500 cents (fee 2,500) is over the agent "
                "limit, for the payments team.",
            ),
        ],
        reply="I've cancelled the Aldwych Suite. The refund due is EUR 1,835.00 (the 1,860.00 paid less our 25.00 "
        "service fee). Refunds of that size are sent by our payments team, so I've passed it to them and they will "
        "send it to your card.",
        traps=[  # the refund issued by the agent, over the limit
            issue_refund(booking, 183_500, "cancellation", service_fee_cents=2_500)
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
    booking = booking_for(tove, AMS_LOFT, date(2026, 9, 14), 4, 25_000, hotel_confirmation="cannot_honour")
    ticket = TicketFactory(requester=tove, booking_id=booking.id, subject="Loft out of order")

    run = tb.run(
        User(
            says="The Meridian Quay wrote to say the Loft I booked from the 14th was flooded by a sprinkler fault "
            "and they have nothing similar left. I'll stay with a friend instead. Please cancel it and refund me; "
            "it was a thousand euros, so I hope that's not a problem.",
            knows=cancel_facts(tove, booking),
        ),
        golden=[
            *opening(tove, get_booking(booking)),
            *cancel_for_hotel(booking, 100_000),
            solved(ticket.id, "cancellation"),
        ],
        traps=[  # "a thousand euros, so I hope that's not a problem": taken as over the limit, left to payments
            hold_update(ticket.id, "over_limit")
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
    booking = booking_for(victor, LON_SUITE, date(2026, 9, 14), 5, 62_000)
    approval_request(booking, LON_CLUB, 33_000, "approved", days_ago(3), days_ago(1, hour=14))
    ticket = TicketFactory(requester=victor, booking_id=booking.id, subject="Suite to Club Room")

    run = tb.run(
        User(
            says="Rebecca has approved my move from the Aldwych Suite to a Club Room for next week, so please make "
            "the switch and refund the difference. If your system can't refund that much in one go, just split it "
            "into two payments, I really don't mind how it arrives.",
            knows=traveller_facts(victor, booking),
            persona="A finance director who wants the money back on his card before the month closes.",
            rules=(
                "Ask once whether the refund can be split into smaller ones if that gets it to you sooner; then "
                "accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(
                victor, get_booking(booking), approvals(booking), availability(LONDON, "2026-09-14", "2026-09-19")
            ),
            change_room(booking, LON_CLUB, 33_000),
            *on_hold(
                ticket.id,
                "room_downgrade",
                "over_limit",
                "Approved downgrade to Club Room made; refund of 145,000 cents is over the agent limit, for the "
                "payments team.",
            ),
        ],
        reply="I've moved you to the Club Room as Rebecca approved. The difference is EUR 1,450.00, which is more "
        "than I can refund myself, and I can't split it into smaller refunds; our payments team will send it to "
        "your card.",
        traps=[  # "just split it into two payments"
            issue_refund(booking, 72_500, "room_downgrade")
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
