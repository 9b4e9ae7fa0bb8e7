"""Drivers and vehicles: licence checks, excluded-driver forms, VIN checks and effective dates by state."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.calls import (
    add_driver,
    add_vehicle,
    check_licence,
    create_ticket,
    decode_vin,
    driver_facts,
    id_card,
    new_id,
    opening,
    opening_listed,
    pending,
    policyholder_facts,
    solved,
    unverified,
)
from domains.auto_insurance.factories import (
    CustomerFactory,
    PolicyFactory,
    TicketFactory,
    expired,
    licence_record,
    policyholder,
    suspended,
    ticket_about,
)
from domains.auto_insurance.models import Coverage, Document, Driver, Ticket, TicketComment, Vehicle
from domains.auto_insurance.vin import complete_vin
from domains.shared.identity import caller_facts
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a conversation",
    "Identity verification",
    "Adding a driver",
    "Suspended licences and excluded drivers",
    "Adding a vehicle: the VIN",
    "Adding a vehicle: the effective date",
    "Adding a coverage (endorsements)",
    "Documents",
    "Ticket status, classification and priority",
)

CAMRY = complete_vin("4T1B11HK0KU716204")  # 2019 Toyota Camry


# --------------------------------------------------------------------------- AI001: adding a driver


def test_case_AI001_001(tb):
    """Spouse with a valid licence, customer wants her listed from 1 April: drivers are never back-dated."""
    megan, policy = policyholder("Megan Whitfield", "TX")
    record = licence_record("Daniel Whitfield", "TX", "42197730", date(1983, 8, 2))
    ticket = ticket_about(policy, "Add my husband to the policy")

    run = tb.run(
        User(
            says="Please add my husband Daniel to my car insurance. He's been driving my Accord since the first of "
            "April, so can you put him on from April 1st so he's covered for that too?",
            knows=policyholder_facts(megan, policy, **driver_facts(record)),
        ),
        golden=[
            *opening(megan, policy, check_licence(record)),
            add_driver(policy, record, "spouse", "2026-05-12"),
            solved(ticket.id, "driver"),
        ],
    )

    run.expect_golden()
    added = run.db.query(Driver).filter_by(licence_number="42197730").one()
    assert (added.effective_on, added.licence_status) == (date(2026, 5, 12), "valid")  # policy: never back-dated
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", None, None)


def test_case_AI001_002(tb):
    """Son's licence is suspended until June: do not add him; send the excluded-driver form, ticket pending."""
    luis, policy = policyholder("Luis Brennan", "OH")
    record = licence_record(
        "Connor Brennan", "OH", "TR418207", date(2006, 11, 19), **suspended(date(2026, 6, 20), violations=3)
    )
    ticket = ticket_about(policy, "Add my son as a driver")

    run = tb.run(
        User(
            says="My son Connor is 19 and needs to drive the family car to his summer job. He had a little trouble "
            "with his licence but he gets it back next month anyway, so please just add him now.",
            knows=policyholder_facts(luis, policy, **driver_facts(record)),
        ),
        golden=[
            *opening(luis, policy, check_licence(record)),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="TR418207"),
            *pending(
                ticket.id,
                "driver",
                "licence_not_valid",
                note="Connor Brennan not added: OH licence suspended until 2026-06-20. Excluded-driver form sent; "
                "waiting for it to come back signed.",
            ),
        ],
        traps=[  # "he gets it back next month anyway, so please just add him now"
            add_driver(policy, record, "child", "2026-05-12")
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="TR418207").count() == 0  # policy: suspended, never added
    assert run.db.query(Document).one().kind == "excluded_driver_form"
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "driver", "licence_not_valid", None)


@pytest.mark.two_requests
def test_case_AI001_003(tb):
    """Mother's licence record shows expired although the customer says it is fine: she is not added and nothing is
    sent. The Camry she signed over to the customer on 4 May is added: newly acquired (8 days ago), so covered from
    that day, with its ID card. Ticket solved with the refused request's category and reason.
    Rules combined: the licence check (expired: no form), a vehicle's VIN and model year, newly acquired cover,
    the ID card, the ticket rule for several requests."""
    harper, policy = policyholder("Harper Osei", "GA")
    record = licence_record("Grace Osei", "GA", "058337421", date(1956, 2, 27), **expired(date(2026, 2, 27)))
    ticket_about(policy, "Proof of insurance", status="solved")
    ticket = ticket_about(policy, "Add a driver")
    new_vehicle = new_id("V-", *policy.vehicles)

    run = tb.run(
        User(
            says="My mother has moved in with us and will sometimes drive my car, mostly to the shops and her "
            "doctor. Her licence is all in order. Can you add her to my policy today so she's covered? She also "
            "signed her old Camry over to me, so please put that on my policy as well.",
            knows=policyholder_facts(
                harper,
                policy,
                **{
                    **driver_facts(record),
                    "VIN": CAMRY,
                    "make": "Toyota",
                    "model": "Camry",
                    "date the title was signed over": "4 May 2026",
                },
            ),
        ),
        golden=[
            *opening(harper, policy, check_licence(record), decode_vin(CAMRY)),
            add_vehicle(policy, CAMRY, 2019, "Toyota", "Camry", acquired_on="2026-05-04", effective_on="2026-05-04"),
            id_card(policy, new_vehicle),
            solved(ticket.id, "driver", "licence_not_valid"),
        ],
        reply="The Camry is on your policy, covered from 4 May 2026, the day it became yours; its ID card is in your "
        "email. I checked your mother's Georgia licence with the state, though: their record shows it expired on 27 "
        "February 2026, so I can't add her as a driver yet. Once she has renewed it and the record shows it as "
        "valid, call us and we'll add her straight away.",
        traps=[  # "her licence is all in order": added without reading the record's status
            add_driver(policy, record, "parent", "2026-05-12")
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="058337421").count() == 0  # policy: expired, not added
    camry = run.db.get(Vehicle, new_vehicle)
    assert (camry.vin, camry.year, camry.effective_on) == (CAMRY, 2019, date(2026, 5, 4))  # newly acquired
    docs = run.db.query(Document).all()
    assert [(d.kind, d.vehicle_id) for d in docs] == [("insurance_id_card", new_vehicle)]  # no form for an expiry
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "driver", "licence_not_valid", None)


def test_case_AI001_004(tb):
    """Caller gives a date of birth that does not match: no driver added; ticket pending with an internal note."""
    dwayne = CustomerFactory(name="Dwayne Kowalski", state="CO", date_of_birth=date(1979, 4, 18))
    policy = PolicyFactory(customer=dwayne)
    tanya_licence = licence_record("Tanya Kowalski", "CO", "19-442-8107", date(1981, 1, 5))
    ticket = ticket_about(policy, "Add my wife")

    run = tb.run(
        User(
            says="Hi, I need to add my wife Tanya as a driver on our policy. She has a valid Colorado licence and "
            "she'll be sharing the car with me from this week, so I'd like it done today.",
            knows=policyholder_facts(dwayne, policy, date_of_birth="1979-08-14", **driver_facts(tanya_licence)),
        ),
        golden=[
            *unverified(
                dwayne,
                "1979-08-14",
                ticket.id,
                "driver",
                note="Identity not verified (date of birth did not match). No driver added; nothing changed.",
            ),
        ],
        traps=[  # Tanya added as asked although the caller failed verification
            add_driver(policy, tanya_licence, "spouse", "2026-05-12")
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).count() == 1  # only the named insured: policy, no change without verification
    assert run.db.query(TicketComment).one().public is False
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "driver", "identity_not_verified", None)


@pytest.mark.two_requests
def test_case_AI001_005(tb):
    """Wife and son to add: her licence is valid, his is suspended: add her, send his excluded-driver form; pending."""
    dwayne, policy = policyholder("Dwayne Castillo", "AZ")
    lena_licence = licence_record("Lena Castillo", "AZ", "D08715533", date(1982, 5, 17))
    marco_licence = licence_record(
        "Marco Castillo", "AZ", "D11402968", date(2005, 9, 8), **suspended(date(2026, 9, 1), violations=4)
    )
    ticket = ticket_about(policy, "Add two drivers")

    run = tb.run(
        User(
            says="I'd like to add my wife Lena and my son Marco as drivers on my car insurance. Lena has had her "
            "licence for twenty years. Marco got a couple of speeding tickets recently but he's still a good "
            "driver, honestly.",
            knows=policyholder_facts(
                dwayne,
                policy,
                **{
                    "wife's licence number": "D08715533",
                    "wife's date of birth": "1982-05-17",
                    "son's licence number": "D11402968",
                    "son's date of birth": "2005-09-08",
                    "licence state": "AZ",
                },
            ),
        ),
        golden=[
            *opening(dwayne, policy, check_licence(lena_licence), check_licence(marco_licence)),
            add_driver(policy, lena_licence, "spouse", "2026-05-12"),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="D11402968"),
            *pending(
                ticket.id,
                "driver",
                "licence_not_valid",
                note="Lena Castillo added. Marco Castillo not added: AZ licence suspended until 2026-09-01; "
                "excluded-driver form sent, waiting for it signed.",
            ),
        ],
        traps=[  # "he's still a good driver, honestly"
            add_driver(policy, marco_licence, "child", "2026-05-12")
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="D08715533").one().effective_on == date(2026, 5, 12)
    assert run.db.query(Driver).filter_by(licence_number="D11402968").count() == 0  # policy: suspended
    assert run.db.query(Document).one().licence_number == "D11402968"
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "driver", "licence_not_valid", None)


def test_case_AI001_006(tb):
    """Son with a valid licence from 1 June, no open ticket: open one, add him from the later date asked."""
    brianna, policy = policyholder("Brianna Kowalski", "NY")
    owen_licence = licence_record("Owen Kowalski", "NY", "738 204 119", date(2006, 1, 23))
    old = ticket_about(policy, "Declarations page", status="solved")
    new_ticket = new_id("T-", old)

    run = tb.run(
        User(
            says="My son Owen comes home from college for the summer on June 1st and he'll be using my car until "
            "August. He doesn't need to be on the policy before he's home, but from the day he gets back he does. "
            "Can you set that up now so I don't forget?",
            knows=policyholder_facts(brianna, policy, **{**driver_facts(owen_licence), "start date": "1 June 2026"}),
        ),
        golden=[
            *opening(brianna, policy, check_licence(owen_licence)),
            create_ticket(brianna, policy, "Add son as a driver from 1 June", "driver"),
            add_driver(policy, owen_licence, "child", "2026-06-01"),
            solved(new_ticket),
        ],
    )

    run.expect_golden()
    owen = run.db.query(Driver).filter_by(full_name="Owen Kowalski").one()
    assert (owen.effective_on, owen.relation_to_insured) == (date(2026, 6, 1), "child")  # policy: later date as given
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "driver", None, None)
    assert run.db.get(Ticket, new_ticket).requester_id == brianna.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"


@pytest.mark.pushback
def test_case_AI001_007(tb):
    """Wife's licence suspended; the fallback, adding her from the suspension's end, refused too: form, pending."""
    luis, policy = policyholder("Luis Kowalski", "GA")
    renee_licence = licence_record(
        "Renee Kowalski", "GA", "061928374", date(1988, 3, 30), **suspended(date(2026, 6, 21), violations=1)
    )
    ticket = ticket_about(policy, "Add my wife")

    run = tb.run(
        User(
            says="I need to get my wife Renee on my policy. Her licence is suspended right now, but only until June "
            "21st. If you can't add her today, then put her on starting June 21st, so she's covered the day she "
            "gets it back and I don't have to call again.",
            knows=policyholder_facts(luis, policy, **driver_facts(renee_licence)),
            persona="A husband trying to save himself a second phone call.",
            rules=(
                "If the agent will not add Renee today, ask for her to be added from 21 June instead.",
                "If that is refused too, accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            *opening(luis, policy, check_licence(renee_licence)),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="061928374"),
            *pending(
                ticket.id,
                "driver",
                "licence_not_valid",
                note="Renee Kowalski not added (GA licence suspended until 2026-06-21), not even from that date. "
                "Excluded-driver form sent; waiting for it signed.",
            ),
        ],
        traps=[  # the fallback: a suspended driver listed from the day the suspension ends
            add_driver(policy, renee_licence, "spouse", "2026-06-21")
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="061928374").count() == 0  # policy: not even from 21 June
    assert run.db.query(Document).one().kind == "excluded_driver_form"
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "driver", "licence_not_valid", None)


# --------------------------------------------------------------------------- AI002: adding a vehicle

F150 = complete_vin("1FTFW1E50SFA41877")  # 2025 Ford F-150
RAV4 = complete_vin("2T3P1RFV0RW218845")  # 2024 Toyota RAV4
CRV = complete_vin("5J6RW2H80PL034519")  # 2023 Honda CR-V


def test_case_AI002_001(tb):
    """Texas truck bought 40 days ago, customer wants cover from the purchase date: same-day state, so today."""
    rafael, policy = policyholder("Rafael Nakamura", "TX")
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Add a truck")

    run = tb.run(
        User(
            says="I bought a Ford F-150 back at the start of April and forgot to tell you. Please add it and make "
            "the coverage start from the day I bought it.",
            knows=policyholder_facts(rafael, policy, **{"VIN": F150, "purchase date": "2026-04-02", "model": "F-150"}),
        ),
        golden=[
            *opening(rafael, policy, decode_vin(F150)),
            add_vehicle(policy, F150, 2025, "Ford", "F-150", acquired_on="2026-04-02", effective_on="2026-05-12"),
            id_card(policy, new_vehicle),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    truck = run.db.get(Vehicle, new_vehicle)
    assert (truck.vin, truck.effective_on) == (F150, date(2026, 5, 12))
    assert run.db.query(Document).one().vehicle_id == new_vehicle
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


def test_case_AI002_002(tb):
    """California SUV bought three weeks ago, customer wants it covered today: next-day state, so tomorrow."""
    brianna, policy = policyholder("Brianna Pruitt", "CA")
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "New car")

    run = tb.run(
        User(
            says="I need to add my RAV4 to my policy; I bought it a few weeks ago and kept forgetting. I'm driving"
            " it to work this afternoon so it has to be covered as of right now, today.",
            knows=policyholder_facts(
                brianna, policy, **{"VIN": RAV4, "purchase date": "2026-04-21", "make": "Toyota", "model": "RAV4"}
            ),
        ),
        golden=[
            *opening(brianna, policy, decode_vin(RAV4)),
            add_vehicle(
                policy,
                RAV4,
                2024,
                "Toyota",
                "RAV4",
                acquired_on="2026-04-21",
                effective_on=derived(
                    "2026-05-13",
                    "CA is a next-day state and the RAV4 was bought on 21 April 2026, 21 days before today (not "
                    "newly acquired): tomorrow, 13 May 2026, not today as the customer asks",
                ),
            ),
            id_card(policy, new_vehicle),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 13)  # policy: CA is a next-day state
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


def test_case_AI002_003(tb):
    """Florida car bought 6 days ago: newly acquired, so covered from the purchase date, not the next-day rule."""
    theo, policy = policyholder("Theo Lindgren", "FL")
    new_vehicle = new_id("V-", *policy.vehicles)
    ticket = ticket_about(policy, "Add second car")

    run = tb.run(
        User(
            says="We picked up a used Honda CR-V last week as a second car for my wife's commute. Could you add it"
            " to our policy? Starting tomorrow is fine, we haven't really driven it yet.",
            knows=policyholder_facts(theo, policy, **{"VIN": CRV, "purchase date": "2026-05-06", "model": "CR-V"}),
        ),
        golden=[
            *opening(theo, policy, decode_vin(CRV)),
            add_vehicle(policy, CRV, 2023, "Honda", "CR-V", acquired_on="2026-05-06", effective_on="2026-05-06"),
            id_card(policy, new_vehicle),
            solved(ticket.id, "vehicle"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 6)  # policy: newly acquired
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


@pytest.mark.two_requests
def test_case_AI002_004(tb):
    """The VIN the customer reads out fails its check digit: add nothing, guess nothing; ticket pending for a
    corrected VIN. The roadside assistance she asks for at 100 dollars a tow is added from today (the policy is
    active), whatever happens to the car.
    Rules combined: the VIN check (never corrected at the desk), an endorsement added, the ticket rule for several
    requests (pending outlasts solved)."""
    aisha, policy = policyholder("Aisha Abbott", "PA")
    good = complete_vin("1G1ZD5ST0MF118204")
    misread = good[:8] + ("7" if good[8] != "7" else "3") + good[9:]
    ticket = ticket_about(policy, "Add a Malibu")

    run = tb.run(
        User(
            says="I'd like to add my daughter's old Chevy Malibu to my policy. She's moved abroad and is leaving "
            "it with us, and I'll drive it now and then. I have the VIN right here from the paperwork. And with an "
            "old car in the family, please add roadside assistance, the $100-per-tow level.",
            knows=policyholder_facts(
                aisha, policy, **{"VIN": misread, "purchase date": "2026-03-15", "model": "Malibu"}
            ),
        ),
        golden=[
            *opening(aisha, policy, decode_vin(misread)),
            call("add_coverage", policy_id=policy.id, coverage="roadside_assistance", limit_cents=10_000),
            *pending(
                ticket.id,
                "vehicle",
                "invalid_vin",
                note="VIN given fails the check digit; nothing added. Waiting for the customer to read the VIN again. "
                "Roadside assistance added today.",
            ),
        ],
        reply="Roadside assistance at $100 per tow is on your policy from today. I couldn't add the Malibu: the VIN "
        "you read doesn't pass its check digit. Please read it again from the registration card or the driver-side "
        "dashboard and we'll add the car.",
        traps=[  # the agent "fixes" the check digit itself and adds the car (PA: from tomorrow)
            add_vehicle(policy, good, 2021, "Chevrolet", "Malibu", acquired_on="2026-03-15", effective_on="2026-05-13")
        ],
    )

    run.expect_golden()
    assert run.db.query(Vehicle).count() == 1  # policy: nothing added on an invalid VIN, no character guessed
    roadside = run.db.query(Coverage).filter_by(policy_id=policy.id, coverage="roadside_assistance").one()
    assert (roadside.limit_cents, roadside.effective_on) == (10_000, date(2026, 5, 12))  # from today
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "normal", "vehicle", "invalid_vin", None)


CIVIC = complete_vin("2HGFE2F50NH563019")  # 2022 Honda Civic
PRIUS = complete_vin("JTDKARFU0P3091847")  # 2023 Toyota Prius


@pytest.mark.distractors
def test_case_AI002_005(tb):
    """Car added to the customer's California policy, not her Texas one: next-day state, so tomorrow."""
    harper, texas = policyholder("Harper Abbott", "TX")
    california = PolicyFactory(customer=harper, state="CA")
    new_vehicle = new_id("V-", *texas.vehicles, *california.vehicles)
    ticket = TicketFactory(requester=harper, subject="Car for my daughter")

    run = tb.run(
        User(
            says="I have two policies with you, my own here in Texas and the one for my daughter's car at college "
            "in California. She's just swapped her car for a used Civic out there, so please add the Civic to the "
            "California policy. I don't have that policy number to hand, sorry.",
            knows=caller_facts(
                harper,
                **{
                    "which policy": "the California one, for my daughter's car",
                    "VIN": CIVIC,
                    "purchase date": "20 April 2026",
                    "make": "Honda",
                    "model": "Civic",
                },
            ),
        ),
        golden=[
            *opening_listed(harper, california, decode_vin(CIVIC)),
            add_vehicle(
                california,
                CIVIC,
                2022,
                "Honda",
                "Civic",
                acquired_on="2026-04-20",
                effective_on=derived(
                    "2026-05-13",
                    "the California policy: CA is a next-day state and the Civic was bought 22 days ago, so tomorrow",
                ),
            ),
            id_card(california, new_vehicle),
            solved(ticket.id, "vehicle"),
        ],
        traps=[  # the first policy on the list, her Texas one, where the car would be covered today
            add_vehicle(texas, CIVIC, 2022, "Honda", "Civic", acquired_on="2026-04-20", effective_on="2026-05-12")
        ],
    )

    run.expect_golden()
    civic = run.db.get(Vehicle, new_vehicle)
    assert (civic.policy_id, civic.effective_on) == (california.id, date(2026, 5, 13))
    assert run.db.query(Vehicle).filter_by(policy_id=texas.id).count() == 1
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "vehicle", None, None)


def test_case_AI002_006(tb):
    """Car collected on 20 May, no open ticket: open one, add it from 20 May, not today as asked."""
    rafael, policy = policyholder("Rafael Pruitt", "NY")
    old = ticket_about(policy, "Payment question", status="solved")
    new_ticket, new_vehicle = new_id("T-", old), new_id("V-", *policy.vehicles)

    run = tb.run(
        User(
            says="I've bought a Prius and I collect it from the dealer next Wednesday, the 20th. They want proof of "
            "insurance before I can drive it away, so could you add it to my policy and make it active from today, "
            "so it's all in place?",
            knows=policyholder_facts(
                rafael, policy, **{"VIN": PRIUS, "delivery date": "20 May 2026", "make": "Toyota", "model": "Prius"}
            ),
        ),
        golden=[
            *opening(rafael, policy, decode_vin(PRIUS)),
            create_ticket(rafael, policy, "Add a Prius collected on 20 May", "vehicle"),
            add_vehicle(policy, PRIUS, 2023, "Toyota", "Prius", acquired_on="2026-05-20", effective_on="2026-05-20"),
            id_card(policy, new_vehicle),
            solved(new_ticket),
        ],
    )

    run.expect_golden()
    prius = run.db.get(Vehicle, new_vehicle)
    assert (prius.acquired_on, prius.effective_on) == (date(2026, 5, 20), date(2026, 5, 20))  # policy: delivery date
    assert run.db.get(Ticket, new_ticket).outcome == ("solved", "normal", "vehicle", None, None)
    assert run.db.get(Ticket, new_ticket).policy_id == policy.id
    assert run.db.get(Ticket, old.id).outcome[0] == "solved"
