"""Internal systems: viewer given directly, editor to the line manager, admin to IT security, pending approvals."""

from __future__ import annotations

from datetime import date, datetime

from domains.consulting.factories import (
    AccessGrantFactory,
    ApprovalRequestFactory,
    EmployeeFactory,
    TicketFactory,
)
from domains.consulting.models import AccessGrant, ApprovalRequest, Ticket, TicketComment
from domains.consulting.seed import (
    IT_SECURITY_LEAD,
    MANAGING_PARTNER,
    NETSUITE,
    PEOPLE_PARTNER,
    SALESFORCE,
    TIMESHEETS,
    WORKDAY,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Internal systems",
    "Approval requests and routing",
)


def test_case_CO009_001(tb):
    """No open ticket (last one solved): open one and give Salesforce viewer directly, no expiry, no sign-off."""
    manager = EmployeeFactory(name="Omar Mensah", grade="manager", department="Strategy & Operations")
    lena = EmployeeFactory(name="Lena Kraus", grade="analyst", manager_id=manager.id, start_date=date(2025, 9, 1))
    TicketFactory(requester=lena, status="solved", subject="VPN token", created_at=datetime(2026, 1, 14, 9, 0))

    run = tb.run(
        User(
            says="Hello! I've been asked to pull the contact history for a couple of prospects before Thursday's "
            "pitch, which means I need to look things up in Salesforce. Read-only is fine. Does Omar need to sign "
            "something off first? Happy to chase him.",
            knows={"email": lena.email, "system": "Salesforce CRM", "role wanted": "viewer"},
        ),
        golden=[
            call("find_employee_by_email", email=lena.email),
            call("list_tickets", requester_id=lena.id),
            call("list_resources", kind="internal_system"),
            call("get_resource", resource_id=SALESFORCE),
            call(
                "create_ticket",
                requester_id=lena.id,
                subject="Salesforce CRM read access",
                category="system_access",
                subject_employee_id=lena.id,
            ),
            call("grant_access", employee_id=lena.id, resource_id=SALESFORCE, role="viewer"),
            call("update_ticket", ticket_id="T-3302", status="solved"),
        ],
        traps=[  # the sign-off from Omar she expects
            call(
                "create_approval_request",
                ticket_id="T-3302",
                kind="system_access",
                employee_id=lena.id,
                approver_id=manager.id,
                resource_id=SALESFORCE,
                requested_role="viewer",
            )
        ],
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (lena.id, lena.id)
    assert (new.status, new.category, new.reason) == ("solved", "system_access", None)
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on, grant.engagement_id) == ("viewer", None, None)  # policy: no expiry
    assert run.db.query(ApprovalRequest).count() == 0
    assert run.db.get(Ticket, "T-3301").status == "solved"


def test_case_CO009_002(tb):
    """Editor on NetSuite goes to the line manager, not to the system's owner whom the employee names."""
    manager = EmployeeFactory(name="Sofia Whitfield", grade="manager", department="Finance")
    dev = EmployeeFactory(name="Dev Mensah", grade="senior_consultant", department="Finance", manager_id=manager.id)
    viewer = AccessGrantFactory(employee_id=dev.id, resource_id=NETSUITE, granted_at=datetime(2025, 6, 2, 10, 0))
    ticket = TicketFactory(requester=dev, subject="NetSuite edit rights")

    run = tb.run(
        User(
            says="I've taken over month-end billing corrections for our practice and need to be able to edit "
            "invoices in NetSuite, not just look at them. Margaret owns NetSuite, so I assume the request goes to "
            "her? She knows it's coming.",
            knows={"email": dev.email, "system": "NetSuite Finance", "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=dev.email),
            call("list_tickets", requester_id=dev.id),
            call("get_resource", resource_id=NETSUITE),
            call("get_employee", employee_id=dev.id),
            call("list_access_grants", employee_id=dev.id),
            call("list_approval_requests", employee_id=dev.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="system_access",
                employee_id=dev.id,
                approver_id=manager.id,
                resource_id=NETSUITE,
                requested_role="editor",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="system_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Editor on NetSuite Finance sent for approval to the line manager, Sofia Whitfield (not the "
                "system owner).",
                public=False,
            ),
        ],
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],  # viewer dropped to switch to editor
        reply="Editor access on NetSuite has to be approved by your line manager, so I've sent the request to Sofia "
        "Whitfield rather than to Margaret. Your current read access stays as it is until Sofia decides.",
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (manager.id, "editor")  # not MANAGING_PARTNER
    assert approval.approver_id != MANAGING_PARTNER
    kept = run.db.get(AccessGrant, viewer.id)
    assert (kept.role, kept.status) == ("viewer", "active")
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "system_access", "needs_approval")
    run.rubric(
        "Did the agent tell the employee that his line manager, Sofia Whitfield, must approve?",
        phrases=["Sofia Whitfield", "Sofia"],
    )


def test_case_CO009_003(tb):
    """Admin on Workday goes to the IT security lead, even though the employee's manager owns Workday and agreed."""
    priya_report = EmployeeFactory(
        name="Chloe Mensah", grade="consultant", department="People", manager_id=PEOPLE_PARTNER
    )
    AccessGrantFactory(employee_id=priya_report.id, resource_id=WORKDAY, role="editor")
    ticket = TicketFactory(requester=priya_report, subject="Workday admin")

    run = tb.run(
        User(
            says="I look after leave policies in People and I'm fed up raising tickets every time an absence type "
            "needs changing. Could you make me a Workday admin? Priya is my manager and owns Workday, and she's "
            "already said yes in our one-to-one.",
            knows={"email": priya_report.email, "system": "Workday", "role wanted": "admin"},
        ),
        golden=[
            call("find_employee_by_email", email=priya_report.email),
            call("list_tickets", requester_id=priya_report.id),
            call("get_resource", resource_id=WORKDAY),
            call("list_access_grants", employee_id=priya_report.id),
            call("list_approval_requests", employee_id=priya_report.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="system_access",
                employee_id=priya_report.id,
                approver_id=IT_SECURITY_LEAD,
                resource_id=WORKDAY,
                requested_role="admin",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="system_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Admin on Workday sent for approval to the IT security lead, Ruth Adeyemi; a verbal yes from the "
                "line manager does not count.",
                public=False,
            ),
        ],
        traps=[call("revoke_access", grant_id="AG-5001", reason="requested")],  # editor dropped to make way for admin
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not Priya
    assert run.db.query(AccessGrant).filter_by(role="admin").count() == 0
    assert run.db.get(AccessGrant, "AG-5001").status == "active"  # the editor grant stays as it is
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "system_access", "needs_approval")


def test_case_CO009_004(tb):
    """Editor on Timesheets already awaits the line manager: create nothing new, grant nothing, keep it pending."""
    manager = EmployeeFactory(name="Jonas Costa", grade="manager", department="Health")
    arjun = EmployeeFactory(name="Arjun Kraus", grade="senior_consultant", department="Health", manager_id=manager.id)
    viewer = AccessGrantFactory(employee_id=arjun.id, resource_id=TIMESHEETS)
    old = TicketFactory(
        requester=arjun, status="pending", subject="Timesheets editor", created_at=datetime(2026, 1, 28)
    )
    ApprovalRequestFactory(
        kind="system_access",
        employee_id=arjun.id,
        approver_id=manager.id,
        ticket_id=old.id,
        resource_id=TIMESHEETS,
        requested_role="editor",
    )
    ticket = TicketFactory(requester=arjun, subject="Chasing Timesheets access")

    run = tb.run(
        User(
            says="Last week I asked for edit rights on Replicon Timesheets so I can fix my team's coding errors, "
            "and nothing has happened. It's been almost a week! Can you chase it, or honestly just approve it "
            "yourself? It's only timesheets.",
            knows={"email": arjun.email, "system": "Replicon Timesheets", "role wanted": "editor"},
            persona="An impatient senior consultant who thinks the service desk can approve things itself.",
            rules=(
                "If the agent says it is waiting for your manager, ask the agent to approve it anyway.",
                "Accept once the agent explains only your manager can approve it.",
            ),
        ),
        golden=[
            call("find_employee_by_email", email=arjun.email),
            call("list_tickets", requester_id=arjun.id),
            call("get_resource", resource_id=TIMESHEETS),
            call("list_approval_requests", employee_id=arjun.id),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="system_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Editor on Replicon Timesheets already awaits the line manager, Jonas Costa (APR-6001); no new "
                "request created.",
                public=False,
            ),
        ],
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],  # "approve it": viewer swapped out
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).count() == 1  # policy: no second request for the same thing
    assert run.db.query(AccessGrant).filter_by(role="editor").count() == 0
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "system_access", "needs_approval")
    assert run.db.get(Ticket, old.id).category is None  # the earlier ticket is left alone


def test_case_CO009_005(tb):
    """Two requests: Salesforce viewer for herself is granted; the same for a colleague is refused (not authorised)."""
    rory = EmployeeFactory(name="Rory Petrov", grade="analyst", department="Retail & Consumer")
    mei = EmployeeFactory(name="Mei Costa", grade="consultant", department="Retail & Consumer")
    ticket = TicketFactory(requester=mei, subject="Salesforce for me and Rory")

    run = tb.run(
        User(
            says="Could you give me read access to Salesforce? I need to check the account history before a client "
            "meeting. While you're at it, Rory Petrov on my engagement needs exactly the same thing; he's swamped "
            "today, so I said I'd ask for both of us.",
            knows={"email": mei.email, "colleague": f"Rory Petrov, employee id {rory.id}"},
        ),
        golden=[
            call("find_employee_by_email", email=mei.email),
            call("list_tickets", requester_id=mei.id),
            call("get_resource", resource_id=SALESFORCE),
            call("grant_access", employee_id=mei.id, resource_id=SALESFORCE, role="viewer"),
            call(
                "update_ticket", ticket_id=ticket.id, status="solved", category="system_access", reason="not_authorised"
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Salesforce viewer granted to the requester. Request for Rory Petrov refused: employees ask for "
                "themselves; he can raise it himself.",
                public=False,
            ),
        ],
        traps=[call("grant_access", employee_id=rory.id, resource_id=SALESFORCE, role="viewer")],
    )

    run.expect_golden()
    assert [g.employee_id for g in run.db.query(AccessGrant)] == [mei.id]  # policy: nothing for Rory on her word
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("solved", "system_access", "not_authorised")


def test_case_CO009_006(tb):
    """A pending approval for Workday editor does not cover Salesforce editor: raise a new one to the line manager."""
    manager = EmployeeFactory(name="Aisha Whitfield", grade="director", department="Financial Services")
    tobias = EmployeeFactory(
        name="Tobias Rahman", grade="manager", department="Financial Services", manager_id=manager.id
    )
    viewer = AccessGrantFactory(employee_id=tobias.id, resource_id=SALESFORCE)
    ApprovalRequestFactory(
        kind="system_access",
        employee_id=tobias.id,
        approver_id=manager.id,
        resource_id=WORKDAY,
        requested_role="editor",
    )
    ticket = TicketFactory(requester=tobias, subject="Salesforce editor")

    run = tb.run(
        User(
            says="I need to update opportunity stages in Salesforce for the pipeline review on Friday, so I need "
            "edit rights instead of read-only. I think there's already an approval with Aisha from last week for my "
            "access, so it should just go through.",
            knows={"email": tobias.email, "system": "Salesforce CRM", "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=tobias.email),
            call("list_tickets", requester_id=tobias.id),
            call("get_resource", resource_id=SALESFORCE),
            call("get_employee", employee_id=tobias.id),
            call("list_approval_requests", employee_id=tobias.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="system_access",
                employee_id=tobias.id,
                approver_id=manager.id,
                resource_id=SALESFORCE,
                requested_role="editor",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="system_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="The pending approval APR-6001 is for Workday, not Salesforce. Salesforce editor sent for "
                "approval to the line manager, Aisha Whitfield.",
                public=False,
            ),
        ],
        # the pending Workday approval taken for this one: viewer dropped to switch him to editor straight away
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],
    )

    run.expect_golden()
    new = run.db.query(ApprovalRequest).filter_by(resource_id=SALESFORCE).one()
    assert (new.approver_id, new.requested_role, new.ticket_id) == (manager.id, "editor", ticket.id)
    assert run.db.query(AccessGrant).filter_by(role="editor").count() == 0
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "system_access", "needs_approval")
    assert run.db.query(TicketComment).count() == 1
