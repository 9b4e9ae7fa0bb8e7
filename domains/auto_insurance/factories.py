"""Factories for the records an auto insurance task seeds on top of the state reference data.

Ids come from sequences (reset before every attempt), dates from the domain
clock, so the same task body always writes the same rows. `PolicyFactory`
builds a six-month policy with its named-insured driver, one vehicle, the
standard coverages (``coverages=False`` for none, a tuple of kinds for only
those) and a billing account (``account_of(policy)``;
``account__pay_plan="paid_in_full"`` to change it). `BillFactory` keeps the
account's balance, past-due amount and delinquency status in step with the
bills a task adds. The helpers at the end arrange what many tasks share: a
policyholder and their policy, the conversation's ticket, one more car (or one
already removed), a claim on a vehicle (`minor_claim`, `major_claim`), a
licence record (`licence_record`, with `suspended` or `expired`).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import factory

from domains.shared.factories import CommentFactoryBase, TicketFactoryBase
from pytest_thinkingbox.core.factories import Factory  # not the package's lazy export, which mypy sees as Any

from .clock import TODAY, days_ago
from .models import (
    Bill,
    BillingAccount,
    Claim,
    ClaimPayment,
    Coverage,
    Customer,
    Document,
    Driver,
    LicenceRecord,
    Payment,
    PaymentExtension,
    Policy,
    PremiumAdjustment,
    Ticket,
    TicketComment,
    Vehicle,
)
from .tools import _add_months
from .vin import complete_vin

_FIRST = ["Megan", "Luis", "Harper", "Dwayne", "Aisha", "Connor", "Mei", "Rafael", "Brianna", "Theo"]
_LAST = ["Castillo", "Brennan", "Whitfield", "Osei", "Kowalski", "Delgado", "Nakamura", "Pruitt", "Lindgren", "Abbott"]
_CITIES = {
    "AZ": ("Phoenix", "85016"),
    "CA": ("Sacramento", "95818"),
    "CO": ("Denver", "80205"),
    "FL": ("Tampa", "33606"),
    "GA": ("Atlanta", "30306"),
    "IL": ("Springfield", "62704"),
    "NY": ("Albany", "12203"),
    "OH": ("Columbus", "43215"),
    "PA": ("Pittsburgh", "15213"),
    "TX": ("Austin", "78704"),
}
_STREETS = ["Mesquite Drive", "Alder Court", "Harbor View Road", "Quarry Lane", "Sycamore Street"]

# WMI, descriptor (positions 4-8), model-year code, plant, model year, make, model
_VEHICLES = [
    ("1HG", "CV1F3", "R", "A", 2024, "Honda", "Accord"),
    ("4T1", "B11HK", "N", "U", 2022, "Toyota", "Camry"),
    ("1FM", "CU9GD", "M", "U", 2021, "Ford", "Escape"),
    ("JF2", "SKAEC", "L", "H", 2020, "Subaru", "Forester"),
    ("5YJ", "3E1EA", "P", "F", 2023, "Tesla", "Model 3"),
    ("KM8", "J3CA4", "K", "U", 2019, "Hyundai", "Tucson"),
]

# coverage, limit, limit per accident, deductible, term premium: the standard package
STANDARD_COVERAGES = [
    ("bodily_injury_liability", 5_000_000, 10_000_000, None, 31_200),
    ("property_damage_liability", 5_000_000, None, None, 17_400),
    ("uninsured_motorist", 5_000_000, 10_000_000, None, 6_800),
    ("medical_payments", 500_000, None, None, 3_100),
    ("collision", None, None, 50_000, 28_600),
    ("comprehensive", None, None, 25_000, 11_900),
    ("rental_reimbursement", 4_000, None, None, 2_400),
]


def vehicle_vin(n: int) -> str:
    """A valid VIN for the n-th factory vehicle."""
    wmi, descriptor, year_code, plant, *_ = _VEHICLES[n % len(_VEHICLES)]
    return complete_vin(f"{wmi}{descriptor}0{year_code}{plant}{104220 + 313 * n:06d}")


def account_of(policy: Policy) -> BillingAccount:
    """The billing account `PolicyFactory` gave the policy (it gives every policy one)."""
    assert policy.account is not None, "the policy has no billing account: was it made by PolicyFactory?"
    return policy.account


class CustomerFactory(Factory[Customer]):
    class Meta:
        model = Customer

    class Params:
        home = factory.LazyAttribute(lambda c: _CITIES[c.state])

    id = factory.Sequence(lambda n: f"C-{2001 + n}")
    name = factory.Sequence(lambda n: f"{_FIRST[n % len(_FIRST)]} {_LAST[(n * 3) % len(_LAST)]}")
    email = factory.LazyAttribute(lambda c: c.name.lower().replace(" ", ".") + "@example.com")
    phone = factory.Sequence(lambda n: f"+1-555-02{n % 100:02d}")
    date_of_birth = factory.Sequence(lambda n: date(1968 + (n * 7) % 30, 1 + (n * 5) % 12, 1 + (n * 11) % 28))
    address_line = factory.Sequence(lambda n: f"{214 + 19 * n} {_STREETS[n % len(_STREETS)]}")
    state = "TX"
    city = factory.LazyAttribute(lambda c: c.home[0])
    postal_code = factory.LazyAttribute(lambda c: c.home[1])
    customer_since = factory.LazyFunction(lambda: TODAY.replace(year=TODAY.year - 4))


class PolicyFactory(Factory[Policy]):
    """A six-month policy in the customer's state with a named-insured driver, one vehicle, coverages and billing."""

    class Meta:
        model = Policy

    id = factory.Sequence(lambda n: f"POL-{40101 + n}")
    customer = factory.SubFactory(CustomerFactory)
    state = factory.SelfAttribute("customer.state")
    status = "active"
    term_start = date(2026, 2, 1)
    term_end = factory.LazyAttribute(lambda p: _add_months(p.term_start, 6) - timedelta(days=1))
    term_premium_cents = sum(row[4] for row in STANDARD_COVERAGES)
    cancellation_effective_on = None
    cancellation_reason = None
    reinstated_on = None
    lapse_start = None
    lapse_end = None

    @factory.post_generation
    def named_driver(policy: Policy, create: bool, extracted: Any, **kwargs: Any) -> None:
        """The customer as the policy's named-insured driver (False for none)."""
        if extracted is False:
            return
        DriverFactory(
            policy=policy,
            full_name=policy.customer.name,
            date_of_birth=policy.customer.date_of_birth,
            licence_state=policy.state,
            **kwargs,
        )

    @factory.post_generation
    def vehicle(policy: Policy, create: bool, extracted: Any, **kwargs: Any) -> None:
        """One vehicle on the policy since before the term (False for none)."""
        if extracted is False:
            return
        VehicleFactory(policy=policy, **kwargs)

    @factory.post_generation
    def coverages(policy: Policy, create: bool, extracted: Any, **kwargs: Any) -> None:
        """The standard coverages (False for none, a collection of kinds for only those)."""
        if extracted is False:
            return
        for kind, limit, per_accident, deductible, premium in STANDARD_COVERAGES:
            if extracted is not None and kind not in extracted:
                continue
            CoverageFactory(
                policy=policy,
                coverage=kind,
                limit_cents=limit,
                limit_per_accident_cents=per_accident,
                deductible_cents=deductible,
                term_premium_cents=premium,
            )

    @factory.post_generation
    def account(policy: Policy, create: bool, extracted: Any, **kwargs: Any) -> None:
        """The policy's billing account (monthly, nothing owed unless bills are added)."""
        BillingAccountFactory(policy=policy, **kwargs)


class VehicleFactory(Factory[Vehicle]):
    class Meta:
        model = Vehicle

    class Params:
        spec = factory.Sequence(lambda n: _VEHICLES[n % len(_VEHICLES)])

    id = factory.Sequence(lambda n: f"V-{3001 + n}")
    policy = factory.SubFactory(PolicyFactory, vehicle=False)
    vin = factory.Sequence(vehicle_vin)
    year = factory.LazyAttribute(lambda v: v.spec[4])
    make = factory.LazyAttribute(lambda v: v.spec[5])
    model = factory.LazyAttribute(lambda v: v.spec[6])
    acquired_on = factory.LazyAttribute(lambda v: v.policy.term_start - timedelta(days=400))
    effective_on = factory.SelfAttribute("policy.term_start")
    status = "active"
    removed_on = None
    term_premium_cents = 0
    principal_driver_id = None


class DriverFactory(Factory[Driver]):
    class Meta:
        model = Driver

    id = factory.Sequence(lambda n: f"D-{5001 + n}")
    policy = factory.SubFactory(PolicyFactory, named_driver=False)
    full_name = "Jordan Avery"
    date_of_birth = date(1985, 6, 14)
    licence_number = factory.Sequence(lambda n: f"{30418552 + 7919 * n}")
    licence_state = factory.SelfAttribute("policy.state")
    licence_status = "valid"
    relation_to_insured = "named_insured"
    status = "listed"
    effective_on = factory.SelfAttribute("policy.term_start")
    removed_on = None


class LicenceRecordFactory(Factory[LicenceRecord]):
    """The licensing state's record of a licence (what check_licence returns)."""

    class Meta:
        model = LicenceRecord

    id = factory.Sequence(lambda n: f"MVR-{7001 + n}")
    licence_number = factory.Sequence(lambda n: f"{51937204 + 6421 * n}")
    licence_state = "TX"
    holder_name = "Jordan Avery"
    date_of_birth = date(1990, 3, 9)
    status = "valid"
    expires_on = date(2029, 3, 9)
    suspended_until = None
    at_fault_accidents_3y = 0
    violations_3y = 0


class CoverageFactory(Factory[Coverage]):
    class Meta:
        model = Coverage

    id = factory.Sequence(lambda n: f"CV-{8001 + n}")
    policy = factory.SubFactory(PolicyFactory, coverages=False)
    coverage = "collision"
    limit_cents = None
    limit_per_accident_cents = None
    deductible_cents = 50_000
    term_premium_cents = 28_600
    status = "active"
    changed_on = None
    effective_on = None


class BillingAccountFactory(Factory[BillingAccount]):
    class Meta:
        model = BillingAccount

    id = factory.Sequence(lambda n: f"BA-{6001 + n}")
    policy = factory.SubFactory(PolicyFactory, account=False)
    pay_plan = "monthly"
    balance_cents = 0
    past_due_cents = 0
    delinquency_status = "current"
    autopay = False


class BillFactory(Factory[Bill]):
    """A bill; an unpaid one (open, missed, on_plan) adds to the account's balance, a missed one to its past due."""

    class Meta:
        model = Bill

    id = factory.Sequence(lambda n: f"B-{9001 + n}")
    account = factory.SubFactory(BillingAccountFactory)
    due_on = factory.LazyFunction(lambda: TODAY + timedelta(days=6))
    original_due_on = factory.SelfAttribute("due_on")
    issued_on = factory.LazyAttribute(lambda b: b.original_due_on - timedelta(days=21))
    amount_cents = 16_900
    status = "open"
    paid_cents = factory.LazyAttribute(lambda b: b.amount_cents if b.status in ("paid", "paid_late") else 0)

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        bill = super()._create(model_class, *args, **kwargs)
        account = bill.account
        unpaid = bill.amount_cents - bill.paid_cents
        if bill.status in ("open", "missed", "on_plan"):
            account.balance_cents += unpaid
        if bill.status == "missed":
            account.past_due_cents += unpaid
            account.delinquency_status = "past_due"
        return bill


class PaymentFactory(Factory[Payment]):
    """A payment received on `account` (required)."""

    class Meta:
        model = Payment

    class Params:
        account = None

    id = factory.Sequence(lambda n: f"PM-{4001 + n}")
    billing_account_id = factory.LazyAttribute(lambda p: p.account.id)
    amount_cents = 16_900
    method = "card"
    received_at = factory.LazyFunction(lambda: days_ago(40))
    status = "posted"
    returned_on = None


class PaymentExtensionFactory(Factory[PaymentExtension]):
    """An extension granted on `bill` (required), by default a week past its original due date."""

    class Meta:
        model = PaymentExtension

    class Params:
        bill = None

    id = factory.Sequence(lambda n: f"EXT-{1001 + n}")
    billing_account_id = factory.LazyAttribute(lambda e: e.bill.account.id)
    bill_id = factory.LazyAttribute(lambda e: e.bill.id)
    term_start = factory.LazyAttribute(lambda e: e.bill.account.policy.term_start)
    original_due_on = factory.SelfAttribute("bill.original_due_on")
    new_due_on = factory.LazyAttribute(lambda e: e.bill.original_due_on + timedelta(days=7))
    granted_at = factory.LazyAttribute(lambda e: days_ago((TODAY - e.bill.original_due_on).days + 2))


class ClaimFactory(Factory[Claim]):
    class Meta:
        model = Claim

    id = factory.Sequence(lambda n: f"CL-{70401 + n}")
    vehicle = factory.SubFactory(VehicleFactory)
    policy_id = factory.LazyAttribute(lambda c: c.vehicle.policy.id)
    driver_id = None
    loss_date = factory.LazyFunction(lambda: TODAY - timedelta(days=20))
    reported_at = factory.LazyAttribute(lambda c: days_ago((TODAY - c.loss_date).days - 1, hour=9))
    loss_type = "collision"
    severity = "minor"
    status = "open"
    injuries = False
    drivable = True
    estimated_damage_cents = 180_000
    closed_on = None
    description = "Rear bumper damaged in a low-speed collision."


class ClaimPaymentFactory(Factory[ClaimPayment]):
    """A payment already made on `claim` (required): by default four rental days."""

    class Meta:
        model = ClaimPayment

    class Params:
        claim = None

    id = factory.Sequence(lambda n: f"CP-{3301 + n}")
    claim_id = factory.LazyAttribute(lambda p: p.claim.id)
    kind = "rental_reimbursement"
    amount_cents = 16_000
    days = factory.LazyAttribute(lambda p: 4 if p.kind == "rental_reimbursement" else None)
    paid_at = factory.LazyFunction(lambda: days_ago(6))


class PremiumAdjustmentFactory(Factory[PremiumAdjustment]):
    """A credit already made on `policy` (required)."""

    class Meta:
        model = PremiumAdjustment

    class Params:
        policy = None

    id = factory.Sequence(lambda n: f"ADJ-{2401 + n}")
    policy_id = factory.LazyAttribute(lambda a: a.policy.id)
    billing_account_id = factory.LazyAttribute(lambda a: a.policy.account.id)
    kind = "vehicle_removal_credit"
    vehicle_id = None
    effective_on = factory.LazyFunction(lambda: days_ago(30).date())
    amount_cents = 9_000
    applied_to_balance_cents = 0
    refunded_cents = factory.SelfAttribute("amount_cents")
    created_at = factory.LazyFunction(lambda: days_ago(30))


class DocumentFactory(Factory[Document]):
    """A document already sent about `policy` (required)."""

    class Meta:
        model = Document

    class Params:
        policy = None

    id = factory.Sequence(lambda n: f"DOC-{1201 + n}")
    policy_id = factory.LazyAttribute(lambda d: d.policy.id)
    kind = "insurance_id_card"
    vehicle_id = None
    licence_number = None
    sent_to = factory.LazyAttribute(lambda d: d.policy.customer.email)
    sent_at = factory.LazyFunction(lambda: days_ago(100))
    status = "sent"


class TicketFactory(TicketFactoryBase, Factory[Ticket]):
    """The ticket of the conversation (open, created now) unless told otherwise."""

    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{8101 + n}")
    requester = factory.SubFactory(CustomerFactory)
    subject = "Question about my policy"
    policy_id = None
    created_at = factory.LazyFunction(lambda: days_ago(0, hour=9))


class TicketCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{9101 + n}")
    ticket = factory.SubFactory(TicketFactory)
    body = "Customer message."


# --- Arrange helpers: the set-ups many tasks share ----------------------------------------------------------------


def policyholder(name: str, state: str, **policy: Any) -> tuple[Customer, Policy]:
    """A customer living in `state` and their standard policy there (`policy` overrides PolicyFactory's fields)."""
    customer = CustomerFactory(name=name, state=state)
    return customer, PolicyFactory(customer=customer, **policy)


def cancelling(on: date, reason: str = "non_payment") -> dict[str, Any]:
    """PolicyFactory fields of a policy whose cancellation is scheduled for `on`."""
    return {"status": "cancellation_scheduled", "cancellation_effective_on": on, "cancellation_reason": reason}


def cancelled(on: date, reason: str = "non_payment") -> dict[str, Any]:
    """PolicyFactory fields of a policy cancelled from `on`."""
    return {"status": "cancelled", "cancellation_effective_on": on, "cancellation_reason": reason}


def licence_record(holder_name: str, state: str, number: str, date_of_birth: date, **fields: Any) -> LicenceRecord:
    """The licensing state's record of a licence (valid unless `fields` say otherwise, e.g. ``**suspended(...)``)."""
    return LicenceRecordFactory(
        holder_name=holder_name, licence_state=state, licence_number=number, date_of_birth=date_of_birth, **fields
    )


def suspended(until: date, violations: int) -> dict[str, Any]:
    """LicenceRecordFactory fields of a licence suspended until `until`, with its violations of the last 3 years."""
    return {"status": "suspended", "suspended_until": until, "violations_3y": violations}


def expired(on: date) -> dict[str, Any]:
    """LicenceRecordFactory fields of a licence that expired on `on`."""
    return {"status": "expired", "expires_on": on}


def ticket_about(policy: Policy, subject: str, **fields: Any) -> Ticket:
    """A ticket the policyholder opened about `policy`: the conversation's, unless `fields` say otherwise."""
    return TicketFactory(requester=policy.customer, policy_id=policy.id, subject=subject, **fields)


def car_on(
    policy: Policy,
    vin: str,
    year: int,
    make: str,
    model: str,
    acquired_on: date,
    premium: int = 0,
    principal: str | None = None,
    removed_on: date | None = None,
) -> Vehicle:
    """One more vehicle on `policy` (VIN completed with its check digit), with its term premium and principal driver;
    one already taken off the policy when `removed_on` is given."""
    removed = {"status": "removed", "removed_on": removed_on} if removed_on else {}
    return VehicleFactory(
        policy=policy,
        vin=complete_vin(vin),
        year=year,
        make=make,
        model=model,
        acquired_on=acquired_on,
        term_premium_cents=premium,
        principal_driver_id=principal,
        **removed,
    )


def _claim(
    vehicle: Vehicle, loss_date: date, description: str, damage_cents: int | None, closed_on: date | None, **fields: Any
) -> Claim:
    closed = {"status": "closed", "closed_on": closed_on} if closed_on else {}
    return ClaimFactory(
        vehicle=vehicle,
        loss_date=loss_date,
        estimated_damage_cents=damage_cents,
        description=description,
        **closed,
        **fields,
    )


def minor_claim(
    vehicle: Vehicle,
    loss_date: date,
    description: str,
    *,
    damage_cents: int,
    loss_type: str = "collision",
    closed_on: date | None = None,
) -> Claim:
    """A minor claim on `vehicle` (drivable, nobody hurt), open unless `closed_on` is given."""
    return _claim(vehicle, loss_date, description, damage_cents, closed_on, loss_type=loss_type)


def major_claim(
    vehicle: Vehicle,
    loss_date: date,
    description: str,
    *,
    damage_cents: int | None,
    closed_on: date | None = None,
    **fields: Any,
) -> Claim:
    """A major claim on `vehicle`, which could not be driven away; open unless `closed_on` is given (`fields`
    override ClaimFactory's, e.g. ``loss_type``, ``total_loss=True``)."""
    return _claim(vehicle, loss_date, description, damage_cents, closed_on, severity="major", drivable=False, **fields)
