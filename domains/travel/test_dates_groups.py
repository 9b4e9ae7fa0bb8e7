"""Date changes (shortened inside and after the window, extensions, credit hold) and group bookings."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    allowance_upgrade,
    approvals,
    availability,
    cancel,
    cancel_facts,
    change_room,
    charge_booking,
    get_account,
    get_booking,
    get_group,
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
    request_approval,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    CorporateAccountFactory,
    LoyaltyProfileFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    earlier_ticket,
    group_booking,
    group_rooms,
    set_available_rooms,
    travellers,
)
from domains.travel.models import ApprovalRequest, Booking, Payment, Ticket, TicketComment
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_COMFORT,
    FRA_DOUBLE,
    FRA_SINGLE,
    FRANKFURT,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_DELUXE,
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
    "Cancellations",
    "The service fee",
    "Date changes",
    "Which nightly rate applies",
    "Paid room upgrades",
    "Room downgrades and travel manager approval",
    "Group bookings",
    "Late checkout",
    "Loyalty upgrade allowance",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR006_001(tb):
    """One night dropped before the deadline: refund that night with no service fee, even though one is offered."""
    elin = TravellerFactory(name="Elin Nyberg", account_id=NORRLAND)
    booking = booking_for(elin, LIS_SUPERIOR, date(2026, 9, 20), 4, 20_500)  # free until 18 Sep 15:00
    ticket = TicketFactory(requester=elin, booking_id=booking.id, subject="Leave Lisbon a day early")

    run = tb.run(
        User(
            says="I'm flying home from Lisbon a day early, on the 23rd. Please shorten my hotel booking. I know you "
            "take a service fee on changes, that's fine. Thanks for sorting it.",
            knows=traveller_facts(elin, booking),
        ),
        golden=[
            *opening(elin, get_booking(booking)),
            move_dates(
                booking,
                "2026-09-20",
                derived(
                    "2026-09-23",
                    "she flies home 'on the 23rd' of the stay that runs 20 to 24 September 2026: check-out moves "
                    "to 23 September 2026, check-in stays",
                ),
            ),
            issue_refund(booking, 20_500, "date_change"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # "I know you take a service fee on changes": the fee withheld from the night's refund
            issue_refund(booking, 18_000, "date_change", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 61_500
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (20_500, 0)  # policy: no fee on a date change
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


def test_case_TR006_002(tb):
    """Three nights dropped after the deadline: the first removed night is charged, two are refunded, no fee."""
    george = TravellerFactory(name="George Hartley", account_id=CASTELLAN)
    booking = booking_for(george, LON_DELUXE, date(2026, 9, 9), 5, 27_500)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=george, booking_id=booking.id, subject="Shorter London stay")

    run = tb.run(
        User(
            says="My London trip has been cut short, I'll check out on the 11th instead of the 14th. Please shorten "
            "the booking and refund the three nights I won't use. The client meeting was moved.",
            knows=traveller_facts(george, booking),
        ),
        golden=[
            *opening(george, get_booking(booking)),
            move_dates(
                booking,
                "2026-09-09",
                derived(
                    "2026-09-11",
                    "he checks out 'on the 11th instead of the 14th' of the stay that runs 9 to 14 September 2026: "
                    "check-out moves to 11 September 2026, check-in stays",
                ),
            ),
            issue_refund(
                booking,
                derived(
                    55_000, "after the window the first removed night (11 Sep) is kept: 12 and 13 Sep at 27,500 each"
                ),
                "date_change",
            ),
            solved(ticket.id, "date_change", "outside_window"),
        ],
        traps=[  # "refund the three nights I won't use": all three removed nights at 275.00
            issue_refund(booking, 82_500, "date_change")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).nights == 2
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 55_000  # policy: first night kept
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", "outside_window", None)


def test_case_TR006_003(tb):
    """Extra night charged at the booking's own 132.00 rate, not at today's 139.00 negotiated rate."""
    lotte = TravellerFactory(name="Lotte Hendriks")
    booking = booking_for(lotte, FRA_DOUBLE, date(2026, 9, 9), 2, 13_200)
    ticket = TicketFactory(requester=lotte, booking_id=booking.id, subject="One more night in Frankfurt")

    run = tb.run(
        User(
            says="My Frankfurt audit runs a day longer. Please extend my Kestrel Park stay by one night so I check "
            "out on the 12th, and charge it at whatever today's company rate is.",
            knows=traveller_facts(lotte, booking),
        ),
        golden=[
            *opening(
                lotte, *standing(VELDHOVEN), get_booking(booking), availability(FRANKFURT, "2026-09-11", "2026-09-12")
            ),
            move_dates(booking, "2026-09-09", "2026-09-12"),
            charge_booking(booking, 13_200, "extra_nights"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # "charge it at whatever today's company rate is": the 139.00 negotiated Business Double rate
            charge_booking(booking, 13_900, "extra_nights")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).check_out == date(2026, 9, 12)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 13_200
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


@pytest.mark.two_requests
def test_case_TR006_004(tb):
    """Credit hold: the paid two-night extension is refused, but the Platinum member's complimentary upgrade one rank
    up, to a Canal View, is still given; hold (high) for accounts receivable."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    kari = TravellerFactory(name="Kari Solberg", account_id=account.id)
    LoyaltyProfileFactory(traveller=kari, tier="platinum", tier_valid_until=date(2027, 3, 31))
    booking = booking_for(kari, AMS_STANDARD, date(2026, 9, 9), 2, 21_000)
    ticket = TicketFactory(requester=kari, booking_id=booking.id, subject="Extend Amsterdam stay")

    run = tb.run(
        User(
            says="Can you add two more nights to my Meridian Quay booking, so I check out on the 13th instead of the "
            "11th? The project has been extended by our client. And as I'll be living there for most of the week, "
            "I'd like to use my Platinum upgrade on this stay.",
            knows=traveller_facts(kari, booking),
        ),
        golden=[
            *opening(
                kari,
                get_traveller(kari),
                get_account(account.id),
                get_booking(booking),
                availability(AMSTERDAM, "2026-09-09", "2026-09-11"),
            ),
            allowance_upgrade(booking, AMS_CANAL_VIEW),
            *on_hold(
                ticket.id,
                "date_change",
                "credit_hold",
                "Two-night extension refused: the account is on credit hold. Platinum upgrade to Canal View given.",
            ),
        ],
        traps=[  # extended to the 13th as asked, and the two nights charged
            move_dates(booking, "2026-09-09", "2026-09-13"),
            charge_booking(booking, 42_000, "extra_nights"),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert stay.check_out == date(2026, 9, 11)  # policy: credit hold, no added nights
    assert (stay.room_type_id, stay.nightly_rate_cents, stay.upgrade_allowance_used) == (AMS_CANAL_VIEW, 21_000, True)
    assert run.db.query(Payment).count() == 1  # ... and a complimentary benefit charges nothing
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "date_change",
        "credit_hold",
        "accounts_receivable",
    )


def test_case_TR005_001(tb):
    """Organiser upgrades two of four group rooms: charge each upgraded room its own difference, not her room."""
    inge, pieter, maarten, sanne = travellers("Inge Vermeulen", "Pieter Jansen", "Maarten Visser", "Sanne Bos")
    group = group_booking(inge, LISBON, "Veldhoven sales kick-off", date(2026, 9, 23))
    own, room_pieter, room_maarten, _ = group_rooms(group, [inge, pieter, maarten, sanne], LIS_STANDARD, 15_900)
    ticket = TicketFactory(requester=inge, subject="Upgrade two rooms in our group")

    run = tb.run(
        User(
            says="I organise the Veldhoven sales kick-off group in Lisbon. Please upgrade the rooms of our two "
            "directors, Pieter Jansen and Maarten Visser, to Executive Rooms, and put the whole upgrade cost on my "
            "own room's booking so it's all on one card.",
            knows=traveller_facts(inge, group),
        ),
        golden=[
            *opening(inge, get_group(group), *standing(VELDHOVEN), availability(LISBON, "2026-09-23", "2026-09-26")),
            *paid_upgrade(room_pieter, LIS_EXECUTIVE, 24_900, 27_000),
            *paid_upgrade(room_maarten, LIS_EXECUTIVE, 24_900, 27_000),
            solved(ticket.id, "group_booking"),
        ],
        traps=[  # "put the whole upgrade cost on my own room's booking"
            charge_booking(own, 54_000, "room_upgrade")
        ],
    )

    run.expect_golden()
    upgrades = run.db.query(Payment).filter_by(reason="room_upgrade").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents) for p in upgrades] == [(room_pieter.id, 27_000), (room_maarten.id, 27_000)]
    assert run.db.get(Booking, own.id).room_type_id == LIS_STANDARD
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)


@pytest.mark.two_requests
def test_case_TR005_002(tb):
    """A group guest asks to upgrade her own group room, which only the organiser may change (pending for the group
    desk), and to add a night to her own London stay, which she may: added at its own rate and charged."""
    harriet, tom, niamh = travellers("Harriet Cole", "Tom Whitfield", "Niamh Gallagher", account_id=CASTELLAN)
    group = group_booking(harriet, AMSTERDAM, "Castellan regulatory workshop", date(2026, 9, 21))
    _, _, room_niamh = group_rooms(group, [harriet, tom, niamh], AMS_STANDARD, 18_500)
    london = booking_for(niamh, LON_CLASSIC, date(2026, 9, 17), 2, 23_000)
    ticket = TicketFactory(requester=niamh, booking_id=room_niamh.id, subject="Canal View upgrade")

    run = tb.run(
        User(
            says="I'm in the Castellan workshop group at the Meridian Quay. Could you upgrade my own room there to a "
            "Canal View? I'll pay the difference myself. And before the workshop I'm in London: please add a night "
            "to my Aldwych Grand stay, so I leave on the 20th instead of the 19th.",
            knows={**traveller_facts(niamh, room_niamh), "London booking reference": london.id},
        ),
        golden=[
            *opening(
                niamh,
                get_booking(room_niamh),
                get_group(group),
                get_booking(london),
                *standing(CASTELLAN),
                availability(LONDON, "2026-09-19", "2026-09-20"),
            ),
            move_dates(london, "2026-09-17", "2026-09-20"),
            charge_booking(london, 23_000, "extra_nights"),
            *left_pending(
                ticket.id,
                "group_booking",
                "awaiting_organiser",
                "Guest asks for a Canal View upgrade of a group room; awaiting the organiser's request. Her own "
                "London stay is extended by a night and charged.",
            ),
        ],
        traps=[  # "I'll pay the difference myself": her room upgraded at Castellan's 220.00 Canal View rate
            change_room(room_niamh, AMS_CANAL_VIEW, 22_000)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_niamh.id).room_type_id == AMS_STANDARD  # policy: only the organiser may ask
    assert run.db.get(Booking, london.id).check_out == date(2026, 9, 20)  # her own booking is hers to change
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 23_000
    assert run.db.get(Ticket, ticket.id).outcome == (
        "pending",
        "normal",
        "group_booking",
        "awaiting_organiser",
        "group_desk",
    )
    assert run.db.query(TicketComment).count() == 1
    assert AMS_CANAL_VIEW not in {b.room_type_id for b in run.db.query(Booking)}


def test_case_TR005_003(tb):
    """Organiser cancels one group room: the group's deadline (passed) counts, not the room's own (still ahead)."""
    harriet, ravi, niamh = travellers("Harriet Cole", "Ravi Sharma", "Niamh Gallagher", account_id=CASTELLAN)
    # group free until 31 Aug 18:00; each room's own deadline is 11 Sep 15:00
    group = group_booking(harriet, AMSTERDAM, "Castellan supplier summit", date(2026, 9, 14))
    _, room_ravi, _ = group_rooms(group, [harriet, ravi, niamh], AMS_STANDARD, 18_500)
    ticket = TicketFactory(requester=harriet, subject="Cancel one room of the summit group")

    run = tb.run(
        User(
            says="Ravi Sharma can no longer come to the supplier summit in Amsterdam. Please cancel his room in our "
            "group. The hotel's cancellation deadline on his room isn't until Friday, so it should be free apart "
            "from your fee.",
            knows=cancel_facts(harriet, group),
        ),
        golden=[
            *opening(harriet, get_group(group), get_booking(room_ravi)),
            *cancel(
                room_ravi,
                derived(
                    34_500,
                    "the group's deadline (31 Aug 18:00) has passed: the 55,500 still refundable less one night at "
                    "18,500 less the 2,500 service fee",
                ),
            ),
            solved(ticket.id, "group_booking", "outside_window"),
        ],
        traps=[  # "his room's deadline isn't until Friday": the night refunded as if inside the window
            issue_refund(room_ravi, 18_500, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_ravi.id).status == "cancelled"
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 34_500  # the group deadline counts
    assert run.db.query(Booking).filter_by(status="cancelled").count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", "outside_window", None)


@pytest.mark.two_requests
def test_case_TR006_005(tb):
    """Shorten inside the window (refund the night) and ask for a cheaper room: that part needs approval; pending."""
    noor = TravellerFactory(name="Noor Hendriks")
    booking = booking_for(noor, LIS_EXECUTIVE, date(2026, 9, 20), 5, 24_900)  # free until 18 Sep 15:00
    ticket = TicketFactory(requester=noor, booking_id=booking.id, subject="Shorter stay, smaller room")

    run = tb.run(
        User(
            says="I'm flying back from Lisbon a day earlier than planned, on the 24th, so please take the last night "
            "off my Harbourline booking. And honestly the Executive Room is more than I need: switch me to a "
            "Superior River View for the rest of the stay to save the company some money.",
            knows=traveller_facts(noor, booking),
        ),
        golden=[
            *opening(noor, get_booking(booking), approvals(booking), get_account(VELDHOVEN)),
            move_dates(
                booking,
                "2026-09-20",
                derived(
                    "2026-09-24",
                    "she flies back 'on the 24th' of the stay that runs 20 to 25 September 2026: check-out moves to "
                    "24 September 2026",
                ),
            ),
            issue_refund(booking, 24_900, "date_change"),
            request_approval(
                booking,
                "room_downgrade",
                LIS_SUPERIOR,
                19_900,
                "Traveller asks to move from the Executive Room to a Superior River View.",
            ),
            *left_pending(
                ticket.id,
                "date_change",
                "needs_approval",
                "Stay shortened and refunded; downgrade to Superior River View awaits the travel manager.",
            ),
        ],
        traps=[  # "switch me to a Superior River View": moved before the travel manager decides
            change_room(booking, LIS_SUPERIOR, 19_900)
        ],
    )

    run.expect_golden()
    changed = run.db.get(Booking, booking.id)
    assert (changed.check_out, changed.room_type_id) == (date(2026, 9, 24), LIS_EXECUTIVE)
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (24_900, "date_change", 0)
    request = run.db.query(ApprovalRequest).one()
    assert (request.requested_room_type_id, request.requested_rate_cents) == (LIS_SUPERIOR, 19_900)
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "date_change", "needs_approval", "approvals")


def test_case_TR006_006(tb):
    """Two nights off after the window refunds only one, so the traveller wants the whole stay cancelled instead."""
    grace = TravellerFactory(name="Grace Holloway", account_id=CASTELLAN)
    booking = booking_for(grace, LON_DELUXE, date(2026, 9, 9), 4, 27_500)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=grace, booking_id=booking.id, subject="London stay cut short")

    run = tb.run(
        User(
            says="My London trip is being cut short, I'll leave on the 11th rather than the 13th. If you can't give "
            "me back both of those nights, forget shortening it and cancel the whole booking: I'll find somewhere "
            "cheaper for the first two nights myself.",
            knows=cancel_facts(grace, booking),
            persona="A clinical trials manager who watches her department's budget closely.",
            rules=("Hold to what you said: unless both nights come back, you want the whole booking cancelled.",),
        ),
        golden=[
            *opening(grace, get_booking(booking)),
            *cancel(
                booking,
                derived(
                    80_000,
                    "shortening after the window would refund one of the two nights, so she cancels: the 110,000 "
                    "paid less one night at 27,500 less the 2,500 service fee",
                ),
            ),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # the kept night refunded as well
            issue_refund(booking, 27_500, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (80_000, 2_500)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


@pytest.mark.distractors
def test_case_TR006_007(tb):
    """Two Amsterdam stays: extend the mid-month one at its own 182.00 rate, not the later one nor at 190.00."""
    johan = TravellerFactory(name="Johan Ek", account_id=NORRLAND)
    mid = booking_for(johan, AMS_STANDARD, date(2026, 9, 15), 2, 18_200)
    later = booking_for(johan, AMS_CANAL_VIEW, date(2026, 9, 22), 2, 22_500)
    ticket = TicketFactory(requester=johan, subject="One more night in Amsterdam")

    run = tb.run(
        User(
            says="My Amsterdam stay in the middle of the month needs one more night at the end: the timber buyers' "
            "workshop now runs into Friday morning. Please add it. Not the later Amsterdam trip, that one stays "
            "exactly as it is.",
            knows={"email": johan.email, "which stay": "the one starting on 15 September; I don't have the reference"},
        ),
        golden=[
            *opening(
                johan,
                list_bookings(johan),
                get_booking(mid),
                *standing(NORRLAND),
                availability(AMSTERDAM, "2026-09-17", "2026-09-18"),
            ),
            move_dates(mid, "2026-09-15", derived("2026-09-18", "one more night after the 17 September check-out")),
            charge_booking(mid, 18_200, "extra_nights"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # the later stay, listed first, extended instead
            move_dates(later, "2026-09-22", "2026-09-25")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, mid.id).check_out == date(2026, 9, 18)
    assert run.db.get(Booking, later.id).check_out == date(2026, 9, 24)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 18_200  # the booking's rate
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


@pytest.mark.two_requests
def test_case_TR005_004(tb):
    """Organiser cancels a guest's room (group window open) but cannot lend her Platinum late checkout to another."""
    harriet = TravellerFactory(name="Harriet Cole", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=harriet, tier="platinum", tier_valid_until=date(2027, 5, 31))
    tom, niamh = travellers("Tom Whitfield", "Niamh Gallagher", account_id=CASTELLAN)
    # group free until 9 Sep 18:00
    group = group_booking(harriet, LONDON, "Castellan board offsite", date(2026, 9, 23))
    _, room_tom, room_niamh = group_rooms(group, [harriet, tom, niamh], LON_CLASSIC, 23_000)
    ticket = TicketFactory(requester=harriet, subject="Board offsite rooms")

    run = tb.run(
        User(
            says="I'm organising the Castellan board offsite at the Aldwych. Tom Whitfield has dropped out, so "
            "please cancel his room. And could Niamh Gallagher's room have a late checkout on the last day? Put it "
            "on my Platinum status so it's free; we're not paying a fee for it.",
            knows=cancel_facts(harriet, group),
        ),
        golden=[
            *opening(harriet, get_group(group), get_booking(room_tom), get_traveller(niamh)),
            *cancel(
                room_tom,
                derived(66_500, "inside the group's window (9 Sep 18:00): the 69,000 paid less the 2,500 service fee"),
            ),
            solved(ticket.id, "group_booking", "not_eligible"),
        ],
        traps=[late_checkout(room_niamh, 0)],  # "on my Platinum status"
    )

    run.expect_golden()
    assert run.db.get(Booking, room_tom.id).status == "cancelled"
    assert run.db.get(Booking, room_niamh.id).late_checkout is False  # policy: the tier stays with its guest
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 66_500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", "not_eligible", None)


def test_case_TR005_005(tb):
    """Organiser's only ticket is pending on another matter: open a new group ticket, upgrade one room on its own."""
    inge, sanne, bas = travellers("Inge Vermeulen", "Sanne Bos", "Bas Kuiper")
    group = group_booking(inge, FRANKFURT, "Veldhoven quality workshop", date(2026, 9, 24))
    own, room_sanne, _ = group_rooms(group, [inge, sanne, bas], FRA_SINGLE, 12_400)
    waiting = earlier_ticket(inge, "Cheaper room for my Lisbon trip", "pending", days_ago(2, hour=10))

    run = tb.run(
        User(
            says="I organise the Veldhoven quality workshop group at the Kestrel Park later this month. Sanne Bos "
            "has asked for a bigger room, so please move her up to a Comfort Plus. The extra cost goes on her own "
            "room as usual, not on mine.",
            knows=traveller_facts(inge, group),
        ),
        golden=[
            *opening(inge, get_group(group), *standing(VELDHOVEN), availability(FRANKFURT, "2026-09-24", "2026-09-27")),
            new_ticket(inge, "Comfort Plus for a workshop guest", "group_booking", room_sanne),
            *paid_upgrade(
                room_sanne, FRA_COMFORT, 16_500, derived(12_300, "(16,500 negotiated Comfort Plus - 12,400) x 3 nights")
            ),
            solved("T-1002"),
        ],
        traps=[  # the pending Lisbon ticket closed instead of opening a new one
            solved(waiting.id, "group_booking")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_sanne.id).room_type_id == FRA_COMFORT
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().booking_id == room_sanne.id
    assert run.db.get(Booking, own.id).room_type_id == FRA_SINGLE
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (inge.id, room_sanne.id)
    assert run.db.get(Ticket, new.id).outcome == ("solved", "normal", "group_booking", None, None)
    assert run.db.get(Ticket, waiting.id).outcome == ("pending", "normal", None, None, None)


def test_case_TR005_006(tb):
    """Executive Rooms for three guests: only two left one night, so the organiser's fallback, three Superiors."""
    femke, lotte, daan, joost = travellers("Femke Smit", "Lotte Hendriks", "Daan Mulder", "Joost de Graaf")
    group = group_booking(femke, LISBON, "Veldhoven product launch", date(2026, 9, 23))
    own, *guests = group_rooms(group, [femke, lotte, daan, joost], LIS_STANDARD, 15_900)
    set_available_rooms(LIS_EXECUTIVE, date(2026, 9, 24), 2)
    ticket = TicketFactory(requester=femke, subject="Better rooms for the launch team")

    run = tb.run(
        User(
            says="For our product launch group at the Harbourline, please upgrade the three guest rooms, Lotte, Daan "
            "and Joost, to Executive Rooms. If you can't get Executive for all three, then put all three in "
            "Superior River View rooms instead. I don't want them in different room types.",
            knows=traveller_facts(femke, group),
            persona="An events coordinator who wants the team treated the same.",
            rules=("If your first choice cannot be done for all three rooms, ask for the alternative you named.",),
        ),
        golden=[
            *opening(femke, get_group(group), *standing(VELDHOVEN), availability(LISBON, "2026-09-23", "2026-09-26")),
            *[
                c
                for room in guests
                for c in paid_upgrade(
                    room, LIS_SUPERIOR, 19_900, derived(12_000, "(19,900 negotiated Superior - 15,900) x 3 nights")
                )
            ],
            solved(ticket.id, "group_booking"),
        ],
        traps=[  # two guests put in the Executive Rooms that are left
            change_room(guests[0], LIS_EXECUTIVE, 24_900)
        ],
    )

    run.expect_golden()
    assert [run.db.get(Booking, r.id).room_type_id for r in guests] == [LIS_SUPERIOR] * 3
    assert run.db.get(Booking, own.id).room_type_id == LIS_STANDARD
    charges = run.db.query(Payment).filter_by(reason="room_upgrade").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents) for p in charges] == [(r.id, 12_000) for r in guests]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "group_booking", None, None)
