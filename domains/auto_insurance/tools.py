"""The auto insurance service desk's tools, as an agent sees them.

Reads return plain dicts; writes validate their arguments and the preconditions
the call itself would break (an unknown id, an invalid VIN, a cancelled policy,
a payment larger than the balance) and otherwise do what they are told: whether
a driver may be added, an extension granted or a policy reinstated is the
policy's question, answered by the agent. Every time comes from the domain
clock and every new id from the rows present.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.shared.arguments import iso_date
from domains.shared.identity import register_identity
from domains.shared.policy_search import register_policy_search
from domains.shared.tickets import register_ticket_tools
from pytest_thinkingbox import (
    CONFLICT,
    INVALID_ARGUMENT,
    NOT_FOUND,
    PRECONDITION_FAILED,
    ToolFailure,
    ToolSet,
    get_or_fail,
    next_id,
    row_dict,
    rows_where,
)

from .clock import NOW, TODAY
from .models import (
    AdjustmentKind,
    Bill,
    BillingAccount,
    CancellationReason,
    Claim,
    ClaimPayment,
    ClaimPaymentKind,
    ClaimSeverity,
    Coverage,
    CoverageKind,
    Customer,
    Document,
    DocumentKind,
    Driver,
    InstalmentPlan,
    LicenceRecord,
    LossType,
    Payment,
    PaymentExtension,
    PaymentMethod,
    Policy,
    PremiumAdjustment,
    StateRequirement,
    Ticket,
    TicketComment,
    Vehicle,
)
from .vin import check_vin

tools = ToolSet("auto_insurance")

POLICY_PATH = Path(__file__).with_name("policy.md")

_HIDDEN = ("date_of_birth", "postal_code")  # identity details: verify_identity checks them, nothing shows them
_LIABILITY = ("bodily_injury_liability", "property_damage_liability")
_PHYSICAL_DAMAGE = ("collision", "comprehensive")
_DEDUCTIBLES = (25_000, 50_000, 100_000, 150_000, 200_000)


# --------------------------------------------------------------------------- helpers


def _parse_date(value: str, name: str) -> date:
    return iso_date(value, f"{name} must be a date as YYYY-MM-DD, got {value!r}")


def _add_months(day: date, months: int) -> date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _customer(db: Session, customer_id: str) -> Customer:
    return get_or_fail(db, Customer, customer_id, "customer")


def _policy(db: Session, policy_id: str) -> Policy:
    return get_or_fail(db, Policy, policy_id, "policy")


def _state_of(db: Session, policy: Policy) -> StateRequirement:
    """The legal requirements of the policy's state (reference data every state of a policy has)."""
    return get_or_fail(db, StateRequirement, policy.state, "state")


def _in_force(policy: Policy) -> Policy:
    if policy.status not in ("active", "cancellation_scheduled"):
        raise ToolFailure(
            PRECONDITION_FAILED, f"policy {policy.id} is {policy.status}; it cannot be changed until it is in force"
        )
    return policy


def _within_term(policy: Policy, day: date, name: str) -> date:
    if not policy.term_start <= day <= policy.term_end:
        raise ToolFailure(
            INVALID_ARGUMENT,
            f"{name} {day.isoformat()} is outside the policy term {policy.term_start.isoformat()} to "
            f"{policy.term_end.isoformat()}",
        )
    return day


def _account(db: Session, billing_account_id: str) -> BillingAccount:
    return get_or_fail(db, BillingAccount, billing_account_id, "billing account")


def _account_of(db: Session, policy: Policy) -> BillingAccount:
    account = db.scalars(select(BillingAccount).where(BillingAccount.policy_id == policy.id)).first()
    if account is None:
        raise ToolFailure(NOT_FOUND, f"policy {policy.id} has no billing account")
    return account


def _coverage(policy: Policy, kind: str) -> Coverage:
    for row in policy.coverages:
        if row.coverage == kind and row.status == "active":
            return row
    raise ToolFailure(NOT_FOUND, f"policy {policy.id} has no active {kind} coverage")


def _licence_record(db: Session, licence_number: str, licence_state: str) -> LicenceRecord:
    number, state = licence_number.strip().upper(), licence_state.strip().upper()
    record = db.scalars(
        select(LicenceRecord).where(
            func.upper(LicenceRecord.licence_number) == number, LicenceRecord.licence_state == state
        )
    ).first()
    if record is None:
        raise ToolFailure(NOT_FOUND, f"{state} has no licence numbered {licence_number!r}; ask the customer to check")
    return record


def _policy_view(db: Session, policy: Policy) -> dict:
    account = db.scalars(select(BillingAccount).where(BillingAccount.policy_id == policy.id)).first()
    return {
        **row_dict(policy),
        "customer_name": policy.customer.name,
        "vehicles": [row_dict(v) for v in policy.vehicles],
        "drivers": [row_dict(d, "date_of_birth") for d in policy.drivers],
        "coverages": [row_dict(c) for c in policy.coverages],
        "billing_account_id": account.id if account else None,
    }


def _claim_view(claim: Claim) -> dict:
    vehicle = claim.vehicle
    return {**row_dict(claim), "vehicle": f"{vehicle.year} {vehicle.make} {vehicle.model} ({vehicle.vin})"}


# --------------------------------------------------------------------------- reads: customers and policies


@tools.read
def get_customer(db: Session, customer_id: str) -> dict:
    """A customer's profile (name, contact details, mailing address, customer since) and the ids of their
    policies. The details used for identity verification are never shown."""
    customer = _customer(db, customer_id)
    return {**row_dict(customer, *_HIDDEN), "policy_ids": [p.id for p in customer.policies]}


@tools.read
def list_customer_policies(db: Session, customer_id: str) -> list[dict]:
    """All auto policies of a customer with state, status, term dates, premium and the vehicles they cover.
    Use get_policy for the drivers, coverages and cancellation details."""
    customer = _customer(db, customer_id)
    return [
        {
            "id": p.id,
            "state": p.state,
            "status": p.status,
            "term_start": p.term_start.isoformat(),
            "term_end": p.term_end.isoformat(),
            "term_premium_cents": p.term_premium_cents,
            "vehicles": [f"{v.year} {v.make} {v.model} ({v.status})" for v in p.vehicles],
        }
        for p in customer.policies
    ]


@tools.read
def get_policy(db: Session, policy_id: str) -> dict:
    """Everything about one policy: state, status (active, cancellation_scheduled, cancelled, expired), term,
    premium, cancellation date and reason, reinstatement and lapse dates, the vehicles (VIN, acquired and
    effective dates, their own share of the term premium, their principal driver), the drivers (licence number,
    state and status; listed, excluded or removed), the coverages (limits, deductibles, the start date of one added
    mid-term, the date of the last change) and the billing account id."""
    return _policy_view(db, _policy(db, policy_id))


@tools.read
def get_driver(db: Session, driver_id: str) -> dict:
    """A driver on a policy: name, licence number and state, licence status when listed, relation to the named
    insured, status (listed, excluded, removed) and effective date."""
    return row_dict(get_or_fail(db, Driver, driver_id, "driver"))


@tools.read
def check_licence(db: Session, licence_number: str, licence_state: str) -> dict:
    """Run a motor-vehicle-record (MVR) check on a driver's licence with the licensing state: holder name and date
    of birth, current status (valid, suspended, expired), expiry date, suspension end date, at-fault accidents
    and violations in the last 3 years. Run it before adding a driver."""
    record = _licence_record(db, licence_number, licence_state)
    return {**row_dict(record), "checked_at": NOW.isoformat()}


@tools.read
def decode_vin(db: Session, vin: str) -> dict:
    """Check a vehicle identification number (17 characters, ISO 3779 with the North-American check digit at
    position 9). Returns whether it is valid, what is wrong with it if not, and the model year and manufacturer
    it encodes."""
    check = check_vin(vin, TODAY.year + 1)
    return {
        "vin": check.vin,
        "valid": check.valid,
        "problem": check.problem,
        "model_year": check.model_year,
        "manufacturer": check.manufacturer,
    }


@tools.read
def get_state_requirements(db: Session, state: str) -> dict:
    """A state's legal minimum liability limits (bodily injury per person and per accident, property damage),
    whether uninsured-motorist coverage is compulsory there, whether it is a full-glass state (glass repaired with
    no deductible) and the cancellation fee kept from a refund when a customer cancels at their own request."""
    return row_dict(get_or_fail(db, StateRequirement, state.strip().upper(), "state"))


# --------------------------------------------------------------------------- reads: billing


@tools.read
def get_billing_account(db: Session, policy_id: str) -> dict:
    """A policy's billing account: pay plan, unpaid balance, past-due amount, delinquency status (current or
    past_due), the unpaid bills (open, missed or on a plan) with due dates, every payment extension granted (with
    the policy term it was granted in) and every instalment plan."""
    account = _account_of(db, _policy(db, policy_id))
    unpaid = [b for b in account.bills if b.status in ("open", "missed", "on_plan")]
    extensions = rows_where(db, PaymentExtension.billing_account_id, account.id)
    plans = rows_where(db, InstalmentPlan.billing_account_id, account.id)
    return {
        **row_dict(account),
        "unpaid_bills": [row_dict(b) for b in unpaid],
        "payment_extensions": [row_dict(e) for e in extensions],
        "instalment_plans": [row_dict(p) for p in plans],
    }


@tools.read
def list_bills(db: Session, billing_account_id: str) -> list[dict]:
    """Every bill of a billing account, oldest first: issue and due dates, amount, amount paid and status (open,
    paid, paid_late, missed, on_plan). This is the bill payment history."""
    return [row_dict(b) for b in _account(db, billing_account_id).bills]


@tools.read
def list_payments(db: Session, billing_account_id: str) -> list[dict]:
    """Every payment received on a billing account, oldest first: amount, method, when it was received, and status
    (posted, or returned_nsf when the bank returned it unpaid, with the return date)."""
    _account(db, billing_account_id)
    rows = db.scalars(
        select(Payment).where(Payment.billing_account_id == billing_account_id).order_by(Payment.received_at)
    ).all()
    return [row_dict(p) for p in rows]


# --------------------------------------------------------------------------- reads: claims and documents


@tools.read
def list_policy_claims(db: Session, policy_id: str) -> list[dict]:
    """Every claim on a policy, newest loss first: vehicle, loss date and type, severity (minor or major), status
    (open or closed), injuries, whether the vehicle was drivable, the damage estimate and whether the claims team
    declared the vehicle a total loss."""
    _policy(db, policy_id)
    rows = db.scalars(select(Claim).where(Claim.policy_id == policy_id).order_by(Claim.loss_date.desc())).all()
    return [_claim_view(c) for c in rows]


@tools.read
def get_claim(db: Session, claim_id: str) -> dict:
    """One claim in full, with the description of the loss."""
    return _claim_view(get_or_fail(db, Claim, claim_id, "claim"))


@tools.read
def list_documents(db: Session, policy_id: str) -> list[dict]:
    """Every form and notice sent to the customer about a policy (ID cards, excluded-driver forms, notices), with
    when it was sent and whether a form has come back signed."""
    _policy(db, policy_id)
    rows = rows_where(db, Document.policy_id, policy_id)
    return [row_dict(d) for d in rows]


@tools.read
def quote_unearned_premium(db: Session, policy_id: str, from_date: str, vehicle_id: str | None = None) -> dict:
    """The unearned premium of a policy from from_date (YYYY-MM-DD, the first day no longer covered) to the term
    end, both days included: the premium times the days left over the days of the term, rounded down to the cent.
    With vehicle_id, the premium is that vehicle's own share (its term_premium_cents); without it, the policy's
    whole term premium. Returns the days, the premium used and unearned_cents."""
    policy = _policy(db, policy_id)
    start = _within_term(policy, _parse_date(from_date, "from_date"), "from_date")
    if vehicle_id is not None:
        vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
        if vehicle.policy_id != policy_id:
            raise ToolFailure(INVALID_ARGUMENT, f"vehicle {vehicle_id} is not on policy {policy_id}")
        premium = vehicle.term_premium_cents
    else:
        premium = policy.term_premium_cents
    term_days = (policy.term_end - policy.term_start).days + 1
    days_left = (policy.term_end - start).days + 1
    return {
        "policy_id": policy_id,
        "vehicle_id": vehicle_id,
        "from_date": start.isoformat(),
        "term_start": policy.term_start.isoformat(),
        "term_end": policy.term_end.isoformat(),
        "term_days": term_days,
        "days_left": days_left,
        "premium_cents": premium,
        "unearned_cents": premium * days_left // term_days,
    }


@tools.read
def list_premium_adjustments(db: Session, policy_id: str) -> list[dict]:
    """Every credit of unearned premium made on a policy: kind, vehicle, effective date, amount, the part applied
    to unpaid bills and the part refunded to the customer."""
    _policy(db, policy_id)
    rows = rows_where(db, PremiumAdjustment.policy_id, policy_id)
    return [row_dict(r) for r in rows]


@tools.read
def list_claim_payments(db: Session, claim_id: str) -> list[dict]:
    """Every payment already made on a claim (glass repair, rental reimbursement with the days paid, towing)."""
    get_or_fail(db, Claim, claim_id, "claim")
    rows = rows_where(db, ClaimPayment.claim_id, claim_id)
    return [row_dict(r) for r in rows]


# --------------------------------------------------------------------------- writes: drivers and documents


@tools.write
def add_driver(
    db: Session,
    policy_id: str,
    full_name: str,
    date_of_birth: str,
    licence_number: str,
    licence_state: str,
    relation_to_insured: Literal["spouse", "child", "parent", "other_household"],
    effective_on: str,
) -> dict:
    """List a driver on a policy from effective_on (YYYY-MM-DD). The licence must be on record with the licensing
    state (see check_licence) and the date of birth must match it; the driver's licence status is taken from that
    record. Check the policy's rules for adding drivers first. Returns the driver."""
    policy = _in_force(_policy(db, policy_id))
    born = _parse_date(date_of_birth, "date_of_birth")
    starts = _within_term(policy, _parse_date(effective_on, "effective_on"), "effective_on")
    number, state = licence_number.strip().upper(), licence_state.strip().upper()
    if not full_name.strip():
        raise ToolFailure(INVALID_ARGUMENT, "give the driver's full name")
    record = _licence_record(db, number, state)
    if record.date_of_birth != born:
        raise ToolFailure(INVALID_ARGUMENT, f"the date of birth does not match the {state} licence record")
    if any(d.licence_number.upper() == number and d.status != "removed" for d in policy.drivers):
        raise ToolFailure(CONFLICT, f"licence {number} is already on policy {policy_id}")
    driver = Driver(
        id=next_id(db, Driver, "D-"),
        policy_id=policy_id,
        full_name=full_name.strip(),
        date_of_birth=born,
        licence_number=number,
        licence_state=state,
        licence_status=record.status,
        relation_to_insured=relation_to_insured,
        status="listed",
        effective_on=starts,
    )
    db.add(driver)
    db.flush()
    db.expire(policy, ["drivers"])  # the policy's driver list now includes the new one
    return row_dict(driver)


@tools.write
def remove_driver(db: Session, policy_id: str, driver_id: str, removed_on: str) -> dict:
    """Take a driver off a policy from removed_on (YYYY-MM-DD). The named insured cannot be removed."""
    policy = _in_force(_policy(db, policy_id))
    driver = get_or_fail(db, Driver, driver_id, "driver")
    if driver.policy_id != policy_id:
        raise ToolFailure(INVALID_ARGUMENT, f"driver {driver_id} is not on policy {policy_id}")
    if driver.status == "removed":
        raise ToolFailure(PRECONDITION_FAILED, f"driver {driver_id} was already removed")
    if driver.relation_to_insured == "named_insured":
        raise ToolFailure(PRECONDITION_FAILED, "the named insured cannot be removed from their own policy")
    ends = _within_term(policy, _parse_date(removed_on, "removed_on"), "removed_on")
    driver.status, driver.removed_on = "removed", ends
    return row_dict(driver)


@tools.write
def send_document(
    db: Session,
    policy_id: str,
    kind: DocumentKind,
    vehicle_id: str | None = None,
    licence_number: str | None = None,
) -> dict:
    """Email a form or notice about a policy to the customer's email on file and record it. insurance_id_card
    needs the vehicle_id it is for; excluded_driver_form needs the licence_number of the person to exclude (they
    sign it and send it back). Returns the document record."""
    policy = _policy(db, policy_id)
    if kind == "insurance_id_card":
        if vehicle_id is None:
            raise ToolFailure(INVALID_ARGUMENT, "an insurance_id_card is for one vehicle: give its vehicle_id")
        vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
        if vehicle.policy_id != policy_id or vehicle.status != "active":
            raise ToolFailure(PRECONDITION_FAILED, f"vehicle {vehicle_id} is not an active vehicle on {policy_id}")
    elif vehicle_id is not None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} is not for one vehicle; leave vehicle_id out")
    if kind == "excluded_driver_form":
        if not (licence_number and licence_number.strip()):
            raise ToolFailure(INVALID_ARGUMENT, "an excluded_driver_form needs the licence_number of the person")
        licence_number = licence_number.strip().upper()
    elif licence_number is not None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} names no driver; leave licence_number out")
    document = Document(
        id=next_id(db, Document, "DOC-"),
        policy_id=policy_id,
        kind=kind,
        vehicle_id=vehicle_id,
        licence_number=licence_number,
        sent_to=policy.customer.email,
        sent_at=NOW,
        status="sent",
    )
    db.add(document)
    db.flush()
    return row_dict(document)


# --------------------------------------------------------------------------- writes: vehicles and coverages


@tools.write
def add_vehicle(
    db: Session,
    policy_id: str,
    vin: str,
    year: int,
    make: str,
    model: str,
    acquired_on: str,
    effective_on: str,
) -> dict:
    """Add a vehicle to a policy, covered from effective_on (YYYY-MM-DD; coverage starts at 00:01 that day when
    it is later than today). acquired_on is the date the customer bought or leased it. The VIN must be valid and
    its model year must match year. Check the policy's effective-date rules first. Returns the vehicle."""
    policy = _in_force(_policy(db, policy_id))
    check = check_vin(vin, TODAY.year + 1)
    if not check.valid:
        raise ToolFailure(INVALID_ARGUMENT, f"VIN {check.vin} is not valid: {check.problem}")
    if check.model_year != year:
        raise ToolFailure(INVALID_ARGUMENT, f"VIN {check.vin} encodes model year {check.model_year}, not {year}")
    if not (make.strip() and model.strip()):
        raise ToolFailure(INVALID_ARGUMENT, "give the vehicle's make and model")
    acquired = _parse_date(acquired_on, "acquired_on")
    starts = _within_term(policy, _parse_date(effective_on, "effective_on"), "effective_on")
    if starts < acquired:
        raise ToolFailure(INVALID_ARGUMENT, "a vehicle cannot be covered before the customer acquired it")
    if any(v.vin == check.vin and v.status == "active" for v in policy.vehicles):
        raise ToolFailure(CONFLICT, f"VIN {check.vin} is already on policy {policy_id}")
    vehicle = Vehicle(
        id=next_id(db, Vehicle, "V-"),
        policy_id=policy_id,
        vin=check.vin,
        year=year,
        make=make.strip(),
        model=model.strip(),
        acquired_on=acquired,
        effective_on=starts,
        status="active",
    )
    db.add(vehicle)
    db.flush()
    db.expire(policy, ["vehicles"])  # the policy's vehicle list now includes the new one
    return row_dict(vehicle)


@tools.write
def remove_vehicle(db: Session, policy_id: str, vehicle_id: str, removed_on: str) -> dict:
    """Take a vehicle off a policy from removed_on (YYYY-MM-DD). A policy keeps at least one vehicle: to remove
    the last one the policy must be cancelled instead."""
    policy = _in_force(_policy(db, policy_id))
    vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
    if vehicle.policy_id != policy_id or vehicle.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"vehicle {vehicle_id} is not an active vehicle on {policy_id}")
    if sum(v.status == "active" for v in policy.vehicles) == 1:
        raise ToolFailure(PRECONDITION_FAILED, f"vehicle {vehicle_id} is the only vehicle on {policy_id}")
    ends = _within_term(policy, _parse_date(removed_on, "removed_on"), "removed_on")
    if ends < vehicle.effective_on:
        raise ToolFailure(INVALID_ARGUMENT, "removed_on is before the vehicle's effective date")
    vehicle.status, vehicle.removed_on = "removed", ends
    return row_dict(vehicle)


@tools.write
def update_coverage(
    db: Session,
    policy_id: str,
    coverage: CoverageKind,
    limit_cents: int | None = None,
    limit_per_accident_cents: int | None = None,
    deductible_cents: int | None = None,
) -> dict:
    """Change the limits or the deductible of an active coverage on a policy, from today. Deductibles apply to
    collision and comprehensive only and are 25000, 50000, 100000, 150000 or 200000 cents; liability limits
    cannot go below the state's legal minimums. Returns the coverage."""
    policy = _in_force(_policy(db, policy_id))
    row = _coverage(policy, coverage)
    if limit_cents is None and limit_per_accident_cents is None and deductible_cents is None:
        raise ToolFailure(INVALID_ARGUMENT, "give a new limit, a new deductible or both")
    if deductible_cents is not None:
        if coverage not in _PHYSICAL_DAMAGE:
            raise ToolFailure(INVALID_ARGUMENT, f"{coverage} has no deductible")
        if deductible_cents not in _DEDUCTIBLES:
            raise ToolFailure(INVALID_ARGUMENT, f"deductible_cents must be one of {list(_DEDUCTIBLES)}")
    if (limit_cents is not None or limit_per_accident_cents is not None) and coverage in _PHYSICAL_DAMAGE:
        raise ToolFailure(INVALID_ARGUMENT, f"{coverage} pays up to the vehicle's value; it has no limit to change")
    if any(v is not None and v <= 0 for v in (limit_cents, limit_per_accident_cents)):
        raise ToolFailure(INVALID_ARGUMENT, "limits must be positive amounts in cents")
    state = _state_of(db, policy)
    per_person = limit_cents if limit_cents is not None else row.limit_cents
    per_accident = limit_per_accident_cents if limit_per_accident_cents is not None else row.limit_per_accident_cents
    if coverage == "bodily_injury_liability":
        assert per_person is not None  # bodily injury always has both limits
        assert per_accident is not None
        if per_person < state.min_bi_per_person_cents or per_accident < state.min_bi_per_accident_cents:
            raise ToolFailure(INVALID_ARGUMENT, f"bodily injury limits cannot go below {state.name}'s legal minimums")
    if coverage == "property_damage_liability":
        assert per_person is not None  # property damage always has its limit
        if per_person < state.min_pd_cents:
            raise ToolFailure(INVALID_ARGUMENT, f"property damage limit cannot go below {state.name}'s legal minimum")
    row.limit_cents, row.limit_per_accident_cents = per_person, per_accident
    if deductible_cents is not None:
        row.deductible_cents = deductible_cents
    row.changed_on = TODAY
    return row_dict(row)


@tools.write
def remove_coverage(db: Session, policy_id: str, coverage: CoverageKind) -> dict:
    """Remove an optional coverage from a policy from today. Liability coverage, and uninsured-motorist coverage
    where the state requires it, cannot be removed. Returns the coverage."""
    policy = _in_force(_policy(db, policy_id))
    row = _coverage(policy, coverage)
    if coverage in _LIABILITY:
        raise ToolFailure(PRECONDITION_FAILED, "liability coverage is required by law and cannot be removed")
    if coverage == "uninsured_motorist" and _state_of(db, policy).uninsured_motorist_required:
        raise ToolFailure(PRECONDITION_FAILED, f"uninsured-motorist coverage is compulsory in {policy.state}")
    row.status, row.changed_on = "removed", TODAY
    return row_dict(row)


# --------------------------------------------------------------------------- writes: billing


@tools.write
def record_payment(db: Session, billing_account_id: str, amount_cents: int, method: PaymentMethod) -> dict:
    """Take a payment the customer makes now (card, bank_account or check) on a billing account. It pays the
    past-due (missed) bills first, oldest first, then the open bills, and lowers the balance; the account becomes
    current once nothing is past due. It does not change the policy's status. Returns the payment and account."""
    account = _account(db, billing_account_id)
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")
    if amount_cents > account.balance_cents:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"the balance of {billing_account_id} is {account.balance_cents} cents; a payment cannot exceed it",
        )
    payment = Payment(
        id=next_id(db, Payment, "PM-"),
        billing_account_id=billing_account_id,
        amount_cents=amount_cents,
        method=method,
        received_at=NOW,
        status="posted",
    )
    db.add(payment)
    remaining = amount_cents
    for status in ("missed", "open"):
        for bill in (b for b in account.bills if b.status == status):
            applied = min(remaining, bill.amount_cents - bill.paid_cents)
            if applied <= 0:
                continue
            bill.paid_cents += applied
            remaining -= applied
            if status == "missed":
                account.past_due_cents -= applied
            if bill.paid_cents == bill.amount_cents:
                bill.status = "paid_late" if status == "missed" else "paid"
    account.balance_cents -= amount_cents
    if account.past_due_cents <= 0:
        account.past_due_cents = 0
        account.delinquency_status = "current"
    db.flush()
    return {"payment": row_dict(payment), "account": row_dict(account)}


@tools.write
def grant_payment_extension(db: Session, bill_id: str, new_due_on: str) -> dict:
    """Move an open bill's due date later, to new_due_on (YYYY-MM-DD), and record the extension against the
    policy's current term. Check the extension rules in the policy first. Returns the extension."""
    bill = get_or_fail(db, Bill, bill_id, "bill")
    if bill.status != "open":
        raise ToolFailure(PRECONDITION_FAILED, f"bill {bill_id} is {bill.status}; only an open bill can be extended")
    new_due = _parse_date(new_due_on, "new_due_on")
    if new_due <= bill.due_on:
        raise ToolFailure(INVALID_ARGUMENT, f"new_due_on must be after the current due date {bill.due_on.isoformat()}")
    policy = bill.account.policy
    extension = PaymentExtension(
        id=next_id(db, PaymentExtension, "EXT-"),
        billing_account_id=bill.billing_account_id,
        bill_id=bill_id,
        term_start=policy.term_start,
        original_due_on=bill.due_on,
        new_due_on=new_due,
        granted_at=NOW,
    )
    db.add(extension)
    bill.due_on = new_due
    db.flush()
    return row_dict(extension)


@tools.write
def set_up_instalment_plan(db: Session, bill_id: str, instalments: int) -> dict:
    """Split an open bill into monthly instalments (2 to 12): equal amounts with any remainder cents on the first,
    the first due on the bill's due date and one a month after that. The bill is then paid through the plan.
    Check eligibility in the policy first. Returns the plan."""
    bill = get_or_fail(db, Bill, bill_id, "bill")
    if bill.status != "open":
        raise ToolFailure(PRECONDITION_FAILED, f"bill {bill_id} is {bill.status}; only an open bill can be split")
    if not 2 <= instalments <= 12:
        raise ToolFailure(INVALID_ARGUMENT, "instalments must be between 2 and 12")
    account = bill.account
    active = db.scalars(
        select(InstalmentPlan).where(InstalmentPlan.billing_account_id == account.id, InstalmentPlan.status == "active")
    ).first()
    if active is not None:
        raise ToolFailure(CONFLICT, f"billing account {account.id} already has active instalment plan {active.id}")
    unpaid = bill.amount_cents - bill.paid_cents
    each = unpaid // instalments
    plan = InstalmentPlan(
        id=next_id(db, InstalmentPlan, "IP-"),
        billing_account_id=account.id,
        bill_id=bill_id,
        instalments=instalments,
        first_instalment_cents=unpaid - each * (instalments - 1),
        instalment_cents=each,
        first_due_on=bill.due_on,
        last_due_on=_add_months(bill.due_on, instalments - 1),
        status="active",
        created_at=NOW,
    )
    db.add(plan)
    bill.status = "on_plan"
    account.pay_plan = "instalment_plan"
    db.flush()
    return row_dict(plan)


# --------------------------------------------------------------------------- writes: cancellation and reinstatement


@tools.write
def schedule_cancellation(db: Session, policy_id: str, effective_on: str, reason: CancellationReason) -> dict:
    """Schedule an active policy's cancellation for effective_on (YYYY-MM-DD, 00:01). The policy stays in force
    until then with status cancellation_scheduled. Returns the policy."""
    policy = _policy(db, policy_id)
    if policy.status != "active":
        raise ToolFailure(
            PRECONDITION_FAILED, f"policy {policy_id} is {policy.status}; only an active policy can be cancelled"
        )
    policy.cancellation_effective_on = _within_term(policy, _parse_date(effective_on, "effective_on"), "effective_on")
    policy.status, policy.cancellation_reason = "cancellation_scheduled", reason
    return row_dict(policy)


@tools.write
def rescind_cancellation(db: Session, policy_id: str) -> dict:
    """Withdraw a scheduled cancellation that has not taken effect yet: the policy is active again with no break
    in coverage. Check the policy's rules first. Returns the policy."""
    policy = _policy(db, policy_id)
    if policy.status != "cancellation_scheduled":
        raise ToolFailure(PRECONDITION_FAILED, f"policy {policy_id} is {policy.status}; no cancellation is scheduled")
    policy.status, policy.cancellation_effective_on, policy.cancellation_reason = "active", None, None
    return row_dict(policy)


@tools.write
def reinstate_policy(db: Session, policy_id: str) -> dict:
    """Reinstate a cancelled policy from today for the rest of its term. The days from the cancellation date to
    yesterday are recorded as a lapse (no coverage on those days). Check the reinstatement rules in the policy
    first. Returns the policy."""
    policy = _policy(db, policy_id)
    if policy.status != "cancelled":
        raise ToolFailure(PRECONDITION_FAILED, f"policy {policy_id} is {policy.status}, not cancelled")
    if policy.term_end < TODAY:
        raise ToolFailure(PRECONDITION_FAILED, f"policy {policy_id}'s term ended on {policy.term_end.isoformat()}")
    cancelled_on = policy.cancellation_effective_on
    if cancelled_on is not None and cancelled_on < TODAY:
        policy.lapse_start, policy.lapse_end = cancelled_on, TODAY - timedelta(days=1)
    policy.status, policy.reinstated_on = "active", TODAY
    policy.cancellation_effective_on, policy.cancellation_reason = None, None
    return row_dict(policy)


# --------------------------------------------------------------------------- writes: claims


@tools.write
def file_claim(
    db: Session,
    policy_id: str,
    vehicle_id: str,
    loss_date: str,
    loss_type: LossType,
    injuries: bool,
    drivable: bool,
    severity: ClaimSeverity,
    description: str,
    estimated_damage_cents: int | None = None,
    driver_id: str | None = None,
) -> dict:
    """Record a first notice of loss: a new open claim on a vehicle of the policy, with the loss date (YYYY-MM-DD),
    the loss type, whether anyone was injured, whether the vehicle can be driven, the severity the policy assigns,
    a short description, the customer's damage estimate if they have one, and the driver at the wheel if listed.
    Returns the claim."""
    _policy(db, policy_id)
    vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
    if vehicle.policy_id != policy_id:
        raise ToolFailure(INVALID_ARGUMENT, f"vehicle {vehicle_id} is not on policy {policy_id}")
    if driver_id is not None and get_or_fail(db, Driver, driver_id, "driver").policy_id != policy_id:
        raise ToolFailure(INVALID_ARGUMENT, f"driver {driver_id} is not on policy {policy_id}")
    lost = _parse_date(loss_date, "loss_date")
    if lost > TODAY:
        raise ToolFailure(INVALID_ARGUMENT, "loss_date cannot be in the future")
    if not description.strip():
        raise ToolFailure(INVALID_ARGUMENT, "describe what happened in a sentence")
    if estimated_damage_cents is not None and estimated_damage_cents < 0:
        raise ToolFailure(INVALID_ARGUMENT, "estimated_damage_cents cannot be negative")
    duplicate = db.scalars(
        select(Claim).where(Claim.vehicle_id == vehicle_id, Claim.loss_date == lost, Claim.status == "open")
    ).first()
    if duplicate is not None:
        raise ToolFailure(CONFLICT, f"claim {duplicate.id} is already open for this vehicle and loss date")
    claim = Claim(
        id=next_id(db, Claim, "CL-"),
        policy_id=policy_id,
        vehicle_id=vehicle_id,
        driver_id=driver_id,
        loss_date=lost,
        reported_at=NOW,
        loss_type=loss_type,
        severity=severity,
        status="open",
        injuries=injuries,
        drivable=drivable,
        estimated_damage_cents=estimated_damage_cents,
        description=description.strip(),
    )
    db.add(claim)
    db.flush()
    return _claim_view(claim)


@tools.write
def update_claim(
    db: Session,
    claim_id: str,
    severity: ClaimSeverity | None = None,
    injuries: bool | None = None,
    drivable: bool | None = None,
    estimated_damage_cents: int | None = None,
) -> dict:
    """Update an open claim with new facts from the customer: severity, injuries, whether the vehicle can be
    driven, or a new damage estimate. Returns the claim."""
    claim = get_or_fail(db, Claim, claim_id, "claim")
    if claim.status != "open":
        raise ToolFailure(PRECONDITION_FAILED, f"claim {claim_id} is closed; the claims team must reopen it")
    if severity is None and injuries is None and drivable is None and estimated_damage_cents is None:
        raise ToolFailure(INVALID_ARGUMENT, "give at least one field to update")
    if estimated_damage_cents is not None and estimated_damage_cents < 0:
        raise ToolFailure(INVALID_ARGUMENT, "estimated_damage_cents cannot be negative")
    for name, value in (
        ("severity", severity),
        ("injuries", injuries),
        ("drivable", drivable),
        ("estimated_damage_cents", estimated_damage_cents),
    ):
        if value is not None:
            setattr(claim, name, value)
    return _claim_view(claim)


# ------------------------------------------------------------------- writes: endorsements, credits, claim payments

# the limits an added coverage may have, and its term premium
_ADDABLE = {
    "rental_reimbursement": {3_000: 1_800, 4_000: 2_400, 5_000: 3_000},
    "roadside_assistance": {7_500: 1_200, 10_000: 1_500, 15_000: 2_100},
}


@tools.write
def add_coverage(
    db: Session,
    policy_id: str,
    coverage: Literal["rental_reimbursement", "roadside_assistance"],
    limit_cents: int,
) -> dict:
    """Add an optional coverage to a policy from today: rental_reimbursement (limit_cents is the daily limit: 3000,
    4000 or 5000) or roadside_assistance (limit_cents per tow: 7500, 10000 or 15000). Billing adds its pro-rated
    premium to the next bill. Check the policy's endorsement rules first. Returns the coverage."""
    policy = _in_force(_policy(db, policy_id))
    if coverage not in _ADDABLE:
        raise ToolFailure(INVALID_ARGUMENT, f"{coverage} cannot be added at the desk")
    rates = _ADDABLE[coverage]
    if limit_cents not in rates:
        raise ToolFailure(INVALID_ARGUMENT, f"limit_cents for {coverage} must be one of {sorted(rates)}")
    if any(c.coverage == coverage and c.status == "active" for c in policy.coverages):
        raise ToolFailure(CONFLICT, f"policy {policy_id} already has {coverage}; change its limit instead")
    row = Coverage(
        id=next_id(db, Coverage, "CV-"),
        policy_id=policy_id,
        coverage=coverage,
        limit_cents=limit_cents,
        limit_per_accident_cents=None,
        deductible_cents=None,
        term_premium_cents=rates[limit_cents],
        status="active",
        changed_on=TODAY,
        effective_on=TODAY,
    )
    db.add(row)
    db.flush()
    db.expire(policy, ["coverages"])
    return row_dict(row)


@tools.write
def assign_principal_driver(db: Session, policy_id: str, vehicle_id: str, driver_id: str) -> dict:
    """Make a listed driver of the policy the principal driver of one of its active vehicles (the person who drives
    it most). Returns the vehicle."""
    policy = _in_force(_policy(db, policy_id))
    vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
    if vehicle.policy_id != policy_id or vehicle.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"vehicle {vehicle_id} is not an active vehicle on {policy_id}")
    driver = get_or_fail(db, Driver, driver_id, "driver")
    if driver.policy_id != policy.id or driver.status != "listed":
        raise ToolFailure(PRECONDITION_FAILED, f"driver {driver_id} is not a listed driver on {policy_id}")
    if vehicle.principal_driver_id == driver_id:
        raise ToolFailure(CONFLICT, f"driver {driver_id} is already the principal driver of {vehicle_id}")
    vehicle.principal_driver_id = driver_id
    return row_dict(vehicle)


@tools.write
def apply_premium_credit(
    db: Session,
    policy_id: str,
    kind: AdjustmentKind,
    amount_cents: int,
    effective_on: str,
    vehicle_id: str | None = None,
) -> dict:
    """Credit unearned premium to a policy's billing account: vehicle_removal_credit (give the removed vehicle's
    id) or cancellation_refund. The credit pays the unpaid bills first (past-due ones first, oldest first, then open
    ones) and the rest is refunded to the customer's payment method. Check the policy's credit rules first and use
    quote_unearned_premium for the amount. Returns the adjustment and the account."""
    policy = _policy(db, policy_id)
    account = _account_of(db, policy)
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")
    starts = _within_term(policy, _parse_date(effective_on, "effective_on"), "effective_on")
    if kind == "vehicle_removal_credit":
        if vehicle_id is None:
            raise ToolFailure(INVALID_ARGUMENT, "a vehicle_removal_credit is for one vehicle: give its vehicle_id")
        vehicle = get_or_fail(db, Vehicle, vehicle_id, "vehicle")
        if vehicle.policy_id != policy_id or vehicle.status != "removed":
            raise ToolFailure(PRECONDITION_FAILED, f"vehicle {vehicle_id} has not been removed from {policy_id}")
    elif vehicle_id is not None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} is not for one vehicle; leave vehicle_id out")
    remaining = amount_cents
    applied_total = 0
    for status in ("missed", "open"):
        for bill in (b for b in account.bills if b.status == status):
            applied = min(remaining, bill.amount_cents - bill.paid_cents)
            if applied <= 0:
                continue
            bill.paid_cents += applied
            remaining -= applied
            applied_total += applied
            if status == "missed":
                account.past_due_cents -= applied
            if bill.paid_cents == bill.amount_cents:
                bill.status = "paid_late" if status == "missed" else "paid"
    account.balance_cents -= applied_total
    if account.past_due_cents <= 0:
        account.past_due_cents = 0
        account.delinquency_status = "current"
    adjustment = PremiumAdjustment(
        id=next_id(db, PremiumAdjustment, "ADJ-"),
        policy_id=policy_id,
        billing_account_id=account.id,
        kind=kind,
        vehicle_id=vehicle_id,
        effective_on=starts,
        amount_cents=amount_cents,
        applied_to_balance_cents=applied_total,
        refunded_cents=remaining,
        created_at=NOW,
    )
    db.add(adjustment)
    db.flush()
    return {"adjustment": row_dict(adjustment), "account": row_dict(account)}


@tools.write
def issue_claim_payment(
    db: Session,
    claim_id: str,
    kind: ClaimPaymentKind,
    amount_cents: int,
    days: int | None = None,
) -> dict:
    """Pay the customer on a claim: glass_repair (the glass shop's invoice), rental_reimbursement (give the number
    of rental days paid for) or towing. Check the policy's claim payment rules (coverage on the loss date,
    deductibles, limits) first. Returns the payment."""
    claim = get_or_fail(db, Claim, claim_id, "claim")
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")
    if kind == "rental_reimbursement":
        if days is None or days <= 0:
            raise ToolFailure(INVALID_ARGUMENT, "a rental_reimbursement needs the number of rental days paid for")
    elif days is not None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} payment has no days; leave days out")
    payment = ClaimPayment(
        id=next_id(db, ClaimPayment, "CP-"),
        claim_id=claim.id,
        kind=kind,
        amount_cents=amount_cents,
        days=days,
        paid_at=NOW,
    )
    db.add(payment)
    db.flush()
    return row_dict(payment)


# --------------------------------------------------------------------------- shared: identity, tickets, policy

register_identity(tools, Customer, "customer", verify=True)
# The ticket classification the policy decides (see "Ticket status, classification and priority" in policy.md).
TICKET_CATEGORIES = (
    "driver",
    "vehicle",
    "coverage",
    "billing",
    "cancellation",
    "reinstatement",
    "claim",
    "documents",
)
TICKET_REASONS = (
    "identity_not_verified",
    "not_policyholder",
    "licence_not_valid",
    "invalid_vin",
    "open_major_claim",
    "major_claim",
    "not_covered",
    "not_eligible",
    "outside_window",
    "insufficient_payment",
    "payment_dispute",
    "underwriting_review",
    "below_deductible",
)
TICKET_QUEUES = (
    "claims",
    "underwriting",
    "billing",
)
register_ticket_tools(
    tools,
    Ticket,
    TicketComment,
    requester=Customer,
    now=NOW,
    categories=TICKET_CATEGORIES,
    reasons=TICKET_REASONS,
    queues=TICKET_QUEUES,
    link=("policy_id", Policy, "policy"),
)
register_policy_search(tools, POLICY_PATH, '"add driver suspended licence", "reinstatement window"')
