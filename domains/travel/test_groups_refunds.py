"""Group organisers changing several rooms at once (each room on its own rate, window and tier), and refunds that
the agent's limit sends to the payments team beside other changes."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    allowance_upgrade,
    approvals,
    availability,
    cancel,
    cancel_booking,
    cancel_facts,
    cancel_for_hotel,
    change_room,
    charge_booking,
    downgrade,
    escalate,
    get_account,
    get_booking,
    get_group,
    get_traveller,
    issue_refund,
    late_checkout,
    left_pending,
    list_bookings,
    list_escalations,
    move_dates,
    new_ticket,
    on_hold,
    opening,
    payments,
    request_approval,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    LoyaltyProfileFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    approval_request,
    booking_for,
    earlier_ticket,
    group_booking,
    group_room,
    room_disruption,
    set_available_rooms,
    travellers,
)
from domains.travel.models import ApprovalRequest, Booking, PartnerEscalation, Payment, Ticket, TicketComment
from domains.travel.phrases import refund_amount
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LON_SUITE,
    LONDON,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Free-cancellation window",
    "Cancellations",
    "The service fee",
    "Hotel-fault cancellations",
    "Date changes",
    "Group bookings",
    "Room downgrades and travel manager approval",
    "Late checkout",
    "Loyalty upgrade allowance",
    "Duplicate and unrecognised charges",
    "Partner escalations",
    "Refund limit",
    "Ticket status and priority",
    "Ticket classification",
)


@pytest.mark.distractors
def test_case_TR021_001(tb):
    """Organiser extends three of four group rooms by a night: each added night is charged on its own room at that
    room's own rate (the Executive at 249.00, the Standards at 159.00); Joost's room is left alone."""
    femke, lotte, daan, joost = travellers("Femke Smit", "Lotte Hendriks", "Daan Mulder", "Joost de Graaf")
    group = group_booking(femke, LISBON, "Veldhoven dealer days", date(2026, 9, 23))
    own = group_room(group, femke, LIS_STANDARD, 15_900)
    room_lotte = group_room(group, lotte, LIS_EXECUTIVE, 24_900)
    room_daan = group_room(group, daan, LIS_STANDARD, 15_900)
    room_joost = group_room(group, joost, LIS_STANDARD, 15_900)
    set_available_rooms(LIS_EXECUTIVE, date(2026, 9, 26), 1)
    ticket = TicketFactory(requester=femke, subject="Dealer days run a day longer")

    run = tb.run(
        User(
            says="Our dealer days at the Harbourline now run a day longer. Please add one night, to the 27th, for "
            "everyone in my group except Joost de Graaf, who flies home as planned. Each extra night can go on the "
            "room it belongs to.",
            knows=traveller_facts(femke, group),
        ),
        golden=[
            *opening(femke, get_group(group), *standing(VELDHOVEN), availability(LISBON, "2026-09-26", "2026-09-27")),
            *[
                c
                for room, rate in ((own, 15_900), (room_lotte, 24_900), (room_daan, 15_900))
                for c in (
                    move_dates(
                        room,
                        "2026-09-23",
                        derived("2026-09-27", "one more night after the group's 26 September check-out"),
                    ),
                    charge_booking(room, rate, "extra_nights"),
                )
            ],
            solved(ticket.id, "group_booking"),
        ],
        traps=[move_dates(room_joost, "2026-09-23", "2026-09-27")],
    )

    run.expect_golden()
    assert [run.db.get(Booking, r.id).check_out for r in (own, room_lotte, room_daan, room_joost)] == [
        date(2026, 9, 27),
        date(2026, 9, 27),
        date(2026, 9, 27),
        date(2026, 9, 26),
    ]
    charges = run.db.query(Payment).filter_by(reason="extra_nights").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents) for p in charges] == [
        (own.id, 15_900),
        (room_lotte.id, 24_900),  # policy: each room's own rate
        (room_daan.id, 15_900),
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)


def test_case_TR021_002(tb):
    """Organiser cancels two rooms after the group's deadline: the Canal View the hotel cannot honour is refunded in
    full (hotel fault, no fee), the other keeps a night and the fee; solved as outside_window."""
    harriet, tom, niamh = travellers("Harriet Cole", "Tom Whitfield", "Niamh Gallagher", account_id=CASTELLAN)
    # group free until 3 Sep 18:00
    group = group_booking(harriet, AMSTERDAM, "Castellan market access forum", date(2026, 9, 17))
    group_room(group, harriet, AMS_STANDARD, 18_500)
    room_tom = group_room(group, tom, AMS_CANAL_VIEW, 22_000, hotel_confirmation="cannot_honour")
    room_niamh = group_room(group, niamh, AMS_STANDARD, 18_500)
    room_disruption(
        AMS_CANAL_VIEW,
        "out_of_order",
        date(2026, 9, 16),
        date(2026, 9, 19),
        "Canal View rooms on the second floor out of order after a leak from the roof terrace.",
    )
    ticket = TicketFactory(requester=harriet, subject="Two rooms of the forum group")

    run = tb.run(
        User(
            says="Two of my people can't make the market access forum in Amsterdam after all: Tom Whitfield and "
            "Niamh Gallagher. Please cancel both their rooms in our group and refund what you can.",
            knows=cancel_facts(harriet, group),
        ),
        golden=[
            *opening(harriet, get_group(group), get_booking(room_tom), get_booking(room_niamh)),
            *cancel_for_hotel(room_tom, 66_000),
            *cancel(
                room_niamh,
                derived(
                    34_500,
                    "the group's deadline (3 Sep 18:00) has passed: the 55,500 paid less one night at 18,500 less the "
                    "2,500 service fee",
                ),
            ),
            solved(ticket.id, "group_booking", "outside_window"),
        ],
        traps=[  # "refund what you can": Niamh's kept night refunded too
            issue_refund(room_niamh, 18_500, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert (run.db.get(Booking, room_tom.id).status, run.db.get(Booking, room_niamh.id).status) == (
        "cancelled",
        "cancelled",
    )
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents, p.reason, p.service_fee_cents) for p in refunds] == [
        (room_tom.id, 66_000, "hotel_fault", 0),
        (room_niamh.id, 34_500, "cancellation", 2_500),
    ]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", "outside_window", None)


@pytest.mark.two_requests
def test_case_TR021_003(tb):
    """Organiser: her own Platinum allowance on her own group room (one rank up), and free late checkouts for two
    guests: Priya's Gold runs past check-out, Tom's expired in August and she will not pay; not_eligible."""
    harriet = TravellerFactory(name="Harriet Cole", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=harriet, tier="platinum", tier_valid_until=date(2027, 5, 31))
    priya = TravellerFactory(name="Priya Shah", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=priya, tier="gold", tier_valid_until=date(2026, 9, 30))
    tom = TravellerFactory(name="Tom Whitfield", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=tom, tier="gold", tier_valid_until=date(2026, 8, 31))
    group = group_booking(harriet, LONDON, "Castellan pricing committee", date(2026, 9, 15))
    own = group_room(group, harriet, LON_CLASSIC, 23_000)
    room_priya = group_room(group, priya, LON_CLASSIC, 23_000)
    room_tom = group_room(group, tom, LON_CLASSIC, 23_000)
    ticket = TicketFactory(requester=harriet, subject="Pricing committee rooms")

    run = tb.run(
        User(
            says="For our pricing committee group at the Aldwych next week: I'd like my own Platinum upgrade on my "
            "room, please. And Priya Shah and Tom Whitfield both have Gold status, so give them each the free late "
            "checkout on the last day. We won't pay a fee for late checkouts.",
            knows=traveller_facts(harriet, group),
        ),
        golden=[
            *opening(
                harriet,
                get_group(group),
                get_traveller(harriet),
                get_traveller(priya),
                get_traveller(tom),
                availability(LONDON, "2026-09-15", "2026-09-18"),
            ),
            allowance_upgrade(own, LON_DELUXE),
            late_checkout(room_priya, 0),
            solved(ticket.id, "group_booking", "not_eligible"),
        ],
        traps=[late_checkout(room_tom, 0)],  # "Tom has Gold status"
    )

    run.expect_golden()
    mine = run.db.get(Booking, own.id)
    assert (mine.room_type_id, mine.nightly_rate_cents, mine.upgrade_allowance_used) == (LON_DELUXE, 23_000, True)
    assert [run.db.get(Booking, r.id).late_checkout for r in (room_priya, room_tom)] == [True, False]
    assert run.db.query(Payment).filter(Payment.reason != "booking").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", "not_eligible", None)


@pytest.mark.two_requests
def test_case_TR024_001(tb):
    """Shortened after the window: two of the three removed suite nights are due back, 1,240.00, over the limit
    (hold for payments, over_limit before outside_window); her Platinum, valid to 11 Sep, now covers the new 10 Sep
    check-out, so the late checkout is free."""
    eleanor = TravellerFactory(name="Eleanor Price", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=eleanor, tier="platinum", tier_valid_until=date(2026, 9, 11))
    booking = booking_for(eleanor, LON_SUITE, date(2026, 9, 8), 5, 62_000)  # free until 6 Sep 15:00
    ticket = TicketFactory(requester=eleanor, booking_id=booking.id, subject="Shorter London stay")

    run = tb.run(
        User(
            says="I arrive at The Aldwych Grand this afternoon, but the board meeting was shortened, so I'll leave "
            "on the 10th instead of the 13th. Please shorten my suite booking and refund the nights I don't use. "
            "And on the 10th I'd like my Platinum late checkout.",
            knows=traveller_facts(eleanor, booking),
        ),
        golden=[
            *opening(eleanor, get_traveller(eleanor), get_booking(booking)),
            move_dates(
                booking,
                "2026-09-08",
                derived("2026-09-10", "she leaves 'on the 10th instead of the 13th' of September 2026"),
            ),
            late_checkout(booking, 0),
            *on_hold(
                ticket.id,
                "date_change",
                "over_limit",
                "Stay shortened to 10 Sep after the window; refund of 124,000 cents (the nights of 11 and 12 "
                "Sep) is over the agent limit, for the payments team.",
            ),
        ],
        reply="I've shortened your stay to check out on 10 September and arranged your complimentary late checkout "
        "until 14:00 that day. As the free-cancellation window had passed, the first night you gave up is kept; "
        "the other two, EUR 1,240.00, are more than I can refund myself, so our payments team will send them.",
        traps=[  # the refund issued by the agent, over the limit, or split into two nights
            issue_refund(booking, 124_000, "date_change"),
            issue_refund(booking, 62_000, "date_change"),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.check_out, stay.nights, stay.late_checkout) == (date(2026, 9, 10), 2, True)
    assert run.db.query(Payment).count() == 1  # no refund by us, no late checkout fee
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "date_change", "over_limit", "payments")
    run.rubric(
        "Did the agent tell the traveller how much the payments team will refund?",
        phrases=refund_amount(124_000),
    )


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_TR024_002(tb):
    """The hotel cannot honour the Junior Suite: cancel it, but its 1,436.00 hotel-fault refund is over the limit
    and never split; the Amsterdam stay gets its extra night at its own rate; hold for payments."""
    maja = TravellerFactory(name="Maja Lund", account_id=NORRLAND)
    lisbon = booking_for(
        maja, LIS_SUITE, date(2026, 9, 9), 4, 35_900, hotel_confirmation="cannot_honour"
    )  # free until 7 Sep 15:00
    room_disruption(
        LIS_SUITE,
        "out_of_order",
        date(2026, 9, 8),
        date(2026, 9, 14),
        "Junior Suites closed for urgent repairs to the balcony railings.",
    )
    amsterdam = booking_for(maja, AMS_STANDARD, date(2026, 9, 21), 2, 19_000)
    ticket = TicketFactory(requester=maja, booking_id=lisbon.id, subject="Lisbon suite unavailable")

    run = tb.run(
        User(
            says="The Harbourline tells me my Junior Suite from tomorrow is out of order. The Lisbon visit can be done "
            "online, so just cancel it, I don't want another hotel, and refund me today. If that's too much for one "
            "refund, split it up. Also please add a night to my Meridian Quay stay in Amsterdam, to the 24th.",
            knows={
                "email": maja.email,
                "employee number": maja.employee_number,
                "Amsterdam booking reference": amsterdam.id,
                "Lisbon booking reference": lisbon.id,
            },
            persona="A purchasing manager who wants the money back before her card statement closes.",
            rules=(
                "Ask once whether the refund can be split into smaller ones if that gets it to you sooner; then "
                "accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(
                maja,
                get_booking(lisbon),
                get_booking(amsterdam),
                *standing(NORRLAND),
                availability(AMSTERDAM, "2026-09-23", "2026-09-24"),
            ),
            cancel_booking(lisbon),
            move_dates(amsterdam, "2026-09-21", "2026-09-24"),
            charge_booking(amsterdam, 19_000, "extra_nights"),
            *on_hold(
                ticket.id,
                "cancellation",
                "over_limit",
                "Hotel-fault cancellation of the Lisbon suite; refund of 143,600 cents is over the agent limit, "
                "for the payments team. Amsterdam extended by a night and charged.",
            ),
        ],
        reply="I've cancelled the Junior Suite. As the hotel couldn't honour it, you get everything back, EUR "
        "1,436.00, with no fee, but a refund that size is sent by our payments team and can't be split into smaller "
        "ones. Your Meridian Quay stay now runs to 24 September; the extra night, EUR 190.00, is charged to your card.",
        traps=[  # "refund me today ... split it up"
            issue_refund(lisbon, 143_600, "hotel_fault"),
            issue_refund(lisbon, 71_800, "hotel_fault"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, lisbon.id).status == "cancelled"
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: over the limit, never split
    assert run.db.get(Booking, amsterdam.id).check_out == date(2026, 9, 24)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 19_000
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "cancellation", "over_limit", "payments")
    run.rubric(
        "Did the agent tell the traveller the amount the payments team will refund?",
        phrases=refund_amount(143_600),
    )


@pytest.mark.two_requests
def test_case_TR024_003(tb):
    """Our ledger charged the 1,240.00 suite stay twice, but that refund is over the limit: no refund by us, never
    split; the Amsterdam stay he cancels inside its window is refunded by us, less the fee. The only ticket on the
    booking is closed, so open a billing ticket and hold it for payments."""
    conrad = TravellerFactory(name="Conrad Ellis", account_id=CASTELLAN)
    booking = booking_for(conrad, LON_SUITE, date(2026, 9, 14), 2, 62_000)
    PaymentFactory(booking=booking, created_at=booking.booked_at.replace(minute=3))  # the same charge again
    amsterdam = booking_for(conrad, AMS_STANDARD, date(2026, 9, 28), 2, 18_500)  # free until 25 Sep 15:00
    closed = earlier_ticket(conrad, "Airport transfer for the suite stay", "closed", days_ago(10, hour=11), booking)

    run = tb.run(
        User(
            says="Atlas took EUR 1,240 from my card twice for the same Aldwych Suite booking next week. Please put "
            "the second one back straight away, it's pushing me over my card limit; two smaller refunds are fine "
            "if that's quicker. And to free up the card, cancel my Meridian Quay room at the end of the month, "
            "that trip isn't needed any more.",
            knows={
                **traveller_facts(conrad, booking),
                "Amsterdam booking reference": amsterdam.id,
                "employee number": conrad.employee_number,
            },
        ),
        golden=[
            *opening(conrad, get_booking(booking), payments(booking), get_booking(amsterdam)),
            new_ticket(conrad, "Suite booking charged twice", "billing", booking),
            *cancel(amsterdam, derived(34_500, "inside the window: the 37,000 paid less the 2,500 service fee")),
            *on_hold(
                "T-1002",
                None,
                "over_limit",
                "Duplicate booking charge of 124,000 cents on our ledger; refund over the agent limit, for the "
                "payments team. Amsterdam stay cancelled inside the window and refunded.",
            ),
        ],
        traps=[  # "put the second one back straight away ... two smaller refunds are fine"
            issue_refund(booking, 124_000, "duplicate_charge"),
            issue_refund(booking, 62_000, "duplicate_charge"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()  # policy: over the limit, payments refunds
    assert (refund.booking_id, refund.amount_cents, refund.service_fee_cents) == (amsterdam.id, 34_500, 2_500)
    assert run.db.get(Booking, amsterdam.id).status == "cancelled"
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (conrad.id, booking.id)
    assert new.outcome == ("hold", "high", "billing", "over_limit", "payments")
    assert run.db.get(Ticket, closed.id).status == "closed"
    assert run.db.query(TicketComment).one().public is False


def test_case_TR024_004(tb):
    """Cancelled inside the window: the 990.00 stay alone would be under the limit, but the ledger also holds the
    upgrade and late checkout he paid: 1,040.00 refundable, 1,015.00 after the fee, over the limit; payments."""
    hugo = TravellerFactory(name="Hugo Marsh", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=hugo, tier="silver", tier_valid_until=date(2027, 1, 31))
    # free until 19 Sep 15:00; the booking charge of 825.00: booked as a Deluxe King at 275.00
    booking = booking_for(
        hugo, LON_CLUB, date(2026, 9, 21), 3, 33_000, late_checkout=True, payment__amount_cents=82_500
    )
    PaymentFactory(booking=booking, reason="room_upgrade", amount_cents=16_500, created_at=days_ago(6, hour=10))
    PaymentFactory(booking=booking, reason="late_checkout", amount_cents=5_000, created_at=days_ago(6, hour=10))
    ticket = TicketFactory(requester=hugo, booking_id=booking.id, subject="Cancel London")

    run = tb.run(
        User(
            says="Please cancel my Aldwych Grand booking from the 21st, the audit has been postponed. The room was "
            "990 euros, so after your fee I should get 965 back, which I'd like on my card this week.",
            knows=cancel_facts(hugo, booking),
        ),
        golden=[
            *opening(hugo, get_booking(booking), payments(booking)),
            cancel_booking(booking),
            *on_hold(
                ticket.id,
                "cancellation",
                "over_limit",
                "Cancelled inside the window; refund of 101,500 cents (104,000 refundable less the 2,500 fee) "
                "is over the agent limit, for the payments team.",
            ),
        ],
        reply="I've cancelled your Aldwych Grand booking. Besides the room, you had paid for the upgrade and the late "
        "checkout, so EUR 1,040.00 is refundable; less our 25.00 service fee, EUR 1,015.00 comes back to you. That "
        "is above what I can refund myself, so our payments team will send it.",
        traps=[  # "I should get 965 back": the room total less the fee, refunded by the agent
            issue_refund(booking, 96_500, "cancellation", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # 101,500 is over the limit
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "cancellation", "over_limit", "payments")
    run.rubric(
        "Did the agent tell the traveller the amount to be refunded?",
        phrases=refund_amount(101_500),
    )


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_TR021_004(tb):
    """A group guest cancels his group room and his own London stay: only the organiser may cancel the group room
    (pending for the group desk); his own booking is cancelled inside the window, less the fee."""
    harriet, ravi = travellers("Harriet Cole", "Ravi Sharma", account_id=CASTELLAN)
    group = group_booking(harriet, AMSTERDAM, "Castellan launch readiness", date(2026, 9, 24))
    group_room(group, harriet, AMS_STANDARD, 18_500)
    room_ravi = group_room(group, ravi, AMS_STANDARD, 18_500)
    london = booking_for(ravi, LON_CLASSIC, date(2026, 9, 22), 2, 23_000)  # free until 20 Sep 15:00
    ticket = TicketFactory(requester=ravi, subject="Cancelling my trips")

    run = tb.run(
        User(
            says="I've been taken off the launch readiness project, so please cancel my room in the Castellan group "
            "at the Meridian Quay. And I won't need my own London hotel on the 22nd either, please cancel that too.",
            knows={"email": ravi.email, "employee number": ravi.employee_number},
        ),
        golden=[
            *opening(ravi, list_bookings(ravi), get_booking(room_ravi), get_group(group), get_booking(london)),
            *cancel(london, derived(43_500, "inside the window: the 46,000 paid less the 2,500 service fee")),
            *left_pending(
                ticket.id,
                "group_booking",
                "awaiting_organiser",
                "Guest asks to cancel his group room; awaiting the organiser's request. His London stay is "
                "cancelled and refunded.",
            ),
        ],
        traps=[cancel_booking(room_ravi)],  # the group room cancelled at the guest's word
    )

    run.expect_golden()
    assert run.db.get(Booking, room_ravi.id).status == "confirmed"  # policy: only the organiser may cancel it
    assert run.db.get(Booking, london.id).status == "cancelled"
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.service_fee_cents) == (london.id, 43_500, 2_500)
    outcome = ("pending", "normal", "group_booking", "awaiting_organiser", "group_desk")
    assert run.db.get(Ticket, ticket.id).outcome == outcome
    assert run.db.query(TicketComment).one().public is False


@pytest.mark.two_requests
def test_case_TR021_005(tb):
    """Organiser moves two guests to cheaper rooms: Bram's downgrade was approved (change it, refund the difference),
    Sanne's has no request yet (create one at the 159.00 contract rate, change nothing); the ticket waits: pending."""
    inge, bram, sanne = travellers("Inge Vermeulen", "Bram Peeters", "Sanne Bos")
    group = group_booking(inge, LISBON, "Veldhoven board retreat", date(2026, 9, 28))
    group_room(group, inge, LIS_EXECUTIVE, 24_900)
    room_bram = group_room(group, bram, LIS_EXECUTIVE, 24_900)
    room_sanne = group_room(group, sanne, LIS_EXECUTIVE, 24_900)
    approval_request(
        room_bram,
        LIS_SUPERIOR,
        19_900,
        "approved",
        days_ago(5),
        days_ago(2, hour=16),
        justification="Organiser asks to move a guest room of the board retreat to a Superior River View.",
    )
    ticket = TicketFactory(requester=inge, subject="Cheaper rooms for two retreat guests")

    run = tb.run(
        User(
            says="For our board retreat group at the Harbourline: Marloes approved moving Bram Peeters to a Superior "
            "River View, so please do that now. And Sanne Bos would be happy in a Standard King, please move her "
            "too. Both should save the company money.",
            knows=traveller_facts(inge, group),
        ),
        golden=[
            *opening(
                inge,
                get_group(group),
                approvals(room_bram),
                approvals(room_sanne),
                get_account(VELDHOVEN),
                availability(LISBON, "2026-09-28", "2026-10-01"),
            ),
            *downgrade(room_bram, LIS_SUPERIOR, 19_900, derived(15_000, "(24,900 - 19,900 approved) x 3 nights")),
            request_approval(
                room_sanne,
                "room_downgrade",
                LIS_STANDARD,
                15_900,
                "Organiser asks to move a guest room from the Executive Room to a Standard King.",
            ),
            *left_pending(
                ticket.id,
                "group_booking",
                "needs_approval",
                "Bram's approved downgrade made and refunded; Sanne's downgrade to Standard King sent to the "
                "travel manager.",
            ),
        ],
        traps=[  # Sanne moved as well, before the travel manager decides
            change_room(room_sanne, LIS_STANDARD, 15_900)
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, r.id).room_type_id for r in (room_bram, room_sanne)] == [LIS_SUPERIOR, LIS_EXECUTIVE]
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.reason) == (room_bram.id, 15_000, "room_downgrade")
    pending = run.db.query(ApprovalRequest).filter_by(status="pending").one()
    assert (pending.booking_id, pending.requested_room_type_id, pending.requested_rate_cents) == (
        room_sanne.id,
        LIS_STANDARD,
        15_900,
    )
    outcome = ("pending", "normal", "group_booking", "needs_approval", "approvals")
    assert run.db.get(Ticket, ticket.id).outcome == outcome


def test_case_TR021_006(tb):
    """A group guest questions the hotel's second charge for her room: not a room change, so she need not wait for
    the organiser; our ledger has one charge, so escalate to the hotel; the category is group_booking; hold."""
    harriet, olivia = travellers("Harriet Cole", "Olivia Grant", account_id=CASTELLAN)
    group = group_booking(harriet, LONDON, "Castellan investor day", date(2026, 9, 1), created_at=days_ago(45, hour=10))
    group_room(group, harriet, LON_CLASSIC, 23_000, status="completed")
    room_olivia = group_room(group, olivia, LON_CLASSIC, 23_000, status="completed")
    ticket = TicketFactory(requester=olivia, booking_id=room_olivia.id, subject="Charged twice for the investor day")

    run = tb.run(
        User(
            says="I was in the Castellan investor day group at The Aldwych Grand last week. When I checked out on "
            "the 4th the hotel charged my card 690 euros, but Atlas had already charged me for the room. Can you "
            "get that second charge refunded?",
            knows=traveller_facts(olivia, room_olivia),
        ),
        golden=[
            *opening(
                olivia, get_booking(room_olivia), get_group(group), payments(room_olivia), list_escalations(room_olivia)
            ),
            escalate(
                room_olivia,
                "duplicate_charge",
                69_000,
                "Group guest charged 690.00 at checkout on 4 Sep for a room already charged by us.",
            ),
            *on_hold(
                ticket.id,
                "group_booking",
                "awaiting_hotel",
                "Hotel-side duplicate of 69,000 cents on a group room escalated to the Aldwych Grand.",
            ),
        ],
        traps=[  # refunded by us, or parked for the organiser as if it were a room change
            issue_refund(room_olivia, 69_000, "duplicate_charge"),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                priority="normal",
                reason="awaiting_organiser",
                queue="group_desk",
            ),
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    escalation = run.db.query(PartnerEscalation).one()
    assert (escalation.booking_id, escalation.kind, escalation.amount_cents) == (
        room_olivia.id,
        "duplicate_charge",
        69_000,
    )
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "group_booking",
        "awaiting_hotel",
        "partner_relations",
    )
