"""Internal help desk: contractors' limits, temporary access with its 30-day cap, and emergency access for an
incident."""

from __future__ import annotations

from datetime import date

import pytest

from domains.neobank.calls import (
    active_grants,
    active_roles,
    desk_opening,
    devices_of,
    employee_facts,
    grant_access,
    grants_of,
    hold,
    refused,
    replace_lost_device,
    requests_of,
    solved,
)
from domains.neobank.clock import NOW, days_ago
from domains.neobank.factories import (
    AccessGrantFactory,
    AccessRequestFactory,
    ApprovalFactory,
    DeskTicketFactory,
    DeviceFactory,
    EmployeeFactory,
    IncidentFactory,
    contractor,
)
from domains.neobank.models import AccessRequest, Device, Ticket
from domains.neobank.seed import (
    CARD_OPS,
    CORE_BANKING,
    DATA_ANALYTICS,
    DIETER_HAHN,
    INES_MARQUARDT,
    KATRIN_WOLFF,
    LEONIE_FISCHER,
    PAYMENTS_HUB,
    RAFAEL_SOUSA,
    TECHNOLOGY,
    TOBIAS_REUTER,
    seeded,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Internal access: roles and approvals",
    "Contractors",
    "Temporary and emergency access",
    "Devices: laptops, tokens and phones",
    "Internal desk tickets: classification, status and queues",
)


# --------------------------------------------------------------------------- NB032 contractors


def test_case_NB032_001(tb):
    """A contractor's analyst role, approved by her manager: grant it until the last day of her contract."""
    lead = EmployeeFactory(
        name="Ayla Horn", department=DATA_ANALYTICS, title="Analytics Lead", grade="manager", manager_id=RAFAEL_SOUSA
    )
    marta = contractor(
        "Marta Kaiser",
        "Data Analyst",
        date(2026, 12, 31),
        department=DATA_ANALYTICS,
        manager=lead,
        start_on=days_ago(45).date(),
    )
    AccessGrantFactory(employee=marta, role_id="DWH-READ", expires_on=date(2026, 12, 31))
    request = AccessRequestFactory(employee=marta, role_id="DWH-ANALYST", created_at=days_ago(2))
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(1))
    ticket = DeskTicketFactory(employee=marta, subject="Analyst role")

    run = tb.run(
        User(
            says="Hello, I'm a contractor in the data team. Ayla approved my request for the analyst role in the "
            "warehouse; can you switch it on? I'll need it for as long as I'm here.",
            knows=employee_facts(marta),
        ),
        golden=[
            *desk_opening(marta, requests_of(marta), call("list_systems"), grants_of(marta)),
            grant_access(marta, "DWH-ANALYST", expires_on="2026-12-31", request_id=request.id),
            solved(ticket.id, "access"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = active_grants(run.db, marta.id)["DWH-ANALYST"]
    assert (grant.kind, grant.expires_on) == ("standard", date(2026, 12, 31))  # policy: ends with the contract
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"


@pytest.mark.pushback
def test_case_NB032_002(tb):
    """The head of core banking insists his contractor gets the administrator role, with every approval on it:
    contractors never hold privileged roles; reject the request (contractor_limit)."""
    pavel = contractor(
        "Pavel Krause", "Platform Engineer", date(2027, 3, 31), department=TECHNOLOGY, manager_id=DIETER_HAHN
    )
    AccessGrantFactory(employee=pavel, role_id="CBS-READ", expires_on=date(2027, 3, 31))
    request = AccessRequestFactory(employee=pavel, role_id="CBS-ADMIN", raised_by_id=DIETER_HAHN)
    ApprovalFactory(request=request, approver_id=DIETER_HAHN, capacity="line_manager")
    ApprovalFactory(request=request, approver_id=DIETER_HAHN, capacity="system_owner")
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="security")
    ticket = DeskTicketFactory(employee_id=DIETER_HAHN, subject="Admin role for Pavel")

    run = tb.run(
        User(
            says="Dieter Hahn, head of the core banking platform. Pavel Krause on my team needs the core banking "
            "administrator role for the upgrade next week. Everything is approved, including security. Go ahead.",
            knows=employee_facts(seeded(DIETER_HAHN)),
            persona="A senior manager who owns the system and dislikes being told no.",
            rules=("If refused, insist once that he is your best engineer and you own the system, then accept.",),
        ),
        golden=[
            *desk_opening(
                seeded(DIETER_HAHN),
                call("search_employees", name="Pavel Krause"),
                call("list_systems"),
                requests_of(pavel),
            ),
            call("reject_access_request", request_id=request.id, reason="contractor_limit"),
            *refused(
                ticket.id,
                "access",
                "contractor_limit",
                f"{pavel.id} is a contractor; CBS-ADMIN is privileged. {request.id} rejected.",
            ),
        ],
        reply="I can't give Pavel the administrator role: he is a contractor, and contractors never hold "
        "privileged roles, whatever the approvals. A permanent engineer on your team can carry out the upgrade "
        "steps that need it.",
        traps=[grant_access(pavel, "CBS-ADMIN", expires_on="2027-03-31")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", "contractor_limit", None)
    assert active_roles(run.db, pavel.id) == {"CBS-READ"}  # policy: no privileged role for a contractor
    r = run.db.get(AccessRequest, request.id)
    assert (r.status, r.reject_reason) == ("rejected", "contractor_limit")


def test_case_NB032_003(tb):
    """A contractor asks for card support until the end of November, but his contract ends on 6 November: a temporary
    grant that ends with the contract."""
    lead = EmployeeFactory(
        name="Nadia Wendt", department=CARD_OPS, title="Card Ops Team Lead", grade="manager", manager_id=TOBIAS_REUTER
    )
    lukas = contractor("Lukas Yilmaz", "Card Operations Agent", date(2026, 11, 6), department=CARD_OPS, manager=lead)
    AccessGrantFactory(employee=lukas, role_id="CMS-READ", expires_on=date(2026, 11, 6))
    request = AccessRequestFactory(
        employee=lukas, role_id="CMS-SUPPORT", kind="temporary", needed_until=date(2026, 11, 30)
    )
    ApprovalFactory(request=request, approver=lead, capacity="line_manager")
    ticket = DeskTicketFactory(employee=lukas, subject="Temporary card support role")

    run = tb.run(
        User(
            says="I'm covering card blocks and reorders for a colleague on parental leave until the end of "
            "November. Nadia approved my temporary request. Can you set it up until 30 November?",
            knows=employee_facts(lukas),
        ),
        golden=[
            *desk_opening(lukas, requests_of(lukas), grants_of(lukas), call("list_systems")),
            grant_access(lukas, "CMS-SUPPORT", kind="temporary", expires_on="2026-11-06", request_id=request.id),
            solved(ticket.id, "access"),
        ],
        reply="Done: you have the card support role now, until 6 November 2026, the day your contract ends, not 30 "
        "November. If your contract is extended, ask us again.",
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = active_grants(run.db, lukas.id)["CMS-SUPPORT"]
    assert (grant.kind, grant.expires_on) == ("temporary", date(2026, 11, 6))  # policy: the contract end comes first


@pytest.mark.two_requests
def test_case_NB032_004(tb):
    """A contractor lost his hardware token and would like a company phone: report the token lost and hand out the
    lowest in-stock token; refuse the phone (contractor_limit)."""
    lead = EmployeeFactory(
        name="Henrik Falk", department="Payments Operations", title="Payments Team Lead", manager_id=INES_MARQUARDT
    )
    timo = contractor(
        "Timo Horn", "Payments Analyst", date(2027, 1, 31), department="Payments Operations", manager=lead
    )
    laptop = DeviceFactory(assigned_to=timo)
    token = DeviceFactory(kind="token", assigned_to=timo)
    spare_b = DeviceFactory(kind="token", serial="KB-TK-3312")
    DeviceFactory(kind="token", status="in_repair", serial="KB-TK-3301")
    phone = DeviceFactory(kind="phone")
    ticket = DeskTicketFactory(employee=timo, subject="Token lost")

    run = tb.run(
        User(
            says="I think I left my hardware token on the train yesterday, I can't log in to the payments hub "
            "without it. Could I get a new one? And while you're at it, could I get a company phone? Mine is "
            "falling apart.",
            knows=employee_facts(timo),
        ),
        golden=[
            *desk_opening(timo, devices_of(timo)),
            *replace_lost_device(token, spare_b, timo),
            *refused(
                ticket.id,
                "device",
                "contractor_limit",
                f"Token {token.id} reported lost, {spare_b.id} handed out. Phone refused: contractors get no "
                "company phone.",
            ),
        ],
        traps=[call("assign_device", device_id=phone.id, employee_id=timo.id)],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "device", "contractor_limit", None)
    assert run.db.get(Device, token.id).status == "lost"
    new = run.db.get(Device, spare_b.id)
    assert (new.status, new.assigned_to_id) == ("assigned", timo.id)
    assert run.db.get(Device, phone.id).status == "in_stock"  # policy: no company phone for a contractor
    assert run.db.get(Device, laptop.id).status == "assigned"


# --------------------------------------------------------------------------- NB033 temporary and emergency access


def test_case_NB033_001(tb):
    """Temporary analyst access asked until 20 December for a project: approved, but temporary access lasts at most
    30 days, so it ends on 14 November."""
    lead = EmployeeFactory(
        name="Greta Falk", title="Customer Support Team Lead", grade="manager", manager_id=LEONIE_FISCHER
    )
    selin = EmployeeFactory(name="Selin Arndt", title="Customer Support Specialist", manager=lead)
    AccessGrantFactory(employee=selin, role_id="CRM-AGENT")
    request = AccessRequestFactory(
        employee=selin, role_id="DWH-ANALYST", kind="temporary", needed_until=date(2026, 12, 20)
    )
    ApprovalFactory(request=request, approver=lead, capacity="line_manager")
    ticket = DeskTicketFactory(employee=selin, subject="Temporary warehouse access")

    run = tb.run(
        User(
            says="I'm on the complaints-reduction project until Christmas and need the warehouse analyst role until "
            "20 December. Greta approved my temporary request. Can you set it up for the whole period?",
            knows=employee_facts(selin),
        ),
        golden=[
            *desk_opening(selin, requests_of(selin), call("list_systems"), grants_of(selin)),
            grant_access(selin, "DWH-ANALYST", kind="temporary", expires_on="2026-11-14", request_id=request.id),
            solved(ticket.id, "access"),
        ],
        reply="The analyst role is on, as temporary access until 14 November 2026: temporary access lasts at most 30 "
        "days. Ask for it again before then if the project still needs it.",
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = active_grants(run.db, selin.id)["DWH-ANALYST"]
    assert (grant.kind, grant.expires_on) == ("temporary", date(2026, 11, 14))  # policy: at most 30 days
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"


@pytest.mark.distractors
def test_case_NB033_002(tb):
    """Emergency payments hub administrator for an engineer during an open payments incident, with security's
    approval: grant it until tomorrow; urgent. Another incident (core banking) is open too."""
    lead = EmployeeFactory(
        name="Oskar Seidel", department=TECHNOLOGY, title="Engineering Manager", manager_id=DIETER_HAHN
    )
    bianca = EmployeeFactory(
        name="Bianca Ziegler", department=TECHNOLOGY, title="Site Reliability Engineer", manager=lead
    )
    AccessGrantFactory(employee=bianca, role_id="PAY-READ")
    IncidentFactory(system_id=CORE_BANKING, title="Core banking batch slow", opened_at=days_ago(1, hour=22))
    incident = IncidentFactory(system_id=PAYMENTS_HUB, title="SEPA instant payments rejected")
    request = AccessRequestFactory(
        employee=bianca, role_id="PAY-ADMIN", kind="emergency", incident_id=incident.id, created_at=NOW
    )
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="security", decided_at=NOW)
    ticket = DeskTicketFactory(employee=bianca, subject="Emergency access PAY-ADMIN", priority="high")

    run = tb.run(
        User(
            says="We have a live incident, instant payments are being rejected. I need the payments hub administrator "
            "role right now to fix the routing. Katrin from security has approved my emergency request.",
            knows=employee_facts(bianca, **{"incident number": incident.id}),
        ),
        golden=[
            *desk_opening(
                bianca,
                call("get_incident", incident_id=incident.id),
                requests_of(bianca),
                call("list_systems"),
                grants_of(bianca),
            ),
            grant_access(bianca, "PAY-ADMIN", kind="emergency", expires_on="2026-10-16", request_id=request.id),
            solved(ticket.id, "emergency_access", priority="urgent"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "urgent", "emergency_access", None, None)
    grant = active_grants(run.db, bianca.id)["PAY-ADMIN"]
    assert (grant.kind, grant.expires_on, grant.request_id) == ("emergency", date(2026, 10, 16), request.id)


def test_case_NB033_003(tb):
    """Emergency core banking administrator asked for an incident that was resolved this morning: refused
    (no_open_incident), no request recorded; the ticket is still urgent."""
    lead = EmployeeFactory(
        name="Henrik Seidel", department=TECHNOLOGY, title="Engineering Manager", manager_id=DIETER_HAHN
    )
    greta = EmployeeFactory(name="Greta Yilmaz", department=TECHNOLOGY, title="Platform Engineer", manager=lead)
    AccessGrantFactory(employee=greta, role_id="CBS-READ")
    incident = IncidentFactory(
        system_id=CORE_BANKING,
        title="Interest accrual job failed",
        status="resolved",
        opened_at=days_ago(1, hour=23),
        resolved_at=days_ago(0, hour=8),
    )
    ticket = DeskTicketFactory(employee=greta, subject="Emergency admin access")

    run = tb.run(
        User(
            says="I need emergency administrator access to core banking for the interest accrual incident, I want to "
            "rerun the job myself to be sure it's fixed. Can you switch it on?",
            knows=employee_facts(greta, **{"incident number": incident.id}),
        ),
        golden=[
            *desk_opening(greta, call("get_incident", incident_id=incident.id)),
            *refused(
                ticket.id,
                "emergency_access",
                "no_open_incident",
                f"{incident.id} was resolved at 08:00 today; no emergency access without an open incident.",
                priority="urgent",
            ),
        ],
        traps=[grant_access(greta, "CBS-ADMIN", kind="emergency", expires_on="2026-10-16")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "solved",
        "urgent",
        "emergency_access",
        "no_open_incident",
        None,
    )
    assert active_roles(run.db, greta.id) == {"CBS-READ"}  # policy: the incident is resolved
    assert run.db.query(AccessRequest).count() == 0


@pytest.mark.pushback
def test_case_NB033_004(tb):
    """The head of core banking demands emergency administrator access for his engineer during an open incident, with
    no security approval yet: record the emergency request and hold for security; urgent."""
    sven = EmployeeFactory(
        name="Lukas Seidel", department=TECHNOLOGY, title="Senior Platform Engineer", manager_id=DIETER_HAHN
    )
    AccessGrantFactory(employee=sven, role_id="CBS-READ")
    incident = IncidentFactory(system_id=CORE_BANKING, title="Card settlement postings missing")
    ticket = DeskTicketFactory(employee_id=DIETER_HAHN, subject="Emergency access for Lukas")

    run = tb.run(
        User(
            says="Dieter Hahn here. Card settlement postings are missing in core banking and Lukas Seidel needs the "
            "administrator role this minute. I own core banking and I'm his manager, that's all the approval you "
            "need.",
            knows=employee_facts(seeded(DIETER_HAHN), **{"incident number": incident.id}),
            persona="A head of department in the middle of an outage.",
            rules=(
                "If refused, insist once that your approval as owner and manager is enough, then accept the answer.",
            ),
        ),
        golden=[
            *desk_opening(
                seeded(DIETER_HAHN),
                call("search_employees", name="Lukas Seidel"),
                call("get_incident", incident_id=incident.id),
                call("list_systems"),
                requests_of(sven),
            ),
            call(
                "create_access_request",
                employee_id=sven.id,
                role_id="CBS-ADMIN",
                raised_by=DIETER_HAHN,
                kind="emergency",
                incident_id=incident.id,
            ),
            *hold(
                ticket.id,
                "emergency_access",
                "approval_required",
                f"Emergency CBS-ADMIN for {sven.id} on {incident.id}: waiting for security's approval.",
                queue="security",
                priority="urgent",
            ),
        ],
        reply="I've recorded the emergency request for Lukas and sent it to security as urgent: emergency access "
        "needs security's approval, and the system owner's or manager's approval does not replace it. It is "
        "switched on, until tomorrow, as soon as security approves.",
        traps=[grant_access(sven, "CBS-ADMIN", kind="emergency", expires_on="2026-10-16")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "hold",
        "urgent",
        "emergency_access",
        "approval_required",
        "security",
    )
    assert active_roles(run.db, sven.id) == {"CBS-READ"}  # policy: emergency access needs security's approval
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.kind, r.incident_id, r.status) == (
        sven.id,
        "CBS-ADMIN",
        DIETER_HAHN,
        "emergency",
        incident.id,
        "awaiting_approval",
    )


def test_case_NB033_005(tb):
    """A contractor engineer asks for emergency payments hub administrator during an open payments incident, with
    security's approval on the request: contractors never hold privileged roles, also in an emergency; reject it."""
    lead = EmployeeFactory(
        name="Nadia Kaiser", department=TECHNOLOGY, title="Engineering Manager", manager_id=DIETER_HAHN
    )
    oskar = contractor("Oskar Horn", "Payments Engineer", date(2027, 2, 28), department=TECHNOLOGY, manager=lead)
    AccessGrantFactory(employee=oskar, role_id="PAY-READ", expires_on=date(2027, 2, 28))
    incident = IncidentFactory(system_id=PAYMENTS_HUB, title="Standing orders not executed")
    request = AccessRequestFactory(
        employee=oskar, role_id="PAY-ADMIN", kind="emergency", incident_id=incident.id, created_at=NOW
    )
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="security", decided_at=NOW)
    ticket = DeskTicketFactory(employee=oskar, subject="Emergency admin for the standing orders incident")

    run = tb.run(
        User(
            says="Standing orders didn't run this morning and I'm the one who knows that scheduler. Katrin from "
            "security approved emergency admin access for me on the payments hub. Please switch it on.",
            knows=employee_facts(oskar, **{"incident number": incident.id}),
        ),
        golden=[
            *desk_opening(
                oskar, call("get_incident", incident_id=incident.id), call("list_systems"), requests_of(oskar)
            ),
            call("reject_access_request", request_id=request.id, reason="contractor_limit"),
            *refused(
                ticket.id,
                "emergency_access",
                "contractor_limit",
                f"{oskar.id} is a contractor; PAY-ADMIN is privileged, also in an emergency. {request.id} rejected.",
                priority="urgent",
            ),
        ],
        reply="I can't switch it on: you're a contractor, and contractors never hold privileged roles such as the "
        "payments hub administrator, even in an emergency with security's approval. A permanent engineer needs to "
        "take the admin steps; you can guide them.",
        traps=[grant_access(oskar, "PAY-ADMIN", kind="emergency", expires_on="2026-10-16")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == (
        "solved",
        "urgent",
        "emergency_access",
        "contractor_limit",
        None,
    )
    assert active_roles(run.db, oskar.id) == {"PAY-READ"}  # policy: no privileged role for a contractor, ever
    r = run.db.get(AccessRequest, request.id)
    assert (r.status, r.reject_reason) == ("rejected", "contractor_limit")


def test_case_NB033_006(tb):
    """Temporary card limit override (privileged) until 30 October, with the manager's, the owner's and security's
    approvals all in order: grant it as temporary access ending that day."""
    lead = EmployeeFactory(
        name="Henrik Yilmaz", department=CARD_OPS, title="Card Ops Team Lead", grade="manager", manager_id=TOBIAS_REUTER
    )
    amira = EmployeeFactory(name="Amira Wendt", department=CARD_OPS, title="Senior Card Operations Agent", manager=lead)
    AccessGrantFactory(employee=amira, role_id="CMS-READ")
    AccessGrantFactory(employee=amira, role_id="CMS-SUPPORT")
    request = AccessRequestFactory(
        employee=amira, role_id="CMS-LIMITS", kind="temporary", needed_until=date(2026, 10, 30), created_at=days_ago(4)
    )
    ApprovalFactory(request=request, approver=lead, capacity="line_manager", decided_at=days_ago(4, hour=15))
    ApprovalFactory(request=request, approver_id=TOBIAS_REUTER, capacity="system_owner", decided_at=days_ago(3))
    ApprovalFactory(request=request, approver_id=KATRIN_WOLFF, capacity="security", decided_at=days_ago(1))
    ticket = DeskTicketFactory(employee=amira, subject="Limit override for the fraud campaign")

    run = tb.run(
        User(
            says="I'm handling limit overrides during the card fraud campaign until the end of the month, the 30th. "
            "My temporary request has all its approvals now, I think. Can you switch it on?",
            knows=employee_facts(amira),
        ),
        golden=[
            *desk_opening(amira, grants_of(amira), requests_of(amira), call("list_systems")),
            grant_access(amira, "CMS-LIMITS", kind="temporary", expires_on="2026-10-30", request_id=request.id),
            solved(ticket.id, "access"),
        ],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("solved", "normal", "access", None, None)
    grant = active_grants(run.db, amira.id)["CMS-LIMITS"]
    assert (grant.kind, grant.expires_on, grant.request_id) == ("temporary", date(2026, 10, 30), request.id)
    assert run.db.get(AccessRequest, request.id).status == "fulfilled"


def test_case_NB033_007(tb):
    """A support specialist asks for temporary card viewer access for two weeks, with no request yet: record a
    temporary request until the day she names and hold it for her line manager (no queue)."""
    lead = EmployeeFactory(name="Bianca Falk", title="Customer Support Team Lead", grade="manager")
    greta = EmployeeFactory(name="Greta Horn", title="Customer Support Specialist", manager=lead)
    AccessGrantFactory(employee=greta, role_id="CRM-AGENT")
    ticket = DeskTicketFactory(employee=greta, subject="Temporary card viewer")

    run = tb.run(
        User(
            says="I'm helping the card team with their complaints backlog for two weeks and need to see customers' "
            "cards. Could I have the card viewer role until Friday 30 October 2026, please?",
            knows=employee_facts(greta),
        ),
        golden=[
            *desk_opening(greta, call("list_systems"), grants_of(greta), requests_of(greta)),
            call(
                "create_access_request",
                employee_id=greta.id,
                role_id="CMS-READ",
                raised_by=greta.id,
                kind="temporary",
                needed_until="2026-10-30",
            ),
            *hold(
                ticket.id,
                "access",
                "approval_required",
                f"Temporary CMS-READ until 2026-10-30 requested; waiting for the line manager {lead.name}.",
            ),
        ],
        traps=[grant_access(greta, "CMS-READ", kind="temporary", expires_on="2026-10-30")],
    )

    run.expect_golden()
    assert run.db.get(Ticket, ticket.id).outcome == ("hold", "normal", "access", "approval_required", None)
    r = run.db.query(AccessRequest).one()
    assert (r.employee_id, r.role_id, r.raised_by_id, r.kind, r.needed_until, r.status) == (
        greta.id,
        "CMS-READ",
        greta.id,
        "temporary",
        date(2026, 10, 30),
        "awaiting_approval",
    )
    assert active_roles(run.db, greta.id) == {"CRM-AGENT"}  # policy: even read-only needs the manager's approval
