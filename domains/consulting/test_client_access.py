"""Client environments: staffing, NDA and background-check gates, expiry, roll-offs and editor approvals."""

from __future__ import annotations

from datetime import date, datetime

from domains.consulting.factories import (
    AccessGrantFactory,
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    EngagementFactory,
    TicketFactory,
)
from domains.consulting.models import AccessGrant, ApprovalRequest, Ticket, TicketComment
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_SNOWFLAKE,
    FS_PARTNER,
    HEALTH_DIRECTOR,
    MERIDIAN,
    MERIDIAN_SANDBOX,
    NORDHAVN,
    NORDHAVN_UAT,
    RETAIL_DIRECTOR,
)
from pytest_thinkingbox import User, call


def _cleared_check(employee, completed=date(2024, 9, 16)):
    """A background check cleared on `completed`, valid for three years."""
    return ComplianceRecordFactory(
        employee_id=employee.id,
        kind="background_check",
        client_id=None,
        status="cleared",
        completed_on=completed,
        expires_on=completed.replace(year=completed.year + 3),
    )


def _nordhavn_engagement():
    return EngagementFactory(
        client_id=NORDHAVN,
        name="Core banking migration",
        lead_id=FS_PARTNER,
        start_date=date(2025, 11, 3),
        end_date=date(2026, 6, 30),
    )


def test_case_CO001_001(tb):
    """Viewer on a client environment with NDA and check in order: expiry is the assignment's end, not the project's."""
    lena = EmployeeFactory(name="Lena Fischer", department="Financial Services")
    engagement = _nordhavn_engagement()
    AssignmentFactory(engagement=engagement, employee=lena, start_date=date(2026, 1, 5), end_date=date(2026, 3, 27))
    ComplianceRecordFactory(employee_id=lena.id, client_id=NORDHAVN, completed_on=date(2026, 1, 2))
    _cleared_check(lena)
    ticket = TicketFactory(requester=lena, subject="Access to Nordhavn UAT")

    run = tb.run(
        User(
            says="Hi, I've just joined the Nordhavn core banking team. Could I get viewer access to the Nordhavn "
            "Azure DevOps UAT environment (RES-401 in the access portal) until the project wraps up at the end of "
            "June?",
            knows={"email": lena.email, "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=lena.email),
            call("list_tickets", requester_id=lena.id),
            call("get_resource", resource_id=NORDHAVN_UAT),
            call("list_assignments", employee_id=lena.id),
            call("get_compliance_status", employee_id=lena.id),
            call(
                "grant_access",
                employee_id=lena.id,
                resource_id=NORDHAVN_UAT,
                role="viewer",
                expires_on="2026-03-27",
                engagement_id=engagement.id,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("set_access_expiry", grant_id="AG-0001", expires_on="2026-06-30")],  # the project's end she asked
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on) == ("viewer", date(2026, 3, 27))  # policy: the assignment's end, not June


def test_case_CO001_002(tb):
    """Staffed and cleared, but the only signed NDA is for another client (Nordhavn's was sent, not signed): pending."""
    kwame = EmployeeFactory(name="Kwame Mensah", department="Financial Services")
    engagement = _nordhavn_engagement()
    AssignmentFactory(engagement=engagement, employee=kwame, start_date=date(2026, 1, 19), end_date=date(2026, 4, 24))
    ComplianceRecordFactory(employee_id=kwame.id, client_id=CALLOWAY, completed_on=date(2025, 3, 10))
    ComplianceRecordFactory(employee_id=kwame.id, client_id=NORDHAVN, status="sent", completed_on=None)
    _cleared_check(kwame)
    ticket = TicketFactory(requester=kwame, subject="UAT access please")
    careless_grant = call(
        "grant_access",
        employee_id=kwame.id,
        resource_id=NORDHAVN_UAT,
        role="viewer",
        expires_on="2026-04-24",
        engagement_id=engagement.id,
    )

    run = tb.run(
        User(
            says="I need viewer access to the Nordhavn Azure DevOps UAT environment, RES-401. I've signed the "
            "client NDA already, I did that last year, so it should be quick.",
            knows={"email": kwame.email, "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=kwame.email),
            call("list_tickets", requester_id=kwame.id),
            call("get_resource", resource_id=NORDHAVN_UAT),
            call("list_assignments", employee_id=kwame.id),
            call("get_compliance_status", employee_id=kwame.id),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="No signed Nordhavn Bank NDA (sent, not signed; the signed NDA is for Calloway). "
                "Waiting for the employee to sign before granting UAT access.",
                public=False,
            ),
        ],
        traps=[careless_grant],  # takes the employee's word that the NDA is signed
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: no access without a signed NDA for this client
    assert run.db.get(Ticket, ticket.id).status == "pending"


def test_case_CO001_003(tb):
    """Background check says cleared but its expiry date has passed, and Meridian requires one: hold, no grant."""
    sofia = EmployeeFactory(name="Sofia Costa", department="Health", start_date=date(2022, 11, 7))
    engagement = EngagementFactory(
        client_id=MERIDIAN,
        name="Patient-flow analytics",
        lead_id=HEALTH_DIRECTOR,
        start_date=date(2026, 1, 12),
        end_date=date(2026, 5, 29),
    )
    AssignmentFactory(engagement=engagement, employee=sofia, role="Data Analyst")
    ComplianceRecordFactory(employee_id=sofia.id, client_id=MERIDIAN, completed_on=date(2026, 1, 9))
    _cleared_check(sofia, completed=date(2022, 11, 1))  # expired 1 November 2025
    ticket = TicketFactory(requester=sofia, subject="Epic sandbox access")
    careless_grant = call(
        "grant_access",
        employee_id=sofia.id,
        resource_id=MERIDIAN_SANDBOX,
        role="viewer",
        expires_on="2026-05-03",
        engagement_id=engagement.id,
    )

    run = tb.run(
        User(
            says="Can you give me viewer access to the Meridian Epic reporting sandbox (RES-403)? My background "
            "check was done when I joined and it came back cleared, so that's all sorted.",
            knows={"email": sofia.email, "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=sofia.email),
            call("list_tickets", requester_id=sofia.id),
            call("get_resource", resource_id=MERIDIAN_SANDBOX),
            call("list_assignments", employee_id=sofia.id),
            call("get_compliance_status", employee_id=sofia.id),
            call("update_ticket", ticket_id=ticket.id, status="hold"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Background check expired on 2025-11-01 and Meridian requires one; waiting for the screening "
                "team to complete a new check before granting sandbox access.",
                public=False,
            ),
        ],
        traps=[careless_grant],  # reads the check's status "cleared" and not its expiry date
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: an expired check is no check; hold, grant nothing
    assert run.db.get(Ticket, ticket.id).status == "hold"


def test_case_CO001_004(tb):
    """Check still in progress, but Calloway requires none: grant viewer capped at 90 days (assignment to July)."""
    arjun = EmployeeFactory(name="Arjun Mehta", department="Retail & Consumer")
    engagement = EngagementFactory(
        client_id=CALLOWAY,
        name="Loyalty programme redesign",
        lead_id=RETAIL_DIRECTOR,
        start_date=date(2026, 1, 26),
        end_date=date(2026, 7, 31),
    )
    AssignmentFactory(engagement=engagement, employee=arjun)
    ComplianceRecordFactory(employee_id=arjun.id, client_id=CALLOWAY, completed_on=date(2026, 1, 22))
    ComplianceRecordFactory(
        employee_id=arjun.id, kind="background_check", client_id=None, status="in_progress", completed_on=None
    )
    ticket = TicketFactory(requester=arjun, subject="Snowflake access")

    run = tb.run(
        User(
            says="I'm on the Calloway loyalty work until the end of July and need viewer access to the Calloway "
            "Snowflake analytics environment, RES-402. My background check is still being processed, is that a "
            "problem?",
            knows={"email": arjun.email, "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=arjun.email),
            call("list_tickets", requester_id=arjun.id),
            call("get_resource", resource_id=CALLOWAY_SNOWFLAKE),
            call("list_assignments", employee_id=arjun.id),
            call("get_compliance_status", employee_id=arjun.id),
            call(
                "grant_access",
                employee_id=arjun.id,
                resource_id=CALLOWAY_SNOWFLAKE,
                role="viewer",
                expires_on="2026-05-03",
                engagement_id=engagement.id,
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[call("set_access_expiry", grant_id="AG-0001", expires_on="2026-07-31")],  # her assignment's end
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).one().expires_on == date(2026, 5, 3)  # policy: capped at 90 days after today
    assert run.db.get(Ticket, ticket.id).status == "solved"


def test_case_CO002_001(tb):
    """Engagement closed last week; employee wants the sandbox to fetch final files: refuse, solved with a comment."""
    hannah = EmployeeFactory(name="Hannah Byrne", department="Health")
    engagement = EngagementFactory(
        client_id=MERIDIAN,
        name="Theatre scheduling review",
        lead_id=HEALTH_DIRECTOR,
        status="closed",
        start_date=date(2025, 9, 1),
        end_date=date(2026, 1, 23),
    )
    AssignmentFactory(engagement=engagement, employee=hannah)
    ComplianceRecordFactory(employee_id=hannah.id, client_id=MERIDIAN, completed_on=date(2025, 8, 28))
    _cleared_check(hannah)
    AccessGrantFactory(
        employee_id=hannah.id,
        resource_id=MERIDIAN_SANDBOX,
        engagement_id=engagement.id,
        status="expired",
        granted_at=datetime(2025, 9, 1, 10, 0),
        expires_on=date(2026, 1, 23),
    )
    ticket = TicketFactory(requester=hannah, subject="Sandbox access for final files")
    careless_grant = call(
        "grant_access",
        employee_id=hannah.id,
        resource_id=MERIDIAN_SANDBOX,
        role="viewer",
        expires_on="2026-02-06",
        engagement_id=engagement.id,
    )

    run = tb.run(
        User(
            says="My access to the Meridian Epic reporting sandbox (RES-403) stopped working. I just need viewer "
            "access again for a few days to pull the final extracts for the close-out pack.",
            knows={"email": hannah.email, "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=hannah.email),
            call("list_tickets", requester_id=hannah.id),
            call("get_resource", resource_id=MERIDIAN_SANDBOX),
            call("list_assignments", employee_id=hannah.id),
            call("list_access_grants", employee_id=hannah.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Refused: the Theatre scheduling review engagement closed on 2026-01-23; no client access "
                "after an engagement ends.",
                public=False,
            ),
        ],
        traps=[careless_grant],  # "just a few days" to pull the final extracts
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 0  # policy: closed engagement, refuse
    assert run.db.query(TicketComment).count() == 1


def test_case_CO002_002(tb):
    """Rolled off on Friday while the engagement runs on: refuse the editor upgrade and revoke the leftover viewer."""
    mateo = EmployeeFactory(name="Mateo Alvarez", department="Financial Services")
    engagement = _nordhavn_engagement()
    AssignmentFactory(engagement=engagement, employee=mateo, start_date=date(2025, 11, 3), end_date=date(2026, 1, 30))
    ComplianceRecordFactory(employee_id=mateo.id, client_id=NORDHAVN, completed_on=date(2025, 10, 30))
    _cleared_check(mateo)
    leftover = AccessGrantFactory(
        employee_id=mateo.id,
        resource_id=NORDHAVN_UAT,
        engagement_id=engagement.id,
        granted_at=datetime(2025, 11, 3, 10, 0),
        expires_on=date(2026, 3, 31),
    )
    ticket = TicketFactory(requester=mateo, subject="Editor rights on Nordhavn UAT")
    careless = [
        call(  # the usual editor route, without checking that the assignment has ended
            "create_approval_request",
            ticket_id=ticket.id,
            kind="client_access",
            employee_id=mateo.id,
            approver_id=FS_PARTNER,
            resource_id=NORDHAVN_UAT,
            requested_role="editor",
        ),
        call(  # editor for the handover he asks for
            "grant_access",
            employee_id=mateo.id,
            resource_id=NORDHAVN_UAT,
            role="editor",
            expires_on="2026-03-31",
            engagement_id=engagement.id,
        ),
    ]

    run = tb.run(
        User(
            says="I have viewer on the Nordhavn Azure DevOps UAT environment (RES-401) but I need editor so I can "
            "update the test cases before I hand over to the new team.",
            knows={"email": mateo.email, "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=mateo.email),
            call("list_tickets", requester_id=mateo.id),
            call("get_resource", resource_id=NORDHAVN_UAT),
            call("list_assignments", employee_id=mateo.id),
            call("list_access_grants", employee_id=mateo.id),
            call("revoke_access", grant_id=leftover.id, reason="assignment_ended"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Refused: assignment on Core banking migration ended 2026-01-30. Leftover viewer grant "
                "revoked (assignment ended).",
                public=False,
            ),
        ],
        traps=careless,
    )

    run.expect_golden()
    revoked = run.db.get(AccessGrant, leftover.id)
    assert (revoked.status, revoked.revoke_reason) == ("revoked", "assignment_ended")
    assert run.db.query(ApprovalRequest).count() == 0  # policy: refused outright, no approval route after roll-off
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 0  # and no access of any role


def test_case_CO002_003(tb):
    """Editor on a client environment: route to the engagement lead, not the line manager who 'already agreed'."""
    tobias = EmployeeFactory(name="Tobias Kraus", grade="manager", department="Financial Services")
    chloe = EmployeeFactory(
        name="Chloe Dubois", grade="senior_consultant", department="Financial Services", manager_id=tobias.id
    )
    engagement = _nordhavn_engagement()
    AssignmentFactory(engagement=engagement, employee=chloe, role="Test Lead")
    ComplianceRecordFactory(employee_id=chloe.id, client_id=NORDHAVN, completed_on=date(2025, 11, 1))
    _cleared_check(chloe)
    viewer = AccessGrantFactory(
        employee_id=chloe.id,
        resource_id=NORDHAVN_UAT,
        engagement_id=engagement.id,
        granted_at=datetime(2025, 11, 3, 10, 0),
        expires_on=date(2026, 2, 28),
    )
    ticket = TicketFactory(requester=chloe, subject="Editor access on Nordhavn UAT")

    run = tb.run(
        User(
            says="I'm the test lead on Nordhavn and I need editor rights on the Azure DevOps UAT environment "
            "(RES-401) instead of viewer. My manager Tobias already said it's fine, so you can just switch it.",
            knows={"email": chloe.email, "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=chloe.email),
            call("list_tickets", requester_id=chloe.id),
            call("get_resource", resource_id=NORDHAVN_UAT),
            call("list_assignments", employee_id=chloe.id),
            call("get_compliance_status", employee_id=chloe.id),
            call("list_approval_requests", employee_id=chloe.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="client_access",
                employee_id=chloe.id,
                approver_id=FS_PARTNER,
                resource_id=NORDHAVN_UAT,
                requested_role="editor",
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Editor on Nordhavn UAT sent for approval to the engagement lead, David Osei.",
                public=False,
            ),
        ],
        # "just switch it": the viewer grant taken away to make room for editor
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (FS_PARTNER, "editor")
    assert run.db.query(AccessGrant).filter_by(role="editor").count() == 0
    kept = run.db.get(AccessGrant, viewer.id)
    assert (kept.status, kept.role) == (
        "active",
        "viewer",
    )  # policy: the existing grant stays until the approver decides
