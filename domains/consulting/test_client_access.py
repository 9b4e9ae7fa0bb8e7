"""Client environments: staffing, NDA and background-check gates, expiry, roll-offs and editor approvals."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    access_approval,
    assignments_and_grants,
    client_gates,
    grant_access,
    hardware_reads,
    held_and_asked,
    hold,
    identify,
    pending,
    refused,
    request_hardware,
    revoke_ended,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    HardwareRequestFactory,
    TicketFactory,
    background_check,
    client_engagement,
    client_grant,
    manager_and_report,
    staffed,
)
from domains.consulting.models import (
    AccessGrant,
    ApprovalRequest,
    Employee,
    Engagement,
    HardwareRequest,
    TicketComment,
)
from domains.consulting.rubrics import ALDER_FROM_9_FEBRUARY
from domains.consulting.seed import (
    ALDER,
    ALDER_SAP,
    CALLOWAY,
    CALLOWAY_FOLDER,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    DOCK,
    FS_PARTNER,
    HEADSET,
    HEALTH_DIRECTOR,
    IT_SECURITY_LEAD,
    MERIDIAN,
    MERIDIAN_SANDBOX,
    NORDHAVN,
    NORDHAVN_FOLDER,
    NORDHAVN_UAT,
    RETAIL_DIRECTOR,
    TIMESHEETS,
)
from pytest_thinkingbox import User, call, derived

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Client environments",
    "Ended engagements and roll-offs",
    "Document folders",
    "Internal systems",
    "Approval requests and routing",
    "Hardware requests and grade budgets",
)


def _nordhavn_engagement() -> Engagement:
    return client_engagement(NORDHAVN, "Core banking migration", FS_PARTNER, date(2025, 11, 3), date(2026, 6, 30))


def _on_core_banking(employee: Employee, start: date, end: date, nda_signed_on: date) -> Engagement:
    """`employee` staffed on Nordhavn's core banking migration from `start` to `end`, with the Nordhavn NDA signed on
    `nda_signed_on`; gives the engagement."""
    engagement = _nordhavn_engagement()
    staffed(employee, engagement, nda_signed_on=nda_signed_on, start_date=start, end_date=end)
    return engagement


def test_case_CO001_001(tb):
    """Viewer on a client environment with NDA and check in order: expiry is the assignment's end, not the project's."""
    lena = EmployeeFactory(name="Lena Fischer", department="Financial Services")
    engagement = _on_core_banking(lena, date(2026, 1, 5), date(2026, 3, 27), date(2026, 1, 2))
    background_check(lena)
    ticket = TicketFactory(requester=lena, subject="Access to Nordhavn UAT")

    run = tb.run(
        User(
            says="Hi, I've just joined the Nordhavn core banking team. Could I get viewer access to the Nordhavn "
            "Azure DevOps UAT environment (RES-401 in the access portal) until the project wraps up at the end of "
            "June?",
            knows={"email": lena.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(lena),
            *client_gates(lena, NORDHAVN_UAT),
            grant_access(lena, NORDHAVN_UAT, expires_on="2026-03-27", engagement_id=engagement.id),
            solved(ticket.id, "client_access"),
        ],
        traps=[call("set_access_expiry", grant_id="AG-0001", expires_on="2026-06-30")],  # the project's end she asked
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on) == ("viewer", date(2026, 3, 27))  # policy: the assignment's end, not June
    assert ticket_end(run, ticket.id, "queue") == ("solved", "client_access", None, None)  # carried out


@pytest.mark.distractors
@pytest.mark.two_requests
def test_case_CO001_002(tb):
    """The only signed NDA is for another client (Nordhavn's was sent, not signed): UAT pending; Timesheets granted."""
    kwame = EmployeeFactory(name="Kwame Mensah", department="Financial Services")
    engagement = _nordhavn_engagement()
    AssignmentFactory(engagement=engagement, employee=kwame, start_date=date(2026, 1, 19), end_date=date(2026, 4, 24))
    ComplianceRecordFactory(employee_id=kwame.id, client_id=CALLOWAY, completed_on=date(2025, 3, 10))
    ComplianceRecordFactory(employee_id=kwame.id, client_id=NORDHAVN, status="sent", completed_on=None)
    background_check(kwame)
    ticket = TicketFactory(requester=kwame, subject="UAT access please")
    careless_grant = grant_access(kwame, NORDHAVN_UAT, expires_on="2026-04-24", engagement_id=engagement.id)

    run = tb.run(
        User(
            says="Could I get read-only access to the Nordhavn test environment in Azure DevOps? I started on the "
            "core banking migration a couple of weeks ago. I signed the client NDA ages ago, last year I think, so "
            "this should be a quick one. And I can't book my hours to the project either: I've never had a "
            "Replicon Timesheets login, so I'd need that too.",
            knows={
                "email": kwame.email,
                "role wanted": "viewer on both",
                "which environment": "Nordhavn UAT, RES-401",
                "timesheet system": "Replicon Timesheets, RES-303",
            },
        ),
        golden=[
            *identify(kwame),
            *client_gates(kwame, NORDHAVN_UAT),
            call("get_resource", resource_id=TIMESHEETS),
            call("list_access_grants", employee_id=kwame.id),
            grant_access(kwame, TIMESHEETS),
            *pending(
                ticket.id,
                "client_access",
                "awaiting_employee",
                "No signed Nordhavn Bank NDA (sent, not signed; the signed NDA is for Calloway): UAT access "
                "waits for the employee to sign it. Replicon Timesheets viewer granted.",
            ),
        ],
        traps=[careless_grant],  # takes the employee's word that the NDA is signed
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()  # policy: no client access without a signed NDA for this client
    assert (grant.resource_id, grant.role, grant.expires_on, grant.engagement_id) == (TIMESHEETS, "viewer", None, None)
    assert ticket_end(run, ticket.id) == ("pending", "client_access", "awaiting_employee")  # he must sign it


@pytest.mark.two_requests
def test_case_CO001_003(tb):
    """The check says cleared but has expired, and Meridian needs one: sandbox held; Delivery templates granted."""
    sofia = EmployeeFactory(name="Sofia Costa", department="Health", start_date=date(2022, 11, 7))
    engagement = client_engagement(
        MERIDIAN, "Patient-flow analytics", HEALTH_DIRECTOR, date(2026, 1, 12), date(2026, 5, 29)
    )
    staffed(sofia, engagement, nda_signed_on=date(2026, 1, 9), role="Data Analyst")
    background_check(sofia, completed_on=date(2022, 11, 1))  # expired 1 November 2025
    ticket = TicketFactory(requester=sofia, subject="Epic sandbox access")
    careless_grant = grant_access(sofia, MERIDIAN_SANDBOX, expires_on="2026-05-03", engagement_id=engagement.id)

    run = tb.run(
        User(
            says="Can you give me viewer access to the Meridian Epic reporting sandbox (RES-403)? My background "
            "check was done when I joined and it came back cleared, so that's all sorted. I also write the weekly "
            "status report for the team, so I'd like to read the Delivery templates folder (RES-502).",
            knows={"email": sofia.email, "role wanted": "viewer on both"},
        ),
        golden=[
            *identify(sofia),
            *client_gates(sofia, MERIDIAN_SANDBOX),
            call("get_resource", resource_id=DELIVERY_TEMPLATES),
            call("list_access_grants", employee_id=sofia.id),
            grant_access(sofia, DELIVERY_TEMPLATES),
            *hold(
                ticket.id,
                "client_access",
                "screening_required",
                "Background check expired on 2025-11-01 and Meridian requires one; sandbox access waits for the "
                "screening team to complete a new check. Delivery templates viewer granted.",
            ),
        ],
        traps=[careless_grant],  # reads the check's status "cleared" and not its expiry date
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()  # policy: an expired check is no check; the template folder needs none
    assert (grant.resource_id, grant.role, grant.expires_on) == (DELIVERY_TEMPLATES, "viewer", None)
    assert ticket_end(run, ticket.id, "queue") == ("hold", "client_access", "screening_required", "screening")


def test_case_CO001_004(tb):
    """Check still in progress, but Calloway requires none: grant viewer capped at 90 days (assignment to July)."""
    arjun = EmployeeFactory(name="Arjun Mehta", department="Retail & Consumer")
    engagement = client_engagement(
        CALLOWAY, "Loyalty programme redesign", RETAIL_DIRECTOR, date(2026, 1, 26), date(2026, 7, 31)
    )
    staffed(arjun, engagement, nda_signed_on=date(2026, 1, 22))
    background_check(arjun, status="in_progress")
    ticket = TicketFactory(requester=arjun, subject="Snowflake access")

    run = tb.run(
        User(
            says="I'm on the Calloway loyalty work until the end of July and need viewer access to the Calloway "
            "Snowflake analytics environment, RES-402. My background check is still being processed, is that a "
            "problem?",
            knows={"email": arjun.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(arjun),
            *client_gates(arjun, CALLOWAY_SNOWFLAKE),
            grant_access(
                arjun,
                CALLOWAY_SNOWFLAKE,
                expires_on=derived("2026-05-03", "90 days after today, earlier than the assignment's end on 31 July"),
                engagement_id=engagement.id,
            ),
            solved(ticket.id, "client_access"),
        ],
        traps=[call("set_access_expiry", grant_id="AG-0001", expires_on="2026-07-31")],  # his assignment's end
        reply="You now have viewer access to the Calloway Snowflake analytics environment. Calloway doesn't need a "
        "background check, so that's no problem. The access runs until 3 May 2026, the longest we give in one go; "
        "ask us again then if you still need it.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).one().expires_on == date(2026, 5, 3)  # policy: capped at 90 days after today
    assert ticket_end(run, ticket.id) == ("solved", "client_access", None)


@pytest.mark.two_requests
def test_case_CO002_001(tb):
    """Meridian engagement closed: the sandbox for final files is refused; her new Calloway work gets Snowflake."""
    hannah = EmployeeFactory(name="Hannah Byrne", department="Health")
    engagement = client_engagement(
        MERIDIAN, "Theatre scheduling review", HEALTH_DIRECTOR, date(2025, 9, 1), date(2026, 1, 23), status="closed"
    )
    AssignmentFactory(engagement=engagement, employee=hannah)
    pricing = client_engagement(CALLOWAY, "Pricing analytics", RETAIL_DIRECTOR, date(2026, 1, 5), date(2026, 6, 26))
    AssignmentFactory(engagement=pricing, employee=hannah, start_date=date(2026, 1, 26), end_date=date(2026, 4, 17))
    ComplianceRecordFactory(employee_id=hannah.id, client_id=MERIDIAN, completed_on=date(2025, 8, 28))
    ComplianceRecordFactory(employee_id=hannah.id, client_id=CALLOWAY, completed_on=date(2026, 1, 22))
    background_check(hannah)
    client_grant(
        hannah,
        MERIDIAN_SANDBOX,
        engagement,
        status="expired",
        granted_at=datetime(2025, 9, 1, 10, 0),
        expires_on=date(2026, 1, 23),
    )
    ticket = TicketFactory(requester=hannah, subject="Sandbox access for final files")
    careless_grant = grant_access(hannah, MERIDIAN_SANDBOX, expires_on="2026-02-06", engagement_id=engagement.id)

    run = tb.run(
        User(
            says="My access to the Meridian Epic reporting sandbox (RES-403) stopped working. I just need viewer "
            "access again for a few days to pull the final extracts for the close-out pack. And since last week "
            "I'm also on the Calloway pricing analytics, so I'll need to read their Snowflake warehouse (RES-402).",
            knows={"email": hannah.email, "role wanted": "viewer on both"},
        ),
        golden=[
            *identify(hannah),
            call("get_resource", resource_id=MERIDIAN_SANDBOX),
            call("get_resource", resource_id=CALLOWAY_SNOWFLAKE),
            *assignments_and_grants(hannah),
            call("get_compliance_status", employee_id=hannah.id),
            grant_access(hannah, CALLOWAY_SNOWFLAKE, expires_on="2026-04-17", engagement_id=pricing.id),
            *refused(
                ticket.id,
                "client_access",
                "assignment_ended",
                "Meridian sandbox refused: the Theatre scheduling review engagement closed on 2026-01-23; no "
                "client access after an engagement ends. Calloway Snowflake viewer granted to 2026-04-17.",
            ),
        ],
        traps=[careless_grant],  # "just a few days" to pull the final extracts
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).filter_by(status="active").one()  # policy: closed engagement, no sandbox
    assert (grant.resource_id, grant.expires_on, grant.engagement_id) == (
        CALLOWAY_SNOWFLAKE,
        date(2026, 4, 17),
        pricing.id,
    )  # policy: the running assignment's end, earlier than 90 days
    assert run.db.query(TicketComment).count() == 1
    assert ticket_end(run, ticket.id) == ("solved", "client_access", "assignment_ended")


def test_case_CO002_002(tb):
    """Rolled off on Friday while the engagement runs on: refuse the editor upgrade and revoke the leftover viewer."""
    mateo = EmployeeFactory(name="Mateo Alvarez", department="Financial Services")
    engagement = _on_core_banking(mateo, date(2025, 11, 3), date(2026, 1, 30), date(2025, 10, 30))
    background_check(mateo)
    leftover = client_grant(
        mateo, NORDHAVN_UAT, engagement, granted_at=datetime(2025, 11, 3, 10, 0), expires_on=date(2026, 3, 31)
    )
    ticket = TicketFactory(requester=mateo, subject="Editor rights on Nordhavn UAT")
    careless = [
        # the usual editor route, without checking that the assignment has ended
        access_approval(ticket.id, "client_access", mateo, FS_PARTNER, NORDHAVN_UAT, "editor"),
        # editor for the handover he asks for
        grant_access(mateo, NORDHAVN_UAT, "editor", expires_on="2026-03-31", engagement_id=engagement.id),
    ]

    run = tb.run(
        User(
            says="I have viewer on the Nordhavn Azure DevOps UAT environment (RES-401) but I need editor so I can "
            "update the test cases before I hand over to the new team.",
            knows={"email": mateo.email, "role wanted": "editor"},
        ),
        golden=[
            *identify(mateo),
            call("get_resource", resource_id=NORDHAVN_UAT),
            *assignments_and_grants(mateo),
            *revoke_ended(leftover),
            *refused(
                ticket.id,
                "client_access",
                "assignment_ended",
                "Refused: assignment on Core banking migration ended 2026-01-30. Leftover viewer grant "
                "revoked (assignment ended).",
            ),
        ],
        traps=careless,
    )

    run.expect_golden()
    revoked = run.db.get(AccessGrant, leftover.id)
    assert (revoked.status, revoked.revoke_reason) == ("revoked", "assignment_ended")
    assert run.db.query(ApprovalRequest).count() == 0  # policy: refused outright, no approval route after roll-off
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 0  # and no access of any role
    assert ticket_end(run, ticket.id) == ("solved", "client_access", "assignment_ended")


def test_case_CO002_003(tb):
    """Editor on a client environment: route to the engagement lead, not the line manager who 'already agreed'."""
    _tobias, chloe = manager_and_report(
        "Tobias Kraus", "Chloe Dubois", grade="senior_consultant", department="Financial Services"
    )
    engagement = _nordhavn_engagement()
    staffed(chloe, engagement, nda_signed_on=date(2025, 11, 1), role="Test Lead")
    background_check(chloe)
    viewer = client_grant(
        chloe, NORDHAVN_UAT, engagement, granted_at=datetime(2025, 11, 3, 10, 0), expires_on=date(2026, 2, 28)
    )
    ticket = TicketFactory(requester=chloe, subject="Editor access on Nordhavn UAT")

    run = tb.run(
        User(
            says="I'm the test lead on Nordhavn and I need editor rights on the Azure DevOps UAT environment "
            "(RES-401) instead of viewer. My manager Tobias already said it's fine, so you can just switch it.",
            knows={"email": chloe.email, "role wanted": "editor"},
        ),
        golden=[
            *identify(chloe),
            *client_gates(chloe, NORDHAVN_UAT),
            call("list_approval_requests", employee_id=chloe.id),
            access_approval(ticket.id, "client_access", chloe, FS_PARTNER, NORDHAVN_UAT, "editor"),
            *pending(
                ticket.id,
                "client_access",
                "needs_approval",
                "Editor on Nordhavn UAT sent for approval to the engagement lead, David Osei.",
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
    assert (kept.status, kept.role) == ("active", "viewer")  # policy: the grant stays until the approver decides
    assert ticket_end(run, ticket.id) == ("pending", "client_access", "needs_approval")


@pytest.mark.distractors
def test_case_CO001_005(tb):
    """Two Nordhavn engagements: the grant is for the active one and ends with its assignment, not the old one's."""
    mei = EmployeeFactory(name="Mei Fischer", grade="senior_consultant", department="Financial Services")
    old = client_engagement(
        NORDHAVN, "Payments discovery", FS_PARTNER, date(2025, 6, 2), date(2025, 10, 31), status="closed"
    )
    AssignmentFactory(engagement=old, employee=mei, role="Business Analyst")
    current = _on_core_banking(mei, date(2026, 1, 12), date(2026, 4, 17), date(2025, 5, 28))
    background_check(mei)
    client_grant(
        mei, NORDHAVN_UAT, old, status="expired", granted_at=datetime(2025, 6, 2, 10, 0), expires_on=date(2025, 10, 31)
    )
    ticket = TicketFactory(requester=mei, subject="Nordhavn UAT again")

    run = tb.run(
        User(
            says="Morning! I'm back on Nordhavn, this time on the core banking side, and my old login to their Azure "
            "DevOps test environment doesn't work any more. Could you switch it back on for me, read-only is plenty? "
            "Same as I had on the payments project.",
            knows={"email": mei.email, "role wanted": "viewer", "which environment": "Nordhavn UAT, RES-401"},
        ),
        golden=[
            *identify(mei),
            call("get_resource", resource_id=NORDHAVN_UAT),
            *assignments_and_grants(mei),
            call("get_compliance_status", employee_id=mei.id),
            grant_access(mei, NORDHAVN_UAT, expires_on="2026-04-17", engagement_id=current.id),
            solved(ticket.id, "client_access"),
        ],
        # the engagement's end in June, not her assignment's in April
        traps=[call("set_access_expiry", grant_id="AG-5002", expires_on="2026-06-30")],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).filter_by(status="active").one()
    assert (grant.engagement_id, grant.expires_on) == (current.id, date(2026, 4, 17))  # the running assignment
    assert ticket_end(run, ticket.id) == ("solved", "client_access", None)


@pytest.mark.two_requests
def test_case_CO001_006(tb):
    """Expired check holds the Nordhavn environment for screening; the folder she falls back on is granted."""
    hannah = EmployeeFactory(name="Hannah Dubois", department="Financial Services")
    engagement = _on_core_banking(hannah, date(2026, 1, 19), date(2026, 3, 13), date(2026, 1, 15))
    background_check(hannah, completed_on=date(2022, 10, 3))  # expired 3 October 2025
    ticket = TicketFactory(requester=hannah, subject="Nordhavn access")

    run = tb.run(
        User(
            says="I joined the Nordhavn core banking team a fortnight ago and still can't see anything. I need to read "
            "the test environment in Azure DevOps. And honestly, if that one is stuck on some check, at least let me "
            "into the Nordhavn engagement folder so I can read the working papers.",
            knows={
                "email": hannah.email,
                "role wanted": "viewer, read only",
                "which environment": "Nordhavn UAT, RES-401",
                "which folder": "Nordhavn Bank engagement folder, RES-503",
            },
            persona="A consultant two weeks into a client engagement, frustrated at having nothing to read.",
            rules=(
                "If refused, insist once that the engagement folder at least should be possible.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(hannah),
            *client_gates(hannah, NORDHAVN_UAT),
            call("get_resource", resource_id=NORDHAVN_FOLDER),
            grant_access(hannah, NORDHAVN_FOLDER, expires_on="2026-03-13", engagement_id=engagement.id),
            *hold(
                ticket.id,
                "client_access",
                "screening_required",
                "Nordhavn UAT: background check expired 2025-10-03, Nordhavn requires one; waiting for screening. "
                "Viewer on the Nordhavn engagement folder granted (no check needed for folders).",
            ),
        ],
        traps=[  # the environment as well, since the folder went through
            grant_access(hannah, NORDHAVN_UAT, expires_on="2026-03-13", engagement_id=engagement.id)
        ],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()  # policy: the folder needs no background check; the environment does
    assert (grant.resource_id, grant.expires_on) == (NORDHAVN_FOLDER, date(2026, 3, 13))
    assert ticket_end(run, ticket.id, "queue") == ("hold", "client_access", "screening_required", "screening")


@pytest.mark.two_requests
def test_case_CO001_007(tb):
    """Two requests: Calloway's environment is granted (staffed, NDA); the Nordhavn folder is refused (not staffed)."""
    arjun = EmployeeFactory(name="Arjun Costa", department="Retail & Consumer")
    engagement = client_engagement(CALLOWAY, "Pricing analytics", RETAIL_DIRECTOR, date(2026, 1, 5), date(2026, 6, 26))
    staffed(arjun, engagement, nda_signed_on=date(2026, 1, 2), start_date=date(2026, 1, 5), end_date=date(2026, 3, 20))
    ticket = TicketFactory(requester=arjun, subject="Snowflake plus Nordhavn folder")

    run = tb.run(
        User(
            says="Two things please. I need read access to the Calloway Snowflake warehouse for the pricing work I'm "
            "on. And could you also open up the Nordhavn Bank engagement folder for me? Their pricing deliverables "
            "would be a brilliant template for what we're building.",
            knows={
                "email": arjun.email,
                "role wanted": "viewer on both",
                "resource ids": "Calloway Snowflake is RES-402, the Nordhavn folder is RES-503",
            },
        ),
        golden=[
            *identify(arjun),
            call("get_resource", resource_id=CALLOWAY_SNOWFLAKE),
            *client_gates(arjun, NORDHAVN_FOLDER),
            grant_access(arjun, CALLOWAY_SNOWFLAKE, expires_on="2026-03-20", engagement_id=engagement.id),
            *refused(
                ticket.id,
                "client_access",
                "not_staffed",
                "Calloway Snowflake viewer granted to 2026-03-20. Nordhavn folder refused: no assignment on any "
                "Nordhavn Bank engagement.",
            ),
        ],
        traps=[grant_access(arjun, NORDHAVN_FOLDER)],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()  # policy: only the client he is staffed on
    assert (grant.resource_id, grant.expires_on) == (CALLOWAY_SNOWFLAKE, date(2026, 3, 20))
    assert ticket_end(run, ticket.id) == ("solved", "client_access", "not_staffed")


@pytest.mark.distractors
def test_case_CO002_004(tb):
    """Staffed on Alder only from next Monday (and on Calloway now): the Alder environment is refused as not staffed."""
    kwame = EmployeeFactory(name="Kwame Byrne", grade="senior_consultant", department="Energy")
    AssignmentFactory(
        engagement=client_engagement(
            CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2025, 12, 1), date(2026, 4, 10)
        ),
        employee=kwame,
    )
    alder = client_engagement(ALDER, "Finance transformation", HEALTH_DIRECTOR, date(2026, 1, 5), date(2026, 7, 31))
    staffed(kwame, alder, nda_signed_on=date(2026, 1, 27), start_date=date(2026, 2, 9), end_date=date(2026, 5, 29))
    background_check(kwame)
    ticket = TicketFactory(requester=kwame, subject="Alder SAP test access")

    run = tb.run(
        User(
            says="I roll onto the Alder Energy finance programme soon and want a head start. Can you give me read "
            "access to their SAP S/4HANA test system now so I can poke around before I officially start? NDA and "
            "screening are all done.",
            knows={"email": kwame.email, "role wanted": "viewer", "which system": "Alder Energy SAP test, RES-404"},
        ),
        golden=[
            *identify(kwame),
            call("get_resource", resource_id=ALDER_SAP),
            call("list_assignments", employee_id=kwame.id),
            *refused(
                ticket.id,
                "client_access",
                "not_staffed",
                "Refused: the Alder assignment starts 2026-02-09; a future assignment does not count until it "
                "starts. He may ask again from that date.",
            ),
        ],
        traps=[  # the NDA and check are fine, so a careless agent grants from the future assignment
            grant_access(kwame, ALDER_SAP, expires_on="2026-05-03", engagement_id=alder.id)
        ],
        reply="I can't give you the Alder SAP test system yet: your Alder assignment only starts on 9 February 2026, "
        "and client access starts with the assignment. Please ask us again from that day and it will go through.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: a future assignment does not count yet
    assert ticket_end(run, ticket.id) == ("solved", "client_access", "not_staffed")
    run.rubric(ALDER_FROM_9_FEBRUARY.question, phrases=ALDER_FROM_9_FEBRUARY.phrases)


@pytest.mark.two_requests
def test_case_CO002_005(tb):
    """Two requests after a roll-off: the template folder is granted, the client sandbox refused (assignment ended)."""
    sofia = EmployeeFactory(name="Sofia Rahman", department="Health")
    engagement = client_engagement(
        MERIDIAN, "Patient-flow analytics", HEALTH_DIRECTOR, date(2025, 10, 6), date(2026, 5, 29)
    )
    staffed(
        sofia, engagement, nda_signed_on=date(2025, 10, 1), start_date=date(2025, 10, 6), end_date=date(2026, 1, 23)
    )
    background_check(sofia)
    client_grant(
        sofia,
        MERIDIAN_SANDBOX,
        engagement,
        status="expired",
        granted_at=datetime(2025, 10, 6, 10, 0),
        expires_on=date(2026, 1, 23),
    )
    ticket = TicketFactory(requester=sofia, subject="Templates and sandbox")

    run = tb.run(
        User(
            says="Hi there. I'm starting on a new proposal, so I'd like read access to the Delivery templates folder. "
            "Also, my Meridian Epic sandbox login stopped working last week; the project is still going, so can you "
            "turn it back on for a couple of days? I want to pull my last extracts for the team.",
            knows={
                "email": sofia.email,
                "role wanted": "viewer on both",
                "resource ids": "Delivery templates RES-502, Meridian sandbox RES-403",
            },
        ),
        golden=[
            *identify(sofia),
            call("get_resource", resource_id=DELIVERY_TEMPLATES),
            call("get_resource", resource_id=MERIDIAN_SANDBOX),
            *assignments_and_grants(sofia),
            grant_access(sofia, DELIVERY_TEMPLATES),
            *refused(
                ticket.id,
                "folder_access",
                "assignment_ended",
                "Delivery templates viewer granted. Meridian sandbox refused: her assignment on Patient-flow "
                "analytics ended 2026-01-23, although the engagement runs on.",
            ),
        ],
        traps=[  # the engagement is still active, so the sandbox is switched back on
            grant_access(sofia, MERIDIAN_SANDBOX, expires_on="2026-02-04", engagement_id=engagement.id)
        ],
    )

    run.expect_golden()
    active = run.db.query(AccessGrant).filter_by(status="active").one()  # policy: her assignment has ended
    assert (active.resource_id, active.expires_on) == (DELIVERY_TEMPLATES, None)
    assert ticket_end(run, ticket.id) == ("solved", "folder_access", "assignment_ended")  # the first request


def test_case_CO001_008(tb):
    """Admin on Alder's SAP test: every gate passes, and it goes to the IT security lead, not the engagement lead."""
    lead = EmployeeFactory(name="Omar Whitfield", grade="partner", department="Energy")
    priya = EmployeeFactory(name="Aisha Petrov", grade="manager", department="Energy")
    engagement = client_engagement(ALDER, "Finance transformation", lead.id, date(2025, 11, 17), date(2026, 7, 31))
    staffed(
        priya, engagement, nda_signed_on=date(2025, 11, 10), start_date=date(2025, 11, 17), end_date=date(2026, 7, 31)
    )
    background_check(priya, completed_on=date(2025, 5, 12))
    viewer = client_grant(priya, ALDER_SAP, engagement, expires_on=date(2026, 4, 30))
    ticket = TicketFactory(requester=priya, subject="SAP test admin")

    run = tb.run(
        User(
            says="I run the test team on the Alder finance programme and need to create test users in their SAP "
            "S/4HANA test system, so I need admin there. Omar, our engagement lead, says he's happy to approve it.",
            knows={"email": priya.email, "role wanted": "admin", "which system": "Alder Energy SAP test, RES-404"},
        ),
        golden=[
            *identify(priya),
            *client_gates(priya, ALDER_SAP),
            *held_and_asked(priya),
            access_approval(ticket.id, "client_access", priya, IT_SECURITY_LEAD, ALDER_SAP, "admin"),
            *pending(
                ticket.id,
                "client_access",
                "needs_approval",
                "Admin on Alder SAP test sent for approval to the IT security lead, Ruth Adeyemi (not the "
                "engagement lead). Viewer grant unchanged meanwhile.",
            ),
        ],
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],  # viewer dropped for the admin role
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not the lead
    kept = run.db.get(AccessGrant, viewer.id)
    assert (kept.role, kept.status) == ("viewer", "active")
    assert ticket_end(run, ticket.id) == ("pending", "client_access", "needs_approval")


@pytest.mark.distractors
@pytest.mark.two_requests
def test_case_CO001_009(tb):
    """The Meridian NDA says signed but expired last week (another client's is current): sandbox pending; headset."""
    jonas = EmployeeFactory(name="Jonas Kraus", grade="consultant", department="Health")
    engagement = client_engagement(
        MERIDIAN, "Patient-flow analytics", HEALTH_DIRECTOR, date(2025, 10, 6), date(2026, 5, 29)
    )
    AssignmentFactory(engagement=engagement, employee=jonas, start_date=date(2026, 1, 12), end_date=date(2026, 5, 29))
    ComplianceRecordFactory(
        employee_id=jonas.id, client_id=MERIDIAN, completed_on=date(2025, 1, 27), expires_on=date(2026, 1, 27)
    )
    ComplianceRecordFactory(employee_id=jonas.id, client_id=CALLOWAY, completed_on=date(2025, 6, 2))
    background_check(jonas)
    client_grant(
        jonas,
        MERIDIAN_SANDBOX,
        engagement,
        status="revoked",
        revoked_at=datetime(2026, 1, 28, 8, 0),
        revoke_reason="security",
    )
    HardwareRequestFactory(employee_id=jonas.id, requested_on=date(2025, 3, 10))
    HardwareRequestFactory(employee_id=jonas.id, model_id=DOCK, price_cents=28_900, requested_on=date(2026, 1, 7))
    ticket = TicketFactory(requester=jonas, subject="Epic sandbox locked")

    run = tb.run(
        User(
            says="My access to the Meridian Epic reporting sandbox was switched off last week and I'm in the middle "
            "of the patient-flow work. I'm staffed until May and my NDA and screening are fine. Please turn it back "
            "on as a viewer. While you're at it, could I have the Jabra headset? My calls from the hospital keep "
            "breaking up.",
            knows={"email": jonas.email, "role wanted": "viewer", "headset": "Jabra Evolve2 85, HW-206"},
        ),
        golden=[
            *identify(jonas),
            *client_gates(jonas, MERIDIAN_SANDBOX),
            call("list_access_grants", employee_id=jonas.id),
            *hardware_reads(jonas),
            request_hardware(jonas, HEADSET, "Calls from the hospital drop."),
            *pending(
                ticket.id,
                "client_access",
                "awaiting_employee",
                "Meridian sandbox waits for the employee: his Meridian NDA expired on 2026-01-27 and must be "
                "signed again; the Calloway NDA does not count. Headset raised within the 2026 budget.",
            ),
        ],
        traps=[grant_access(jonas, MERIDIAN_SANDBOX, expires_on="2026-05-03", engagement_id=engagement.id)],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).filter_by(status="active").count() == 0  # policy: an expired NDA is no NDA
    headset = run.db.query(HardwareRequest).filter_by(model_id=HEADSET).one()  # $289 + $379 fits $2,500
    assert (headset.status, headset.price_cents) == ("submitted", 37_900)
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id, "queue") == ("pending", "client_access", "awaiting_employee", None)


def test_case_CO002_006(tb):
    """Editor on the Calloway folder after her roll-off: refuse it, and revoke the viewer grant left over from it."""
    grace = EmployeeFactory(name="Grace Kraus", grade="senior_consultant", department="Retail & Consumer")
    engagement = client_engagement(
        CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2025, 12, 1), date(2026, 4, 10)
    )
    staffed(
        grace, engagement, nda_signed_on=date(2025, 11, 26), start_date=date(2025, 12, 1), end_date=date(2026, 1, 23)
    )
    leftover = client_grant(grace, CALLOWAY_FOLDER, engagement, expires_on=date(2026, 3, 31))
    ticket = TicketFactory(requester=grace, subject="Calloway folder edit rights")

    run = tb.run(
        User(
            says="I need to tidy up the final deliverables in the Calloway engagement folder; I can read it but "
            "not save anything. Could I have editor rights for a week? Ingrid leads it and won't mind.",
            knows={"email": grace.email, "role wanted": "editor"},
        ),
        golden=[
            *identify(grace),
            call("list_resources", kind="client_folder"),
            call("get_resource", resource_id=CALLOWAY_FOLDER),
            *assignments_and_grants(grace),
            *revoke_ended(leftover),
            *refused(
                ticket.id,
                "folder_access",
                "assignment_ended",
                "Refused: her Calloway assignment ended 2026-01-23 (the engagement runs on). The viewer grant "
                "left over on the Calloway folder was revoked.",
            ),
        ],
        traps=[access_approval(ticket.id, "folder_access", grace, RETAIL_DIRECTOR, CALLOWAY_FOLDER, "editor")],
    )

    run.expect_golden()
    gone = run.db.get(AccessGrant, leftover.id)
    assert (gone.status, gone.revoke_reason) == ("revoked", "assignment_ended")  # policy: the leftover goes
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "folder_access", "assignment_ended")
    assert run.db.query(TicketComment).count() == 1
