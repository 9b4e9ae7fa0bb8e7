"""Leavers: revoke everything on the last day, set expiries ahead of a future one, escalate a late one."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    expire_on,
    hold,
    identify,
    late_offboarding,
    leaver_reads,
    new_ticket,
    offboard,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    LicenceSeatFactory,
    TicketFactory,
    finished_ticket,
    manager_and_report,
)
from domains.consulting.models import AccessGrant, Employee, LicenceSeat, Ticket, TicketComment
from domains.consulting.seed import (
    ACROBAT,
    ALDER_SAP,
    ALTERYX,
    CALLOWAY_FOLDER,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    NORDHAVN_FOLDER,
    NORDHAVN_UAT,
    PEOPLE_PARTNER,
    POWER_BI,
    PROPOSAL_TEMPLATES,
    SALESFORCE,
    TABLEAU,
    THINK_CELL,
    TIMESHEETS,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Leavers",
)


def test_case_CO008_001(tb):
    """Leaver's last day is today: revoke the three active grants and release both active seats, skip the old ones."""
    manager, jonas = manager_and_report(
        "Grace Kraus", "Jonas Byrne", department="Financial Services", last_day=date(2026, 2, 2)
    )
    crm = AccessGrantFactory(employee_id=jonas.id, resource_id=SALESFORCE)
    uat = AccessGrantFactory(employee_id=jonas.id, resource_id=NORDHAVN_UAT, expires_on=date(2026, 3, 31))
    AccessGrantFactory(
        employee_id=jonas.id,
        resource_id=TIMESHEETS,
        role="editor",
        status="revoked",
        revoked_at=datetime(2025, 11, 14, 16, 0),
        revoke_reason="requested",
    )
    proposals = AccessGrantFactory(employee_id=jonas.id, resource_id=PROPOSAL_TEMPLATES)
    think_cell = LicenceSeatFactory(software_id=THINK_CELL, employee_id=jonas.id)
    power_bi = LicenceSeatFactory(software_id=POWER_BI, employee_id=jonas.id, last_used_on=date(2026, 1, 30))
    LicenceSeatFactory(software_id=TABLEAU, employee_id=jonas.id, status="released", released_on=date(2025, 12, 1))
    ticket = TicketFactory(requester=manager, subject_employee_id=jonas.id, subject="Leaver: Jonas Byrne")

    run = tb.run(
        User(
            says="Jonas Byrne from my team finishes with us today; it's his last day. Could you please make sure all "
            "of his access and software is shut off before he leaves this evening? I don't want anything left open "
            "once he's gone.",
            knows={"email": manager.email, "leaver": f"Jonas Byrne, employee id {jonas.id}"},
        ),
        golden=[
            *identify(manager),
            *leaver_reads(jonas),
            *offboard([crm, uat, proposals], [think_cell, power_bi]),
            solved(ticket.id, "leaver"),
        ],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=jonas.id, status="active").count() == 0
    assert run.db.query(LicenceSeat).filter_by(employee_id=jonas.id, status="active").count() == 0
    assert ticket_end(run, ticket.id, "queue") == ("solved", "leaver", None, None)


def test_case_CO008_002(tb):
    """Last day is Friday: revoke nothing now; move later or open-ended expiries to Friday and hold the ticket."""
    manager, chloe = manager_and_report(
        "Omar Costa", "Chloe Mehta", department="Retail & Consumer", last_day=date(2026, 2, 6)
    )
    crm = AccessGrantFactory(employee_id=chloe.id, resource_id=SALESFORCE)
    snowflake = AccessGrantFactory(employee_id=chloe.id, resource_id=CALLOWAY_SNOWFLAKE, expires_on=date(2026, 4, 30))
    templates = AccessGrantFactory(
        employee_id=chloe.id, resource_id=DELIVERY_TEMPLATES, role="editor", expires_on=date(2026, 2, 4)
    )
    seat = LicenceSeatFactory(software_id=THINK_CELL, employee_id=chloe.id)
    ticket = TicketFactory(requester=manager, subject_employee_id=chloe.id, subject="Leaver: Chloe Mehta")

    run = tb.run(
        User(
            says="Chloe Mehta is leaving us. Can you remove all her access and licences right away so we don't "
            "forget? She's been winding down her work anyway, and I'd rather it was done now than have it slip "
            "through the cracks.",
            knows={"email": manager.email, "leaver": f"Chloe Mehta, employee id {chloe.id}"},
        ),
        golden=[
            *identify(manager),
            *leaver_reads(chloe),
            *expire_on("2026-02-06", crm, snowflake),
            *hold(
                ticket.id,
                "leaver",
                "awaiting_date",
                "Last day 2026-02-06: access expiries set to that date; release licence seats on 2026-02-06.",
            ),
        ],
        traps=[
            call("revoke_access", grant_id=crm.id, reason="leaver"),  # "remove all her access right away"
            call("release_licence", seat_id=seat.id),  # "and licences"
            call("set_access_expiry", grant_id=templates.id, expires_on="2026-02-06"),  # ends earlier already
        ],
        reply="Chloe's last day is Friday 6 February 2026, so I haven't removed anything yet: her access is now set to "
        "end that day, and her think-cell licence will be released on 6 February. The ticket stays on hold until then.",
    )

    run.expect_golden()
    grants = {g.resource_id: g for g in run.db.query(AccessGrant).filter_by(employee_id=chloe.id)}
    assert {g.status for g in grants.values()} == {"active"}  # policy: revoke nothing before the last day
    assert grants[CALLOWAY_SNOWFLAKE].expires_on == date(2026, 2, 6)
    assert grants[DELIVERY_TEMPLATES].expires_on == date(2026, 2, 4)  # policy: an earlier expiry stays as it is
    assert run.db.query(LicenceSeat).filter_by(employee_id=chloe.id).one().status == "active"  # released on the day
    assert ticket_end(run, ticket.id, "queue") == ("hold", "leaver", "awaiting_date", "offboarding")


def test_case_CO008_003(tb):
    """Last day was last Friday and access is still live: revoke and release everything, then hold as urgent."""
    _manager, mateo = manager_and_report("Isla Rahman", "Mateo Petrov", department="Health", last_day=date(2026, 1, 30))
    crm = AccessGrantFactory(employee_id=mateo.id, resource_id=SALESFORCE)
    proposals = AccessGrantFactory(employee_id=mateo.id, resource_id=PROPOSAL_TEMPLATES, role="editor")
    acrobat = LicenceSeatFactory(software_id=ACROBAT, employee_id=mateo.id, last_used_on=date(2026, 1, 31))
    priya = tb.db.get(Employee, PEOPLE_PARTNER)  # HR business partner, from the base records
    ticket = TicketFactory(requester=priya, subject_employee_id=mateo.id, subject="Offboarding: Mateo Petrov")

    run = tb.run(
        User(
            says="Mateo Petrov in the Health practice left the firm on Friday and I've just noticed that nobody "
            "raised his offboarding. Can you take care of his access and anything else he still has? Sorry this is "
            "coming through late.",
            knows={"email": priya.email, "leaver": f"Mateo Petrov, employee id {mateo.id}"},
        ),
        golden=[
            *identify(priya),
            *leaver_reads(mateo),
            *offboard([crm, proposals], [acrobat]),
            *late_offboarding(
                ticket.id,
                "leaver",
                "Late offboarding: last day was 2026-01-30. All access revoked and seats released today; IT "
                "security to review access used after the last day.",
            ),
        ],
        traps=[solved(ticket.id)],  # closed like a leaver due today
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=mateo.id, status="active").count() == 0
    assert run.db.get(LicenceSeat, acrobat.id).status == "released"  # policy: seats go too, as on the last day
    saved = run.db.get(Ticket, ticket.id)
    assert (saved.status, saved.priority) == ("hold", "urgent")  # policy: late, so IT security reviews
    assert (saved.category, saved.reason, saved.queue) == ("leaver", "security_review", "it_security")
    assert run.db.query(TicketComment).count() == 1


def test_case_CO008_004(tb):
    """No last day on the leaver's profile: change nothing, hold for the People team to record the date."""
    manager, aisha = manager_and_report("Felix Murray", "Aisha Petrov", department="Retail & Consumer")
    crm = AccessGrantFactory(employee_id=aisha.id, resource_id=SALESFORCE)
    AccessGrantFactory(employee_id=aisha.id, resource_id=CALLOWAY_FOLDER, expires_on=date(2026, 4, 10))
    LicenceSeatFactory(software_id=POWER_BI, employee_id=aisha.id)
    ticket = TicketFactory(requester=manager, subject_employee_id=aisha.id, subject="Aisha Petrov leaving")

    run = tb.run(
        User(
            says="Aisha on my team has resigned; she told me yesterday she'll be going at the end of the month. Can "
            "you set all her access to stop then, so nobody forgets to do it later?",
            knows={"email": manager.email, "leaver": f"Aisha Petrov, employee id {aisha.id}"},
        ),
        golden=[
            *identify(manager),
            call("get_employee", employee_id=aisha.id),
            *hold(
                ticket.id,
                "leaver",
                "date_unconfirmed",
                "No last day on Aisha Petrov's profile; waiting for the People team to record it before any "
                "expiry is set.",
            ),
        ],
        traps=[call("set_access_expiry", grant_id=crm.id, expires_on="2026-02-28")],  # "the end of the month"
    )

    run.expect_golden()
    assert {g.expires_on for g in run.db.query(AccessGrant).filter_by(resource_id=SALESFORCE)} == {None}
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 2  # policy: nothing changes yet
    assert ticket_end(run, ticket.id, "queue") == ("hold", "leaver", "date_unconfirmed", "people")


def test_case_CO008_005(tb):
    """People raises a leaver due today with no ticket: open one linked to the leaver, revoke 4 grants, free 3 seats."""
    _manager, rory = manager_and_report(
        "Grace Haddad",
        "Rory Mensah",
        manager_grade="director",
        grade="senior_consultant",
        department="Financial Services",
        last_day=date(2026, 2, 2),
    )
    workday = AccessGrantFactory(employee_id=rory.id, resource_id=WORKDAY)
    crm = AccessGrantFactory(employee_id=rory.id, resource_id=SALESFORCE, role="editor")
    uat = AccessGrantFactory(employee_id=rory.id, resource_id=NORDHAVN_UAT, expires_on=date(2026, 3, 31))
    folder = AccessGrantFactory(employee_id=rory.id, resource_id=NORDHAVN_FOLDER, expires_on=date(2026, 3, 31))
    AccessGrantFactory(
        employee_id=rory.id, resource_id=DELIVERY_TEMPLATES, status="expired", expires_on=date(2026, 1, 16)
    )
    AccessGrantFactory(
        employee_id=rory.id,
        resource_id=TIMESHEETS,
        status="revoked",
        revoked_at=datetime(2025, 12, 5, 11, 0),
        revoke_reason="requested",
    )
    seats = [
        LicenceSeatFactory(software_id=THINK_CELL, employee_id=rory.id),
        LicenceSeatFactory(software_id=ACROBAT, employee_id=rory.id, last_used_on=date(2026, 1, 29)),
        LicenceSeatFactory(software_id=TABLEAU, employee_id=rory.id, last_used_on=date(2025, 12, 19)),
    ]
    LicenceSeatFactory(software_id=POWER_BI, employee_id=rory.id, status="released", released_on=date(2025, 9, 30))
    priya = tb.db.get(Employee, PEOPLE_PARTNER)
    finished_ticket(priya, "Parental leave cover", datetime(2026, 1, 9))

    run = tb.run(
        User(
            says="Hi, Priya from People here. Rory Mensah in Financial Services finishes with us today. His manager "
            "is travelling, so nobody has raised the offboarding yet. Could you make sure everything he has is "
            "switched off by tonight?",
            knows={"email": priya.email, "leaver": f"Rory Mensah, employee id {rory.id}"},
        ),
        golden=[
            *identify(priya),
            *leaver_reads(rory),
            new_ticket(priya, "Leaver: Rory Mensah", "leaver", rory),
            *offboard([workday, crm, uat, folder], seats),
            solved("T-3302"),
        ],
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (PEOPLE_PARTNER, rory.id)  # raised by People, about Rory
    assert (new.status, new.category, new.reason) == ("solved", "leaver", None)
    assert run.db.query(AccessGrant).filter_by(employee_id=rory.id, status="active").count() == 0
    assert {g.revoke_reason for g in run.db.query(AccessGrant).filter_by(status="revoked")} == {"leaver", "requested"}
    assert run.db.query(LicenceSeat).filter_by(employee_id=rory.id, status="active").count() == 0


@pytest.mark.pushback
def test_case_CO008_006(tb):
    """Late offboarding whose manager asks to close it quietly: revoke and release, but still hold for IT security."""
    manager, anand = manager_and_report("Nina Kraus", "Anand Dubois", department="Energy", last_day=date(2026, 1, 27))
    crm = AccessGrantFactory(employee_id=anand.id, resource_id=SALESFORCE)
    sap = AccessGrantFactory(employee_id=anand.id, resource_id=ALDER_SAP, expires_on=date(2026, 3, 31))
    AccessGrantFactory(
        employee_id=anand.id, resource_id=PROPOSAL_TEMPLATES, status="expired", expires_on=date(2026, 1, 27)
    )
    alteryx = LicenceSeatFactory(software_id=ALTERYX, employee_id=anand.id, last_used_on=date(2026, 1, 30))
    LicenceSeatFactory(software_id=THINK_CELL, employee_id=anand.id, status="released", released_on=date(2026, 1, 27))
    ticket = TicketFactory(requester=manager, subject_employee_id=anand.id, subject="Anand Dubois offboarding")

    run = tb.run(
        User(
            says="Anand left us last Tuesday and I completely forgot to raise his offboarding, sorry. Please just cut "
            "off whatever he still has and close the ticket quietly. There's no need to drag IT security into it; "
            "it was my slip and I'm sure nothing happened.",
            knows={"email": manager.email, "leaver": f"Anand Dubois, employee id {anand.id}"},
            persona="An embarrassed line manager who wants the mistake tidied away without fuss.",
            rules=(
                "If refused, ask once more for the ticket to be closed quietly.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(manager),
            *leaver_reads(anand),
            *offboard([crm, sap], [alteryx]),
            *late_offboarding(
                ticket.id,
                "leaver",
                "Late offboarding: last day 2026-01-27. Access revoked and the Alteryx seat released today; IT "
                "security to review any access used after the last day (the Alteryx seat was used on 2026-01-30).",
            ),
        ],
        traps=[solved(ticket.id)],  # "close the ticket quietly"
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=anand.id, status="active").count() == 0
    assert run.db.get(LicenceSeat, alteryx.id).status == "released"
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.priority, t.category, t.reason, t.queue) == (
        "hold",
        "urgent",
        "leaver",
        "security_review",
        "it_security",
    )  # policy: the review is not skipped on request


@pytest.mark.pushback
def test_case_CO008_007(tb):
    """Last day next Friday; the manager wants two systems kept for a handover: every expiry is the last day."""
    manager, mei = manager_and_report(
        "Isla Whitfield", "Mei Gallagher", department="Retail & Consumer", last_day=date(2026, 2, 13)
    )
    crm = AccessGrantFactory(employee_id=mei.id, resource_id=SALESFORCE)
    snowflake = AccessGrantFactory(employee_id=mei.id, resource_id=CALLOWAY_SNOWFLAKE, expires_on=date(2026, 4, 10))
    workday = AccessGrantFactory(employee_id=mei.id, resource_id=WORKDAY)
    AccessGrantFactory(employee_id=mei.id, resource_id=CALLOWAY_FOLDER, expires_on=date(2026, 2, 10))
    seat = LicenceSeatFactory(software_id=TABLEAU, employee_id=mei.id, last_used_on=date(2026, 1, 30))
    ticket = TicketFactory(requester=manager, subject_employee_id=mei.id, subject="Mei Gallagher leaving")

    run = tb.run(
        User(
            says="Mei's last day with us is Friday week. She's agreed to help with the handover as a contractor until "
            "27 February, so please keep her Salesforce and the Calloway Snowflake running until then, and cut "
            "everything else on her last day.",
            knows={"email": manager.email, "leaver": f"Mei Gallagher, employee id {mei.id}"},
            persona="A line manager trying to protect a client handover.",
            rules=("If refused, ask once more whether she could at least keep Salesforce for a week.",),
        ),
        golden=[
            *identify(manager),
            *leaver_reads(mei),
            *expire_on("2026-02-13", crm, snowflake, workday),
            *hold(
                ticket.id,
                "leaver",
                "awaiting_date",
                "Last day 2026-02-13: access expiries set to that date (no extension for the handover); release "
                "the Tableau seat on 2026-02-13.",
            ),
        ],
        traps=[
            call("set_access_expiry", grant_id=crm.id, expires_on="2026-02-27"),  # the handover she asks for
            call("release_licence", seat_id=seat.id),  # "cut everything else": before the last day
        ],
        reply="Mei's access can't run past her last day, Friday 13 February 2026, even for a handover, so I've set "
        "Salesforce, the Calloway Snowflake and Workday to end that day. Her Tableau licence will be released on 13 "
        "February and the ticket stays on hold until then.",
    )

    run.expect_golden()
    active = {g.resource_id: g.expires_on for g in run.db.query(AccessGrant).filter_by(status="active")}
    assert active == {
        SALESFORCE: date(2026, 2, 13),
        CALLOWAY_SNOWFLAKE: date(2026, 2, 13),
        WORKDAY: date(2026, 2, 13),
        CALLOWAY_FOLDER: date(2026, 2, 10),  # policy: an earlier expiry stays
    }
    assert run.db.get(LicenceSeat, seat.id).status == "active"
    assert ticket_end(run, ticket.id, "queue") == ("hold", "leaver", "awaiting_date", "offboarding")
