"""Document folders: template folders (viewer free, editor to the owner) and client folders (staffing, lead)."""

from __future__ import annotations

from datetime import date

from domains.consulting.factories import (
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    EngagementFactory,
    TicketFactory,
)
from domains.consulting.models import AccessGrant, ApprovalRequest, Ticket, TicketComment
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_FOLDER,
    DELIVERY_TEMPLATES,
    IT_SECURITY_LEAD,
    KNOWLEDGE_MANAGER,
    NORDHAVN_FOLDER,
    PROPOSAL_TEMPLATES,
    RETAIL_DIRECTOR,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Client environments",
    "Document folders",
    "Approval requests and routing",
)


def _calloway_engagement():
    return EngagementFactory(
        client_id=CALLOWAY,
        name="Store operating model",
        lead_id=RETAIL_DIRECTOR,
        start_date=date(2025, 12, 1),
        end_date=date(2026, 4, 10),
    )


def test_case_CO003_001(tb):
    """Viewer on a template folder needs no approval, even though the analyst expects one: grant it, no expiry."""
    manager = EmployeeFactory(name="Jonas Rahman", grade="manager")
    rory = EmployeeFactory(name="Rory Gallagher", grade="analyst", manager_id=manager.id, start_date=date(2026, 1, 12))
    ticket = TicketFactory(requester=rory, subject="Proposal templates folder")

    run = tb.run(
        User(
            says="Hi, I started a few weeks ago and I'd like read access to the Proposal templates folder (RES-501). "
            "I assume my manager Jonas has to sign this off first? Happy to wait.",
            knows={"email": rory.email, "role wanted": "viewer, read only"},
        ),
        golden=[
            call("find_employee_by_email", email=rory.email),
            call("list_tickets", requester_id=rory.id),
            call("get_resource", resource_id=PROPOSAL_TEMPLATES),
            call("grant_access", employee_id=rory.id, resource_id=PROPOSAL_TEMPLATES, role="viewer"),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="folder_access"),
        ],
        traps=[  # the sign-off from Jonas he expects
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="folder_access",
                employee_id=rory.id,
                approver_id=manager.id,
                resource_id=PROPOSAL_TEMPLATES,
                requested_role="viewer",
            )
        ],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on) == ("viewer", None)
    assert run.db.query(ApprovalRequest).count() == 0  # policy: template viewer needs no approval
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("solved", "folder_access", None)  # carried out, not "approved"
    assert run.db.query(TicketComment).count() == 0


def test_case_CO003_002(tb):
    """Editor on a template folder: approval goes to the folder owner, not to the employee's line manager."""
    manager = EmployeeFactory(name="Aisha Kraus", grade="manager")
    mei = EmployeeFactory(name="Mei Byrne", grade="senior_consultant", manager_id=manager.id)
    ticket = TicketFactory(requester=mei, subject="Edit rights on delivery templates")

    run = tb.run(
        User(
            says="I've rebuilt the steering-committee pack template and want to upload it. Can I get editor access "
            "to the Delivery templates folder, RES-502? My manager Aisha is happy for me to do it.",
            knows={"email": mei.email, "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=mei.email),
            call("list_tickets", requester_id=mei.id),
            call("get_resource", resource_id=DELIVERY_TEMPLATES),
            call("list_approval_requests", employee_id=mei.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="folder_access",
                employee_id=mei.id,
                approver_id=KNOWLEDGE_MANAGER,
                resource_id=DELIVERY_TEMPLATES,
                requested_role="editor",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="folder_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Editor on Delivery templates sent for approval to the folder owner, Tom Whitaker.",
                public=False,
            ),
        ],
        # "my manager Aisha is happy for me to do it": editor granted on her word
        traps=[call("grant_access", employee_id=mei.id, resource_id=DELIVERY_TEMPLATES, role="editor")],
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == KNOWLEDGE_MANAGER
    assert run.db.query(AccessGrant).count() == 0  # policy: nothing granted until the owner decides
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "folder_access", "needs_approval")


def test_case_CO003_003(tb):
    """Client folder of a client the consultant is not staffed on (only on Calloway): refuse, solved with a comment."""
    tobias = EmployeeFactory(name="Tobias Mensah", department="Retail & Consumer")
    AssignmentFactory(engagement=_calloway_engagement(), employee=tobias)
    ComplianceRecordFactory(employee_id=tobias.id, client_id=CALLOWAY, completed_on=date(2025, 11, 28))
    ticket = TicketFactory(requester=tobias, subject="Nordhavn folder access")

    run = tb.run(
        User(
            says="I'm drafting a proposal for another bank and the Nordhavn deliverables would be a great starting "
            "point. Could you let me read the Nordhavn Bank engagement folder? I don't need to change anything, I "
            "just want to borrow the structure of their final report.",
            knows={
                "email": tobias.email,
                "role wanted": "viewer",
                "which folder": "Nordhavn Bank engagement folder, RES-503",
            },
        ),
        golden=[
            call("find_employee_by_email", email=tobias.email),
            call("list_tickets", requester_id=tobias.id),
            call("get_resource", resource_id=NORDHAVN_FOLDER),
            call("list_assignments", employee_id=tobias.id),
            call("update_ticket", ticket_id=ticket.id, status="solved", category="folder_access", reason="not_staffed"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Refused: not staffed on any active Nordhavn Bank engagement; client folders need a current "
                "assignment.",
                public=False,
            ),
        ],
        traps=[call("grant_access", employee_id=tobias.id, resource_id=NORDHAVN_FOLDER, role="viewer")],
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: not staffed on Nordhavn, so no Nordhavn folder
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("solved", "folder_access", "not_staffed")


def test_case_CO003_004(tb):
    """Editor on a client folder: approval goes to the engagement lead, not to the folder owner."""
    chloe = EmployeeFactory(name="Chloe Alvarez", grade="senior_consultant", department="Retail & Consumer")
    engagement = _calloway_engagement()
    AssignmentFactory(engagement=engagement, employee=chloe, role="Workstream Lead")
    ComplianceRecordFactory(employee_id=chloe.id, client_id=CALLOWAY, completed_on=date(2025, 11, 27))
    ticket = TicketFactory(requester=chloe, subject="Calloway folder edit rights")

    run = tb.run(
        User(
            says="I lead a workstream on the Calloway store operating model and need to save our drafts. Can you "
            "give me editor access to the Calloway Retail engagement folder (RES-504)? Tom Whitaker owns the folder, "
            "so I guess he approves.",
            knows={"email": chloe.email, "role wanted": "editor"},
        ),
        golden=[
            call("find_employee_by_email", email=chloe.email),
            call("list_tickets", requester_id=chloe.id),
            call("get_resource", resource_id=CALLOWAY_FOLDER),
            call("list_assignments", employee_id=chloe.id),
            call("get_compliance_status", employee_id=chloe.id),
            call("list_approval_requests", employee_id=chloe.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="folder_access",
                employee_id=chloe.id,
                approver_id=RETAIL_DIRECTOR,
                resource_id=CALLOWAY_FOLDER,
                requested_role="editor",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="folder_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Editor on the Calloway engagement folder sent for approval to the engagement lead, "
                "Ingrid Larsen.",
                public=False,
            ),
        ],
        traps=[  # editor granted straight away, as a staffed workstream lead asks
            call(
                "grant_access",
                employee_id=chloe.id,
                resource_id=CALLOWAY_FOLDER,
                role="editor",
                expires_on="2026-04-10",
                engagement_id=engagement.id,
            )
        ],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.kind, approval.approver_id) == ("folder_access", RETAIL_DIRECTOR)
    assert run.db.query(AccessGrant).count() == 0  # policy: editor waits for the engagement lead
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "folder_access", "needs_approval")


def test_case_CO003_005(tb):
    """Admin on a client folder goes to the IT security lead, not to the engagement lead or the folder owner."""
    dev = EmployeeFactory(name="Dev Haddad", grade="manager", department="Retail & Consumer")
    engagement = _calloway_engagement()
    AssignmentFactory(engagement=engagement, employee=dev, role="Engagement Manager")
    ComplianceRecordFactory(employee_id=dev.id, client_id=CALLOWAY, completed_on=date(2025, 11, 26))
    ticket = TicketFactory(requester=dev, subject="Manage the Calloway folder")

    run = tb.run(
        User(
            says="I run the day-to-day on the Calloway store operating model job, and I'm forever waiting on you lot "
            "to add people to our engagement folder. Can you make me an admin of it so I can manage the team's access "
            "myself? Ingrid leads the engagement and she's all for it.",
            knows={"email": dev.email, "which folder": "Calloway Retail engagement folder, RES-504"},
        ),
        golden=[
            call("find_employee_by_email", email=dev.email),
            call("list_tickets", requester_id=dev.id),
            call("get_resource", resource_id=CALLOWAY_FOLDER),
            call("list_assignments", employee_id=dev.id),
            call("get_compliance_status", employee_id=dev.id),
            call("list_approval_requests", employee_id=dev.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="folder_access",
                employee_id=dev.id,
                approver_id=IT_SECURITY_LEAD,
                resource_id=CALLOWAY_FOLDER,
                requested_role="admin",
            ),
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="pending",
                category="folder_access",
                reason="needs_approval",
            ),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Admin on the Calloway engagement folder sent for approval to the IT security lead, Ruth Adeyemi.",
                public=False,
            ),
        ],
        traps=[  # admin straight away on the engagement lead's say-so
            call(
                "grant_access",
                employee_id=dev.id,
                resource_id=CALLOWAY_FOLDER,
                role="admin",
                expires_on="2026-04-10",
                engagement_id=engagement.id,
            )
        ],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not the lead or owner
    assert run.db.query(AccessGrant).count() == 0
    t = run.db.get(Ticket, ticket.id)
    assert (t.status, t.category, t.reason) == ("pending", "folder_access", "needs_approval")
