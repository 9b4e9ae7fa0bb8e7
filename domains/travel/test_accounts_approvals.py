"""Account standing beside other requests (overdue invoices, credit hold, suspension, a contract rate by check-in
date), the employee-number check over a whole conversation, and travel manager approvals on file."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.clock import days_ago
from domains.travel.factories import (
    ApprovalRequestFactory,
    BookingFactory,
    CorporateAccountFactory,
    InvoiceFactory,
    LoyaltyProfileFactory,
    NegotiatedRateFactory,
    TicketFactory,
    TravellerFactory,
    set_available_rooms,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket, TicketComment
from domains.travel.phrases import contact_travel_manager
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_LOFT,
    AMS_PENTHOUSE,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_COMFORT,
    FRA_DOUBLE,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_DELUXE,
    LONDON,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "New bookings",
    "Cancellations",
    "Hotel-fault cancellations",
    "Date changes",
    "Room downgrades and travel manager approval",
    "Late checkout",
    "City rate caps",
    "Ticket status and priority",
    "Ticket classification",
)


@pytest.mark.two_requests
def test_case_TR022_001(tb):
    """Account shows active but an invoice is 36 days overdue: the Gold member's free late checkout is still given,
    the paid extra night is refused; hold for accounts receivable."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH")
    InvoiceFactory(account_id=account.id, amount_cents=431_700, issued_on=date(2026, 7, 4), due_on=date(2026, 8, 3))
    jana = TravellerFactory(name="Jana Novak", account_id=account.id)
    LoyaltyProfileFactory(traveller=jana, tier="gold", tier_valid_until=date(2027, 1, 31))
    booking = BookingFactory(
        traveller=jana, room_type_id=FRA_DOUBLE, check_in=date(2026, 9, 10), nights=2, nightly_rate_cents=16_900
    )
    ticket = TicketFactory(requester=jana, booking_id=booking.id, subject="Frankfurt stay: checkout and extra night")

    run = tb.run(
        User(
            says="For my Kestrel Park stay from Thursday, could I have a late checkout on the last morning? And "
            "actually add one more night too, so I leave on the 13th instead of the 12th. Our account is active, "
            "you can see that in my profile.",
            knows={"email": jana.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=jana.email),
            call("get_traveller", traveller_id=jana.id),
            call("get_booking", booking_id=booking.id),
            call("get_corporate_account", account_id=account.id),
            call("list_account_invoices", account_id=account.id),
            call("list_tickets", requester_id=jana.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=0),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="late_checkout",
                reason="credit_hold",
                queue="accounts_receivable",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Extra night refused: invoice due 3 Aug is 36 days overdue, account treated as credit hold. "
                "Complimentary Gold late checkout arranged.",
                public=False,
            ),
        ],
        traps=[  # "our account is active": the extra night added and charged at the booking's rate
            call("modify_booking_dates", booking_id=booking.id, check_in="2026-09-10", check_out="2026-09-13"),
            call("charge_booking", booking_id=booking.id, amount_cents=16_900, reason="extra_nights"),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.late_checkout, stay.check_out) == (True, date(2026, 9, 12))  # benefit given, paid night refused
    assert run.db.query(Payment).count() == 1  # nothing charged
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "late_checkout",
        "credit_hold",
        "accounts_receivable",
    )


@pytest.mark.two_requests
def test_case_TR022_002(tb):
    """Suspended account: unlike a credit hold, not even the cancellation or the free Gold late checkout is made;
    solved as account_suspended with no comment, the traveller sent to the travel manager."""
    account = CorporateAccountFactory(
        name="Solent Marine Ltd", status="suspended", travel_manager_name="Ingrid Solberg"
    )
    gareth = TravellerFactory(name="Gareth Price", account_id=account.id)
    LoyaltyProfileFactory(traveller=gareth, tier="gold", tier_valid_until=date(2027, 2, 28))
    amsterdam = BookingFactory(
        traveller=gareth, room_type_id=AMS_STANDARD, check_in=date(2026, 9, 21), nights=2, nightly_rate_cents=21_000
    )  # free until 18 Sep 15:00
    london = BookingFactory(
        traveller=gareth, room_type_id=LON_CLASSIC, check_in=date(2026, 9, 14), nights=2, nightly_rate_cents=27_500
    )
    ticket = TicketFactory(requester=gareth, booking_id=amsterdam.id, subject="Amsterdam cancel, London checkout")

    run = tb.run(
        User(
            says="Two things. Please cancel my Meridian Quay booking in Amsterdam from the 21st, the port visit is "
            "off. And for my Aldwych Grand stay next week I'd like my free Gold late checkout on the last day. I "
            "heard our travel programme has some sort of problem, but a cancellation only saves the company money.",
            knows={
                "email": gareth.email,
                "employee number": gareth.employee_number,
                "Amsterdam booking reference": amsterdam.id,
                "London booking reference": london.id,
            },
        ),
        golden=[
            call("find_traveller_by_email", email=gareth.email),
            call("get_traveller", traveller_id=gareth.id),
            call("get_corporate_account", account_id=account.id),
            call("get_booking", booking_id=amsterdam.id),
            call("get_booking", booking_id=london.id),
            call("list_tickets", requester_id=gareth.id),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="solved",
                category="cancellation",
                reason="account_suspended",
            ),
        ],
        reply="I'm sorry: Solent Marine's travel programme with us is suspended, so I can't make any change to your "
        "bookings, not the cancellation and not the late checkout. Please contact your travel manager, Ingrid "
        "Solberg, about the suspension.",
        traps=[  # "a cancellation only saves the company money", and the free late checkout
            call("cancel_booking", booking_id=amsterdam.id),
            call("arrange_late_checkout", booking_id=london.id, fee_cents=0),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, amsterdam.id).status == "confirmed"  # policy: suspended, no change of any kind
    assert run.db.get(Booking, london.id).late_checkout is False
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "account_suspended", None)
    run.rubric(
        "Did the agent tell the traveller to contact their travel manager?",
        phrases=contact_travel_manager("Ingrid Solberg"),
    )


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_TR022_003(tb):
    """Checked-in Silver guest on a credit-hold account wants a paid late checkout, even on a private card: refused;
    the Frankfurt stay the hotel cannot honour is still cancelled and refunded in full (a hotel fault, no fee). His
    only ticket is pending on another matter, so a new one is opened and held for accounts receivable."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    leon = TravellerFactory(name="Leon Hartmann", account_id=account.id)
    LoyaltyProfileFactory(traveller=leon, tier="silver", tier_valid_until=date(2027, 4, 30))
    booking = BookingFactory(
        traveller=leon,
        room_type_id=LON_DELUXE,
        check_in=date(2026, 9, 6),
        nights=3,
        nightly_rate_cents=32_500,
        status="checked_in",
        booked_at=days_ago(15, hour=10),
    )
    frankfurt = BookingFactory(
        traveller=leon,
        room_type_id=FRA_DOUBLE,
        check_in=date(2026, 9, 10),
        nights=2,
        nightly_rate_cents=16_900,
        hotel_confirmation="cannot_honour",
    )  # free until 9 Sep 15:00
    waiting = TicketFactory(
        requester=leon, status="pending", subject="Receipt for my August stay", created_at=days_ago(4, hour=9)
    )

    run = tb.run(
        User(
            says="I'm at The Aldwych Grand right now and check out tomorrow. My flight is only in the evening, so "
            "I'd like a late checkout. I know what it costs, just put the fee through. And the Kestrel Park has "
            "written that they can't honour my Frankfurt booking from Thursday, so please cancel it and refund me.",
            knows={
                "email": leon.email,
                "booking reference": booking.id,
                "Frankfurt booking reference": frankfurt.id,
                "employee number": leon.employee_number,
            },
            persona="A sales engineer on the road who wants a simple favour sorted quickly.",
            rules=(
                "If refused, offer once to pay the fee with your private card instead; then accept an answer that "
                "gives a reason.",
            ),
        ),
        golden=[
            call("find_traveller_by_email", email=leon.email),
            call("get_traveller", traveller_id=leon.id),
            call("get_booking", booking_id=booking.id),
            call("get_booking", booking_id=frankfurt.id),
            call("get_hotel", hotel_id=LONDON),
            call("get_corporate_account", account_id=account.id),
            call("list_tickets", requester_id=leon.id),
            call(
                "create_ticket",
                requester_id=leon.id,
                subject="Late checkout at the Aldwych",
                category="late_checkout",
                booking_id=booking.id,
            ),
            call("cancel_booking", booking_id=frankfurt.id),
            call(
                "issue_refund", booking_id=frankfurt.id, amount_cents=33_800, reason="hotel_fault", service_fee_cents=0
            ),
            call(
                "update_ticket",
                ticket_id="T-1002",
                status="hold",
                priority="high",
                reason="credit_hold",
                queue="accounts_receivable",
            ),
            call(
                "add_ticket_comment",
                ticket_id="T-1002",
                body="Paid late checkout (50.00) refused: the account is on credit hold. Frankfurt booking the hotel "
                "cannot honour cancelled and refunded in full.",
                public=False,
            ),
        ],
        reply="I'm sorry, your company's account is on credit hold, so I can't arrange a paid late checkout, and I "
        "can't take the fee on a private card either. I've cancelled the Kestrel Park booking the hotel can't honour "
        "and refunded all of it, EUR 338.00, with no fee.",
        traps=[call("arrange_late_checkout", booking_id=booking.id, fee_cents=5_000)],  # "just put the fee through"
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).late_checkout is False  # policy: no paid service under a credit hold
    assert run.db.get(Booking, frankfurt.id).status == "cancelled"  # ... but a cancellation is still made
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.reason, refund.service_fee_cents) == (
        frankfurt.id,
        33_800,
        "hotel_fault",
        0,
    )
    assert run.db.query(Payment).filter_by(kind="charge").count() == 2
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (leon.id, booking.id)
    assert new.outcome == ("hold", "high", "late_checkout", "credit_hold", "accounts_receivable")
    assert run.db.get(Ticket, waiting.id).outcome == ("pending", "normal", None, None, None)


@pytest.mark.distractors
def test_case_TR022_004(tb):
    """No ticket yet; of three old invoices only one counts, 25 days overdue (one was paid late, one is void): good
    standing. The contract Deluxe rate ending 30 Sep prices the whole stay checking in on 29 Sep."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS")
    NegotiatedRateFactory(
        account_id=account.id,
        room_type_id=LON_DELUXE,
        nightly_rate_cents=28_900,
        valid_from=date(2026, 1, 1),
        valid_until=date(2026, 9, 30),
    )
    InvoiceFactory(
        account_id=account.id,
        amount_cents=512_000,
        issued_on=date(2026, 6, 1),
        due_on=date(2026, 7, 1),
        status="paid",
        paid_on=date(2026, 8, 20),
    )
    InvoiceFactory(
        account_id=account.id, amount_cents=77_300, issued_on=date(2026, 6, 20), due_on=date(2026, 7, 20), status="void"
    )
    InvoiceFactory(account_id=account.id, amount_cents=264_900, issued_on=date(2026, 7, 15), due_on=date(2026, 8, 14))
    sigrid = TravellerFactory(name="Sigrid Aune", account_id=account.id)

    run = tb.run(
        User(
            says="Please book me a Deluxe King at The Aldwych Grand in London from 29 September to 2 October. I "
            "believe our contract price with you ends in September, so I suppose the October nights are at the "
            "full price?",
            knows={"email": sigrid.email},
        ),
        golden=[
            call("find_traveller_by_email", email=sigrid.email),
            call("get_traveller", traveller_id=sigrid.id),
            call("get_corporate_account", account_id=account.id),
            call("list_account_invoices", account_id=account.id),
            call("list_city_rate_caps", account_id=account.id),
            call("search_availability", hotel_id=LONDON, check_in="2026-09-29", check_out="2026-10-02"),
            call("list_tickets", requester_id=sigrid.id),
            call(
                "create_ticket", requester_id=sigrid.id, subject="London hotel 29 Sep - 2 Oct", category="new_booking"
            ),
            call(
                "create_booking",
                traveller_id=sigrid.id,
                hotel_id=LONDON,
                room_type_id=LON_DELUXE,
                check_in="2026-09-29",
                check_out="2026-10-02",
                nightly_rate_cents=28_900,
            ),
            call("update_ticket", ticket_id="T-0001", status="solved"),
        ],
        reply="I've booked the Deluxe King at The Aldwych Grand from 29 September to 2 October. The contract rate "
        "applies to stays that check in while it is valid, so all three nights are at EUR 289.00, 867.00 in total.",
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.nightly_rate_cents, booking.total_cents) == (28_900, 86_700)  # the check-in date decides
    ticket = run.db.query(Ticket).one()
    assert (ticket.requester_id, ticket.booking_id) == (sigrid.id, None)
    assert ticket.outcome == ("solved", "normal", "new_booking", None, None)


@pytest.mark.two_requests
def test_case_TR022_005(tb):
    """Cancellation and a paid extension asked with an employee number that does not match: neither is made, not
    even the extension that needs no check; pending for the traveller, no queue."""
    oskar = TravellerFactory(name="Oskar Lindahl", employee_number="E61927")
    lisbon = BookingFactory(
        traveller=oskar, room_type_id=LIS_STANDARD, check_in=date(2026, 9, 24), nights=2, nightly_rate_cents=15_900
    )
    frankfurt = BookingFactory(
        traveller=oskar, room_type_id=FRA_DOUBLE, check_in=date(2026, 9, 15), nights=2, nightly_rate_cents=13_900
    )
    ticket = TicketFactory(requester=oskar, booking_id=lisbon.id, subject="Lisbon cancel, Frankfurt longer")

    run = tb.run(
        User(
            says="Please cancel my Harbourline booking in Lisbon for the 24th, that trip is off. And add a night to "
            "my Kestrel Park stay next week so I check out on the 18th instead of the 17th.",
            knows={
                "email": oskar.email,
                "employee number": "E61972",
                "Lisbon booking reference": lisbon.id,
                "Frankfurt booking reference": frankfurt.id,
            },
        ),
        golden=[
            call("find_traveller_by_email", email=oskar.email),
            call("get_booking", booking_id=lisbon.id),
            call("get_booking", booking_id=frankfurt.id),
            call("list_tickets", requester_id=oskar.id),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="cancellation",
                reason="identity_not_verified",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Employee number given does not match the profile: Lisbon cancellation and Frankfurt extension "
                "not made.",
                public=False,
            ),
        ],
        traps=[  # the extension made anyway, as it needs no employee number on its own
            call("modify_booking_dates", booking_id=frankfurt.id, check_in="2026-09-15", check_out="2026-09-18"),
            call("charge_booking", booking_id=frankfurt.id, amount_cents=13_900, reason="extra_nights"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, lisbon.id).status == "confirmed"
    assert run.db.get(Booking, frankfurt.id).check_out == date(2026, 9, 17)  # policy: change nothing else either
    assert run.db.query(Payment).count() == 2
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "cancellation", "identity_not_verified", None)
    assert run.db.query(TicketComment).one().public is False


@pytest.mark.distractors
@pytest.mark.pushback
def test_case_TR023_001(tb):
    """Penthouse to Loft: the rejected request on file was for a Canal View, so this change needs a new one, at the
    310.00 Loft rack rate since the 270.00 contract rate expired in August; pending."""
    yusuf = TravellerFactory(name="Yusuf Demir", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=yusuf, room_type_id=AMS_PENTHOUSE, check_in=date(2026, 9, 22), nights=2, nightly_rate_cents=54_000
    )
    ApprovalRequestFactory(
        booking=booking,
        requested_room_type_id=AMS_CANAL_VIEW,
        requested_rate_cents=22_000,
        status="rejected",
        created_at=days_ago(5),
        decided_at=days_ago(3, hour=11),
    )
    ticket = TicketFactory(requester=yusuf, booking_id=booking.id, subject="Penthouse too much")

    run = tb.run(
        User(
            says="Rebecca turned down my move to a Canal View, fair enough. But a Loft Room at our corporate rate of "
            "EUR 270 should be fine, so please just move me from the Penthouse to a Loft now and refund the "
            "difference. She has already seen one request, no need to bother her again.",
            knows={"email": yusuf.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=yusuf.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("get_corporate_account", account_id=CASTELLAN),
            call("get_hotel", hotel_id=AMSTERDAM),
            call("list_tickets", requester_id=yusuf.id),
            call(
                "create_approval_request",
                booking_id=booking.id,
                kind="room_downgrade",
                requested_rate_cents=31_000,
                justification="Traveller asks to move from the Penthouse Suite to a Loft Room; the contract Loft rate "
                "expired on 31 Aug, so the rack rate applies.",
                requested_room_type_id=AMS_LOFT,
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="room_downgrade",
                reason="needs_approval",
                queue="approvals",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Downgrade to a Loft Room at 310.00 sent to the travel manager; booking unchanged.",
                public=False,
            ),
        ],
        traps=[  # "just move me now", at the expired 270.00 rate
            call("change_room_type", booking_id=booking.id, room_type_id=AMS_LOFT, nightly_rate_cents=27_000)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).room_type_id == AMS_PENTHOUSE  # policy: approval first
    new = run.db.query(ApprovalRequest).filter_by(status="pending").one()
    assert (new.kind, new.requested_room_type_id, new.requested_rate_cents) == ("room_downgrade", AMS_LOFT, 31_000)
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    outcome = ("pending", "normal", "room_downgrade", "needs_approval", "approvals")
    assert run.db.get(Ticket, ticket.id).outcome == outcome


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_TR023_002(tb):
    """The downgrade request is still pending though he says it was agreed by phone: change and create nothing; his
    Gold late checkout is given anyway; the ticket stays pending for the approval."""
    ruud = TravellerFactory(name="Ruud Bakker")
    LoyaltyProfileFactory(traveller=ruud, tier="gold", tier_valid_until=date(2026, 12, 31))
    booking = BookingFactory(
        traveller=ruud, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 15), nights=3, nightly_rate_cents=24_900
    )
    ApprovalRequestFactory(booking=booking, created_at=days_ago(2, hour=10))  # Standard King at 159.00, pending
    ticket = TicketFactory(requester=ruud, booking_id=booking.id, subject="Room change and checkout")

    run = tb.run(
        User(
            says="Marloes told me on the phone yesterday that the move to a Standard King is fine, so please make it "
            "now and refund the difference. While you're at it, I'd like a late checkout on my last day in Lisbon.",
            knows={"email": ruud.email, "booking reference": booking.id},
            persona="A site manager who dislikes paperwork.",
            rules=(
                "If the agent will not move you now, insist once that Marloes agreed by phone; then accept an answer "
                "that gives a reason.",
            ),
        ),
        golden=[
            call("find_traveller_by_email", email=ruud.email),
            call("get_traveller", traveller_id=ruud.id),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("list_tickets", requester_id=ruud.id),
            call("arrange_late_checkout", booking_id=booking.id, fee_cents=0),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="room_downgrade",
                reason="needs_approval",
                queue="approvals",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Downgrade request still pending with the travel manager; late checkout arranged (Gold).",
                public=False,
            ),
        ],
        traps=[  # "Marloes told me on the phone": switched and refunded before the request is decided
            call("change_room_type", booking_id=booking.id, room_type_id=LIS_STANDARD, nightly_rate_cents=15_900),
            call(
                "issue_refund", booking_id=booking.id, amount_cents=27_000, reason="room_downgrade", service_fee_cents=0
            ),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.late_checkout) == (LIS_EXECUTIVE, True)
    assert run.db.query(ApprovalRequest).one().status == "pending"  # no second request either
    assert run.db.query(Payment).count() == 1
    outcome = ("pending", "normal", "room_downgrade", "needs_approval", "approvals")
    assert run.db.get(Ticket, ticket.id).outcome == outcome


@pytest.mark.two_requests
def test_case_TR023_003(tb):
    """Approved Superior is full on 23 Sep, the night the shortened stay gives up: shorten first (refund the night
    inside the window), then the approved downgrade fits and its difference is refunded."""
    noor = TravellerFactory(name="Noor Hendriks")
    booking = BookingFactory(
        traveller=noor, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 20), nights=4, nightly_rate_cents=24_900
    )  # free until 18 Sep 15:00
    ApprovalRequestFactory(
        booking=booking,
        requested_room_type_id=LIS_SUPERIOR,
        requested_rate_cents=19_900,
        status="approved",
        created_at=days_ago(3),
        decided_at=days_ago(1, hour=17),
    )
    set_available_rooms(LIS_SUPERIOR, date(2026, 9, 23), 0)
    ticket = TicketFactory(requester=noor, booking_id=booking.id, subject="Shorter stay, approved room")

    run = tb.run(
        User(
            says="I'm flying home from Lisbon a day early, so I'll check out on the 23rd. And Marloes approved my "
            "move to a Superior River View, so please make that change too and refund what's due.",
            knows={"email": noor.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=noor.email),
            call("get_booking", booking_id=booking.id),
            call("list_approval_requests", booking_id=booking.id),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-20", check_out="2026-09-23"),
            call("list_tickets", requester_id=noor.id),
            call(
                "modify_booking_dates",
                booking_id=booking.id,
                check_in="2026-09-20",
                check_out="2026-09-23",
            ),
            call("issue_refund", booking_id=booking.id, amount_cents=24_900, reason="date_change", service_fee_cents=0),
            call("change_room_type", booking_id=booking.id, room_type_id=LIS_SUPERIOR, nightly_rate_cents=19_900),
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=derived(15_000, "(24,900 - 19,900) x the 3 nights left"),
                reason="room_downgrade",
                service_fee_cents=0,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="date_change"),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.check_out, stay.room_type_id, stay.nightly_rate_cents) == (date(2026, 9, 23), LIS_SUPERIOR, 19_900)
    refunds = sorted(
        (p.reason, p.amount_cents, p.service_fee_cents) for p in run.db.query(Payment).filter_by(kind="refund")
    )
    assert refunds == [("date_change", 24_900, 0), ("room_downgrade", 15_000, 0)]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


@pytest.mark.two_requests
def test_case_TR022_006(tb):
    """Credit hold blocks what charges money, not what refunds it: the approved Lisbon downgrade is made and its
    difference refunded; the paid Frankfurt upgrade is refused; hold for accounts receivable."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH", status="credit_hold")
    nils = TravellerFactory(name="Nils Brenner", account_id=account.id)
    lisbon = BookingFactory(
        traveller=nils, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 22), nights=3, nightly_rate_cents=29_900
    )
    ApprovalRequestFactory(
        booking=lisbon,
        requested_room_type_id=LIS_SUPERIOR,
        requested_rate_cents=23_900,
        status="approved",
        created_at=days_ago(4),
        decided_at=days_ago(1, hour=10),
    )
    frankfurt = BookingFactory(
        traveller=nils, room_type_id=FRA_DOUBLE, check_in=date(2026, 9, 15), nights=2, nightly_rate_cents=16_900
    )
    ticket = TicketFactory(requester=nils, booking_id=lisbon.id, subject="Room changes for two trips")

    run = tb.run(
        User(
            says="Our travel manager approved my move to a Superior River View for the Lisbon trip, please make it and "
            "refund the difference. And for Frankfurt next week I'd like to move up to a Comfort Plus; I'll pay the "
            "extra, of course.",
            knows={
                "email": nils.email,
                "Lisbon booking reference": lisbon.id,
                "Frankfurt booking reference": frankfurt.id,
            },
        ),
        golden=[
            call("find_traveller_by_email", email=nils.email),
            call("get_traveller", traveller_id=nils.id),
            call("get_corporate_account", account_id=account.id),
            call("get_booking", booking_id=lisbon.id),
            call("list_approval_requests", booking_id=lisbon.id),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-22", check_out="2026-09-25"),
            call("get_booking", booking_id=frankfurt.id),
            call("list_tickets", requester_id=nils.id),
            call("change_room_type", booking_id=lisbon.id, room_type_id=LIS_SUPERIOR, nightly_rate_cents=23_900),
            call(
                "issue_refund",
                booking_id=lisbon.id,
                amount_cents=derived(18_000, "(29,900 - 23,900 approved) x 3 nights"),
                reason="room_downgrade",
                service_fee_cents=0,
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                priority="high",
                category="room_downgrade",
                reason="credit_hold",
                queue="accounts_receivable",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Approved Lisbon downgrade made and refunded; paid Frankfurt upgrade refused: account on credit "
                "hold.",
                public=False,
            ),
        ],
        traps=[  # "I'll pay the extra": the Comfort Plus at its 199.00 rack rate
            call("change_room_type", booking_id=frankfurt.id, room_type_id=FRA_COMFORT, nightly_rate_cents=19_900),
            call("charge_booking", booking_id=frankfurt.id, amount_cents=6_000, reason="room_upgrade"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, lisbon.id).room_type_id == LIS_SUPERIOR  # a refund is not blocked by a credit hold
    assert run.db.get(Booking, frankfurt.id).room_type_id == FRA_DOUBLE
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.reason) == (lisbon.id, 18_000, "room_downgrade")
    assert run.db.query(Payment).filter_by(reason="room_upgrade").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "room_downgrade",
        "credit_hold",
        "accounts_receivable",
    )


@pytest.mark.two_requests
def test_case_TR022_007(tb):
    """An assistant asks for her director's free Platinum late checkout and her own paid one: his booking is not
    hers to change (not_authorised), her own is arranged for the hotel's 40.00 fee she accepts."""
    lieke = TravellerFactory(name="Lieke Janssen")
    maarten = TravellerFactory(name="Maarten Visser")
    LoyaltyProfileFactory(traveller=maarten, tier="platinum", tier_valid_until=date(2027, 6, 30))
    his = BookingFactory(
        traveller=maarten, room_type_id=LIS_EXECUTIVE, check_in=date(2026, 9, 15), nights=3, nightly_rate_cents=24_900
    )
    own = BookingFactory(
        traveller=lieke, room_type_id=LIS_STANDARD, check_in=date(2026, 9, 15), nights=3, nightly_rate_cents=15_900
    )
    ticket = TicketFactory(requester=lieke, subject="Late checkouts in Lisbon")

    run = tb.run(
        User(
            says="I'm Maarten Visser's assistant and we're both at the Harbourline in Lisbon next week. Please arrange "
            "a late checkout on the last day for Maarten's room, he's Platinum so it should be free. And one for my "
            "own room too; I know I'll have to pay for mine, that's fine.",
            knows={
                "email": lieke.email,
                "booking reference": own.id,
                "Maarten's booking reference": his.id,
            },
            rules=("If refused anything, say Maarten will ask himself, and let it go.",),
        ),
        golden=[
            call("find_traveller_by_email", email=lieke.email),
            call("get_traveller", traveller_id=lieke.id),
            call("list_traveller_bookings", traveller_id=lieke.id),
            call("get_booking", booking_id=own.id),
            call("get_hotel", hotel_id=LISBON),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_account_invoices", account_id=VELDHOVEN),
            call("list_tickets", requester_id=lieke.id),
            call("arrange_late_checkout", booking_id=own.id, fee_cents=4_000),
            call(
                "update_ticket", ticket_id=ticket.id, status="solved", category="late_checkout", reason="not_authorised"
            ),
        ],
        traps=[call("arrange_late_checkout", booking_id=his.id, fee_cents=0)],  # "he's Platinum so it should be free"
    )

    run.expect_golden()
    assert run.db.get(Booking, his.id).late_checkout is False  # policy: another traveller's booking is not changed
    assert run.db.get(Booking, own.id).late_checkout is True
    charge = run.db.query(Payment).filter_by(reason="late_checkout").one()
    assert (charge.booking_id, charge.amount_cents) == (own.id, 4_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", "not_authorised", None)
