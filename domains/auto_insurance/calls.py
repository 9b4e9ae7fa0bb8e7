"""Golden-path building blocks the auto insurance tasks share.

A task's golden calls read as its decision: `opening` for what every
conversation starts with (identify and verify the caller, read the records the
request is about, look for their ticket; `opening_listed` when the caller gives
no policy number, `unverified` when verification fails), the calls of the
decision itself (`add_vehicle` and `id_card`, `remove_vehicle`,
`remove_driver`, `file_claim`, `rental_days`, `extension`,
`cancel_at_request`, `cancellation_refund`, `vehicle_credit`, `rescind`,
`reinstate`, ...), then how the ticket ends (`solved`, `pending`, `hold`).
`policyholder_facts` is what a caller can tell the agent, and `new_id` the id
a create tool gives. At the end, readers of the end state the tasks assert on
(`premium_adjustments`, `removal`).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from domains.shared.calls import internal_note, ticket_update, verified
from domains.shared.calls import new_id as new_id  # re-exported for the tasks, as is `solved`
from domains.shared.calls import solved as solved
from domains.shared.identity import caller_facts
from pytest_thinkingbox import Call, call

from .models import Bill, BillingAccount, Claim, Customer, Driver, LicenceRecord, Policy, PremiumAdjustment, Vehicle

# AI-102: the team a held ticket goes to, by the reason it waits. Restated from the policy rather than taken from
# rules.HOLD_QUEUES, so that the golden path does not lean on the rules it is checked against.
QUEUES = {
    "major_claim": "claims",
    "open_major_claim": "claims",
    "underwriting_review": "underwriting",
    "payment_dispute": "billing",
}


def identify(customer: Customer, date_of_birth: str | None = None) -> list[Call]:
    """Find the caller by email and verify them with the date of birth and postal code they give (AI-7, AI-8): their
    own date of birth unless another is given, for a caller who fails verification."""
    return verified(customer, date_of_birth)


def opening(customer: Customer, policy: Policy, *reads: Call) -> list[Call]:
    """How a conversation about `policy` starts (AI-2, AI-3): identify the policyholder, read the policy, then the
    other records the request is about (`reads`), then look for the customer's ticket."""
    return [
        *identify(customer),
        call("get_policy", policy_id=policy.id),
        *reads,
        call("list_tickets", requester_id=customer.id),
    ]


def opening_listed(customer: Customer, policy: Policy, *reads: Call) -> list[Call]:
    """`opening` for a caller who gives no policy number: identify them, list their policies, read the one the
    request is about and the other records (`reads`), then look for their ticket."""
    return [
        *identify(customer),
        call("list_customer_policies", customer_id=customer.id),
        call("get_policy", policy_id=policy.id),
        *reads,
        call("list_tickets", requester_id=customer.id),
    ]


def unverified(customer: Customer, date_of_birth: str, ticket_id: str, category: str, note: str) -> list[Call]:
    """A caller who gives the wrong date of birth (AI-9): look for their ticket, change nothing, and leave it
    pending for them with the reason `identity_not_verified`."""
    return [
        *identify(customer, date_of_birth),
        call("list_tickets", requester_id=customer.id),
        *pending(ticket_id, category, "identity_not_verified", note=note),
    ]


def policy_claims(policy: Policy) -> Call:
    """Read the claims filed on a policy."""
    return call("list_policy_claims", policy_id=policy.id)


def billing_account(policy: Policy) -> Call:
    """Read a policy's billing account."""
    return call("get_billing_account", policy_id=policy.id)


def bills_of(account: BillingAccount) -> Call:
    """List the bills of a billing account."""
    return call("list_bills", billing_account_id=account.id)


def payments_of(account: BillingAccount) -> Call:
    """List the payments received on a billing account."""
    return call("list_payments", billing_account_id=account.id)


def claim_payments(claim: Claim) -> Call:
    """List the payments already made on a claim."""
    return call("list_claim_payments", claim_id=claim.id)


def decode_vin(vin: str) -> Call:
    """Check and decode the VIN the customer reads out (AI-18)."""
    return call("decode_vin", vin=vin)


def state_requirements(state: str) -> Call:
    """Read a state's minimum limits, full-glass rule and cancellation fee."""
    return call("get_state_requirements", state=state)


def claim_record(claim: Claim) -> list[Call]:
    """Read a claim and the payments already made on it."""
    return [call("get_claim", claim_id=claim.id), claim_payments(claim)]


def check_licence(licence: LicenceRecord) -> Call:
    """Look up the licence the customer gives on the licensing state's record (AI-11)."""
    return call("check_licence", licence_number=licence.licence_number, licence_state=licence.licence_state)


def add_driver(policy: Policy, licence: LicenceRecord, relation: str, effective_on: str) -> Call:
    """List the holder of a valid licence on `policy` (AI-11, AI-12): the name, date of birth and licence of the
    state's record, the relation the customer gives, from `effective_on`."""
    return call(
        "add_driver",
        policy_id=policy.id,
        full_name=licence.holder_name,
        date_of_birth=licence.date_of_birth.isoformat(),
        licence_number=licence.licence_number,
        licence_state=licence.licence_state,
        relation_to_insured=relation,
        effective_on=effective_on,
    )


def remove_vehicle(policy: Policy, vehicle: Vehicle, removed_on: Any) -> Call:
    """Take `vehicle` off `policy` from `removed_on` (AI-26 sets the date)."""
    return call("remove_vehicle", policy_id=policy.id, vehicle_id=vehicle.id, removed_on=removed_on)


def remove_driver(policy: Policy, driver: Driver, removed_on: Any) -> Call:
    """Take `driver` off `policy` from `removed_on` (AI-30: from today)."""
    return call("remove_driver", policy_id=policy.id, driver_id=driver.id, removed_on=removed_on)


def quote_unearned(policy: Policy, from_date: Any, vehicle: Vehicle | None = None) -> Call:
    """Quote the unearned premium of `policy` from `from_date`, or only `vehicle`'s own share of it."""
    if vehicle is None:
        return call("quote_unearned_premium", policy_id=policy.id, from_date=from_date)
    return call("quote_unearned_premium", policy_id=policy.id, from_date=from_date, vehicle_id=vehicle.id)


def _premium_credit(policy: Policy, kind: str, amount_cents: Any, effective_on: Any, **vehicle: str) -> Call:
    return call(
        "apply_premium_credit",
        policy_id=policy.id,
        kind=kind,
        amount_cents=amount_cents,
        effective_on=effective_on,
        **vehicle,
    )


def vehicle_credit(policy: Policy, vehicle: Vehicle, amount_cents: Any, effective_on: Any) -> Call:
    """Credit a removed vehicle's unearned premium from `effective_on` (AI-29, AI-86, AI-87)."""
    return _premium_credit(policy, "vehicle_removal_credit", amount_cents, effective_on, vehicle_id=vehicle.id)


def removal_credit(policy: Policy, vehicle: Vehicle, removed_on: str, amount_cents: int) -> list[Call]:
    """Take `vehicle` off `policy` from `removed_on`, quote its own unearned premium from that day and credit it
    (AI-86, AI-87)."""
    return [
        remove_vehicle(policy, vehicle, removed_on),
        quote_unearned(policy, removed_on, vehicle),
        vehicle_credit(policy, vehicle, amount_cents, removed_on),
    ]


def cancel_at_request(policy: Policy, effective_on: Any) -> Call:
    """Cancel `policy` at the customer's request from `effective_on` (AI-65)."""
    return call("schedule_cancellation", policy_id=policy.id, effective_on=effective_on, reason="customer_request")


def cancellation_refund(policy: Policy, amount_cents: Any, effective_on: Any) -> Call:
    """Refund the unearned premium of a policy cancelled at the customer's request from `effective_on`, less the
    state's fee."""
    return _premium_credit(policy, "cancellation_refund", amount_cents, effective_on)


def rescind(policy: Policy) -> list[Call]:
    """Withdraw `policy`'s scheduled cancellation and send the rescission notice (AI-62)."""
    return [
        call("rescind_cancellation", policy_id=policy.id),
        call("send_document", policy_id=policy.id, kind="cancellation_rescission_notice"),
    ]


def reinstate(policy: Policy) -> list[Call]:
    """Reinstate a cancelled `policy` and send the reinstatement notice (AI-68)."""
    return [
        call("reinstate_policy", policy_id=policy.id),
        call("send_document", policy_id=policy.id, kind="reinstatement_notice"),
    ]


def add_vehicle(policy: Policy, vin: str, year: int, make: str, model: str, **dates: Any) -> Call:
    """Add a vehicle to `policy` (AI-18 to AI-24): `dates` are its `acquired_on` and `effective_on`."""
    return call("add_vehicle", policy_id=policy.id, vin=vin, year=year, make=make, model=model, **dates)


def id_card(policy: Policy, vehicle_id: str) -> Call:
    """Send the insurance ID card of a vehicle added to `policy` (AI-25)."""
    return call("send_document", policy_id=policy.id, kind="insurance_id_card", vehicle_id=vehicle_id)


def liability_limits(policy: Policy, limit_cents: int, limit_per_accident_cents: int) -> Call:
    """Change the bodily injury liability limits of `policy`: per person and per accident."""
    return call(
        "update_coverage",
        policy_id=policy.id,
        coverage="bodily_injury_liability",
        limit_cents=limit_cents,
        limit_per_accident_cents=limit_per_accident_cents,
    )


def file_claim(policy: Policy, vehicle_id: str, **loss: Any) -> Call:
    """File the first notice of a loss on `policy`'s vehicle (AI-72 to AI-76): `loss` is what `file_claim` takes
    beside them, in its order (date, type, injuries, drivable, severity, description, then the estimate and the
    driver when the customer gives them)."""
    return call("file_claim", policy_id=policy.id, vehicle_id=vehicle_id, **loss)


def rental_days(claim: Claim, amount_cents: Any, days: Any) -> Call:
    """Pay `days` of rental reimbursement on `claim`."""
    return call(
        "issue_claim_payment", claim_id=claim.id, kind="rental_reimbursement", amount_cents=amount_cents, days=days
    )


def extension(bill: Bill, new_due_on: Any) -> Call:
    """Move `bill`'s due date to `new_due_on` (AI-54)."""
    return call("grant_payment_extension", bill_id=bill.id, new_due_on=new_due_on)


def policyholder_facts(
    customer: Customer, policy: Policy, date_of_birth: str | None = None, **facts: str
) -> dict[str, str]:
    """What a calling policyholder can tell the agent, for `User.knows`: their email, date of birth and postal code,
    the number of the policy they call about, then the task's own facts."""
    return caller_facts(customer, date_of_birth, **{"policy number": policy.id, **facts})


def driver_facts(licence: LicenceRecord) -> dict[str, str]:
    """What a caller tells about a driver to add, for `User.knows`: the name, date of birth and licence as the
    state's record has them."""
    return {
        "driver's full name": licence.holder_name,
        "driver's date of birth": licence.date_of_birth.isoformat(),
        "licence number": licence.licence_number,
        "licence state": licence.licence_state,
    }


def create_ticket(customer: Customer, policy: Policy, subject: str, category: str) -> Call:
    """Open the conversation's ticket when the customer has no new or open one (AI-3)."""
    return call("create_ticket", requester_id=customer.id, subject=subject, category=category, policy_id=policy.id)


# `solved` (AI-94) is domains/shared/calls.py's.


def pending(ticket_id: str, category: str, reason: str, note: str) -> list[Call]:
    """The ticket pending, waiting for the customer (AI-95), with one internal comment saying for what (AI-104)."""
    return [
        ticket_update(ticket_id, "pending", category=category, reason=reason),
        internal_note(ticket_id, note),
    ]


def hold(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket on hold for the team its reason goes to (AI-96, AI-102), priority high (AI-98), with one internal
    comment saying what we wait for (AI-104); no category when the ticket was created with it."""
    return [
        ticket_update(ticket_id, "hold", priority="high", category=category, reason=reason, queue=QUEUES[reason]),
        internal_note(ticket_id, note),
    ]


# --- Reading the end state --------------------------------------------------------------------------------------------


def premium_adjustments(db: Session, policy_id: str) -> list[tuple[Any, ...]]:
    """The credits made on a policy, in order: kind, vehicle, effective date, amount, applied to the balance,
    refunded."""
    rows = db.query(PremiumAdjustment).filter_by(policy_id=policy_id).order_by(PremiumAdjustment.id).all()
    return [
        (a.kind, a.vehicle_id, a.effective_on, a.amount_cents, a.applied_to_balance_cents, a.refunded_cents)
        for a in rows
    ]


def removal(db: Session, row: Vehicle | Driver) -> tuple[str, date | None]:
    """A vehicle's or a driver's status and removal date at the end of the attempt."""
    now = db.get(Vehicle, row.id) if isinstance(row, Vehicle) else db.get(Driver, row.id)
    assert now is not None, f"{row.id} is gone from the database"
    return now.status, now.removed_on
