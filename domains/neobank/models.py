"""Records of a mobile-only bank: customers, accounts, cards, payments, disputes, fees, fraud and support,
and the bank's internal help desk: employees, internal systems and their roles, access grants, access requests
with their approvals, incidents and devices.

Money is held in integer euro cents, ids are strings with a per-table prefix
(``CU-``, ``AC-``, ``CD-``, ``TX-`` ...), and every enumerated field has a
`Literal` type below that the tools reuse for their argument schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from domains.shared.tickets import AGENT_TEXT, CommentColumns, TicketColumns

KycLevelName = Literal["basic", "standard", "enhanced"]
AccountKind = Literal["current", "savings"]
AccountStatus = Literal["open", "closed"]
HoldReason = Literal["card_authorisation", "transfer_review", "legal_order"]
HoldStatus = Literal["active", "released"]
CardKind = Literal["physical", "virtual"]
CardStatus = Literal["ordered", "active", "frozen", "blocked", "cancelled"]
BlockReason = Literal["lost", "stolen", "fraud", "damaged"]
TransactionKind = Literal[
    "card_payment", "atm_withdrawal", "transfer_in", "transfer_out", "fee", "fee_refund", "interest", "card_refund"
]
Direction = Literal["debit", "credit"]
TransactionStatus = Literal["pending", "posted"]
TransferStatus = Literal["completed", "held", "rejected", "cancelled"]
Frequency = Literal["once", "weekly", "monthly"]
ScheduledStatus = Literal["active", "cancelled", "completed"]
DisputeReason = Literal["unauthorised", "not_received", "duplicate_charge", "incorrect_amount"]
DisputeStatus = Literal["open", "won", "lost", "withdrawn"]
FeeKind = Literal[
    "monthly_plan", "atm_withdrawal", "foreign_exchange", "savings_withdrawal", "card_replacement", "overdraft"
]
FeeRefundReason = Literal["goodwill", "charged_in_error"]
RiskLevel = Literal["low", "medium", "high"]
AlertStatus = Literal["open", "cleared", "confirmed_fraud"]
AlertResolution = Literal["cleared", "confirmed_fraud"]
LockReason = Literal["failed_verification", "suspected_takeover", "customer_request"]


class Base(DeclarativeBase):
    pass


class KycLevel(Base):
    """What a verification level allows: transfer limits and the highest card spending limit."""

    __tablename__ = "kyc_levels"

    level: Mapped[str] = mapped_column(String(16), primary_key=True)
    description: Mapped[str] = mapped_column(String(200))
    single_transfer_limit_cents: Mapped[int] = mapped_column(Integer)
    monthly_transfer_limit_cents: Mapped[int] = mapped_column(Integer)
    card_daily_limit_max_cents: Mapped[int] = mapped_column(Integer)


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    date_of_birth: Mapped[date] = mapped_column(Date)
    address_line: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    postal_code: Mapped[str] = mapped_column(String(16))
    country: Mapped[str] = mapped_column(String(2), default="DE")
    kyc_level: Mapped[str] = mapped_column(ForeignKey("kyc_levels.level"), default="standard", index=True)
    joined_on: Mapped[date] = mapped_column(Date)
    security_locked: Mapped[bool] = mapped_column(Boolean, default=False)
    security_lock_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    security_locked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    kyc: Mapped[KycLevel] = relationship()
    accounts: Mapped[list[Account]] = relationship(back_populates="customer", order_by="Account.id")


# find_customer_by_email compares emails in lower case (domains/shared/identity.py)
Index("ix_customers_email_lower", func.lower(Customer.email))


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="current")
    nickname: Mapped[str] = mapped_column(String(60))
    iban: Mapped[str] = mapped_column(String(34), unique=True)
    currency: Mapped[str] = mapped_column(String(3), default="EUR")
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_on: Mapped[date] = mapped_column(Date)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    customer: Mapped[Customer] = relationship(back_populates="accounts")
    holds: Mapped[list[Hold]] = relationship(back_populates="account", order_by="Hold.id")


class Hold(Base):
    """Money reserved on an account (a card authorisation not yet settled, a transfer under review ...)."""

    __tablename__ = "holds"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(24))
    description: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="active")
    placed_at: Mapped[datetime] = mapped_column(DateTime)
    transfer_id: Mapped[str | None] = mapped_column(ForeignKey("transfers.id"), nullable=True, index=True)

    account: Mapped[Account] = relationship(back_populates="holds")


class Card(Base):
    __tablename__ = "cards"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="physical")
    last4: Mapped[str] = mapped_column(String(4))
    status: Mapped[str] = mapped_column(String(16), default="active")
    daily_limit_cents: Mapped[int] = mapped_column(Integer, default=100_000)
    expires_on: Mapped[date] = mapped_column(Date)
    issued_at: Mapped[datetime] = mapped_column(DateTime)
    frozen_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    blocked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    block_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    replaces_card_id: Mapped[str | None] = mapped_column(ForeignKey("cards.id"), nullable=True, index=True)

    customer: Mapped[Customer] = relationship()
    account: Mapped[Account] = relationship()
    replaces: Mapped[Card | None] = relationship(remote_side="Card.id")


class Transaction(Base):
    """One booking on an account statement; card payments carry the card that made them."""

    __tablename__ = "transactions"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    card_id: Mapped[str | None] = mapped_column(ForeignKey("cards.id"), nullable=True, index=True)
    kind: Mapped[str] = mapped_column(String(16))
    direction: Mapped[str] = mapped_column(String(8), default="debit")
    amount_cents: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="posted")
    booked_at: Mapped[datetime] = mapped_column(DateTime)

    account: Mapped[Account] = relationship()
    card: Mapped[Card | None] = relationship()


class Transfer(Base):
    """An outgoing SEPA transfer to another bank's account."""

    __tablename__ = "transfers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    beneficiary_name: Mapped[str] = mapped_column(String(120))
    beneficiary_iban: Mapped[str] = mapped_column(String(34))
    amount_cents: Mapped[int] = mapped_column(Integer)
    reference: Mapped[str] = mapped_column(String(140), default="")  # graded: the customer's exact reference
    status: Mapped[str] = mapped_column(String(16), default="completed")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    executed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    transaction_id: Mapped[str | None] = mapped_column(ForeignKey("transactions.id"), nullable=True, index=True)

    account: Mapped[Account] = relationship()


class ScheduledPayment(Base):
    __tablename__ = "scheduled_payments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    payee_name: Mapped[str] = mapped_column(String(120))
    payee_iban: Mapped[str] = mapped_column(String(34))
    amount_cents: Mapped[int] = mapped_column(Integer)
    frequency: Mapped[str] = mapped_column(String(16), default="monthly")
    next_run_on: Mapped[date] = mapped_column(Date)
    reference: Mapped[str] = mapped_column(String(140), default="")
    status: Mapped[str] = mapped_column(String(16), default="active")
    cancelled_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    account: Mapped[Account] = relationship()


class Dispute(Base):
    """A card dispute (chargeback request) on one card payment."""

    __tablename__ = "disputes"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    transaction_id: Mapped[str] = mapped_column(ForeignKey("transactions.id"), index=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    reason: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_at: Mapped[datetime] = mapped_column(DateTime)
    description: Mapped[str | None] = mapped_column(Text, nullable=True, info=AGENT_TEXT)

    transaction: Mapped[Transaction] = relationship()
    customer: Mapped[Customer] = relationship()


class Fee(Base):
    __tablename__ = "fees"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    charged_at: Mapped[datetime] = mapped_column(DateTime)
    transaction_id: Mapped[str | None] = mapped_column(ForeignKey("transactions.id"), nullable=True, index=True)
    card_id: Mapped[str | None] = mapped_column(ForeignKey("cards.id"), nullable=True, index=True)

    account: Mapped[Account] = relationship()
    card: Mapped[Card | None] = relationship()


class FeeRefund(Base):
    __tablename__ = "fee_refunds"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    fee_id: Mapped[str] = mapped_column(ForeignKey("fees.id"), unique=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    reason: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    transaction_id: Mapped[str | None] = mapped_column(ForeignKey("transactions.id"), nullable=True, index=True)

    fee: Mapped[Fee] = relationship()
    customer: Mapped[Customer] = relationship()


class FraudAlert(Base):
    """A fraud-monitoring alert on a customer, usually about one card payment or transfer."""

    __tablename__ = "fraud_alerts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    card_id: Mapped[str | None] = mapped_column(ForeignKey("cards.id"), nullable=True, index=True)
    transaction_id: Mapped[str | None] = mapped_column(ForeignKey("transactions.id"), nullable=True, index=True)
    risk_level: Mapped[str] = mapped_column(String(8))
    summary: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="open")
    raised_at: Mapped[datetime] = mapped_column(DateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    customer: Mapped[Customer] = relationship()
    card: Mapped[Card | None] = relationship()
    transaction: Mapped[Transaction | None] = relationship()


class Ticket(TicketColumns, Base):
    """A support ticket. A customer's ticket has ``requester_id`` (the customer); a ticket of the internal help
    desk has ``employee_id`` (the employee who asked) and no ``requester_id``."""

    requester_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"), nullable=True, index=True)
    account_id: Mapped[str | None] = mapped_column(ForeignKey("accounts.id"), nullable=True, index=True)
    employee_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)

    requester: Mapped[Customer | None] = relationship()
    employee: Mapped[Employee | None] = relationship()
    account: Mapped[Account | None] = relationship()


class TicketComment(CommentColumns, Base):
    pass


# --------------------------------------------------------------------------- the internal help desk

EmployeeStatus = Literal["active", "left"]
Grade = Literal["staff", "senior", "manager", "director"]
SystemRisk = Literal["low", "medium", "high"]
GrantKind = Literal["standard", "temporary", "emergency"]
GrantStatus = Literal["active", "revoked"]
RevokeReason = Literal["moved", "leaver", "no_longer_needed", "sod_conflict"]
RequestStatus = Literal["awaiting_approval", "fulfilled", "rejected"]
RejectReason = Literal[
    "sod_conflict", "auditor_read_only", "contractor_limit", "not_line_manager", "approval_refused", "no_open_incident"
]
ApproverCapacity = Literal["line_manager", "system_owner", "security"]
ApprovalDecision = Literal["approved", "refused"]
DeviceKind = Literal["laptop", "token", "phone"]
DeviceStatus = Literal["in_stock", "assigned", "returned", "in_repair", "lost"]
ReturnCondition = Literal["working", "faulty"]
IncidentStatus = Literal["open", "resolved"]


class Employee(Base):
    """Someone who works for Kestrel Bank, as staff or as a contractor; their line manager is another employee."""

    __tablename__ = "employees"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)  # the employee number, e.g. E-2104
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    date_of_birth: Mapped[date] = mapped_column(Date)  # only for the identity check; never shown
    department: Mapped[str] = mapped_column(String(60))
    title: Mapped[str] = mapped_column(String(120))
    grade: Mapped[str] = mapped_column(String(16), default="staff")
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)
    is_contractor: Mapped[bool] = mapped_column(Boolean, default=False)
    contract_end_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    start_on: Mapped[date] = mapped_column(Date)
    leave_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    previous_department: Mapped[str | None] = mapped_column(String(60), nullable=True)
    moved_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    manager: Mapped[Employee | None] = relationship(remote_side="Employee.id")


class InternalSystem(Base):
    """An internal system of the bank (core banking, payments hub ...): its owner, the owner's team and its risk."""

    __tablename__ = "internal_systems"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    risk: Mapped[str] = mapped_column(String(8))
    owner_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    owner_queue: Mapped[str] = mapped_column(String(40))

    owner: Mapped[Employee] = relationship()
    roles: Mapped[list[SystemRole]] = relationship(back_populates="system", order_by="SystemRole.id")


class SystemRole(Base):
    """A role on an internal system. ``department`` is the department whose work needs it (none: any department);
    ``conflicts_with_id`` the role nobody may hold together with it (segregation of duties)."""

    __tablename__ = "system_roles"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    system_id: Mapped[str] = mapped_column(ForeignKey("internal_systems.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(200))
    read_only: Mapped[bool] = mapped_column(Boolean, default=False)
    privileged: Mapped[bool] = mapped_column(Boolean, default=False)
    department: Mapped[str | None] = mapped_column(String(60), nullable=True)
    conflicts_with_id: Mapped[str | None] = mapped_column(ForeignKey("system_roles.id"), nullable=True, index=True)

    system: Mapped[InternalSystem] = relationship(back_populates="roles")


class AccessGrant(Base):
    """A role an employee holds (or held) on an internal system, until its expiry date if it has one."""

    __tablename__ = "access_grants"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    role_id: Mapped[str] = mapped_column(ForeignKey("system_roles.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="standard")
    status: Mapped[str] = mapped_column(String(16), default="active")
    granted_at: Mapped[datetime] = mapped_column(DateTime)
    expires_on: Mapped[date | None] = mapped_column(Date, nullable=True)  # the last day the access works
    request_id: Mapped[str | None] = mapped_column(ForeignKey("access_requests.id"), nullable=True, index=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    revoke_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)

    employee: Mapped[Employee] = relationship()
    role: Mapped[SystemRole] = relationship()


class Incident(Base):
    """A production incident on an internal system, the ground for emergency access."""

    __tablename__ = "incidents"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    system_id: Mapped[str] = mapped_column(ForeignKey("internal_systems.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_at: Mapped[datetime] = mapped_column(DateTime)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    system: Mapped[InternalSystem] = relationship()


class AccessRequest(Base):
    """A request for a role, raised for an employee (by them or by their manager), and the approvals it collected."""

    __tablename__ = "access_requests"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    role_id: Mapped[str] = mapped_column(ForeignKey("system_roles.id"), index=True)
    raised_by_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="standard")
    needed_until: Mapped[date | None] = mapped_column(Date, nullable=True)
    incident_id: Mapped[str | None] = mapped_column(ForeignKey("incidents.id"), nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(24), default="awaiting_approval")
    reject_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    employee: Mapped[Employee] = relationship(foreign_keys=[employee_id])
    raised_by: Mapped[Employee] = relationship(foreign_keys=[raised_by_id])
    role: Mapped[SystemRole] = relationship()
    approvals: Mapped[list[Approval]] = relationship(back_populates="request", order_by="Approval.id")


class Approval(Base):
    """One approver's decision on an access request, in the capacity they gave it in."""

    __tablename__ = "approvals"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    request_id: Mapped[str] = mapped_column(ForeignKey("access_requests.id"), index=True)
    approver_id: Mapped[str] = mapped_column(ForeignKey("employees.id"), index=True)
    capacity: Mapped[str] = mapped_column(String(16))
    decision: Mapped[str] = mapped_column(String(16), default="approved")
    decided_at: Mapped[datetime] = mapped_column(DateTime)

    request: Mapped[AccessRequest] = relationship(back_populates="approvals")
    approver: Mapped[Employee] = relationship()


class Device(Base):
    """A laptop, hardware token or phone: in stock, or assigned to an employee."""

    __tablename__ = "devices"
    # list_device_stock looks up the devices of one kind in stock, out of every device ever bought
    __table_args__ = (Index("ix_devices_kind_status", "kind", "status"),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    model: Mapped[str] = mapped_column(String(80))
    profile: Mapped[str | None] = mapped_column(String(16), nullable=True)  # laptops: standard or developer
    serial: Mapped[str] = mapped_column(String(40), unique=True)
    purchased_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="in_stock")
    assigned_to_id: Mapped[str | None] = mapped_column(ForeignKey("employees.id"), nullable=True, index=True)
    assigned_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    returned_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    assigned_to: Mapped[Employee | None] = relationship()
