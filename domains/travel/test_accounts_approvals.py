"""Account standing beside other requests (overdue invoices, credit hold, suspension, a contract rate by check-in
date), the employee-number check over a whole conversation, and travel manager approvals on file."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    approvals,
    availability,
    book,
    cancel_booking,
    cancel_for_hotel,
    change_room,
    charge_booking,
    downgrade,
    get_account,
    get_booking,
    get_hotel,
    get_traveller,
    issue_refund,
    late_checkout,
    left_pending,
    list_bookings,
    move_dates,
    new_ticket,
    on_hold,
    opening,
    paid_upgrade,
    rate_caps,
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
    LoyaltyProfileFactory,
    NegotiatedRateFactory,
    TicketFactory,
    TravellerFactory,
    approval_request,
    booking_for,
    earlier_ticket,
    set_available_rooms,
    travellers,
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
from pytest_thinkingbox import User, derived

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
    booking = booking_for(jana, FRA_DOUBLE, date(2026, 9, 10), 2, 16_900)
    ticket = TicketFactory(requester=jana, booking_id=booking.id, subject="Frankfurt stay: checkout and extra night")

    run = tb.run(
        User(
            says="For my Kestrel Park stay from Thursday, could I have a late checkout on the last morning? And "
            "actually add one more night too, so I leave on the 13th instead of the 12th. Our account is active, "
            "you can see that in my profile.",
            knows=traveller_facts(jana, booking),
        ),
        golden=[
            *opening(jana, get_traveller(jana), get_booking(booking), *standing(account.id)),
            late_checkout(booking, 0),
            *on_hold(
                ticket.id,
                "late_checkout",
                "credit_hold",
                "Extra night refused: invoice due 3 Aug is 36 days overdue, account treated as credit hold. "
                "Complimentary Gold late checkout arranged.",
            ),
        ],
        traps=[  # "our account is active": the extra night added and charged at the booking's rate
            move_dates(booking, "2026-09-10", "2026-09-13"),
            charge_booking(booking, 16_900, "extra_nights"),
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
    amsterdam = booking_for(gareth, AMS_STANDARD, date(2026, 9, 21), 2, 21_000)  # free until 18 Sep 15:00
    london = booking_for(gareth, LON_CLASSIC, date(2026, 9, 14), 2, 27_500)
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
            *opening(
                gareth, get_traveller(gareth), get_account(account.id), get_booking(amsterdam), get_booking(london)
            ),
            solved(ticket.id, "cancellation", "account_suspended"),
        ],
        reply="I'm sorry: Solent Marine's travel programme with us is suspended, so I can't make any change to your "
        "bookings, not the cancellation and not the late checkout. Please contact your travel manager, Ingrid "
        "Solberg, about the suspension.",
        traps=[  # "a cancellation only saves the company money", and the free late checkout
            cancel_booking(amsterdam),
            late_checkout(london, 0),
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
    booking = booking_for(
        leon, LON_DELUXE, date(2026, 9, 6), 3, 32_500, status="checked_in", booked_at=days_ago(15, hour=10)
    )
    frankfurt = booking_for(
        leon, FRA_DOUBLE, date(2026, 9, 10), 2, 16_900, hotel_confirmation="cannot_honour"
    )  # free until 9 Sep 15:00
    waiting = earlier_ticket(leon, "Receipt for my August stay", "pending", days_ago(4, hour=9))

    run = tb.run(
        User(
            says="I'm at The Aldwych Grand right now and check out tomorrow. My flight is only in the evening, so "
            "I'd like a late checkout. I know what it costs, just put the fee through. And the Kestrel Park has "
            "written that they can't honour my Frankfurt booking from Thursday, so please cancel it and refund me.",
            knows={
                **traveller_facts(leon, booking),
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
            *opening(
                leon,
                get_traveller(leon),
                get_booking(booking),
                get_booking(frankfurt),
                get_hotel(LONDON),
                get_account(account.id),
            ),
            new_ticket(leon, "Late checkout at the Aldwych", "late_checkout", booking),
            *cancel_for_hotel(frankfurt, 33_800),
            *on_hold(
                "T-1002",
                None,
                "credit_hold",
                "Paid late checkout (50.00) refused: the account is on credit hold. Frankfurt booking the hotel "
                "cannot honour cancelled and refunded in full.",
            ),
        ],
        reply="I'm sorry, your company's account is on credit hold, so I can't arrange a paid late checkout, and I "
        "can't take the fee on a private card either. I've cancelled the Kestrel Park booking the hotel can't honour "
        "and refunded all of it, EUR 338.00, with no fee.",
        traps=[late_checkout(booking, 5_000)],  # "just put the fee through"
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
            knows=traveller_facts(sigrid),
        ),
        golden=[
            *opening(
                sigrid,
                get_traveller(sigrid),
                *standing(account.id),
                rate_caps(account.id),
                availability(LONDON, "2026-09-29", "2026-10-02"),
            ),
            new_ticket(sigrid, "London hotel 29 Sep - 2 Oct", "new_booking"),
            book(sigrid, LON_DELUXE, "2026-09-29", "2026-10-02", 28_900),
            solved("T-0001"),
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
    lisbon = booking_for(oskar, LIS_STANDARD, date(2026, 9, 24), 2, 15_900)
    frankfurt = booking_for(oskar, FRA_DOUBLE, date(2026, 9, 15), 2, 13_900)
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
            *opening(oskar, get_booking(lisbon), get_booking(frankfurt)),
            *left_pending(
                ticket.id,
                "cancellation",
                "identity_not_verified",
                "Employee number given does not match the profile: Lisbon cancellation and Frankfurt extension "
                "not made.",
            ),
        ],
        traps=[  # the extension made anyway, as it needs no employee number on its own
            move_dates(frankfurt, "2026-09-15", "2026-09-18"),
            charge_booking(frankfurt, 13_900, "extra_nights"),
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
    booking = booking_for(yusuf, AMS_PENTHOUSE, date(2026, 9, 22), 2, 54_000)
    approval_request(booking, AMS_CANAL_VIEW, 22_000, "rejected", days_ago(5), days_ago(3, hour=11))
    ticket = TicketFactory(requester=yusuf, booking_id=booking.id, subject="Penthouse too much")

    run = tb.run(
        User(
            says="Rebecca turned down my move to a Canal View, fair enough. But a Loft Room at our corporate rate of "
            "EUR 270 should be fine, so please just move me from the Penthouse to a Loft now and refund the "
            "difference. She has already seen one request, no need to bother her again.",
            knows=traveller_facts(yusuf, booking),
        ),
        golden=[
            *opening(yusuf, get_booking(booking), approvals(booking), get_account(CASTELLAN), get_hotel(AMSTERDAM)),
            request_approval(
                booking,
                "room_downgrade",
                AMS_LOFT,
                31_000,
                "Traveller asks to move from the Penthouse Suite to a Loft Room; the contract Loft rate "
                "expired on 31 Aug, so the rack rate applies.",
            ),
            *left_pending(
                ticket.id,
                "room_downgrade",
                "needs_approval",
                "Downgrade to a Loft Room at 310.00 sent to the travel manager; booking unchanged.",
            ),
        ],
        traps=[  # "just move me now", at the expired 270.00 rate
            change_room(booking, AMS_LOFT, 27_000)
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
    booking = booking_for(ruud, LIS_EXECUTIVE, date(2026, 9, 15), 3, 24_900)
    ApprovalRequestFactory(booking=booking, created_at=days_ago(2, hour=10))  # Standard King at 159.00, pending
    ticket = TicketFactory(requester=ruud, booking_id=booking.id, subject="Room change and checkout")

    run = tb.run(
        User(
            says="Marloes told me on the phone yesterday that the move to a Standard King is fine, so please make it "
            "now and refund the difference. While you're at it, I'd like a late checkout on my last day in Lisbon.",
            knows=traveller_facts(ruud, booking),
            persona="A site manager who dislikes paperwork.",
            rules=(
                "If the agent will not move you now, insist once that Marloes agreed by phone; then accept an answer "
                "that gives a reason.",
            ),
        ),
        golden=[
            *opening(ruud, get_traveller(ruud), get_booking(booking), approvals(booking)),
            late_checkout(booking, 0),
            *left_pending(
                ticket.id,
                "room_downgrade",
                "needs_approval",
                "Downgrade request still pending with the travel manager; late checkout arranged (Gold).",
            ),
        ],
        traps=[  # "Marloes told me on the phone": switched and refunded before the request is decided
            *downgrade(booking, LIS_STANDARD, 15_900, 27_000),
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
    booking = booking_for(noor, LIS_EXECUTIVE, date(2026, 9, 20), 4, 24_900)  # free until 18 Sep 15:00
    approval_request(booking, LIS_SUPERIOR, 19_900, "approved", days_ago(3), days_ago(1, hour=17))
    set_available_rooms(LIS_SUPERIOR, date(2026, 9, 23), 0)
    ticket = TicketFactory(requester=noor, booking_id=booking.id, subject="Shorter stay, approved room")

    run = tb.run(
        User(
            says="I'm flying home from Lisbon a day early, so I'll check out on the 23rd. And Marloes approved my "
            "move to a Superior River View, so please make that change too and refund what's due.",
            knows=traveller_facts(noor, booking),
        ),
        golden=[
            *opening(noor, get_booking(booking), approvals(booking), availability(LISBON, "2026-09-20", "2026-09-23")),
            move_dates(booking, "2026-09-20", "2026-09-23"),
            issue_refund(booking, 24_900, "date_change"),
            *downgrade(booking, LIS_SUPERIOR, 19_900, derived(15_000, "(24,900 - 19,900) x the 3 nights left")),
            solved(ticket.id, "date_change"),
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
    lisbon = booking_for(nils, LIS_EXECUTIVE, date(2026, 9, 22), 3, 29_900)
    approval_request(lisbon, LIS_SUPERIOR, 23_900, "approved", days_ago(4), days_ago(1, hour=10))
    frankfurt = booking_for(nils, FRA_DOUBLE, date(2026, 9, 15), 2, 16_900)
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
            *opening(
                nils,
                get_traveller(nils),
                get_account(account.id),
                get_booking(lisbon),
                approvals(lisbon),
                availability(LISBON, "2026-09-22", "2026-09-25"),
                get_booking(frankfurt),
            ),
            *downgrade(lisbon, LIS_SUPERIOR, 23_900, derived(18_000, "(29,900 - 23,900 approved) x 3 nights")),
            *on_hold(
                ticket.id,
                "room_downgrade",
                "credit_hold",
                "Approved Lisbon downgrade made and refunded; paid Frankfurt upgrade refused: account on credit hold.",
            ),
        ],
        traps=[  # "I'll pay the extra": the Comfort Plus at its 199.00 rack rate
            *paid_upgrade(frankfurt, FRA_COMFORT, 19_900, 6_000),
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
    lieke, maarten = travellers("Lieke Janssen", "Maarten Visser")
    LoyaltyProfileFactory(traveller=maarten, tier="platinum", tier_valid_until=date(2027, 6, 30))
    his = booking_for(maarten, LIS_EXECUTIVE, date(2026, 9, 15), 3, 24_900)
    own = booking_for(lieke, LIS_STANDARD, date(2026, 9, 15), 3, 15_900)
    ticket = TicketFactory(requester=lieke, subject="Late checkouts in Lisbon")

    run = tb.run(
        User(
            says="I'm Maarten Visser's assistant and we're both at the Harbourline in Lisbon next week. Please arrange "
            "a late checkout on the last day for Maarten's room, he's Platinum so it should be free. And one for my "
            "own room too; I know I'll have to pay for mine, that's fine.",
            knows={**traveller_facts(lieke, own), "Maarten's booking reference": his.id},
            rules=("If refused anything, say Maarten will ask himself, and let it go.",),
        ),
        golden=[
            *opening(
                lieke,
                get_traveller(lieke),
                list_bookings(lieke),
                get_booking(own),
                get_hotel(LISBON),
                *standing(VELDHOVEN),
            ),
            late_checkout(own, 4_000),
            solved(ticket.id, "late_checkout", "not_authorised"),
        ],
        traps=[late_checkout(his, 0)],  # "he's Platinum so it should be free"
    )

    run.expect_golden()
    assert run.db.get(Booking, his.id).late_checkout is False  # policy: another traveller's booking is not changed
    assert run.db.get(Booking, own.id).late_checkout is True
    charge = run.db.query(Payment).filter_by(reason="late_checkout").one()
    assert (charge.booking_id, charge.amount_cents) == (own.id, 4_000)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", "not_authorised", None)
