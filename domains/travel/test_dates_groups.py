"""Date changes (shortened inside and after the window, extensions, credit hold) and group bookings."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.factories import (
    BookingFactory,
    CorporateAccountFactory,
    GroupBookingFactory,
    TicketFactory,
    TravellerFactory,
)
from domains.travel.models import Booking, Payment, Ticket, TicketComment
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_DOUBLE,
    FRANKFURT,
    LIS_EXECUTIVE,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LISBON,
    LON_DELUXE,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call, derived


def _group_rooms(group, travellers, room_type_id, rate):
    """One room per traveller in `group`, all of one room type and rate, for the group's dates."""
    nights = (group.check_out - group.check_in).days
    return [
        BookingFactory(
            traveller=t,
            group=group,
            room_type_id=room_type_id,
            check_in=group.check_in,
            nights=nights,
            nightly_rate_cents=rate,
            booked_at=group.created_at,
        )
        for t in travellers
    ]


def test_case_TR006_001(tb):
    """One night dropped before the deadline: refund that night with no service fee, even though one is offered."""
    elin = TravellerFactory(name="Elin Nyberg", account_id=NORRLAND)
    booking = BookingFactory(
        traveller=elin, room_type_id=LIS_SUPERIOR, check_in=date(2026, 9, 20), nights=4, nightly_rate_cents=20_500
    )  # free until 18 Sep 15:00
    ticket = TicketFactory(requester=elin, booking_id=booking.id, subject="Leave Lisbon a day early")

    run = tb.run(
        User(
            says="I'm flying home from Lisbon a day early, on the 23rd. Please shorten my hotel booking. I know you "
            "take a service fee on changes, that's fine.",
            knows={"email": elin.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=elin.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=elin.id),
            call(
                "modify_booking_dates",
                booking_id=booking.id,
                check_in="2026-09-20",
                check_out=derived(
                    "2026-09-23",
                    "she flies home 'on the 23rd' of the stay that runs 20 to 24 September 2026: check-out moves "
                    "to 23 September 2026, check-in stays",
                ),
            ),
            call("issue_refund", booking_id=booking.id, amount_cents=20_500, reason="date_change", service_fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "I know you take a service fee on changes": the fee withheld from the night's refund
            call(
                "issue_refund",
                booking_id=booking.id,
                amount_cents=18_000,
                reason="date_change",
                service_fee_cents=2_500,
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).total_cents == 61_500
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (20_500, 0)  # policy: no fee on a date change


def test_case_TR006_002(tb):
    """Three nights dropped after the deadline: the first removed night is charged, two are refunded, no fee."""
    george = TravellerFactory(name="George Hartley", account_id=CASTELLAN)
    booking = BookingFactory(
        traveller=george, room_type_id=LON_DELUXE, check_in=date(2026, 9, 9), nights=5, nightly_rate_cents=27_500
    )  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=george, booking_id=booking.id, subject="Shorter London stay")

    run = tb.run(
        User(
            says="My London trip has been cut short, I'll check out on the 11th instead of the 14th. Please shorten "
            "the booking and refund the three nights I won't use.",
            knows={"email": george.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=george.email),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=george.id),
            call(
                "modify_booking_dates",
                booking_id=booking.id,
                check_in="2026-09-09",
                check_out=derived(
                    "2026-09-11",
                    "he checks out 'on the 11th instead of the 14th' of the stay that runs 9 to 14 September 2026: "
                    "check-out moves to 11 September 2026, check-in stays",
                ),
            ),
            call("issue_refund", booking_id=booking.id, amount_cents=55_000, reason="date_change", service_fee_cents=0),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "refund the three nights I won't use": all three removed nights at 275.00
            call("issue_refund", booking_id=booking.id, amount_cents=82_500, reason="date_change", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).nights == 2
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 55_000  # policy: first night kept


def test_case_TR006_003(tb):
    """Extra night charged at the booking's own 132.00 rate, not at today's 139.00 negotiated rate."""
    lotte = TravellerFactory(name="Lotte Hendriks")
    booking = BookingFactory(
        traveller=lotte, room_type_id=FRA_DOUBLE, check_in=date(2026, 9, 9), nights=2, nightly_rate_cents=13_200
    )
    ticket = TicketFactory(requester=lotte, booking_id=booking.id, subject="One more night in Frankfurt")

    run = tb.run(
        User(
            says="My Frankfurt audit runs a day longer. Please extend my Kestrel Park stay by one night so I check "
            "out on the 12th, and charge it at whatever today's company rate is.",
            knows={"email": lotte.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=lotte.email),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_account_invoices", account_id=VELDHOVEN),
            call("get_booking", booking_id=booking.id),
            call("search_availability", hotel_id=FRANKFURT, check_in="2026-09-11", check_out="2026-09-12"),
            call("list_tickets", requester_id=lotte.id),
            call("modify_booking_dates", booking_id=booking.id, check_in="2026-09-09", check_out="2026-09-12"),
            call("charge_booking", booking_id=booking.id, amount_cents=13_200, reason="extra_nights"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "charge it at whatever today's company rate is": the 139.00 negotiated Business Double rate
            call("charge_booking", booking_id=booking.id, amount_cents=13_900, reason="extra_nights")
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).check_out == date(2026, 9, 12)
    assert run.db.query(Payment).filter_by(reason="extra_nights").one().amount_cents == 13_200


@pytest.mark.tb_validity(
    baseline_ok={
        "hold": "Kari Solberg's account is on credit_hold and added nights charge money: the policy leaves the "
        "dates as they are and holds the ticket (high) with one internal note for accounts receivable, which is "
        "the hold ending; the modify_booking_dates and charge_booking traps catch the agent who extends anyway"
    }
)
def test_case_TR006_004(tb):
    """Extension asked by a traveller whose account is on credit hold: dates unchanged, ticket on hold (high)."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    kari = TravellerFactory(name="Kari Solberg", account_id=account.id)
    booking = BookingFactory(
        traveller=kari, room_type_id=AMS_STANDARD, check_in=date(2026, 9, 9), nights=2, nightly_rate_cents=21_000
    )
    ticket = TicketFactory(requester=kari, booking_id=booking.id, subject="Extend Amsterdam stay")

    run = tb.run(
        User(
            says="Can you add two more nights to my Meridian Quay booking, so I check out on the 13th instead of the "
            "11th? Same room is fine.",
            knows={"email": kari.email, "booking reference": booking.id},
        ),
        golden=[
            call("find_traveller_by_email", email=kari.email),
            call("get_corporate_account", account_id=account.id),
            call("get_booking", booking_id=booking.id),
            call("list_tickets", requester_id=kari.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="high"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Two-night extension refused: the account is on credit hold.",
                public=False,
            ),
        ],
        traps=[  # "same room is fine": extended to the 13th as asked, and the two nights charged
            call("modify_booking_dates", booking_id=booking.id, check_in="2026-09-09", check_out="2026-09-13"),
            call("charge_booking", booking_id=booking.id, amount_cents=42_000, reason="extra_nights"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).check_out == date(2026, 9, 11)  # policy: credit hold, no added nights
    assert run.db.query(Payment).count() == 1


def test_case_TR005_001(tb):
    """Organiser upgrades two of four group rooms: charge each upgraded room its own difference, not her room."""
    inge = TravellerFactory(name="Inge Vermeulen")
    pieter = TravellerFactory(name="Pieter Jansen")
    maarten = TravellerFactory(name="Maarten Visser")
    sanne = TravellerFactory(name="Sanne Bos")
    group = GroupBookingFactory(
        organiser=inge, hotel_id=LISBON, name="Veldhoven sales kick-off", check_in=date(2026, 9, 23)
    )
    own, room_pieter, room_maarten, _ = _group_rooms(group, [inge, pieter, maarten, sanne], LIS_STANDARD, 15_900)
    ticket = TicketFactory(requester=inge, subject="Upgrade two rooms in our group")

    run = tb.run(
        User(
            says="I organise the Veldhoven sales kick-off group in Lisbon. Please upgrade the rooms of our two "
            "directors, Pieter Jansen and Maarten Visser, to Executive Rooms, and put the whole upgrade cost on my "
            "own room's booking so it's all on one card.",
            knows={"email": inge.email, "group reference": group.id},
        ),
        golden=[
            call("find_traveller_by_email", email=inge.email),
            call("get_group_booking", group_id=group.id),
            call("get_corporate_account", account_id=VELDHOVEN),
            call("list_account_invoices", account_id=VELDHOVEN),
            call("search_availability", hotel_id=LISBON, check_in="2026-09-23", check_out="2026-09-26"),
            call("list_tickets", requester_id=inge.id),
            call("change_room_type", booking_id=room_pieter.id, room_type_id=LIS_EXECUTIVE, nightly_rate_cents=24_900),
            call("charge_booking", booking_id=room_pieter.id, amount_cents=27_000, reason="room_upgrade"),
            call("change_room_type", booking_id=room_maarten.id, room_type_id=LIS_EXECUTIVE, nightly_rate_cents=24_900),
            call("charge_booking", booking_id=room_maarten.id, amount_cents=27_000, reason="room_upgrade"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "put the whole upgrade cost on my own room's booking"
            call("charge_booking", booking_id=own.id, amount_cents=54_000, reason="room_upgrade")
        ],
    )

    run.expect_golden()
    upgrades = run.db.query(Payment).filter_by(reason="room_upgrade").order_by(Payment.booking_id).all()
    assert [(p.booking_id, p.amount_cents) for p in upgrades] == [(room_pieter.id, 27_000), (room_maarten.id, 27_000)]
    assert run.db.get(Booking, own.id).room_type_id == LIS_STANDARD


def test_case_TR005_002(tb):
    """A group guest asks to upgrade her own room: only the organiser may change group rooms; ticket pending."""
    harriet = TravellerFactory(name="Harriet Cole", account_id=CASTELLAN)
    tom = TravellerFactory(name="Tom Whitfield", account_id=CASTELLAN)
    niamh = TravellerFactory(name="Niamh Gallagher", account_id=CASTELLAN)
    group = GroupBookingFactory(
        organiser=harriet, hotel_id=AMSTERDAM, name="Castellan regulatory workshop", check_in=date(2026, 9, 21)
    )
    _, _, room_niamh = _group_rooms(group, [harriet, tom, niamh], AMS_STANDARD, 18_500)
    ticket = TicketFactory(requester=niamh, booking_id=room_niamh.id, subject="Canal View upgrade")

    run = tb.run(
        User(
            says="I'm in the Castellan workshop group at the Meridian Quay. Could you upgrade my own room to a Canal "
            "View? I'll pay the difference myself.",
            knows={"email": niamh.email, "booking reference": room_niamh.id},
        ),
        golden=[
            call("find_traveller_by_email", email=niamh.email),
            call("get_booking", booking_id=room_niamh.id),
            call("get_group_booking", group_id=group.id),
            call("list_tickets", requester_id=niamh.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Guest asks for a Canal View upgrade of a group room; awaiting the organiser's request.",
                public=False,
            ),
        ],
        traps=[  # "I'll pay the difference myself": her room upgraded at Castellan's 220.00 Canal View rate
            call("change_room_type", booking_id=room_niamh.id, room_type_id=AMS_CANAL_VIEW, nightly_rate_cents=22_000)
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_niamh.id).room_type_id == AMS_STANDARD  # policy: only the organiser may ask
    assert run.db.get(Ticket, ticket.id).status == "pending"
    assert run.db.query(TicketComment).count() == 1
    assert AMS_CANAL_VIEW not in {b.room_type_id for b in run.db.query(Booking)}


def test_case_TR005_003(tb):
    """Organiser cancels one group room: the group's deadline (passed) counts, not the room's own (still ahead)."""
    harriet = TravellerFactory(name="Harriet Cole", account_id=CASTELLAN)
    ravi = TravellerFactory(name="Ravi Sharma", account_id=CASTELLAN)
    niamh = TravellerFactory(name="Niamh Gallagher", account_id=CASTELLAN)
    group = GroupBookingFactory(
        organiser=harriet, hotel_id=AMSTERDAM, name="Castellan supplier summit", check_in=date(2026, 9, 14)
    )  # group free until 31 Aug 18:00; each room's own deadline is 11 Sep 15:00
    _, room_ravi, _ = _group_rooms(group, [harriet, ravi, niamh], AMS_STANDARD, 18_500)
    ticket = TicketFactory(requester=harriet, subject="Cancel one room of the summit group")

    run = tb.run(
        User(
            says="Ravi Sharma can no longer come to the supplier summit in Amsterdam. Please cancel his room in our "
            "group. The hotel's cancellation deadline on his room isn't until Friday, so it should be free apart "
            "from your fee.",
            knows={"email": harriet.email, "group reference": group.id},
        ),
        golden=[
            call("find_traveller_by_email", email=harriet.email),
            call("get_group_booking", group_id=group.id),
            call("get_booking", booking_id=room_ravi.id),
            call("list_tickets", requester_id=harriet.id),
            call("cancel_booking", booking_id=room_ravi.id),
            call(
                "issue_refund",
                booking_id=room_ravi.id,
                amount_cents=derived(
                    34_500,
                    "the group's deadline (31 Aug 18:00) has passed: the 55,500 still refundable less one night at "
                    "18,500 less the 2,500 service fee",
                ),
                reason="cancellation",
                service_fee_cents=2_500,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "his room's deadline isn't until Friday": the night refunded as if inside the window
            call(
                "issue_refund", booking_id=room_ravi.id, amount_cents=18_500, reason="cancellation", service_fee_cents=0
            )
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, room_ravi.id).status == "cancelled"
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 34_500  # the group deadline counts
    assert run.db.query(Booking).filter_by(status="cancelled").count() == 1
