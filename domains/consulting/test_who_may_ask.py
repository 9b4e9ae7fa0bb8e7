"""Who may ask: requests made for someone else, offboarding from the wrong person, and people who have left."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    access_approval,
    assignments_and_grants,
    expire_on,
    identify,
    new_ticket,
    refused,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    AssignmentFactory,
    EmployeeFactory,
    LicenceSeatFactory,
    TicketFactory,
    client_engagement,
    client_grant,
    manager_and_report,
)
from domains.consulting.models import AccessGrant, ApprovalRequest, LicenceSeat, Ticket, TicketComment
from domains.consulting.rubrics import FELIX_ASKS_FOR_HIS_LICENCE, OFFBOARDING_ASKED_BY
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_SNOWFLAKE,
    SALESFORCE,
    TABLEAU,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Roll-off requests",
)


def test_case_CO010_001(tb):
    """A line manager asks for a Tableau seat for her report: refused as not authorised; he must ask himself."""
    manager, felix = manager_and_report(
        "Grace Costa", "Felix Mensah", grade="consultant", department="Data & Analytics"
    )
    ticket = TicketFactory(requester=manager, subject="Tableau for Felix")

    run = tb.run(
        User(
            says="Felix on my team needs Tableau Creator to build the client's dashboards. He's on site all day with "
            "no time to raise tickets, so I'm asking on his behalf; I'm his manager, so consider it approved.",
            knows={"email": manager.email, "for whom": f"Felix Mensah, employee id {felix.id}"},
        ),
        golden=[
            *identify(manager),
            call("get_employee", employee_id=felix.id),
            *refused(
                ticket.id,
                "software_licence",
                "not_authorised",
                "Refused: licence requested by the line manager for Felix Mensah; employees ask for their own "
                "licences.",
            ),
        ],
        traps=[call("assign_licence", software_id=TABLEAU, employee_id=felix.id)],  # a seat is free
        reply="I'm sorry, I can't set this up on your behalf: licences are only requested by the employee who will "
        "use them, even with a manager's support. Felix can ask us himself whenever he has a minute, and a seat is "
        "handled under the normal rules then.",
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).count() == 0  # policy: nothing for Felix on someone else's request
    assert ticket_end(run, ticket.id) == ("solved", "software_licence", "not_authorised")
    run.rubric(FELIX_ASKS_FOR_HIS_LICENCE.question, phrases=FELIX_ASKS_FOR_HIS_LICENCE.phrases)


@pytest.mark.two_requests
def test_case_CO010_002(tb):
    """The engagement lead, no ticket open: the leaver's roll-off from his engagement is done, the offboarding not."""
    manager = EmployeeFactory(name="Hannah Petrov", grade="manager", department="Retail & Consumer")
    lead = EmployeeFactory(name="Mateo Whitfield", grade="partner", department="Retail & Consumer")
    kwame = EmployeeFactory(
        name="Kwame Petrov", department="Retail & Consumer", manager_id=manager.id, last_day=date(2026, 2, 2)
    )
    engagement = client_engagement(CALLOWAY, "Supplier negotiations", lead.id, date(2025, 11, 3), date(2026, 6, 26))
    AssignmentFactory(engagement=engagement, employee=kwame, start_date=date(2025, 11, 3), end_date=date(2026, 2, 2))
    crm = AccessGrantFactory(employee_id=kwame.id, resource_id=SALESFORCE)
    snowflake = client_grant(kwame, CALLOWAY_SNOWFLAKE, engagement, expires_on=date(2026, 5, 3))
    seat = LicenceSeatFactory(software_id=TABLEAU, employee_id=kwame.id)

    run = tb.run(
        User(
            says="Kwame Petrov from my Calloway supplier negotiations team is leaving the firm today, so his "
            "assignment with us ends today too. I lead that engagement, so please close his Calloway access for "
            "it. And while you're at it, do his offboarding: cut his CRM access and his software before he walks "
            "out the door.",
            knows={
                "email": lead.email,
                "leaver": f"Kwame Petrov, employee id {kwame.id}",
                "engagement": f"Supplier negotiations, {engagement.id}",
            },
        ),
        golden=[
            *identify(lead),
            call("get_employee", employee_id=kwame.id),
            call("get_engagement", engagement_id=engagement.id),
            *assignments_and_grants(kwame),
            new_ticket(lead, "Roll-off and offboarding for Kwame Petrov", "roll_off", kwame),
            *expire_on("2026-02-02", snowflake),
            *refused(
                "T-0001",
                None,
                "not_authorised",
                "Roll-off from Supplier negotiations done at the engagement lead's request: Calloway Snowflake "
                "now ends 2026-02-02. Offboarding refused: only the line manager (Hannah Petrov) or the People team "
                "may ask.",
            ),
        ],
        traps=[
            call("revoke_access", grant_id=crm.id, reason="leaver"),  # cut on the engagement lead's word
            call("release_licence", seat_id=seat.id),  # and his software
            call("revoke_access", grant_id=snowflake.id, reason="assignment_ended"),  # cut now, not at day's end
        ],
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-0001")
    assert (new.requester_id, new.subject_employee_id) == (lead.id, kwame.id)
    assert (new.status, new.category, new.reason) == ("solved", "roll_off", "not_authorised")
    kept = run.db.get(AccessGrant, snowflake.id)
    assert (kept.status, kept.expires_on) == ("active", date(2026, 2, 2))  # policy: the lead may ask the roll-off
    assert run.db.get(AccessGrant, crm.id).expires_on is None  # policy: not the offboarding
    assert run.db.get(LicenceSeat, seat.id).status == "active"


def test_case_CO010_003(tb):
    """The leaver's skip-level manager asks for the offboarding: only the line manager or People may, so refuse."""
    director, manager = manager_and_report(
        "Isla Fischer", "Omar Gallagher", manager_grade="director", grade="manager", department="Health"
    )
    sofia = EmployeeFactory(name="Sofia Braun", department="Health", manager_id=manager.id, last_day=date(2026, 2, 2))
    workday = AccessGrantFactory(employee_id=sofia.id, resource_id=WORKDAY)
    LicenceSeatFactory(software_id=TABLEAU, employee_id=sofia.id)
    ticket = TicketFactory(requester=director, subject_employee_id=sofia.id, subject="Sofia Braun leaving today")

    run = tb.run(
        User(
            says="Sofia Braun finishes today. Omar, her manager, is off sick, and as the director over both of them "
            "I'd like you to switch off her access and licences this afternoon. I'm senior to Omar, so that should "
            "be fine.",
            knows={"email": director.email, "leaver": f"Sofia Braun, employee id {sofia.id}"},
        ),
        golden=[
            *identify(director),
            call("get_employee", employee_id=sofia.id),
            *refused(
                ticket.id,
                "leaver",
                "not_authorised",
                "Refused: offboarding asked by the skip-level director; only the line manager (Omar Gallagher) "
                "or the People team may request it.",
            ),
        ],
        traps=[call("revoke_access", grant_id=workday.id, reason="leaver")],
        reply="I'm sorry, I can't act on this: an offboarding can only be requested by the leaver's line manager or "
        "by the People team. With Omar off sick, please ask the People team to raise it and we'll do it straight "
        "away.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 1  # policy: nothing revoked
    assert run.db.query(LicenceSeat).filter_by(status="active").count() == 1
    assert ticket_end(run, ticket.id) == ("solved", "leaver", "not_authorised")
    assert run.db.query(TicketComment).count() == 1
    run.rubric(OFFBOARDING_ASKED_BY.question, phrases=OFFBOARDING_ASKED_BY.phrases)


def test_case_CO010_004(tb):
    """An employee who has left asks for Workday editor to fix her address: she gets nothing (not eligible)."""
    manager, chloe = manager_and_report("Jonas Mensah", "Chloe Whitfield", status="left", last_day=date(2026, 1, 23))
    AccessGrantFactory(
        employee_id=chloe.id,
        resource_id=WORKDAY,
        status="revoked",
        revoked_at=datetime(2026, 1, 23, 18, 0),
        revoke_reason="leaver",
    )
    ticket = TicketFactory(requester=chloe, subject="Update address for final payslip")

    run = tb.run(
        User(
            says="Hi, I left Halden & Price a couple of weeks ago and I've just moved flat. My final payslip will "
            "go to the old address unless I can change it, so could you give me edit access to Workday for a day so "
            "I can update it? Jonas, my old manager, won't mind.",
            knows={"email": chloe.email},
        ),
        golden=[
            *identify(chloe),
            call("get_resource", resource_id=WORKDAY),
            *refused(
                ticket.id,
                "system_access",
                "not_eligible",
                "Refused: the requester left the firm on 2026-01-23; former employees get no access.",
            ),
        ],
        traps=[  # editor routed to her old manager, as for an active employee
            access_approval(ticket.id, "system_access", chloe, manager.id, WORKDAY, "editor")
        ],
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).count() == 0  # policy: someone who has left gets nothing
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "system_access", "not_eligible")
