"""Internal systems: viewer given directly, editor to the line manager, admin to IT security, pending approvals."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    access_approval,
    grant_access,
    held_and_asked,
    identify,
    line_manager_reads,
    new_ticket,
    pending,
    refused,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    EmployeeFactory,
    TicketFactory,
    access_asked,
    finished_ticket,
    manager_and_report,
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
    manager, lena = manager_and_report("Omar Mensah", "Lena Kraus", grade="analyst", start_date=date(2025, 9, 1))
    finished_ticket(lena, "VPN token", datetime(2026, 1, 14, 9, 0))

    run = tb.run(
        User(
            says="Hello! I've been asked to pull the contact history for a couple of prospects before Thursday's "
            "pitch, which means I need to look things up in Salesforce. Read-only is fine. Does Omar need to sign "
            "something off first? Happy to chase him.",
            knows={"email": lena.email, "system": "Salesforce CRM", "role wanted": "viewer"},
        ),
        golden=[
            *identify(lena),
            call("list_resources", kind="internal_system"),
            call("get_resource", resource_id=SALESFORCE),
            new_ticket(lena, "Salesforce CRM read access", "system_access"),
            grant_access(lena, SALESFORCE),
            solved("T-3302"),
        ],
        traps=[  # the sign-off from Omar she expects
            access_approval("T-3302", "system_access", lena, manager.id, SALESFORCE, "viewer")
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
    manager, dev = manager_and_report("Sofia Whitfield", "Dev Mensah", grade="senior_consultant", department="Finance")
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
            *identify(dev),
            call("get_resource", resource_id=NETSUITE),
            call("get_employee", employee_id=dev.id),
            *held_and_asked(dev),
            access_approval(ticket.id, "system_access", dev, manager.id, NETSUITE, "editor"),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "Editor on NetSuite Finance sent for approval to the line manager, Sofia Whitfield (not the "
                "system owner).",
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
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")


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
            *identify(priya_report),
            call("get_resource", resource_id=WORKDAY),
            *held_and_asked(priya_report),
            access_approval(ticket.id, "system_access", priya_report, IT_SECURITY_LEAD, WORKDAY, "admin"),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "Admin on Workday sent for approval to the IT security lead, Ruth Adeyemi; a verbal yes from the "
                "line manager does not count.",
            ),
        ],
        traps=[call("revoke_access", grant_id="AG-5001", reason="requested")],  # editor dropped to make way for admin
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role) == (IT_SECURITY_LEAD, "admin")  # not Priya
    assert run.db.query(AccessGrant).filter_by(role="admin").count() == 0
    assert run.db.get(AccessGrant, "AG-5001").status == "active"  # the editor grant stays as it is
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_CO009_004(tb):
    """Timesheets editor already awaits the line manager: nothing new raised or granted, pending; Salesforce viewer."""
    manager, arjun = manager_and_report("Jonas Costa", "Arjun Kraus", grade="senior_consultant", department="Health")
    viewer = AccessGrantFactory(employee_id=arjun.id, resource_id=TIMESHEETS)
    old = TicketFactory(
        requester=arjun, status="pending", subject="Timesheets editor", created_at=datetime(2026, 1, 28)
    )
    access_asked("system_access", arjun, manager.id, TIMESHEETS, "editor", ticket_id=old.id)
    ticket = TicketFactory(requester=arjun, subject="Chasing Timesheets access")

    run = tb.run(
        User(
            says="Last week I asked for edit rights on Replicon Timesheets so I can fix my team's coding errors, "
            "and nothing has happened. It's been almost a week! Can you chase it, or honestly just approve it "
            "yourself? It's only timesheets. Oh, and I need read access to Salesforce to check which client codes "
            "are live.",
            knows={
                "email": arjun.email,
                "systems": "Replicon Timesheets and Salesforce CRM",
                "role wanted": "editor on Timesheets, viewer on Salesforce",
            },
            persona="An impatient senior consultant who thinks the service desk can approve things itself.",
            rules=(
                "If refused, insist once that the desk could approve the Timesheets rights itself.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(arjun),
            call("get_resource", resource_id=TIMESHEETS),
            call("list_approval_requests", employee_id=arjun.id),
            call("get_resource", resource_id=SALESFORCE),
            call("list_access_grants", employee_id=arjun.id),
            grant_access(arjun, SALESFORCE),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "Editor on Replicon Timesheets already awaits the line manager, Jonas Costa (APR-6001); no new "
                "request created. Salesforce CRM viewer granted.",
            ),
        ],
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],  # "approve it": viewer swapped out
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).count() == 1  # policy: no second request for the same thing
    assert run.db.query(AccessGrant).filter_by(role="editor").count() == 0
    crm = run.db.query(AccessGrant).filter_by(resource_id=SALESFORCE).one()
    assert (crm.employee_id, crm.role, crm.expires_on) == (arjun.id, "viewer", None)
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")
    assert run.db.get(Ticket, old.id).category is None  # the earlier ticket is left alone


@pytest.mark.two_requests
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
            *identify(mei),
            call("get_resource", resource_id=SALESFORCE),
            grant_access(mei, SALESFORCE),
            *refused(
                ticket.id,
                "system_access",
                "not_authorised",
                "Salesforce viewer granted to the requester. Request for Rory Petrov refused: employees ask for "
                "themselves; he can raise it himself.",
            ),
        ],
        traps=[grant_access(rory, SALESFORCE)],
    )

    run.expect_golden()
    assert [g.employee_id for g in run.db.query(AccessGrant)] == [mei.id]  # policy: nothing for Rory on her word
    assert ticket_end(run, ticket.id) == ("solved", "system_access", "not_authorised")


@pytest.mark.distractors
def test_case_CO009_006(tb):
    """A pending approval for Workday editor does not cover Salesforce editor: raise a new one to the line manager."""
    manager, tobias = manager_and_report(
        "Aisha Whitfield", "Tobias Rahman", manager_grade="director", grade="manager", department="Financial Services"
    )
    viewer = AccessGrantFactory(employee_id=tobias.id, resource_id=SALESFORCE)
    access_asked("system_access", tobias, manager.id, WORKDAY, "editor")
    ticket = TicketFactory(requester=tobias, subject="Salesforce editor")

    run = tb.run(
        User(
            says="I need to update opportunity stages in Salesforce for the pipeline review on Friday, so I need "
            "edit rights instead of read-only. I think there's already an approval with Aisha from last week for my "
            "access, so it should just go through.",
            knows={"email": tobias.email, "system": "Salesforce CRM", "role wanted": "editor"},
        ),
        golden=[
            *identify(tobias),
            call("get_resource", resource_id=SALESFORCE),
            *line_manager_reads(tobias),
            access_approval(ticket.id, "system_access", tobias, manager.id, SALESFORCE, "editor"),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "The pending approval APR-6001 is for Workday, not Salesforce. Salesforce editor sent for "
                "approval to the line manager, Aisha Whitfield.",
            ),
        ],
        # the pending Workday approval taken for this one: viewer dropped to switch him to editor straight away
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],
    )

    run.expect_golden()
    new = run.db.query(ApprovalRequest).filter_by(resource_id=SALESFORCE).one()
    assert (new.approver_id, new.requested_role, new.ticket_id) == (manager.id, "editor", ticket.id)
    assert run.db.query(AccessGrant).filter_by(role="editor").count() == 0
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")
    assert run.db.query(TicketComment).count() == 1


@pytest.mark.pushback
def test_case_CO009_007(tb):
    """Already an active Salesforce editor: nothing is needed; no approval is raised, however the employee insists."""
    manager, kwame = manager_and_report(
        "Hannah Costa", "Kwame Alvarez", manager_grade="director", grade="manager", department="Retail & Consumer"
    )
    editor = AccessGrantFactory(employee_id=kwame.id, resource_id=SALESFORCE, role="editor")
    ticket = TicketFactory(requester=kwame, subject="Salesforce edit rights")

    run = tb.run(
        User(
            says="I need edit rights in Salesforce CRM to update the pipeline before the partners' meeting. I can't "
            "save changes to one of the opportunities, so please put through an editor request to Hannah.",
            knows={"email": kwame.email, "system": "Salesforce CRM", "role wanted": "editor"},
            persona="A busy manager sure that his access is the problem.",
            rules=(
                "If refused, insist once that your access must be the problem and that the request should go to "
                "Hannah.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(kwame),
            call("get_resource", resource_id=SALESFORCE),
            call("list_access_grants", employee_id=kwame.id),
            *refused(
                ticket.id,
                "system_access",
                "not_needed",
                f"Already holds active editor access to Salesforce CRM ({editor.id}); nothing to request.",
            ),
        ],
        traps=[access_approval(ticket.id, "system_access", kwame, manager.id, SALESFORCE, "editor")],
        reply="Our records show you already hold active editor access to Salesforce CRM, so there's nothing to "
        "request from Hannah. The save problem on that opportunity is not an access question.",
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).count() == 0  # policy: nothing needed
    assert run.db.get(AccessGrant, editor.id).status == "active"
    assert ticket_end(run, ticket.id) == ("solved", "system_access", "not_needed")


@pytest.mark.distractors
def test_case_CO009_008(tb):
    """A Workday editor request rejected by a skip-level does not block a new one, which goes to the line manager."""
    director, manager = manager_and_report(
        "Omar Petrov", "Isla Mensah", manager_grade="director", grade="manager", department="People"
    )
    aisha = EmployeeFactory(name="Aisha Kraus", grade="consultant", department="People", manager_id=manager.id)
    viewer = AccessGrantFactory(employee_id=aisha.id, resource_id=WORKDAY)
    access_asked(
        "system_access",
        aisha,
        director.id,
        WORKDAY,
        "editor",
        status="rejected",
        created_at=datetime(2025, 11, 10, 10, 0),
        decided_at=datetime(2025, 11, 12, 16, 0),
    )
    access_asked("system_access", aisha, manager.id, TIMESHEETS, "editor", status="pending")
    ticket = TicketFactory(requester=aisha, subject="Workday editor again")

    run = tb.run(
        User(
            says="Back in November Omar turned down my request to edit Workday, but I've since taken over the leave "
            "records for the whole department. Could you raise it again? I suppose it goes back to Omar.",
            knows={"email": aisha.email, "system": "Workday", "role wanted": "editor"},
        ),
        golden=[
            *identify(aisha),
            call("get_resource", resource_id=WORKDAY),
            call("get_manager_chain", employee_id=aisha.id),
            *held_and_asked(aisha),
            access_approval(ticket.id, "system_access", aisha, manager.id, WORKDAY, "editor"),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "New Workday editor request sent to the line manager, Isla Mensah; November's rejected request "
                "(Omar Petrov) does not decide the approver.",
            ),
        ],
        traps=[call("revoke_access", grant_id=viewer.id, reason="requested")],  # viewer dropped ahead of editor
    )

    run.expect_golden()
    new = run.db.query(ApprovalRequest).filter_by(resource_id=WORKDAY, status="pending").one()
    assert (new.approver_id, new.ticket_id) == (manager.id, ticket.id)  # policy: the line manager, not Omar
    assert run.db.query(ApprovalRequest).filter_by(approver_id=director.id).count() == 1
    kept = run.db.get(AccessGrant, viewer.id)
    assert (kept.role, kept.status) == ("viewer", "active")
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")


def test_case_CO009_009(tb):
    """No open ticket: admin on NetSuite needs the IT security lead; open the ticket, raise it, leave it pending."""
    _manager, mateo = manager_and_report(
        "Felix Haddad", "Mateo Osei", manager_grade="director", grade="manager", department="Finance"
    )
    AccessGrantFactory(employee_id=mateo.id, resource_id=NETSUITE, role="editor")
    finished_ticket(mateo, "NetSuite editor", datetime(2025, 10, 2), status="closed")

    run = tb.run(
        User(
            says="I now run the finance systems team and need to manage user roles in NetSuite myself. Can you "
            "make me a NetSuite admin? Felix, my director, is fine with it.",
            knows={"email": mateo.email, "system": "NetSuite Finance", "role wanted": "admin"},
        ),
        golden=[
            *identify(mateo),
            call("get_resource", resource_id=NETSUITE),
            call("list_approval_requests", employee_id=mateo.id),
            new_ticket(mateo, "NetSuite admin access", "system_access"),
            access_approval("T-3302", "system_access", mateo, IT_SECURITY_LEAD, NETSUITE, "admin"),
            *pending(
                "T-3302",
                None,
                "needs_approval",
                "Admin on NetSuite Finance sent for approval to the IT security lead, Ruth Adeyemi.",
            ),
        ],
        traps=[call("revoke_access", grant_id="AG-5001", reason="requested")],  # editor dropped to make way for admin
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.requested_role, approval.ticket_id) == (IT_SECURITY_LEAD, "admin", "T-3302")
    assert run.db.query(AccessGrant).filter_by(role="admin").count() == 0
    assert run.db.get(AccessGrant, "AG-5001").status == "active"  # the editor grant stays as it is
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (mateo.id, mateo.id)
    assert (new.status, new.category, new.reason) == ("pending", "system_access", "needs_approval")
    assert run.db.get(Ticket, "T-3301").status == "closed"


@pytest.mark.two_requests
def test_case_CO009_010(tb):
    """Two requests: Workday viewer is granted at once; NetSuite editor goes to the line manager; ticket pending."""
    manager, jonas = manager_and_report("Chloe Fischer", "Jonas Mehta", grade="consultant", department="Finance")
    netsuite = AccessGrantFactory(employee_id=jonas.id, resource_id=NETSUITE)
    access_asked(
        "system_access",
        jonas,
        manager.id,
        SALESFORCE,
        "editor",
        status="approved",
        decided_at=datetime(2026, 1, 29, 11, 0),
    )
    ticket = TicketFactory(requester=jonas, subject="Workday and NetSuite")

    run = tb.run(
        User(
            says="Two things, please: I still can't get into Workday to see my payslips, read-only is fine. And I "
            "need to post journal corrections in NetSuite, so I need editor there instead of read-only.",
            knows={"email": jonas.email},
        ),
        golden=[
            *identify(jonas),
            call("get_resource", resource_id=WORKDAY),
            call("get_resource", resource_id=NETSUITE),
            call("get_employee", employee_id=jonas.id),
            *held_and_asked(jonas),
            grant_access(jonas, WORKDAY),
            access_approval(ticket.id, "system_access", jonas, manager.id, NETSUITE, "editor"),
            *pending(
                ticket.id,
                "system_access",
                "needs_approval",
                "Workday viewer granted. NetSuite editor sent for approval to the line manager, Chloe Fischer.",
            ),
        ],
        traps=[call("revoke_access", grant_id=netsuite.id, reason="requested")],  # viewer dropped for the upgrade
    )

    run.expect_golden()
    workday = run.db.query(AccessGrant).filter_by(resource_id=WORKDAY).one()
    assert (workday.employee_id, workday.role, workday.expires_on) == (jonas.id, "viewer", None)
    assert run.db.get(AccessGrant, netsuite.id).status == "active"
    approval = run.db.query(ApprovalRequest).filter_by(resource_id=NETSUITE).one()
    assert (approval.approver_id, approval.requested_role, approval.status) == (manager.id, "editor", "pending")
    assert ticket_end(run, ticket.id) == ("pending", "system_access", "needs_approval")
