"""Stays decided on dates, tiers and rates together: loyalty benefits across a stay, two stays in one
conversation, moved stays, and upgrades priced by a contract that starts later."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.travel.calls import (
    allowance_upgrade,
    approvals,
    availability,
    book,
    cancel,
    cancel_booking,
    cancel_facts,
    cancel_for_hotel,
    charge_booking,
    disruptions,
    escalate,
    get_booking,
    get_hotel,
    get_traveller,
    hold_update,
    issue_refund,
    late_checkout,
    list_bookings,
    list_escalations,
    move_dates,
    new_ticket,
    on_hold,
    opening,
    paid_upgrade,
    payments,
    rate_caps,
    request_approval,
    search_hotels,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    CityRateCapFactory,
    CorporateAccountFactory,
    InvoiceFactory,
    LoyaltyProfileFactory,
    NegotiatedRateFactory,
    PartnerEscalationFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    earlier_ticket,
    room_disruption,
    set_available_rooms,
)
from domains.travel.models import ApprovalRequest, Booking, PartnerEscalation, Payment, Ticket, TicketComment
from domains.travel.seed import (
    ALF_PATIO,
    AMS_CANAL_VIEW,
    AMS_LOFT,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_COMFORT,
    FRA_DOUBLE,
    FRA_SINGLE,
    FRANKFURT,
    FRANKFURT_WESTEND,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUITE,
    LIS_SUPERIOR,
    LISBON,
    LISBON_ALFAMA,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LONDON,
    NORRLAND,
    VELDHOVEN,
    WES_SINGLE,
)
from pytest_thinkingbox import User, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "New bookings",
    "Free-cancellation window",
    "Cancellations",
    "The service fee",
    "Date changes",
    "Paid room upgrades",
    "Late checkout",
    "Loyalty upgrade allowance",
    "Duplicate and unrecognised charges",
    "Partner escalations",
    "Hotel-fault cancellations",
    "Hotel disruptions and relocation",
    "City rate caps",
    "Ticket status and priority",
    "Ticket classification",
)


@pytest.mark.two_requests
def test_case_TR020_001(tb):
    """Platinum valid until 16 Sep: the allowance counts (valid at check-in), the free late checkout does not
    (expired before the 17 Sep check-out), so she pays the 40.00 fee she accepted."""
    astrid = TravellerFactory(name="Astrid Hellberg", account_id=NORRLAND)
    LoyaltyProfileFactory(traveller=astrid, tier="platinum", tier_valid_until=date(2026, 9, 16))
    booking = booking_for(astrid, LIS_SUPERIOR, date(2026, 9, 14), 3, 20_500)
    ticket = TicketFactory(requester=astrid, booking_id=booking.id, subject="Platinum perks in Lisbon")

    run = tb.run(
        User(
            says="I'm a Platinum member and I'm at the Harbourline in Lisbon next week. I'd like my complimentary "
            "room upgrade for that stay, and the complimentary late checkout on the morning I leave, please.",
            knows={
                **traveller_facts(astrid, booking),
                "accept the late checkout fee": "if the late checkout isn't free, I'll pay the hotel's fee",
            },
        ),
        golden=[
            *opening(
                astrid,
                get_traveller(astrid),
                get_booking(booking),
                availability(LISBON, "2026-09-14", "2026-09-17"),
                get_hotel(LISBON),
                *standing(NORRLAND),
            ),
            allowance_upgrade(booking, LIS_EXECUTIVE),
            late_checkout(booking, 4_000),
            solved(ticket.id, "loyalty_upgrade"),
        ],
        reply="I've upgraded your stay to an Executive Room with your Platinum allowance. Your Platinum status runs "
        "until 16 September, the day before you check out, so the late checkout isn't complimentary: as you agreed, "
        "I've arranged it until 14:00 for the hotel's fee of EUR 40.00.",
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.nightly_rate_cents, stay.upgrade_allowance_used) == (LIS_EXECUTIVE, 20_500, True)
    assert stay.late_checkout is True
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 4_000  # expired by check-out
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty_upgrade", None, None)


@pytest.mark.pushback
def test_case_TR020_002(tb):
    """Platinum allowance, but the Deluxe one rank up is full one night: no skipping to the Club for free; he takes
    his fallback, a paid Club Room at the 330.00 contract rate."""
    tobias = TravellerFactory(name="Tobias Wren", account_id=CASTELLAN)
    LoyaltyProfileFactory(traveller=tobias, tier="platinum", tier_valid_until=date(2027, 6, 30))
    booking = booking_for(tobias, LON_CLASSIC, date(2026, 9, 21), 3, 23_000)
    set_available_rooms(LON_DELUXE, date(2026, 9, 22), 0)
    ticket = TicketFactory(requester=tobias, booking_id=booking.id, subject="Platinum upgrade at the Aldwych")

    run = tb.run(
        User(
            says="I'd like my free Platinum upgrade for my Aldwych Grand stay from the 21st. If the next room up is "
            "taken, just give me a Club Room for free instead, that's only fair. If you really can't do that for "
            "free, I'd pay for the Club Room, as long as it's no more than 120 euros a night extra.",
            knows=traveller_facts(tobias, booking),
            persona="A business development manager who expects his status to count for something.",
            rules=(
                "If refused, insist once that your free upgrade should be the Club Room; you would pay for a Club "
                "Room only if it costs at most 120 euros a night more than your current rate.",
            ),
        ),
        golden=[
            *opening(
                tobias,
                get_traveller(tobias),
                get_booking(booking),
                availability(LONDON, "2026-09-21", "2026-09-24"),
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
            ),
            *paid_upgrade(
                booking,
                LON_CLUB,
                33_000,
                derived(30_000, "(33,000 negotiated Club - 23,000) x 3 nights; 100.00 a night more"),
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # the upgrade priced at the Club rack rate of 395.00
            charge_booking(booking, 49_500, "room_upgrade")
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.nightly_rate_cents, stay.upgrade_allowance_used) == (LON_CLUB, 33_000, False)
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 30_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_TR025_001(tb):
    """Cancel this week's Lisbon stay (window passed, a night kept), not October's; book Frankfurt at the contract
    rate: an invoice 29 days overdue and a void one 39 days past due leave the account in good standing."""
    account = CorporateAccountFactory(name="Solent Marine Ltd")
    NegotiatedRateFactory(account_id=account.id, room_type_id=FRA_DOUBLE, nightly_rate_cents=14_200)
    InvoiceFactory(
        account_id=account.id, amount_cents=288_000, issued_on=date(2026, 7, 1), due_on=date(2026, 7, 31), status="void"
    )
    InvoiceFactory(account_id=account.id, amount_cents=196_400, issued_on=date(2026, 7, 11), due_on=date(2026, 8, 10))
    rhys = TravellerFactory(name="Rhys Morgan", account_id=account.id)
    october = booking_for(rhys, LIS_STANDARD, date(2026, 10, 12), 2, 18_900)
    this_week = booking_for(rhys, LIS_STANDARD, date(2026, 9, 9), 2, 18_900)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=rhys, booking_id=this_week.id, subject="Lisbon off, Frankfurt on")

    run = tb.run(
        User(
            says="Change of plan this week: the Lisbon survey is off, so please cancel my Harbourline room starting "
            "tomorrow. I go to our Frankfurt client instead, so book me a Business Double at the Kestrel Park from "
            "9 to 11 September. I know accounts owe you an invoice from August; they say it's in hand.",
            knows={"email": rhys.email, "employee number": rhys.employee_number},
            rules=("You want only this week's stay cancelled; the October Lisbon stay goes ahead.",),
        ),
        golden=[
            *opening(
                rhys,
                list_bookings(rhys),
                get_booking(this_week),
                *standing(account.id),
                rate_caps(account.id),
                availability(FRANKFURT, "2026-09-09", "2026-09-11"),
            ),
            *cancel(
                this_week,
                derived(
                    16_400,
                    "the window ended 7 Sep 15:00: the 37,800 paid less one night at 18,900 less the 2,500 service fee",
                ),
            ),
            book(rhys, FRA_DOUBLE, "2026-09-09", "2026-09-11", 14_200),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[cancel_booking(october)],  # the other Lisbon stay, listed first
    )

    run.expect_golden()
    assert (run.db.get(Booking, this_week.id).status, run.db.get(Booking, october.id).status) == (
        "cancelled",
        "confirmed",
    )
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 16_400
    new = run.db.query(Booking).filter_by(hotel_id=FRANKFURT).one()  # 29 days overdue is still good standing
    assert (new.room_type_id, new.nightly_rate_cents, new.total_cents) == (FRA_DOUBLE, 14_200, 28_400)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_TR025_002(tb):
    """Tonight's one-night Frankfurt room is past its window, so nothing is left to refund: cancel, refund nothing;
    the Lisbon stay loses its last night inside the window: refund it in full."""
    bas = TravellerFactory(name="Bas Kuiper")
    booking_for(bas, FRA_SINGLE, date(2026, 9, 1), 1, 12_400, status="completed", booked_at=days_ago(20, hour=10))
    tonight = booking_for(bas, FRA_SINGLE, date(2026, 9, 8), 1, 12_400)  # free until 7 Sep 15:00
    lisbon = booking_for(bas, LIS_SUPERIOR, date(2026, 9, 22), 4, 19_900)  # free until 20 Sep 15:00
    ticket = TicketFactory(requester=bas, subject="Frankfurt tonight and Lisbon")

    run = tb.run(
        User(
            says="My Frankfurt meeting today was moved online, so please cancel tonight's room at the Kestrel Park "
            "and refund what you can. And in Lisbon later this month I'll check out on the 25th, a day earlier "
            "than booked.",
            knows={"email": bas.email, "employee number": bas.employee_number},
        ),
        golden=[
            *opening(bas, list_bookings(bas), get_booking(tonight), get_booking(lisbon)),
            cancel_booking(tonight),
            move_dates(
                lisbon,
                "2026-09-22",
                derived(
                    "2026-09-25", "he checks out 'on the 25th', a day before the booked 26 September 2026 check-out"
                ),
            ),
            issue_refund(lisbon, 19_900, "date_change"),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # "refund what you can": the 124.00 night less the fee, as if inside the window
            issue_refund(tonight, 9_900, "cancellation", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, tonight.id).status == "cancelled"
    assert run.db.get(Booking, lisbon.id).check_out == date(2026, 9, 25)
    refunds = run.db.query(Payment).filter_by(kind="refund").all()
    assert [(p.booking_id, p.amount_cents, p.reason) for p in refunds] == [(lisbon.id, 19_900, "date_change")]
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


@pytest.mark.two_requests
def test_case_TR025_003(tb):
    """No open ticket; two charges questioned: Amsterdam charged twice by us (refund it), Lisbon charged again by
    the hotel (a resolved service escalation is another matter: escalate the charge); open a ticket, hold."""
    ingrid = TravellerFactory(name="Ingrid Sjoberg", account_id=NORRLAND)
    amsterdam = booking_for(ingrid, AMS_STANDARD, date(2026, 9, 14), 2, 19_000)
    PaymentFactory(booking=amsterdam, created_at=amsterdam.booked_at.replace(minute=6))  # our second booking charge
    lisbon = booking_for(
        ingrid, LIS_STANDARD, date(2026, 8, 31), 3, 16_500, status="completed", booked_at=days_ago(30, hour=9)
    )
    PartnerEscalationFactory(
        booking=lisbon,
        kind="service_failure",
        amount_cents=0,
        status="resolved",
        created_at=days_ago(6, hour=14),
        description="Air conditioning out of order on the first night; the hotel apologised and moved the guest.",
    )
    old = earlier_ticket(ingrid, "Broken air conditioning", "solved", days_ago(6, hour=13), lisbon)

    run = tb.run(
        User(
            says="I see two problems on my card. The Meridian Quay booking for next week was taken twice by Atlas, "
            "380 euros each time. And the Harbourline in Lisbon took 495 euros from me again when I checked out on "
            "3 September, although my stay was already paid. Please get both back.",
            knows={
                "email": ingrid.email,
                "Amsterdam booking reference": amsterdam.id,
                "Lisbon booking reference": lisbon.id,
            },
        ),
        golden=[
            *opening(
                ingrid,
                get_booking(amsterdam),
                payments(amsterdam),
                get_booking(lisbon),
                payments(lisbon),
                list_escalations(lisbon),
            ),
            new_ticket(ingrid, "Charged twice in Amsterdam and Lisbon", "billing", amsterdam),
            issue_refund(amsterdam, 38_000, "duplicate_charge"),
            escalate(
                lisbon,
                "duplicate_charge",
                49_500,
                "Guest charged 495.00 at checkout on 3 Sep for a stay already charged by us.",
            ),
            *on_hold(
                "T-1002",
                None,
                "awaiting_hotel",
                "Amsterdam duplicate refunded; Lisbon checkout charge of 49,500 cents escalated to the hotel.",
            ),
        ],
        traps=[  # the hotel's Lisbon charge refunded by us
            issue_refund(lisbon, 49_500, "duplicate_charge")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.booking_id, refund.amount_cents, refund.service_fee_cents) == (amsterdam.id, 38_000, 0)
    opened = run.db.query(PartnerEscalation).filter_by(status="sent").one()
    assert (opened.booking_id, opened.kind, opened.amount_cents) == (lisbon.id, "duplicate_charge", 49_500)
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (ingrid.id, amsterdam.id)
    assert new.outcome == ("hold", "high", "billing", "awaiting_hotel", "partner_relations")
    assert run.db.get(Ticket, old.id).outcome == ("solved", "normal", None, None, None)
    assert run.db.query(TicketComment).one().public is False


def test_case_TR026_001(tb):
    """A stay moved a week later with the same three nights, after the window: no night kept and nothing charged."""
    cormac = TravellerFactory(name="Cormac Byrne", account_id=CASTELLAN)
    booking = booking_for(cormac, LON_DELUXE, date(2026, 9, 9), 3, 26_000)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=cormac, booking_id=booking.id, subject="Move London stay")

    run = tb.run(
        User(
            says="The client has moved our London workshop by exactly a week, so I need my Aldwych Grand room from "
            "16 to 19 September instead of 9 to 12. I know I'm past the cancellation deadline, so go ahead and "
            "charge me the penalty night if you have to.",
            knows=traveller_facts(cormac, booking),
        ),
        golden=[
            *opening(
                cormac, get_booking(booking), *standing(CASTELLAN), availability(LONDON, "2026-09-16", "2026-09-19")
            ),
            move_dates(booking, "2026-09-16", "2026-09-19"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # "charge me the penalty night": one night at the booking's 260.00 rate
            charge_booking(booking, 26_000, "extra_nights")
        ],
    )

    run.expect_golden()
    moved = run.db.get(Booking, booking.id)
    assert (moved.check_in, moved.check_out, moved.total_cents) == (date(2026, 9, 16), date(2026, 9, 19), 78_000)
    assert run.db.query(Payment).count() == 1  # policy: a move with the same nights moves no money
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


def test_case_TR026_002(tb):
    """Arriving a day earlier and leaving a day later: both added nights are charged at the booking's old 132.00
    rate, not at today's 139.00 contract rate."""
    wouter = TravellerFactory(name="Wouter Dekker")
    booking = booking_for(wouter, FRA_DOUBLE, date(2026, 9, 14), 2, 13_200)
    ticket = TicketFactory(requester=wouter, booking_id=booking.id, subject="Frankfurt dates changed")

    run = tb.run(
        User(
            says="The Frankfurt commissioning now starts a day earlier and ends a day later, so please change my "
            "Kestrel Park booking from 14-16 September to 13-17 September. Charge the extra nights at whatever your "
            "current company price for the Business Double is.",
            knows=traveller_facts(wouter, booking),
        ),
        golden=[
            *opening(
                wouter, get_booking(booking), availability(FRANKFURT, "2026-09-13", "2026-09-17"), *standing(VELDHOVEN)
            ),
            move_dates(booking, "2026-09-13", "2026-09-17"),
            charge_booking(
                booking,
                derived(26_400, "the added nights of 13 and 16 Sep at the booking's 13,200 each"),
                "extra_nights",
            ),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # "at whatever your current company price is": two nights at the 139.00 negotiated rate
            charge_booking(booking, 27_800, "extra_nights")
        ],
    )

    run.expect_golden()
    moved = run.db.get(Booking, booking.id)
    assert (moved.check_in, moved.nights, moved.nightly_rate_cents) == (date(2026, 9, 13), 4, 13_200)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 26_400  # the booking's rate
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


@pytest.mark.two_requests
def test_case_TR027_001(tb):
    """A contract Loft rate valid from 1 October prices an upgrade of a stay checking in on 1 October, though it is
    not valid today; the Silver member also pays the 45.00 late checkout she accepts."""
    NegotiatedRateFactory(
        account_id=VELDHOVEN,
        room_type_id=AMS_LOFT,
        nightly_rate_cents=26_500,
        valid_from=date(2026, 10, 1),
        valid_until=date(2027, 9, 30),
    )
    femke = TravellerFactory(name="Femke Smit")
    LoyaltyProfileFactory(traveller=femke, tier="silver", tier_valid_until=date(2027, 3, 31))
    booking = booking_for(femke, AMS_CANAL_VIEW, date(2026, 10, 1), 3, 25_500)
    ticket = TicketFactory(requester=femke, booking_id=booking.id, subject="Loft and late checkout in Amsterdam")

    run = tb.run(
        User(
            says="For my Meridian Quay stay from 1 October I'd like to move up to a Loft Room; the hotel lists it at "
            "310 a night, so I expect to pay the difference to that. And I'd like a late checkout on my last "
            "morning too.",
            knows={
                **traveller_facts(femke, booking),
                "accept the late checkout fee": "yes, I'll pay the hotel's late checkout fee",
            },
        ),
        golden=[
            *opening(
                femke,
                get_traveller(femke),
                get_booking(booking),
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(AMSTERDAM, "2026-10-01", "2026-10-04"),
                get_hotel(AMSTERDAM),
            ),
            *paid_upgrade(
                booking,
                AMS_LOFT,
                26_500,
                derived(3_000, "(26,500 contract Loft rate, valid from the 1 Oct check-in - 25,500) x 3 nights"),
            ),
            late_checkout(booking, 4_500),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # "I expect to pay the difference to that": the 310.00 rack rate less 255.00, three nights
            charge_booking(booking, 16_500, "room_upgrade")
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.nightly_rate_cents, stay.late_checkout) == (AMS_LOFT, 26_500, True)
    charges = {p.reason: p.amount_cents for p in run.db.query(Payment).filter_by(kind="charge")}
    assert charges == {"booking": 76_500, "room_upgrade": 3_000, "late_checkout": 4_500}
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_TR028_001(tb):
    """Two hotels charged twice at checkout: the Aldwych duplicate is already escalated (acknowledged), the Meridian
    Quay one is not; an open escalation on one booking does not cover the other: escalate it, refund nothing."""
    rosalind = TravellerFactory(name="Rosalind Avery", account_id=CASTELLAN)
    london = booking_for(
        rosalind, LON_DELUXE, date(2026, 8, 31), 3, 27_500, status="completed", booked_at=days_ago(28, hour=9)
    )
    PartnerEscalationFactory(
        booking=london, amount_cents=82_500, status="acknowledged", created_at=days_ago(4, hour=10)
    )
    amsterdam = booking_for(
        rosalind, AMS_STANDARD, date(2026, 9, 4), 2, 18_500, status="completed", booked_at=days_ago(20, hour=15)
    )
    earlier = earlier_ticket(rosalind, "Aldwych charged me twice", "hold", days_ago(4, hour=9), london, priority="high")
    ticket = TicketFactory(requester=rosalind, booking_id=amsterdam.id, subject="Charged twice again")

    run = tb.run(
        User(
            says="Now the Meridian Quay has also charged me a second time, 370 euros at checkout on the 6th, on top "
            "of what Atlas charged. And the Aldwych still hasn't paid back their double charge from last week. I'm "
            "done waiting for hotels: please refund both to my card yourselves.",
            knows={
                "email": rosalind.email,
                "Amsterdam booking reference": amsterdam.id,
                "London booking reference": london.id,
            },
            rules=(
                "If refused, insist once that Atlas should pay and chase the hotels itself; then accept an answer "
                "that gives a reason.",
            ),
        ),
        golden=[
            *opening(
                rosalind,
                get_booking(amsterdam),
                payments(amsterdam),
                list_escalations(amsterdam),
                get_booking(london),
                payments(london),
                list_escalations(london),
            ),
            escalate(
                amsterdam,
                "duplicate_charge",
                37_000,
                "Guest charged 370.00 at checkout on 6 Sep for a stay already charged by us.",
            ),
            *on_hold(
                ticket.id,
                "billing",
                "awaiting_hotel",
                "Meridian Quay duplicate of 37,000 cents escalated; the Aldwych duplicate is already escalated "
                "and acknowledged. No refund by us.",
            ),
        ],
        traps=[  # "please refund both to my card yourselves"
            issue_refund(amsterdam, 37_000, "duplicate_charge"),
            issue_refund(london, 82_500, "duplicate_charge"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: never refund for the hotel
    escalations = sorted((e.booking_id, e.status, e.amount_cents) for e in run.db.query(PartnerEscalation))
    assert escalations == [(london.id, "acknowledged", 82_500), (amsterdam.id, "sent", 37_000)]
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "awaiting_hotel", "partner_relations")
    assert run.db.get(Ticket, earlier.id).outcome == ("hold", "high", None, None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_TR029_001(tb):
    """An unconfirmed booking is no hotel fault and no disruption affects it, so no relocation: cancel it inside
    the window less the fee, and book the Alfama Terrace at the account's Patio rate."""
    marit = TravellerFactory(name="Marit Kok")
    booking = booking_for(
        marit, LIS_SUPERIOR, date(2026, 9, 21), 3, 19_900, hotel_confirmation="awaiting"
    )  # free until 19 Sep 15:00
    ticket = TicketFactory(requester=marit, booking_id=booking.id, subject="Harbourline never confirmed")

    run = tb.run(
        User(
            says="The Harbourline still hasn't confirmed my room for the 21st, and I'm not going to wait any longer. "
            "Cancel it and book me a Patio Room at the Alfama Terrace for the same three nights instead. It's the "
            "hotel's fault, so I don't expect to pay your cancellation fee.",
            knows=cancel_facts(marit, booking),
            rules=(
                "If you do not get everything back, say once that the hotel is to blame; then accept an answer that "
                "gives a reason.",
            ),
        ),
        golden=[
            *opening(
                marit,
                get_booking(booking),
                disruptions(LISBON),
                search_hotels("Lisbon"),
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                availability(LISBON_ALFAMA, "2026-09-21", "2026-09-24"),
            ),
            *cancel(
                booking,
                derived(
                    57_200, "awaiting is no hotel fault; inside the window: the 59,700 paid less the 2,500 service fee"
                ),
            ),
            book(marit, ALF_PATIO, "2026-09-21", "2026-09-24", 21_500),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "cancelled"  # cancelled, not relocated
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (57_200, "cancellation", 2_500)
    new = run.db.query(Booking).filter_by(hotel_id=LISBON_ALFAMA).one()
    assert (new.room_type_id, new.nightly_rate_cents, new.relocated_from_id) == (ALF_PATIO, 21_500, None)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


def test_case_TR026_003(tb):
    """The extra night is full in his room type, so his named alternative, a paid late checkout, is made and the
    ticket is classified on it: late_checkout, no reason."""
    ravi = TravellerFactory(name="Ravi Menon")
    LoyaltyProfileFactory(traveller=ravi, tier="silver", tier_valid_until=date(2027, 2, 28))
    booking = booking_for(ravi, FRA_COMFORT, date(2026, 9, 16), 2, 16_500)
    set_available_rooms(FRA_COMFORT, date(2026, 9, 18), 0)
    ticket = TicketFactory(requester=ravi, booking_id=booking.id, subject="One more night in Frankfurt?")

    run = tb.run(
        User(
            says="Could you add a night to my Kestrel Park stay next week, so I leave on the 19th instead of the "
            "18th? If that isn't possible, then just give me a late checkout on the 18th instead; I'll pay the "
            "hotel's fee for it.",
            knows=traveller_facts(ravi, booking),
            rules=("If your first request cannot be met, take the alternative you named.",),
        ),
        golden=[
            *opening(
                ravi,
                get_traveller(ravi),
                get_booking(booking),
                *standing(VELDHOVEN),
                availability(FRANKFURT, "2026-09-18", "2026-09-19"),
                get_hotel(FRANKFURT),
            ),
            late_checkout(booking, 3_500),
            solved(ticket.id, "late_checkout"),
        ],
        reply="I'm sorry, the Comfort Plus is fully booked on the night of 18 September, so I can't extend your stay. "
        "As you asked, I've arranged a late checkout until 14:00 on 18 September instead, for the hotel's fee of EUR "
        "35.00.",
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.check_out, stay.late_checkout) == (date(2026, 9, 18), True)
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 3_500  # Silver pays
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "late_checkout", None, None)


@pytest.mark.two_requests
def test_case_TR020_003(tb):
    """Extended to 19 Sep at the booking's own rate; her Gold runs only to 18 Sep, so the late checkout on the new
    last morning is not complimentary and, as she will not pay, not made: not_eligible."""
    elin = TravellerFactory(name="Elin Nyberg", account_id=NORRLAND)
    LoyaltyProfileFactory(traveller=elin, tier="gold", tier_valid_until=date(2026, 9, 18))
    booking = booking_for(elin, AMS_CANAL_VIEW, date(2026, 9, 15), 3, 22_500)
    ticket = TicketFactory(requester=elin, booking_id=booking.id, subject="Longer Amsterdam stay")

    run = tb.run(
        User(
            says="My Amsterdam workshop got an extra day, so please extend my Meridian Quay stay by one night, to "
            "the 19th. And on my last morning I'd like my free Gold late checkout. I won't pay for a late checkout "
            "though.",
            knows=traveller_facts(elin, booking),
        ),
        golden=[
            *opening(
                elin,
                get_traveller(elin),
                get_booking(booking),
                *standing(NORRLAND),
                availability(AMSTERDAM, "2026-09-18", "2026-09-19"),
            ),
            move_dates(booking, "2026-09-15", "2026-09-19"),
            charge_booking(booking, 22_500, "extra_nights"),
            solved(ticket.id, "date_change", "not_eligible"),
        ],
        traps=[  # judged on the old 18 Sep check-out, the late checkout given for free
            late_checkout(booking, 0)
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.check_out, stay.late_checkout) == (date(2026, 9, 19), False)  # Gold ends before the new check-out
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 22_500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", "not_eligible", None)


def test_case_TR027_002(tb):
    """The Junior Suite at its 419.00 rack rate is above the 250.00 Lisbon cap and would need approval, so he takes
    his fallback: the Executive at the 249.00 contract rate, within the cap, as a paid upgrade."""
    CityRateCapFactory(account_id=VELDHOVEN, city="Lisbon", max_nightly_rate_cents=25_000)
    jeroen = TravellerFactory(name="Jeroen Post")
    booking = booking_for(jeroen, LIS_SUPERIOR, date(2026, 9, 22), 3, 19_900)
    ticket = TicketFactory(requester=jeroen, booking_id=booking.id, subject="Bigger room in Lisbon")

    run = tb.run(
        User(
            says="I'd like to upgrade my Harbourline room next week to the Junior Suite, I'll be hosting a small "
            "meeting there. If that needs someone's sign-off first, forget the suite and give me an Executive Room "
            "instead, I'll pay the difference.",
            knows=traveller_facts(jeroen, booking),
            rules=("Hold to what you said: if the suite would need someone's sign-off, you want the alternative.",),
        ),
        golden=[
            *opening(
                jeroen,
                get_booking(booking),
                get_hotel(LISBON),
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                approvals(booking),
                availability(LISBON, "2026-09-22", "2026-09-25"),
            ),
            *paid_upgrade(
                booking, LIS_EXECUTIVE, 24_900, derived(15_000, "(24,900 negotiated Executive - 19,900) x 3 nights")
            ),
            solved(ticket.id, "room_upgrade"),
        ],
        traps=[  # the suite's cap exception asked for although he took the Executive instead
            request_approval(
                booking, "cap_exception", LIS_SUITE, 41_900, "Traveller asks for a Junior Suite above the Lisbon cap."
            )
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.nightly_rate_cents) == (LIS_EXECUTIVE, 24_900)
    assert run.db.query(Payment).filter_by(reason="room_upgrade").one().amount_cents == 15_000
    assert run.db.query(ApprovalRequest).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "room_upgrade", None, None)


@pytest.mark.pushback
def test_case_TR029_002(tb):
    """The hotel cannot honour a stay that was shortened after its window: a hotel fault refunds everything still
    refundable, 825.00 (the kept night included), not the 550.00 booking total nor the 1,100.00 first paid."""
    imogen = TravellerFactory(name="Imogen Clarke", account_id=CASTELLAN)
    # free until 7 Sep 15:00; the booking charge of 1,100.00: booked for four nights, 9 to 13 September
    booking = booking_for(
        imogen,
        LON_DELUXE,
        date(2026, 9, 9),
        2,
        27_500,
        hotel_confirmation="cannot_honour",
        payment__amount_cents=110_000,
    )
    PaymentFactory(
        booking=booking,
        kind="refund",
        reason="date_change",
        amount_cents=27_500,
        created_at=days_ago(1, hour=18),
    )  # shortened to two nights last night, after the window: the night of 11 Sep kept
    room_disruption(
        LON_DELUXE,
        "overbooking",
        date(2026, 9, 9),
        date(2026, 9, 10),
        "Deluxe Kings overbooked for a trade fair; the hotel cannot honour some reservations.",
    )
    ticket = TicketFactory(requester=imogen, booking_id=booking.id, subject="Aldwych overbooked")

    run = tb.run(
        User(
            says="The Aldwych Grand has just told me they're overbooked and can't give me my room tomorrow. I don't "
            "want another hotel, the meetings can be done by video. Cancel it and refund the full EUR 1,100 I paid "
            "for it.",
            knows=cancel_facts(imogen, booking),
            rules=(
                "If you get back less than the 1,100 euros you paid, dispute it once; then accept an answer that "
                "gives a reason.",
            ),
        ),
        golden=[
            *opening(imogen, get_booking(booking), payments(booking)),
            *cancel_for_hotel(booking, 82_500),
            solved(ticket.id, "cancellation"),
        ],
        reply="I've cancelled your Aldwych Grand booking. As the hotel can't honour it, everything still refundable "
        "comes back with no fee: EUR 825.00. The other 275.00 of the 1,100.00 was already refunded to your card when "
        "the stay was shortened.",
        traps=[  # the 1,100.00 first paid taken as the refund, so sent to the payments team
            hold_update(ticket.id, "over_limit")
        ],
    )

    run.expect_golden()
    refunds = sorted(
        (p.reason, p.amount_cents, p.service_fee_cents) for p in run.db.query(Payment).filter_by(kind="refund")
    )
    assert refunds == [("date_change", 27_500, 0), ("hotel_fault", 82_500, 0)]  # policy: all still refundable
    assert run.db.get(Booking, booking.id).status == "cancelled"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.distractors
def test_case_TR025_004(tb):
    """The cheapest single at the company rate in Frankfurt is the Kestrel Park's 124.00, but it is full one night;
    the Westend Linden's single at its 129.00 contract rate is free both nights: book that, not its 139.00 rack."""
    set_available_rooms(FRA_SINGLE, date(2026, 9, 16), 0)
    thijs = TravellerFactory(name="Thijs Vos")
    ticket = TicketFactory(requester=thijs, subject="Frankfurt 15-17 September")

    run = tb.run(
        User(
            says="I need a single room in Frankfurt from 15 to 17 September. Book it at whichever of your Frankfurt "
            "partner hotels is cheapest at our company rate, as long as it's the same room for both nights.",
            knows=traveller_facts(thijs),
        ),
        golden=[
            *opening(
                thijs,
                *standing(VELDHOVEN),
                rate_caps(VELDHOVEN),
                search_hotels("Frankfurt"),
                availability(FRANKFURT, "2026-09-15", "2026-09-17"),
                availability(FRANKFURT_WESTEND, "2026-09-15", "2026-09-17"),
            ),
            book(thijs, WES_SINGLE, "2026-09-15", "2026-09-17", 12_900),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # the Westend single at its 139.00 rack rate
            book(thijs, WES_SINGLE, "2026-09-15", "2026-09-17", 13_900)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.hotel_id, booking.room_type_id, booking.nightly_rate_cents) == (
        FRANKFURT_WESTEND,
        WES_SINGLE,
        12_900,
    )
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


def test_case_TR020_004(tb):
    """In-house guest whose Platinum ran out yesterday, 7 Sep: it was valid on her 6 Sep check-in, which is what
    counts, so the allowance still upgrades the stay one rank, to a Canal View."""
    karin = TravellerFactory(name="Karin Holm", account_id=NORRLAND)
    LoyaltyProfileFactory(traveller=karin, tier="platinum", tier_valid_until=date(2026, 9, 7))
    booking = booking_for(
        karin, AMS_STANDARD, date(2026, 9, 6), 4, 19_000, status="checked_in", booked_at=days_ago(18, hour=12)
    )
    ticket = TicketFactory(requester=karin, booking_id=booking.id, subject="Upgrade during my stay")

    run = tb.run(
        User(
            says="I've been at the Meridian Quay since Sunday and stay until Thursday. My Platinum status ran out "
            "yesterday, I know, but is there still a free upgrade for this stay? The room is very small for working "
            "in.",
            knows=traveller_facts(karin, booking),
        ),
        golden=[
            *opening(
                karin,
                get_traveller(karin),
                get_booking(booking),
                get_hotel(AMSTERDAM),
                availability(AMSTERDAM, "2026-09-08", "2026-09-10"),
            ),
            allowance_upgrade(booking, AMS_CANAL_VIEW),
            solved(ticket.id, "loyalty_upgrade"),
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.room_type_id, stay.nightly_rate_cents, stay.upgrade_allowance_used) == (AMS_CANAL_VIEW, 19_000, True)
    assert run.db.query(Payment).count() == 1  # complimentary
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "loyalty_upgrade", None, None)


@pytest.mark.two_requests
def test_case_TR025_005(tb):
    """Two windows: the Lisbon stay's deadline is this very moment (08:30), which is still inside: refund less the
    fee only; the Amsterdam stay's closed on 7 Sep, so of its two dropped nights the first is kept."""
    linnea = TravellerFactory(name="Linnea Ek", account_id=NORRLAND)
    # a promotional rate with a shorter free-cancellation window
    lisbon = booking_for(
        linnea, LIS_STANDARD, date(2026, 9, 10), 2, 16_500, free_cancellation_until=datetime(2026, 9, 8, 8, 30)
    )
    amsterdam = booking_for(linnea, AMS_CANAL_VIEW, date(2026, 9, 10), 4, 22_500)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=linnea, subject="Lisbon off, Amsterdam shorter")

    run = tb.run(
        User(
            says="My plans for this week changed. Please cancel my Lisbon hotel from Thursday altogether. And my "
            "Amsterdam stay from the same day should end on the 12th instead of the 14th.",
            knows={"email": linnea.email, "employee number": linnea.employee_number},
        ),
        golden=[
            *opening(linnea, list_bookings(linnea), get_booking(lisbon), get_booking(amsterdam)),
            *cancel(
                lisbon,
                derived(
                    30_500,
                    "asked at 08:30, at the deadline of 8 Sep 08:30, so inside the window: the 33,000 paid less the "
                    "2,500 service fee",
                ),
            ),
            move_dates(
                amsterdam,
                "2026-09-10",
                derived("2026-09-12", "the stay ends 'on the 12th instead of the 14th' of September 2026"),
            ),
            issue_refund(amsterdam, 22_500, "date_change"),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # both dropped Amsterdam nights refunded
            issue_refund(amsterdam, 22_500, "date_change")
        ],
    )

    run.expect_golden()
    refunds = run.db.query(Payment).filter_by(kind="refund").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents, p.service_fee_cents) for p in refunds] == [
        (lisbon.id, 30_500, 2_500),  # policy: at the deadline is inside the window
        (amsterdam.id, 22_500, 0),  # after it, the first removed night is kept
    ]
    assert run.db.get(Booking, amsterdam.id).check_out == date(2026, 9, 12)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


def test_case_TR026_004(tb):
    """Two nights added to a stay booked at 325.00, above the account's new 300.00 London cap: a cap does not apply
    to date changes, so the nights are added and charged at the booking's own rate."""
    CityRateCapFactory(account_id=CASTELLAN, city="London", max_nightly_rate_cents=30_000)
    declan = TravellerFactory(name="Declan Rourke", account_id=CASTELLAN)
    booking = booking_for(declan, LON_DELUXE, date(2026, 9, 14), 3, 32_500)
    ticket = TicketFactory(requester=declan, booking_id=booking.id, subject="Two more nights in London")

    run = tb.run(
        User(
            says="The inspection in London will take longer, so please add two nights to my Aldwych Grand stay: I'd "
            "check out on the 19th instead of the 17th. I hear the company put a cap on London hotel prices, I hope "
            "that's no problem for the same room.",
            knows=traveller_facts(declan, booking),
        ),
        golden=[
            *opening(
                declan,
                get_booking(booking),
                *standing(CASTELLAN),
                rate_caps(CASTELLAN),
                availability(LONDON, "2026-09-17", "2026-09-19"),
            ),
            move_dates(booking, "2026-09-14", "2026-09-19"),
            charge_booking(booking, derived(65_000, "two added nights at the booking's own 32,500"), "extra_nights"),
            solved(ticket.id, "date_change"),
        ],
        traps=[  # the added nights priced at the 300.00 cap
            charge_booking(booking, 60_000, "extra_nights")
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.check_out, stay.nightly_rate_cents, stay.total_cents) == (date(2026, 9, 19), 32_500, 162_500)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 65_000  # no cap on dates
    assert run.db.query(ApprovalRequest).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", None, None)


def test_case_TR026_005(tb):
    """She asks to cancel, but when a cancellation after the window would keep a night and the fee she changes her
    mind and keeps the first night only: a shortened stay, the first removed night kept, no fee; date_change."""
    amelie = TravellerFactory(name="Amelie Laurent", account_id=NORRLAND)
    booking = booking_for(amelie, AMS_CANAL_VIEW, date(2026, 9, 9), 4, 22_500)  # free until 6 Sep 15:00
    ticket = TicketFactory(requester=amelie, booking_id=booking.id, subject="Amsterdam trip cut short")

    run = tb.run(
        User(
            says="Most of my Amsterdam programme has been cancelled, so please cancel my Meridian Quay booking from "
            "tomorrow. Although, if cancelling still costs me a night and a fee, then don't cancel: just keep the "
            "first night, so I check out on the 10th, and refund the rest.",
            knows=cancel_facts(amelie, booking),
            rules=("Hold to what you said: if cancelling would cost you anything, you want the one-night stay.",),
        ),
        golden=[
            *opening(amelie, get_booking(booking), payments(booking)),
            move_dates(
                booking, "2026-09-09", derived("2026-09-10", "she keeps only the first night, checking out on the 10th")
            ),
            issue_refund(
                booking,
                derived(
                    45_000,
                    "after the window the first removed night (10 Sep) is kept: 11 and 12 Sep at 22,500 each",
                ),
                "date_change",
            ),
            solved(ticket.id, "date_change", "outside_window"),
        ],
        traps=[  # the third removed night refunded as well
            issue_refund(booking, 22_500, "date_change")
        ],
    )

    run.expect_golden()
    stay = run.db.get(Booking, booking.id)
    assert (stay.status, stay.check_out, stay.nights) == ("confirmed", date(2026, 9, 10), 1)
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (45_000, "date_change", 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "date_change", "outside_window", None)
