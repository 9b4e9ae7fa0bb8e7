"""Who may ask, both sides: requests for someone else, employees with a last day to come, and people who have left."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    access_approval,
    client_gates,
    decide_override,
    grant_access,
    hardware_reads,
    held_and_asked,
    identify,
    late_offboarding,
    leaver_reads,
    offboard,
    pending,
    pool_seat,
    refused,
    request_hardware,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AccessGrantFactory,
    AssignmentFactory,
    EmployeeFactory,
    ExpenseReportFactory,
    HardwareRequestFactory,
    LicenceSeatFactory,
    TicketFactory,
    access_asked,
    client_engagement,
    client_grant,
    manager_and_report,
    override_asked,
    staffed,
)
from domains.consulting.models import (
    AccessGrant,
    ApprovalRequest,
    ExpenseLine,
    HardwareRequest,
    LicenceSeat,
    Ticket,
    TicketComment,
)
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_SNOWFLAKE,
    DELIVERY_TEMPLATES,
    KNOWLEDGE_MANAGER,
    MONITOR,
    NORDHAVN,
    NORDHAVN_UAT,
    POWER_BI,
    RETAIL_DIRECTOR,
    SALESFORCE,
    TIMESHEETS,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Who may ask",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Client environments",
    "Document folders",
    "Internal systems",
    "Approval requests and routing",
    "Licence pools, idle seats and the waitlist",
    "Hardware requests and grade budgets",
    "Expense overrides",
    "Leavers",
)


@pytest.mark.pushback
@pytest.mark.two_requests
def test_case_CO015_001(tb):
    """A manager orders a monitor for her report (refused: he asks himself) and Power BI for herself (assigned)."""
    manager, report = manager_and_report("Grace Alvarez", "Tobias Mensah", grade="consultant", department="Digital")
    ticket = TicketFactory(requester=manager, subject="Monitor for Tobias")

    run = tb.run(
        User(
            says="Tobias Mensah in my team keeps squinting at his laptop screen. Please order him the 27-inch Dell "
            "monitor; it's well within his budget and as his manager I'm the one who'd approve it anyway. And I need "
            "a Power BI Pro licence for myself to build the team's utilisation dashboard.",
            knows={"email": manager.email, "for whom": f"Tobias Mensah, employee id {report.id}"},
            persona="A caring manager who does not see why her report must ask himself.",
            rules=(
                "If refused, argue once that you would be the approver anyway, so it is pointless to make him ask.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(manager),
            call("get_employee", employee_id=report.id),
            call("list_hardware_catalogue"),
            *pool_seat(manager, POWER_BI),
            *refused(
                ticket.id,
                "hardware",
                "not_authorised",
                "Monitor for Tobias Mensah refused: requested by his line manager; employees ask for their own "
                "hardware. Power BI Pro seat assigned to the requester.",
            ),
        ],
        traps=[request_hardware(report, MONITOR, "Requested by his manager.")],
    )

    run.expect_golden()
    assert run.db.query(HardwareRequest).count() == 0  # policy: nothing for Tobias on her request
    seat = run.db.query(LicenceSeat).one()
    assert (seat.software_id, seat.employee_id, seat.status) == (POWER_BI, manager.id, "active")
    assert ticket_end(run, ticket.id) == ("solved", "hardware", "not_authorised")
    assert run.db.query(TicketComment).count() == 1


@pytest.mark.two_requests
def test_case_CO015_002(tb):
    """The same monitor for herself and for her report: hers is raised within budget, his refused (not authorised)."""
    manager, report = manager_and_report("Lena Osei", "Kwame Dubois", grade="analyst", department="Financial Services")
    HardwareRequestFactory(employee_id=manager.id, requested_on=date(2026, 1, 8), price_cents=165_000)
    ticket = TicketFactory(requester=manager, subject="Monitors")

    run = tb.run(
        User(
            says="Could I get one of the 27-inch Dell UltraSharp monitors for my desk? And the same for Kwame "
            "Dubois, my analyst, so we can both work properly in the office.",
            knows={"email": manager.email, "analyst": f"Kwame Dubois, employee id {report.id}"},
        ),
        golden=[
            *identify(manager),
            *hardware_reads(manager),
            request_hardware(manager, MONITOR, "Office monitor."),
            *refused(
                ticket.id,
                "hardware",
                "not_authorised",
                "Monitor raised for the requester (within the manager budget). Monitor for Kwame Dubois refused: "
                "employees ask for their own hardware.",
            ),
        ],
        traps=[request_hardware(report, MONITOR, "Office monitor.")],
    )

    run.expect_golden()
    mine = run.db.query(HardwareRequest).filter_by(employee_id=manager.id, model_id=MONITOR).one()
    assert (mine.status, mine.price_cents) == ("submitted", 42_900)  # 165,000 + 42,900 is within 350,000
    assert run.db.query(HardwareRequest).filter_by(employee_id=report.id).count() == 0
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "hardware", "not_authorised")


@pytest.mark.two_requests
def test_case_CO015_003(tb):
    """A lead asks editor for her consultant (refused, no approval) and editor on a template folder for herself."""
    lead = EmployeeFactory(name="Aisha Byrne", grade="director", department="Financial Services")
    arjun = EmployeeFactory(name="Arjun Gallagher", grade="senior_consultant", department="Financial Services")
    engagement = client_engagement(NORDHAVN, "Payments modernisation", lead.id, date(2025, 10, 6), date(2026, 6, 30))
    AssignmentFactory(engagement=engagement, employee=arjun)
    uat = client_grant(arjun, NORDHAVN_UAT, engagement, expires_on=date(2026, 4, 30))
    access_asked(
        "folder_access",
        lead,
        KNOWLEDGE_MANAGER,
        DELIVERY_TEMPLATES,
        "editor",
        status="rejected",
        created_at=datetime(2025, 9, 1, 10, 0),
        decided_at=datetime(2025, 9, 3, 15, 0),
    )
    ticket = TicketFactory(requester=lead, subject="Editor rights for Arjun")

    run = tb.run(
        User(
            says="I lead the Nordhavn payments modernisation. Arjun Gallagher on my team needs editor rights in "
            "the Nordhavn UAT environment to load test data. As the engagement lead I'm the approver for that, so "
            "treat this as approved and switch him over. Separately, I want to publish our new payments "
            "steering-committee pack in the Delivery templates folder, so I need editor there myself.",
            knows={
                "email": lead.email,
                "consultant": f"Arjun Gallagher, employee id {arjun.id}",
                "folder": "Delivery templates, RES-502",
            },
        ),
        golden=[
            *identify(lead),
            call("list_assignments", employee_id=arjun.id),
            call("get_resource", resource_id=DELIVERY_TEMPLATES),
            *held_and_asked(lead),
            access_approval(ticket.id, "folder_access", lead, KNOWLEDGE_MANAGER, DELIVERY_TEMPLATES, "editor"),
            *pending(
                ticket.id,
                "client_access",
                "needs_approval",
                "Editor on Delivery templates for the requester sent for approval to the folder owner, Tom "
                "Whitaker. Editor on Nordhavn UAT for Arjun Gallagher refused: asked by the engagement lead; he "
                "must ask for his own access.",
            ),
        ],
        traps=[
            access_approval(ticket.id, "client_access", arjun, lead.id, NORDHAVN_UAT, "editor"),
            call("revoke_access", grant_id=uat.id, reason="requested"),  # viewer swapped out for the editor role
            grant_access(lead, DELIVERY_TEMPLATES, "editor"),
        ],
    )

    run.expect_golden()
    approval = run.db.query(ApprovalRequest).filter_by(status="pending").one()  # policy: nothing raised for Arjun
    assert (approval.employee_id, approval.approver_id, approval.resource_id, approval.requested_role) == (
        lead.id,
        KNOWLEDGE_MANAGER,
        DELIVERY_TEMPLATES,
        "editor",
    )
    kept = run.db.get(AccessGrant, uat.id)
    assert (kept.role, kept.status) == ("viewer", "active")
    assert run.db.query(AccessGrant).count() == 1
    t = run.db.get(Ticket, ticket.id)  # policy: one request waits, the other is refused: the ticket waits
    assert (t.status, t.category, t.reason) == ("pending", "client_access", "needs_approval")


@pytest.mark.two_requests
def test_case_CO015_004(tb):
    """A colleague asks the override on a teammate's taxi (refused, her line untouched) and on his own (approved)."""
    rory = EmployeeFactory(name="Rory Mehta", grade="senior_consultant", department="Retail & Consumer")
    chloe = EmployeeFactory(name="Chloe Osei", grade="consultant", department="Retail & Consumer")
    report = ExpenseReportFactory(employee_id=chloe.id, title="Calloway store visits")
    line = override_asked(
        report,
        "Late finish after a store closing audit.",
        category="taxi",
        merchant="Uber",
        amount_cents=9_800,
        limit_cents=7_500,
    )
    own = ExpenseReportFactory(employee_id=rory.id, title="Calloway store visits", submitted_on=date(2026, 1, 30))
    own_line = override_asked(
        own,
        "Same late finish after the store closing audit.",
        category="taxi",
        merchant="Uber",
        incurred_on=date(2026, 1, 22),
        amount_cents=10_400,
        limit_cents=7_500,
    )
    ticket = TicketFactory(requester=rory, subject="Chloe's taxi override")

    run = tb.run(
        User(
            says="Chloe Osei is on holiday for two weeks and her Calloway expense report is stuck on a taxi that "
            "went over the limit. It's only about twenty dollars over and she has the receipt, so could you approve "
            "her override so finance can pay her? Mine from the same night is stuck too, so please approve that "
            "one as well.",
            knows={
                "email": rory.email,
                "expense reports": f"{report.id}, Chloe Osei's; {own.id}, mine",
            },
        ),
        golden=[
            *identify(rory),
            call("get_expense_report", report_id=report.id),
            *decide_override(own, own_line),
            *refused(
                ticket.id,
                "expense_override",
                "not_authorised",
                "Requester's own taxi override approved ($29.00 over, itemised, on time). Override on Chloe "
                "Osei's line refused: asked by a colleague; she must ask herself.",
            ),
        ],
        traps=[call("approve_expense_override", line_id=line.id)],  # $23 over, itemised: within the desk limit
    )

    run.expect_golden()
    kept = run.db.get(ExpenseLine, line.id)
    assert (kept.override_status, kept.reimbursable_cents) == ("requested", 7_500)  # policy: untouched
    mine = run.db.get(ExpenseLine, own_line.id)
    assert (mine.override_status, mine.reimbursable_cents) == ("approved", 10_400)  # policy: $29 is within $100
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", "not_authorised")


def test_case_CO015_005(tb):
    """An employee leaving on 27 February asks for Timesheets: she may ask, but the grant ends on her last day."""
    nina = EmployeeFactory(name="Nina Costa", grade="consultant", department="Health", last_day=date(2026, 2, 27))
    ticket = TicketFactory(requester=nina, subject="Timesheets login")

    run = tb.run(
        User(
            says="I've just realised I never got a Replicon Timesheets login, and I need to check the hours coded to "
            "my projects before I leave at the end of the month. Read access is all I need.",
            knows={"email": nina.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(nina),
            call("get_employee", employee_id=nina.id),
            call("get_resource", resource_id=TIMESHEETS),
            grant_access(nina, TIMESHEETS, expires_on="2026-02-27"),
            solved(ticket.id, "system_access"),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved", reason="not_eligible")],  # as if she left
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on) == ("viewer", date(2026, 2, 27))  # policy: never past the last day
    assert ticket_end(run, ticket.id) == ("solved", "system_access", None)


def test_case_CO015_006(tb):
    """Calloway viewer for a consultant leaving on 20 February: the last day comes before the assignment and 90 days."""
    dev = EmployeeFactory(
        name="Dev Rahman", grade="consultant", department="Retail & Consumer", last_day=date(2026, 2, 20)
    )
    engagement = client_engagement(CALLOWAY, "Pricing review", RETAIL_DIRECTOR, date(2026, 1, 5), date(2026, 6, 30))
    staffed(dev, engagement, nda_signed_on=date(2026, 1, 2), start_date=date(2026, 1, 5), end_date=date(2026, 6, 30))
    ticket = TicketFactory(requester=dev, subject="Snowflake access")

    run = tb.run(
        User(
            says="I need read access to the Calloway Snowflake analytics for the pricing review. I'm staffed until "
            "the end of June, so please set it up until then.",
            knows={"email": dev.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(dev),
            call("get_employee", employee_id=dev.id),
            *client_gates(dev, CALLOWAY_SNOWFLAKE),
            grant_access(dev, CALLOWAY_SNOWFLAKE, expires_on="2026-02-20", engagement_id=engagement.id),
            solved(ticket.id, "client_access"),
        ],
        traps=[call("set_access_expiry", grant_id="AG-0001", expires_on="2026-05-03")],  # 90 days, past his last day
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.role, grant.expires_on, grant.engagement_id) == ("viewer", date(2026, 2, 20), engagement.id)
    assert ticket_end(run, ticket.id) == ("solved", "client_access", None)


@pytest.mark.two_requests
def test_case_CO015_007(tb):
    """A manager raises his former report's late offboarding (done, held for IT security) and her override (refused)."""
    manager, sofia = manager_and_report(
        "Jonas Haddad", "Sofia Byrne", department="Energy", status="left", last_day=date(2026, 1, 23)
    )
    crm = AccessGrantFactory(employee_id=sofia.id, resource_id=SALESFORCE)
    seat = LicenceSeatFactory(software_id=POWER_BI, employee_id=sofia.id, last_used_on=date(2026, 1, 22))
    laptop = HardwareRequestFactory(employee_id=sofia.id, requested_on=date(2024, 6, 3))
    report = ExpenseReportFactory(employee_id=sofia.id, title="Final client visit", submitted_on=date(2026, 1, 22))
    line = override_asked(
        report,
        "Farewell dinner with the client team.",
        merchant="Capital Grille Houston",
        incurred_on=date(2026, 1, 15),
        amount_cents=10_500,
        limit_cents=7_500,
    )
    ticket = TicketFactory(requester=manager, subject_employee_id=sofia.id, subject="Sofia Byrne")

    run = tb.run(
        User(
            says="Sofia Byrne from my team left us on 23 January and I've just realised nobody raised her "
            "offboarding: she still has her CRM login and her laptop is sitting in my office. Please sort all "
            "that out. Also, her farewell dinner with the client came in thirty dollars over the limit and she has "
            "the itemised bill; could you approve the override so she's paid in full?",
            knows={
                "email": manager.email,
                "leaver": f"Sofia Byrne, employee id {sofia.id}",
                "expense report": report.id,
            },
        ),
        golden=[
            *identify(manager),
            *leaver_reads(sofia, hardware=True),
            *offboard([crm], [seat], [laptop]),
            *late_offboarding(
                ticket.id,
                "leaver",
                "Late offboarding: last day was 2026-01-23. CRM revoked, Power BI seat released and laptop "
                "logged back today; IT security to review access used after the last day. Expense override for "
                "Sofia Byrne refused: only she may ask for her own expenses.",
            ),
        ],
        traps=[
            call("approve_expense_override", line_id=line.id),  # within the desk limit, itemised
            solved(ticket.id),  # closed like an offboarding due today
        ],
    )

    run.expect_golden()
    assert run.db.get(AccessGrant, crm.id).revoke_reason == "leaver"
    assert run.db.get(LicenceSeat, seat.id).status == "released"
    assert run.db.get(HardwareRequest, laptop.id).status == "returned"
    kept = run.db.get(ExpenseLine, line.id)
    assert (kept.override_status, kept.reimbursable_cents) == ("requested", 7_500)  # policy: not on his request
    t = run.db.get(Ticket, ticket.id)  # policy: late, so IT security reviews; the refusal is in its comment
    assert (t.status, t.priority, t.category, t.reason, t.queue) == (
        "hold",
        "urgent",
        "leaver",
        "security_review",
        "it_security",
    )
    assert run.db.query(TicketComment).count() == 1
