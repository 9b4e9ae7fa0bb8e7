"""Document folders: template folders (viewer free, editor to the owner) and client folders (staffing, lead)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    access_approval,
    assignments_and_grants,
    client_gates,
    grant_access,
    held_and_asked,
    identify,
    new_ticket,
    pending,
    pool_seat,
    refused,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    TicketFactory,
    background_check,
    client_engagement,
    client_grant,
    finished_ticket,
    manager_and_report,
    staffed,
)
from domains.consulting.models import AccessGrant, ApprovalRequest, LicenceSeat, Ticket, TicketComment
from domains.consulting.seed import (
    ACROBAT,
    CALLOWAY,
    CALLOWAY_FOLDER,
    DELIVERY_TEMPLATES,
    FS_PARTNER,
    IT_SECURITY_LEAD,
    KNOWLEDGE_MANAGER,
    NORDHAVN,
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
    "Licence pools, idle seats and the waitlist",
)


def _calloway_engagement():
    return client_engagement(CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2025, 12, 1), date(2026, 4, 10))


def test_case_CO003_001(tb):
    """Viewer on a template folder needs no approval, even though the analyst expects one: grant it, no expiry."""
    manager, rory = manager_and_report("Jonas Rahman", "Rory Gallagher", grade="analyst", start_date=date(2026, 1, 12))
    ticket = TicketFactory(requester=rory, subject="Proposal templates folder")

    run = tb.run(
        User(
            says="Hi, I started a few weeks ago and I'd like read access to the Proposal templates folder (RES-501). "
            "I assume my manager Jonas has to sign this off first? Happy to wait.",
            knows={"email": rory.email, "role wanted": "viewer, read only"},
        ),
        golden=[
            *identify(rory),
            call("get_resource", resource_id=PROPOSAL_TEMPLATES),
            grant_access(rory, PROPOSAL_TEMPLATES),
            solved(ticket.id, "folder_access"),
        ],
        traps=[  # the sign-off from Jonas he expects
            access_approval(ticket.id, "folder_access", rory, manager.id, PROPOSAL_TEMPLATES, "viewer")
        ],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on) == ("viewer", None)
    assert run.db.query(ApprovalRequest).count() == 0  # policy: template viewer needs no approval
    assert ticket_end(run, ticket.id) == ("solved", "folder_access", None)  # carried out, not "approved"
    assert run.db.query(TicketComment).count() == 0


def test_case_CO003_002(tb):
    """Editor on a template folder: approval goes to the folder owner, not to the employee's line manager."""
    _manager, mei = manager_and_report("Aisha Kraus", "Mei Byrne", grade="senior_consultant")
    ticket = TicketFactory(requester=mei, subject="Edit rights on delivery templates")

    run = tb.run(
        User(
            says="I've rebuilt the steering-committee pack template and want to upload it. Can I get editor access "
            "to the Delivery templates folder, RES-502? My manager Aisha is happy for me to do it.",
            knows={"email": mei.email, "role wanted": "editor"},
        ),
        golden=[
            *identify(mei),
            call("get_resource", resource_id=DELIVERY_TEMPLATES),
            call("list_approval_requests", employee_id=mei.id),
            access_approval(ticket.id, "folder_access", mei, KNOWLEDGE_MANAGER, DELIVERY_TEMPLATES, "editor"),
            *pending(
                ticket.id,
                "folder_access",
                "needs_approval",
                "Editor on Delivery templates sent for approval to the folder owner, Tom Whitaker.",
            ),
        ],
        # "my manager Aisha is happy for me to do it": editor granted on her word
        traps=[grant_access(mei, DELIVERY_TEMPLATES, "editor")],
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == KNOWLEDGE_MANAGER
    assert run.db.query(AccessGrant).count() == 0  # policy: nothing granted until the owner decides
    assert ticket_end(run, ticket.id) == ("pending", "folder_access", "needs_approval")


@pytest.mark.two_requests
def test_case_CO003_003(tb):
    """Not staffed on Nordhavn (only on Calloway): its client folder is refused; the Proposal templates are granted."""
    tobias = EmployeeFactory(name="Tobias Mensah", department="Retail & Consumer")
    staffed(tobias, _calloway_engagement(), nda_signed_on=date(2025, 11, 28))
    ComplianceRecordFactory(employee_id=tobias.id, client_id=NORDHAVN, completed_on=date(2025, 3, 3))
    ticket = TicketFactory(requester=tobias, subject="Nordhavn folder access")

    run = tb.run(
        User(
            says="I'm drafting a proposal for another bank and the Nordhavn deliverables would be a great starting "
            "point. Could you let me read the Nordhavn Bank engagement folder? I don't need to change anything, I "
            "just want to borrow the structure of their final report. I signed a Nordhavn NDA last year. I'll "
            "also need the firm's Proposal templates folder for the pricing pages.",
            knows={
                "email": tobias.email,
                "role wanted": "viewer on both",
                "which folders": "Nordhavn Bank engagement folder RES-503, Proposal templates RES-501",
            },
        ),
        golden=[
            *identify(tobias),
            call("get_resource", resource_id=NORDHAVN_FOLDER),
            call("get_resource", resource_id=PROPOSAL_TEMPLATES),
            *assignments_and_grants(tobias),
            grant_access(tobias, PROPOSAL_TEMPLATES),
            *refused(
                ticket.id,
                "folder_access",
                "not_staffed",
                "Nordhavn folder refused: not staffed on any active Nordhavn Bank engagement; client folders "
                "need a current assignment (an NDA alone is not enough). Proposal templates viewer granted.",
            ),
        ],
        traps=[grant_access(tobias, NORDHAVN_FOLDER)],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()  # policy: not staffed on Nordhavn, so no Nordhavn folder
    assert (grant.resource_id, grant.role, grant.expires_on) == (PROPOSAL_TEMPLATES, "viewer", None)
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "folder_access", "not_staffed")


def test_case_CO003_004(tb):
    """Editor on a client folder: approval goes to the engagement lead, not to the folder owner."""
    chloe = EmployeeFactory(name="Chloe Alvarez", grade="senior_consultant", department="Retail & Consumer")
    engagement = _calloway_engagement()
    staffed(chloe, engagement, nda_signed_on=date(2025, 11, 27), role="Workstream Lead")
    ticket = TicketFactory(requester=chloe, subject="Calloway folder edit rights")

    run = tb.run(
        User(
            says="I lead a workstream on the Calloway store operating model and need to save our drafts. Can you "
            "give me editor access to the Calloway Retail engagement folder (RES-504)? Tom Whitaker owns the folder, "
            "so I guess he approves.",
            knows={"email": chloe.email, "role wanted": "editor"},
        ),
        golden=[
            *identify(chloe),
            *client_gates(chloe, CALLOWAY_FOLDER),
            call("list_approval_requests", employee_id=chloe.id),
            access_approval(ticket.id, "folder_access", chloe, RETAIL_DIRECTOR, CALLOWAY_FOLDER, "editor"),
            *pending(
                ticket.id,
                "folder_access",
                "needs_approval",
                "Editor on the Calloway engagement folder sent for approval to the engagement lead, Ingrid Larsen.",
            ),
        ],
        traps=[  # editor granted straight away, as a staffed workstream lead asks
            grant_access(chloe, CALLOWAY_FOLDER, "editor", expires_on="2026-04-10", engagement_id=engagement.id)
        ],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.kind, approval.approver_id) == ("folder_access", RETAIL_DIRECTOR)
    assert run.db.query(AccessGrant).count() == 0  # policy: editor waits for the engagement lead
    assert ticket_end(run, ticket.id) == ("pending", "folder_access", "needs_approval")


def test_case_CO003_005(tb):
    """Admin on a client folder goes to the IT security lead, not to the engagement lead or the folder owner."""
    dev = EmployeeFactory(name="Dev Haddad", grade="manager", department="Retail & Consumer")
    engagement = _calloway_engagement()
    staffed(dev, engagement, nda_signed_on=date(2025, 11, 26), role="Engagement Manager")
    ticket = TicketFactory(requester=dev, subject="Manage the Calloway folder")

    run = tb.run(
        User(
            says="I run the day-to-day on the Calloway store operating model job, and I'm forever waiting on you lot "
            "to add people to our engagement folder. Can you make me an admin of it so I can manage the team's access "
            "myself? Ingrid leads the engagement and she's all for it.",
            knows={"email": dev.email, "which folder": "Calloway Retail engagement folder, RES-504"},
        ),
        golden=[
            *identify(dev),
            *client_gates(dev, CALLOWAY_FOLDER),
            call("list_approval_requests", employee_id=dev.id),
            access_approval(ticket.id, "folder_access", dev, IT_SECURITY_LEAD, CALLOWAY_FOLDER, "admin"),
            *pending(
                ticket.id,
                "folder_access",
                "needs_approval",
                "Admin on the Calloway engagement folder sent for approval to the IT security lead, Ruth Adeyemi.",
            ),
        ],
        traps=[  # admin straight away on the engagement lead's say-so
            grant_access(dev, CALLOWAY_FOLDER, "admin", expires_on="2026-04-10", engagement_id=engagement.id)
        ],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not the lead or owner
    assert run.db.query(AccessGrant).count() == 0
    assert ticket_end(run, ticket.id) == ("pending", "folder_access", "needs_approval")


@pytest.mark.two_requests
def test_case_CO003_006(tb):
    """Client folder, staffed, but the Calloway NDA was only sent: pending until she signs it; Acrobat assigned."""
    hannah = EmployeeFactory(name="Hannah Alvarez", grade="consultant", department="Retail & Consumer")
    AssignmentFactory(
        engagement=_calloway_engagement(),
        employee=hannah,
        start_date=date(2026, 1, 26),
        end_date=date(2026, 4, 10),
    )
    ComplianceRecordFactory(employee_id=hannah.id, client_id=CALLOWAY, status="sent", completed_on=None)
    ticket = TicketFactory(requester=hannah, subject="Calloway working papers")

    run = tb.run(
        User(
            says="I joined the Calloway store operating model team last week and need to read the working papers "
            "in the client's engagement folder. The NDA paperwork is in my inbox somewhere; surely being staffed is "
            "enough to read our own folder? I'll also need Adobe Acrobat Pro to mark up the store layout PDFs.",
            knows={"email": hannah.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(hannah),
            call("list_resources", kind="client_folder"),
            *client_gates(hannah, CALLOWAY_FOLDER),
            *pool_seat(hannah, ACROBAT),
            *pending(
                ticket.id,
                "folder_access",
                "awaiting_employee",
                "Calloway folder waits for the employee: the Calloway NDA was sent but is not signed. Grant "
                "viewer once she signs it. Acrobat Pro seat assigned.",
            ),
        ],
        traps=[grant_access(hannah, CALLOWAY_FOLDER, expires_on="2026-04-10", engagement_id="ENG-601")],
        reply="Being staffed isn't enough on its own: client folders also need a signed NDA for that client, and "
        "your Calloway NDA has been sent to you but not signed yet. Once you sign it, let us know and we'll give "
        "you read access to the folder. Your Acrobat Pro licence is assigned already.",
    )

    run.expect_golden()
    assert run.db.query(AccessGrant).count() == 0  # policy: no signed NDA, no access
    seat = run.db.query(LicenceSeat).one()
    assert (seat.software_id, seat.employee_id, seat.status) == (ACROBAT, hannah.id, "active")
    assert ticket_end(run, ticket.id) == ("pending", "folder_access", "awaiting_employee")  # she signs first


def test_case_CO003_007(tb):
    """Nordhavn folder with an expired background check: folders need none, so grant viewer under the client rule."""
    mateo = EmployeeFactory(name="Mateo Rahman", grade="senior_consultant", department="Financial Services")
    old = client_engagement(
        NORDHAVN, "Treasury review", FS_PARTNER, date(2025, 3, 3), date(2025, 8, 29), status="closed"
    )
    current = client_engagement(NORDHAVN, "Core banking migration", FS_PARTNER, date(2025, 11, 3), date(2026, 6, 30))
    AssignmentFactory(engagement=old, employee=mateo)
    staffed(mateo, current, nda_signed_on=date(2025, 2, 24), start_date=date(2026, 1, 19), end_date=date(2026, 3, 20))
    background_check(mateo, completed_on=date(2022, 11, 7))
    client_grant(
        mateo,
        NORDHAVN_FOLDER,
        old,
        status="expired",
        granted_at=datetime(2025, 3, 3, 9, 0),
        expires_on=date(2025, 8, 29),
    )
    ticket = TicketFactory(requester=mateo, subject="Nordhavn folder")

    run = tb.run(
        User(
            says="My read access to the Nordhavn engagement folder lapsed when the treasury review finished, and "
            "I'm now on the core banking migration. Could I have viewer on the folder again? I know my screening "
            "has lapsed too, if that matters.",
            knows={"email": mateo.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(mateo),
            *client_gates(mateo, NORDHAVN_FOLDER),
            call("list_access_grants", employee_id=mateo.id),
            grant_access(mateo, NORDHAVN_FOLDER, expires_on="2026-03-20", engagement_id=current.id),
            solved(ticket.id, "folder_access"),
        ],
        traps=[  # the lapsed screening applied to a folder
            call(
                "update_ticket",
                ticket_id=ticket.id,
                status="hold",
                reason="screening_required",
                queue="screening",
            )
        ],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).filter_by(status="active").one()
    assert (grant.resource_id, grant.expires_on, grant.engagement_id) == (
        NORDHAVN_FOLDER,
        date(2026, 3, 20),
        current.id,
    )  # policy: no background check for folders; the running assignment's end
    assert ticket_end(run, ticket.id, "queue") == ("solved", "folder_access", None, None)


def test_case_CO003_008(tb):
    """No open ticket: admin on the Proposal templates goes to the IT security lead, not the folder's owner."""
    nina = EmployeeFactory(name="Nina Osei", grade="manager", department="Knowledge Management")
    finished_ticket(nina, "Template refresh", datetime(2025, 12, 3))

    run = tb.run(
        User(
            says="I'm taking over the proposal library from Tom Whitaker and need to manage who can edit the "
            "Proposal templates folder. Please make me an admin of it; Tom owns it and has already said yes.",
            knows={"email": nina.email, "folder": "Proposal templates", "role wanted": "admin"},
        ),
        golden=[
            *identify(nina),
            call("get_resource", resource_id=PROPOSAL_TEMPLATES),
            *held_and_asked(nina),
            new_ticket(nina, "Admin on Proposal templates", "folder_access"),
            access_approval("T-3302", "folder_access", nina, IT_SECURITY_LEAD, PROPOSAL_TEMPLATES, "admin"),
            *pending(
                "T-3302",
                None,
                "needs_approval",
                "Admin on Proposal templates sent for approval to the IT security lead, Ruth Adeyemi; the "
                "folder owner's yes does not count.",
            ),
        ],
        traps=[grant_access(nina, PROPOSAL_TEMPLATES, "admin")],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not KNOWLEDGE_MANAGER
    assert run.db.query(AccessGrant).count() == 0
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (nina.id, nina.id)
    assert (new.status, new.category, new.reason) == ("pending", "folder_access", "needs_approval")
