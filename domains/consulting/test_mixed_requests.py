"""Two requests of different kinds in one conversation: each decided under its own article, one ticket for both."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from domains.consulting.calls import (
    budget_approval,
    client_gates,
    decide_override,
    grant_access,
    hardware_reads,
    hold,
    identify,
    pending,
    pool_seat,
    reclaim_seat,
    refused,
    request_hardware,
    ticket_end,
)
from domains.consulting.clock import TODAY
from domains.consulting.factories import (
    AssignmentFactory,
    ComplianceRecordFactory,
    EmployeeFactory,
    ExpenseReportFactory,
    LicenceSeatFactory,
    TicketFactory,
    background_check,
    client_engagement,
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
    TicketComment,
)
from domains.consulting.seed import (
    CALLOWAY,
    CALLOWAY_SNOWFLAKE,
    FS_PARTNER,
    HEADSET,
    NORDHAVN,
    NORDHAVN_FOLDER,
    NORDHAVN_UAT,
    PERFORMANCE_LAPTOP,
    POWER_BI,
    RETAIL_DIRECTOR,
    STATA,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Access roles and expiry",
    "Client environments",
    "Approval requests and routing",
    "Licence pools, idle seats and the waitlist",
    "Hardware requests and grade budgets",
    "Expense overrides",
)


@pytest.mark.two_requests
def test_case_CO016_001(tb):
    """A Power BI seat (free: assigned) and a ThinkPad P1 above an analyst's budget (raised, routed): pending."""
    manager, rory = manager_and_report("Isla Dubois", "Rory Osei", grade="analyst", department="Data & Analytics")
    ticket = TicketFactory(requester=rory, subject="Power BI and a faster laptop")

    run = tb.run(
        User(
            says="Two things for my data work, please: a Power BI Pro licence, and the Lenovo ThinkPad P1, because "
            "my current laptop can't cope with the models I'm building.",
            knows={"email": rory.email},
        ),
        golden=[
            *identify(rory),
            *pool_seat(rory, POWER_BI),
            *hardware_reads(rory),
            call("get_employee", employee_id=rory.id),
            request_hardware(rory, PERFORMANCE_LAPTOP, "Data models too heavy for the current laptop."),
            budget_approval(ticket.id, rory, manager.id, "HR-0001"),
            *pending(
                ticket.id,
                "software_licence",
                "needs_approval",
                "Power BI Pro seat assigned. ThinkPad P1 ($2,890.00) is above the $2,000 analyst budget: raised "
                "(HR-0001) and sent to the line manager, Isla Dubois.",
            ),
        ],
    )

    run.expect_golden()
    assert run.db.query(LicenceSeat).filter_by(employee_id=rory.id, software_id=POWER_BI).one().status == "active"
    laptop = run.db.query(HardwareRequest).one()
    assert (laptop.model_id, laptop.status) == (PERFORMANCE_LAPTOP, "awaiting_approval")
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.kind, approval.approver_id) == ("hardware_budget", manager.id)
    assert ticket_end(run, ticket.id) == ("pending", "software_licence", "needs_approval")  # the first request


@pytest.mark.two_requests
def test_case_CO016_002(tb):
    """Calloway viewer (granted to the assignment's end) and a late taxi override (rejected, final): solved as late."""
    kwame = EmployeeFactory(name="Kwame Fischer", grade="consultant", department="Retail & Consumer")
    engagement = client_engagement(CALLOWAY, "Loyalty relaunch", RETAIL_DIRECTOR, date(2025, 11, 3), date(2026, 5, 29))
    staffed(kwame, engagement, nda_signed_on=date(2026, 1, 8), start_date=date(2026, 1, 12), end_date=date(2026, 3, 27))
    report = ExpenseReportFactory(employee_id=kwame.id, title="Q4 store visits", submitted_on=date(2026, 1, 28))
    line = override_asked(
        report,
        "Airport run after a late store audit.",
        category="taxi",
        merchant="Yellow Cab",
        incurred_on=date(2025, 11, 14),
        amount_cents=11_200,
        limit_cents=7_500,
    )
    ticket = TicketFactory(requester=kwame, subject="Snowflake and an old taxi")

    run = tb.run(
        User(
            says="Hi! I need read access to the Calloway Snowflake analytics for the loyalty work. Also, I've finally "
            "filed my November store-visit expenses and the airport taxi is over the limit; the receipt is itemised, "
            "so can you approve the override?",
            knows={"email": kwame.email, "role wanted": "viewer", "expense report": report.id},
        ),
        golden=[
            *identify(kwame),
            *client_gates(kwame, CALLOWAY_SNOWFLAKE),
            grant_access(kwame, CALLOWAY_SNOWFLAKE, expires_on="2026-03-27", engagement_id=engagement.id),
            *decide_override(report, line, "late_submission"),
            *refused(
                ticket.id,
                "client_access",
                "outside_window",
                "Calloway Snowflake viewer granted to 2026-03-27. Taxi override rejected: incurred 2025-11-14, "
                "75 days before the report was submitted (limit 60).",
            ),
        ],
        traps=[  # kept open for a receipt, as if lateness could be cured
            call("update_ticket", ticket_id=ticket.id, status="pending", reason="awaiting_employee")
        ],
    )

    run.expect_golden()
    grant = run.db.query(AccessGrant).one()
    assert (grant.resource_id, grant.expires_on) == (CALLOWAY_SNOWFLAKE, date(2026, 3, 27))
    taxi = run.db.get(ExpenseLine, line.id)
    assert (taxi.override_status, taxi.override_rejection, taxi.reimbursable_cents) == (
        "rejected",
        "late_submission",
        7_500,
    )
    assert ticket_end(run, ticket.id) == ("solved", "client_access", "outside_window")
    assert run.db.query(TicketComment).count() == 1


_STATA_HOLDERS = ["Grace Petrov", "Omar Alvarez", "Nina Mehta", "Felix Osei", "Isla Kraus"]


@pytest.mark.two_requests
@pytest.mark.distractors
def test_case_CO016_003(tb):
    """Stata (full pool: reclaim the seat idle longest) and Nordhavn UAT (screening in progress): seat given, hold."""
    seats = []
    for n, (used, never) in enumerate([(5, False), (66, False), (12, False), (71, True), (2, False)]):
        holder = EmployeeFactory(name=_STATA_HOLDERS[n], grade="manager", department="Economics")
        since = TODAY - timedelta(days=used)
        seats.append(
            LicenceSeatFactory(
                software_id=STATA,
                employee_id=holder.id,
                requested_on=date(2025, 6, 2) if not never else since,
                assigned_on=date(2025, 6, 2) if not never else since,
                last_used_on=None if never else since,
            )
        )
    sofia = EmployeeFactory(name="Sofia Whitfield", grade="senior_consultant", department="Financial Services")
    engagement = client_engagement(NORDHAVN, "Credit risk models", FS_PARTNER, date(2026, 1, 5), date(2026, 6, 30))
    staffed(
        sofia, engagement, nda_signed_on=date(2026, 1, 22), start_date=date(2026, 1, 26), end_date=date(2026, 6, 30)
    )
    background_check(sofia, status="in_progress")
    ticket = TicketFactory(requester=sofia, subject="Stata and Nordhavn UAT")

    run = tb.run(
        User(
            says="For the Nordhavn credit risk models I need Stata/MP on my laptop, and read access to the bank's "
            "Azure DevOps UAT environment. My screening was started last week, if that matters.",
            knows={"email": sofia.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(sofia),
            *reclaim_seat(sofia, STATA, seats[3]),
            *client_gates(sofia, NORDHAVN_UAT),
            *hold(
                ticket.id,
                "software_licence",
                "screening_required",
                "Stata/MP seat assigned (reclaimed the seat idle longest, never used since assignment). "
                "Nordhavn UAT waits for the background check in progress: screening team to complete it.",
            ),
        ],
        traps=[
            call("release_licence", seat_id=seats[1].id),  # last used 66 days ago: idle, but not the longest
            grant_access(sofia, NORDHAVN_UAT, expires_on="2026-05-03", engagement_id=engagement.id),
        ],
    )

    run.expect_golden()
    released = run.db.query(LicenceSeat).filter_by(status="released").all()
    assert [s.id for s in released] == [seats[3].id]
    assert run.db.query(LicenceSeat).filter_by(employee_id=sofia.id).one().status == "active"
    assert run.db.query(AccessGrant).count() == 0  # policy: screening first
    assert ticket_end(run, ticket.id, "queue") == ("hold", "software_licence", "screening_required", "screening")


@pytest.mark.two_requests
def test_case_CO016_004(tb):
    """A headset within budget is raised; the Nordhavn folder is refused (staffed only on Calloway): not staffed."""
    mateo = EmployeeFactory(name="Mateo Kraus", grade="consultant", department="Retail & Consumer")
    AssignmentFactory(
        engagement=client_engagement(
            CALLOWAY, "Store operating model", RETAIL_DIRECTOR, date(2025, 12, 1), date(2026, 4, 10)
        ),
        employee=mateo,
    )
    ComplianceRecordFactory(employee_id=mateo.id, client_id=NORDHAVN, completed_on=date(2025, 3, 3))
    ticket = TicketFactory(requester=mateo, subject="Headset and Nordhavn papers")

    run = tb.run(
        User(
            says="Could I get the Jabra Evolve2 headset? My calls keep dropping out. And I'd like read access to "
            "the Nordhavn Bank engagement folder: I'm pitching a similar piece of work and their deliverables would "
            "be a great reference. I signed a Nordhavn NDA last year.",
            knows={"email": mateo.email, "role wanted": "viewer"},
        ),
        golden=[
            *identify(mateo),
            *hardware_reads(mateo),
            request_hardware(mateo, HEADSET, "Calls keep dropping out."),
            call("get_resource", resource_id=NORDHAVN_FOLDER),
            call("list_assignments", employee_id=mateo.id),
            *refused(
                ticket.id,
                "hardware",
                "not_staffed",
                "Headset raised within budget. Nordhavn folder refused: no assignment for Nordhavn Bank "
                "(staffed only on Calloway).",
            ),
        ],
        traps=[grant_access(mateo, NORDHAVN_FOLDER, expires_on="2026-05-03")],
    )

    run.expect_golden()
    headset = run.db.query(HardwareRequest).one()
    assert (headset.model_id, headset.status) == (HEADSET, "submitted")
    assert run.db.query(AccessGrant).count() == 0  # policy: not staffed on Nordhavn
    assert ticket_end(run, ticket.id) == ("solved", "hardware", "not_staffed")
