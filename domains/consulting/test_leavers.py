"""Leavers: revoke everything on the last day, set expiries ahead of a future one, escalate a late one."""

from __future__ import annotations

from datetime import date, datetime

from domains.consulting.factories import AccessGrantFactory, EmployeeFactory, LicenceSeatFactory, TicketFactory
from domains.consulting.models import AccessGrant, Employee, LicenceSeat, Ticket, TicketComment
from domains.consulting.seed import (
    ACROBAT,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    NORDHAVN_UAT,
    PEOPLE_PARTNER,
    POWER_BI,
    PROPOSAL_TEMPLATES,
    SALESFORCE,
    TABLEAU,
    THINK_CELL,
    TIMESHEETS,
)
from pytest_thinkingbox import User, call


def test_case_CO008_001(tb):
    """Leaver's last day is today: revoke the three active grants and release both active seats, skip the old ones."""
    manager = EmployeeFactory(name="Grace Kraus", grade="manager", department="Financial Services")
    jonas = EmployeeFactory(
        name="Jonas Byrne", department="Financial Services", manager_id=manager.id, last_day=date(2026, 2, 2)
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
            says="Jonas Byrne from my team finishes with us today. Please make sure his access is shut off.",
            knows={"email": manager.email, "leaver": f"Jonas Byrne, employee id {jonas.id}"},
        ),
        golden=[
            call("find_employee_by_email", email=manager.email),
            call("list_tickets", requester_id=manager.id),
            call("get_employee", employee_id=jonas.id),
            call("list_access_grants", employee_id=jonas.id),
            call("list_licence_seats", employee_id=jonas.id),
            call("revoke_access", grant_id=crm.id, reason="leaver"),
            call("revoke_access", grant_id=uat.id, reason="leaver"),
            call("revoke_access", grant_id=proposals.id, reason="leaver"),
            call("release_licence", seat_id=think_cell.id),
            call("release_licence", seat_id=power_bi.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=jonas.id, status="active").count() == 0
    assert run.db.query(LicenceSeat).filter_by(employee_id=jonas.id, status="active").count() == 0


def test_case_CO008_002(tb):
    """Last day is Friday: revoke nothing now; move later or open-ended expiries to Friday and hold the ticket."""
    manager = EmployeeFactory(name="Omar Costa", grade="manager", department="Retail & Consumer")
    chloe = EmployeeFactory(
        name="Chloe Mehta", department="Retail & Consumer", manager_id=manager.id, last_day=date(2026, 2, 6)
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
            says="Chloe Mehta is leaving us. Can you remove all her access and licences right away so we don't forget?",
            knows={"email": manager.email, "leaver": f"Chloe Mehta, employee id {chloe.id}"},
        ),
        golden=[
            call("find_employee_by_email", email=manager.email),
            call("list_tickets", requester_id=manager.id),
            call("get_employee", employee_id=chloe.id),
            call("list_access_grants", employee_id=chloe.id),
            call("set_access_expiry", grant_id=crm.id, expires_on="2026-02-06"),
            call("set_access_expiry", grant_id=snowflake.id, expires_on="2026-02-06"),
            call("update_ticket", ticket_id=ticket.id, status="hold"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Last day 2026-02-06: access expiries set to that date; release licence seats on 2026-02-06.",
                public=False,
            ),
        ],
        traps=[
            call("revoke_access", grant_id=crm.id, reason="leaver"),  # "remove all her access right away"
            call("release_licence", seat_id=seat.id),  # "and licences"
            call("set_access_expiry", grant_id=templates.id, expires_on="2026-02-06"),  # ends earlier already
        ],
    )

    run.expect_golden()
    grants = {g.resource_id: g for g in run.db.query(AccessGrant).filter_by(employee_id=chloe.id)}
    assert {g.status for g in grants.values()} == {"active"}  # policy: revoke nothing before the last day
    assert grants[CALLOWAY_SNOWFLAKE].expires_on == date(2026, 2, 6)
    assert grants[DELIVERY_TEMPLATES].expires_on == date(2026, 2, 4)  # policy: an earlier expiry stays as it is
    assert run.db.query(LicenceSeat).filter_by(employee_id=chloe.id).one().status == "active"  # released on the day


def test_case_CO008_003(tb):
    """Last day was last Friday and access is still live: revoke and release everything, then hold as urgent."""
    manager = EmployeeFactory(name="Isla Rahman", grade="manager", department="Health")
    mateo = EmployeeFactory(name="Mateo Petrov", department="Health", manager_id=manager.id, last_day=date(2026, 1, 30))
    crm = AccessGrantFactory(employee_id=mateo.id, resource_id=SALESFORCE)
    proposals = AccessGrantFactory(employee_id=mateo.id, resource_id=PROPOSAL_TEMPLATES, role="editor")
    acrobat = LicenceSeatFactory(software_id=ACROBAT, employee_id=mateo.id, last_used_on=date(2026, 1, 31))
    priya = tb.db.get(Employee, PEOPLE_PARTNER)  # HR business partner, from the base records
    ticket = TicketFactory(requester=priya, subject_employee_id=mateo.id, subject="Offboarding: Mateo Petrov")

    run = tb.run(
        User(
            says="Mateo Petrov in the Health practice left the firm on Friday and I've just noticed nobody raised the "
            "offboarding. Can you take care of his access?",
            knows={"email": priya.email, "leaver": f"Mateo Petrov, employee id {mateo.id}"},
        ),
        golden=[
            call("find_employee_by_email", email=priya.email),
            call("list_tickets", requester_id=PEOPLE_PARTNER),
            call("get_employee", employee_id=mateo.id),
            call("list_access_grants", employee_id=mateo.id),
            call("list_licence_seats", employee_id=mateo.id),
            call("revoke_access", grant_id=crm.id, reason="leaver"),
            call("revoke_access", grant_id=proposals.id, reason="leaver"),
            call("release_licence", seat_id=acrobat.id),
            call("update_ticket", ticket_id=ticket.id, status="hold", priority="urgent"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Late offboarding: last day was 2026-01-30. All access revoked and seats released today; IT "
                "security to review access used after the last day.",
                public=False,
            ),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],  # closed like a leaver due today
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(employee_id=mateo.id, status="active").count() == 0
    assert run.db.get(LicenceSeat, acrobat.id).status == "released"  # policy: seats go too, as on the last day
    saved = run.db.get(Ticket, ticket.id)
    assert (saved.status, saved.priority) == ("hold", "urgent")  # policy: late, so IT security reviews
    assert run.db.query(TicketComment).count() == 1
