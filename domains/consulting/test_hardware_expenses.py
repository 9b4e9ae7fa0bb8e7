"""Hardware requests against grade budgets, and expense overrides (late, receipt, desk limit, manager approval)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from domains.consulting.calls import (
    budget_approval,
    decide_override,
    hardware_reads,
    identify,
    line_manager_reads,
    new_ticket,
    override_approval,
    pending,
    refused,
    request_hardware,
    solved,
    ticket_end,
)
from domains.consulting.factories import (
    AssignmentFactory,
    EmployeeFactory,
    EngagementFactory,
    ExpenseLineFactory,
    ExpenseReportFactory,
    HardwareRequestFactory,
    TicketFactory,
    handed_back,
    manager_and_report,
    override_asked,
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
    TABLET,
)
from pytest_thinkingbox import User, call

ARTICLES = (
    "Working a request",
    "Ticket status, priority, classification and comments",
    "Approval requests and routing",
    "Hardware requests and grade budgets",
    "Expense overrides",
)


@pytest.mark.distractors
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
            *identify(lena),
            *hardware_reads(lena),
            request_hardware(lena, MACBOOK_PRO, "iOS app development and testing on the new workstream."),
            solved(ticket.id, "hardware"),
        ],
        traps=[  # the sign-off she expects, though December's laptop was last year's budget
            budget_approval(ticket.id, lena, MANAGING_PARTNER, "HR-7003")
        ],
    )

    run.expect_golden()
    new = run.db.query(HardwareRequest).filter_by(model_id=MACBOOK_PRO).one()
    assert (new.status, new.price_cents) == ("submitted", 239_900)
    assert run.db.query(ApprovalRequest).count() == 0  # policy: within the 2026 budget, no approval
    assert ticket_end(run, ticket.id) == ("solved", "hardware", None)


def test_case_CO006_002(tb):
    """Laptop above a consultant's budget: raise it and route to the line manager, not the engagement lead."""
    manager, kwame = manager_and_report(
        "Omar Fischer", "Kwame Alvarez", grade="consultant", department="Retail & Consumer"
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
            *identify(kwame),
            *hardware_reads(kwame),
            request_hardware(kwame, PERFORMANCE_LAPTOP, "Forecasting models too heavy for the current laptop."),
            budget_approval(ticket.id, kwame, manager.id, "HR-0001"),
            *pending(
                ticket.id,
                "hardware",
                "needs_approval",
                "ThinkPad P1 ($2,890) is above the $2,500 consultant budget; approval requested from the line "
                "manager, Omar Fischer.",
            ),
        ],
        # closed on Ingrid's word (routing it to her as well the tools refuse: a duplicate of the pending request)
        traps=[solved(ticket.id)],
    )

    run.expect_golden()
    assert run.db.get(HardwareRequest, "HR-0001").status == "awaiting_approval"
    assert run.db.query(ApprovalRequest).one().approver_id == manager.id  # policy: the line manager, not the lead
    assert ticket_end(run, ticket.id) == ("pending", "hardware", "needs_approval")  # waiting for the approver


def test_case_CO006_003(tb):
    """MacBook alone fits a senior consultant's budget, but January's monitor and dock push the year over: approval."""
    manager, tobias = manager_and_report("Nina Haddad", "Tobias Costa", grade="senior_consultant", department="Digital")
    HardwareRequestFactory(employee_id=tobias.id, model_id=MONITOR, price_cents=42_900, requested_on=date(2026, 1, 6))
    HardwareRequestFactory(
        employee_id=tobias.id, model_id=DOCK, price_cents=28_900, status="ordered", requested_on=date(2026, 1, 6)
    )
    ticket = TicketFactory(requester=tobias, subject="MacBook Pro")

    run = tb.run(
        User(
            says="Please order me a MacBook Pro 14 (HW-203). It's $2,399 and my yearly hardware allowance as a "
            "senior consultant is $3,000, so it's well within. My current laptop can't run the simulator we use for "
            "the client's app.",
            knows={"email": tobias.email, "item": "Apple MacBook Pro 14-inch M4 Pro, HW-203"},
        ),
        golden=[
            *identify(tobias),
            *hardware_reads(tobias),
            request_hardware(tobias, MACBOOK_PRO, "Replacement development laptop requested by the employee."),
            budget_approval(ticket.id, tobias, manager.id, "HR-7003"),
            *pending(
                ticket.id,
                "hardware",
                "needs_approval",
                "2026 spend would be $3,117 ($429 + $289 + $2,399), above the $3,000 budget; approval requested "
                "from the line manager, Nina Haddad.",
            ),
        ],
        traps=[solved(ticket.id)],  # "well within" his $3,000: closed
        reply="The MacBook Pro is $2,399, but with the monitor and dock you ordered in January your 2026 hardware "
        "spend would come to $3,117, above your $3,000 yearly budget. I've raised the request and sent it to your "
        "line manager, Nina Haddad, for approval.",
    )

    run.expect_golden()
    assert run.db.get(HardwareRequest, "HR-7003").status == "awaiting_approval"
    assert run.db.query(ApprovalRequest).one().hardware_request_id == "HR-7003"
    assert ticket_end(run, ticket.id) == ("pending", "hardware", "needs_approval")  # the year is over budget


def _override_line(employee, justification, report=None, **line):
    """A report of `employee` with a taxi line within its limit and the line whose override was requested."""
    report = ExpenseReportFactory(employee_id=employee.id, **(report or {}))
    ExpenseLineFactory(report=report, category="taxi", merchant="Yellow Cab", amount_cents=4_600, limit_cents=7_500)
    return report, override_asked(report, justification, **line)


def test_case_CO007_001(tb):
    """Hotel $42 over its limit with an itemised folio: within the $100 desk limit, so approve the override."""
    aisha = EmployeeFactory(name="Aisha Gallagher", grade="consultant")
    report, line = _override_line(
        aisha,
        "Only hotel with rooms near the client site during the trade show.",
        report={"title": "Chicago client workshop"},
        category="hotel",
        merchant="Hyatt Regency Chicago",
        amount_cents=29_200,
        limit_cents=25_000,
    )
    ticket = TicketFactory(requester=aisha, subject="Hotel over limit")

    run = tb.run(
        User(
            says="My Chicago hotel came in over the nightly limit because a trade show had filled up everything near "
            "the client's office. I've already asked for an exception on the expense report. Could you approve it so "
            "the full amount gets paid back?",
            knows={"email": aisha.email, "expense report": report.id},
        ),
        golden=[
            *identify(aisha),
            *decide_override(report, line),
            solved(ticket.id, "expense_override"),
        ],
    )

    run.expect_golden()
    approved = run.db.get(ExpenseLine, line.id)
    assert (approved.override_status, approved.reimbursable_cents) == ("approved", 29_200)
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", None)


def test_case_CO007_002(tb):
    """Dinner $43.50 over the limit, only a card slip: reject for no itemised receipt and leave the ticket pending."""
    rory = EmployeeFactory(name="Rory Fischer", grade="senior_consultant")
    report, line = _override_line(
        rory,
        "Late working dinner before the steering committee.",
        report={"title": "Boston steering committee"},
        category="meals",
        merchant="Legal Sea Foods",
        amount_cents=11_850,
        limit_cents=7_500,
        receipt="card_slip",
    )
    ticket = TicketFactory(requester=rory, subject="Meal override")

    run = tb.run(
        User(
            says="I need the exception on my Boston dinner approved. It's only about forty dollars over and it was a "
            "late working dinner before the steering committee. I've attached the card receipt from the restaurant, "
            "which is all I kept.",
            knows={"email": rory.email, "expense report": report.id},
        ),
        golden=[
            *identify(rory),
            *decide_override(report, line, "receipt_not_itemised"),
            *pending(
                ticket.id,
                "expense_override",
                "awaiting_employee",
                "Override rejected: card slip only, no itemised receipt. Waiting for the employee to upload the "
                "itemised receipt.",
            ),
        ],
        # rejected and closed as for a late claim (approving it, as asked, the tools refuse once it is rejected)
        traps=[solved(ticket.id)],
    )

    run.expect_golden()
    rejected = run.db.get(ExpenseLine, line.id)
    assert (rejected.override_status, rejected.reimbursable_cents) == ("rejected", 7_500)
    assert ticket_end(run, ticket.id) == ("pending", "expense_override", "awaiting_employee")  # he may upload it


def test_case_CO007_003(tb):
    """Client dinner $185 over, itemised: above the desk limit, so the line manager approves, not the lead."""
    manager, mei = manager_and_report("Felix Dubois", "Mei Rahman", grade="senior_consultant", department="Energy")
    lead = EmployeeFactory(name="Anand Kowalski", grade="partner", department="Energy")
    engagement = EngagementFactory(client_id=ALDER, name="Finance transformation", lead_id=lead.id)
    AssignmentFactory(engagement=engagement, employee=mei)
    report, line = _override_line(
        mei,
        "Kick-off dinner with the Alder CFO and two finance directors.",
        report={"title": "Alder Energy kick-off", "engagement_id": engagement.id},
        category="client_entertainment",
        merchant="The Capital Grille",
        amount_cents=33_500,
        limit_cents=15_000,
    )
    ticket = TicketFactory(requester=mei, subject="Client dinner override")

    run = tb.run(
        User(
            says="We took the Alder CFO out for the kick-off dinner and it went over the entertainment limit. The "
            "engagement lead was there and is fine with it, so can you approve my override?",
            knows={"email": mei.email, "expense report": report.id},
        ),
        golden=[
            *identify(mei),
            call("get_expense_report", report_id=report.id),
            *line_manager_reads(mei),
            override_approval(ticket.id, mei, manager.id, line),
            *pending(
                ticket.id,
                "expense_override",
                "needs_approval",
                "Override of $185.00 is above the $100 desk limit; sent to the line manager, Felix Dubois.",
            ),
        ],
        # closed on the lead's say-so; approving the line itself the tools refuse once it awaits the manager
        traps=[solved(ticket.id)],
    )

    run.expect_golden()
    assert run.db.query(ApprovalRequest).one().approver_id == manager.id
    assert run.db.get(ExpenseLine, line.id).override_status == "awaiting_manager"
    assert ticket_end(run, ticket.id) == ("pending", "expense_override", "needs_approval")  # the line manager


def test_case_CO007_004(tb):
    """Small itemised hotel override, but incurred 100 days before the report was submitted: reject as late, solved."""
    sofia = EmployeeFactory(name="Sofia Gallagher", grade="consultant")
    report, line = _override_line(
        sofia,
        "Rate went up when the client extended the workshop by a night.",
        report={"title": "October Houston trip", "submitted_on": date(2026, 1, 28)},
        category="hotel",
        merchant="Marriott Marquis Houston",
        incurred_on=date(2025, 10, 20),
        amount_cents=28_000,
        limit_cents=25_000,
    )
    ticket = TicketFactory(requester=sofia, subject="Old hotel expense")

    run = tb.run(
        User(
            says="I finally got round to submitting my Houston expenses from October. The hotel is only thirty "
            "dollars over the limit because the client added a night to the workshop, and the folio is itemised, so "
            "the exception should be easy to approve.",
            knows={"email": sofia.email, "expense report": report.id},
        ),
        golden=[
            *identify(sofia),
            *decide_override(report, line, "late_submission"),
            *refused(
                ticket.id,
                "expense_override",
                "outside_window",
                "Override rejected: hotel incurred 2025-10-20, submitted 2026-01-28, more than 60 days later.",
            ),
        ],
        # left pending as if she could resubmit (approving the line the tools refuse once it is rejected)
        traps=[call("update_ticket", ticket_id=ticket.id, status="pending")],
    )

    run.expect_golden()
    assert run.db.get(ExpenseLine, line.id).override_rejection == "late_submission"
    assert run.db.get(ExpenseLine, line.id).reimbursable_cents == 25_000
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", "outside_window")  # final


def test_case_CO006_004(tb):
    """Wants a MacBook, or the Dell if the MacBook needs sign-off: this year's spend says raise only the Dell."""
    _manager, jonas = manager_and_report("Grace Petrov", "Jonas Whitfield", grade="consultant", department="Digital")
    HardwareRequestFactory(employee_id=jonas.id, model_id=STANDARD_LAPTOP, requested_on=date(2025, 3, 10))
    HardwareRequestFactory(employee_id=jonas.id, model_id=HEADSET, price_cents=37_900, requested_on=date(2026, 1, 8))
    HardwareRequestFactory(
        employee_id=jonas.id, model_id=MONITOR, price_cents=42_900, status="ordered", requested_on=date(2026, 1, 8)
    )
    ticket = TicketFactory(requester=jonas, subject="New laptop")

    run = tb.run(
        User(
            says="My laptop from last spring is already struggling with the mobile prototyping tools. I'd love a "
            "MacBook Pro 14 for the work. But if that has to go off to my manager for sign-off, forget it: I'd "
            "rather just have the standard Dell straight away than wait.",
            knows={
                "email": jonas.email,
                "first choice": "Apple MacBook Pro 14-inch, HW-203",
                "fallback": "Dell Latitude 7450, HW-201",
            },
            persona="A consultant who cares more about getting a working machine this week than about the brand.",
            rules=("You would rather have the Dell straight away than wait for anyone's sign-off on the MacBook.",),
        ),
        golden=[
            *identify(jonas),
            *hardware_reads(jonas),
            request_hardware(
                jonas,
                STANDARD_LAPTOP,
                "Replacement laptop for mobile prototyping; the MacBook would exceed this year's budget.",
            ),
            solved(ticket.id, "hardware"),
        ],
        # the MacBook he asked for first, though $379 + $429 + $2,399 is above his $2,500
        traps=[request_hardware(jonas, MACBOOK_PRO, "Mobile prototyping laptop.")],
    )

    run.expect_golden()
    new = run.db.query(HardwareRequest).filter_by(requested_on=date(2026, 2, 2)).one()  # $2,458 fits $2,500
    assert (new.model_id, new.status) == (STANDARD_LAPTOP, "submitted")
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "hardware", None)


def test_case_CO006_005(tb):
    """No open ticket (December's monitor ticket is solved): open a new one, raise the monitor within budget, solve."""
    hannah = EmployeeFactory(name="Hannah Whitfield", grade="consultant", department="Strategy & Operations")
    HardwareRequestFactory(employee_id=hannah.id, model_id=MONITOR, price_cents=42_900, requested_on=date(2025, 12, 3))
    HardwareRequestFactory(employee_id=hannah.id, model_id=STANDARD_LAPTOP, requested_on=date(2026, 1, 12))
    old = TicketFactory(
        requester=hannah,
        status="solved",
        category="hardware",
        subject="Monitor request",
        created_at=datetime(2025, 12, 3),
    )

    run = tb.run(
        User(
            says="The monitor you sent me in December is great, so great that I'd like a second one for the other "
            "side of my desk at home. Same Dell 27-inch, please. Can you pick up my monitor ticket from before?",
            knows={"email": hannah.email, "item": "Dell UltraSharp 27-inch monitor, HW-204"},
        ),
        golden=[
            *identify(hannah),
            *hardware_reads(hannah),
            new_ticket(hannah, "Second monitor", "hardware"),
            request_hardware(hannah, MONITOR, "Second monitor for home working."),
            solved("T-3302"),
        ],
        traps=[call("update_ticket", ticket_id=old.id, status="open")],  # "pick up my ticket from before"
    )

    run.expect_golden()
    new = run.db.get(Ticket, "T-3302")
    assert (new.requester_id, new.subject_employee_id) == (hannah.id, hannah.id)
    assert (new.status, new.category, new.reason) == ("solved", "hardware", None)  # $1,650 + $429 fits $2,500
    assert run.db.get(Ticket, old.id).status == "solved"  # policy: a solved ticket is not reopened
    assert run.db.query(HardwareRequest).filter_by(status="submitted").one().model_id == MONITOR


@pytest.mark.two_requests
def test_case_CO007_005(tb):
    """Two overrides: $40 over with an itemised receipt is approved; a taxi claimed 70 days later is not."""
    kwame = EmployeeFactory(name="Kwame Rahman", grade="consultant")
    denver, meal = _override_line(
        kwame,
        "Team dinner after the workshop ran late.",
        report={"title": "Denver workshop", "submitted_on": date(2026, 1, 30)},
        category="meals",
        merchant="Guard and Grace",
        incurred_on=date(2026, 1, 27),
        amount_cents=11_500,
        limit_cents=7_500,
    )
    seattle, taxi = _override_line(
        kwame,
        "Airport run in a snowstorm.",
        report={"title": "Seattle site visit", "submitted_on": date(2026, 1, 29)},
        category="taxi",
        merchant="Seattle Yellow Cab",
        incurred_on=date(2025, 11, 20),
        amount_cents=10_500,
        limit_cents=7_500,
    )
    ticket = TicketFactory(requester=kwame, subject="Two overrides")

    run = tb.run(
        User(
            says="I've got two overrides waiting. One's the team dinner in Denver last week, a bit over the meal "
            "limit. The other is a cab to the airport from the Seattle trip, which I only just got round to "
            "claiming. Receipts are itemised for both. Can you approve them?",
            knows={
                "email": kwame.email,
                "expense reports": f"{denver.id} for Denver, {seattle.id} for Seattle",
            },
        ),
        golden=[
            *identify(kwame),
            call("get_expense_report", report_id=denver.id),
            *decide_override(seattle, meal),
            call("reject_expense_override", line_id=taxi.id, reason="late_submission"),
            *refused(
                ticket.id,
                "expense_override",
                "outside_window",
                "Denver dinner override approved ($40.00 over, itemised). Seattle taxi override rejected: "
                "incurred 2025-11-20, submitted 2026-01-29, more than 60 days later.",
            ),
        ],
        # the late taxi treated as waiting for the manager's decision
        traps=[call("update_ticket", ticket_id=ticket.id, status="pending", reason="needs_approval")],
    )

    run.expect_golden()
    assert run.db.get(ExpenseLine, meal.id).override_status == "approved"
    rejected = run.db.get(ExpenseLine, taxi.id)
    assert (rejected.override_rejection, rejected.reimbursable_cents) == ("late_submission", 7_500)
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", "outside_window")


@pytest.mark.pushback
def test_case_CO007_006(tb):
    """Card slip and late: the late check comes first, so reject as late and solve; no waiting for a receipt."""
    mateo = EmployeeFactory(name="Mateo Haddad", grade="senior_consultant")
    report, line = _override_line(
        mateo,
        "Dinner with the client's operations director.",
        report={"title": "Pittsburgh client visit", "submitted_on": date(2026, 1, 26)},
        category="meals",
        merchant="Eddie V's Pittsburgh",
        incurred_on=date(2025, 11, 10),
        amount_cents=13_000,
        limit_cents=7_500,
        receipt="card_slip",
    )
    ticket = TicketFactory(requester=mateo, subject="Pittsburgh dinner override")

    run = tb.run(
        User(
            says="Can you approve the override on my Pittsburgh dinner? I know I've only got the card slip on there. "
            "If that's the problem I can dig the itemised bill out of my email this week, so just keep the ticket "
            "open for me and I'll send it over.",
            knows={"email": mateo.email, "expense report": report.id},
            persona="A senior consultant who is behind on expenses and wants to be given time.",
            rules=(
                "If refused, offer once more to send the itemised receipt and ask for the ticket to stay open.",
                "Accept an answer that gives a reason.",
            ),
        ),
        golden=[
            *identify(mateo),
            *decide_override(report, line, "late_submission"),
            *refused(
                ticket.id,
                "expense_override",
                "outside_window",
                "Override rejected as late: dinner 2025-11-10, report submitted 2026-01-26 (77 days). An "
                "itemised receipt would not change this.",
            ),
        ],
        traps=[  # kept open for the receipt, as he asks
            call("update_ticket", ticket_id=ticket.id, status="pending", reason="awaiting_employee")
        ],
        reply="I'm sorry, I can't approve this one. The dinner was on 10 November and the report went in on 26 "
        "January, 77 days later, and overrides are only possible for expenses submitted within 60 days. An itemised "
        "receipt wouldn't change that, so I've closed the request; the amount up to the meal limit is still paid.",
    )

    run.expect_golden()
    rejected = run.db.get(ExpenseLine, line.id)
    assert (rejected.override_rejection, rejected.reimbursable_cents) == ("late_submission", 7_500)  # not the receipt
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", "outside_window")  # final


@pytest.mark.distractors
def test_case_CO006_006(tb):
    """A dock for a consultant whose January MacBook was returned: a returned item still counts, so over budget."""
    manager, chloe = manager_and_report("Nina Fischer", "Chloe Rahman", grade="consultant", department="Digital")
    handed_back(
        chloe,
        MACBOOK_PRO,
        returned_on=date(2026, 1, 23),
        price_cents=239_900,
        requested_on=date(2026, 1, 6),
        reason="Wanted to try macOS for design work",
    )
    HardwareRequestFactory(
        employee_id=chloe.id, model_id=MONITOR, price_cents=42_900, status="rejected", requested_on=date(2026, 1, 9)
    )
    HardwareRequestFactory(employee_id=chloe.id, requested_on=date(2025, 3, 17))
    ticket = TicketFactory(requester=chloe, subject="Thunderbolt dock")

    run = tb.run(
        User(
            says="Could I get the Dell Thunderbolt dock for my desk? I sent back the MacBook I tried in January, so "
            "nothing I have this year counts against my budget any more.",
            knows={"email": chloe.email},
        ),
        golden=[
            *identify(chloe),
            *hardware_reads(chloe),
            call("get_employee", employee_id=chloe.id),
            request_hardware(chloe, DOCK, "Desk dock."),
            budget_approval(ticket.id, chloe, manager.id, "HR-7004"),
            *pending(
                ticket.id,
                "hardware",
                "needs_approval",
                "Dock raised (HR-7004): with the returned MacBook (still counted) this year's spend is $2,688.00, "
                "above the $2,500 consultant budget. Sent to the line manager, Nina Fischer.",
            ),
        ],
        traps=[solved(ticket.id)],  # the returned MacBook left out
    )

    run.expect_golden()
    dock = run.db.get(HardwareRequest, "HR-7004")
    assert (dock.model_id, dock.status) == (DOCK, "awaiting_approval")  # 239,900 + 28,900 > 250,000
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.kind, approval.approver_id, approval.hardware_request_id) == (
        "hardware_budget",
        manager.id,
        "HR-7004",
    )
    assert ticket_end(run, ticket.id) == ("pending", "hardware", "needs_approval")


def test_case_CO006_007(tb):
    """A tablet, or the headset if that needs sign-off: neither fits the analyst's budget: route the tablet."""
    manager, mei = manager_and_report("Omar Kraus", "Mei Byrne", grade="analyst", department="Health")
    HardwareRequestFactory(employee_id=mei.id, requested_on=date(2026, 1, 5), status="delivered")
    ticket = TicketFactory(requester=mei, subject="Tablet for ward rounds")

    run = tb.run(
        User(
            says="I shadow ward rounds for the hospital project and would love the iPad Air for notes. If that "
            "needs someone's sign-off, I'd settle for the Jabra headset instead, whatever goes through quicker.",
            knows={"email": mei.email},
        ),
        golden=[
            *identify(mei),
            *hardware_reads(mei),
            call("get_manager_chain", employee_id=mei.id),
            request_hardware(mei, TABLET, "Notes on ward rounds."),
            budget_approval(ticket.id, mei, manager.id, "HR-7002"),
            *pending(
                ticket.id,
                "hardware",
                "needs_approval",
                "Neither item fits the $2,000 analyst budget after January's laptop ($2,349.00 with the iPad, "
                "$2,029.00 with the headset): iPad raised (HR-7002) and sent to the line manager, Omar Kraus.",
            ),
        ],
        traps=[request_hardware(mei, HEADSET, "Fallback headset.")],
    )

    run.expect_golden()
    requests = run.db.query(HardwareRequest).filter_by(employee_id=mei.id, requested_on=date(2026, 2, 2)).all()
    assert [(r.model_id, r.status) for r in requests] == [(TABLET, "awaiting_approval")]  # policy: only the first
    approval = run.db.query(ApprovalRequest).one()
    assert (approval.approver_id, approval.hardware_request_id) == (manager.id, "HR-7002")
    assert ticket_end(run, ticket.id) == ("pending", "hardware", "needs_approval")


def test_case_CO007_007(tb):
    """An override asked on a line that is within its limit: reject it as within the limit, solved as not needed."""
    lena = EmployeeFactory(name="Lena Haddad", grade="consultant")
    report = ExpenseReportFactory(employee_id=lena.id, title="Denver site visit")
    ExpenseLineFactory(
        report=report, category="hotel", merchant="Hilton Denver", amount_cents=31_000, limit_cents=25_000
    )
    line = override_asked(
        report,
        "Team breakfast before the workshop.",
        category="meals",
        merchant="Snooze Denver",
        amount_cents=6_850,
        limit_cents=7_500,
    )
    ticket = TicketFactory(requester=lena, subject="Breakfast override")

    run = tb.run(
        User(
            says="I put in an override request on the team breakfast on my Denver report, just to be safe. Could "
            "you approve it so the whole thing is paid?",
            knows={"email": lena.email},
        ),
        golden=[
            *identify(lena),
            call("list_expense_reports", employee_id=lena.id),
            *decide_override(report, line, "within_limit"),
            *refused(
                ticket.id,
                "expense_override",
                "not_needed",
                "Override not needed: the breakfast line ($68.50) is within its $75.00 limit and is paid in full.",
            ),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="pending", reason="needs_approval")],
    )

    run.expect_golden()
    kept = run.db.get(ExpenseLine, line.id)
    assert (kept.override_status, kept.override_rejection, kept.reimbursable_cents) == (
        "rejected",
        "within_limit",
        6_850,
    )
    assert run.db.query(ExpenseLine).filter_by(override_status="none").count() == 1  # the hotel line is not asked
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", "not_needed")


def test_case_CO007_008(tb):
    """Exactly $100.00 over, itemised, on time: the desk limit includes $100, so approve it; no manager needed."""
    _manager, tobias = manager_and_report("Grace Byrne", "Tobias Osei", grade="senior_consultant")
    ExpenseReportFactory(employee_id=tobias.id, title="Atlanta kickoff", submitted_on=date(2025, 12, 19))
    report = ExpenseReportFactory(employee_id=tobias.id, title="Boston steering committee")
    line = override_asked(
        report,
        "Steering committee ran late; only room left near the client.",
        category="hotel",
        merchant="Omni Parker House",
        incurred_on=date(2026, 1, 21),
        amount_cents=35_000,
        limit_cents=25_000,
    )
    ticket = TicketFactory(requester=tobias, subject="Boston hotel override")

    run = tb.run(
        User(
            says="My Boston hotel for the steering committee came in a hundred dollars over the limit. The itemised "
            "folio is attached to my latest report. Does this need to go to my manager?",
            knows={"email": tobias.email},
        ),
        golden=[
            *identify(tobias),
            call("list_expense_reports", employee_id=tobias.id),
            *decide_override(report, line),
            solved(ticket.id, "expense_override"),
        ],
        traps=[call("update_ticket", ticket_id=ticket.id, status="pending", reason="needs_approval")],
    )

    run.expect_golden()
    approved = run.db.get(ExpenseLine, line.id)
    assert (approved.override_status, approved.reimbursable_cents) == ("approved", 35_000)  # policy: up to $100
    assert run.db.query(ApprovalRequest).count() == 0
    assert ticket_end(run, ticket.id) == ("solved", "expense_override", None)
