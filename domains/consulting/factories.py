"""Factories for the records a consulting task seeds on top of the base records.

Ids come from sequences (reset before every attempt), dates from the domain
clock, so the same task body always writes the same rows. Employees report to
the managing partner unless given a ``manager``; engagements are led by the
financial services partner unless given a ``lead``.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import factory

from domains.shared.factories import CommentFactoryBase, TicketFactoryBase
from pytest_thinkingbox.core.factories import Factory  # not the package's lazy export, which mypy sees as Any

from .clock import NOW, TODAY, days_ago
from .models import (
    AccessGrant,
    ApprovalRequest,
    Assignment,
    ComplianceRecord,
    Employee,
    Engagement,
    ExpenseLine,
    ExpenseReport,
    HardwareRequest,
    LicenceSeat,
    Ticket,
    TicketComment,
)
from .seed import FS_PARTNER, MANAGING_PARTNER, NORDHAVN, STANDARD_LAPTOP

_FIRST = ["Lena", "Kwame", "Sofia", "Arjun", "Hannah", "Mateo", "Chloe", "Tobias", "Aisha", "Rory", "Mei", "Jonas"]
_LAST = ["Fischer", "Mensah", "Costa", "Mehta", "Byrne", "Alvarez", "Dubois", "Kraus", "Rahman", "Gallagher"]
_TITLES = {
    "analyst": "Business Analyst",
    "consultant": "Consultant",
    "senior_consultant": "Senior Consultant",
    "manager": "Engagement Manager",
    "director": "Director",
    "partner": "Partner",
}


def _email(name: str) -> str:
    return name.lower().replace(" ", ".").replace("'", "") + "@haldenprice.com"


class EmployeeFactory(Factory[Employee]):
    class Meta:
        model = Employee

    id = factory.Sequence(lambda n: f"E-{2001 + n}")
    name = factory.Sequence(lambda n: f"{_FIRST[n % len(_FIRST)]} {_LAST[(n * 3) % len(_LAST)]}")
    email = factory.LazyAttribute(lambda e: _email(e.name))
    grade = "consultant"
    title = factory.LazyAttribute(lambda e: _TITLES[e.grade])
    department = "Strategy & Operations"
    office = "New York"
    manager_id = MANAGING_PARTNER
    status = "active"
    start_date = factory.LazyFunction(lambda: TODAY.replace(year=TODAY.year - 3))
    last_day = None


def manager_and_report(
    manager: str, report: str, manager_grade: str = "manager", **employee: Any
) -> tuple[Employee, Employee]:
    """A line manager (`manager_grade`) and `report`, who reports to them, in the same department: the report's
    `department` if given, else the factory's; the other fields are the report's. Gives (manager, report)."""
    department = {"department": employee["department"]} if "department" in employee else {}
    line_manager = EmployeeFactory(name=manager, grade=manager_grade, **department)
    return line_manager, EmployeeFactory(name=report, manager_id=line_manager.id, **employee)


class EngagementFactory(Factory[Engagement]):
    class Meta:
        model = Engagement

    id = factory.Sequence(lambda n: f"ENG-{601 + n}")
    client_id = NORDHAVN
    name = "Core banking migration"
    lead_id = FS_PARTNER
    status = "active"
    start_date = factory.LazyFunction(lambda: TODAY - timedelta(days=60))
    end_date = factory.LazyFunction(lambda: TODAY + timedelta(days=120))


def client_engagement(
    client_id: str, name: str, lead_id: str, start: date, end: date, status: str = "active"
) -> Engagement:
    """An engagement for `client_id`, led by `lead_id`, running from `start` to `end`."""
    return EngagementFactory(
        client_id=client_id, name=name, lead_id=lead_id, status=status, start_date=start, end_date=end
    )


class AssignmentFactory(Factory[Assignment]):
    class Meta:
        model = Assignment

    id = factory.Sequence(lambda n: f"AS-{801 + n}")
    engagement = factory.SubFactory(EngagementFactory)
    employee = factory.SubFactory(EmployeeFactory)
    role = "Consultant"
    start_date = factory.SelfAttribute("engagement.start_date")
    end_date = factory.SelfAttribute("engagement.end_date")


class ComplianceRecordFactory(Factory[ComplianceRecord]):
    """A signed NDA for a client by default; pass ``kind="background_check"`` (and no client) for a check."""

    class Meta:
        model = ComplianceRecord

    id = factory.Sequence(lambda n: f"CMP-{3001 + n}")
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    kind = "nda"
    client_id = NORDHAVN
    status = "signed"
    completed_on = factory.LazyFunction(lambda: TODAY - timedelta(days=200))
    expires_on = None


def staffed(employee: Employee, engagement: Engagement, nda_signed_on: date, **assignment: Any) -> Assignment:
    """`employee` assigned to `engagement` (for its dates unless given), with the engagement client's NDA signed on
    `nda_signed_on`: what a client environment or folder asks first (staffed today, a current NDA)."""
    staffing = AssignmentFactory(engagement=engagement, employee=employee, **assignment)
    ComplianceRecordFactory(employee_id=employee.id, client_id=engagement.client_id, completed_on=nda_signed_on)
    return staffing


def background_check(
    employee: Employee, status: str = "cleared", completed_on: date = date(2024, 9, 16), valid_years: int = 3
) -> ComplianceRecord:
    """A background check on `employee`, completed on `completed_on` and valid for `valid_years` from then; one
    still `in_progress` has neither date."""
    done = status != "in_progress"
    return ComplianceRecordFactory(
        employee_id=employee.id,
        kind="background_check",
        client_id=None,
        status=status,
        completed_on=completed_on if done else None,
        expires_on=completed_on.replace(year=completed_on.year + valid_years) if done else None,
    )


class AccessGrantFactory(Factory[AccessGrant]):
    class Meta:
        model = AccessGrant

    id = factory.Sequence(lambda n: f"AG-{5001 + n}")
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    resource_id = "RES-302"
    role = "viewer"
    status = "active"
    engagement_id = None
    granted_at = factory.LazyFunction(lambda: days_ago(90))
    expires_on = None
    revoked_at = None
    revoke_reason = None


def client_grant(employee: Employee, resource_id: str, engagement: Engagement, **fields: Any) -> AccessGrant:
    """A grant of `employee` on a client environment or folder, held for their assignment on `engagement`."""
    return AccessGrantFactory(employee_id=employee.id, resource_id=resource_id, engagement_id=engagement.id, **fields)


class LicenceSeatFactory(Factory[LicenceSeat]):
    class Meta:
        model = LicenceSeat

    id = factory.Sequence(lambda n: f"LS-{4001 + n}")
    software_id = "SW-102"
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    status = "active"
    requested_on = factory.LazyFunction(lambda: TODAY - timedelta(days=300))
    assigned_on = factory.SelfAttribute("requested_on")
    last_used_on = factory.LazyFunction(lambda: TODAY - timedelta(days=3))
    released_on = None


class HardwareRequestFactory(Factory[HardwareRequest]):
    class Meta:
        model = HardwareRequest

    id = factory.Sequence(lambda n: f"HR-{7001 + n}")
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    model_id = STANDARD_LAPTOP
    price_cents = 165_000
    status = "delivered"
    requested_on = factory.LazyFunction(lambda: TODAY - timedelta(days=150))
    reason = "Laptop refresh"


def handed_back(employee: Employee, model_id: str, returned_on: date, **fields: Any) -> HardwareRequest:
    """An item `employee` was given and has since handed back, on `returned_on`: it still counts against the year's
    budget, and an offboarding has nothing left to record for it."""
    return HardwareRequestFactory(
        employee_id=employee.id, model_id=model_id, status="returned", returned_on=returned_on, **fields
    )


class ExpenseReportFactory(Factory[ExpenseReport]):
    class Meta:
        model = ExpenseReport

    id = factory.Sequence(lambda n: f"EXP-{9001 + n}")
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    engagement_id = None
    title = "Client travel"
    status = "submitted"
    submitted_on = factory.LazyFunction(lambda: TODAY - timedelta(days=3))


class ExpenseLineFactory(Factory[ExpenseLine]):
    """An expense line; ``reimbursable_cents`` is the amount capped at the limit unless given."""

    class Meta:
        model = ExpenseLine

    id = factory.Sequence(lambda n: f"EXL-{9501 + n}")
    report = factory.SubFactory(ExpenseReportFactory)
    incurred_on = factory.LazyFunction(lambda: TODAY - timedelta(days=10))
    category = "meals"
    merchant = "Pret A Manger"
    amount_cents = 1_250
    limit_cents = 7_500
    receipt = "itemised"
    override_status = "none"
    override_justification = None
    override_rejection = None
    reimbursable_cents = factory.LazyAttribute(lambda line: min(line.amount_cents, line.limit_cents))


def override_asked(report: ExpenseReport, justification: str, **line: Any) -> ExpenseLine:
    """A line of `report` whose override its employee asked for, with their `justification` (Expense overrides)."""
    return ExpenseLineFactory(report=report, override_status="requested", override_justification=justification, **line)


class ApprovalRequestFactory(Factory[ApprovalRequest]):
    """A pending approval request about an employee's request, raised from one of their tickets five days ago."""

    class Meta:
        model = ApprovalRequest

    id = factory.Sequence(lambda n: f"APR-{6001 + n}")
    kind = "system_access"
    employee_id = factory.LazyFunction(lambda: EmployeeFactory().id)
    approver_id = MANAGING_PARTNER
    status = "pending"
    ticket_id = None
    resource_id = None
    requested_role = None
    software_id = None
    hardware_request_id = None
    expense_line_id = None
    created_at = factory.LazyFunction(lambda: days_ago(5))
    decided_at = None
    note = None


def access_asked(
    kind: str, employee: Employee, approver_id: str, resource_id: str, role: str, **fields: Any
) -> ApprovalRequest:
    """An approval request for `role` on a resource, raised earlier for `employee` to `approver_id`: pending unless
    a `status` (and when it was decided) is given."""
    return ApprovalRequestFactory(
        kind=kind,
        employee_id=employee.id,
        approver_id=approver_id,
        resource_id=resource_id,
        requested_role=role,
        **fields,
    )


class TicketFactory(TicketFactoryBase, Factory[Ticket]):
    """The ticket of the conversation (open, created now) unless told otherwise."""

    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{3301 + n}")
    requester = factory.SubFactory(EmployeeFactory)
    subject_employee_id = None
    subject = "Service desk request"
    created_at = NOW


class TicketCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{8801 + n}")
    ticket = factory.SubFactory(TicketFactory)
    body = "Employee message."


def finished_ticket(requester: Employee, subject: str, created_at: datetime, status: str = "solved") -> Ticket:
    """An earlier ticket of the requester, `solved` or `closed`: not the conversation's ticket, so with no new or open
    one the agent opens a ticket for the request (CO-3)."""
    return TicketFactory(requester=requester, status=status, subject=subject, created_at=created_at)
