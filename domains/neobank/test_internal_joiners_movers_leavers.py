"""Internal help desk: joiners (access and devices before the first day), movers (old roles out, new roles in, the
token back) and leavers (expiry before the last day, everything revoked and returned after it)."""

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
    next_ticket_id,
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
    contractor,
    finished_desk_ticket,
    mover,
)
from domains.neobank.models import AccessGrant, AccessRequest, Device, Ticket, TicketComment
from domains.neobank.seed import (
    CARD_OPS,
    CUSTOMER_SUPPORT,
    DATA_ANALYTICS,
    DIETER_HAHN,
    INES_MARQUARDT,
    LEONIE_FISCHER,
    MIRIAM_ADLER,
    PAYMENTS_OPS,
    RAFAEL_SOUSA,
    TECHNOLOGY,
    TOBIAS_REUTER,
    seeded,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Internal help desk: who may ask and identity",
    "Internal access: roles and approvals",
    "Joiners",
    "Movers",
    "Leavers",
    "Internal desk tickets: classification, status and queues",
)

MONDAY = date(2026, 10, 19)


# --------------------------------------------------------------------------- NB034 joiners


@pytest.mark.distractors
def test_case_NB034_001(tb):
    """A support team lead sets up her joiner starting Monday: CRM viewer and CRM agent (her request is the approval)
    and the lowest standard laptop in stock, not the developer laptop with a lower id."""
    lead = EmployeeFactory(
        name="Nadia Berger", title="Customer Support Team Lead", grade="manager", manager_id=LEONIE_FISCHER
    )
    joiner = EmployeeFactory(name="Emil Arndt", title="Customer Support Agent", manager=lead, start_on=MONDAY)
    DeviceFactory(profile="developer", model="Dell XPS 15")
    laptop = DeviceFactory()
    DeviceFactory()
    DeviceFactory(kind="phone")
    ticket = DeskTicketFactory(employee=lead, subject="New starter Emil Arndt")

    run = tb.run(
        User(
            says="Hi, Nadia here from customer support. Emil Arndt joins my team on Monday. He needs to read and "
            "edit customer records in the CRM from day one, and a laptop. Could you set him up?",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(lead, call("search_employees", name="Emil Arndt"), call("list_systems"), grants_of(joiner)),
            grant_access(joiner, "CRM-READ"),
            grant_access(joiner, "CRM-AGENT"),
            call("list_device_stock", kind="laptop"),
            call("assign_device", device_id=laptop.id, employee_id=joiner.id),
            solved(ticket.id, "joiner"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "joiner", None, None)
    assert active_roles(run.db, joiner.id) == {"CRM-READ", "CRM-AGENT"}
    assert all(g.expires_on is None for g in run.db.query(AccessGrant).filter(AccessGrant.employee_id == joiner.id))
    given = run.db.query(Device).filter(Device.assigned_to_id == joiner.id).one()
    assert (given.id, given.profile) == (laptop.id, "standard")  # policy: standard profile outside Technology


@pytest.mark.two_requests
def test_case_NB034_002(tb):
    """An engineering manager sets up a Technology joiner: the core banking viewer now, the administrator role
    (privileged) recorded and held for the core banking owner; a developer laptop."""
    lead = EmployeeFactory(
        name="Oskar Wendt", department=TECHNOLOGY, title="Engineering Manager", grade="manager", manager_id=DIETER_HAHN
    )
    joiner = EmployeeFactory(
        name="Yara Nowak", department=TECHNOLOGY, title="Platform Engineer", manager=lead, start_on=MONDAY
    )
    DeviceFactory()
    dev = DeviceFactory(profile="developer", model="Dell XPS 15")
    DeviceFactory(profile="developer", model="Dell XPS 15")
    ticket = DeskTicketFactory(employee=lead, subject="Joiner Yara Nowak")

    run = tb.run(
        User(
            says="Oskar from platform engineering. Yara Nowak starts with me on Monday. Please give her read access "
            "to core banking and the core banking administrator role, she'll be on the on-call rota, plus a laptop.",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(
                lead,
                call("search_employees", name="Yara Nowak"),
                call("list_systems"),
                requests_of(joiner),
                grants_of(joiner),
            ),
            grant_access(joiner, "CBS-READ"),
            call("create_access_request", employee_id=joiner.id, role_id="CBS-ADMIN", raised_by=lead.id),
            call("list_device_stock", kind="laptop"),
            call("assign_device", device_id=dev.id, employee_id=joiner.id),
            *hold(
                ticket.id,
                "joiner",
                "approval_required",
                "CBS-READ and a developer laptop done. CBS-ADMIN is privileged: waiting for the system owner "
                "and security.",
                queue="core_banking_team",
            ),
        ],
        traps=[grant_access(joiner, "CBS-ADMIN")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "normal",
        "joiner",
        "approval_required",
        "core_banking_team",
    )
    assert active_roles(run.db, joiner.id) == {"CBS-READ"}  # policy: privileged waits for owner and security
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.status) == (
        joiner.id,
        "CBS-ADMIN",
        lead.id,
        "awaiting_approval",
    )
    assert run.db.get(Device, dev.id).assigned_to_id == joiner.id  # policy: developer profile for Technology


@pytest.mark.two_requests
def test_case_NB034_003(tb):
    """A payments team lead asks for the payments viewer for two clerks who start on Monday, with no open ticket:
    create one (joiner). Mia reports to another team lead, so she is refused (not_line_manager, nothing recorded);
    Jonas is the caller's own joiner, and a read-only role needs only the line manager, whose request it is: grant
    it now. The ticket takes the refusal's reason."""
    other_lead = EmployeeFactory(
        name="Karl Brandt",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    lead = EmployeeFactory(
        name="Selin Kaiser",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    mia = EmployeeFactory(
        name="Mia Roth", department=PAYMENTS_OPS, title="Payments Clerk", manager=other_lead, start_on=MONDAY
    )
    jonas = EmployeeFactory(
        name="Jonas Horn", department=PAYMENTS_OPS, title="Payments Clerk", manager=lead, start_on=MONDAY
    )
    new_id = next_ticket_id()

    run = tb.run(
        User(
            says="Hello, Selin Kaiser from payments operations. Two new payments clerks start on Monday, Mia Roth and "
            "Jonas Horn. Could you give them both the payments viewer role so they can find their way around on "
            "day one?",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(
                lead,
                call("search_employees", name="Mia Roth"),
                call("search_employees", name="Jonas Horn"),
                call("list_systems"),
                grants_of(jonas),
            ),
            create_ticket(lead, "Payments viewer for two joiners", "joiner"),
            grant_access(jonas, "PAY-READ"),
            *refused(
                new_id,
                None,
                "not_line_manager",
                f"{mia.name} reports to {other_lead.name}, not to {lead.name}: nothing set up for her. "
                f"{jonas.name} given PAY-READ on his line manager's request.",
            ),
        ],
        traps=[
            grant_access(mia, "PAY-READ"),
            call("create_access_request", employee_id=mia.id, role_id="PAY-READ", raised_by=lead.id),
        ],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.employee_id, t.requester_id) == (lead.id, None)
    assert t.outcome == ("solved", "normal", "joiner", "not_line_manager", None)
    assert active_roles(run.db, mia.id) == set()  # policy: only her own line manager asks for a joiner
    assert active_roles(run.db, jonas.id) == {"PAY-READ"}  # read-only: the line manager's request is enough
    assert run.db.query(AccessRequest).count() == 0


@pytest.mark.two_requests
def test_case_NB034_004(tb):
    """A payments lead asks for her joiner's initiator role, a token and a laptop: the initiator role waits for the
    payments hub owner (recorded, held), so no token yet; the viewer role and a laptop are given."""
    lead = EmployeeFactory(name="Greta Horn", department=PAYMENTS_OPS, title="Payments Team Lead", grade="manager")
    joiner = EmployeeFactory(
        name="Amira Falk", department=PAYMENTS_OPS, title="Payments Clerk", manager=lead, start_on=date(2026, 10, 20)
    )
    laptop = DeviceFactory()
    token = DeviceFactory(kind="token")
    ticket = DeskTicketFactory(employee=lead, subject="Setup for Amira Falk")

    run = tb.run(
        User(
            says="Amira Falk starts in my payments team next Tuesday. She needs the payments viewer and the payment "
            "initiator role, a hardware token for the payments hub, and a laptop. Can you do all of it today?",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(
                lead,
                call("search_employees", name="Amira Falk"),
                grants_of(joiner),
                requests_of(joiner),
                call("list_systems"),
            ),
            grant_access(joiner, "PAY-READ"),
            call("create_access_request", employee_id=joiner.id, role_id="PAY-INIT", raised_by=lead.id),
            call("list_device_stock", kind="laptop"),
            call("assign_device", device_id=laptop.id, employee_id=joiner.id),
            *hold(
                ticket.id,
                "joiner",
                "approval_required",
                "PAY-READ and laptop done. PAY-INIT (high-risk payments hub) waits for the system owner; no "
                "token until it is given.",
                queue="payments_team",
            ),
        ],
        traps=[
            grant_access(joiner, "PAY-INIT"),
            call("assign_device", device_id=token.id, employee_id=joiner.id),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "normal",
        "joiner",
        "approval_required",
        "payments_team",
    )
    assert active_roles(run.db, joiner.id) == {"PAY-READ"}
    assert run.db.query(AccessRequest).one().role_id == "PAY-INIT"
    assert run.db.get(Device, token.id).status == "in_stock"  # policy: a token only with a payments role given
    assert run.db.get(Device, laptop.id).assigned_to_id == joiner.id


@pytest.mark.two_requests
def test_case_NB034_005(tb):
    """A support lead with no open ticket sets up a contractor joining Monday: create the ticket (joiner), give the
    CRM agent role until the contract ends, and refuse the company phone (contractor_limit)."""
    lead = EmployeeFactory(
        name="Timo Nowak", title="Customer Support Team Lead", grade="manager", manager_id=LEONIE_FISCHER
    )
    yara = contractor("Yara Falk", "Customer Support Agent", date(2027, 1, 15), manager=lead, start_on=MONDAY)
    phone = DeviceFactory(kind="phone")
    old, new_id = finished_desk_ticket(lead, "Headset", days_ago(60), status="closed")

    run = tb.run(
        User(
            says="Timo Nowak, customer support. We have a contractor, Yara Falk, starting on Monday to help with the "
            "backlog. She needs the CRM agent role and a company phone for the callback queue. Thanks!",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(lead),
            create_ticket(lead, "Contractor joiner Yara Falk", "joiner"),
            call("search_employees", name="Yara Falk"),
            call("list_systems"),
            grants_of(yara),
            grant_access(yara, "CRM-AGENT", expires_on="2027-01-15"),
            *refused(
                new_id,
                None,
                "contractor_limit",
                f"CRM-AGENT given until the contract end 2027-01-15. Phone refused: {yara.id} is a contractor.",
            ),
        ],
        traps=[call("assign_device", device_id=phone.id, employee_id=yara.id)],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.employee_id, t.requester_id) == (lead.id, None)
    assert t.outcome == ("solved", "normal", "joiner", "contractor_limit", None)
    grant = run.db.query(AccessGrant).filter(AccessGrant.employee_id == yara.id).one()
    assert (grant.role_id, grant.status, grant.expires_on) == ("CRM-AGENT", "active", date(2027, 1, 15))
    assert run.db.get(Device, phone.id).status == "in_stock"  # policy: no company phone for a contractor
    assert run.db.get(Ticket, old.id).status == "closed"


# --------------------------------------------------------------------------- NB035 movers


def test_case_NB035_001(tb):
    """A payments clerk moved to card operations: revoke the initiator role (moved), keep the viewer roles, grant the
    card support role her new manager approved, and take back her payments token."""
    old_lead = EmployeeFactory(name="Timo Krause", department=PAYMENTS_OPS, title="Payments Team Lead")
    new_lead = EmployeeFactory(
        name="Pavel Horn", department=CARD_OPS, title="Card Ops Team Lead", grade="manager", manager_id=TOBIAS_REUTER
    )
    marta = mover(
        "Marta Ziegler",
        PAYMENTS_OPS,
        days_ago(3).date(),
        department=CARD_OPS,
        title="Card Operations Agent",
        manager=new_lead,
    )
    AccessGrantFactory(employee=marta, role_id="PAY-READ")
    initiator = AccessGrantFactory(employee=marta, role_id="PAY-INIT")
    AccessGrantFactory(employee=marta, role_id="CRM-READ")
    request = AccessRequestFactory(employee=marta, role_id="CMS-SUPPORT", created_at=days_ago(3))
    ApprovalFactory(request=request, approver=new_lead, capacity="line_manager", decided_at=days_ago(2))
    laptop = DeviceFactory(assigned_to=marta)
    token = DeviceFactory(kind="token", assigned_to=marta)
    ticket = DeskTicketFactory(employee=marta, subject="Moved to card operations")

    run = tb.run(
        User(
            says=f"I moved from payments to card operations on Monday. Pavel approved my card support role. Can you "
            f"sort out my access? {old_lead.name}, my old boss, said I can keep everything from payments in case "
            "they need me.",
            knows=employee_facts(marta),
        ),
        golden=[
            *desk_opening(marta, grants_of(marta), requests_of(marta), call("list_systems"), devices_of(marta)),
            call("revoke_access", grant_id=initiator.id, reason="moved"),
            grant_access(marta, "CMS-SUPPORT", request_id=request.id),
            call("return_device", device_id=token.id, condition="working"),
            solved(ticket.id, "mover"),
        ],
        reply="Your payment initiator role has been removed, as it belongs to your old department; the read-only "
        "payments and CRM viewer roles stay. Card support is switched on, and please hand your payments token in "
        "to IT, as you no longer need it.",
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "mover", None, None)
    old = run.db.get(AccessGrant, initiator.id)
    assert (old.status, old.revoke_reason) == ("revoked", "moved")  # policy: old department's roles go
    assert active_roles(run.db, marta.id) == {"PAY-READ", "CRM-READ", "CMS-SUPPORT"}
    assert run.db.get(Device, token.id).status == "returned"
    assert run.db.get(Device, laptop.id).status == "assigned"


@pytest.mark.two_requests
def test_case_NB035_002(tb):
    """A support agent moved to the data team; her new manager asks: CRM agent revoked (moved), the analyst role
    granted on his request, the personal-data role recorded and held for the data team."""
    new_lead = EmployeeFactory(
        name="Henrik Wendt", department=DATA_ANALYTICS, title="Analytics Lead", grade="manager", manager_id=RAFAEL_SOUSA
    )
    bianca = mover(
        "Bianca Seidel",
        CUSTOMER_SUPPORT,
        days_ago(1).date(),
        department=DATA_ANALYTICS,
        title="Junior Data Analyst",
        manager=new_lead,
    )
    AccessGrantFactory(employee=bianca, role_id="CRM-READ")
    agent = AccessGrantFactory(employee=bianca, role_id="CRM-AGENT")
    ticket = DeskTicketFactory(employee=new_lead, subject="Bianca Seidel joined the data team")

    run = tb.run(
        User(
            says="Henrik, analytics lead. Bianca Seidel moved into my team from customer support yesterday. Please "
            "give her the analyst role in the warehouse and the personal data analyst role, and clean up whatever "
            "she no longer needs.",
            knows=employee_facts(new_lead),
        ),
        golden=[
            *desk_opening(
                new_lead,
                call("search_employees", name="Bianca Seidel"),
                grants_of(bianca),
                requests_of(bianca),
                call("list_systems"),
            ),
            call("revoke_access", grant_id=agent.id, reason="moved"),
            grant_access(bianca, "DWH-ANALYST"),
            call("create_access_request", employee_id=bianca.id, role_id="DWH-PII", raised_by=new_lead.id),
            *hold(
                ticket.id,
                "mover",
                "approval_required",
                "CRM-AGENT revoked, DWH-ANALYST granted. DWH-PII is privileged: waiting for the data "
                "warehouse owner and security.",
                queue="data_team",
            ),
        ],
        traps=[grant_access(bianca, "DWH-PII")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "mover", "approval_required", "data_team")
    assert run.db.get(AccessGrant, agent.id).revoke_reason == "moved"
    assert active_roles(run.db, bianca.id) == {"CRM-READ", "DWH-ANALYST"}
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.status) == (
        bianca.id,
        "DWH-PII",
        new_lead.id,
        "awaiting_approval",
    )


@pytest.mark.pushback
def test_case_NB035_003(tb):
    """A card agent moved to payments; the approver role was approved by his former manager and the owner: the former
    manager does not count, so revoke card support (moved) and hold the approver role for the new manager."""
    old_lead = EmployeeFactory(
        name="Ayla Wendt", department=CARD_OPS, title="Card Ops Team Lead", manager_id=TOBIAS_REUTER
    )
    new_lead = EmployeeFactory(
        name="Lukas Horn",
        department=PAYMENTS_OPS,
        title="Payments Team Lead",
        grade="manager",
        manager_id=INES_MARQUARDT,
    )
    emil = mover(
        "Emil Nowak", CARD_OPS, days_ago(2).date(), department=PAYMENTS_OPS, title="Payments Clerk", manager=new_lead
    )
    support = AccessGrantFactory(employee=emil, role_id="CMS-SUPPORT")
    AccessGrantFactory(employee=emil, role_id="CMS-READ")
    request = AccessRequestFactory(employee=emil, role_id="PAY-APPROVE", created_at=days_ago(6))
    ApprovalFactory(request=request, approver=old_lead, capacity="line_manager", decided_at=days_ago(5))
    ApprovalFactory(request=request, approver_id=INES_MARQUARDT, capacity="system_owner", decided_at=days_ago(4))
    ticket = DeskTicketFactory(employee=emil, subject="Access after my move")

    run = tb.run(
        User(
            says="I moved to payments on Tuesday. Before I left cards, Ayla approved my payment approver request and "
            "Ines signed it off too. Please switch it on and tidy up my old card access.",
            knows=employee_facts(emil),
            rules=("If refused, insist once that Ayla was your manager when she approved it, then accept the answer.",),
        ),
        golden=[
            *desk_opening(emil, grants_of(emil), call("list_systems"), requests_of(emil)),
            call("revoke_access", grant_id=support.id, reason="moved"),
            *hold(
                ticket.id,
                "mover",
                "approval_required",
                f"CMS-SUPPORT revoked. {request.id}: line manager approval is from the former manager "
                f"{old_lead.name}; waiting for {new_lead.name}.",
            ),
        ],
        reply="I've removed your card support role. The approver role needs your current line manager's approval: "
        "Ayla approved as your manager in cards, but your line manager is now Lukas Horn, so the request waits for "
        "him; the owner's approval from Ines stands.",
        traps=[grant_access(emil, "PAY-APPROVE", request_id=request.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "mover", "approval_required", None)
    assert run.db.get(AccessGrant, support.id).revoke_reason == "moved"
    assert active_roles(run.db, emil.id) == {"CMS-READ"}  # policy: a former manager's approval does not count
    assert run.db.get(AccessRequest, request.id).status == "awaiting_approval"


def test_case_NB035_004(tb):
    """An accountant moved to customer support and has no open ticket: create one (mover), revoke the manual booking
    role (moved; the viewer stays), and record the CRM agent role she asks for, held for her new manager."""
    new_lead = EmployeeFactory(
        name="Oskar Nowak", title="Customer Support Team Lead", grade="manager", manager_id=LEONIE_FISCHER
    )
    greta = mover("Greta Berger", "Finance", date(2026, 10, 15), title="Customer Support Agent", manager=new_lead)
    AccessGrantFactory(employee=greta, role_id="CBS-READ")
    booking = AccessGrantFactory(employee=greta, role_id="CBS-POST")
    _, new_id = finished_desk_ticket(greta, "Printer", days_ago(100))

    run = tb.run(
        User(
            says="Today is my first day in customer support, I came over from finance. I need the CRM agent role "
            "for my new job. And I suppose I don't need the finance stuff any more?",
            knows=employee_facts(greta),
        ),
        golden=[
            *desk_opening(greta),
            create_ticket(greta, "Access after move to support", "mover"),
            grants_of(greta),
            requests_of(greta),
            call("list_systems"),
            call("revoke_access", grant_id=booking.id, reason="moved"),
            call("create_access_request", employee_id=greta.id, role_id="CRM-AGENT", raised_by=greta.id),
            *hold(
                new_id,
                None,
                "approval_required",
                f"CBS-POST revoked (moved from Finance). CRM-AGENT requested; waiting for {new_lead.name}.",
            ),
        ],
        traps=[grant_access(greta, "CRM-AGENT")],
    )

    run.expect_golden()
    t = run.db.get(Ticket, new_id)
    assert (t.employee_id, t.requester_id) == (greta.id, None)
    assert t.outcome == ("hold", "normal", "mover", "approval_required", None)
    assert run.db.get(AccessGrant, booking.id).revoke_reason == "moved"
    assert active_roles(run.db, greta.id) == {"CBS-READ"}  # policy: the new role waits for the new manager
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.status) == (
        greta.id,
        "CRM-AGENT",
        greta.id,
        "awaiting_approval",
    )


def test_case_NB035_005(tb):
    """A payments clerk moved to Technology: revoke the initiator role (moved); the payments hub administrator role
    belongs to Technology and stays, so she still needs her token; her laptop stays too."""
    new_lead = EmployeeFactory(
        name="Henrik Nowak", department=TECHNOLOGY, title="Engineering Manager", grade="manager", manager_id=DIETER_HAHN
    )
    ayla = mover(
        "Ayla Ziegler",
        PAYMENTS_OPS,
        days_ago(7).date(),
        department=TECHNOLOGY,
        title="Payments Platform Engineer",
        manager=new_lead,
    )
    initiator = AccessGrantFactory(employee=ayla, role_id="PAY-INIT")
    AccessGrantFactory(employee=ayla, role_id="PAY-ADMIN", granted_at=days_ago(6, hour=11))
    laptop = DeviceFactory(assigned_to=ayla)
    token = DeviceFactory(kind="token", assigned_to=ayla)
    ticket = DeskTicketFactory(employee=ayla, subject="Clean-up after my move")

    run = tb.run(
        User(
            says="I moved from payments operations into the payments platform team last week. Could you clean up "
            "my access? And I guess I hand my payments token back now that I'm an engineer?",
            knows=employee_facts(ayla),
        ),
        golden=[
            *desk_opening(ayla, grants_of(ayla), call("list_systems"), devices_of(ayla)),
            call("revoke_access", grant_id=initiator.id, reason="moved"),
            solved(ticket.id, "mover"),
        ],
        reply="I've removed the payment initiator role from your old job. Your payments hub administrator role "
        "belongs to Technology, so it stays, and you keep your token: you still need it for that role.",
        traps=[call("return_device", device_id=token.id, condition="working")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "mover", None, None)
    assert run.db.get(AccessGrant, initiator.id).revoke_reason == "moved"
    assert active_roles(run.db, ayla.id) == {"PAY-ADMIN"}
    assert run.db.get(Device, token.id).status == "assigned"  # policy: a payments role remains, so the token stays
    assert run.db.get(Device, laptop.id).status == "assigned"


# --------------------------------------------------------------------------- NB036 leavers


def test_case_NB036_001(tb):
    """A manager reports that her analyst leaves on 25 October: set every grant without expiry, or expiring later,
    to end that day; a grant that ends sooner and the devices stay as they are."""
    lead = EmployeeFactory(name="Selin Horn", department=DATA_ANALYTICS, title="Analytics Lead", grade="manager")
    pavel = EmployeeFactory(
        name="Pavel Wendt", department=DATA_ANALYTICS, title="Data Analyst", manager=lead, leave_on=date(2026, 10, 25)
    )
    report = AccessGrantFactory(employee=pavel, role_id="DWH-READ")
    analyst = AccessGrantFactory(employee=pavel, role_id="DWH-ANALYST")
    crm = AccessGrantFactory(employee=pavel, role_id="CRM-READ", kind="temporary", expires_on=date(2026, 10, 20))
    cards = AccessGrantFactory(employee=pavel, role_id="CMS-READ", kind="temporary", expires_on=date(2026, 11, 12))
    laptop = DeviceFactory(assigned_to=pavel)
    ticket = DeskTicketFactory(employee=lead, subject="Leaver Pavel Wendt")

    run = tb.run(
        User(
            says="Pavel Wendt in my team has resigned; his last day is Sunday the 25th. HR has the date in the "
            "system. Please shut all his access off today so we're safe.",
            knows=employee_facts(lead),
        ),
        golden=[
            *desk_opening(lead, call("search_employees", name="Pavel Wendt"), grants_of(pavel)),
            call("set_access_expiry", grant_id=report.id, expires_on="2026-10-25"),
            call("set_access_expiry", grant_id=analyst.id, expires_on="2026-10-25"),
            call("set_access_expiry", grant_id=cards.id, expires_on="2026-10-25"),
            solved(ticket.id, "leaver"),
        ],
        reply="Pavel keeps his access until his last day: every role now ends on 25 October 2026 (his CRM viewer "
        "role already ends on the 20th). Nothing is switched off before then, and he hands in his laptop on his "
        "last day.",
        traps=[call("revoke_access", grant_id=analyst.id, reason="leaver")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "leaver", None, None)
    grants = {g.id: g for g in run.db.query(AccessGrant).filter(AccessGrant.employee_id == pavel.id)}
    assert {g.status for g in grants.values()} == {"active"}  # policy: nothing revoked before the last day
    assert [grants[g.id].expires_on for g in (report, analyst, crm, cards)] == [
        date(2026, 10, 25),
        date(2026, 10, 25),
        date(2026, 10, 20),  # ends sooner: left alone
        date(2026, 10, 25),
    ]
    assert run.db.get(Device, laptop.id).status == "assigned"


def test_case_NB036_002(tb):
    """HR reports a card agent whose last day was yesterday: revoke all three roles (leaver), take back the laptop and
    the token, and report the phone he says he lost as lost."""
    lead = EmployeeFactory(name="Greta Ziegler", department=CARD_OPS, title="Card Ops Team Lead", grade="manager")
    emil = EmployeeFactory(
        name="Emil Krause",
        department=CARD_OPS,
        title="Card Operations Agent",
        manager=lead,
        leave_on=date(2026, 10, 14),
    )
    grants = [
        AccessGrantFactory(employee=emil, role_id="CMS-READ"),
        AccessGrantFactory(employee=emil, role_id="CMS-SUPPORT"),
        AccessGrantFactory(employee=emil, role_id="CRM-READ"),
    ]
    laptop = DeviceFactory(assigned_to=emil)
    token = DeviceFactory(kind="token", assigned_to=emil)
    phone = DeviceFactory(kind="phone", assigned_to=emil)
    ticket = DeskTicketFactory(employee_id=MIRIAM_ADLER, subject="Leaver Emil Krause")

    run = tb.run(
        User(
            says="Miriam Adler from HR. Emil Krause in card operations left yesterday. He handed his laptop and "
            "his token in to me this morning, but says he lost his company phone last week. Please close "
            "everything down.",
            knows=employee_facts(seeded(MIRIAM_ADLER)),
        ),
        golden=[
            *desk_opening(seeded(MIRIAM_ADLER), call("search_employees", name="Emil Krause"), grants_of(emil)),
            *[call("revoke_access", grant_id=g.id, reason="leaver") for g in grants],
            devices_of(emil),
            call("return_device", device_id=laptop.id, condition="working"),
            call("return_device", device_id=token.id, condition="working"),
            call("report_device_lost", device_id=phone.id),
            solved(ticket.id, "leaver"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "leaver", None, None)
    assert {(g.status, g.revoke_reason) for g in run.db.query(AccessGrant)} == {("revoked", "leaver")}
    assert [run.db.get(Device, d.id).status for d in (laptop, token, phone)] == ["returned", "returned", "lost"]
    assert run.db.query(TicketComment).count() == 0


@pytest.mark.two_requests
def test_case_NB036_003(tb):
    """A colleague (neither manager nor HR) reports that a teammate leaves and asks to cut her access: refused
    (not_line_manager), nothing changed for her. He also gives up a role of his own that he no longer needs:
    revoke it (no_longer_needed). The ticket takes the refusal's reason and the leaver category."""
    lead = EmployeeFactory(name="Timo Falk", title="Customer Support Team Lead", grade="manager")
    peer = EmployeeFactory(name="Oskar Yilmaz", title="Customer Support Agent", manager=lead)
    nadia = EmployeeFactory(
        name="Nadia Horn", title="Customer Support Agent", manager=lead, leave_on=date(2026, 10, 30)
    )
    agent = AccessGrantFactory(employee=nadia, role_id="CRM-AGENT")
    AccessGrantFactory(employee=peer, role_id="CRM-AGENT")
    cards = AccessGrantFactory(employee=peer, role_id="CMS-READ")
    ticket = DeskTicketFactory(employee=peer, subject="Colleague leaving")

    run = tb.run(
        User(
            says="Hi, my teammate Nadia Horn is leaving at the end of the month and honestly she's been downloading "
            "a lot of customer notes. Can you remove her CRM agent access now? And while you're at it, take the "
            "card viewer role off me: the chargeback project I needed it for is over.",
            knows=employee_facts(peer),
        ),
        golden=[
            *desk_opening(peer, call("search_employees", name="Nadia Horn"), grants_of(peer)),
            call("revoke_access", grant_id=cards.id, reason="no_longer_needed"),
            *refused(
                ticket.id,
                "leaver",
                "not_line_manager",
                f"{peer.name} is not {nadia.name}'s line manager or HR; nothing changed for her. Line manager: "
                f"{lead.name}. His own CMS-READ revoked as no longer needed.",
            ),
        ],
        reply="I've removed the card viewer role from your account. I can't change Nadia's access at your request, "
        "though: only she, her line manager Timo Falk or HR can ask for that. If you're worried about what she is "
        "downloading, please raise it with Timo.",
        traps=[
            call("revoke_access", grant_id=agent.id, reason="leaver"),
            call("set_access_expiry", grant_id=agent.id, expires_on="2026-10-30"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "leaver", "not_line_manager", None)
    g = run.db.get(AccessGrant, agent.id)
    assert (g.status, g.expires_on) == ("active", None)  # policy: a peer may not ask
    own = run.db.get(AccessGrant, cards.id)
    assert (own.status, own.revoke_reason) == ("revoked", "no_longer_needed")
    assert active_roles(run.db, peer.id) == {"CRM-AGENT"}


def test_case_NB036_004(tb):
    """A contractor calls on his last day: revoke his roles now (leaver) and take back the token and his broken
    laptop (faulty)."""
    lead = EmployeeFactory(
        name="Bianca Kaiser", department=TECHNOLOGY, title="Engineering Manager", manager_id=DIETER_HAHN
    )
    lukas = contractor(
        "Lukas Krause",
        "QA Engineer",
        date(2026, 10, 15),
        department=TECHNOLOGY,
        manager=lead,
        leave_on=date(2026, 10, 15),
    )
    grants = [
        AccessGrantFactory(employee=lukas, role_id="PAY-READ", expires_on=date(2026, 10, 15)),
        AccessGrantFactory(employee=lukas, role_id="CBS-READ", expires_on=date(2026, 10, 15)),
    ]
    laptop = DeviceFactory(assigned_to=lukas, profile="developer", model="Dell XPS 15")
    token = DeviceFactory(kind="token", assigned_to=lukas)
    ticket = DeskTicketFactory(employee=lukas, subject="Last day")

    run = tb.run(
        User(
            says="Today is my last day on the contract. I'm at the IT desk with my token and laptop. The laptop's "
            "screen died on Monday, by the way. Can you close my accounts and take both back?",
            knows=employee_facts(lukas),
        ),
        golden=[
            *desk_opening(lukas, grants_of(lukas), devices_of(lukas)),
            *[call("revoke_access", grant_id=g.id, reason="leaver") for g in grants],
            call("return_device", device_id=token.id, condition="working"),
            call("return_device", device_id=laptop.id, condition="faulty"),
            solved(ticket.id, "leaver"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "leaver", None, None)
    assert {(g.status, g.revoke_reason) for g in run.db.query(AccessGrant)} == {("revoked", "leaver")}
    assert run.db.get(Device, token.id).status == "returned"
    assert run.db.get(Device, laptop.id).status == "in_repair"  # policy: a broken device comes back faulty


@pytest.mark.distractors
def test_case_NB036_005(tb):
    """HR reports that 'Lukas Arndt' has left; two employees share the name and both have leave dates. The line
    manager HR names picks the one in Finance who left yesterday: revoke his roles, take back his laptop; the
    namesake in Technology (leaving at the end of the month) is not touched."""
    boss = EmployeeFactory(name="Bianca Kaiser", department="Finance", title="Head of Accounting", grade="director")
    other_boss = EmployeeFactory(name="Pavel Berger", department=TECHNOLOGY, title="Engineering Manager")
    lukas = EmployeeFactory(
        name="Lukas Arndt", department="Finance", title="Accountant", manager=boss, leave_on=date(2026, 10, 14)
    )
    namesake = contractor(
        "Lukas Arndt",
        "QA Engineer",
        date(2026, 10, 31),
        department=TECHNOLOGY,
        manager=other_boss,
        leave_on=date(2026, 10, 31),
    )
    grants = [
        AccessGrantFactory(employee=lukas, role_id="CBS-READ"),
        AccessGrantFactory(employee=lukas, role_id="CBS-RECON"),
    ]
    other = AccessGrantFactory(employee=namesake, role_id="PAY-READ", expires_on=date(2026, 10, 31))
    laptop = DeviceFactory(assigned_to=lukas)
    other_laptop = DeviceFactory(assigned_to=namesake, profile="developer", model="Dell XPS 15")
    ticket = DeskTicketFactory(employee_id=MIRIAM_ADLER, subject="Leaver Lukas Arndt")

    run = tb.run(
        User(
            says="Miriam Adler from HR. Lukas Arndt has left the bank; he handed his laptop in to me. Please close "
            "down his access.",
            knows=employee_facts(seeded(MIRIAM_ADLER), **{"line manager": boss.name}),
        ),
        golden=[
            *desk_opening(
                seeded(MIRIAM_ADLER), call("search_employees", name="Lukas Arndt"), grants_of(lukas), devices_of(lukas)
            ),
            *[call("revoke_access", grant_id=g.id, reason="leaver") for g in grants],
            call("return_device", device_id=laptop.id, condition="working"),
            solved(ticket.id, "leaver"),
        ],
        traps=[call("revoke_access", grant_id=other.id, reason="leaver")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "leaver", None, None)
    assert {
        (g.status, g.revoke_reason) for g in run.db.query(AccessGrant).filter(AccessGrant.employee_id == lukas.id)
    } == {("revoked", "leaver")}
    assert run.db.get(Device, laptop.id).status == "returned"
    o = run.db.get(AccessGrant, other.id)
    assert (o.status, o.expires_on) == ("active", date(2026, 10, 31))  # the namesake has not left yet
    assert run.db.get(Device, other_laptop.id).status == "assigned"
