"""Joiners: the starter kit across systems, folders, licences and a laptop; who may ask for it; future start dates."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    assign_licences,
    grant_access,
    hold,
    identify,
    kit_access,
    kit_reads,
    licence_approval,
    new_ticket,
    pool_seat,
    refused,
    solved,
    starter_laptop,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    EmployeeFactory,
    HardwareRequestFactory,
    LicenceSeatFactory,
    TicketFactory,
    finished_ticket,
    manager_and_report,
)
from domains.consulting.models import (
    AccessGrant,
    ApprovalRequest,
    Employee,
    HardwareRequest,
    LicenceSeat,
    Ticket,
)
from domains.consulting.seed import (
    ACROBAT,
    ALTERYX,
    DELIVERY_TEMPLATES,
    PEOPLE_PARTNER,
    PROPOSAL_TEMPLATES,
    STANDARD_LAPTOP,
    THINK_CELL,
    TIMESHEETS,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Software licences: eligibility and approval",
    "Licence pools, idle seats and the waitlist",
    "Joiners",
)

_KIT_ACCESS = {WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES}


def test_case_CO011_001(tb):
    """Line manager asks for a joiner starting today: give every kit item but the Timesheets access she already has."""
    manager, lena = manager_and_report("Dev Kraus", "Lena Gallagher", grade="analyst", start_date=date(2026, 2, 2))
    AccessGrantFactory(employee_id=lena.id, resource_id=TIMESHEETS, granted_at=datetime(2026, 1, 29, 15, 0))
    ticket = TicketFactory(requester=manager, subject_employee_id=lena.id, subject="New starter: Lena Gallagher")

    run = tb.run(
        User(
            says="Morning! Lena Gallagher joins my team today as an analyst and I want her up and running by lunch. "
            "Could you set her up with everything a new starter normally gets? I think People already sorted her "
            "timesheet login last week.",
            knows={"email": manager.email, "joiner": f"Lena Gallagher, employee id {lena.id}"},
        ),
        golden=[
            *identify(manager),
            *kit_reads(lena),
            *kit_access(lena, WORKDAY, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(lena, THINK_CELL, ACROBAT),
            starter_laptop(lena),
            solved(ticket.id, "joiner"),
        ],
    )

    run.expect_golden()
    grants = run.db.query(AccessGrant).filter_by(employee_id=lena.id, status="active").all()
    assert {g.resource_id for g in grants} == _KIT_ACCESS
    assert {(g.role, g.expires_on) for g in grants} == {("viewer", None)}  # policy: viewer, no expiry
    seats = run.db.query(LicenceSeat).filter_by(employee_id=lena.id, status="active").all()
    assert {s.software_id for s in seats} == {THINK_CELL, ACROBAT}
    assert run.db.query(HardwareRequest).filter_by(employee_id=lena.id).one().model_id == STANDARD_LAPTOP
    assert ticket_end(run, ticket.id, "queue") == ("solved", "joiner", None, None)


def test_case_CO011_002(tb):
    """People asks with no ticket open: open one for the joiner; a rejected laptop request does not count as given."""
    _manager, tobias = manager_and_report(
        "Felix Costa", "Tobias Fischer", grade="consultant", department="Digital", start_date=date(2026, 1, 26)
    )
    AccessGrantFactory(employee_id=tobias.id, resource_id=WORKDAY, granted_at=datetime(2026, 1, 26, 9, 30))
    HardwareRequestFactory(
        employee_id=tobias.id,
        model_id=STANDARD_LAPTOP,
        status="rejected",
        requested_on=date(2026, 1, 20),
        reason="Raised against the wrong cost centre",
    )
    priya = tb.db.get(Employee, PEOPLE_PARTNER)
    old = finished_ticket(priya, "Onboarding pack", datetime(2026, 1, 20))

    run = tb.run(
        User(
            says="Hi, it's Priya in People. Tobias Fischer started in Digital last Monday and he tells me he still "
            "can't get into most things, and he's been working off a loaner laptop. Please give him the standard "
            "starter set. Your colleagues closed my onboarding ticket a while back, so this may need a new one.",
            knows={"email": priya.email, "joiner": f"Tobias Fischer, employee id {tobias.id}"},
        ),
        golden=[
            *identify(priya),
            *kit_reads(tobias),
            new_ticket(priya, "Starter kit: Tobias Fischer", "joiner", tobias),
            *kit_access(tobias, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(tobias, THINK_CELL, ACROBAT),
            starter_laptop(tobias, "Starter laptop; the January request was rejected."),
            solved("T-3302"),
        ],
        traps=[call("update_ticket", ticket_id=old.id, status="open")],  # her old onboarding ticket reopened
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (PEOPLE_PARTNER, tobias.id)
    assert (new.status, new.category, new.reason) == ("solved", "joiner", None)
    assert run.db.get(Ticket, old.id).status == "solved"
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(status="active")} == _KIT_ACCESS
    laptops = run.db.query(HardwareRequest).filter_by(employee_id=tobias.id).all()
    assert sorted(r.status for r in laptops) == ["rejected", "submitted"]  # policy: a rejected request is no laptop
    assert run.db.query(LicenceSeat).filter_by(employee_id=tobias.id, status="active").count() == 2


def test_case_CO011_003(tb):
    """The joiner starts next Monday: give nothing yet; hold for onboarding with the date the kit is due."""
    manager, mateo = manager_and_report(
        "Aisha Braun",
        "Mateo Fischer",
        manager_grade="director",
        grade="senior_consultant",
        department="Health",
        start_date=date(2026, 2, 9),
    )
    ticket = TicketFactory(requester=manager, subject_employee_id=mateo.id, subject="Starter kit for Mateo")

    run = tb.run(
        User(
            says="We've got Mateo Fischer joining the Health practice as a senior consultant. I'd like him fully set "
            "up before he walks in, so could you do his logins, folders, licences and laptop today so it's all "
            "waiting for him?",
            knows={"email": manager.email, "joiner": f"Mateo Fischer, employee id {mateo.id}"},
        ),
        golden=[
            *identify(manager),
            call("get_employee", employee_id=mateo.id),
            *hold(
                ticket.id, "joiner", "awaiting_date", "Joiner starts 2026-02-09; starter kit to be given on that day."
            ),
        ],
        traps=[grant_access(mateo, WORKDAY)],  # set up in advance
        reply="Mateo's start date is Monday 9 February 2026, and the starter kit can only be given from his first "
        "day, so nothing is set up yet. I've put the ticket on hold with our onboarding team, who will do it all "
        "on 9 February.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: nothing before the first day
    assert run.db.query(HardwareRequest).count() == 0
    assert ticket_end(run, ticket.id, "queue") == ("hold", "joiner", "awaiting_date", "onboarding")


@pytest.mark.two_requests
def test_case_CO011_004(tb):
    """The joiner's onboarding buddy asks for her starter kit (refused: not her manager nor People) and a seat."""
    manager, buddy = manager_and_report("Nina Rahman", "Hannah Mensah", grade="senior_consultant", department="Energy")
    aisha = EmployeeFactory(
        name="Aisha Fischer", grade="analyst", department="Energy", manager_id=manager.id, start_date=date(2026, 2, 2)
    )
    ticket = TicketFactory(requester=buddy, subject_employee_id=aisha.id, subject="Starter kit for Aisha")

    run = tb.run(
        User(
            says="I'm Aisha Fischer's onboarding buddy; she started with us in Energy this morning. Nina asked me to "
            "look after her, so can you give her the usual new-joiner access, licences and laptop? I'd like her to "
            "have it all before our first team call. I'll be walking her through our slide templates, so I need "
            "think-cell myself as well; I've never had it.",
            knows={"email": buddy.email, "joiner": f"Aisha Fischer, employee id {aisha.id}"},
        ),
        golden=[
            *identify(buddy),
            call("get_employee", employee_id=aisha.id),
            *pool_seat(buddy, THINK_CELL),
            *refused(
                ticket.id,
                "joiner",
                "not_authorised",
                "Starter kit refused: asked by a colleague (onboarding buddy); only the joiner, her line manager "
                "(Nina Rahman) or People may ask. think-cell seat assigned to the requester.",
            ),
        ],
        traps=[
            grant_access(aisha, WORKDAY),
            call("assign_licence", software_id=THINK_CELL, employee_id=aisha.id),  # the kit's seat, on her word
        ],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: nothing for the joiner on a buddy's request
    seat = run.db.query(LicenceSeat).one()
    assert (seat.software_id, seat.employee_id, seat.status) == (THINK_CELL, buddy.id, "active")
    assert ticket_end(run, ticket.id) == ("solved", "joiner", "not_authorised")


@pytest.mark.two_requests
def test_case_CO011_005(tb):
    """A joiner asks for her own kit and for Alteryx: the kit's missing items are given, Alteryx refused (grade)."""
    manager, mei = manager_and_report(
        "Omar Braun", "Mei Kraus", grade="analyst", department="Data & Analytics", start_date=date(2026, 1, 28)
    )
    LicenceSeatFactory(software_id=THINK_CELL, employee_id=mei.id, requested_on=date(2026, 1, 28), last_used_on=None)
    HardwareRequestFactory(
        employee_id=mei.id, model_id=STANDARD_LAPTOP, status="ordered", requested_on=date(2026, 1, 22)
    )
    ticket = TicketFactory(requester=mei, subject="New starter set-up")

    run = tb.run(
        User(
            says="Hi! I started last Wednesday and I'm still missing most of the usual new-starter things: I can't "
            "get into Workday, the templates or PDF editing. My laptop is apparently on order. Also my engagement "
            "does all its data prep in Alteryx, so I'll need that licence too, please.",
            knows={"email": mei.email},
        ),
        golden=[
            *identify(mei),
            *kit_reads(mei),
            *kit_access(mei, WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES),
            *assign_licences(mei, ACROBAT),
            *refused(
                ticket.id,
                "joiner",
                "not_eligible",
                "Starter kit completed (think-cell and the laptop already in place). Alteryx refused: consultant "
                "and above only; the employee is an analyst.",
            ),
        ],
        traps=[  # Alteryx routed to the line manager without checking her grade
            licence_approval(ticket.id, mei, manager.id, ALTERYX)
        ],
    )

    run.expect_golden()
    assert {g.resource_id for g in run.db.query(AccessGrant).filter_by(employee_id=mei.id)} == _KIT_ACCESS
    seats = run.db.query(LicenceSeat).filter_by(employee_id=mei.id, status="active").all()
    assert {s.software_id for s in seats} == {THINK_CELL, ACROBAT}  # policy: no Alteryx for an analyst
    assert run.db.query(ApprovalRequest).count() == 0
    assert run.db.query(HardwareRequest).count() == 1  # policy: the laptop on order counts as given
    assert ticket_end(run, ticket.id) == ("solved", "joiner", "not_eligible")
