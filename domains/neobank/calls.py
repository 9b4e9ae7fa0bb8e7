"""Golden-path building blocks the neobank tasks share.

A task's golden calls read as its decision. At the customer desk a conversation
starts with `opening`: identify and verify the caller, read the records the
request is about (`cards_of`, `transactions_of` ...), then look for their
ticket (NB-2, NB-3). At the internal help desk `desk_opening` identifies the
employee and looks for their ticket first (NB-102, NB-104). Then come the
calls of the decision itself (`create_ticket` when the caller has no open
ticket, `create_transfer` to a `Payee`, `move_money`, `block_and_replace`,
`open_dispute`, `grant_access`, `replace_lost_device`), then how the ticket ends: `solved`, `refused`
(solved with a reason code), `pending` or `hold`, each with its classification
and the one internal comment the policy asks for. `caller_facts` (shared),
`payee_facts` and `employee_facts` are what a caller can tell the agent;
`next_ticket_id` and `next_fee_id` the ids a create call gives. What a task
asserts about the end state it reads with `ticket_end` (a customer ticket's
status, category and reason), `active_grants`, `active_roles`, `new_grant`
and `devices_held`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from domains.shared.calls import internal_note, new_id, ticket_update, verified
from pytest_thinkingbox import Call, call

from .models import AccessGrant, Account, Card, Customer, Device, Employee, Ticket, Transaction
from .seed import SeededEmployee

# --------------------------------------------------------------------------- identity and the opening reads


def identify(customer: Customer, date_of_birth: str | None = None, postal_code: str | None = None) -> list[Call]:
    """Find the caller by email and verify them with the date of birth and postal code they give (NB-2): their own,
    unless another is given for a caller who fails verification."""
    return verified(customer, date_of_birth, postal_code)


def opening(customer: Customer, *reads: Call) -> list[Call]:
    """How a conversation at the customer desk starts: identify and verify the customer and read the records the
    request is about (`reads`, NB-2), then look for the customer's ticket (NB-3)."""
    return [*identify(customer), *reads, call("list_tickets", requester_id=customer.id)]


def customer_profile(customer: Customer) -> Call:
    """Read the customer's profile: KYC level, security lock."""
    return call("get_customer", customer_id=customer.id)


def accounts_of(customer: Customer) -> Call:
    return call("list_accounts", customer_id=customer.id)


def cards_of(customer: Customer) -> Call:
    return call("list_cards", customer_id=customer.id)


def disputes_of(customer: Customer) -> Call:
    return call("list_disputes", customer_id=customer.id)


def fees_of(customer: Customer) -> Call:
    return call("list_fees", customer_id=customer.id)


def fraud_alerts_of(customer: Customer) -> Call:
    return call("list_fraud_alerts", customer_id=customer.id)


def account_record(account: Account) -> Call:
    return call("get_account", account_id=account.id)


def transactions_of(account: Account) -> Call:
    return call("list_transactions", account_id=account.id)


def transfers_of(account: Account) -> Call:
    return call("list_transfers", account_id=account.id)


def scheduled_payments_of(account: Account) -> Call:
    return call("list_scheduled_payments", account_id=account.id)


def card_record(card: Card) -> Call:
    return call("get_card", card_id=card.id)


def transaction_record(transaction: Transaction) -> Call:
    return call("get_transaction", transaction_id=transaction.id)


def identify_employee(employee: Employee | SeededEmployee, date_of_birth: str | None = None) -> list[Call]:
    """Internal help desk: find the caller by employee number and verify them with the date of birth they give
    (NB-102): their own, unless another is given for a caller who fails verification."""
    born = date_of_birth or employee.date_of_birth.isoformat()
    return [
        call("find_employee", employee_number=employee.id),
        call("verify_employee", employee_number=employee.id, date_of_birth=born),
    ]


def desk_opening(employee: Employee | SeededEmployee, *reads: Call) -> list[Call]:
    """How a conversation at the internal help desk starts: identify and verify the employee (NB-102), look for
    their ticket (NB-104), then read what the request is about (`reads`)."""
    return [*identify_employee(employee), call("list_tickets", requester_id=employee.id), *reads]


def grants_of(employee: Employee) -> Call:
    return call("list_access_grants", employee_id=employee.id)


def requests_of(employee: Employee) -> Call:
    return call("list_access_requests", employee_id=employee.id)


def devices_of(employee: Employee) -> Call:
    return call("list_devices", employee_id=employee.id)


def employee_facts(
    employee: Employee | SeededEmployee, date_of_birth: str | None = None, **facts: str
) -> dict[str, str]:
    """What a calling employee can tell the desk, for `User.knows`: their employee number and date of birth (their
    own, unless another is given for a caller who fails verification), then the task's own facts."""
    return {
        "employee number": employee.id,
        "date of birth": date_of_birth or employee.date_of_birth.isoformat(),
        **facts,
    }


# --------------------------------------------------------------------------- the decision


@dataclass(frozen=True)
class Payee:
    """Who a customer sends money to, as they tell it: the beneficiary's name and IBAN and the reference."""

    name: str
    iban: str
    reference: str


def payee_facts(payee: Payee) -> dict[str, str]:
    """What a caller tells about a transfer's beneficiary, for `User.knows`."""
    return {"beneficiary name": payee.name, "IBAN": payee.iban, "reference": payee.reference}


def create_transfer(account: Account, payee: Payee, amount_cents: int, held: bool) -> Call:
    """Send `amount_cents` from `account` to `payee`: at once (NB-22), or `held` for review above a KYC limit (NB-23);
    never split (NB-5)."""
    return call(
        "create_transfer",
        account_id=account.id,
        beneficiary_name=payee.name,
        beneficiary_iban=payee.iban,
        amount_cents=amount_cents,
        reference=payee.reference,
        hold_for_review=held,
    )


def block_and_replace(card: Card, reason: str, fee_cents: int) -> list[Call]:
    """Block `card` for good (`reason`: lost, stolen, damaged, fraud) and order its replacement, charging the fee the
    policy gives for that reason and the customer's level."""
    return [
        call("block_card", card_id=card.id, reason=reason),
        call("order_replacement_card", card_id=card.id, fee_cents=fee_cents),
    ]


def move_money(source: Account, target: Account, amount_cents: int, fee_cents: int) -> Call:
    """Move money between the customer's own accounts, with the savings withdrawal fee NB-26 and NB-27 give."""
    return call(
        "transfer_between_accounts",
        from_account_id=source.id,
        to_account_id=target.id,
        amount_cents=amount_cents,
        fee_cents=fee_cents,
    )


def open_dispute(transaction: Transaction, reason: str, amount_cents: int, description: str) -> Call:
    """Dispute a card payment for `reason` with the amount NB-50 gives (unauthorised, not_received, incorrect_amount,
    duplicate_charge)."""
    return call(
        "open_dispute",
        transaction_id=transaction.id,
        reason=reason,
        amount_cents=amount_cents,
        description=description,
    )


def create_ticket(requester: Customer | Employee, subject: str, category: str, account: Account | None = None) -> Call:
    """Open the conversation's ticket when the caller has no new or open one (NB-3, NB-104): the caller as the
    requester, the category the policy gives, and the account the request concerns, if one."""
    where = {"account_id": account.id} if account is not None else {}
    return call("create_ticket", requester_id=requester.id, subject=subject, category=category, **where)


def grant_access(employee: Employee, role_id: str, **terms: str) -> Call:
    """Give `employee` the role `role_id`; `terms` are the grant's kind, expiry (`expires_on`, ISO date) and the
    request it fulfils (`request_id`)."""
    return call("grant_access", employee_id=employee.id, role_id=role_id, **terms)


def replace_lost_device(device: Device, spare: Device, employee: Employee) -> list[Call]:
    """A lost token or phone (NB-138): report `device` lost, look at the stock of its kind and hand `employee` the
    `spare` (the lowest id in stock)."""
    return [
        call("report_device_lost", device_id=device.id),
        call("list_device_stock", kind=device.kind),
        call("assign_device", device_id=spare.id, employee_id=employee.id),
    ]


# --------------------------------------------------------------------------- how the ticket ends


def _with_reason(
    ticket_id: str,
    status: str,
    category: str | None,
    reason: str,
    note: str,
    *,
    queue: str | None = None,
    priority: str | None = None,
) -> list[Call]:
    """The ticket left `status` with a reason code, and the one internal comment such a ticket carries (NB-99): what
    was refused or what we wait for; the `queue` and `priority` where the ending sets them."""
    fields = {"priority": priority, "category": category, "reason": reason, "queue": queue}
    return [ticket_update(ticket_id, status, **fields), internal_note(ticket_id, note)]


def solved(ticket_id: str, category: str | None = None, *, priority: str | None = None) -> Call:
    """The ticket solved: every request was done (NB-93). No category when the ticket was created with it."""
    return ticket_update(ticket_id, "solved", priority=priority, category=category)


def refused(ticket_id: str, category: str | None, reason: str, note: str, *, priority: str | None = None) -> list[Call]:
    """The ticket solved with the reason code of a refused request, and an internal comment saying what was refused
    and why."""
    return _with_reason(ticket_id, "solved", category, reason, note, priority=priority)


def pending(ticket_id: str, category: str | None, reason: str, note: str, **team: str | None) -> list[Call]:
    """The ticket pending, waiting for the caller (NB-94: identity, a record not theirs, source-of-funds documents),
    with an internal comment saying for what; `team`: its `queue` and `priority`, where it sets them."""
    return _with_reason(ticket_id, "pending", category, reason, note, **team)


def hold(ticket_id: str, category: str | None, reason: str, note: str, **team: str | None) -> list[Call]:
    """The ticket on hold, waiting for another team or an approval (NB-95), with an internal comment saying what we
    wait for; `team`: its `queue` and `priority`, where it sets them."""
    return _with_reason(ticket_id, "hold", category, reason, note, **team)


# --------------------------------------------------------------------------- ids a create call gives


def next_ticket_id(*existing: str) -> str:
    """The id `create_ticket` gives a new ticket when the tickets `existing` are all there are."""
    return new_id("T-", *existing)


def next_fee_id(*existing: str) -> str:
    """The id a write that charges a fee gives it when the fees `existing` are all there are (not zero-padded)."""
    return new_id("FE-", *existing, digits=1)


# --------------------------------------------------------------------------- reading the end state a task asserts


def ticket_end(db: Session, ticket_id: str) -> tuple[str, str | None, str | None]:
    """How a customer desk ticket was left: (status, category, reason)."""
    t = db.get(Ticket, ticket_id)
    assert t is not None, f"no ticket {ticket_id}"
    return t.status, t.category, t.reason


def active_grants(db: Session, employee_id: str) -> dict[str, AccessGrant]:
    """The active grants of an employee, by role."""
    rows = db.query(AccessGrant).filter(AccessGrant.employee_id == employee_id, AccessGrant.status == "active")
    return {g.role_id: g for g in rows}


def active_roles(db: Session, employee_id: str) -> set[str]:
    """The roles an employee holds now."""
    return set(active_grants(db, employee_id))


def new_grant(db: Session, employee_id: str, role_id: str) -> AccessGrant:
    """The one active grant of a role to an employee."""
    return (
        db.query(AccessGrant)
        .filter(AccessGrant.employee_id == employee_id, AccessGrant.role_id == role_id, AccessGrant.status == "active")
        .one()
    )


def devices_held(db: Session, employee_id: str) -> set[str]:
    """The ids of the devices assigned to an employee now."""
    rows = db.query(Device).filter(Device.assigned_to_id == employee_id, Device.status == "assigned")
    return {d.id for d in rows}
