"""Cancellations (window, hotel fault, identity check, other travellers' bookings); new bookings and standing."""

from __future__ import annotations

from datetime import date

import pytest

from domains.travel.calls import (
    availability,
    book,
    cancel,
    cancel_booking,
    cancel_facts,
    cancel_for_hotel,
    charge_booking,
    get_account,
    get_booking,
    issue_refund,
    left_pending,
    list_bookings,
    move_dates,
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
    BookingFactory,
    CorporateAccountFactory,
    InvoiceFactory,
    NegotiatedRateFactory,
    PaymentFactory,
    TicketFactory,
    TravellerFactory,
    booking_for,
    earlier_ticket,
    set_available_rooms,
    travellers,
)
from domains.travel.models import Booking, Payment, Ticket, TicketComment
from domains.travel.phrases import contact_travel_manager
from domains.travel.seed import (
    AMS_CANAL_VIEW,
    AMS_STANDARD,
    AMSTERDAM,
    CASTELLAN,
    FRA_DOUBLE,
    FRA_SINGLE,
    LIS_STANDARD,
    LIS_SUPERIOR,
    LISBON,
    LON_CLASSIC,
    LON_CLUB,
    LON_DELUXE,
    LONDON,
    NORRLAND,
    VELDHOVEN,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identifying the traveller",
    "Corporate account standing",
    "Which nightly rate applies",
    "New bookings",
    "Free-cancellation window",
    "Cancellations",
    "The service fee",
    "Hotel-fault cancellations",
    "Duplicate and unrecognised charges",
    "Ticket status and priority",
    "Ticket classification",
)


def test_case_TR001_001(tb):
    """Cancelled nine days ahead, inside the window: refund in full minus the 25.00 service fee, not in full."""
    sofia = TravellerFactory(name="Sofia Brandt")
    booking = BookingFactory(traveller=sofia, check_in=date(2026, 9, 17), nights=3)  # free until 15 Sep 15:00
    ticket = TicketFactory(requester=sofia, booking_id=booking.id, subject="Cancel Lisbon hotel")

    run = tb.run(
        User(
            says="Our Lisbon site visit next week has been called off. Please cancel my hotel. It's more than a "
            "week away, so I expect the full EUR 477 back on my card.",
            knows=cancel_facts(sofia, booking),
        ),
        golden=[
            *opening(sofia, get_booking(booking)),
            *cancel(
                booking,
                derived(
                    45_200,
                    "inside the window (free until 15 Sep 15:00): the 47,700 still refundable less the 2,500 "
                    "service fee",
                ),
            ),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (45_200, 2_500)  # policy: the fee applies in-window
    assert run.db.get(Booking, booking.id).status == "cancelled"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


def test_case_TR001_002(tb):
    """Cancelled two days ahead at a 72-hour hotel: the window has passed, one night and the fee are kept."""
    lukas = TravellerFactory(name="Lukas Meyer", account_id=NORRLAND)
    booking = booking_for(lukas, AMS_STANDARD, date(2026, 9, 10), 2, 19_000)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=lukas, booking_id=booking.id, subject="Amsterdam cancellation")

    run = tb.run(
        User(
            says="My client meeting in Amsterdam on Thursday was cancelled. Please cancel the Meridian Quay booking. "
            "I'm cancelling two full days ahead, so there shouldn't be any charge. Let me know once it's done.",
            knows=cancel_facts(lukas, booking),
        ),
        golden=[
            *opening(lukas, get_booking(booking)),
            *cancel(
                booking,
                derived(
                    16_500,
                    "the window ended 7 Sep 15:00: the 38,000 still refundable less one night at 19,000 less the "
                    "2,500 service fee",
                ),
            ),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[  # "two full days ahead, so there shouldn't be any charge": the kept night refunded too
            issue_refund(booking, 19_000, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 16_500  # policy: one night kept
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


def test_case_TR001_003(tb):
    """Hotel cannot honour tonight's booking: after the deadline, yet a full refund with no night, no fee, no reason."""
    clara = TravellerFactory(name="Clara Moreau")
    booking = booking_for(
        clara, FRA_DOUBLE, date(2026, 9, 8), 4, 13_900, hotel_confirmation="cannot_honour"
    )  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=clara, booking_id=booking.id, subject="Hotel overbooked")

    run = tb.run(
        User(
            says="The Kestrel Park just emailed me that they are overbooked and can't give me a room tonight. I've "
            "found somewhere else myself. Please cancel that booking and refund whatever you can.",
            knows=cancel_facts(clara, booking),
        ),
        golden=[
            *opening(clara, get_booking(booking)),
            *cancel_for_hotel(booking, 55_600),
            solved(ticket.id, "cancellation"),
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents, refund.reason) == (55_600, 0, "hotel_fault")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", None, None)


@pytest.mark.two_requests
def test_case_TR001_004(tb):
    """Cancel her own room (inside the window) but not a sick colleague's room on the same account: not_authorised."""
    hanna, pieter = travellers("Hanna de Vries", "Pieter Jansen")
    own = booking_for(hanna, FRA_DOUBLE, date(2026, 9, 22), 2, 13_900)  # free until 21 Sep 15:00
    his = booking_for(pieter, FRA_DOUBLE, date(2026, 9, 22), 2, 13_900)
    ticket = TicketFactory(requester=hanna, booking_id=own.id, subject="Cancel Frankfurt rooms")

    run = tb.run(
        User(
            says="Our Frankfurt audit on the 22nd has been pushed back to November, so please cancel my room at the "
            "Kestrel Park. My colleague Pieter Jansen is off sick this week and asked me to cancel his room for the "
            "same trip while I'm at it; he's fine with me handling it.",
            knows={
                "email": hanna.email,
                "employee number": hanna.employee_number,
                "booking reference": own.id,
                "Pieter's booking reference": his.id,
            },
            persona="A project engineer sorting out a postponed trip for herself and a colleague.",
            rules=("If the agent refuses any part of your request, say Pieter will call himself, and let it go.",),
        ),
        golden=[
            *opening(hanna, list_bookings(hanna), get_booking(own)),
            *cancel(own, derived(25_300, "inside the window: the 27,800 paid less the 2,500 service fee")),
            solved(ticket.id, "cancellation", "not_authorised"),
        ],
        traps=[cancel_booking(his)],  # "he's fine with me handling it"
    )

    run.expect_golden()
    assert run.db.get(Booking, own.id).status == "cancelled"
    assert run.db.get(Booking, his.id).status == "confirmed"  # policy: another traveller's booking is not changed
    assert run.db.query(Payment).filter_by(kind="refund").one().booking_id == own.id
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "not_authorised", None)


@pytest.mark.distractors
def test_case_TR001_005(tb):
    """Two Amsterdam stays in September: cancel this Thursday's (window passed, a night kept), not the later one."""
    erik = TravellerFactory(name="Erik Sandberg", account_id=NORRLAND)
    later = booking_for(erik, AMS_STANDARD, date(2026, 9, 17), 2, 19_000)  # free until 14 Sep 15:00
    thursday = booking_for(erik, AMS_CANAL_VIEW, date(2026, 9, 10), 2, 22_500)  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=erik, subject="Cancel Amsterdam hotel")

    run = tb.run(
        User(
            says="The customer visit in Amsterdam this Thursday is off, so I won't need the hotel for it. Please "
            "cancel that stay. I have another Amsterdam trip later this month, leave that one alone, it's still "
            "going ahead.",
            knows={
                "email": erik.email,
                "employee number": erik.employee_number,
                "booking reference": "I don't have it to hand; it's the stay starting this Thursday, 10 September",
            },
        ),
        golden=[
            *opening(erik, list_bookings(erik), get_booking(thursday)),
            *cancel(
                thursday,
                derived(
                    20_000,
                    "the 72-hour window ended 7 Sep 15:00: the 45,000 paid less one night at 22,500 less the 2,500 "
                    "service fee",
                ),
            ),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        traps=[cancel_booking(later)],  # the other Amsterdam stay, listed first
    )

    run.expect_golden()
    assert (run.db.get(Booking, thursday.id).status, run.db.get(Booking, later.id).status) == ("cancelled", "confirmed")
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 20_000
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


@pytest.mark.pushback
def test_case_TR001_006(tb):
    """Unconfirmed by the hotel is no hotel fault: window passed, night and fee kept even when asked to drop the fee."""
    oliver = TravellerFactory(name="Oliver Grant", account_id=CASTELLAN)
    booking = booking_for(
        oliver, LON_CLASSIC, date(2026, 9, 9), 3, 23_000, hotel_confirmation="awaiting"
    )  # free until 7 Sep 15:00
    ticket = TicketFactory(requester=oliver, booking_id=booking.id, subject="Aldwych never confirmed")

    run = tb.run(
        User(
            says="The Aldwych Grand still hasn't confirmed my room for tomorrow night, which is their problem, not "
            "mine. Cancel it and put the whole amount back on my card. And if you really won't do that, then at "
            "least don't take your 25 euro fee on top.",
            knows=cancel_facts(oliver, booking),
            persona="A sales director who is annoyed with the hotel and argues for his money back.",
            rules=(
                "You want the whole amount back; failing that, ask once for the 25 euro fee to be waived. After "
                "that, accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *opening(oliver, get_booking(booking)),
            *cancel(
                booking,
                derived(
                    43_500,
                    "awaiting is not cannot_honour and the window ended 7 Sep 15:00: the 69,000 paid less one night "
                    "at 23,000 less the 2,500 service fee",
                ),
            ),
            solved(ticket.id, "cancellation", "outside_window"),
        ],
        reply="I've cancelled your Aldwych Grand booking. The hotel not having confirmed yet doesn't make it the "
        "hotel's fault, and the free-cancellation window closed on 7 September, so one night (230.00) and our "
        "25.00 service fee are kept: EUR 435.00 goes back to your card.",
        traps=[  # "at least don't take your 25 euro fee": the fee handed back as a goodwill refund
            issue_refund(booking, 2_500, "cancellation", service_fee_cents=0)
        ],
    )

    run.expect_golden()
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents, refund.reason) == (43_500, 2_500, "cancellation")
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "cancellation", "outside_window", None)


def test_case_TR001_007(tb):
    """Hotel closed the room and the traveller's only ticket is solved: open a new linked ticket, full refund."""
    annika = TravellerFactory(name="Annika Berg", account_id=NORRLAND)
    booking = booking_for(
        annika, AMS_CANAL_VIEW, date(2026, 9, 10), 2, 22_500, hotel_confirmation="cannot_honour"
    )  # free until 7 Sep 15:00
    old = earlier_ticket(annika, "Receipt for my August stay", "solved", days_ago(25, hour=10))

    run = tb.run(
        User(
            says="Meridian Quay rang me last night: a water leak has closed the floor my room is on and they can't "
            "put me up on Thursday after all. I've already found a hotel nearby myself. Please cancel my "
            "reservation with them and get my money back.",
            knows=cancel_facts(annika, booking),
        ),
        golden=[
            *opening(annika, get_booking(booking)),
            new_ticket(annika, "Hotel cannot honour the Amsterdam stay", "cancellation", booking),
            *cancel_for_hotel(booking, 45_000),
            solved("T-1002"),
        ],
        traps=[  # the solved August ticket worked instead of a new one
            solved(old.id, "cancellation")
        ],
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-1002")
    assert (new.requester_id, new.booking_id) == (annika.id, booking.id)
    assert run.db.get(Ticket, new.id).outcome == ("solved", "normal", "cancellation", None, None)
    assert run.db.get(Ticket, old.id).outcome == ("solved", "normal", None, None, None)  # another matter: untouched
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.reason, refund.service_fee_cents) == (45_000, "hotel_fault", 0)


def test_case_TR001_008(tb):
    """Cancellation asked with an employee number that does not match the profile: cancel nothing; pending."""
    mateo = TravellerFactory(name="Mateo Rossi", employee_number="E50734")
    booking = booking_for(mateo, LIS_SUPERIOR, date(2026, 9, 25), 3, 19_900)
    ticket = TicketFactory(requester=mateo, booking_id=booking.id, subject="Cancel Lisbon conference hotel")

    run = tb.run(
        User(
            says="The Lisbon conference at the end of the month has gone online only, so I don't need the "
            "Harbourline room any more. Could you cancel it today? I'm writing from my phone because my work laptop "
            "is in for repair.",
            knows={**traveller_facts(mateo, booking), "employee number": "E50743"},
        ),
        golden=[
            *opening(mateo, get_booking(booking)),
            *left_pending(
                ticket.id,
                "cancellation",
                "identity_not_verified",
                "Cancellation not made: the employee number given does not match the profile.",
            ),
        ],
        traps=[cancel_booking(booking)],  # cancelled on the email alone
    )

    run.expect_golden()
    assert run.db.get(Booking, booking.id).status == "confirmed"  # policy: no matching employee number, no cancel
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "cancellation", "identity_not_verified", None)
    assert run.db.query(TicketComment).one().public is False


def test_case_TR007_001(tb):
    """New London booking: the negotiated 275.00 applies, not the quoted rack rate; a 12-day overdue invoice is fine."""
    amelia = TravellerFactory(name="Amelia Whitfield", account_id=CASTELLAN)
    InvoiceFactory(
        account_id=CASTELLAN, amount_cents=412_800, issued_on=date(2026, 7, 28), due_on=date(2026, 8, 27)
    )  # 12 days overdue
    ticket = TicketFactory(requester=amelia, subject="Hotel in London, 21-24 Sep")

    run = tb.run(
        User(
            says="Please book me a Deluxe King at The Aldwych Grand in London from 21 to 24 September. The hotel "
            "website shows EUR 325 a night, that's fine by me. It's for a client workshop near Covent Garden.",
            knows=traveller_facts(amelia),
        ),
        golden=[
            *opening(amelia, *standing(CASTELLAN), availability(LONDON, "2026-09-21", "2026-09-24")),
            book(amelia, LON_DELUXE, "2026-09-21", "2026-09-24", 27_500),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # booked at the EUR 325 website rate the traveller quoted
            book(amelia, LON_DELUXE, "2026-09-21", "2026-09-24", 32_500)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.nightly_rate_cents, booking.total_cents) == (27_500, 82_500)
    assert run.db.query(Payment).one().amount_cents == 82_500
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


@pytest.mark.two_requests
def test_case_TR007_002(tb):
    """Credit hold: the urgent Frankfurt booking is refused, but the Amsterdam room he gives up for it is still
    cancelled; its 72-hour window has passed, so a night and the fee are kept. Hold (high) for accounts
    receivable."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    jonas = TravellerFactory(name="Jonas Halvorsen", account_id=account.id)
    amsterdam = booking_for(jonas, AMS_STANDARD, date(2026, 9, 9), 2, 21_000)  # free until 6 Sep 15:00
    ticket = TicketFactory(requester=jonas, subject="Frankfurt hotel tomorrow")

    run = tb.run(
        User(
            says="I need a Business Single at the Kestrel Park in Frankfurt from tomorrow for two nights. It's "
            "urgent, the client moved our meeting there, so please just book it. That also means I won't use my "
            "Meridian Quay room in Amsterdam from tomorrow: cancel it and put the money back on my card.",
            knows={
                "email": jonas.email,
                "employee number": jonas.employee_number,
                "Amsterdam booking reference": amsterdam.id,
            },
        ),
        golden=[
            *opening(jonas, get_account(account.id), get_booking(amsterdam)),
            *cancel(
                amsterdam,
                derived(
                    18_500,
                    "the 72-hour window ended 6 Sep 15:00: the 42,000 paid less one night at 21,000 less the 2,500 "
                    "service fee",
                ),
            ),
            *on_hold(
                ticket.id,
                "new_booking",
                "credit_hold",
                "Booking request (Kestrel Park, 9-11 Sep) refused: account is on credit hold. Amsterdam stay "
                "cancelled after its window and refunded less a night and the fee.",
            ),
        ],
        traps=[  # "it's urgent, so please just book it": the Business Single at the rack rate
            book(jonas, FRA_SINGLE, "2026-09-09", "2026-09-11", 14_900),
            # "put the money back on my card": the kept night handed back too
            call("issue_refund", booking_id=amsterdam.id, amount_cents=21_000, reason="cancellation"),
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 1  # policy: credit hold, no new booking
    assert run.db.get(Booking, amsterdam.id).status == "cancelled"  # ... but cancellations are still made
    refund = run.db.query(Payment).filter_by(kind="refund").one()
    assert (refund.amount_cents, refund.service_fee_cents) == (18_500, 2_500)  # the window has passed
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "new_booking",
        "credit_hold",
        "accounts_receivable",
    )


@pytest.mark.two_requests
def test_case_TR007_003(tb):
    """Account shows active but an invoice is 45 days overdue: treated as credit hold, so the Lisbon booking is
    refused; the August stay our ledger charged twice is still refunded. Hold for accounts receivable."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH", status="active")
    InvoiceFactory(
        account_id=account.id,
        amount_cents=615_000,
        issued_on=date(2026, 6, 1),
        due_on=date(2026, 7, 1),
        status="paid",
        paid_on=date(2026, 6, 29),
    )
    InvoiceFactory(account_id=account.id, amount_cents=729_400, issued_on=date(2026, 6, 25), due_on=date(2026, 7, 25))
    mia = TravellerFactory(name="Mia Kruger", account_id=account.id)
    august = booking_for(
        mia, FRA_SINGLE, date(2026, 8, 24), 2, 14_900, status="completed", booked_at=days_ago(30, hour=11)
    )
    PaymentFactory(booking=august, created_at=august.booked_at.replace(minute=6))  # the same charge again
    ticket = TicketFactory(requester=mia, subject="Lisbon hotel request")

    run = tb.run(
        User(
            says="Could you book me a Standard King at the Harbourline in Lisbon from 14 to 16 September? Our "
            "account is active, I checked with our office. And while I have you: my card shows your charge for my "
            "Kestrel Park stay in August twice, could you look into that?",
            knows={"email": mia.email, "August booking reference": august.id},
        ),
        golden=[
            *opening(mia, *standing(account.id), get_booking(august), payments(august)),
            issue_refund(august, 29_800, "duplicate_charge"),
            *on_hold(
                ticket.id,
                "new_booking",
                "credit_hold",
                "Booking request refused: invoice due 25 Jul is 45 days overdue, account treated as credit hold. "
                "Duplicate August charge refunded.",
            ),
        ],
        traps=[  # "our account is active": the Standard King booked at the rack rate
            book(mia, LIS_STANDARD, "2026-09-14", "2026-09-16", 18_900)
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 1  # policy: an invoice over 30 days overdue means credit hold
    refund = run.db.query(Payment).filter_by(kind="refund").one()  # ... which stops no refund
    assert (refund.booking_id, refund.amount_cents, refund.reason, refund.service_fee_cents) == (
        august.id,
        29_800,
        "duplicate_charge",
        0,
    )
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "new_booking",
        "credit_hold",
        "accounts_receivable",
    )


def test_case_TR007_004(tb):
    """Suspended account: no booking at all; solved as account_suspended, no comment, told to see the travel manager."""
    account = CorporateAccountFactory(
        name="Solent Marine Ltd", status="suspended", travel_manager_name="Ingrid Solberg"
    )
    owen = TravellerFactory(name="Owen Pritchard", account_id=account.id)
    ticket = TicketFactory(requester=owen, subject="Amsterdam booking")

    run = tb.run(
        User(
            says="Please book me a Canal Standard at the Meridian Quay in Amsterdam for 28 to 30 September. I'm "
            "presenting at a shipping conference there and registration closes soon, so I'd like it sorted today.",
            knows=traveller_facts(owen),
        ),
        golden=[
            *opening(owen, get_account(account.id)),
            solved(ticket.id, "new_booking", "account_suspended"),
        ],
        reply="I'm sorry, Solent Marine's travel programme with us is currently suspended, so I can't make any "
        "booking. Please contact your travel manager, Ingrid Solberg, about it.",
        traps=[  # booked as asked, at the Canal Standard rack rate, without looking at the account
            book(owen, AMS_STANDARD, "2026-09-28", "2026-09-30", 21_000)
        ],
    )

    run.expect_golden()
    assert run.db.query(Booking).count() == 0  # policy: suspended, no booking
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", "account_suspended", None)
    assert run.db.query(TicketComment).count() == 0
    run.rubric(
        "Did the agent tell the traveller to contact their travel manager?",
        phrases=contact_travel_manager("Ingrid Solberg"),
    )


@pytest.mark.two_requests
def test_case_TR007_005(tb):
    """Credit hold: the Lisbon cancellation is still made (and refunded), the Frankfurt extension is refused; hold."""
    account = CorporateAccountFactory(name="Halvorsen Offshore AS", status="credit_hold")
    sindre = TravellerFactory(name="Sindre Aas", account_id=account.id)
    lisbon = booking_for(sindre, LIS_STANDARD, date(2026, 9, 21), 2, 18_900)  # free until 19 Sep 15:00
    frankfurt = booking_for(sindre, FRA_SINGLE, date(2026, 9, 14), 2, 14_900)
    ticket = TicketFactory(requester=sindre, booking_id=lisbon.id, subject="Lisbon off, Frankfurt longer")

    run = tb.run(
        User(
            says="Two things, please. The Lisbon trip on the 21st is off, so cancel that hotel. And my Frankfurt job "
            "next week is running over, so add a night to the Kestrel Park stay: I'd check out on the 17th instead "
            "of the 16th.",
            knows={
                "email": sindre.email,
                "employee number": sindre.employee_number,
                "Lisbon booking reference": lisbon.id,
                "Frankfurt booking reference": frankfurt.id,
            },
        ),
        golden=[
            *opening(sindre, get_account(account.id), get_booking(lisbon), get_booking(frankfurt)),
            *cancel(lisbon, derived(35_300, "inside the window: the 37,800 paid less the 2,500 service fee")),
            *on_hold(
                ticket.id,
                "cancellation",
                "credit_hold",
                "Frankfurt extension refused: account on credit hold. Lisbon cancellation done and refunded.",
            ),
        ],
        traps=[  # the extra Frankfurt night, as asked
            move_dates(frankfurt, "2026-09-14", "2026-09-17"),
            charge_booking(frankfurt, 14_900, "extra_nights"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Booking, lisbon.id).status == "cancelled"  # policy: cancellations go on under a credit hold
    assert run.db.get(Booking, frankfurt.id).check_out == date(2026, 9, 16)  # ... charged changes do not
    assert run.db.query(Payment).filter_by(kind="refund").one().amount_cents == 35_300
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "high",
        "cancellation",
        "credit_hold",
        "accounts_receivable",
    )


def test_case_TR007_006(tb):
    """Contract rate valid only from 1 October: a stay checking in on 30 September is booked at the rack rate."""
    NegotiatedRateFactory(
        account_id=VELDHOVEN,
        room_type_id=AMS_CANAL_VIEW,
        nightly_rate_cents=21_500,
        valid_from=date(2026, 10, 1),
        valid_until=date(2027, 9, 30),
    )
    sanne = TravellerFactory(name="Sanne de Wit")
    ticket = TicketFactory(requester=sanne, subject="Amsterdam end of September")

    run = tb.run(
        User(
            says="I need a Canal View room at the Meridian Quay in Amsterdam from 30 September to 3 October. Our "
            "company has a contract price of 215 a night there from October, and nearly all my nights are in "
            "October anyway, so please book it at that price.",
            knows=traveller_facts(sanne),
        ),
        golden=[
            *opening(sanne, *standing(VELDHOVEN), availability(AMSTERDAM, "2026-09-30", "2026-10-03")),
            book(sanne, AMS_CANAL_VIEW, "2026-09-30", "2026-10-03", 25_500),
            solved(ticket.id, "new_booking"),
        ],
        reply="I've booked the Canal View at the Meridian Quay from 30 September to 3 October. Your company's "
        "contract price only applies to stays checking in from 1 October, so this stay is at the hotel's rate of "
        "EUR 255.00 a night, 765.00 in total.",
        traps=[  # "book it at that price": the contract rate, though check-in is before it starts
            book(sanne, AMS_CANAL_VIEW, "2026-09-30", "2026-10-03", 21_500)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.nightly_rate_cents, booking.total_cents) == (25_500, 76_500)  # policy: check-in date decides
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


def test_case_TR007_007(tb):
    """No ticket yet; an invoice exactly 30 days overdue leaves the account in good standing: open a ticket, book."""
    account = CorporateAccountFactory(name="Brightwater Logistics GmbH")
    InvoiceFactory(account_id=account.id, amount_cents=388_200, issued_on=date(2026, 7, 10), due_on=date(2026, 8, 9))
    felix = TravellerFactory(name="Felix Wagner", account_id=account.id)

    run = tb.run(
        User(
            says="Hi, I need a room with a river view at the Harbourline in Lisbon from the 15th to the 17th of this "
            "month, for a supplier audit. I know our accounts people are a bit behind on one of your invoices, I "
            "hope that doesn't get in the way.",
            knows=traveller_facts(felix),
        ),
        golden=[
            *opening(felix, *standing(account.id), availability(LISBON, "2026-09-15", "2026-09-17")),
            new_ticket(felix, "River view room in Lisbon", "new_booking"),
            book(felix, LIS_SUPERIOR, "2026-09-15", "2026-09-17", 23_900),
            solved("T-0001"),
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.room_type_id, booking.nightly_rate_cents) == (LIS_SUPERIOR, 23_900)  # 30 days overdue is fine
    ticket = run.db.query(Ticket).one()
    assert (ticket.requester_id, ticket.booking_id) == (felix.id, None)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)


def test_case_TR007_008(tb):
    """Club Room full one night; the traveller's fallback, a Deluxe King, is booked at the negotiated rate."""
    priya = TravellerFactory(name="Priya Shah", account_id=CASTELLAN)
    set_available_rooms(LON_CLUB, date(2026, 9, 15), 0)
    ticket = TicketFactory(requester=priya, subject="London 14-17 September")

    run = tb.run(
        User(
            says="Can you book me a Club Room at The Aldwych Grand from 14 to 17 September? If a Club Room isn't "
            "free for all three nights, then a Deluxe King is fine instead. I want one room for the whole stay "
            "though, no switching rooms halfway.",
            knows=traveller_facts(priya),
            persona="A regulatory affairs lead who plans ahead and is flexible about the room.",
            rules=("If your first choice cannot be booked, take the alternative you named, for the whole stay.",),
        ),
        golden=[
            *opening(priya, *standing(CASTELLAN), availability(LONDON, "2026-09-14", "2026-09-17")),
            book(priya, LON_DELUXE, "2026-09-14", "2026-09-17", 27_500),
            solved(ticket.id, "new_booking"),
        ],
        traps=[  # the Club Room for the one night it is free, as a start
            book(priya, LON_CLUB, "2026-09-14", "2026-09-15", 33_000)
        ],
    )

    run.expect_golden()
    booking = run.db.query(Booking).one()
    assert (booking.room_type_id, booking.nights, booking.total_cents) == (LON_DELUXE, 3, 82_500)
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "new_booking", None, None)
