"""Charges a traveller reports twice: ours to refund, the hotel's to escalate, or not a duplicate at all."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    escalate,
    get_booking,
    get_hotel,
    get_traveller,
    issue_refund,
    late_checkout,
    list_escalations,
    new_ticket,
    on_hold,
    opening,
    payments,
    solved,
    standing,
    traveller_facts,
)
from domains.travel.clock import days_ago
from domains.travel.factories import (
    PartnerEscalationFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    earlier_ticket,
)
from domains.travel.models import Booking, PartnerEscalation, Payment, Ticket
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMSTERDAM,
    CASTELLAN,
    FRA_DOUBLE,
    FRA_SINGLE,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LON_DELUXE,
    NORRLAND,
)
from pytest_thinkingbox import User

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Duplicate and unrecognised charges",
    "Late checkout",
    "Partner escalations",
    "The service fee",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR002_001(tb):
    """Hotel charged the card twice, our ledger shows one charge: escalate to the hotel, refund nothing, hold."""
    daniel = TravellerFactory(name="Daniel Okafor", account_id=CASTELLAN)
    booking = booking_for(
        daniel, LON_DELUXE, date(2026, 9, 4), 3, 27_500, status="completed", booked_at=days_ago(30, hour=16)
    )
    ticket = TicketFactory(requester=daniel, booking_id=booking.id, subject="Charged twice for London stay")

    run = tb.run(
        User(
            says="My card was charged EUR 825 twice for my stay at The Aldwych Grand: once when the trip was "
            "booked and again when I checked out on 7 September. Please refund the second charge.",
            knows=traveller_facts(daniel, booking),
        ),
        golden=[
            *opening(daniel, get_booking(booking), payments(booking), list_escalations(booking)),
            escalate(
                booking,
                "duplicate_charge",
                82_500,
                "Guest was charged 825.00 at checkout on 7 Sep for a stay we had already charged.",
            ),
            *on_hold(
                ticket.id,
                "billing",
                "awaiting_hotel",
                "Hotel-side duplicate charge of 82,500 cents escalated to the Aldwych Grand; awaiting its refund.",
            ),
        ],
        traps=[  # "please refund the second charge": refunded by us although only the hotel took it
            issue_refund(booking, 82_500, "duplicate_charge")
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: the hotel refunds its own charge
    assert run.db.query(PartnerEscalation).one().amount_cents == 82_500
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "awaiting_hotel", "partner_relations")


def test_case_TR002_002(tb):
    """Our ledger shows the stay charged twice: refund the duplicate ourselves, with no service fee."""
    pieter = TravellerFactory(name="Pieter Jansen")
    booking = booking_for(pieter, LIS_SUPERIOR, date(2026, 9, 14), 3, 19_900)
    PaymentFactory(booking=booking, created_at=booking.booked_at.replace(minute=4))  # the same charge again
    ticket = TicketFactory(requester=pieter, booking_id=booking.id, subject="Two charges on my card")

    run = tb.run(
        User(
            says="My card statement shows two charges of EUR 597 from Atlas for my Lisbon booking. Did you charge "
            "me twice? I'd like the extra one back. The booking itself is fine, it's just the double payment.",
            knows=traveller_facts(pieter, booking),
        ),
        golden=[
            *opening(pieter, get_booking(booking), payments(booking)),
            issue_refund(booking, 59_700, "duplicate_charge"),
            solved(ticket.id, "billing"),
        ],
        traps=[  # the 25.00 service fee withheld from the duplicate's refund
            issue_refund(booking, 57_200, "duplicate_charge", service_fee_cents=2_500)
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (59_700, 0)
    assert run.db.query(PartnerEscalation).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)


@pytest.mark.two_requests
def test_case_TR002_003(tb):
    """The 'duplicate' is the paid upgrade the traveller asked for last week: refund nothing (not_eligible); the late
    checkout she also asks for is not complimentary without a tier, so the hotel's 45.00 fee she accepts is paid."""
    freya = TravellerFactory(name="Freya Nyberg", account_id=CASTELLAN)
    # the booking charge of 370.00: booked as a Canal Standard at 185.00
    booking = booking_for(freya, AMS_CANAL_VIEW, date(2026, 9, 24), 2, 22_000, payment__amount_cents=37_000)
    PaymentFactory(booking=booking, reason="room_upgrade", amount_cents=7_000, created_at=days_ago(6, hour=15))
    ticket = TicketFactory(requester=freya, booking_id=booking.id, subject="Charged twice for Amsterdam")

    run = tb.run(
        User(
            says="Atlas has charged my card twice for the same Amsterdam booking, and I only booked one room. "
            "Please refund the extra charge. And on the 26th I'd like to keep the room until lunchtime if the "
            "hotel allows it.",
            knows={
                **traveller_facts(freya, booking),
                "accept the late checkout fee": "yes, I'll pay the hotel's fee for the late checkout",
            },
        ),
        golden=[
            *opening(
                freya,
                get_traveller(freya),
                get_booking(booking),
                payments(booking),
                get_hotel(AMSTERDAM),
                *standing(CASTELLAN),
            ),
            late_checkout(booking, 4_500),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        traps=[  # "please refund the extra charge": the upgrade charge refunded as a duplicate
            issue_refund(booking, 7_000, "duplicate_charge")
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0  # policy: a legitimate charge, not a duplicate
    assert run.db.get(Booking, booking.id).late_checkout is True
    assert run.db.query(Payment).filter_by(reason="late_checkout").one().amount_cents == 4_500  # no tier: the fee
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_TR002_004(tb):
    """The hotel's checkout charge is already escalated and acknowledged: no second escalation and no refund of it by
    us; but our ledger charged his next booking twice, and that duplicate we refund ourselves. Hold for the hotel."""
    mateus = TravellerFactory(name="Mateus Alves")
    booking = booking_for(
        mateus, FRA_SINGLE, date(2026, 9, 1), 2, 12_400, status="completed", booked_at=days_ago(20, hour=9)
    )
    PartnerEscalationFactory(booking=booking, amount_cents=24_800, status="acknowledged")
    lisbon = booking_for(mateus, LIS_STANDARD, date(2026, 9, 28), 2, 15_900)
    PaymentFactory(booking=lisbon, created_at=lisbon.booked_at.replace(minute=5))  # the same charge again
    earlier = earlier_ticket(
        mateus, "Double charge at Kestrel Park", "hold", days_ago(3, hour=11), booking, priority="high"
    )
    ticket = TicketFactory(requester=mateus, booking_id=booking.id, subject="Still waiting for my money")

    run = tb.run(
        User(
            says="The Kestrel Park charged me twice for my stay last week and I still don't have my money back. "
            "Now I've gone through my statement and Atlas has also taken the money for my Lisbon booking at the "
            "end of the month twice. I'm tired of waiting for the hotel, please refund me everything extra "
            "yourselves.",
            knows={**traveller_facts(mateus, booking), "Lisbon booking reference": lisbon.id},
        ),
        golden=[
            *opening(
                mateus,
                get_booking(booking),
                payments(booking),
                list_escalations(booking),
                get_booking(lisbon),
                payments(lisbon),
            ),
            issue_refund(lisbon, 31_800, "duplicate_charge"),
            *on_hold(
                ticket.id,
                "billing",
                "awaiting_hotel",
                "Hotel-side duplicate of 24,800 cents already escalated (acknowledged); awaiting the hotel. Our "
                "duplicate charge on the Lisbon booking refunded.",
            ),
        ],
        traps=[  # "please refund me everything extra yourselves": the hotel's charge refunded by us
            issue_refund(booking, 24_800, "duplicate_charge")
        ],
    )

    run.expect_golden()
    assert run.db.query(PartnerEscalation).count() == 1  # policy: the open escalation covers the hotel's charge
    refund = run.db.query(Payment).filter_by(kind="refund").one()  # ... and our own duplicate is ours to refund
    assert (refund.booking_id, refund.amount_cents, refund.service_fee_cents) == (lisbon.id, 31_800, 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "awaiting_hotel", "partner_relations")
    assert run.db.get(Ticket, earlier.id).outcome == ("hold", "high", None, None, None)


@pytest.mark.distractors
def test_case_TR002_005(tb):
    """Three charges: the second booking charge is ours to refund; the extra-night charge he asked for is not."""
    thijs = TravellerFactory(name="Thijs Vos")
    # the booking charge of 278.00: booked for two nights
    booking = booking_for(thijs, FRA_DOUBLE, date(2026, 9, 14), 3, 13_900, payment__amount_cents=27_800)
    PaymentFactory(booking=booking, amount_cents=27_800, created_at=booking.booked_at.replace(minute=5))
    PaymentFactory(booking=booking, reason="extra_nights", amount_cents=13_900, created_at=days_ago(5, hour=17))
    ticket = TicketFactory(requester=thijs, booking_id=booking.id, subject="Three charges for one stay")

    run = tb.run(
        User(
            says="I count three charges from Atlas on my card for one Kestrel Park stay next week: two of 278 euros "
            "and one of 139. I only booked one room! Please refund the two extra ones and let me know when the "
            "money is back.",
            knows=traveller_facts(thijs, booking),
        ),
        golden=[
            *opening(thijs, get_booking(booking), payments(booking)),
            issue_refund(booking, 27_800, "duplicate_charge"),
            solved(ticket.id, "billing", "not_eligible"),
        ],
        traps=[  # "refund the two extra ones": the night he added last week refunded as a duplicate
            issue_refund(booking, 13_900, "duplicate_charge")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (27_800, "duplicate_charge", 0)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", "not_eligible", None)


@pytest.mark.pushback
def test_case_TR002_006(tb):
    """A resolved escalation does not cover the hotel's new charge: open a new one, refund nothing; hold."""
    elif_ = TravellerFactory(name="Elif Kaya")
    booking = booking_for(
        elif_, LIS_SUPERIOR, date(2026, 9, 1), 3, 19_900, status="completed", booked_at=days_ago(25, hour=10)
    )
    PartnerEscalationFactory(
        booking=booking, amount_cents=59_700, status="resolved", created_at=days_ago(3, hour=10)
    )  # the checkout charge of 4 Sep, refunded by the hotel
    ticket = TicketFactory(requester=elif_, booking_id=booking.id, subject="Harbourline charged me again")

    run = tb.run(
        User(
            says="The Harbourline has charged my card 597 euros again! They did exactly this when I checked out "
            "last week, your colleague got the hotel to pay it back, and now another charge turned up yesterday. "
            "Please sort it out properly this time, or just refund me yourselves.",
            knows=traveller_facts(elif_, booking),
        ),
        golden=[
            *opening(elif_, get_booking(booking), payments(booking), list_escalations(booking)),
            escalate(
                booking,
                "duplicate_charge",
                59_700,
                "Hotel charged the guest 597.00 again on 7 Sep after the earlier duplicate was refunded.",
            ),
            *on_hold(
                ticket.id,
                "billing",
                "awaiting_hotel",
                "New hotel-side duplicate charge escalated to the Harbourline; earlier escalation was resolved.",
            ),
        ],
        traps=[  # "or just refund me yourselves"
            issue_refund(booking, 59_700, "duplicate_charge")
        ],
    )

    run.expect_golden()
    escalations = sorted((e.status, e.amount_cents) for e in run.db.query(PartnerEscalation))
    assert escalations == [("resolved", 59_700), ("sent", 59_700)]
    assert run.db.query(Payment).filter_by(kind="refund").count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "high", "billing", "awaiting_hotel", "partner_relations")


def test_case_TR002_007(tb):
    """No ticket yet; the added night was charged twice by us: open a billing ticket and refund the one extra line."""
    aron = TravellerFactory(name="Aron Dahl", account_id=NORRLAND)
    # the booking charge of 330.00: booked for two nights, a third added on Sunday
    booking = booking_for(aron, LIS_STANDARD, date(2026, 9, 13), 3, 16_500, payment__amount_cents=33_000)
    PaymentFactory(booking=booking, reason="extra_nights", amount_cents=16_500, created_at=days_ago(2, hour=18))
    PaymentFactory(
        booking=booking, reason="extra_nights", amount_cents=16_500, created_at=days_ago(2, hour=18).replace(minute=1)
    )

    run = tb.run(
        User(
            says="I added a night to my Lisbon booking on Sunday, and now my card shows the 165 euros for that night "
            "twice, a minute apart. Can you check and give me back the one that shouldn't be there? The rest of "
            "the booking is fine.",
            knows=traveller_facts(aron, booking),
        ),
        golden=[
            *opening(aron, get_booking(booking), payments(booking)),
            new_ticket(aron, "Extra night charged twice", "billing", booking),
            issue_refund(booking, 16_500, "duplicate_charge"),
            solved("T-0001"),
        ],
        traps=[  # the booking charge taken for the duplicate
            issue_refund(booking, 33_000, "duplicate_charge")
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (16_500, 0)
    ticket = run.db.query(Ticket).one()
    assert (ticket.requester_id, ticket.booking_id) == (aron.id, booking.id)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "billing", None, None)
