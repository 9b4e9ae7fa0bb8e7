"""Drivers and vehicles: licence checks, excluded-driver forms, VIN checks and effective dates by state."""

from __future__ import annotations

from datetime import date

import pytest

from domains.auto_insurance.factories import (
    CustomerFactory,
    LicenceRecordFactory,
    PolicyFactory,
    TicketFactory,
    caller_knows,
)
from domains.auto_insurance.models import Document, Driver, Ticket, TicketComment, Vehicle
from domains.auto_insurance.vin import complete_vin
from pytest_thinkingbox import User, call, derived


def _verify(customer, date_of_birth=None):
    return call(
        "verify_identity",
        email=customer.email,
        date_of_birth=date_of_birth or customer.date_of_birth.isoformat(),
        postal_code=customer.postal_code,
    )


# --------------------------------------------------------------------------- AI001: adding a driver


def test_case_AI001_001(tb):
    """Spouse with a valid licence, customer wants her listed from 1 April: drivers are never back-dated."""
    megan = CustomerFactory(name="Megan Whitfield", state="TX")
    policy = PolicyFactory(customer=megan)
    record = LicenceRecordFactory(
        licence_number="42197730", licence_state="TX", holder_name="Daniel Whitfield", date_of_birth=date(1983, 8, 2)
    )
    ticket = TicketFactory(requester=megan, policy_id=policy.id, subject="Add my husband to the policy")

    run = tb.run(
        User(
            says="Please add my husband Daniel to my car insurance. He's been driving my Accord since the first of "
            "April, so can you put him on from April 1st so he's covered for that too?",
            knows=caller_knows(
                megan,
                **{
                    "policy number": policy.id,
                    "driver's full name": "Daniel Whitfield",
                    "driver's date of birth": "1983-08-02",
                    "licence number": "42197730",
                    "licence state": "TX",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=megan.email),
            _verify(megan),
            call("get_policy", policy_id=policy.id),
            call("check_licence", licence_number=record.licence_number, licence_state="TX"),
            call("list_tickets", requester_id=megan.id),
            call(
                "add_driver",
                policy_id=policy.id,
                full_name="Daniel Whitfield",
                date_of_birth="1983-08-02",
                licence_number="42197730",
                licence_state="TX",
                relation_to_insured="spouse",
                effective_on="2026-05-12",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    added = run.db.query(Driver).filter_by(licence_number="42197730").one()
    assert (added.effective_on, added.licence_status) == (date(2026, 5, 12), "valid")


def test_case_AI001_002(tb):
    """Son's licence is suspended until June: do not add him; send the excluded-driver form, ticket pending."""
    luis = CustomerFactory(name="Luis Brennan", state="OH")
    policy = PolicyFactory(customer=luis)
    record = LicenceRecordFactory(
        licence_number="TR418207",
        licence_state="OH",
        holder_name="Connor Brennan",
        date_of_birth=date(2006, 11, 19),
        status="suspended",
        suspended_until=date(2026, 6, 20),
        violations_3y=3,
    )
    ticket = TicketFactory(requester=luis, policy_id=policy.id, subject="Add my son as a driver")

    run = tb.run(
        User(
            says="My son Connor is 19 and needs to drive the family car to his summer job. He had a little trouble "
            "with his licence but he gets it back next month anyway, so please just add him now.",
            knows=caller_knows(
                luis,
                **{
                    "policy number": policy.id,
                    "driver's full name": "Connor Brennan",
                    "driver's date of birth": "2006-11-19",
                    "licence number": "TR418207",
                    "licence state": "OH",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=luis.email),
            _verify(luis),
            call("get_policy", policy_id=policy.id),
            call("check_licence", licence_number=record.licence_number, licence_state="OH"),
            call("list_tickets", requester_id=luis.id),
            call("send_document", policy_id=policy.id, kind="excluded_driver_form", licence_number="TR418207"),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Connor Brennan not added: OH licence suspended until 2026-06-20. Excluded-driver form sent; "
                "waiting for it to come back signed.",
                public=False,
            ),
        ],
        traps=[  # "he gets it back next month anyway, so please just add him now"
            call(
                "add_driver",
                policy_id=policy.id,
                full_name="Connor Brennan",
                date_of_birth="2006-11-19",
                licence_number="TR418207",
                licence_state="OH",
                relation_to_insured="child",
                effective_on="2026-05-12",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="TR418207").count() == 0  # policy: suspended, never added
    assert run.db.query(Document).one().kind == "excluded_driver_form"
    assert run.db.get(Ticket, ticket.id).status == "pending"


@pytest.mark.tb_validity(
    baseline_ok={
        "solve": "Grace Osei's GA licence record shows expired: the policy adds nobody, sends nothing and sets the "
        "ticket solved, which is the whole golden ending; the add_driver trap catches the agent who takes 'her "
        "licence is all in order' at its word"
    }
)
def test_case_AI001_003(tb):
    """Mother's licence record shows expired although the customer says it is fine: add nobody, ticket solved."""
    harper = CustomerFactory(name="Harper Osei", state="GA")
    policy = PolicyFactory(customer=harper)
    record = LicenceRecordFactory(
        licence_number="058337421",
        licence_state="GA",
        holder_name="Grace Osei",
        date_of_birth=date(1956, 2, 27),
        status="expired",
        expires_on=date(2026, 2, 27),
    )
    TicketFactory(requester=harper, policy_id=policy.id, subject="Proof of insurance", status="solved")
    ticket = TicketFactory(requester=harper, policy_id=policy.id, subject="Add a driver")

    run = tb.run(
        User(
            says="My mother has moved in with us and will sometimes drive my car. Her licence is all in order. "
            "Can you add her to my policy today?",
            knows=caller_knows(
                harper,
                **{
                    "policy number": policy.id,
                    "driver's full name": "Grace Osei",
                    "driver's date of birth": "1956-02-27",
                    "licence number": "058337421",
                    "licence state": "GA",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=harper.email),
            _verify(harper),
            call("get_policy", policy_id=policy.id),
            call("check_licence", licence_number=record.licence_number, licence_state="GA"),
            call("list_tickets", requester_id=harper.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # "her licence is all in order": added without reading the record's status
            call(
                "add_driver",
                policy_id=policy.id,
                full_name="Grace Osei",
                date_of_birth="1956-02-27",
                licence_number="058337421",
                licence_state="GA",
                relation_to_insured="parent",
                effective_on="2026-05-12",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).filter_by(licence_number="058337421").count() == 0  # policy: expired, not added
    assert run.db.query(Document).count() == 0


def test_case_AI001_004(tb):
    """Caller gives a date of birth that does not match: no driver added; ticket pending with an internal note."""
    dwayne = CustomerFactory(name="Dwayne Kowalski", state="CO", date_of_birth=date(1979, 4, 18))
    policy = PolicyFactory(customer=dwayne)
    LicenceRecordFactory(
        licence_number="19-442-8107", licence_state="CO", holder_name="Tanya Kowalski", date_of_birth=date(1981, 1, 5)
    )
    ticket = TicketFactory(requester=dwayne, policy_id=policy.id, subject="Add my wife")

    run = tb.run(
        User(
            says="Hi, I need to add my wife Tanya as a driver on our policy, she has a valid Colorado licence.",
            knows=caller_knows(
                dwayne,
                date_of_birth="1979-08-14",
                **{
                    "policy number": policy.id,
                    "driver's full name": "Tanya Kowalski",
                    "driver's date of birth": "1981-01-05",
                    "licence number": "19-442-8107",
                    "licence state": "CO",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=dwayne.email),
            _verify(dwayne, date_of_birth="1979-08-14"),
            call("list_tickets", requester_id=dwayne.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Identity not verified (date of birth did not match). No driver added; nothing changed.",
                public=False,
            ),
        ],
        traps=[  # Tanya added as asked although the caller failed verification
            call(
                "add_driver",
                policy_id=policy.id,
                full_name="Tanya Kowalski",
                date_of_birth="1981-01-05",
                licence_number="19-442-8107",
                licence_state="CO",
                relation_to_insured="spouse",
                effective_on="2026-05-12",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Driver).count() == 1  # only the named insured: policy, no change without verification
    assert run.db.query(TicketComment).one().public is False


# --------------------------------------------------------------------------- AI002: adding a vehicle

F150 = complete_vin("1FTFW1E50SFA41877")  # 2025 Ford F-150
RAV4 = complete_vin("2T3P1RFV0RW218845")  # 2024 Toyota RAV4
CRV = complete_vin("5J6RW2H80PL034519")  # 2023 Honda CR-V


def test_case_AI002_001(tb):
    """Texas truck bought 40 days ago, customer wants cover from the purchase date: same-day state, so today."""
    rafael = CustomerFactory(name="Rafael Nakamura", state="TX")
    policy = PolicyFactory(customer=rafael)
    new_vehicle = "V-3002"
    ticket = TicketFactory(requester=rafael, policy_id=policy.id, subject="Add a truck")

    run = tb.run(
        User(
            says="I bought a Ford F-150 back at the start of April and forgot to tell you. Please add it and make "
            "the coverage start from the day I bought it.",
            knows=caller_knows(
                rafael,
                **{"policy number": policy.id, "VIN": F150, "purchase date": "2026-04-02", "model": "F-150"},
            ),
        ),
        golden=[
            call("find_customer_by_email", email=rafael.email),
            _verify(rafael),
            call("get_policy", policy_id=policy.id),
            call("decode_vin", vin=F150),
            call("list_tickets", requester_id=rafael.id),
            call(
                "add_vehicle",
                policy_id=policy.id,
                vin=F150,
                year=2025,
                make="Ford",
                model="F-150",
                acquired_on="2026-04-02",
                effective_on="2026-05-12",
            ),
            call("send_document", policy_id=policy.id, kind="insurance_id_card", vehicle_id=new_vehicle),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    truck = run.db.get(Vehicle, new_vehicle)
    assert (truck.vin, truck.effective_on) == (F150, date(2026, 5, 12))
    assert run.db.query(Document).one().vehicle_id == new_vehicle


def test_case_AI002_002(tb):
    """California SUV bought three weeks ago, customer wants it covered today: next-day state, so tomorrow."""
    brianna = CustomerFactory(name="Brianna Pruitt", state="CA")
    policy = PolicyFactory(customer=brianna)
    new_vehicle = "V-3002"
    ticket = TicketFactory(requester=brianna, policy_id=policy.id, subject="New car")

    run = tb.run(
        User(
            says="I need to add my RAV4 to my policy. I'm driving it to work this afternoon so it has to be covered "
            "as of right now, today.",
            knows=caller_knows(
                brianna,
                **{
                    "policy number": policy.id,
                    "VIN": RAV4,
                    "purchase date": "2026-04-21",
                    "make": "Toyota",
                    "model": "RAV4",
                },
            ),
        ),
        golden=[
            call("find_customer_by_email", email=brianna.email),
            _verify(brianna),
            call("get_policy", policy_id=policy.id),
            call("decode_vin", vin=RAV4),
            call("list_tickets", requester_id=brianna.id),
            call(
                "add_vehicle",
                policy_id=policy.id,
                vin=RAV4,
                year=2024,
                make="Toyota",
                model="RAV4",
                acquired_on="2026-04-21",
                effective_on=derived(
                    "2026-05-13",
                    "CA is a next-day state and the RAV4 was bought on 21 April 2026, 21 days before today (not "
                    "newly acquired): tomorrow, 13 May 2026, not today as the customer asks",
                ),
            ),
            call("send_document", policy_id=policy.id, kind="insurance_id_card", vehicle_id=new_vehicle),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 13)


def test_case_AI002_003(tb):
    """Florida car bought 6 days ago: newly acquired, so covered from the purchase date, not the next-day rule."""
    theo = CustomerFactory(name="Theo Lindgren", state="FL")
    policy = PolicyFactory(customer=theo)
    new_vehicle = "V-3002"
    ticket = TicketFactory(requester=theo, policy_id=policy.id, subject="Add second car")

    run = tb.run(
        User(
            says="We picked up a used Honda CR-V last week as a second car. Could you add it to our policy? "
            "Starting tomorrow is fine.",
            knows=caller_knows(
                theo,
                **{"policy number": policy.id, "VIN": CRV, "purchase date": "2026-05-06", "model": "CR-V"},
            ),
        ),
        golden=[
            call("find_customer_by_email", email=theo.email),
            _verify(theo),
            call("get_policy", policy_id=policy.id),
            call("decode_vin", vin=CRV),
            call("list_tickets", requester_id=theo.id),
            call(
                "add_vehicle",
                policy_id=policy.id,
                vin=CRV,
                year=2023,
                make="Honda",
                model="CR-V",
                acquired_on="2026-05-06",
                effective_on="2026-05-06",
            ),
            call("send_document", policy_id=policy.id, kind="insurance_id_card", vehicle_id=new_vehicle),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Vehicle, new_vehicle).effective_on == date(2026, 5, 6)


def test_case_AI002_004(tb):
    """The VIN the customer reads out fails its check digit: add nothing, guess nothing; ticket pending."""
    aisha = CustomerFactory(name="Aisha Abbott", state="PA")
    policy = PolicyFactory(customer=aisha)
    good = complete_vin("1G1ZD5ST0MF118204")
    misread = good[:8] + ("7" if good[8] != "7" else "3") + good[9:]
    ticket = TicketFactory(requester=aisha, policy_id=policy.id, subject="Add a Malibu")

    run = tb.run(
        User(
            says="I'd like to add my daughter's old Chevy Malibu to my policy, she's leaving it with us. "
            "I have the VIN right here.",
            knows=caller_knows(
                aisha,
                **{"policy number": policy.id, "VIN": misread, "purchase date": "2026-03-15", "model": "Malibu"},
            ),
        ),
        golden=[
            call("find_customer_by_email", email=aisha.email),
            _verify(aisha),
            call("get_policy", policy_id=policy.id),
            call("decode_vin", vin=misread),
            call("list_tickets", requester_id=aisha.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="VIN given fails the check digit; nothing added. Waiting for the customer to read the VIN again.",
                public=False,
            ),
        ],
        traps=[  # the agent "fixes" the check digit itself and adds the car (PA: from tomorrow)
            call(
                "add_vehicle",
                policy_id=policy.id,
                vin=good,
                year=2021,
                make="Chevrolet",
                model="Malibu",
                acquired_on="2026-03-15",
                effective_on="2026-05-13",
            )
        ],
    )

    run.expect_golden()
    assert run.db.query(Vehicle).count() == 1  # policy: nothing added on an invalid VIN, no character guessed
    assert run.db.get(Ticket, ticket.id).status == "pending"
