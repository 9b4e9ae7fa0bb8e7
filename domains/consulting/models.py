"""Records of a consulting firm's internal service desk: people, engagements, access, licences, spend, tickets.

Money is held in integer cents, ids are strings with a per-table prefix
(``E-``, ``ENG-``, ``AG-`` ...), and every enumerated field has a `Literal` type
below that the tools reuse for their argument schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from domains.shared.tickets import AGENT_TEXT, CommentColumns, TicketColumns

Grade = Literal["analyst", "consultant", "senior_consultant", "manager", "director", "partner"]
GRADES: tuple[str, ...] = ("analyst", "consultant", "senior_consultant", "manager", "director", "partner")
EmployeeStatus = Literal["active", "on_leave", "left"]
EngagementStatus = Literal["planned", "active", "closed"]
ResourceKind = Literal["internal_system", "client_environment", "template_folder", "client_folder"]
AccessRole = Literal["viewer", "editor", "admin"]
GrantStatus = Literal["active", "revoked", "expired"]
RevokeReason = Literal["leaver", "assignment_ended", "requested", "security"]
ComplianceKind = Literal["nda", "background_check"]
ComplianceStatus = Literal["signed", "sent", "cleared", "in_progress", "failed", "expired"]
ApprovalRoute = Literal["none", "line_manager", "it_security"]
SeatStatus = Literal["active", "released", "waitlisted"]
HardwareCategory = Literal["laptop", "monitor", "dock", "headset", "tablet", "peripheral"]
HardwareStatus = Literal["submitted", "awaiting_approval", "ordered", "delivered", "rejected", "returned"]
ApprovalKind = Literal[
    "client_access", "folder_access", "system_access", "software_licence", "hardware_budget", "expense_override"
]
ApprovalStatus = Literal["pending", "approved", "rejected"]
ExpenseCategory = Literal["meals", "hotel", "taxi", "rail", "air", "client_entertainment"]
ReceiptKind = Literal["itemised", "card_slip", "none"]
OverrideStatus = Literal["none", "requested", "approved", "rejected", "awaiting_manager"]
OverrideRejection = Literal["receipt_not_itemised", "late_submission", "within_limit"]
ReportStatus = Literal["draft", "submitted", "approved", "reimbursed"]


class Base(DeclarativeBase):
    pass


class Employee(Base):
    __tablename__ = "employees"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    grade: Mapped[str] = mapped_column(String(24))
    title: Mapped[str] = mapped_column(String(120))
    department: Mapped[str] = mapped_column(String(80))
    office: Mapped[str] = mapped_column(String(40), default="New York")
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    start_date: Mapped[date] = mapped_column(Date)
    last_day: Mapped[date | None] = mapped_column(Date, nullable=True)

    manager: Mapped[Employee | None] = relationship(remote_side=[id])


# find_employee_by_email compares emails in lower case (domains/shared/identity.py)
Index("ix_employees_email_lower", func.lower(Employee.email))


class Client(Base):
    __tablename__ = "clients"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    industry: Mapped[str] = mapped_column(String(60))
    background_check_required: Mapped[bool] = mapped_column(Boolean, default=True)


class Engagement(Base):
    __tablename__ = "engagements"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id"), index=True)
    name: Mapped[str] = mapped_column(String(160))
    lead_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)

    client: Mapped[Client] = relationship()
    lead: Mapped[Employee] = relationship()
    assignments: Mapped[list[Assignment]] = relationship(back_populates="engagement", order_by="Assignment.id")


class Assignment(Base):
    """One employee staffed on one engagement between two dates."""

    __tablename__ = "assignments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    engagement_id: Mapped[str] = mapped_column(ForeignKey("engagements.id"), index=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    role: Mapped[str] = mapped_column(String(80))
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)

    engagement: Mapped[Engagement] = relationship(back_populates="assignments")
    employee: Mapped[Employee] = relationship()


class Resource(Base):
    """Something access is granted to: an internal system, a client environment or a document folder."""

    __tablename__ = "resources"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    kind: Mapped[str] = mapped_column(String(24), index=True)  # list_resources filters by kind
    client_id: Mapped[str | None] = mapped_column(ForeignKey("clients.id"), nullable=True, index=True)
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)
    description: Mapped[str] = mapped_column(String(240), default="")

    client: Mapped[Client | None] = relationship()


class AccessGrant(Base):
    __tablename__ = "access_grants"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    resource_id: Mapped[str] = mapped_column(ForeignKey("resources.id"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default="active")
    engagement_id: Mapped[str | None] = mapped_column(ForeignKey("engagements.id"), nullable=True, index=True)
    granted_at: Mapped[datetime] = mapped_column(DateTime)
    expires_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    revoke_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)

    resource: Mapped[Resource] = relationship()


class ComplianceRecord(Base):
    """An NDA (for one client) or a background check (for the employee) and where it stands."""

    __tablename__ = "compliance_records"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    client_id: Mapped[str | None] = mapped_column(ForeignKey("clients.id"), nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(16))
    completed_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    expires_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    client: Mapped[Client | None] = relationship()


class Software(Base):
    __tablename__ = "software"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    vendor: Mapped[str] = mapped_column(String(80))
    seats_total: Mapped[int] = mapped_column(Integer)
    allowed_grades: Mapped[str] = mapped_column(String(200))  # comma-separated grades
    approval: Mapped[str] = mapped_column(String(16), default="none")
    annual_cost_cents: Mapped[int] = mapped_column(Integer)


class LicenceSeat(Base):
    """A seat of a software pool held by an employee, released, or a place on the pool's waitlist."""

    __tablename__ = "licence_seats"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    software_id: Mapped[str] = mapped_column(ForeignKey("software.id"), index=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    requested_on: Mapped[date] = mapped_column(Date)
    assigned_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    last_used_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    released_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    software: Mapped[Software] = relationship()


class HardwareModel(Base):
    """An item of the hardware catalogue."""

    __tablename__ = "hardware_models"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    category: Mapped[str] = mapped_column(String(16))
    price_cents: Mapped[int] = mapped_column(Integer)
    orderable: Mapped[bool] = mapped_column(Boolean, default=True)


class HardwareRequest(Base):
    __tablename__ = "hardware_requests"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    model_id: Mapped[str] = mapped_column(ForeignKey("hardware_models.id"), index=True)
    price_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(24), default="submitted")
    requested_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)
    returned_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    model: Mapped[HardwareModel] = relationship()


class ApprovalRequest(Base):
    """A decision asked of one approver about one employee's request."""

    __tablename__ = "approval_requests"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    approver_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    ticket_id: Mapped[str | None] = mapped_column(ForeignKey("tickets.id"), nullable=True, index=True)
    resource_id: Mapped[str | None] = mapped_column(ForeignKey("resources.id"), nullable=True, index=True)
    requested_role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    software_id: Mapped[str | None] = mapped_column(ForeignKey("software.id"), nullable=True, index=True)
    hardware_request_id: Mapped[str | None] = mapped_column(
        ForeignKey("hardware_requests.id"), nullable=True, index=True
    )
    expense_line_id: Mapped[str | None] = mapped_column(ForeignKey("expense_lines.id"), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    note: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)


class ExpenseReport(Base):
    __tablename__ = "expense_reports"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    engagement_id: Mapped[str | None] = mapped_column(ForeignKey("engagements.id"), nullable=True, index=True)
    title: Mapped[str] = mapped_column(String(160))
    status: Mapped[str] = mapped_column(String(16), default="submitted")
    submitted_on: Mapped[date] = mapped_column(Date)

    lines: Mapped[list[ExpenseLine]] = relationship(back_populates="report", order_by="ExpenseLine.id")


class ExpenseLine(Base):
    """One expense with its receipt, the policy limit that applies to it and any override request."""

    __tablename__ = "expense_lines"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    report_id: Mapped[str] = mapped_column(ForeignKey("expense_reports.id"), index=True)
    incurred_on: Mapped[date] = mapped_column(Date)
    category: Mapped[str] = mapped_column(String(24))
    merchant: Mapped[str] = mapped_column(String(120))
    amount_cents: Mapped[int] = mapped_column(Integer)
    limit_cents: Mapped[int] = mapped_column(Integer)
    receipt: Mapped[str] = mapped_column(String(16), default="itemised")
    override_status: Mapped[str] = mapped_column(String(16), default="none")
    override_justification: Mapped[str | None] = mapped_column(String(240), nullable=True)
    override_rejection: Mapped[str | None] = mapped_column(String(24), nullable=True)
    reimbursable_cents: Mapped[int] = mapped_column(Integer)

    report: Mapped[ExpenseReport] = relationship(back_populates="lines")


class Ticket(TicketColumns, Base):
    requester_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    subject_employee_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)

    requester: Mapped[Employee] = relationship(foreign_keys=[requester_id])


class TicketComment(CommentColumns, Base):
    pass
