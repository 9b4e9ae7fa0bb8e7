"""Factories for the records a neobank task seeds on top of the KYC levels.

Ids come from sequences (reset before every attempt), dates from the domain
clock, so the same task body always writes the same rows. Related rows are
passed as objects (``CardFactory(account=current)``); the owner of a card, a
dispute or a fee refund follows from the account it hangs on. IBANs carry valid
check digits (`make_iban`).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import factory

from domains.shared.factories import CommentFactoryBase, TicketFactoryBase
from pytest_thinkingbox.core.factories import Factory  # not the package's lazy export, which mypy sees as Any

from .calls import next_ticket_id
from .clock import NOW, TODAY, days_ago
from .models import (
    AccessGrant,
    AccessRequest,
    Account,
    Approval,
    Card,
    Customer,
    Device,
    Dispute,
    Employee,
    Fee,
    FeeRefund,
    FraudAlert,
    Hold,
    Incident,
    ScheduledPayment,
    Ticket,
    TicketComment,
    Transaction,
    Transfer,
)

KESTREL_BANK_CODE = "11022033"

_FIRST = ["Lena", "Jonas", "Amira", "Felix", "Sofia", "Mateo", "Hanna", "Niklas", "Yara", "Emil"]
_LAST = ["Schneider", "Okoye", "Brandt", "Kowalski", "Lehmann", "Demir", "Vogel", "Albers", "Petrov", "Richter"]
_CITIES = [("Berlin", "10435"), ("Hamburg", "20255"), ("Leipzig", "04109"), ("Cologne", "50667"), ("Munich", "80331")]
_STREETS = ["Kastanienallee", "Lindenstrasse", "Bergmannstrasse", "Rosenweg", "Schillerplatz"]


def make_iban(bank_code: str, account_number: str, country: str = "DE") -> str:
    """An IBAN with correct ISO 7064 mod-97 check digits for a bank code and account number."""
    bban = bank_code + account_number
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def at(day: date | datetime, hour: int, minute: int = 0) -> datetime:
    """A datetime on the day of `day` at hour:minute, for bookings that need a time of day."""
    day = day.date() if isinstance(day, datetime) else day
    return datetime.combine(day, time(hour, minute))


def today_at(hour: int, minute: int = 0) -> datetime:
    return at(TODAY, hour, minute)


def _spread(name: str, salt: int) -> int:
    """A stable number derived from a name (no randomness), to vary birthdays and addresses between tasks."""
    return sum((i + salt) * ord(ch) for i, ch in enumerate(name))


class CustomerFactory(Factory[Customer]):
    """A customer whose birthday, street and city follow from their name, so every task's caller differs."""

    class Meta:
        model = Customer

    id = factory.Sequence(lambda n: f"CU-{1001 + n}")
    name = factory.Sequence(lambda n: f"{_FIRST[n % len(_FIRST)]} {_LAST[(n * 3) % len(_LAST)]}")
    email = factory.LazyAttribute(lambda c: c.name.lower().replace(" ", ".") + "@mailbox.example")
    phone = factory.Sequence(lambda n: f"+49 151 2304 {1100 + 37 * n}")
    date_of_birth = factory.LazyAttribute(
        lambda c: date(1966 + _spread(c.name, 1) % 38, 1 + _spread(c.name, 2) % 12, 1 + _spread(c.name, 3) % 28)
    )
    address_line = factory.LazyAttribute(
        lambda c: f"{_STREETS[_spread(c.name, 4) % len(_STREETS)]} {1 + _spread(c.name, 5) % 90}"
    )
    city = factory.LazyAttribute(lambda c: _CITIES[_spread(c.name, 6) % len(_CITIES)][0])
    postal_code = factory.LazyAttribute(lambda c: dict(_CITIES)[c.city])
    country = "DE"
    kyc_level = "standard"
    joined_on = factory.LazyFunction(lambda: TODAY.replace(year=TODAY.year - 2))
    security_locked = False
    security_lock_reason = None
    security_locked_at = None


class AccountFactory(Factory[Account]):
    """A current account with EUR 2,500.00 unless told otherwise (``kind="savings"`` for a savings account)."""

    class Meta:
        model = Account

    id = factory.Sequence(lambda n: f"AC-{2001 + n}")
    customer = factory.SubFactory(CustomerFactory)
    kind = "current"
    nickname = factory.LazyAttribute(lambda a: "Main account" if a.kind == "current" else "Savings")
    iban = factory.Sequence(lambda n: make_iban(KESTREL_BANK_CODE, f"{7700412000 + 131 * n:010d}"))
    currency = "EUR"
    balance_cents = 250_000
    status = "open"
    opened_on = factory.LazyAttribute(lambda a: a.customer.joined_on)
    closed_at = None


class HoldFactory(Factory[Hold]):
    class Meta:
        model = Hold

    id = factory.Sequence(lambda n: f"HD-{3001 + n}")
    account = factory.SubFactory(AccountFactory)
    amount_cents = 4_590
    reason = "card_authorisation"
    description = "Card authorisation awaiting settlement"
    status = "active"
    placed_at = factory.LazyFunction(lambda: days_ago(2))
    transfer_id = None


class CardFactory(Factory[Card]):
    """A physical debit card on an account, owned by the account's customer."""

    class Meta:
        model = Card

    id = factory.Sequence(lambda n: f"CD-{4001 + n}")
    account = factory.SubFactory(AccountFactory)
    customer = factory.SelfAttribute("account.customer")
    kind = "physical"
    last4 = factory.Sequence(lambda n: f"{(4821 + 613 * n) % 10_000:04d}")
    status = "active"
    daily_limit_cents = 100_000
    expires_on = date(2029, 3, 31)
    issued_at = factory.LazyFunction(lambda: days_ago(400))
    frozen_at = factory.LazyAttribute(lambda c: days_ago(3) if c.status == "frozen" else None)
    blocked_at = None
    block_reason = None
    replaces = None


class TransactionFactory(Factory[Transaction]):
    """A posted booking; card payments pass ``card=`` and take the card's account."""

    class Meta:
        model = Transaction

    id = factory.Sequence(lambda n: f"TX-{5001 + n}")
    card = None
    account = factory.LazyAttribute(lambda t: t.card.account if t.card is not None else AccountFactory())
    kind = "card_payment"
    direction = factory.LazyAttribute(
        lambda t: "credit" if t.kind in ("transfer_in", "fee_refund", "interest", "card_refund") else "debit"
    )
    amount_cents = 2_450
    description = "REWE Markt"
    status = "posted"
    booked_at = factory.LazyFunction(lambda: days_ago(3))


class TransferFactory(Factory[Transfer]):
    class Meta:
        model = Transfer

    id = factory.Sequence(lambda n: f"TR-{6001 + n}")
    account = factory.SubFactory(AccountFactory)
    beneficiary_name = "Hausverwaltung Albrecht GmbH"
    beneficiary_iban = factory.Sequence(lambda n: make_iban("37040044", f"{532013000 + 1009 * n:010d}"))
    amount_cents = 50_000
    reference = ""
    status = "completed"
    created_at = factory.LazyFunction(lambda: days_ago(5))
    executed_at = factory.LazyAttribute(lambda t: t.created_at if t.status == "completed" else None)
    transaction_id = None


class ScheduledPaymentFactory(Factory[ScheduledPayment]):
    class Meta:
        model = ScheduledPayment

    id = factory.Sequence(lambda n: f"SP-{7001 + n}")
    account = factory.SubFactory(AccountFactory)
    payee_name = "FitX Studio Prenzlauer Berg"
    payee_iban = factory.Sequence(lambda n: make_iban("20041111", f"{440187700 + 211 * n:010d}"))
    amount_cents = 2_990
    frequency = "monthly"
    next_run_on = factory.LazyFunction(lambda: TODAY + timedelta(days=10))
    reference = ""
    status = "active"
    cancelled_at = None


class DisputeFactory(Factory[Dispute]):
    class Meta:
        model = Dispute

    id = factory.Sequence(lambda n: f"DP-{8001 + n}")
    transaction = factory.SubFactory(TransactionFactory)
    customer = factory.LazyAttribute(lambda d: d.transaction.account.customer)
    reason = "not_received"
    amount_cents = factory.SelfAttribute("transaction.amount_cents")
    status = "open"
    opened_at = factory.LazyFunction(lambda: days_ago(20))
    description = "Order never arrived."


_FEE_DESCRIPTIONS = {
    "monthly_plan": "Kestrel Plus monthly plan",
    "atm_withdrawal": "ATM withdrawal fee",
    "foreign_exchange": "Foreign exchange fee",
    "savings_withdrawal": "Savings withdrawal fee",
    "card_replacement": "Replacement card",
    "overdraft": "Unarranged overdraft fee",
}


class FeeFactory(Factory[Fee]):
    class Meta:
        model = Fee

    id = factory.Sequence(lambda n: f"FE-{9001 + n}")
    account = factory.SubFactory(AccountFactory)
    kind = "monthly_plan"
    amount_cents = 990
    description = factory.LazyAttribute(lambda f: _FEE_DESCRIPTIONS[f.kind])
    charged_at = factory.LazyFunction(lambda: days_ago(10, hour=6))
    transaction_id = None
    card = None


class FeeRefundFactory(Factory[FeeRefund]):
    class Meta:
        model = FeeRefund

    id = factory.Sequence(lambda n: f"FR-{9501 + n}")
    fee = factory.SubFactory(FeeFactory)
    customer = factory.LazyAttribute(lambda r: r.fee.account.customer)
    reason = "goodwill"
    amount_cents = factory.SelfAttribute("fee.amount_cents")
    created_at = factory.LazyFunction(lambda: days_ago(200))
    transaction_id = None


class FraudAlertFactory(Factory[FraudAlert]):
    """An open alert about one card payment (``transaction=``), on that payment's card and customer."""

    class Meta:
        model = FraudAlert

    id = factory.Sequence(lambda n: f"FA-{1101 + n}")
    transaction = None
    card = factory.LazyAttribute(lambda a: a.transaction.card if a.transaction is not None else None)
    customer = factory.LazyAttribute(lambda a: a.transaction.account.customer if a.transaction is not None else None)
    risk_level = "medium"
    summary = "Card-not-present payment at a merchant new to this customer"
    status = "open"
    raised_at = factory.LazyAttribute(lambda a: a.transaction.booked_at if a.transaction is not None else NOW)
    resolved_at = None


class TicketFactory(TicketFactoryBase, Factory[Ticket]):
    """The ticket of the conversation (open, created now) unless told otherwise."""

    class Meta:
        model = Ticket

    id = factory.Sequence(lambda n: f"T-{6101 + n}")
    requester = factory.SubFactory(CustomerFactory)
    subject = "Question about my account"
    account = None
    created_at = NOW


class TicketCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{9101 + n}")
    ticket = factory.SubFactory(TicketFactory)
    body = "Customer message."


# --------------------------------------------------------------------------- the internal help desk

_STAFF_FIRST = ["Marta", "Henrik", "Selin", "Oskar", "Bianca", "Lukas", "Nadia", "Pavel", "Greta", "Timo", "Ayla"]
_STAFF_LAST = ["Wendt", "Kaiser", "Yilmaz", "Berger", "Horn", "Ziegler", "Krause", "Nowak", "Seidel", "Arndt", "Falk"]


class EmployeeFactory(Factory[Employee]):
    """A permanent employee of Customer Support who started three years ago, whose birthday follows from their name.
    Pass ``manager=`` (an employee) or ``manager_id=`` (a seeded one's number) for their line manager; contractors
    take ``is_contractor=True`` and ``contract_end_on``."""

    class Meta:
        model = Employee

    class Params:
        manager = None

    id = factory.Sequence(lambda n: f"E-{2101 + n}")
    name = factory.Sequence(
        lambda n: f"{_STAFF_FIRST[n % len(_STAFF_FIRST)]} {_STAFF_LAST[(n * 4) % len(_STAFF_LAST)]}"
    )
    email = factory.LazyAttribute(lambda e: e.name.lower().replace(" ", ".") + f".{e.id[2:]}@kestrelbank.example")
    date_of_birth = factory.LazyAttribute(
        lambda e: date(1968 + _spread(e.name, 7) % 34, 1 + _spread(e.name, 8) % 12, 1 + _spread(e.name, 9) % 28)
    )
    department = "Customer Support"
    title = "Customer Support Agent"
    grade = "staff"
    manager_id = factory.LazyAttribute(lambda e: e.manager.id if e.manager is not None else None)
    is_contractor = False
    contract_end_on = None
    start_on = factory.LazyFunction(lambda: TODAY.replace(year=TODAY.year - 3))
    leave_on = None
    status = "active"
    previous_department = None
    moved_on = None


class AccessGrantFactory(Factory[AccessGrant]):
    """An active role grant with no expiry, given a year ago; pass ``employee=`` and ``role_id=``."""

    class Meta:
        model = AccessGrant

    id = factory.Sequence(lambda n: f"AG-{3101 + n}")
    employee = factory.SubFactory(EmployeeFactory)
    role_id = "CRM-READ"
    kind = "standard"
    status = "active"
    granted_at = factory.LazyFunction(lambda: days_ago(365, hour=10))
    expires_on = None
    request_id = None
    revoked_at = None
    revoke_reason = None


class IncidentFactory(Factory[Incident]):
    """An open production incident on a system, opened an hour ago."""

    class Meta:
        model = Incident

    id = factory.Sequence(lambda n: f"INC-{4101 + n}")
    system_id = "PAY"
    title = "Outgoing SEPA batch stuck in the payments hub"
    status = "open"
    opened_at = factory.LazyFunction(lambda: NOW - timedelta(hours=1))
    resolved_at = None


class AccessRequestFactory(Factory[AccessRequest]):
    """A request awaiting approval, raised yesterday by the employee it is for (``raised_by=`` another)."""

    class Meta:
        model = AccessRequest

    class Params:
        raised_by = None

    id = factory.Sequence(lambda n: f"AR-{5101 + n}")
    employee = factory.SubFactory(EmployeeFactory)
    role_id = "CRM-AGENT"
    raised_by_id = factory.LazyAttribute(lambda r: (r.raised_by or r.employee).id)
    kind = "standard"
    needed_until = None
    incident_id = None
    status = "awaiting_approval"
    reject_reason = None
    created_at = factory.LazyFunction(lambda: days_ago(1, hour=9))
    closed_at = None


class ApprovalFactory(Factory[Approval]):
    """An approval of an access request; pass ``request=``, ``approver=`` (or ``approver_id=`` for a seeded
    employee) and ``capacity=``."""

    class Meta:
        model = Approval

    class Params:
        approver = None

    id = factory.Sequence(lambda n: f"AP-{6101 + n}")
    request = factory.SubFactory(AccessRequestFactory)
    approver_id = factory.LazyAttribute(lambda a: a.approver.id)
    capacity = "line_manager"
    decision = "approved"
    decided_at = factory.LazyFunction(lambda: days_ago(1, hour=15))


class DeviceFactory(Factory[Device]):
    """A standard-profile laptop bought a year ago, in stock unless ``assigned_to=`` an employee."""

    class Meta:
        model = Device

    class Params:
        assigned_to = None

    id = factory.Sequence(lambda n: f"DV-{7101 + n}")
    kind = "laptop"
    model = factory.LazyAttribute(
        lambda d: {"laptop": "Lenovo ThinkPad T14", "token": "YubiKey 5 NFC", "phone": "iPhone 15"}[d.kind]
    )
    profile = factory.LazyAttribute(lambda d: "standard" if d.kind == "laptop" else None)
    serial = factory.Sequence(lambda n: f"KB-{90417 + 37 * n}")
    purchased_on = factory.LazyFunction(lambda: TODAY - timedelta(days=365))
    assigned_to_id = factory.LazyAttribute(lambda d: d.assigned_to.id if d.assigned_to is not None else None)
    status = factory.LazyAttribute(lambda d: "assigned" if d.assigned_to is not None else "in_stock")
    assigned_at = factory.LazyAttribute(lambda d: at(d.purchased_on, 9) if d.assigned_to is not None else None)
    returned_at = None


class DeskTicketFactory(TicketFactoryBase, Factory[Ticket]):
    """A ticket of the internal help desk (open, created now): ``employee=`` who asked (or ``employee_id=`` for a
    seeded employee), no customer."""

    class Meta:
        model = Ticket

    class Params:
        employee = None

    id = factory.Sequence(lambda n: f"T-{7101 + n}")
    requester = None
    employee_id = factory.LazyAttribute(lambda t: t.employee.id)
    subject = "Access request"
    account = None
    created_at = NOW


class DeskCommentFactory(CommentFactoryBase, Factory[TicketComment]):
    """A comment on an internal help desk ticket, by the employee who raised it."""

    class Meta:
        model = TicketComment

    id = factory.Sequence(lambda n: f"TC-{9601 + n}")
    ticket = factory.SubFactory(DeskTicketFactory)
    # A plain value where the base declares a LazyAttribute: factory-boy takes either, mypy sees a narrower base type.
    author = "employee"  # type: ignore[assignment]
    body = "Employee message."


# --------------------------------------------------------------------------- arrange helpers: set-ups many tasks share


def account_holder(name: str, *, balance_cents: int, **customer: Any) -> tuple[Customer, Account]:
    """A customer (`customer`: more of CustomerFactory's fields) and their current account holding `balance_cents`."""
    holder = CustomerFactory(name=name, **customer)
    return holder, AccountFactory(customer=holder, balance_cents=balance_cents)


def security_lock(reason: str, locked_at: datetime) -> dict[str, Any]:
    """A customer's security lock (NB-11), as CustomerFactory's fields: why it was set and when."""
    return {"security_locked": True, "security_lock_reason": reason, "security_locked_at": locked_at}


def pending_lock_ticket(requester: Customer, subject: str, created_at: datetime) -> Ticket:
    """The customer's ticket from when their account was locked: left pending at high priority."""
    return TicketFactory(requester=requester, status="pending", priority="high", subject=subject, created_at=created_at)


def savings_withdrawal(savings: Account, amount_cents: int, booked_at: datetime) -> Transaction:
    """Money moved out of a savings account to the customer's main account: what the monthly count of free
    withdrawals looks at."""
    return TransactionFactory(
        account=savings, kind="transfer_out", amount_cents=amount_cents, description="Main account", booked_at=booked_at
    )


def goodwill_refunded(
    account: Account, kind: str, amount_cents: int, charged_at: datetime, refunded_at: datetime
) -> FeeRefund:
    """A fee of `kind` charged on `account` and refunded as goodwill: what the once-in-180-days rule looks back at."""
    fee = FeeFactory(account=account, kind=kind, amount_cents=amount_cents, charged_at=charged_at)
    return FeeRefundFactory(fee=fee, created_at=refunded_at)


def card_replacement_fee(old_card: Card, charged_at: datetime) -> Fee:
    """The 600-cent fee charged on the card's account for replacing `old_card`."""
    return FeeFactory(
        account=old_card.account,
        kind="card_replacement",
        amount_cents=600,
        description=f"Replacement card for card *{old_card.last4}",
        charged_at=charged_at,
        card=old_card,
    )


def contractor(name: str, title: str, contract_end_on: date, **employee: Any) -> Employee:
    """A contractor (`title` is their job, marked as a contractor's) whose contract ends on `contract_end_on`."""
    return EmployeeFactory(
        name=name, title=f"{title} (contractor)", is_contractor=True, contract_end_on=contract_end_on, **employee
    )


def held_transfer(account: Account, amount_cents: int, beneficiary_name: str, created_at: datetime) -> Transfer:
    """A transfer held for compliance review, and the hold that reserves its amount on the account."""
    transfer = TransferFactory(
        account=account,
        amount_cents=amount_cents,
        created_at=created_at,
        status="held",
        beneficiary_name=beneficiary_name,
    )
    HoldFactory(
        account=account,
        amount_cents=amount_cents,
        reason="transfer_review",
        description=f"Transfer {transfer.id} to {beneficiary_name} under review",
        placed_at=created_at,
        transfer_id=transfer.id,
    )
    return transfer


def finished_ticket(
    requester: Customer, subject: str, created_at: datetime, status: str = "solved", **ticket: Any
) -> tuple[Ticket, str]:
    """An earlier ticket of the customer, `solved` or `closed`: with no new or open one, the agent creates the
    conversation's ticket, and this gives the id `create_ticket` will give it."""
    old = TicketFactory(requester=requester, status=status, subject=subject, created_at=created_at, **ticket)
    return old, next_ticket_id(old.id)


def finished_desk_ticket(
    employee: Employee, subject: str, created_at: datetime, status: str = "solved"
) -> tuple[Ticket, str]:
    """An earlier internal desk ticket of the employee, `solved` or `closed`, and the id `create_ticket` will give
    the conversation's new ticket."""
    old = DeskTicketFactory(employee=employee, status=status, subject=subject, created_at=created_at)
    return old, next_ticket_id(old.id)


def mover(name: str, moved_from: str, moved_on: date, **employee: Any) -> Employee:
    """An employee who moved to another department (`employee`: the new one, title and manager) from `moved_from`
    on `moved_on`."""
    return EmployeeFactory(name=name, previous_department=moved_from, moved_on=moved_on, **employee)
