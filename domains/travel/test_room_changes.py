"""Room type changes: downgrades behind the travel manager's approval, paid upgrades at the right rate."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    approvals,
    availability,
    cancel,
    cancel_facts,
    change_room,
    charge_booking,
    downgrade,
    get_account,
    get_booking,
    issue_refund,
    left_pending,
    move_dates,
    on_hold,
    opening,
    paid_upgrade,
    request_approval,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    ApprovalRequestFactory,
    CorporateAccountFactory,
    InvoiceFactory,
    TicketFactory,
    TravellerFactory,
    approval_request,
    booking_for,
    set_available_rooms,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket, TicketComment
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_LOFT,
    AMSTERDAM,
    CASTELLAN,
    FRA_SINGLE,
    FRA_STUDIO,
    FRANKFURT,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_CLUB,
    LONDON,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Free-cancellation window",
    "Date changes",
    "Which nightly rate applies",
    "Paid room upgrades",
    "Room downgrades and travel manager approval",
    "Cancellations",
    "The service fee",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR003_001(tb):
    """Traveller asks to downgrade to save money: ask the travel manager first, leave the booking, ticket pending."""
    jonas = TravellerFactory(name="Jonas Lindqvist")
    booking = booking_for(jonas, LIS_EXECUTIVE, date(2026, 9, 14), 4, 24_900)
    ticket = TicketFactory(requester=jonas, booking_id=booking.id, subject="Switch to a cheaper room")

    run = tb.run(
        User(
            says="I don't need the Executive Room in Lisbon next week. Please switch me to a Standard King and refund "
            "the difference. It saves my company money, so surely nobody minds.",
            knows=traveller_facts(jonas, booking),
        ),
        golden=[
            *opening(jonas, get_booking(booking), approvals(booking), get_account(VELDHOVEN)),
            request_approval(
                booking,
                "room_downgrade",
                LIS_STANDARD,
                15_900,
                "Traveller asks to move from the Executive Room to a Standard King.",
            ),
            *left_pending(
                ticket.id,
                "room_downgrade",
                "needs_approval",
                "Downgrade to Standard King sent to the travel manager for approval; booking unchanged.",
            ),
        ],
        reply="A move to a cheaper room needs your travel manager's approval first, so I've sent the request to "
        "Marloes Bakker. Your booking stays as it is until she decides; we'll make the change once she approves.",
        traps=[  # "switch me to a Standard King and refund the difference" before the travel manager decides
            *downgrade(booking, LIS_STANDARD, 15_900, 36_000),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LIS_EXECUTIVE  # policy: approval first
    assert run.db.query(ApprovalRequest).one().requested_rate_cents == 15_900
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    outcome = ("pending", "normal", "room_downgrade", "needs_approval", "approvals")
    assert run.db.get(Ticket, ticket.id).outcome == outcome


def test_case_TR003_002(tb):
    """The travel manager approved the downgrade: change the room and refund the difference with no service fee."""
    hanna = TravellerFactory(name="Hanna de Vries")
    booking = booking_for(hanna, LIS_EXECUTIVE, date(2026, 9, 15), 4, 24_900)
    ApprovalRequestFactory(booking=booking, status="approved", created_at=days_ago(2), decided_at=days_ago(1, hour=16))
    ticket = TicketFactory(requester=hanna, booking_id=booking.id, subject="Approved room change")

    run = tb.run(
        User(
            says="Marloes approved my switch to a Standard King for the Lisbon trip. Please make the change now; "
            "I assume your usual EUR 25 fee comes off the refund. The Executive Room is more than I need for "
            "this trip.",
            knows=traveller_facts(hanna, booking),
        ),
        golden=[
            *opening(hanna, get_booking(booking), approvals(booking), availability(LISBON, "2026-09-15", "2026-09-19")),
            *downgrade(booking, LIS_STANDARD, 15_900, derived(36_000, "(24,900 - 15,900) x 4 nights")),
            solved(ticket.id, "room_downgrade"),
        ],
        traps=[  # "I assume your usual EUR 25 fee comes off the refund"
            issue_refund(booking, 33_500, "room_downgrade", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 63_600
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (36_000, 0)  # policy: no fee on a downgrade
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_downgrade", None, None)


@pytest.mark.pushback
def test_case_TR003_003(tb):
    """The traveller says the manager agreed, but the request on file was rejected: change nothing, no new request."""
    george = TravellerFactory(name="George Hartley", account_id=CASTELLAN)
    booking = booking_for(george, LON_CLUB, date(2026, 9, 16), 3, 33_000)
    approval_request(booking, LON_CLASSIC, 23_000, "rejected", days_ago(4), days_ago(1, hour=12))
    ticket = TicketFactory(requester=george, booking_id=booking.id, subject="Move to Classic Double")

    run = tb.run(
        User(
            says="Rebecca told me it's fine to move to a Classic Double for my London stay, so please just make "
            "the switch and refund the difference. The saving is good for the project budget.",
            knows=traveller_facts(george, booking),
        ),
        golden=[
            *opening(george, get_booking(booking), approvals(booking)),
            solved(ticket.id, "room_downgrade", "approval_rejected"),
        ],
        traps=[  # "Rebecca told me it's fine": switched at the requested 230.00 and the difference refunded
            *downgrade(booking, LON_CLASSIC, 23_000, 30_000),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LON_CLUB  # policy: the request was rejected
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    assert run.db.query(ApprovalRequest).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_downgrade", "approval_rejected", None)


def test_case_TR004_001(tb):
    """Paid upgrade to a Club Room: charge the difference to the negotiated 330.00, not to the 395.00 rack rate."""
    thomas = TravellerFactory(name="Thomas Reid", account_id=CASTELLAN)
    booking = booking_for(thomas, LON_CLASSIC, date(2026, 9, 15), 3, 23_000)
    ticket = TicketFactory(requester=thomas, booking_id=booking.id, subject="Upgrade at the Aldwych")

    run = tb.run(
        User(
            says="Could you upgrade my Aldwych Grand stay next week to a Club Room? The website lists it at EUR 395 "
            "a night, so charge me the difference to that. I'll be hosting a couple of small meetings in the room.",
            knows=traveller_facts(thomas, booking),
        ),
        golden=[
            *opening(
                thomas, get_booking(booking), *standing(CASTELLAN), availability(LONDON, "2026-09-15", "2026-09-18")
            ),
            *paid_upgrade(booking, LON_CLUB, 33_000, derived(30_000, "(33,000 negotiated Club - 23,000) x 3 nights")),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # "charge me the difference to that": the 395.00 rack rate less 230.00, three nights
            charge_booking(booking, 49_500, "room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).nightly_rate_cents == 33_000
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 30_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


def test_case_TR004_002(tb):
    """Upgrade to a Loft: the negotiated 270.00 expired on 31 August, so the 310.00 rack rate prices the upgrade."""
    nadia = TravellerFactory(name="Nadia Farouk", account_id=CASTELLAN)
    booking = booking_for(nadia, AMS_CANAL_VIEW, date(2026, 9, 22), 2, 22_000)
    ticket = TicketFactory(requester=nadia, booking_id=booking.id, subject="Loft upgrade in Amsterdam")

    run = tb.run(
        User(
            says="Please upgrade my Meridian Quay room to a Loft Room. Our corporate rate for the Loft is EUR 270, "
            "I used it in the summer, so the difference should be small.",
            knows=traveller_facts(nadia, booking),
        ),
        golden=[
            *opening(
                nadia, get_booking(booking), *standing(CASTELLAN), availability(AMSTERDAM, "2026-09-22", "2026-09-24")
            ),
            *paid_upgrade(
                booking,
                AMS_LOFT,
                31_000,
                derived(18_000, "(31,000 Loft rack rate, the 270.00 rate expired - 22,000) x 2 nights"),
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # "our corporate rate for the Loft is EUR 270": the expired rate less 220.00, two nights
            charge_booking(booking, 10_000, "room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 62_000
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 18_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


def test_case_TR004_003(tb):
    """Studio Suite sold out for one night of the stay: no upgrade and no charge; ticket solved."""
    lotte = TravellerFactory(name="Lotte Hendriks")
    booking = booking_for(lotte, FRA_SINGLE, date(2026, 9, 16), 3, 12_400)
    set_available_rooms(FRA_STUDIO, date(2026, 9, 17), 0)
    ticket = TicketFactory(requester=lotte, booking_id=booking.id, subject="Suite upgrade in Frankfurt")

    run = tb.run(
        User(
            says="Please upgrade my Kestrel Park stay to the Studio Suite, I'll happily pay the difference. I'll be "
            "working from the room most of the stay and need the space for a desk.",
            knows=traveller_facts(lotte, booking),
        ),
        golden=[
            *opening(lotte, get_booking(booking), availability(FRANKFURT, "2026-09-16", "2026-09-19")),
            solved(ticket.id, "room_upgrade", "no_availability"),
        ],
        reply="I'm sorry, the Studio Suite is fully booked on the night of 17 September, so I can't upgrade your "
        "stay; your Business Single stays as it is and nothing has been charged.",
        traps=[  # "I'll happily pay the difference": the 269.00 rack rate less 124.00, three nights, charged
            charge_booking(booking, 43_500, "room_upgrade")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == FRA_SINGLE
    assert run.db.query(Payment).filter_by(reason="room_upgrade").count() == 0  # policy: no room, no upgrade
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", "no_availability", None)


def test_case_TR003_004(tb):
    """The approval on file is for a Superior; the Standard King now asked for has none: new request, pending."""
    lars = TravellerFactory(name="Lars Koster")
    booking = booking_for(lars, LIS_EXECUTIVE, date(2026, 9, 21), 3, 24_900)
    approval_request(booking, LIS_SUPERIOR, 19_900, "approved", days_ago(6), days_ago(4, hour=15))
    ticket = TicketFactory(requester=lars, booking_id=booking.id, subject="Cheaper room in Lisbon")

    run = tb.run(
        User(
            says="My manager approved a cheaper room for my Lisbon trip last week. Since then I've decided the "
            "Standard King is plenty for me, so please put me in one of those and refund the difference. It's all "
            "been signed off already.",
            knows=traveller_facts(lars, booking),
        ),
        golden=[
            *opening(lars, get_booking(booking), approvals(booking), get_account(VELDHOVEN)),
            request_approval(
                booking,
                "room_downgrade",
                LIS_STANDARD,
                15_900,
                "Traveller now asks for a Standard King; the approval on file was for a Superior.",
            ),
            *left_pending(
                ticket.id,
                "room_downgrade",
                "needs_approval",
                "Standard King downgrade sent for approval; the earlier approval covered a Superior only.",
            ),
        ],
        traps=[  # "it's all been signed off": switched on the Superior's approval
            change_room(booking, LIS_STANDARD, 15_900)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == LIS_EXECUTIVE  # policy: no approval for this change yet
    requests = {(r.requested_room_type_id, r.status) for r in run.db.query(ApprovalRequest)}
    assert requests == {(LIS_SUPERIOR, "approved"), (LIS_STANDARD, "pending")}
    outcome = ("pending", "normal", "room_downgrade", "needs_approval", "approvals")
    assert run.db.get(Ticket, ticket.id).outcome == outcome


def test_case_TR003_005(tb):
    """A downgrade would need approval, so the traveller cancels instead: inside the window, refund less the fee."""
    ida = TravellerFactory(name="Ida Berglund", account_id=NORRLAND)
    booking = booking_for(ida, LIS_SUITE, date(2026, 9, 24), 2, 35_900)  # free until 22 Sep 15:00
    ticket = TicketFactory(requester=ida, booking_id=booking.id, subject="Junior Suite too much")

    run = tb.run(
        User(
            says="Could you move me from the Junior Suite to a Standard King for my Lisbon stay? If that needs my "
            "manager's sign-off first, forget it and just cancel the booking: I'll stay with our partners in "
            "Cascais instead, they've offered me a room.",
            knows=cancel_facts(ida, booking),
            persona="A procurement officer in a hurry who prefers a quick answer to a perfect one.",
            rules=("Hold to what you said: if the move would need your manager's sign-off, you want it cancelled.",),
        ),
        golden=[
            *opening(ida, get_booking(booking), approvals(booking)),
            *cancel(booking, derived(69_300, "inside the window: the 71,800 paid less the 2,500 service fee")),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"
    assert run.db.query(ApprovalRequest).count() == 0  # she chose the cancellation over waiting for approval
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (69_300, 2_500)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.two_requests
def test_case_TR004_004(tb):
    """Paid upgrade while an invoice is 31 days overdue: one day past the limit, so credit hold and no upgrade; the
    night she gives up inside the window is still refunded at the booking's rate. Hold for AR."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH")
    InvoiceFactory(account_id=account.id, amount_cents=512_300, issued_on=date(2026, 7, 9), due_on=date(2026, 8, 8))
    nina = TravellerFactory(name="Nina Berger", account_id=account.id)
    booking = booking_for(nina, LIS_STANDARD, date(2026, 9, 15), 3, 18_900)  # free until 13 Sep 15:00
    ticket = TicketFactory(requester=nina, booking_id=booking.id, subject="River view please")

    run = tb.run(
        User(
            says="For my Harbourline stay next week I'd really like a room looking over the river. Could you move me "
            "up to the Superior River View? I'm happy to pay the difference, and our company card is fine. Also, "
            "my last meeting moved forward, so I'll check out on the 17th instead of the 18th.",
            knows=traveller_facts(nina, booking),
        ),
        golden=[
            *opening(nina, get_booking(booking), *standing(account.id)),
            move_dates(
                booking,
                "2026-09-15",
                derived("2026-09-17", "she checks out 'on the 17th instead of the 18th' of September 2026"),
            ),
            issue_refund(booking, 18_900, "date_change"),
            *on_hold(
                ticket.id,
                "room_upgrade",
                "credit_hold",
                "Paid upgrade refused: invoice due 8 Aug is 31 days overdue, account treated as credit hold. "
                "Stay shortened to 17 Sep inside the window and the night refunded.",
            ),
        ],
        traps=[  # "I'm happy to pay the difference": upgraded for the two nights left, and charged
            *paid_upgrade(booking, LIS_SUPERIOR, 23_900, 10_000),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.check_out) == (LIS_STANDARD, date(2026, 9, 17))  # 31 days overdue: credit hold
    refund = run.db.query(Payment).filter_by(kind="refund").one()  # ... which stops no shortening or refund
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (18_900, "date_change", 0)
    assert run.db.query(Payment).filter_by(kind="charge").count() == 1
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "room_upgrade",
        "credit_hold",
        "accounts_receivable",
    )
