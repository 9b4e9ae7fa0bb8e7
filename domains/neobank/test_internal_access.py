"""Internal help desk: roles on internal systems and the approvals they need, segregation of duties and auditors."""

from __future__ import annotations

from datetime import date

import pytest

from domains.neobank.calls import (
    active_roles,
    create_ticket,
    desk_opening,
    devices_of,
    employee_facts,
    grant_access,
    grants_of,
    hold,
    identify_employee,
    new_grant,
    pending,
    refused,
    requests_of,
    solved,
)
from domains.neobank.clock import days_ago
from domains.neobank.factories import (
    AccessGrantFactory,
    AccessRequestFactory,
    ApprovalFactory,
    DeskTicketFactory,
    DeviceFactory,
    EmployeeFactory,
    IncidentFactory,
    finished_desk_ticket,
)
from domains.neobank.models import AccessGrant, AccessRequest, Device, Ticket, TicketComment
from domains.neobank.seed import (
    CARD_OPS,
    DATA_ANALYTICS,
    DIETER_HAHN,
    FINANCE,
    INES_MARQUARDT,
    INFORMATION_SECURITY,
    INTERNAL_AUDIT,
    KATRIN_WOLFF,
    MIRIAM_ADLER,
    PAYMENTS_HUB,
    PAYMENTS_OPS,
    RAFAEL_SOUSA,
    TECHNOLOGY,
    seeded,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Internal help desk: who may ask and identity",
    "Internal access: roles and approvals",
    "Segregation of duties",
    "Temporary and emergency access",
    "Joiners",
    "Leavers",
    "Internal desk tickets: classification, status and queues",
)


# --------------------------------------------------------------------------- NB030 approvals


def test_case_NB030_001(tb):
    """Payment initiator (standard role, high-risk payments hub): the line manager and the owner approved; grant it
    against the request, with no expiry."""
    lead = EmployeeFactory(
        name="Greta Seidel",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    henrik = EmployeeFactory(name="Henrik Kaiser", department=PAYMENTS_OPS, title="Payments Clerk", manager=lead)
    AccessGrantFactory(employee=henrik, role_id="PAY-READ")
    request = AccessRequestFactory(employee=henrik, role_id="PAY-INIT", created_at=days_ago(2, hour=9))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(2, hour=11))
    ApprovalFactory(request=request, approver_id=INES_MARQUARDT, capacity="system_owner", decided_at=days_ago(1))
    ticket = DeskTicketFactory(employee=henrik, subject="Payment initiator role")

    run = tb.run(
        User(
            says="Hi, I asked for the payment initiator role in the payments hub on Tuesday so I can enter the "
            "supplier runs myself. Greta and Ines have both signed it off as far as I know. Can you switch it on?",
            knows=employee_facts(henrik),
        ),
        golden=[
            *desk_opening(henrik, call("list_systems"), grants_of(henrik), requests_of(henrik)),
            grant_access(henrik, "PAY-INIT", request_id=request.id),
            solved(ticket.id, "access"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = new_grant(run.db, henrik.id, "PAY-INIT")
    assert (grant.kind, grant.expires_on, grant.request_id) == ("standard", None, request.id)
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"
    assert run.db.query(TicketComment).count() == 0


@pytest.mark.pushback
def test_case_NB030_002(tb):
    """Manual booking (standard role on high-risk core banking): only the line manager approved; the system owner's
    approval is missing, so hold for the core banking team, although the caller insists the manager is enough."""
    boss = EmployeeFactory(name="Pavel Nowak", department=FINANCE, title="Financial Controller", grade="manager")
    selin = EmployeeFactory(name="Selin Yilmaz", department=FINANCE, title="Accountant", manager=boss)
    AccessGrantFactory(employee=selin, role_id="CBS-READ")
    request = AccessRequestFactory(employee=selin, role_id="CBS-POST")
    ApprovalFactory(request=request, approver=boss, capacity="line_manager")
    ticket = DeskTicketFactory(employee=selin, subject="Manual bookings in core banking")

    run = tb.run(
        User(
            says="I need the manual booking role in core banking before the month-end close on Friday. Pavel, my "
            "boss, approved my request yesterday, so please just add it now.",
            knows=employee_facts(selin),
            rules=(
                "If refused, insist once that your manager's approval is enough; accept a refusal that gives a reason.",
            ),
        ),
        golden=[
            *desk_opening(selin, call("list_systems"), grants_of(selin), requests_of(selin)),
            *hold(
                ticket.id,
                "access",
                "approval_required",
                f"CBS-POST on high-risk core banking: line manager approved; waiting for the system owner "
                f"({DIETER_HAHN}) on {request.id}.",
                queue="core_banking_team",
            ),
        ],
        reply="Your manager has approved, but core banking is a high-risk system, so the manual booking role also "
        "needs the approval of the system owner, Dieter Hahn. I've passed your request to the core banking team; "
        "the role is switched on as soon as he approves.",
        traps=[grant_access(selin, "CBS-POST", request_id=request.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "normal",
        "access",
        "approval_required",
        "core_banking_team",
    )
    assert "CBS-POST" not in active_roles(run.db, selin.id)  # policy: the system owner has not approved
    assert run.db.get(AccessRequest, request.id).status == "awaiting_approval"
    assert run.db.query(AccessRequest).count() == 1  # the request exists already; none recorded twice
    assert run.db.query(TicketComment).filter(TicketComment.public.is_(False)).count() == 1


@pytest.mark.distractors
def test_case_NB030_003(tb):
    """Personal-data analyst role (privileged): manager and owner approved, but the 'security' approval came from a
    colleague in Data & Analytics, not Information Security; it does not count, so hold for security."""
    lead = EmployeeFactory(
        name="Ayla Falk", department=DATA_ANALYTICS, title="Analytics Lead", grade="manager", manager_id=RAFAEL_SOUSA
    )
    colleague = EmployeeFactory(name="Lukas Arndt", department=DATA_ANALYTICS, title="Data Governance Analyst")
    oskar = EmployeeFactory(name="Oskar Berger", department=DATA_ANALYTICS, title="Data Analyst", manager=lead)
    AccessGrantFactory(employee=oskar, role_id="DWH-ANALYST")
    request = AccessRequestFactory(employee=oskar, role_id="DWH-PII", created_at=days_ago(3))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(3, hour=14))
    ApprovalFactory(request=request, approver_id=RAFAEL_SOUSA, capacity="system_owner", decided_at=days_ago(2))
    ApprovalFactory(request=request, approver=colleague, capacity="security", decided_at=days_ago(1))
    ticket = DeskTicketFactory(employee=oskar, subject="Personal data access")

    run = tb.run(
        User(
            says="My request for the personal data analyst role in the warehouse has three approvals on it now, "
            "including security. Could you grant it? I need it for the complaints analysis.",
            knows=employee_facts(oskar),
        ),
        golden=[
            *desk_opening(oskar, call("list_systems"), grants_of(oskar), requests_of(oskar)),
            *hold(
                ticket.id,
                "access",
                "approval_required",
                f"DWH-PII is privileged: the security approval on {request.id} is from {colleague.name} of Data "
                "& Analytics, not Information Security; waiting for security.",
                queue="security",
            ),
        ],
        traps=[grant_access(oskar, "DWH-PII", request_id=request.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "access", "approval_required", "security")
    assert active_roles(run.db, oskar.id) == {
        "DWH-ANALYST"
    }  # policy: security approvals come from Information Security
    assert run.db.get(AccessRequest, request.id).status == "awaiting_approval"


@pytest.mark.distractors
def test_case_NB030_004(tb):
    """A card team lead asks for card support for 'Marta' on her team: two Martas in the bank, the one who reports to
    her gets the role (her request is the line manager's approval; medium-risk system)."""
    lead = EmployeeFactory(name="Bianca Horn", department=CARD_OPS, title="Card Operations Team Lead", grade="manager")
    other_lead = EmployeeFactory(name="Timo Ziegler", department=PAYMENTS_OPS, title="Payments Team Lead")
    marta = EmployeeFactory(name="Marta Wendt", department=CARD_OPS, title="Card Operations Agent", manager=lead)
    namesake = EmployeeFactory(
        name="Marta Wendt-Krause", department=PAYMENTS_OPS, title="Payments Clerk", manager=other_lead
    )
    AccessGrantFactory(employee=marta, role_id="CMS-READ")
    ticket = DeskTicketFactory(employee=lead, subject="Card support role for my team")

    run = tb.run(
        User(
            says="Hello, this is Bianca from card operations. Marta Wendt on my team is taking over card blocks and "
            "reorders from next week; can you give her the card support role in card management?",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(
                lead,
                call("search_employees", name="Marta Wendt"),
                call("list_systems"),
                grants_of(marta),
                requests_of(marta),
            ),
            grant_access(marta, "CMS-SUPPORT"),
            solved(ticket.id, "access"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = new_grant(run.db, marta.id, "CMS-SUPPORT")
    assert (grant.kind, grant.expires_on, grant.request_id) == ("standard", None, None)
    assert active_roles(run.db, namesake.id) == set()  # policy: only her own direct report
    assert run.db.query(AccessRequest).count() == 0


def test_case_NB030_005(tb):
    """A security analyst recorded the security approval on her own privileged request: nobody approves their own
    access, so the security approval is still missing; hold for security."""
    nadia = EmployeeFactory(
        name="Nadia Krause", department=INFORMATION_SECURITY, title="Security Analyst", manager_id=KATRIN_WOLFF
    )
    AccessGrantFactory(employee=nadia, role_id="CRM-READ")
    request = AccessRequestFactory(employee=nadia, role_id="CRM-EXPORT", created_at=days_ago(4))
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="line_manager", decided_at=days_ago(4, 15))
    ApprovalFactory(request=request, approver_id="E-1004", capacity="system_owner", decided_at=days_ago(3))
    ApprovalFactory(request=request, approver=nadia, capacity="security", decided_at=days_ago(3, hour=16))
    ticket = DeskTicketFactory(employee=nadia, subject="CRM export role")

    run = tb.run(
        User(
            says="I'm in information security and I need the CRM export role for the data-leak review. Katrin and "
            "Leonie approved it, and I added the security approval myself since that's my team. Please grant it.",
            knows=employee_facts(nadia),
        ),
        golden=[
            *desk_opening(nadia, call("list_systems"), requests_of(nadia)),
            *hold(
                ticket.id,
                "access",
                "approval_required",
                f"CRM-EXPORT is privileged; the security approval on {request.id} is Nadia Krause's own, which "
                "does not count. Waiting for another security approver.",
                queue="security",
            ),
        ],
        reply="Katrin and Leonie's approvals count, but nobody can approve their own access, so the security "
        "approval you gave yourself doesn't count. I've sent the request to the security team for another "
        "approver.",
        traps=[grant_access(nadia, "CRM-EXPORT", request_id=request.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "access", "approval_required", "security")
    assert "CRM-EXPORT" not in active_roles(run.db, nadia.id)  # policy: nobody approves their own access
    assert run.db.get(AccessRequest, request.id).status == "awaiting_approval"


def test_case_NB030_006(tb):
    """The line manager refused the request for the payment approver role: reject it (approval_refused), grant
    nothing, ticket solved."""
    lead = EmployeeFactory(
        name="Greta Arndt",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    timo = EmployeeFactory(name="Timo Seidel", department=PAYMENTS_OPS, title="Payments Clerk", manager=lead)
    AccessGrantFactory(employee=timo, role_id="PAY-READ")
    request = AccessRequestFactory(employee=timo, role_id="PAY-APPROVE", created_at=days_ago(5))
    ApprovalFactory(request=request, approver_id=INES_MARQUARDT, capacity="system_owner", decided_at=days_ago(4))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decision="refused", decided_at=days_ago(2))
    ticket = DeskTicketFactory(employee=timo, subject="Approver role")

    run = tb.run(
        User(
            says="My request for the payment approver role has been sitting there all week. Ines already approved "
            "it as the owner of the payments hub, so can you give it to me now?",
            knows=employee_facts(timo),
        ),
        golden=[
            *desk_opening(timo, requests_of(timo), call("list_systems")),
            call("reject_access_request", request_id=request.id, reason="approval_refused"),
            *refused(
                ticket.id,
                "access",
                "approval_refused",
                f"Line manager {lead.name} refused {request.id} (PAY-APPROVE); request rejected.",
            ),
        ],
        traps=[grant_access(timo, "PAY-APPROVE")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", "approval_refused", None)
    r = run.db.get(AccessRequest, request.id)
    assert (r.status, r.reject_reason) == ("rejected", "approval_refused")  # policy: a refusal ends the request
    assert active_roles(run.db, timo.id) == {"PAY-READ"}


def test_case_NB030_007(tb):
    """Analyst role (standard, medium-risk warehouse) asked for by the employee with no request and no open ticket:
    create the ticket, record the request and hold for the line manager (no queue)."""
    lead = EmployeeFactory(name="Ayla Kaiser", department=DATA_ANALYTICS, title="Analytics Lead", grade="manager")
    lukas = EmployeeFactory(name="Lukas Falk", department=DATA_ANALYTICS, title="Junior Data Analyst", manager=lead)
    AccessGrantFactory(employee=lukas, role_id="DWH-READ")
    old, new_id = finished_desk_ticket(lukas, "Laptop setup", days_ago(30))

    run = tb.run(
        User(
            says="Hi, I'm a junior analyst and I need the analyst role in the data warehouse to query the "
            "pseudonymised data for my first project. Nothing has been requested yet. Can you set that up?",
            knows=employee_facts(lukas),
        ),
        golden=[
            *desk_opening(lukas),
            create_ticket(lukas, "Data warehouse analyst role", "access"),
            call("list_systems"),
            grants_of(lukas),
            requests_of(lukas),
            call("create_access_request", employee_id=lukas.id, role_id="DWH-ANALYST", raised_by=lukas.id),
            *hold(
                new_id,
                None,
                "approval_required",
                "DWH-ANALYST request recorded; waiting for the line manager's approval.",
            ),
        ],
        traps=[grant_access(lukas, "DWH-ANALYST")],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.employee_id, t.requester_id, t.account_id) == (lukas.id, None, None)
    assert t.outcome == ("hold", "normal", "access", "approval_required", None)
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.kind, r.status) == (
        lukas.id,
        "DWH-ANALYST",
        lukas.id,
        "standard",
        "awaiting_approval",
    )
    assert active_roles(run.db, lukas.id) == {"DWH-READ"}  # policy: no grant before the manager approves
    assert run.db.get(Ticket, old.id).status == "solved"


@pytest.mark.distractors
def test_case_NB030_008(tb):
    """Payments hub administrator (privileged) for an engineer: the 'system owner' approval came from the owner's
    deputy, not the owner; security and the manager approved. The owner's approval is missing: hold for the
    payments team."""
    lead = EmployeeFactory(
        name="Timo Berger", department=TECHNOLOGY, title="Engineering Manager", grade="manager", manager_id=DIETER_HAHN
    )
    deputy = EmployeeFactory(
        name="Selin Falk",
        department=PAYMENTS_OPS,
        title="Deputy Head of Payments Operations",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    yara = EmployeeFactory(name="Yara Krause", department=TECHNOLOGY, title="Payments Platform Engineer", manager=lead)
    AccessGrantFactory(employee=yara, role_id="PAY-READ")
    request = AccessRequestFactory(employee=yara, role_id="PAY-ADMIN", created_at=days_ago(5))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(5, hour=13))
    ApprovalFactory(request=request, approver=deputy, capacity="system_owner", decided_at=days_ago(3))
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="security", decided_at=days_ago(2))
    ticket = DeskTicketFactory(employee=yara, subject="Payments hub admin role")

    run = tb.run(
        User(
            says="My request for the payments hub administrator role has all three approvals: Timo, Selin for the "
            "payments side while Ines is away, and Katrin from security. Could you grant it?",
            knows=employee_facts(yara),
        ),
        golden=[
            *desk_opening(yara, requests_of(yara), call("list_systems")),
            *hold(
                ticket.id,
                "access",
                "approval_required",
                f"PAY-ADMIN: the system owner approval on {request.id} is from {deputy.name}, not the owner "
                f"({INES_MARQUARDT}). Waiting for the owner.",
                queue="payments_team",
            ),
        ],
        reply="The approvals from Timo and from Katrin for security count, but the system owner's approval must come "
        "from the payments hub owner, Ines Marquardt, not her deputy. I've sent the request to the payments team; "
        "the role is granted once Ines approves.",
        traps=[grant_access(yara, "PAY-ADMIN", request_id=request.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "access", "approval_required", "payments_team")
    assert active_roles(run.db, yara.id) == {"PAY-READ"}  # policy: only the owner gives the owner's approval
    assert run.db.get(AccessRequest, request.id).status == "awaiting_approval"


# --------------------------------------------------------------------------- NB031 segregation of duties, auditors


@pytest.mark.pushback
def test_case_NB031_001(tb):
    """The head of payments asks for the approver role for her clerk, who holds the initiator role: segregation of
    duties refuses it whatever her seniority; reject the request."""
    leon = EmployeeFactory(
        name="Henrik Horn", department=PAYMENTS_OPS, title="Senior Payments Clerk", manager_id=INES_MARQUARDT
    )
    AccessGrantFactory(employee=leon, role_id="PAY-READ")
    initiator = AccessGrantFactory(employee=leon, role_id="PAY-INIT")
    request = AccessRequestFactory(employee=leon, role_id="PAY-APPROVE", raised_by_id=INES_MARQUARDT)
    ticket = DeskTicketFactory(employee_id=INES_MARQUARDT, subject="Approver role for Henrik")
    ines = seeded(INES_MARQUARDT)

    run = tb.run(
        User(
            says="This is Ines Marquardt, head of payments operations. Half my approvers are off sick and the "
            "salary run has to go out tonight. Give Henrik Horn the payment approver role now, on top of what he "
            "has. I own the payments hub, I approve it.",
            knows=employee_facts(ines),
            persona="A senior manager under time pressure, used to getting her way.",
            rules=("If refused, insist once that as head of payments and system owner you can make the exception.",),
        ),
        golden=[
            *desk_opening(
                ines,
                call("search_employees", name="Henrik Horn"),
                call("list_systems"),
                grants_of(leon),
                requests_of(leon),
            ),
            call("reject_access_request", request_id=request.id, reason="sod_conflict"),
            *refused(
                ticket.id,
                "access",
                "sod_conflict",
                f"{leon.id} holds PAY-INIT ({initiator.id}), which conflicts with PAY-APPROVE; {request.id} rejected.",
            ),
        ],
        reply="I can't give Henrik the payment approver role: he holds the payment initiator role, and nobody may "
        "hold both, whoever approves it. Another approver on your team who does not initiate payments can release "
        "tonight's run.",
        traps=[grant_access(leon, "PAY-APPROVE")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", "sod_conflict", None)
    r = run.db.get(AccessRequest, request.id)
    assert (r.status, r.reject_reason) == ("rejected", "sod_conflict")
    assert active_roles(run.db, leon.id) == {"PAY-READ", "PAY-INIT"}  # policy: never initiator and approver


@pytest.mark.two_requests
def test_case_NB031_002(tb):
    """A clerk gives up the approver role and takes the initiator role, fully approved: revoke the approver role first
    (no_longer_needed), then grant the initiator role against its request."""
    lead = EmployeeFactory(
        name="Selin Berger",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    pavel = EmployeeFactory(name="Pavel Ziegler", department=PAYMENTS_OPS, title="Payments Clerk", manager=lead)
    approver = AccessGrantFactory(employee=pavel, role_id="PAY-APPROVE")
    request = AccessRequestFactory(employee=pavel, role_id="PAY-INIT", created_at=days_ago(3))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(3, hour=12))
    ApprovalFactory(request=request, approver_id=INES_MARQUARDT, capacity="system_owner", decided_at=days_ago(2))
    ticket = DeskTicketFactory(employee=pavel, subject="Swap approver for initiator")

    run = tb.run(
        User(
            says="From Monday I'm entering payments instead of approving them. Please take the approver role off "
            "me, I won't need it any more, and switch on the initiator role Selin and Ines approved.",
            knows=employee_facts(pavel),
        ),
        golden=[
            *desk_opening(pavel, grants_of(pavel), requests_of(pavel), call("list_systems")),
            call("revoke_access", grant_id=approver.id, reason="no_longer_needed"),
            grant_access(pavel, "PAY-INIT", request_id=request.id),
            solved(ticket.id, "access"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    old = run.db.get(AccessGrant, approver.id)
    assert (old.status, old.revoke_reason) == ("revoked", "no_longer_needed")
    assert active_roles(run.db, pavel.id) == {"PAY-INIT"}  # policy: never both at once
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"


@pytest.mark.two_requests
def test_case_NB031_003(tb):
    """An internal auditor asks for the payments viewer and the payment initiator role, both approved by her manager:
    grant the read-only one, refuse the initiator (auditor_read_only)."""
    head = EmployeeFactory(
        name="Greta Krause", department=INTERNAL_AUDIT, title="Head of Internal Audit", grade="director"
    )
    ayla = EmployeeFactory(name="Ayla Nowak", department=INTERNAL_AUDIT, title="Internal Auditor", manager=head)
    viewer = AccessRequestFactory(employee=ayla, role_id="PAY-READ", created_at=days_ago(2, hour=9))
    initiator = AccessRequestFactory(employee=ayla, role_id="PAY-INIT", created_at=days_ago(2, hour=9))
    ApprovalFactory(request=viewer, approver=head, capacity="line_manager")
    ApprovalFactory(request=initiator, approver=head, capacity="line_manager")
    ApprovalFactory(request=initiator, approver_id=INES_MARQUARDT, capacity="system_owner")
    ticket = DeskTicketFactory(employee=ayla, subject="Payments hub access for the audit")

    run = tb.run(
        User(
            says="I'm auditing the payment controls this quarter. I need to see the payment orders, and I also want "
            "the initiator role so I can test whether a payment can slip through without a second approval. Both "
            "requests are approved.",
            knows=employee_facts(ayla),
        ),
        golden=[
            *desk_opening(ayla, requests_of(ayla), grants_of(ayla), call("list_systems")),
            grant_access(ayla, "PAY-READ", request_id=viewer.id),
            call("reject_access_request", request_id=initiator.id, reason="auditor_read_only"),
            *refused(
                ticket.id,
                "access",
                "auditor_read_only",
                f"PAY-READ granted. {initiator.id} (PAY-INIT) rejected: auditors hold read-only roles only.",
            ),
        ],
        traps=[grant_access(ayla, "PAY-INIT")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", "auditor_read_only", None)
    assert active_roles(run.db, ayla.id) == {"PAY-READ"}  # policy: auditors are read-only
    r = run.db.get(AccessRequest, initiator.id)
    assert (r.status, r.reject_reason) == ("rejected", "auditor_read_only")
    assert run.db.get(AccessRequest, viewer.id).status == "fulfilled"


@pytest.mark.distractors
def test_case_NB031_004(tb):
    """Booking reconciliation for an accountant whose manual booking role was revoked last month: no conflict with a
    revoked grant; manager and core banking owner approved, so grant it."""
    boss = EmployeeFactory(name="Oskar Falk", department=FINANCE, title="Head of Accounting", grade="director")
    bianca = EmployeeFactory(name="Bianca Yilmaz", department=FINANCE, title="Senior Accountant", manager=boss)
    AccessGrantFactory(employee=bianca, role_id="CBS-READ")
    AccessGrantFactory(
        employee=bianca,
        role_id="CBS-POST",
        status="revoked",
        revoked_at=days_ago(27),
        revoke_reason="no_longer_needed",
    )
    request = AccessRequestFactory(employee=bianca, role_id="CBS-RECON", created_at=days_ago(6))
    ApprovalFactory(request=request, approver=boss, capacity="line_manager", decided_at=days_ago(5))
    ApprovalFactory(request=request, approver_id=DIETER_HAHN, capacity="system_owner", decided_at=days_ago(2))
    ticket = DeskTicketFactory(employee=bianca, subject="Reconciliation role")

    run = tb.run(
        User(
            says="I've moved from posting manual bookings to signing them off. My reconciliation role request is "
            "approved by Oskar and Dieter. A colleague said I might be blocked because of my old booking role, is "
            "that right?",
            knows=employee_facts(bianca),
        ),
        golden=[
            *desk_opening(bianca, grants_of(bianca), call("list_systems"), requests_of(bianca)),
            grant_access(bianca, "CBS-RECON", request_id=request.id),
            solved(ticket.id, "access"),
        ],
        reply="You're not blocked: your manual booking role was revoked last month, so it no longer conflicts. "
        "With Oskar's and Dieter's approvals, I've switched on the booking reconciliation role.",
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    assert active_roles(run.db, bianca.id) == {
        "CBS-READ",
        "CBS-RECON",
    }  # policy: a revoked grant conflicts with nothing
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"


def test_case_NB031_005(tb):
    """An internal auditor asks for the warehouse analyst role, with nothing requested or approved yet: the auditor
    rule refuses it before any approval is sought, so no request is recorded and nothing is held."""
    head = EmployeeFactory(
        name="Oskar Arndt", department=INTERNAL_AUDIT, title="Head of Internal Audit", grade="director"
    )
    emil = EmployeeFactory(name="Emil Horn", department=INTERNAL_AUDIT, title="IT Auditor", manager=head)
    AccessGrantFactory(employee=emil, role_id="DWH-READ")
    ticket = DeskTicketFactory(employee=emil, subject="Warehouse analyst role")

    run = tb.run(
        User(
            says="For the data-quality audit I'd like to run my own queries on the pseudonymised customer data, so "
            "I need the analyst role in the warehouse. Could you request it for me and send it to Oskar for "
            "approval?",
            knows=employee_facts(emil),
        ),
        golden=[
            *desk_opening(emil, call("list_systems"), requests_of(emil)),
            *refused(
                ticket.id,
                "access",
                "auditor_read_only",
                "Internal Audit: DWH-ANALYST is not read-only; refused. No request recorded.",
            ),
        ],
        reply="I can't request the analyst role for you: internal auditors hold read-only roles only, whoever "
        "approves. Your report viewer role in the warehouse stays as it is.",
        traps=[
            call("create_access_request", employee_id=emil.id, role_id="DWH-ANALYST", raised_by=emil.id),
            grant_access(emil, "DWH-ANALYST"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "solved",
        "normal",
        "access",
        "auditor_read_only",
        None,
    )  # refused, not held for approval
    assert run.db.query(AccessRequest).count() == 0  # policy: never record a request only to reject it
    assert active_roles(run.db, emil.id) == {"DWH-READ"}


# --------------------------------------------------------------------------- NB038 identity and who may ask


def test_case_NB038_001(tb):
    """An engineer asks for emergency payments hub access during an open incident, but her date of birth does not
    match: change nothing (no grant, no request), ticket pending (identity_failed), and urgent: a ticket about
    emergency access is urgent whatever the outcome."""
    lead = EmployeeFactory(
        name="Timo Wendt", department=TECHNOLOGY, title="Engineering Manager", grade="manager", manager_id=DIETER_HAHN
    )
    greta = EmployeeFactory(name="Greta Nowak", department=TECHNOLOGY, title="Payments Engineer", manager=lead)
    AccessGrantFactory(employee=greta, role_id="PAY-READ")
    incident = IncidentFactory(system_id=PAYMENTS_HUB, title="Outgoing SEPA batch stuck in the payments hub")
    ticket = DeskTicketFactory(employee=greta, subject="Emergency access")

    run = tb.run(
        User(
            says="Hi, Greta from payments engineering. The outgoing SEPA batch is stuck and I need the payments hub "
            f"administrator role right now to restart the routing. My employee number is {greta.id}.",
            knows=employee_facts(greta, date_of_birth="1991-02-28", **{"incident number": incident.id}),
            persona="An engineer in the middle of an outage, in a hurry.",
        ),
        golden=[
            *identify_employee(greta, date_of_birth="1991-02-28"),
            call("list_tickets", requester_id=greta.id),
            *pending(
                ticket.id,
                "emergency_access",
                "identity_failed",
                "Caller could not be verified (date of birth did not match); nothing changed.",
                priority="urgent",
            ),
        ],
        traps=[
            grant_access(greta, "PAY-ADMIN", kind="emergency", expires_on="2026-10-16"),
            call(
                "create_access_request",
                employee_id=greta.id,
                role_id="PAY-ADMIN",
                raised_by=greta.id,
                kind="emergency",
                incident_id=incident.id,
            ),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("pending", "urgent", "emergency_access", "identity_failed", None)
    assert active_roles(run.db, greta.id) == {"PAY-READ"}  # policy: no change without verification
    assert run.db.query(AccessRequest).count() == 0


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB038_002(tb):
    """A director asks for CRM access for an agent who does not report to him: refused (not_line_manager), no
    request recorded, although he insists he is senior. His own analyst's data warehouse analyst role is a standard
    role on a medium-risk system: his request as line manager is the only approval it needs, so grant it. The
    ticket takes the refusal's reason."""
    director = EmployeeFactory(
        name="Henrik Arndt", department=DATA_ANALYTICS, title="Director of Analytics", grade="director"
    )
    pavel = EmployeeFactory(name="Pavel Berger", department=DATA_ANALYTICS, title="Data Analyst", manager=director)
    lead = EmployeeFactory(name="Nadia Seidel", title="Customer Support Team Lead", grade="manager")
    oskar = EmployeeFactory(name="Oskar Kaiser", title="Customer Support Agent", manager=lead)
    AccessGrantFactory(employee=oskar, role_id="CRM-READ")
    AccessGrantFactory(employee=pavel, role_id="DWH-READ")
    ticket = DeskTicketFactory(employee=director, subject="Access for the churn project")

    run = tb.run(
        User(
            says="Henrik Arndt here, director of analytics. Oskar Kaiser from customer support is helping on my "
            "churn project; give him the CRM agent role so he can clean up contact records for us. And my analyst "
            "Pavel Berger needs the data warehouse analyst role for the same project.",
            knows=employee_facts(director),
            persona="A director who expects the desk to take his word.",
            rules=("If refused, insist once that as a director you can sign this off, then accept.",),
        ),
        golden=[
            *desk_opening(
                director,
                call("search_employees", name="Oskar Kaiser"),
                call("search_employees", name="Pavel Berger"),
                call("list_systems"),
                grants_of(pavel),
                requests_of(pavel),
            ),
            grant_access(pavel, "DWH-ANALYST"),
            *refused(
                ticket.id,
                "access",
                "not_line_manager",
                f"{director.name} is not {oskar.name}'s line manager ({lead.name} is); nothing requested for "
                f"him. DWH-ANALYST granted to {pavel.name} on his line manager's request.",
            ),
        ],
        reply="I've given Pavel the data warehouse analyst role. I can't set up Oskar's access on your request, "
        "though: only his line manager, Nadia Seidel, or Oskar himself can ask for it.",
        traps=[
            grant_access(oskar, "CRM-AGENT"),
            call("create_access_request", employee_id=oskar.id, role_id="CRM-AGENT", raised_by=director.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", "not_line_manager", None)
    assert active_roles(run.db, oskar.id) == {"CRM-READ"}
    assert active_roles(run.db, pavel.id) == {"DWH-READ", "DWH-ANALYST"}
    assert new_grant(run.db, pavel.id, "DWH-ANALYST").expires_on is None
    assert run.db.query(AccessRequest).count() == 0  # policy: no request recorded for someone else's report


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_NB038_003(tb):
    """HR asks the desk to set up a joiner's CRM roles: only the line manager asks for a joiner's access; refused
    (not_line_manager), although HR insists onboarding is theirs. In the same call HR reports a leaver whose last
    day was yesterday, which HR may: revoke his roles (leaver) and take back the laptop he handed in. The ticket
    takes the refusal's reason and the joiner category."""
    lead = EmployeeFactory(name="Pavel Falk", title="Customer Support Team Lead", grade="manager")
    joiner = EmployeeFactory(
        name="Greta Kaiser", title="Customer Support Agent", manager=lead, start_on=date(2026, 10, 19)
    )
    leaver = EmployeeFactory(
        name="Lukas Yilmaz", title="Customer Support Agent", manager=lead, leave_on=date(2026, 10, 14)
    )
    grants = [
        AccessGrantFactory(employee=leaver, role_id="CRM-READ"),
        AccessGrantFactory(employee=leaver, role_id="CRM-AGENT"),
    ]
    laptop = DeviceFactory(assigned_to=leaver)
    ticket = DeskTicketFactory(employee_id=MIRIAM_ADLER, subject="Onboarding Greta Kaiser")

    run = tb.run(
        User(
            says="Miriam Adler, HR. Greta Kaiser starts in customer support on Monday and her manager is on "
            "holiday. Please give her the CRM viewer and CRM agent roles so she can start working. Also, Lukas "
            "Yilmaz from the same team had his last day yesterday; he handed his laptop in to me this morning. "
            "Please close his access down.",
            knows=employee_facts(seeded(MIRIAM_ADLER)),
            rules=("If refused, insist once that HR runs onboarding for the whole bank, then accept.",),
        ),
        golden=[
            *desk_opening(
                seeded(MIRIAM_ADLER),
                call("search_employees", name="Greta Kaiser"),
                call("search_employees", name="Lukas Yilmaz"),
                grants_of(leaver),
            ),
            *[call("revoke_access", grant_id=g.id, reason="leaver") for g in grants],
            devices_of(leaver),
            call("return_device", device_id=laptop.id, condition="working"),
            *refused(
                ticket.id,
                "joiner",
                "not_line_manager",
                f"Joiner access asked by HR; only the line manager {lead.name} may ask. Nothing changed for "
                f"{joiner.name}. Leaver {leaver.name}: roles revoked, laptop returned.",
            ),
        ],
        reply="I've closed Lukas's access and booked his laptop back in. I can't set up Greta's access at HR's "
        "request, though: a joiner's access can only be asked for by her line manager, Pavel Falk. HR can report "
        "leavers to us, but not set up joiners' access.",
        traps=[
            grant_access(joiner, "CRM-READ"),
            grant_access(joiner, "CRM-AGENT"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "joiner", "not_line_manager", None)
    assert active_roles(run.db, joiner.id) == set()  # policy: HR may report leavers, not set up joiners
    assert run.db.query(AccessRequest).count() == 0
    ended = run.db.query(AccessGrant).filter(AccessGrant.employee_id == leaver.id)
    assert {(g.status, g.revoke_reason) for g in ended} == {("revoked", "leaver")}
    assert run.db.get(Device, laptop.id).status == "returned"  # policy: HR may report a leaver
