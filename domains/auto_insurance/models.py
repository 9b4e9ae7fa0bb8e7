"""Records of a personal auto insurer: customers, policies, vehicles, drivers, billing, claims and support.

Money is held in integer cents, ids are strings with a per-table prefix
(``C-``, ``POL-``, ``V-``, ``CL-`` ...; the state reference table is keyed by
its two-letter code), and every enumerated field has a `Literal` type below
that the tools reuse for their argument schemas.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Index, Integer, String, Text, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from domains.shared.tickets import AGENT_TEXT, CommentColumns, TicketColumns

StateCode = Literal["AZ", "CA", "CO", "FL", "GA", "IL", "NY", "OH", "PA", "TX"]
PolicyStatus = Literal["active", "cancellation_scheduled", "cancelled", "expired"]
CancellationReason = Literal["non_payment", "customer_request", "underwriting"]
VehicleStatus = Literal["active", "removed"]
LicenceStatus = Literal["valid", "suspended", "expired"]
Relation = Literal["named_insured", "spouse", "child", "parent", "other_household"]
DriverStatus = Literal["listed", "excluded", "removed"]
CoverageKind = Literal[
    "bodily_injury_liability",
    "property_damage_liability",
    "uninsured_motorist",
    "medical_payments",
    "collision",
    "comprehensive",
    "rental_reimbursement",
    "roadside_assistance",
]
CoverageStatus = Literal["active", "removed"]
PayPlan = Literal["paid_in_full", "monthly", "instalment_plan"]
DelinquencyStatus = Literal["current", "past_due"]
BillStatus = Literal["open", "paid", "paid_late", "missed", "on_plan"]
PaymentMethod = Literal["card", "bank_account", "check"]
PaymentStatus = Literal["posted", "returned_nsf"]
PlanStatus = Literal["active", "completed", "cancelled"]
LossType = Literal["collision", "animal", "glass", "theft", "vandalism", "weather", "fire"]
ClaimSeverity = Literal["minor", "major"]
ClaimStatus = Literal["open", "closed"]
DocumentKind = Literal[
    "insurance_id_card",
    "excluded_driver_form",
    "declarations_page",
    "reinstatement_notice",
    "cancellation_rescission_notice",
]
DocumentStatus = Literal["sent", "signed"]
AdjustmentKind = Literal["vehicle_removal_credit", "cancellation_refund"]
ClaimPaymentKind = Literal["glass_repair", "rental_reimbursement", "towing"]


class Base(DeclarativeBase):
    pass


class StateRequirement(Base):
    """Reference data: a state's name and its legal minimum liability limits (keyed by the state code)."""

    __tablename__ = "state_requirements"

    code: Mapped[str] = mapped_column(String(2), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    min_bi_per_person_cents: Mapped[int] = mapped_column(Integer)
    min_bi_per_accident_cents: Mapped[int] = mapped_column(Integer)
    min_pd_cents: Mapped[int] = mapped_column(Integer)
    uninsured_motorist_required: Mapped[bool] = mapped_column(Boolean, default=False)
    # glass repaired or replaced with no deductible under comprehensive (a "full glass" state)
    full_glass: Mapped[bool] = mapped_column(Boolean, default=False)
    # kept from the refund when a customer cancels mid-term at their own request (0: the state allows no fee)
    cancellation_fee_cents: Mapped[int] = mapped_column(Integer, default=0)


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    date_of_birth: Mapped[date] = mapped_column(Date)
    address_line: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    postal_code: Mapped[str] = mapped_column(String(16))
    customer_since: Mapped[date] = mapped_column(Date)

    policies: Mapped[list[Policy]] = relationship(back_populates="customer", order_by="Policy.id")


# find_customer_by_email compares emails in lower case (domains/shared/identity.py)
Index("ix_customers_email_lower", func.lower(Customer.email))


class Policy(Base):
    """A personal auto policy for one term; the term runs from term_start to term_end inclusive."""

    __tablename__ = "policies"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    state: Mapped[str] = mapped_column(ForeignKey("state_requirements.code"), index=True)
    status: Mapped[str] = mapped_column(String(24), default="active")
    term_start: Mapped[date] = mapped_column(Date)
    term_end: Mapped[date] = mapped_column(Date)
    term_premium_cents: Mapped[int] = mapped_column(Integer)
    cancellation_effective_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    cancellation_reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    reinstated_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    lapse_start: Mapped[date | None] = mapped_column(Date, nullable=True)
    lapse_end: Mapped[date | None] = mapped_column(Date, nullable=True)

    customer: Mapped[Customer] = relationship(back_populates="policies")
    vehicles: Mapped[list[Vehicle]] = relationship(back_populates="policy", order_by="Vehicle.id")
    drivers: Mapped[list[Driver]] = relationship(back_populates="policy", order_by="Driver.id")
    coverages: Mapped[list[Coverage]] = relationship(back_populates="policy", order_by="Coverage.id")
    account: Mapped[BillingAccount | None] = relationship(back_populates="policy", uselist=False)


class Vehicle(Base):
    __tablename__ = "vehicles"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    vin: Mapped[str] = mapped_column(String(17))
    year: Mapped[int] = mapped_column(Integer)
    make: Mapped[str] = mapped_column(String(40))
    model: Mapped[str] = mapped_column(String(60))
    acquired_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    effective_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="active")
    removed_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    # the vehicle's own share of the term premium (0: rated within the policy premium, no share of its own)
    term_premium_cents: Mapped[int] = mapped_column(Integer, default=0)
    # the listed driver who drives it most (None: not assigned)
    principal_driver_id: Mapped[str | None] = mapped_column(String(16), nullable=True)

    policy: Mapped[Policy] = relationship(back_populates="vehicles")


class LicenceRecord(Base):
    """A state motor-vehicle record (MVR) for one driver's licence, as the licensing authority reports it."""

    __tablename__ = "licence_records"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    licence_number: Mapped[str] = mapped_column(String(24))
    licence_state: Mapped[str] = mapped_column(String(2))
    holder_name: Mapped[str] = mapped_column(String(120))
    date_of_birth: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="valid")
    expires_on: Mapped[date] = mapped_column(Date)
    suspended_until: Mapped[date | None] = mapped_column(Date, nullable=True)
    at_fault_accidents_3y: Mapped[int] = mapped_column(Integer, default=0)
    violations_3y: Mapped[int] = mapped_column(Integer, default=0)


# licence look-ups compare numbers in upper case, within a state (tools._licence_record)
Index("ix_licence_records_licence_number_upper", func.upper(LicenceRecord.licence_number))


class Driver(Base):
    __tablename__ = "drivers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    full_name: Mapped[str] = mapped_column(String(120))
    date_of_birth: Mapped[date] = mapped_column(Date)
    licence_number: Mapped[str] = mapped_column(String(24))
    licence_state: Mapped[str] = mapped_column(String(2))
    licence_status: Mapped[str] = mapped_column(String(16), default="valid")
    relation_to_insured: Mapped[str] = mapped_column(String(24), default="named_insured")
    status: Mapped[str] = mapped_column(String(16), default="listed")
    effective_on: Mapped[date] = mapped_column(Date)
    removed_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    policy: Mapped[Policy] = relationship(back_populates="drivers")


class Coverage(Base):
    """One coverage of a policy; it applies to every vehicle on the policy."""

    __tablename__ = "coverages"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    coverage: Mapped[str] = mapped_column(String(32))
    limit_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)  # per person, per accident or per day
    limit_per_accident_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    deductible_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    term_premium_cents: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active")
    changed_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    # the day a coverage added mid-term starts (None: in force since the term start)
    effective_on: Mapped[date | None] = mapped_column(Date, nullable=True)

    policy: Mapped[Policy] = relationship(back_populates="coverages")


class BillingAccount(Base):
    """A policy's billing account: the unpaid balance of its bills and how much of it is past due."""

    __tablename__ = "billing_accounts"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), unique=True)
    pay_plan: Mapped[str] = mapped_column(String(24), default="monthly")
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    past_due_cents: Mapped[int] = mapped_column(Integer, default=0)
    delinquency_status: Mapped[str] = mapped_column(String(16), default="current")
    autopay: Mapped[bool] = mapped_column(Boolean, default=False)

    policy: Mapped[Policy] = relationship(back_populates="account")
    bills: Mapped[list[Bill]] = relationship(back_populates="account", order_by="Bill.due_on")


class Bill(Base):
    """One bill (statement) on a billing account. missed: not paid by its due date; paid_late: paid after it."""

    __tablename__ = "bills"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    billing_account_id: Mapped[str] = mapped_column(ForeignKey("billing_accounts.id"), index=True)
    issued_on: Mapped[date] = mapped_column(Date)
    due_on: Mapped[date] = mapped_column(Date)
    original_due_on: Mapped[date] = mapped_column(Date)
    amount_cents: Mapped[int] = mapped_column(Integer)
    paid_cents: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="open")

    account: Mapped[BillingAccount] = relationship(back_populates="bills")


class Payment(Base):
    __tablename__ = "payments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    billing_account_id: Mapped[str] = mapped_column(ForeignKey("billing_accounts.id"), index=True)
    amount_cents: Mapped[int] = mapped_column(Integer)
    method: Mapped[str] = mapped_column(String(16), default="card")
    received_at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default="posted")
    returned_on: Mapped[date | None] = mapped_column(Date, nullable=True)


class PaymentExtension(Base):
    """A due date moved later on one bill, with the policy term it was granted in."""

    __tablename__ = "payment_extensions"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    billing_account_id: Mapped[str] = mapped_column(ForeignKey("billing_accounts.id"), index=True)
    bill_id: Mapped[str] = mapped_column(ForeignKey("bills.id"), index=True)
    term_start: Mapped[date] = mapped_column(Date)
    original_due_on: Mapped[date] = mapped_column(Date)
    new_due_on: Mapped[date] = mapped_column(Date)
    granted_at: Mapped[datetime] = mapped_column(DateTime)


class InstalmentPlan(Base):
    """One bill split into equal monthly instalments (any remainder cents on the first)."""

    __tablename__ = "instalment_plans"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    billing_account_id: Mapped[str] = mapped_column(ForeignKey("billing_accounts.id"), index=True)
    bill_id: Mapped[str] = mapped_column(ForeignKey("bills.id"), index=True)
    instalments: Mapped[int] = mapped_column(Integer)
    first_instalment_cents: Mapped[int] = mapped_column(Integer)
    instalment_cents: Mapped[int] = mapped_column(Integer)
    first_due_on: Mapped[date] = mapped_column(Date)
    last_due_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_at: Mapped[datetime] = mapped_column(DateTime)


class Claim(Base):
    __tablename__ = "claims"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    vehicle_id: Mapped[str] = mapped_column(ForeignKey("vehicles.id"), index=True)
    driver_id: Mapped[str | None] = mapped_column(ForeignKey("drivers.id"), nullable=True, index=True)
    loss_date: Mapped[date] = mapped_column(Date)
    reported_at: Mapped[datetime] = mapped_column(DateTime)
    loss_type: Mapped[str] = mapped_column(String(16))
    severity: Mapped[str] = mapped_column(String(8), default="minor")
    status: Mapped[str] = mapped_column(String(8), default="open")
    injuries: Mapped[bool] = mapped_column(Boolean, default=False)
    drivable: Mapped[bool] = mapped_column(Boolean, default=True)
    estimated_damage_cents: Mapped[int | None] = mapped_column(Integer, nullable=True)
    closed_on: Mapped[date | None] = mapped_column(Date, nullable=True)
    description: Mapped[str] = mapped_column(Text, info=AGENT_TEXT)
    # set by the claims team when the vehicle is not worth repairing
    total_loss: Mapped[bool] = mapped_column(Boolean, default=False)

    vehicle: Mapped[Vehicle] = relationship()


class PremiumAdjustment(Base):
    """A credit of unearned premium on a policy: applied to the unpaid bills first, the rest refunded."""

    __tablename__ = "premium_adjustments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    billing_account_id: Mapped[str] = mapped_column(ForeignKey("billing_accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    vehicle_id: Mapped[str | None] = mapped_column(ForeignKey("vehicles.id"), nullable=True, index=True)
    effective_on: Mapped[date] = mapped_column(Date)
    amount_cents: Mapped[int] = mapped_column(Integer)
    applied_to_balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    refunded_cents: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class ClaimPayment(Base):
    """A payment the desk makes on a claim: a glass repair, rental car days or a tow."""

    __tablename__ = "claim_payments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    claim_id: Mapped[str] = mapped_column(ForeignKey("claims.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    amount_cents: Mapped[int] = mapped_column(Integer)
    days: Mapped[int | None] = mapped_column(Integer, nullable=True)  # rental days paid for
    paid_at: Mapped[datetime] = mapped_column(DateTime)


class Document(Base):
    """A form or notice sent to the customer about a policy."""

    __tablename__ = "documents"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    policy_id: Mapped[str] = mapped_column(ForeignKey("policies.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    vehicle_id: Mapped[str | None] = mapped_column(ForeignKey("vehicles.id"), nullable=True, index=True)
    licence_number: Mapped[str | None] = mapped_column(String(24), nullable=True)
    sent_to: Mapped[str] = mapped_column(String(200))
    sent_at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default="sent")


class Ticket(TicketColumns, Base):
    requester_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    policy_id: Mapped[str | None] = mapped_column(ForeignKey("policies.id"), nullable=True, index=True)

    requester: Mapped[Customer] = relationship()


class TicketComment(CommentColumns, Base):
    pass
