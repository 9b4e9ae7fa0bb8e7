"""Internal help desk: laptops (broken, due for refresh or not, the profile by department), lost laptops, tokens
and phones."""

from __future__ import annotations

from datetime import date

import pytest

from domains.neobank.calls import (
    create_ticket,
    desk_opening,
    devices_held,
    devices_of,
    employee_facts,
    hold,
    refused,
    replace_lost_device,
    solved,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import DeskTicketFactory, DeviceFactory, EmployeeFactory, finished_desk_ticket
from domains.neobank.models import Device, Ticket, TicketComment
from domains.neobank.seed import FINANCE, LEONIE_FISCHER, TECHNOLOGY
from pytest_thinkingbox import User, call

ARTICLES = (
    "Internal help desk: who may ask and identity",
    "Devices: laptops, tokens and phones",
    "Internal desk tickets: classification, status and queues",
)


# --------------------------------------------------------------------------- NB037 devices


@pytest.mark.distractors
def test_case_NB037_001(tb):
    """A finance employee's laptop no longer boots and she asks for a developer laptop: take it back as faulty and
    hand out the lowest standard laptop in stock (developer laptops are for Technology)."""
    amira = EmployeeFactory(name="Amira Seidel", department=FINANCE, title="Accountant")
    old = DeviceFactory(assigned_to=amira, purchased_on=date(2024, 3, 4))
    DeviceFactory(profile="developer", model="Dell XPS 15")
    standard = DeviceFactory()
    DeviceFactory()
    ticket = DeskTicketFactory(employee=amira, subject="Laptop won't start")

    run = tb.run(
        User(
            says="My laptop won't boot any more, just a black screen since this morning. Could I have one of the "
            "powerful developer laptops as a replacement? My spreadsheets are huge.",
            knows=employee_facts(amira),
        ),
        golden=[
            *desk_opening(amira, devices_of(amira), call("list_device_stock", kind="laptop")),
            call("return_device", device_id=old.id, condition="faulty"),
            call("assign_device", device_id=standard.id, employee_id=amira.id),
            solved(ticket.id, "device"),
        ],
        reply="I've booked your broken laptop in for repair and assigned you a replacement: a standard Lenovo "
        "ThinkPad T14. Developer laptops are only for the Technology department, so I can't give you one of those.",
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", None, None)
    assert run.db.get(Device, old.id).status == "in_repair"
    assert devices_held(run.db, amira.id) == {standard.id}  # policy: standard profile outside Technology, lowest id


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB037_002(tb):
    """A team lead wants a faster laptop for himself and insists: his works and was bought two years ago, so it is
    not due (not_eligible). He also asks for his agent's laptop, bought in 2021: due for refresh, so take it back
    as working and hand out the lowest standard laptop in stock (not the developer one). The ticket takes the
    refusal's reason."""
    henrik = EmployeeFactory(
        name="Henrik Nowak", title="Customer Support Team Lead", grade="manager", manager_id=LEONIE_FISCHER
    )
    lea = EmployeeFactory(name="Lea Brandt", title="Customer Support Agent", manager=henrik)
    own = DeviceFactory(assigned_to=henrik, purchased_on=date(2024, 9, 2))
    old = DeviceFactory(assigned_to=lea, purchased_on=date(2021, 8, 16))
    DeviceFactory(profile="developer", model="Dell XPS 15")
    new = DeviceFactory()
    spare = DeviceFactory()
    ticket = DeskTicketFactory(employee=henrik, subject="New laptops please")

    run = tb.run(
        User(
            says="My laptop works but it's so slow with the CRM and video calls at the same time. Colleagues got new "
            "ones this year. Can I swap mine for a new one? And Lea Brandt in my team still works on the laptop "
            "she got when she started; she should get a new one too.",
            knows=employee_facts(henrik),
            rules=("If refused, insist once that it slows down your work every day, then accept.",),
        ),
        golden=[
            *desk_opening(
                henrik,
                devices_of(henrik),
                call("search_employees", name="Lea Brandt"),
                devices_of(lea),
                call("list_device_stock", kind="laptop"),
            ),
            call("return_device", device_id=old.id, condition="working"),
            call("assign_device", device_id=new.id, employee_id=lea.id),
            *refused(
                ticket.id,
                "device",
                "not_eligible",
                f"{own.id} works and was purchased on 2024-09-02, under 4 years ago: not due for replacement. "
                f"{lea.name}'s {old.id} (2021-08-16) refreshed: {new.id} handed out.",
            ),
        ],
        reply="I'm sorry, I can't swap your laptop: a working laptop is replaced only once it is 4 years old, and "
        "yours was bought in September 2024. Lea's laptop is from 2021, so it is due: she has a new one, and her "
        "old one is booked back in.",
        traps=[call("assign_device", device_id=spare.id, employee_id=henrik.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", "not_eligible", None)
    assert devices_held(run.db, henrik.id) == {own.id}  # policy: a working laptop under 4 years old stays
    assert devices_held(run.db, lea.id) == {new.id}  # policy: 4 or more years old, standard profile, lowest id
    assert run.db.get(Device, old.id).status == "returned"
    assert run.db.get(Device, spare.id).status == "in_stock"


def test_case_NB037_003(tb):
    """An engineer's working laptop was bought five years ago: due for refresh. Take it back as working and hand out
    the lowest developer laptop in stock."""
    selin = EmployeeFactory(name="Selin Wendt", department=TECHNOLOGY, title="Backend Engineer")
    old = DeviceFactory(assigned_to=selin, profile="developer", model="Dell XPS 13", purchased_on=date(2021, 6, 14))
    DeviceFactory()
    dev = DeviceFactory(profile="developer", model="Dell XPS 15")
    DeviceFactory(profile="developer", model="Dell XPS 15")
    token = DeviceFactory(kind="token", assigned_to=selin)
    ticket = DeskTicketFactory(employee=selin, subject="Old laptop")

    run = tb.run(
        User(
            says="My laptop still works, but the battery lasts about an hour and it's ancient. Is there any chance "
            "of a new one?",
            knows=employee_facts(selin),
        ),
        golden=[
            *desk_opening(selin, devices_of(selin), call("list_device_stock", kind="laptop")),
            call("assign_device", device_id=dev.id, employee_id=selin.id),
            call("return_device", device_id=old.id, condition="working"),
            solved(ticket.id, "device"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", None, None)
    assert run.db.get(Device, old.id).status == "returned"  # policy: 4 or more years old is replaced
    assert devices_held(run.db, selin.id) == {dev.id, token.id}


def test_case_NB037_004(tb):
    """A laptop stolen from a car, no open ticket: create one (device), report the laptop lost, and hold for the
    security team (device_lost, high); no replacement from the desk."""
    pavel = EmployeeFactory(name="Pavel Seidel", department=FINANCE, title="Treasury Analyst")
    laptop = DeviceFactory(assigned_to=pavel, purchased_on=date(2025, 1, 20))
    phone = DeviceFactory(kind="phone", assigned_to=pavel)
    spare = DeviceFactory()
    _, new_id = finished_desk_ticket(pavel, "VPN problem", days_ago(20))

    run = tb.run(
        User(
            says="Someone smashed my car window last night and took my work laptop from the back seat. I've been to "
            "the police. I need a replacement today, I have the quarter-end treasury report due.",
            knows=employee_facts(pavel),
        ),
        golden=[
            *desk_opening(pavel),
            create_ticket(pavel, "Laptop stolen", "device"),
            devices_of(pavel),
            call("report_device_lost", device_id=laptop.id),
            *hold(
                new_id,
                None,
                "device_lost",
                f"Laptop {laptop.id} stolen from a car; reported lost. Security to wipe it and decide on a "
                "replacement.",
                queue="security",
                priority="high",
            ),
        ],
        reply="I've reported the laptop as lost, so it's barred from our network now, and handed the case to the "
        "security team as high priority. They wipe it and decide on the replacement; the desk can't hand one out "
        "before that.",
        traps=[call("assign_device", device_id=spare.id, employee_id=pavel.id)],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.employee_id, t.requester_id) == (pavel.id, None)
    assert t.outcome == ("hold", "high", "device", "device_lost", "security")
    assert run.db.get(Device, laptop.id).status == "lost"
    assert run.db.get(Device, spare.id).status == "in_stock"  # policy: security decides on a lost laptop
    assert devices_held(run.db, pavel.id) == {phone.id}
    assert run.db.query(TicketComment).filter(TicketComment.public.is_(False)).count() == 1


@pytest.mark.two_requests
def test_case_NB037_005(tb):
    """Lost company phone and a three-year-old laptop the employee would also like replaced: report the phone lost
    and hand out the lowest phone in stock; refuse the laptop (not_eligible)."""
    nadia = EmployeeFactory(name="Nadia Ziegler", department=FINANCE, title="Payroll Specialist")
    laptop = DeviceFactory(assigned_to=nadia, purchased_on=date(2023, 5, 8))
    phone = DeviceFactory(kind="phone", assigned_to=nadia, model="iPhone 13")
    new_phone = DeviceFactory(kind="phone")
    DeviceFactory(kind="phone")
    spare_laptop = DeviceFactory()
    ticket = DeskTicketFactory(employee=nadia, subject="Phone gone")

    run = tb.run(
        User(
            says="I lost my work phone at the weekend, it's not turned up. I need a new one for the two-factor "
            "prompts. And since I'm asking: my laptop is three years old, could I get a new one of those too?",
            knows=employee_facts(nadia),
        ),
        golden=[
            *desk_opening(nadia, devices_of(nadia)),
            *replace_lost_device(phone, new_phone, nadia),
            *refused(
                ticket.id,
                "device",
                "not_eligible",
                f"Phone {phone.id} reported lost, {new_phone.id} handed out. Laptop {laptop.id} (2023-05-08) "
                "works and is under 4 years old: not replaced.",
            ),
        ],
        traps=[call("assign_device", device_id=spare_laptop.id, employee_id=nadia.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", "not_eligible", None)
    assert run.db.get(Device, phone.id).status == "lost"
    assert devices_held(run.db, nadia.id) == {laptop.id, new_phone.id}  # policy: the phone replaced, the laptop not due
    assert run.db.get(Device, spare_laptop.id).status == "in_stock"


@pytest.mark.two_requests
def test_case_NB037_006(tb):
    """An engineer's phone was stolen and his laptop's keyboard is dead: report the phone lost and hand out the lowest
    phone in stock; take the laptop back as faulty and hand out the lowest developer laptop."""
    oskar = EmployeeFactory(name="Oskar Krause", department=TECHNOLOGY, title="Mobile Engineer")
    laptop = DeviceFactory(assigned_to=oskar, profile="developer", model="Dell XPS 15", purchased_on=date(2024, 11, 5))
    phone = DeviceFactory(kind="phone", assigned_to=oskar)
    DeviceFactory()
    dev = DeviceFactory(profile="developer", model="Dell XPS 15")
    new_phone = DeviceFactory(kind="phone", model="iPhone 16")
    DeviceFactory(kind="phone", model="iPhone 16")
    ticket = DeskTicketFactory(employee=oskar, subject="Phone stolen, laptop broken")

    run = tb.run(
        User(
            says="Bad week: my work phone was stolen at the gym yesterday, and today half the keys on my laptop "
            "stopped working after a coffee accident. Can you help with both?",
            knows=employee_facts(oskar),
        ),
        golden=[
            *desk_opening(oskar, devices_of(oskar)),
            *replace_lost_device(phone, new_phone, oskar),
            call("return_device", device_id=laptop.id, condition="faulty"),
            call("list_device_stock", kind="laptop"),
            call("assign_device", device_id=dev.id, employee_id=oskar.id),
            solved(ticket.id, "device"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", None, None)
    assert run.db.get(Device, phone.id).status == "lost"
    assert run.db.get(Device, laptop.id).status == "in_repair"
    assert devices_held(run.db, oskar.id) == {new_phone.id, dev.id}  # policy: lowest of each kind, developer profile
    assert run.db.query(TicketComment).count() == 0
