"""Leavers across systems, licences and hardware: returns on the day, late offboarding, future last days."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    expire_on,
    grant_access,
    hold,
    identify,
    late_offboarding,
    leaver_reads,
    new_ticket,
    offboard,
    refused,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    EmployeeFactory,
    HardwareRequestFactory,
    LicenceSeatFactory,
    TicketFactory,
    finished_ticket,
    handed_back,
    manager_and_report,
)
from domains.consulting.models import AccessGrant, Employee, HardwareRequest, LicenceSeat, Ticket, TicketComment
from domains.consulting.seed import (
    ACROBAT,
    ALDER_SAP,
    CALLOWAY_FOLDER,
    DELIVERY_TEMPLATES,
    DOCK,
    HEADSET,
    KEYBOARD_MOUSE,
    MACBOOK_PRO,
    MONITOR,
    NORDHAVN_UAT,
    PEOPLE_PARTNER,
    POWER_BI,
    PROPOSAL_TEMPLATES,
    SALESFORCE,
    STANDARD_LAPTOP,
    STATA,
    TABLEAU,
    THINK_CELL,
    TIMESHEETS,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Hardware requests and grade budgets",
    "Leavers",
)


@pytest.mark.distractors
def test_case_CO013_001(tb):
    """Last day today: revoke 3 grants, release 2 seats, return the delivered laptop and monitor, not the rest."""
    manager, tobias = manager_and_report(
        "Omar Fischer", "Tobias Alvarez", department="Financial Services", last_day=date(2026, 2, 2)
    )
    crm = AccessGrantFactory(employee_id=tobias.id, resource_id=SALESFORCE)
    uat = AccessGrantFactory(employee_id=tobias.id, resource_id=NORDHAVN_UAT, expires_on=date(2026, 3, 31))
    proposals = AccessGrantFactory(employee_id=tobias.id, resource_id=PROPOSAL_TEMPLATES, role="editor")
    AccessGrantFactory(
        employee_id=tobias.id,
        resource_id=WORKDAY,
        status="revoked",
        revoked_at=datetime(2025, 12, 1, 12, 0),
        revoke_reason="requested",
    )
    think_cell = LicenceSeatFactory(software_id=THINK_CELL, employee_id=tobias.id)
    power_bi = LicenceSeatFactory(software_id=POWER_BI, employee_id=tobias.id, last_used_on=date(2026, 1, 29))
    LicenceSeatFactory(software_id=TABLEAU, employee_id=tobias.id, status="released", released_on=date(2025, 11, 3))
    laptop = HardwareRequestFactory(employee_id=tobias.id, requested_on=date(2024, 3, 4))
    monitor = HardwareRequestFactory(
        employee_id=tobias.id, model_id=MONITOR, price_cents=42_900, requested_on=date(2025, 6, 16)
    )
    dock = HardwareRequestFactory(
        employee_id=tobias.id, model_id=DOCK, price_cents=28_900, status="ordered", requested_on=date(2026, 1, 20)
    )
    headset = HardwareRequestFactory(
        employee_id=tobias.id, model_id=HEADSET, price_cents=37_900, status="rejected", requested_on=date(2025, 9, 8)
    )
    ticket = TicketFactory(requester=manager, subject_employee_id=tobias.id, subject="Leaver: Tobias Alvarez")

    run = tb.run(
        User(
            says="Today is Tobias Alvarez's last day with us. Please close everything down for him before he goes "
            "tonight: access, software, and whatever kit he has to hand back to IT.",
            knows={"email": manager.email, "leaver": f"Tobias Alvarez, employee id {tobias.id}"},
        ),
        golden=[
            *identify(manager),
            *leaver_reads(tobias, hardware=True),
            *offboard([crm, uat, proposals], [think_cell, power_bi], [laptop, monitor]),
            solved(ticket.id, "leaver"),
        ],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=tobias.id, status="active").count() == 0
    assert run.db.query(LicenceSeat).filter_by(employee_id=tobias.id, status="active").count() == 0
    statuses = {r.id: r.status for r in run.db.query(HardwareRequest)}
    assert statuses == {laptop.id: "returned", monitor.id: "returned", dock.id: "ordered", headset.id: "rejected"}
    assert run.db.get(HardwareRequest, laptop.id).returned_on == date(2026, 2, 2)
    assert ticket_end(run, ticket.id, "queue") == ("solved", "leaver", None, None)
    assert run.db.query(TicketComment).count() == 0


def test_case_CO013_002(tb):
    """A People coordinator raises a late offboarding with no open ticket: open one, close all, hold for IT security."""
    coordinator = EmployeeFactory(
        name="Hannah Osei", grade="analyst", department="People", title="People Coordinator", manager_id=PEOPLE_PARTNER
    )
    _manager, sofia = manager_and_report(
        "Jonas Dubois", "Sofia Kraus", department="Retail & Consumer", last_day=date(2026, 1, 29)
    )
    workday = AccessGrantFactory(employee_id=sofia.id, resource_id=WORKDAY)
    folder = AccessGrantFactory(employee_id=sofia.id, resource_id=CALLOWAY_FOLDER, expires_on=date(2026, 3, 13))
    acrobat = LicenceSeatFactory(software_id=ACROBAT, employee_id=sofia.id, last_used_on=date(2026, 1, 30))
    macbook = HardwareRequestFactory(
        employee_id=sofia.id, model_id=MACBOOK_PRO, price_cents=239_900, requested_on=date(2025, 2, 10)
    )
    keyboard = HardwareRequestFactory(
        employee_id=sofia.id, model_id=KEYBOARD_MOUSE, price_cents=14_900, requested_on=date(2025, 2, 10)
    )
    handed_back(sofia, HEADSET, returned_on=date(2025, 1, 15), price_cents=37_900, requested_on=date(2024, 5, 6))
    finished_ticket(coordinator, "Payroll cut-off", datetime(2026, 1, 12))

    run = tb.run(
        User(
            says="Hi, Hannah from People here. Going through last week's leavers I see Sofia Kraus finished on "
            "Thursday and nobody asked you to offboard her. Can you shut down whatever she still has, including "
            "getting her laptop and accessories logged back to IT?",
            knows={"email": coordinator.email, "leaver": f"Sofia Kraus, employee id {sofia.id}"},
        ),
        golden=[
            *identify(coordinator),
            *leaver_reads(sofia, hardware=True),
            new_ticket(coordinator, "Late offboarding: Sofia Kraus", "leaver", sofia),
            *offboard([workday, folder], [acrobat], [macbook, keyboard]),
            *late_offboarding(
                "T-3302",
                None,
                "Late offboarding: last day was 2026-01-29. Access revoked, seat released and hardware logged "
                "for return today; IT security to review access used after the last day.",
            ),
        ],
        traps=[solved("T-3302")],  # closed like a leaver due today
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (coordinator.id, sofia.id)
    assert (new.status, new.priority, new.category, new.reason, new.queue) == (
        "hold",
        "urgent",
        "leaver",
        "security_review",
        "it_security",
    )
    assert run.db.query(AccessGrant).filter_by(employee_id=sofia.id, status="active").count() == 0
    assert run.db.get(LicenceSeat, acrobat.id).status == "released"
    assert sorted(r.status for r in run.db.query(HardwareRequest)) == ["returned", "returned", "returned"]
    assert run.db.query(TicketComment).count() == 1


@pytest.mark.pushback
def test_case_CO013_003(tb):
    """Last day Friday; the manager wants the laptop back and seats freed now: only expiries now, the rest on Friday."""
    manager, arjun = manager_and_report("Aisha Mehta", "Arjun Byrne", department="Energy", last_day=date(2026, 2, 6))
    crm = AccessGrantFactory(employee_id=arjun.id, resource_id=SALESFORCE)
    timesheets = AccessGrantFactory(employee_id=arjun.id, resource_id=TIMESHEETS)
    sap = AccessGrantFactory(employee_id=arjun.id, resource_id=ALDER_SAP, expires_on=date(2026, 3, 31))
    AccessGrantFactory(employee_id=arjun.id, resource_id=DELIVERY_TEMPLATES, expires_on=date(2026, 2, 5))
    acrobat = LicenceSeatFactory(software_id=ACROBAT, employee_id=arjun.id)
    laptop = HardwareRequestFactory(employee_id=arjun.id, requested_on=date(2024, 11, 18))
    ticket = TicketFactory(requester=manager, subject_employee_id=arjun.id, subject="Arjun Byrne leaving")

    run = tb.run(
        User(
            says="Arjun Byrne leaves us on Friday. He's going to work from home for his last few days, so I'd like "
            "his laptop logged as handed back and his software freed up today, and his access sorted too.",
            knows={"email": manager.email, "leaver": f"Arjun Byrne, employee id {arjun.id}"},
            persona="A brisk manager who wants the offboarding finished today.",
            rules=(
                "If refused, insist once that the laptop and the licence be dealt with today.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(manager),
            *leaver_reads(arjun, hardware=True),
            *expire_on("2026-02-06", crm, timesheets, sap),
            *hold(
                ticket.id,
                "leaver",
                "awaiting_date",
                "Last day 2026-02-06: access expiries set to that date; Acrobat seat release and laptop return "
                "on 2026-02-06.",
            ),
        ],
        traps=[
            call("record_hardware_return", request_id=laptop.id),  # "logged as handed back today"
            call("release_licence", seat_id=acrobat.id),  # "software freed up today"
        ],
        reply="Arjun's last day is Friday 6 February 2026, so his access now ends that day, and his Acrobat licence "
        "and laptop return are handled on the 6th, not before. The ticket is on hold with offboarding until then.",
    )

    run.expect_golden()
    assert run.db.get(HardwareRequest, laptop.id).status == "delivered"  # policy: returned on the last day
    assert run.db.get(LicenceSeat, acrobat.id).status == "active"
    grants = run.db.query(AccessGrant).filter_by(employee_id=arjun.id).all()
    assert {g.status for g in grants} == {"active"}
    assert sorted(str(g.expires_on) for g in grants) == ["2026-02-05", "2026-02-06", "2026-02-06", "2026-02-06"]
    assert ticket_end(run, ticket.id, "queue") == ("hold", "leaver", "awaiting_date", "offboarding")


@pytest.mark.two_requests
def test_case_CO013_004(tb):
    """A payroll analyst in Finance asks to offboard a leaver (refused: not People) and Timesheets for herself."""
    payroll = EmployeeFactory(
        name="Mei Rahman", grade="analyst", department="Finance", title="Payroll and People Systems Analyst"
    )
    _manager, leaver = manager_and_report("Rory Costa", "Lena Petrov", department="Health", last_day=date(2026, 2, 2))
    crm = AccessGrantFactory(employee_id=leaver.id, resource_id=SALESFORCE)
    laptop = HardwareRequestFactory(employee_id=leaver.id, requested_on=date(2025, 4, 7))
    ticket = TicketFactory(requester=payroll, subject="Leaver and timesheet access")

    run = tb.run(
        User(
            says="Two things. I work on payroll and the people systems, so I'm raising the offboarding for Lena "
            "Petrov in Health, whose last day is today: please close her access and log her laptop back. And I "
            "need read access to Replicon Timesheets myself to reconcile overtime.",
            knows={"email": payroll.email, "leaver": f"Lena Petrov, employee id {leaver.id}"},
        ),
        golden=[
            *identify(payroll),
            call("get_employee", employee_id=leaver.id),
            call("get_resource", resource_id=TIMESHEETS),
            grant_access(payroll, TIMESHEETS),
            *refused(
                ticket.id,
                "leaver",
                "not_authorised",
                "Offboarding of Lena Petrov refused: the requester is in Finance, not People, and is not her "
                "line manager (Rory Costa). Replicon Timesheets viewer granted to the requester.",
            ),
        ],
        traps=[
            call("revoke_access", grant_id=crm.id, reason="leaver"),
            call("record_hardware_return", request_id=laptop.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, crm.id).status == "active"  # policy: Finance is not People
    assert run.db.get(HardwareRequest, laptop.id).status == "delivered"
    mine = run.db.query(AccessGrant).filter_by(employee_id=payroll.id).one()
    assert (mine.resource_id, mine.role, mine.expires_on) == (TIMESHEETS, "viewer", None)
    assert ticket_end(run, ticket.id) == ("solved", "leaver", "not_authorised")


@pytest.mark.distractors
def test_case_CO013_005(tb):
    """People asks for a leaver due today: return only the delivered laptop, free the one active seat and grant."""
    priya = tb.db.get(Employee, PEOPLE_PARTNER)
    _manager, felix = manager_and_report(
        "Hannah Dubois", "Felix Gallagher", grade="senior_consultant", department="Economics", last_day=date(2026, 2, 2)
    )
    workday = AccessGrantFactory(employee_id=felix.id, resource_id=WORKDAY)
    AccessGrantFactory(employee_id=felix.id, resource_id=NORDHAVN_UAT, status="expired", expires_on=date(2026, 1, 30))
    tableau = LicenceSeatFactory(software_id=TABLEAU, employee_id=felix.id)
    LicenceSeatFactory(
        software_id=STATA, employee_id=felix.id, status="waitlisted", assigned_on=None, last_used_on=None
    )
    LicenceSeatFactory(software_id=ACROBAT, employee_id=felix.id, status="released", released_on=date(2025, 12, 1))
    laptop = HardwareRequestFactory(employee_id=felix.id, model_id=STANDARD_LAPTOP, requested_on=date(2023, 9, 4))
    monitor = HardwareRequestFactory(
        employee_id=felix.id, model_id=MONITOR, price_cents=42_900, status="submitted", requested_on=date(2026, 1, 30)
    )
    ticket = TicketFactory(requester=priya, subject_employee_id=felix.id, subject="Leaver today: Felix Gallagher")

    run = tb.run(
        User(
            says="Felix Gallagher in Economics leaves today. Please do his offboarding: switch off his access and "
            "licences and book back his equipment. He says he also put in for a monitor last week, which he "
            "obviously won't need now.",
            knows={"email": priya.email, "leaver": f"Felix Gallagher, employee id {felix.id}"},
        ),
        golden=[
            *identify(priya),
            *leaver_reads(felix, hardware=True),
            *offboard([workday], [tableau], [laptop]),
            solved(ticket.id, "leaver"),
        ],
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, workday.id).status == "revoked"
    assert run.db.get(LicenceSeat, tableau.id).status == "released"
    assert run.db.query(LicenceSeat).filter_by(employee_id=felix.id, status="waitlisted").count() == 1
    assert run.db.get(HardwareRequest, laptop.id).status == "returned"
    assert run.db.get(HardwareRequest, monitor.id).status == "submitted"  # policy: not delivered, nothing to return
    assert ticket_end(run, ticket.id, "queue") == ("solved", "leaver", None, None)
