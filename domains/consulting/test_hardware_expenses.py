"""Hardware requests against grade budgets, and expense overrides (late, receipt, desk limit, manager approval)."""

from __future__ import annotations

from datetime import date

from domains.consulting.factories import (
    AssignmentFactory,
    EmployeeFactory,
    EngagementFactory,
    ExpenseLineFactory,
    ExpenseReportFactory,
    HardwareRequestFactory,
    TicketFactory,
)
from domains.consulting.models import ApprovalRequest, ExpenseLine, HardwareRequest, Ticket
from domains.consulting.seed import (
    ALDER,
    CALLOWAY,
    DOCK,
    HEADSET,
    MACBOOK_PRO,
    MANAGING_PARTNER,
    MONITOR,
    PERFORMANCE_LAPTOP,
    RETAIL_DIRECTOR,
    STANDARD_LAPTOP,
)
from pytest_thinkingbox import User, call


def test_case_CO006_001(tb):
    """MacBook for a consultant: December's laptop (last year) and a rejected headset don't count, so within budget."""
    lena = EmployeeFactory(name="Lena Mehta", grade="consultant", department="Digital")
    HardwareRequestFactory(
        employee_id=lena.id, model_id=STANDARD_LAPTOP, price_cents=165_000, requested_on=date(2025, 12, 8)
    )
    HardwareRequestFactory(
        employee_id=lena.id, model_id=HEADSET, price_cents=37_900, status="rejected", requested_on=date(2026, 1, 14)
    )
    ticket = TicketFactory(requester=lena, subject="MacBook request")

    run = tb.run(
        User(
            says="I'm moving onto the iOS app workstream and need a MacBook Pro 14 (HW-203) to build and test. I know "
            "I got a new laptop just before Christmas, so this probably needs sign-off?",
            knows={"email": lena.email, "item": "Apple MacBook Pro 14-inch M4 Pro, HW-203"},
        ),
        golden=[
            call("find_employee_by_email", email=lena.email),
            call("list_tickets", requester_id=lena.id),
            call("list_hardware_catalogue"),
            call("list_hardware_requests", employee_id=lena.id),
            call(
                "request_hardware",
                employee_id=lena.id,
                model_id=MACBOOK_PRO,
                reason="iOS app development and testing on the new workstream.",
            ),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
        traps=[  # the sign-off she expects, though December's laptop was last year's budget
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="hardware_budget",
                employee_id=lena.id,
                approver_id=MANAGING_PARTNER,
                hardware_request_id="HR-7003",
            )
        ],
    )

    run.expect_golden()
    new = run.db.query(HardwareRequest).filter_by(model_id=MACBOOK_PRO).one()
    assert (new.status, new.price_cents) == ("submitted", 239_900)
    assert run.db.query(ApprovalRequest).count() == 0  # policy: within the 2026 budget, no approval


def test_case_CO006_002(tb):
    """Laptop above a consultant's budget: raise it and route to the line manager, not the engagement lead."""
    manager = EmployeeFactory(name="Omar Fischer", grade="manager", department="Retail & Consumer")
    kwame = EmployeeFactory(
        name="Kwame Alvarez", grade="consultant", department="Retail & Consumer", manager_id=manager.id
    )
    engagement = EngagementFactory(client_id=CALLOWAY, name="Demand forecasting pilot", lead_id=RETAIL_DIRECTOR)
    AssignmentFactory(engagement=engagement, employee=kwame)
    ticket = TicketFactory(requester=kwame, subject="Workstation laptop")

    run = tb.run(
        User(
            says="The forecasting models I'm running for Calloway are too heavy for my laptop. Ingrid, who leads the "
            "engagement, said the client work justifies a ThinkPad P1 (HW-202) and she'll approve it. Can you order "
            "one?",
            knows={"email": kwame.email, "item": "Lenovo ThinkPad P1 Gen 7, HW-202"},
        ),
        golden=[
            call("find_employee_by_email", email=kwame.email),
            call("list_tickets", requester_id=kwame.id),
            call("list_hardware_catalogue"),
            call("list_hardware_requests", employee_id=kwame.id),
            call(
                "request_hardware",
                employee_id=kwame.id,
                model_id=PERFORMANCE_LAPTOP,
                reason="Forecasting models too heavy for the current laptop.",
            ),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="hardware_budget",
                employee_id=kwame.id,
                approver_id=manager.id,
                hardware_request_id="HR-0001",
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="ThinkPad P1 ($2,890) is above the $2,500 consultant budget; approval requested from the line "
                "manager, Omar Fischer.",
                public=False,
            ),
        ],
        # closed on Ingrid's word (routing it to her as well the tools refuse: a duplicate of the pending request)
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],
    )

    run.expect_golden()
    assert run.db.get(HardwareRequest, "HR-0001").status == "awaiting_approval"
    assert run.db.query(ApprovalRequest).one().approver_id == manager.id  # policy: the line manager, not the lead
    assert run.db.get(Ticket, ticket.id).status == "pending"  # policy: waiting for the approver's decision


def test_case_CO006_003(tb):
    """MacBook alone fits a senior consultant's budget, but January's monitor and dock push the year over: approval."""
    manager = EmployeeFactory(name="Nina Haddad", grade="manager", department="Digital")
    tobias = EmployeeFactory(
        name="Tobias Costa", grade="senior_consultant", department="Digital", manager_id=manager.id
    )
    HardwareRequestFactory(employee_id=tobias.id, model_id=MONITOR, price_cents=42_900, requested_on=date(2026, 1, 6))
    HardwareRequestFactory(
        employee_id=tobias.id, model_id=DOCK, price_cents=28_900, status="ordered", requested_on=date(2026, 1, 6)
    )
    ticket = TicketFactory(requester=tobias, subject="MacBook Pro")

    run = tb.run(
        User(
            says="Please order me a MacBook Pro 14 (HW-203). It's $2,399 and my budget as a senior consultant is "
            "$3,000, so it's well within.",
            knows={"email": tobias.email, "item": "Apple MacBook Pro 14-inch M4 Pro, HW-203"},
        ),
        golden=[
            call("find_employee_by_email", email=tobias.email),
            call("list_tickets", requester_id=tobias.id),
            call("list_hardware_catalogue"),
            call("list_hardware_requests", employee_id=tobias.id),
            call(
                "request_hardware",
                employee_id=tobias.id,
                model_id=MACBOOK_PRO,
                reason="Replacement development laptop requested by the employee.",
            ),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="hardware_budget",
                employee_id=tobias.id,
                approver_id=manager.id,
                hardware_request_id="HR-7003",
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="2026 spend would be $3,117 ($429 + $289 + $2,399), above the $3,000 budget; approval requested "
                "from the line manager, Nina Haddad.",
                public=False,
            ),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],  # "well within" his $3,000: closed
    )

    run.expect_golden()
    assert run.db.get(HardwareRequest, "HR-7003").status == "awaiting_approval"
    assert run.db.query(ApprovalRequest).one().hardware_request_id == "HR-7003"
    assert run.db.get(Ticket, ticket.id).status == "pending"  # policy: the year's spend is over budget; wait


def _override_line(employee, report=None, **line):
    """A report of `employee` with a taxi line within its limit and the line whose override was requested."""
    report = ExpenseReportFactory(employee_id=employee.id, **(report or {}))
    ExpenseLineFactory(report=report, category="taxi", merchant="Yellow Cab", amount_cents=4_600, limit_cents=7_500)
    return report, ExpenseLineFactory(report=report, override_status="requested", **line)


def test_case_CO007_001(tb):
    """Hotel $42 over its limit with an itemised folio: within the $100 desk limit, so approve the override."""
    aisha = EmployeeFactory(name="Aisha Gallagher", grade="consultant")
    report, line = _override_line(
        aisha,
        report={"title": "Chicago client workshop"},
        category="hotel",
        merchant="Hyatt Regency Chicago",
        amount_cents=29_200,
        limit_cents=25_000,
        override_justification="Only hotel with rooms near the client site during the trade show.",
    )
    ticket = TicketFactory(requester=aisha, subject="Hotel over limit")

    run = tb.run(
        User(
            says="My Chicago hotel came in over the nightly limit because of a trade show in town. I've asked for an "
            "override on the expense report, can you approve it?",
            knows={"email": aisha.email, "expense report": report.id},
        ),
        golden=[
            call("find_employee_by_email", email=aisha.email),
            call("list_tickets", requester_id=aisha.id),
            call("get_expense_report", report_id=report.id),
            call("approve_expense_override", line_id=line.id),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )

    run.expect_golden()
    approved = run.db.get(ExpenseLine, line.id)
    assert (approved.override_status, approved.reimbursable_cents) == ("approved", 29_200)


def test_case_CO007_002(tb):
    """Dinner $43.50 over the limit, only a card slip: reject for no itemised receipt and leave the ticket pending."""
    rory = EmployeeFactory(name="Rory Fischer", grade="senior_consultant")
    report, line = _override_line(
        rory,
        report={"title": "Boston steering committee"},
        category="meals",
        merchant="Legal Sea Foods",
        amount_cents=11_850,
        limit_cents=7_500,
        receipt="card_slip",
        override_justification="Late working dinner before the steering committee.",
    )
    ticket = TicketFactory(requester=rory, subject="Meal override")

    run = tb.run(
        User(
            says="I need the override on my Boston dinner approved, it's only about forty dollars over and it was a "
            "late working dinner. I've attached the card receipt.",
            knows={"email": rory.email, "expense report": report.id},
        ),
        golden=[
            call("find_employee_by_email", email=rory.email),
            call("list_tickets", requester_id=rory.id),
            call("get_expense_report", report_id=report.id),
            call("reject_expense_override", line_id=line.id, reason="receipt_not_itemised"),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Override rejected: card slip only, no itemised receipt. Waiting for the employee to upload the "
                "itemised receipt.",
                public=False,
            ),
        ],
        # rejected and closed as for a late claim (approving it, as asked, the tools refuse once it is rejected)
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],
    )

    run.expect_golden()
    rejected = run.db.get(ExpenseLine, line.id)
    assert (rejected.override_status, rejected.reimbursable_cents) == ("rejected", 7_500)
    assert run.db.get(Ticket, ticket.id).status == "pending"  # policy: he may upload the itemised receipt


def test_case_CO007_003(tb):
    """Client dinner $185 over, itemised: above the desk limit, so the line manager approves, not the lead."""
    manager = EmployeeFactory(name="Felix Dubois", grade="manager", department="Energy")
    mei = EmployeeFactory(name="Mei Rahman", grade="senior_consultant", department="Energy", manager_id=manager.id)
    lead = EmployeeFactory(name="Anand Kowalski", grade="partner", department="Energy")
    engagement = EngagementFactory(client_id=ALDER, name="Finance transformation", lead_id=lead.id)
    AssignmentFactory(engagement=engagement, employee=mei)
    report, line = _override_line(
        mei,
        report={"title": "Alder Energy kick-off", "engagement_id": engagement.id},
        category="client_entertainment",
        merchant="The Capital Grille",
        amount_cents=33_500,
        limit_cents=15_000,
        override_justification="Kick-off dinner with the Alder CFO and two finance directors.",
    )
    ticket = TicketFactory(requester=mei, subject="Client dinner override")

    run = tb.run(
        User(
            says="We took the Alder CFO out for the kick-off dinner and it went over the entertainment limit. The "
            "engagement lead was there and is fine with it, so can you approve my override?",
            knows={"email": mei.email, "expense report": report.id},
        ),
        golden=[
            call("find_employee_by_email", email=mei.email),
            call("list_tickets", requester_id=mei.id),
            call("get_expense_report", report_id=report.id),
            call("get_employee", employee_id=mei.id),
            call("list_approval_requests", employee_id=mei.id),
            call(
                "create_approval_request",
                ticket_id=ticket.id,
                kind="expense_override",
                employee_id=mei.id,
                approver_id=manager.id,
                expense_line_id=line.id,
            ),
            call("update_ticket", ticket_id=ticket.id, status="pending"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Override of $185.00 is above the $100 desk limit; sent to the line manager, Felix Dubois.",
                public=False,
            ),
        ],
        # closed on the lead's say-so; approving the line itself the tools refuse once it awaits the manager
        traps=[call("update_ticket", ticket_id=ticket.id, status="solved")],
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == manager.id
    assert run.db.get(ExpenseLine, line.id).override_status == "awaiting_manager"
    assert run.db.get(Ticket, ticket.id).status == "pending"  # policy: waiting for the line manager


def test_case_CO007_004(tb):
    """Small itemised hotel override, but incurred 100 days before the report was submitted: reject as late, solved."""
    sofia = EmployeeFactory(name="Sofia Gallagher", grade="consultant")
    report, line = _override_line(
        sofia,
        report={"title": "October Houston trip", "submitted_on": date(2026, 1, 28)},
        category="hotel",
        merchant="Marriott Marquis Houston",
        incurred_on=date(2025, 10, 20),
        amount_cents=28_000,
        limit_cents=25_000,
        override_justification="Rate went up when the client extended the workshop by a night.",
    )
    ticket = TicketFactory(requester=sofia, subject="Old hotel expense")

    run = tb.run(
        User(
            says="I finally submitted my Houston expenses from October. The hotel is only $30 over the limit and the "
            "folio is itemised, so the override should be easy.",
            knows={"email": sofia.email, "expense report": report.id},
        ),
        golden=[
            call("find_employee_by_email", email=sofia.email),
            call("list_tickets", requester_id=sofia.id),
            call("get_expense_report", report_id=report.id),
            call("reject_expense_override", line_id=line.id, reason="late_submission"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
            call(
                "add_ticket_comment",
                ticket_id=ticket.id,
                body="Override rejected: hotel incurred 2025-10-20, submitted 2026-01-28, more than 60 days later.",
                public=False,
            ),
        ],
        # left pending as if she could resubmit (approving the line the tools refuse once it is rejected)
        traps=[call("update_ticket", ticket_id=ticket.id, status="pending")],
    )

    run.expect_golden()
    assert run.db.get(ExpenseLine, line.id).override_rejection == "late_submission"
    assert run.db.get(ExpenseLine, line.id).reimbursable_cents == 25_000
    assert run.db.get(Ticket, ticket.id).status == "solved"  # policy: a late submission is final, nothing waits
