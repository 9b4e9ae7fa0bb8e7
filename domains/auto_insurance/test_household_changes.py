"""Household changes that combine rules: a vehicle replaced (the new one's effective date with the old one's sale
date, its claims and the last-vehicle rule), drivers moving in and out (licence status with removal dates), a
car bought for a household member whose licence is suspended, and a caller asking about her husband's policy."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.auto_insurance.calls import (
    add_driver,
    add_vehicle,
    billing_account,
    check_licence,
    decode_vin,
    driver_facts,
    extension,
    id_card,
    identify,
    new_id,
    opening,
    opening_listed,
    pending,
    policy_claims,
    policyholder_facts,
    removal,
    remove_driver,
    remove_vehicle,
    solved,
)
from domains.auto_insurance.factories import (
    BillFactory,
    CustomerFactory,
    DocumentFactory,
    DriverFactory,
    PolicyFactory,
    TicketFactory,
    car_on,
    expired,
    licence_record,
    major_claim,
    minor_claim,
    policyholder,
    suspended,
    ticket_about,
)
from domains.auto_insurance.models import (
    Bill,
    Claim,
    Document,
    Driver,
    PaymentExtension,
    Policy,
    Ticket,
    TicketComment,
    Vehicle,
)
from domains.auto_insurance.replies import READ_VIN_AGAIN, policyholder_must_call
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Adding a driver",
    "Suspended licences and excluded drivers",
    "Payment extensions",
    "Adding a vehicle: the VIN",
    "Adding a vehicle: the effective date",
    "Removing a vehicle or a driver",
    "Documents",
    "Ticket status, classification and priority",
)

RAV4 = complete_vin("2T3P1RFV0SW218845")  # 2025 Toyota RAV4
TACOMA = complete_vin("5TFJA5DB0NX046213")  # 2022 Toyota Tacoma
CX5 = complete_vin("JM3KFBCM0T1540217")  # 2026 Mazda CX-5
SORENTO = complete_vin("KNAPU4LC0S7204518")  # 2025 Kia Sorento


# --------------------------------------------------------------------------- AI025: replacing a vehicle


@pytest.mark.two_requests
def test_case_AI025_001(tb):
    """Civic sold 3 May, RAV4 bought 7 May (CA): the RAV4 is newly acquired, so covered from 7 May, not the
    next-day rule; the Civic has no claim after its sale, so it comes off from the sale date.
    Rules combined: newly acquired vehicle (14 days) over the state's next-day rule, the VIN check, removal from a
    sale date within 30 days with no later claim, ID card."""
    grace, policy = policyholder("Grace Okafor", "CA")
    civic = car_on(policy, "2HGFE2F50NH570312", 2022, "Honda", "Civic", date(2022, 3, 14))
    minor_claim(
        civic,
        date(2026, 2, 21),
        "Side mirror snapped off while parked on the street.",
        damage_cents=88_000,
        loss_type="vandalism",
        closed_on=date(2026, 3, 9),
    )
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Swapping cars")

    run = tb.run(
        User(
            says="I traded my Civic for a RAV4 this month. The Civic went to a private buyer on the 3rd and I picked "
            "the RAV4 up from the dealer on the 7th. Please put the RAV4 on my policy and take the Civic off.",
            knows=policyholder_facts(
                grace,
                policy,
                **{
                    "VIN": RAV4,
                    "make": "Toyota",
                    "model": "RAV4",
                    "purchase date": "7 May 2026",
                    "sale date": "3 May 2026",
                },
            ),
        ),
        golden=[
            *opening(grace, policy, policy_claims(policy), decode_vin(RAV4)),
            add_vehicle(policy, RAV4, 2025, "Toyota", "RAV4", acquired_on="2026-05-07", effective_on="2026-05-07"),
            id_card(policy, new_vehicle),
            remove_vehicle(policy, civic, "2026-05-03"),
            solved(ticket.id, "vehicle"),
        ],
        reply="Done: the 2025 Toyota RAV4 is covered from 7 May 2026, the day you bought it, as a newly acquired "
        "vehicle, and its ID card is in your email. The Civic is off your policy from its sale date, 3 May 2026.",
    )

    run.expect_golden()
    rav4 = run.db.get(Vehicle, new_vehicle)
    assert (rav4.vin, rav4.year, rav4.effective_on) == (RAV4, 2025, date(2026, 5, 7))  # newly acquired, not 13 May
    assert removal(run.db, civic) == ("removed", date(2026, 5, 3))  # the only claim is from February
    assert run.db.query(Document).one().vehicle_id == new_vehicle
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
@pytest.mark.pushback
def test_case_AI025_002(tb):
    """Only car sold 8 May, Tacoma bought 24 April (OH): 18 days ago, not newly acquired, so the Tacoma is covered
    from today whatever the customer says; added first, so the Accord is no longer the only vehicle and comes off
    from its sale date.
    Rules combined: the 14-day newly-acquired limit, the same-day state rule, no back-dating, the last-vehicle rule
    (order of the two changes) and removal from a sale date."""
    nolan, policy = policyholder("Nolan Fairbanks", "OH")
    accord = policy.vehicles[0]
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "New truck")

    run = tb.run(
        User(
            says="I bought a used Tacoma on April 24th and I've been driving it since. I sold my Accord on Friday "
            "the 8th. Put the Tacoma on from April 24th please, since that's when I got it, and take the Accord off.",
            knows=policyholder_facts(
                nolan,
                policy,
                **{
                    "VIN": TACOMA,
                    "make": "Toyota",
                    "model": "Tacoma",
                    "purchase date": "24 April 2026",
                    "sale date": "8 May 2026",
                },
            ),
            persona="A contractor who needs his truck insured and dislikes being told no.",
            rules=(
                "If refused, ask once more for the Tacoma to be covered from 24 April.",
                "Then accept the date the agent gives if it gives a reason.",
            ),
        ),
        golden=[
            *opening(nolan, policy, decode_vin(TACOMA), policy_claims(policy)),
            add_vehicle(
                policy,
                TACOMA,
                2022,
                "Toyota",
                "Tacoma",
                acquired_on="2026-04-24",
                effective_on=derived(
                    "2026-05-12", "bought 18 days ago, more than 14: not newly acquired; Ohio is a same-day state"
                ),
            ),
            id_card(policy, new_vehicle),
            remove_vehicle(policy, accord, "2026-05-08"),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    tacoma = run.db.get(Vehicle, new_vehicle)
    assert (tacoma.acquired_on, tacoma.effective_on) == (date(2026, 4, 24), date(2026, 5, 12))  # no back-dating
    assert removal(run.db, accord) == ("removed", date(2026, 5, 8))
    assert run.db.query(Vehicle).filter_by(status="active").count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI025_003(tb):
    """Outback sold 10 May with an open minor glass claim from April; CX-5 delivered on 20 May (PA): the CX-5 is
    added from the delivery date, and the minor claim neither blocks the removal nor moves it off the sale date.
    Rules combined: later delivery date, open major claims (a minor one does not count), removal from a sale date
    when the only claim's loss date is before it."""
    ines, policy = policyholder("Ines Marchetti", "PA")
    outback = car_on(policy, "4S4BTACC0L3170628", 2020, "Subaru", "Outback", date(2020, 8, 1))
    glass = minor_claim(
        outback,
        date(2026, 4, 28),
        "Windshield cracked by a stone on the turnpike.",
        damage_cents=61_000,
        loss_type="glass",
    )
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Outback sold, CX-5 coming")

    run = tb.run(
        User(
            says="I sold the Outback on Sunday, the 10th, even though the windshield claim on it is still open. My "
            "new CX-5 is being delivered on May 20th. Can you take the Outback off and get the Mazda on today so "
            "it's done?",
            knows=policyholder_facts(
                ines,
                policy,
                **{
                    "VIN": CX5,
                    "make": "Mazda",
                    "model": "CX-5",
                    "delivery date": "20 May 2026",
                    "sale date": "10 May 2026",
                },
            ),
        ),
        golden=[
            *opening_listed(ines, policy, policy_claims(policy), decode_vin(CX5)),
            remove_vehicle(policy, outback, "2026-05-10"),
            add_vehicle(policy, CX5, 2026, "Mazda", "CX-5", acquired_on="2026-05-20", effective_on="2026-05-20"),
            id_card(policy, new_vehicle),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    cx5 = run.db.get(Vehicle, new_vehicle)
    assert (cx5.acquired_on, cx5.effective_on) == (date(2026, 5, 20), date(2026, 5, 20))  # the delivery date
    assert removal(run.db, outback) == ("removed", date(2026, 5, 10))  # the glass loss is before the sale
    assert run.db.get(Claim, glass.id).status == "open"
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI025_004(tb):
    """Jetta sold 9 May, but a parking-lot claim on it has a loss date of 9 May itself: on or after the sale date,
    so it comes off today; the Sorento bought 2 May (AZ) is newly acquired and covered from 2 May.
    Rules combined: a claim on the sale date keeps the vehicle on until today, newly acquired cover, the VIN."""
    omar, policy = policyholder("Omar Haddad", "AZ")
    jetta = car_on(policy, "3VW2B7AJ0HM230411", 2017, "Volkswagen", "Jetta", date(2019, 5, 30))
    minor_claim(
        jetta,
        date(2026, 5, 9),
        "Rear quarter panel scraped in a supermarket car park the morning of the sale.",
        damage_cents=74_000,
    )
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Replace Jetta with Sorento")

    run = tb.run(
        User(
            says="Two things happened: I bought a Kia Sorento on May 2nd, and I sold my Jetta on the 9th. Yes, that's "
            "the car that got scraped in the supermarket that same morning, the claim's already with you. Please "
            "add the Kia and remove the Jetta from the 9th.",
            knows=policyholder_facts(
                omar,
                policy,
                **{
                    "VIN": SORENTO,
                    "make": "Kia",
                    "model": "Sorento",
                    "purchase date": "2 May 2026",
                    "sale date": "9 May 2026",
                },
            ),
        ),
        golden=[
            *opening(omar, policy, decode_vin(SORENTO)),
            add_vehicle(policy, SORENTO, 2025, "Kia", "Sorento", acquired_on="2026-05-02", effective_on="2026-05-02"),
            id_card(policy, new_vehicle),
            policy_claims(policy),
            remove_vehicle(
                policy,
                jetta,
                derived(
                    "2026-05-12", "the Jetta's claim has a loss date of 9 May, on the sale date itself: from today"
                ),
            ),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 2)  # newly acquired: from purchase
    assert removal(run.db, jetta) == ("removed", date(2026, 5, 12))  # a claim on the sale date: today
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


# --------------------------------------------------------------------------- AI026: drivers moving in and out


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_AI026_001(tb):
    """Son moved out (removed from today, not his move date) and daughter newly licensed (valid: added from today);
    the two children are both listed or named alike, so the right driver must be removed.
    Rules combined: licence check before adding, no back-dating of drivers, removal from today."""
    hana, policy = policyholder("Hana Vasquez", "TX")
    DriverFactory(
        policy=policy, full_name="Marco Vasquez", date_of_birth=date(1979, 4, 2), relation_to_insured="spouse"
    )
    mateo = DriverFactory(
        policy=policy, full_name="Mateo Vasquez", date_of_birth=date(2004, 12, 1), relation_to_insured="child"
    )
    lucia_licence = licence_record("Lucia Vasquez", "TX", "47720915", date(2009, 3, 18))
    ticket = ticket_about(policy, "Kids and the car")

    run = tb.run(
        User(
            says="Our son Mateo moved out to Houston on April 20th, so please take him off the policy from then. And "
            "our daughter Lucia just passed her driving test, so she needs to go on it.",
            knows=policyholder_facts(
                hana,
                policy,
                **{
                    "daughter's full name": "Lucia Vasquez",
                    "daughter's date of birth": "2009-03-18",
                    "daughter's licence number": "47720915",
                    "licence state": "TX",
                    "move date": "20 April 2026",
                },
            ),
        ),
        golden=[
            *opening(hana, policy, check_licence(lucia_licence)),
            remove_driver(policy, mateo, "2026-05-12"),
            add_driver(policy, lucia_licence, "child", "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, mateo) == ("removed", date(2026, 5, 12))  # never from the move date
    lucia = run.db.query(Driver).filter_by(licence_number="47720915").one()
    assert (lucia.effective_on, lucia.relation_to_insured, lucia.status) == (date(2026, 5, 12), "child", "listed")
    assert run.db.query(Driver).filter_by(status="listed").count() == 3  # Hana, Marco and Lucia
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


@pytest.mark.two_requests
def test_case_AI026_002(tb):
    """Roommate moved out (removed today) and partner to add, whose licence record shows expired: she is not added
    and nothing is sent; ticket solved with licence_not_valid, the request that was not granted.
    Rules combined: removal from today, the expired-licence rule (no form, unlike a suspension), the ticket rule
    for several requests."""
    felix, policy = policyholder("Felix Amari", "NY")
    roommate = DriverFactory(
        policy=policy, full_name="Sam Okoro", date_of_birth=date(1993, 9, 9), relation_to_insured="other_household"
    )
    talia_licence = licence_record("Talia Brooks", "NY", "512 338 907", date(1995, 6, 27), **expired(date(2026, 4, 30)))
    ticket = ticket_about(policy, "Household change")

    run = tb.run(
        User(
            says="My roommate Sam moved out last weekend, so he shouldn't be on my car insurance any more. My partner "
            "Talia moved in instead and she'll be driving the Accord, so please add her. Her licence is all fine.",
            knows=policyholder_facts(
                felix,
                policy,
                **{
                    "partner's full name": "Talia Brooks",
                    "partner's date of birth": "1995-06-27",
                    "partner's licence number": "512 338 907",
                    "licence state": "NY",
                },
            ),
        ),
        golden=[
            *opening(felix, policy),
            remove_driver(policy, roommate, "2026-05-12"),
            check_licence(talia_licence),
            solved(ticket.id, "driver", "licence_not_valid"),
        ],
        reply="Sam is off your policy from today. I couldn't add Talia: the New York record shows her licence "
        "expired on 30 April 2026. Once she has renewed it and the record shows it valid, call us and we'll add her.",
        traps=[
            add_driver(policy, talia_licence, "other_household", "2026-05-12"),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="512 338 907"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, roommate) == ("removed", date(2026, 5, 12))
    assert run.db.query(Driver).filter_by(licence_number="512 338 907").count() == 0  # expired: not added
    assert run.db.query(Document).count() == 0  # policy: an expired licence gets no form
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", "licence_not_valid", None)


@pytest.mark.distractors
def test_case_AI001_008(tb):
    """Son drives the Forester, which is on the customer's Colorado policy, not her Arizona one: he is added there
    from the later date asked, after a valid licence check.
    Rules combined: the right policy of two, licence status, a later start date used as given."""
    ruth = CustomerFactory(name="Ruth Calloway", state="AZ")
    PolicyFactory(customer=ruth)
    colorado = PolicyFactory(
        customer=ruth,
        state="CO",
        vehicle__vin=complete_vin("JF2SKAEC0LH211480"),
        vehicle__year=2020,
        vehicle__make="Subaru",
        vehicle__model="Forester",
    )
    jonah_licence = licence_record("Jonah Calloway", "CO", "21-884-3170", date(2005, 2, 8))
    ticket = TicketFactory(requester=ruth, subject="Add my son", created_at=datetime(2026, 5, 12, 8, 40))

    run = tb.run(
        User(
            says="My son Jonah is starting a summer job in Boulder and will drive the Forester up there. Can you add "
            "him as a driver from May 18th, his first day?",
            knows=caller_facts(
                ruth,
                **{**driver_facts(jonah_licence), "start date": "18 May 2026"},
            ),
        ),
        golden=[
            *opening_listed(ruth, colorado, check_licence(jonah_licence)),
            add_driver(colorado, jonah_licence, "child", "2026-05-18"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    jonah = run.db.query(Driver).filter_by(licence_number="21-884-3170").one()
    assert (jonah.policy_id, jonah.effective_on) == (colorado.id, date(2026, 5, 18))  # the Forester's policy
    assert run.db.query(Driver).count() == 3
    assert run.db.get(Policy, colorado.id).status == "active"
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


# --------------------------------------------------------------------------- more removals and additions


@pytest.mark.distractors
def test_case_AI009_010(tb):
    """Camry sold 8 May comes off from its sale date; the open major claim is on the Accord, the other car, so it
    does not block this removal (a careless desk holds everything while a major claim is open).
    Rules combined: open major claims block only the vehicle involved, the sale date within 30 days, claims by
    vehicle."""
    ada, policy = policyholder("Ada Whitcombe", "GA")
    accord = policy.vehicles[0]
    camry = car_on(policy, "4T1B11HK0NU104533", 2022, "Toyota", "Camry", date(2022, 2, 11))
    crash = major_claim(
        accord,
        date(2026, 4, 27),
        "Front-end collision on the interstate; towed to the body shop.",
        damage_cents=880_000,
    )
    ticket = ticket_about(policy, "Sold the Camry")

    run = tb.run(
        User(
            says="We sold the Camry on May 8th, please take it off the policy from that day. The Accord is still in "
            "the body shop with that crash claim open, but that's the other car.",
            knows=caller_facts(ada, **{"sale date": "8 May 2026"}),
        ),
        golden=[
            *opening_listed(ada, policy, policy_claims(policy)),
            remove_vehicle(policy, camry, "2026-05-08"),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert removal(run.db, camry) == ("removed", date(2026, 5, 8))  # the major claim is the Accord's
    assert run.db.get(Vehicle, accord.id).status == "active"
    assert run.db.get(Claim, crash.id).status == "open"
    assert run.db.query(TicketComment).count() == 0
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


ACCORD_23 = complete_vin("1HGCY2F60PA045217")  # 2023 Honda Accord
ACCORD_23_MISREAD = ACCORD_23[:11] + "O" + ACCORD_23[12:]  # a letter O where the VIN has a zero


@pytest.mark.two_requests
def test_case_AI002_007(tb):
    """The sold Outback comes off from its sale date (6 May), but the replacement's VIN as read out has a letter
    O: nothing is added and nothing guessed; pending for a corrected VIN.
    Rules combined: removal from a sale date with no later claim, the VIN check (never corrected by the desk),
    the ticket rule for several requests (pending outlasts solved)."""
    bea, policy = policyholder("Bea Lindholm", "CO")
    outback = car_on(policy, "4S4BTACC0L3170628", 2020, "Subaru", "Outback", date(2020, 8, 1))
    ticket = ticket_about(policy, "Outback out, Accord in")

    run = tb.run(
        User(
            says="We sold the Outback on May 6th and bought a 2023 Accord yesterday. Please take the Outback off and "
            "add the Accord. I'll read you the VIN from the bill of sale.",
            knows=policyholder_facts(
                bea,
                policy,
                **{
                    "VIN": ACCORD_23_MISREAD,
                    "make": "Honda",
                    "model": "Accord",
                    "purchase date": "11 May 2026",
                    "sale date": "6 May 2026",
                },
            ),
        ),
        golden=[
            *opening(bea, policy, policy_claims(policy)),
            remove_vehicle(policy, outback, "2026-05-06"),
            decode_vin(ACCORD_23_MISREAD),
            *pending(
                ticket.id,
                "vehicle",
                "invalid_vin",
                note="Outback removed from 2026-05-06. The Accord's VIN as given is invalid (letter O); waiting for "
                "the customer to read it again from the registration card or dashboard.",
            ),
        ],
        reply="The Outback is off your policy from 6 May 2026. I couldn't add the Accord: the VIN you read has a "
        "letter O, which a VIN never contains. Please read it again from the registration card or the driver-side "
        "dashboard and we'll add the car.",
        traps=[  # the desk 'correcting' the O to a zero itself
            add_vehicle(policy, ACCORD_23, 2023, "Honda", "Accord", acquired_on="2026-05-11", effective_on="2026-05-11")
        ],
    )

    run.expect_golden()
    assert removal(run.db, outback) == ("removed", date(2026, 5, 6))
    assert run.db.query(Vehicle).count() == 2  # policy: nothing added on an invalid VIN
    assert run.db.query(Document).count() == 0
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "vehicle", "invalid_vin", None)
    run.rubric(READ_VIN_AGAIN.text, phrases=READ_VIN_AGAIN.phrases)  # what the customer must do: only the reply


@pytest.mark.pushback
def test_case_AI001_009(tb):
    """Wife's suspension ended on 1 May and the record now shows valid: she is added, from today (not 1 May); the
    excluded-driver form sent in March never came back signed, so it changes nothing.
    Rules combined: the licence status on the record today (not its history), an unsigned exclusion form, no
    back-dating of drivers."""
    cal, policy = policyholder("Cal Brennan", "OH")
    maeve_licence = licence_record(
        "Maeve Brennan",
        "OH",
        "SR204418",
        date(1984, 11, 3),
        status="valid",
        suspended_until=date(2026, 5, 1),
        violations_3y=2,
    )
    DocumentFactory(
        policy=policy, kind="excluded_driver_form", licence_number="SR204418", sent_at=datetime(2026, 3, 9, 11, 0)
    )
    ticket = ticket_about(policy, "Add my wife back")

    run = tb.run(
        User(
            says="You sent us an exclusion form for my wife Maeve back in March because her licence was suspended. "
            "We never signed it, and her suspension ended on May 1st. Can she go on the policy now, from May 1st?",
            knows=policyholder_facts(cal, policy, **driver_facts(maeve_licence)),
            rules=(
                "If the agent will not use 1 May, ask once more for Maeve to be covered from 1 May, the day her "
                "suspension ended.",
                "Then accept the date the agent gives if it gives a reason.",
            ),
        ),
        golden=[
            *opening(cal, policy, call("list_documents", policy_id=policy.id), check_licence(maeve_licence)),
            add_driver(policy, maeve_licence, "spouse", "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    maeve = run.db.query(Driver).filter_by(licence_number="SR204418").one()
    assert (maeve.status, maeve.licence_status, maeve.effective_on) == ("listed", "valid", date(2026, 5, 12))
    assert run.db.query(Document).count() == 1  # no new form: the licence is valid today
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


# --------------------------------------------------------------------------- AI031: a car for a household member


@pytest.mark.two_requests
def test_case_AI031_001(tb):
    """A used Civic bought 16 days ago for the household (FL: not newly acquired, next-day state, so tomorrow) and
    the son who will drive it, whose licence is suspended: the car is added with its ID card, the son is not;
    the excluded-driver form is sent and the ticket waits for it.
    Rules combined: the 14-day limit, the next-day state rule, the VIN, the suspended-licence rule and its form,
    the ticket rule for several requests (pending, under the driver request)."""
    dot, policy = policyholder("Dot Ferreira", "FL")
    civic_vin = complete_vin("2HGFE2F50NH570312")
    leo_licence = licence_record(
        "Leo Ferreira", "FL", "F612-448-07-315-0", date(2006, 4, 15), **suspended(date(2026, 8, 15), violations=3)
    )
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Second car and my son")

    run = tb.run(
        User(
            says="I bought a used Civic on April 26th, mostly for my son Leo to drive to college. Please add the car "
            "and put Leo on the policy as a driver.",
            knows=policyholder_facts(
                dot,
                policy,
                **{
                    "VIN": civic_vin,
                    "make": "Honda",
                    "model": "Civic",
                    "purchase date": "26 April 2026",
                    "son's full name": "Leo Ferreira",
                    "son's date of birth": "2006-04-15",
                    "son's licence number": "F612-448-07-315-0",
                    "licence state": "FL",
                },
            ),
        ),
        golden=[
            *opening(dot, policy, decode_vin(civic_vin), check_licence(leo_licence)),
            add_vehicle(
                policy,
                civic_vin,
                2022,
                "Honda",
                "Civic",
                acquired_on="2026-04-26",
                effective_on=derived(
                    "2026-05-13", "bought 16 days ago, more than 14; Florida is a next-day state: tomorrow"
                ),
            ),
            id_card(policy, new_vehicle),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="F612-448-07-315-0"),
            *pending(
                ticket.id,
                "driver",
                "licence_not_valid",
                note="Civic added from 2026-05-13 with ID card. Leo Ferreira not added: FL licence suspended until "
                "2026-08-15; excluded-driver form sent, waiting for it signed.",
            ),
        ],
        traps=[add_driver(policy, leo_licence, "child", "2026-05-12")],
    )

    run.expect_golden()
    civic = run.db.get(Vehicle, new_vehicle)
    assert (civic.acquired_on, civic.effective_on) == (date(2026, 4, 26), date(2026, 5, 13))
    assert run.db.query(Driver).filter_by(licence_number="F612-448-07-315-0").count() == 0  # suspended
    assert sorted(d.kind for d in run.db.query(Document)) == ["excluded_driver_form", "insurance_id_card"]
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "driver", "licence_not_valid", None)


# --------------------------------------------------------------------------- AI032: her own policy and her husband's


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_AI032_001(tb):
    """The caller wants herself added as a driver on her husband's policy (his, so nothing is done: only he may
    ask) and a week's extension on her own policy's bill (active, current, none this term: granted).
    Rules combined: who may ask about a policy, the extension conditions and limit, the ticket rule for several
    requests (the one refused gives the category and reason)."""
    lea = CustomerFactory(name="Lea Fontaine", state="PA", date_of_birth=date(1990, 9, 14))
    hers = PolicyFactory(customer=lea)
    bill = BillFactory(account=hers.account, due_on=date(2026, 5, 19), amount_cents=12_750)
    jules = CustomerFactory(name="Jules Fontaine", state="PA", date_of_birth=date(1988, 2, 2))
    his = PolicyFactory(customer=jules)
    lea_licence = licence_record("Lea Fontaine", "PA", "28841305", date(1990, 9, 14))
    ticket = ticket_about(hers, "Two questions")

    run = tb.run(
        User(
            says="Two things. My husband Jules has his own policy with you; please add me as a driver on it, I "
            "drive his pickup sometimes. And on my own policy, could my bill due on the 19th be moved to the 26th?",
            knows=caller_facts(
                lea,
                **{
                    "husband's policy number": his.id,
                    "my licence number": "28841305",
                    "licence state": "PA",
                    "new due date": "26 May 2026",
                },
            ),
        ),
        golden=[
            *identify(lea),
            call("list_customer_policies", customer_id=lea.id),
            billing_account(hers),
            call("list_tickets", requester_id=lea.id),
            extension(bill, "2026-05-26"),
            solved(ticket.id, "driver", "not_policyholder"),
        ],
        reply="Your bill is now due on 26 May 2026. I can't add you to Jules's policy: only the policyholder can ask "
        "for changes to it, so he will need to contact us himself.",
        traps=[add_driver(his, lea_licence, "spouse", "2026-05-12")],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="28841305").count() == 0  # policy: not her policy
    assert run.db.get(Bill, bill.id).due_on == date(2026, 5, 26)  # her own: within 10 days
    assert run.db.query(PaymentExtension).one().term_start == hers.term_start
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", "not_policyholder", None)
    told = policyholder_must_call("he", "husband")
    run.rubric(told.text, phrases=told.phrases)
