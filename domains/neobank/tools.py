"""The neobank support desk's tools, as an agent sees them, and those of the bank's internal help desk
(employees, system access, approvals, devices).

Reads return plain dicts; writes validate their arguments and the preconditions
the call itself would break (an unknown id, a card in the wrong state, more money
than is available, an invalid IBAN, a security lock), and otherwise do what they
are told: whether a transfer is held, a fee refunded, a dispute opened or an
account closed is the policy's question, answered by the agent. Every time comes
from the domain clock and every new id from the rows present.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domains.shared.arguments import iso_date
from domains.shared.identity import register_identity
from domains.shared.policy_search import register_policy_search
from domains.shared.tickets import register_ticket_tools
from pytest_thinkingbox import (
    CONFLICT,
    INVALID_ARGUMENT,
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
    AccessGrant,
    AccessRequest,
    Account,
    AlertResolution,
    BlockReason,
    Card,
    Customer,
    Device,
    DeviceKind,
    Dispute,
    DisputeReason,
    Employee,
    Fee,
    FeeRefund,
    FeeRefundReason,
    FraudAlert,
    GrantKind,
    Hold,
    Incident,
    InternalSystem,
    LockReason,
    RejectReason,
    ReturnCondition,
    RevokeReason,
    ScheduledPayment,
    SystemRole,
    Ticket,
    TicketComment,
    Transaction,
    Transfer,
)

tools = ToolSet("neobank")

POLICY_PATH = Path(__file__).with_name("policy.md")

MIN_CARD_LIMIT_CENTS = 1_000
MAX_CARD_LIMIT_CENTS = 1_000_000  # the card network's ceiling; the KYC level's maximum is the policy's rule
MAX_FEE_CENTS = 5_000


# --------------------------------------------------------------------------- helpers


def _customer(db: Session, customer_id: str) -> Customer:
    return get_or_fail(db, Customer, customer_id, "customer")


def _account(db: Session, account_id: str) -> Account:
    return get_or_fail(db, Account, account_id, "account")


def _card(db: Session, card_id: str) -> Card:
    return get_or_fail(db, Card, card_id, "card")


def _held(account: Account) -> int:
    return sum(h.amount_cents for h in account.holds if h.status == "active")


def _available(account: Account) -> int:
    return account.balance_cents - _held(account)


def _account_view(account: Account) -> dict:
    held = _held(account)
    return {**row_dict(account), "held_cents": held, "available_cents": account.balance_cents - held}


def _open_account(account: Account) -> None:
    if account.status != "open":
        raise ToolFailure(PRECONDITION_FAILED, f"account {account.id} is {account.status}")


def _not_locked(customer: Customer, what: str) -> None:
    if customer.security_locked:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"customer {customer.id} is under a security lock ({customer.security_lock_reason}); {what} is blocked "
            "until the security team lifts it",
        )


def _book(db: Session, account: Account, kind: str, direction: str, amount_cents: int, description: str) -> Transaction:
    """Post a booking on an account now and move its balance."""
    txn = Transaction(
        id=next_id(db, Transaction, "TX-"),
        account_id=account.id,
        kind=kind,
        direction=direction,
        amount_cents=amount_cents,
        description=description,
        status="posted",
        booked_at=NOW,
    )
    db.add(txn)
    account.balance_cents += amount_cents if direction == "credit" else -amount_cents
    db.flush()
    return txn


def _charge_fee(
    db: Session, account: Account, kind: str, amount_cents: int, description: str, card_id: str | None = None
) -> Fee:
    txn = _book(db, account, "fee", "debit", amount_cents, description)
    fee = Fee(
        id=next_id(db, Fee, "FE-"),
        account_id=account.id,
        kind=kind,
        amount_cents=amount_cents,
        description=description,
        charged_at=NOW,
        transaction_id=txn.id,
        card_id=card_id,
    )
    db.add(fee)
    db.flush()
    return fee


def normalise_iban(iban: str) -> str:
    return re.sub(r"\s+", "", iban).upper()


def iban_is_valid(iban: str) -> bool:
    """Whether an IBAN (spaces allowed) has a valid shape and ISO 7064 mod-97 check digits."""
    value = normalise_iban(iban)
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", value):
        return False
    digits = "".join(str(int(ch, 36)) for ch in value[4:] + value[:4])
    return int(digits) % 97 == 1


def _amount(amount_cents: int) -> None:
    if amount_cents <= 0:
        raise ToolFailure(INVALID_ARGUMENT, "amount_cents must be a positive number of cents")


def _card_view(db: Session, card: Card) -> dict:
    replaced_by = db.scalars(select(Card.id).where(Card.replaces_card_id == card.id)).first()
    view = {**row_dict(card), "replaced_by_card_id": replaced_by}
    if card.status == "frozen" and card.frozen_at is not None:
        view["days_frozen"] = (TODAY - card.frozen_at.date()).days
    return view


def _dispute_view(dispute: Dispute) -> dict:
    txn = dispute.transaction
    return {
        **row_dict(dispute, "description"),
        "account_id": txn.account_id,
        "transaction_description": txn.description,
        "transaction_amount_cents": txn.amount_cents,
        "transaction_booked_at": txn.booked_at.isoformat(),
    }


# --------------------------------------------------------------------------- reads: customer and accounts


@tools.read
def get_customer(db: Session, customer_id: str) -> dict:
    """A customer's profile: name, contact details, KYC level with its transfer limits and highest card daily
    limit, when they joined, whether a security lock is set, and the ids of their accounts."""
    customer = _customer(db, customer_id)
    return {
        **row_dict(customer, "date_of_birth", "postal_code"),
        "kyc_limits": row_dict(customer.kyc),
        "account_ids": [a.id for a in customer.accounts],
    }


@tools.read
def list_accounts(db: Session, customer_id: str) -> list[dict]:
    """All accounts of a customer (current and savings, open and closed) with IBAN, balance, the amount reserved
    by active holds (held_cents) and the available balance (balance minus holds)."""
    customer = _customer(db, customer_id)
    return [_account_view(a) for a in customer.accounts]


@tools.read
def get_account(db: Session, account_id: str) -> dict:
    """One account: balance, held and available amounts, its active holds (card authorisations, transfers under
    review ...), the cards attached to it and its number of active scheduled payments."""
    account = _account(db, account_id)
    cards = rows_where(db, Card.account_id, account_id)
    scheduled = db.scalar(
        select(func.count())
        .select_from(ScheduledPayment)
        .where(ScheduledPayment.account_id == account_id, ScheduledPayment.status == "active")
    )
    return {
        **_account_view(account),
        "active_holds": [row_dict(h) for h in account.holds if h.status == "active"],
        "cards": [{"id": c.id, "kind": c.kind, "last4": c.last4, "status": c.status} for c in cards],
        "active_scheduled_payments": scheduled,
    }


@tools.read
def list_transactions(db: Session, account_id: str, limit: int = 50) -> dict:
    """The bookings on an account, newest first (at most `limit`): kind (card_payment, atm_withdrawal,
    transfer_in, transfer_out, fee, fee_refund, interest, card_refund), debit or credit, amount, description,
    status (pending or posted), booked_at, the card used, and the id of any dispute on it."""
    _account(db, account_id)
    if not 1 <= limit <= 200:
        raise ToolFailure(INVALID_ARGUMENT, "limit must be between 1 and 200")
    rows = db.scalars(
        select(Transaction)
        .where(Transaction.account_id == account_id)
        .order_by(Transaction.booked_at.desc(), Transaction.id.desc())
        .limit(limit)
    ).all()
    disputed = dict(
        db.execute(
            select(Dispute.transaction_id, Dispute.id).where(Dispute.transaction_id.in_([t.id for t in rows]))
        ).all()
    )
    return {
        "account_id": account_id,
        "transactions": [{**row_dict(t), "dispute_id": disputed.get(t.id)} for t in rows],
    }


@tools.read
def get_transaction(db: Session, transaction_id: str) -> dict:
    """One booking in detail: account and its owner (customer_id), card used, amount, description, status,
    booked_at, how many days ago it was booked, and the disputes filed on it."""
    txn = get_or_fail(db, Transaction, transaction_id, "transaction")
    disputes = rows_where(db, Dispute.transaction_id, transaction_id)
    return {
        **row_dict(txn),
        "customer_id": txn.account.customer_id,
        "days_since_booked": (TODAY - txn.booked_at.date()).days,
        "disputes": [row_dict(d, "description") for d in disputes],
    }


@tools.read
def list_transfers(db: Session, account_id: str) -> list[dict]:
    """Outgoing transfers to other banks from an account, newest first: beneficiary, IBAN, amount, reference,
    status (completed, held, rejected, cancelled), when created and when executed."""
    _account(db, account_id)
    rows = db.scalars(
        select(Transfer).where(Transfer.account_id == account_id).order_by(Transfer.created_at.desc(), Transfer.id)
    ).all()
    return [row_dict(t) for t in rows]


@tools.read
def list_scheduled_payments(db: Session, account_id: str) -> list[dict]:
    """Scheduled and standing payments of an account: payee, amount, frequency (once, weekly, monthly), the date
    of the next run (next_run_on) and status (active, cancelled, completed)."""
    _account(db, account_id)
    rows = rows_where(db, ScheduledPayment.account_id, account_id)
    return [row_dict(s) for s in rows]


# --------------------------------------------------------------------------- reads: cards, disputes, fees, fraud


@tools.read
def list_cards(db: Session, customer_id: str) -> list[dict]:
    """All cards of a customer: kind (physical, virtual), last 4 digits, account, status (ordered, active, frozen,
    blocked, cancelled), daily spending limit, when frozen or blocked and why, and which card it replaces."""
    _customer(db, customer_id)
    cards = rows_where(db, Card.customer_id, customer_id)
    return [_card_view(db, c) for c in cards]


@tools.read
def get_card(db: Session, card_id: str) -> dict:
    """One card: owner (customer_id), account, status, daily limit, expiry, frozen_at and days frozen, blocked_at
    and block_reason, the card it replaces and the card that replaced it."""
    return _card_view(db, _card(db, card_id))


@tools.read
def list_disputes(db: Session, customer_id: str) -> list[dict]:
    """Every card dispute of a customer, newest first: the payment disputed (account, description, amount, booked
    date), reason, amount disputed and status (open, won, lost, withdrawn)."""
    _customer(db, customer_id)
    rows = db.scalars(
        select(Dispute).where(Dispute.customer_id == customer_id).order_by(Dispute.opened_at.desc(), Dispute.id)
    ).all()
    return [_dispute_view(d) for d in rows]


@tools.read
def list_fees(db: Session, customer_id: str) -> dict:
    """Every fee charged on a customer's accounts, newest first (kind, amount, account, card concerned, when
    charged, and its refund if any), and every fee refund the customer has received (reason goodwill or
    charged_in_error, with its date)."""
    customer = _customer(db, customer_id)
    account_ids = [a.id for a in customer.accounts]
    fees = db.scalars(select(Fee).where(Fee.account_id.in_(account_ids)).order_by(Fee.charged_at.desc(), Fee.id)).all()
    refunds = db.scalars(
        select(FeeRefund).where(FeeRefund.customer_id == customer_id).order_by(FeeRefund.created_at.desc())
    ).all()
    by_fee = {r.fee_id: r for r in refunds}
    return {
        "fees": [
            {
                **row_dict(f),
                "days_since_charged": (TODAY - f.charged_at.date()).days,
                "refund_id": by_fee[f.id].id if f.id in by_fee else None,
            }
            for f in fees
        ],
        "fee_refunds": [{**row_dict(r), "days_since_refunded": (TODAY - r.created_at.date()).days} for r in refunds],
    }


@tools.read
def list_fraud_alerts(db: Session, customer_id: str) -> list[dict]:
    """Fraud-monitoring alerts on a customer, newest first: risk level (low, medium, high), status (open, cleared,
    confirmed_fraud), what was flagged, and the card and payment concerned (description, amount, booked_at)."""
    _customer(db, customer_id)
    rows = db.scalars(
        select(FraudAlert).where(FraudAlert.customer_id == customer_id).order_by(FraudAlert.raised_at.desc())
    ).all()
    views = []
    for alert in rows:
        view = row_dict(alert)
        if alert.transaction is not None:
            view["transaction"] = {
                "description": alert.transaction.description,
                "amount_cents": alert.transaction.amount_cents,
                "booked_at": alert.transaction.booked_at.isoformat(),
                "card_id": alert.transaction.card_id,
            }
        views.append(view)
    return views


# --------------------------------------------------------------------------- writes: cards


@tools.write
def freeze_card(db: Session, card_id: str) -> dict:
    """Freeze an active card temporarily: payments and withdrawals are declined until it is unfrozen. The card
    keeps its number. Returns the card."""
    card = _card(db, card_id)
    if card.status == "frozen":
        assert card.frozen_at is not None, f"card {card_id} is frozen but has no frozen_at"
        raise ToolFailure(CONFLICT, f"card {card_id} is already frozen (since {card.frozen_at.isoformat()})")
    if card.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"card {card_id} is {card.status}; only an active card can be frozen")
    card.status = "frozen"
    card.frozen_at = NOW
    db.flush()
    return _card_view(db, card)


@tools.write
def unfreeze_card(db: Session, card_id: str) -> dict:
    """Unfreeze a frozen card so it works again. Check the policy on fraud alerts first. Returns the card."""
    card = _card(db, card_id)
    if card.status != "frozen":
        raise ToolFailure(PRECONDITION_FAILED, f"card {card_id} is {card.status}; only a frozen card can be unfrozen")
    _not_locked(card.customer, "unfreezing a card")
    card.status = "active"
    card.frozen_at = None
    db.flush()
    return _card_view(db, card)


@tools.write
def block_card(db: Session, card_id: str, reason: BlockReason) -> dict:
    """Block a card permanently (reason lost, stolen, fraud or damaged). A blocked card can never be used or
    unfrozen again; order a replacement with order_replacement_card. Returns the card."""
    card = _card(db, card_id)
    if card.status == "blocked":
        raise ToolFailure(CONFLICT, f"card {card_id} is already blocked ({card.block_reason})")
    if card.status not in ("active", "frozen", "ordered"):
        raise ToolFailure(PRECONDITION_FAILED, f"card {card_id} is {card.status}; it cannot be blocked")
    card.status = "blocked"
    card.blocked_at = NOW
    card.block_reason = reason
    card.frozen_at = None
    db.flush()
    return _card_view(db, card)


@tools.write
def order_replacement_card(db: Session, card_id: str, fee_cents: int) -> dict:
    """Order a new physical card to replace a blocked card, on the same account with the same daily limit, sent to
    the customer's address. fee_cents is the replacement fee the policy sets (0 when free); it is charged to the
    account. Returns the new card and the fee charged."""
    card = _card(db, card_id)
    if card.status != "blocked":
        raise ToolFailure(
            PRECONDITION_FAILED, f"card {card_id} is {card.status}; block it before ordering a replacement"
        )
    if db.scalars(select(Card).where(Card.replaces_card_id == card_id)).first() is not None:
        raise ToolFailure(CONFLICT, f"a replacement for card {card_id} has already been ordered")
    if not 0 <= fee_cents <= MAX_FEE_CENTS:
        raise ToolFailure(INVALID_ARGUMENT, f"fee_cents must be between 0 and {MAX_FEE_CENTS}")
    account = card.account
    _open_account(account)
    if fee_cents > _available(account):
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"account {account.id} has {_available(account)} cents available; the fee cannot be paid",
        )
    new_id = next_id(db, Card, "CD-")
    new = Card(
        id=new_id,
        customer_id=card.customer_id,
        account_id=card.account_id,
        kind="physical",
        last4=f"{int(new_id.split('-')[1]) * 7919 % 10_000:04d}",
        status="ordered",
        daily_limit_cents=card.daily_limit_cents,
        expires_on=date(TODAY.year + 4, TODAY.month, 28),
        issued_at=NOW,
        replaces_card_id=card_id,
    )
    db.add(new)
    db.flush()
    fee = None
    if fee_cents:
        fee = _charge_fee(
            db, account, "card_replacement", fee_cents, f"Replacement card for card *{card.last4}", card_id
        )
    return {**_card_view(db, new), "fee": row_dict(fee) if fee else None}


@tools.write
def set_card_limit(db: Session, card_id: str, daily_limit_cents: int) -> dict:
    """Set a card's daily spending limit in cents. Check the highest limit the customer's KYC level allows in the
    policy first. Returns the card."""
    card = _card(db, card_id)
    if card.status not in ("active", "frozen", "ordered"):
        raise ToolFailure(PRECONDITION_FAILED, f"card {card_id} is {card.status}; its limit cannot change")
    if not MIN_CARD_LIMIT_CENTS <= daily_limit_cents <= MAX_CARD_LIMIT_CENTS:
        raise ToolFailure(
            INVALID_ARGUMENT,
            f"daily_limit_cents must be between {MIN_CARD_LIMIT_CENTS} and {MAX_CARD_LIMIT_CENTS}",
        )
    _not_locked(card.customer, "changing a card limit")
    card.daily_limit_cents = daily_limit_cents
    db.flush()
    return _card_view(db, card)


# --------------------------------------------------------------------------- writes: money movements


@tools.write
def create_transfer(
    db: Session,
    account_id: str,
    beneficiary_name: str,
    beneficiary_iban: str,
    amount_cents: int,
    reference: str = "",
    hold_for_review: bool = False,
) -> dict:
    """Send a SEPA transfer from a current account to another bank's account. With hold_for_review false it is
    executed now (status completed, the balance goes down). With hold_for_review true it is created with status
    held and its amount is reserved on the account until compliance releases it. Check the KYC limits in the
    policy first. Returns the transfer."""
    account = _account(db, account_id)
    _open_account(account)
    if account.kind != "current":
        raise ToolFailure(
            PRECONDITION_FAILED, f"account {account_id} is a {account.kind} account; transfers leave from a current one"
        )
    _amount(amount_cents)
    if not beneficiary_name.strip():
        raise ToolFailure(INVALID_ARGUMENT, "beneficiary_name is required")
    if not iban_is_valid(beneficiary_iban):
        raise ToolFailure(INVALID_ARGUMENT, f"{beneficiary_iban!r} is not a valid IBAN")
    iban = normalise_iban(beneficiary_iban)
    if any(a.iban == iban for a in account.customer.accounts):
        raise ToolFailure(
            INVALID_ARGUMENT, "that IBAN is one of the customer's own accounts; use transfer_between_accounts"
        )
    _not_locked(account.customer, "sending money")
    if amount_cents > _available(account):
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"account {account_id} has {_available(account)} cents available; {amount_cents} cannot be sent",
        )
    transfer = Transfer(
        id=next_id(db, Transfer, "TR-"),
        account_id=account_id,
        beneficiary_name=beneficiary_name.strip(),
        beneficiary_iban=iban,
        amount_cents=amount_cents,
        reference=reference.strip(),
        status="held" if hold_for_review else "completed",
        created_at=NOW,
    )
    db.add(transfer)
    db.flush()
    if hold_for_review:
        db.add(
            Hold(
                id=next_id(db, Hold, "HD-"),
                account_id=account_id,
                amount_cents=amount_cents,
                reason="transfer_review",
                description=f"Transfer {transfer.id} to {transfer.beneficiary_name} under review",
                status="active",
                placed_at=NOW,
                transfer_id=transfer.id,
            )
        )
    else:
        txn = _book(db, account, "transfer_out", "debit", amount_cents, f"Transfer to {transfer.beneficiary_name}")
        transfer.executed_at = NOW
        transfer.transaction_id = txn.id
    db.flush()
    return {**row_dict(transfer), "account": _account_view(account)}


@tools.write
def transfer_between_accounts(
    db: Session, from_account_id: str, to_account_id: str, amount_cents: int, fee_cents: int = 0
) -> dict:
    """Move money between two open accounts of the same customer (for example a withdrawal from savings to the
    current account). fee_cents is a withdrawal fee the policy sets (0 when free), charged to the account the
    money leaves. Returns both bookings, the fee and the new balances."""
    source, target = _account(db, from_account_id), _account(db, to_account_id)
    if source.id == target.id:
        raise ToolFailure(INVALID_ARGUMENT, "from_account_id and to_account_id are the same account")
    if source.customer_id != target.customer_id:
        raise ToolFailure(INVALID_ARGUMENT, "both accounts must belong to the same customer")
    _open_account(source)
    _open_account(target)
    _amount(amount_cents)
    if not 0 <= fee_cents <= MAX_FEE_CENTS:
        raise ToolFailure(INVALID_ARGUMENT, f"fee_cents must be between 0 and {MAX_FEE_CENTS}")
    _not_locked(source.customer, "moving money")
    if amount_cents + fee_cents > _available(source):
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"account {source.id} has {_available(source)} cents available; {amount_cents + fee_cents} needed",
        )
    out = _book(db, source, "transfer_out", "debit", amount_cents, f"To {target.nickname} ({target.id})")
    into = _book(db, target, "transfer_in", "credit", amount_cents, f"From {source.nickname} ({source.id})")
    fee = None
    if fee_cents:
        fee = _charge_fee(db, source, "savings_withdrawal", fee_cents, f"Withdrawal fee for {out.id}")
    return {
        "debit": row_dict(out),
        "credit": row_dict(into),
        "fee": row_dict(fee) if fee else None,
        "from_account": _account_view(source),
        "to_account": _account_view(target),
    }


@tools.write
def cancel_scheduled_payment(db: Session, scheduled_payment_id: str) -> dict:
    """Cancel an active scheduled or standing payment so it no longer runs. Check the policy's cut-off first.
    Returns the scheduled payment."""
    payment = get_or_fail(db, ScheduledPayment, scheduled_payment_id, "scheduled payment")
    if payment.status != "active":
        raise ToolFailure(
            PRECONDITION_FAILED, f"scheduled payment {scheduled_payment_id} is {payment.status}; it cannot be cancelled"
        )
    payment.status = "cancelled"
    payment.cancelled_at = NOW
    db.flush()
    return row_dict(payment)


# --------------------------------------------------------------------------- writes: disputes, fees, fraud


@tools.write
def open_dispute(
    db: Session, transaction_id: str, reason: DisputeReason, amount_cents: int, description: str | None = None
) -> dict:
    """Open a dispute (chargeback request to the merchant's bank) on a posted card payment, for the amount the
    policy sets, with a short description. Check the dispute window in the policy first. Returns the dispute."""
    txn = get_or_fail(db, Transaction, transaction_id, "transaction")
    if txn.kind != "card_payment" or txn.direction != "debit":
        raise ToolFailure(PRECONDITION_FAILED, f"transaction {transaction_id} is a {txn.kind}; only card payments")
    if txn.status != "posted":
        raise ToolFailure(
            PRECONDITION_FAILED, f"transaction {transaction_id} is still pending; it can be disputed once posted"
        )
    existing = db.scalars(select(Dispute).where(Dispute.transaction_id == transaction_id)).first()
    if existing is not None:
        raise ToolFailure(
            CONFLICT, f"transaction {transaction_id} already has dispute {existing.id} ({existing.status})"
        )
    if not 1 <= amount_cents <= txn.amount_cents:
        raise ToolFailure(INVALID_ARGUMENT, f"amount_cents must be between 1 and the payment's {txn.amount_cents}")
    dispute = Dispute(
        id=next_id(db, Dispute, "DP-"),
        transaction_id=transaction_id,
        customer_id=txn.account.customer_id,
        reason=reason,
        amount_cents=amount_cents,
        status="open",
        opened_at=NOW,
        description=description.strip() if description else None,
    )
    db.add(dispute)
    db.flush()
    return _dispute_view(dispute)


@tools.write
def refund_fee(db: Session, fee_id: str, reason: FeeRefundReason) -> dict:
    """Refund a fee in full to the account it was charged to, with reason goodwill or charged_in_error. Check the
    policy first. Returns the fee refund and the account's new balance."""
    fee = get_or_fail(db, Fee, fee_id, "fee")
    existing = db.scalars(select(FeeRefund).where(FeeRefund.fee_id == fee_id)).first()
    if existing is not None:
        raise ToolFailure(CONFLICT, f"fee {fee_id} was already refunded ({existing.id})")
    account = fee.account
    _open_account(account)
    txn = _book(db, account, "fee_refund", "credit", fee.amount_cents, f"Refund of fee {fee.id}: {fee.description}")
    refund = FeeRefund(
        id=next_id(db, FeeRefund, "FR-"),
        fee_id=fee_id,
        customer_id=account.customer_id,
        reason=reason,
        amount_cents=fee.amount_cents,
        created_at=NOW,
        transaction_id=txn.id,
    )
    db.add(refund)
    db.flush()
    return {**row_dict(refund), "account": _account_view(account)}


@tools.write
def resolve_fraud_alert(db: Session, alert_id: str, resolution: AlertResolution) -> dict:
    """Close an open fraud alert: cleared (the customer made the flagged payment) or confirmed_fraud (they did
    not). Check the policy on who may resolve which alerts. Returns the alert."""
    alert = get_or_fail(db, FraudAlert, alert_id, "fraud alert")
    if alert.status != "open":
        raise ToolFailure(PRECONDITION_FAILED, f"fraud alert {alert_id} is already {alert.status}")
    alert.status = resolution
    alert.resolved_at = NOW
    db.flush()
    return row_dict(alert)


@tools.write
def set_security_lock(db: Session, customer_id: str, locked: bool, reason: LockReason | None = None) -> dict:
    """Set (locked true, with a reason) or lift (locked false) a security lock on a customer: while locked, no
    money leaves their accounts and no card can be unfrozen or have its limit changed. Returns the customer's
    lock state."""
    customer = _customer(db, customer_id)
    if locked:
        if reason is None:
            raise ToolFailure(INVALID_ARGUMENT, "give the reason for the lock")
        if customer.security_locked:
            raise ToolFailure(CONFLICT, f"customer {customer_id} is already locked ({customer.security_lock_reason})")
        customer.security_locked = True
        customer.security_lock_reason = reason
        customer.security_locked_at = NOW
    else:
        if not customer.security_locked:
            raise ToolFailure(PRECONDITION_FAILED, f"customer {customer_id} has no security lock")
        customer.security_locked = False
        customer.security_lock_reason = None
        customer.security_locked_at = None
    db.flush()
    return {
        "customer_id": customer_id,
        "security_locked": customer.security_locked,
        "security_lock_reason": customer.security_lock_reason,
        "security_locked_at": customer.security_locked_at.isoformat() if customer.security_locked_at else None,
    }


# --------------------------------------------------------------------------- writes: accounts


@tools.write
def close_account(db: Session, account_id: str) -> dict:
    """Close an account for good and cancel its cards. Its active scheduled payments must be cancelled first.
    Check the closure conditions in the policy first. Returns the closed account."""
    account = _account(db, account_id)
    _open_account(account)
    if account.balance_cents < 0:
        raise ToolFailure(PRECONDITION_FAILED, f"account {account_id} is overdrawn; it cannot be closed")
    active = db.scalars(
        select(ScheduledPayment.id).where(
            ScheduledPayment.account_id == account_id, ScheduledPayment.status == "active"
        )
    ).all()
    if active:
        raise ToolFailure(PRECONDITION_FAILED, f"account {account_id} has active scheduled payments {list(active)}")
    account.status = "closed"
    account.closed_at = NOW
    cancelled = []
    for card in rows_where(db, Card.account_id, account_id):
        if card.status in ("ordered", "active", "frozen"):
            card.status = "cancelled"
            cancelled.append(card.id)
    db.flush()
    return {**_account_view(account), "cancelled_cards": cancelled}


# --------------------------------------------------------------------------- the internal help desk


def _employee(db: Session, employee_id: str) -> Employee:
    return get_or_fail(db, Employee, employee_id.strip(), "employee")


def _current_employee(db: Session, employee_id: str) -> Employee:
    employee = _employee(db, employee_id)
    if employee.status == "left":
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"employee {employee.id} left the bank on {employee.leave_on}; nothing can be given to them",
        )
    return employee


def _role(db: Session, role_id: str) -> SystemRole:
    return get_or_fail(db, SystemRole, role_id.strip(), "system role")


def _iso_day(value: str, field: str) -> date:
    day = iso_date(value, f"{field} must be a date as YYYY-MM-DD")
    if day < TODAY:
        raise ToolFailure(INVALID_ARGUMENT, f"{field} {day.isoformat()} is in the past; today is {TODAY.isoformat()}")
    return day


def _employee_view(db: Session, employee: Employee) -> dict:
    reports = db.scalars(select(Employee.id).where(Employee.manager_id == employee.id).order_by(Employee.id)).all()
    return {
        **row_dict(employee, "date_of_birth"),
        "manager_name": employee.manager.name if employee.manager else None,
        "direct_report_ids": list(reports),
    }


def _grant_view(grant: AccessGrant) -> dict:
    return {
        **row_dict(grant),
        "role_name": grant.role.name,
        "system_id": grant.role.system_id,
        "system_name": grant.role.system.name,
    }


def _request_view(request: AccessRequest) -> dict:
    return {
        **row_dict(request),
        "employee_name": request.employee.name,
        "raised_by_name": request.raised_by.name,
        "role_name": request.role.name,
        "system_id": request.role.system_id,
        "approvals": [
            {
                **row_dict(a),
                "approver_name": a.approver.name,
                "approver_department": a.approver.department,
            }
            for a in request.approvals
        ],
    }


def _device_view(device: Device) -> dict:
    return {
        **row_dict(device),
        "assigned_to_name": device.assigned_to.name if device.assigned_to else None,
        "age_days": (TODAY - device.purchased_on).days,
    }


@tools.read
def find_employee(db: Session, employee_number: str) -> dict:
    """Internal help desk: find a Kestrel Bank employee or contractor by their employee number (E-....). Use it
    first, with the number the caller gives you. Returns the profile (department, title, grade, line manager and
    their name, contractor flag and contract end, start and leave dates, a recent move between departments, direct
    reports), without the date of birth used to verify identity."""
    return _employee_view(db, _employee(db, employee_number))


@tools.read
def verify_employee(db: Session, employee_number: str, date_of_birth: str) -> dict:
    """Internal help desk: verify that you are talking to the employee who owns an employee number, with the date of
    birth (YYYY-MM-DD) they tell you. Returns verified true or false; it never shows the recorded date."""
    born = iso_date(date_of_birth, "date_of_birth must be a date as YYYY-MM-DD")
    employee = _employee(db, employee_number)
    if employee.date_of_birth == born:
        return {"verified": True, "employee_id": employee.id}
    return {"verified": False, "detail": "the date of birth does not match our records"}


@tools.read
def search_employees(db: Session, name: str) -> list[dict]:
    """Internal help desk: employees whose name contains `name` (any case), for someone the caller names (a new
    joiner, a colleague who is leaving): employee number, department, title, line manager, start and leave dates."""
    wanted = name.strip().lower()
    if len(wanted) < 2:
        raise ToolFailure(INVALID_ARGUMENT, "give at least two letters of the name")
    rows = db.scalars(select(Employee).where(func.lower(Employee.name).contains(wanted)).order_by(Employee.id)).all()
    return [_employee_view(db, e) for e in rows]


@tools.read
def list_systems(db: Session) -> list[dict]:
    """Internal help desk: the bank's internal systems (core banking, payments hub, card management, CRM, data
    warehouse) with their risk (low, medium, high), owner (id and name), the owner team's queue, and every role:
    read_only, privileged, the department whose work needs it, and the role it conflicts with."""
    systems = db.scalars(select(InternalSystem).order_by(InternalSystem.id)).all()
    return [{**row_dict(s), "owner_name": s.owner.name, "roles": [row_dict(r) for r in s.roles]} for s in systems]


@tools.read
def list_access_grants(db: Session, employee_id: str) -> list[dict]:
    """Internal help desk: every role an employee holds or held on the internal systems: role and system, kind
    (standard, temporary, emergency), status (active, revoked), when granted, expires_on (the last day it works;
    none: no expiry), and when and why it was revoked."""
    _employee(db, employee_id)
    rows = rows_where(db, AccessGrant.employee_id, employee_id)
    return [_grant_view(g) for g in rows]


@tools.read
def list_access_requests(db: Session, employee_id: str) -> list[dict]:
    """Internal help desk: the access requests raised for an employee, newest first: role, who raised it, kind,
    needed_until, incident, status (awaiting_approval, fulfilled, rejected), and every approval recorded on it
    (approver id, name and department, the capacity they approved in, approved or refused, when)."""
    _employee(db, employee_id)
    rows = db.scalars(
        select(AccessRequest)
        .where(AccessRequest.employee_id == employee_id)
        .order_by(AccessRequest.created_at.desc(), AccessRequest.id)
    ).all()
    return [_request_view(r) for r in rows]


@tools.read
def get_incident(db: Session, incident_id: str) -> dict:
    """Internal help desk: a production incident by its number (INC-....): the system it concerns, its title,
    status (open, resolved) and when it was opened and resolved."""
    incident = get_or_fail(db, Incident, incident_id.strip(), "incident")
    return {**row_dict(incident), "system_name": incident.system.name}


@tools.read
def list_devices(db: Session, employee_id: str) -> list[dict]:
    """Internal help desk: the devices an employee has or had (laptops with their profile, hardware tokens,
    phones): model, serial, purchased_on and age in days, status (assigned, returned, in_repair, lost)."""
    _employee(db, employee_id)
    rows = rows_where(db, Device.assigned_to_id, employee_id)
    return [_device_view(d) for d in rows]


@tools.read
def list_device_stock(db: Session, kind: DeviceKind) -> list[dict]:
    """Internal help desk: the devices of a kind (laptop, token, phone) in stock, ready to hand out, by id: model,
    profile (laptops: standard or developer), serial, purchased_on."""
    rows = db.scalars(select(Device).where(Device.kind == kind, Device.status == "in_stock").order_by(Device.id)).all()
    return [_device_view(d) for d in rows]


@tools.write
def create_access_request(
    db: Session,
    employee_id: str,
    role_id: str,
    raised_by: str,
    kind: GrantKind = "standard",
    needed_until: str | None = None,
    incident_id: str | None = None,
) -> dict:
    """Internal help desk: record a request for a role for an employee (raised_by: the employee number of the
    caller who asks for it), so the approvals the policy needs can be collected; its status is awaiting_approval.
    kind is standard, temporary (needed_until: the last day it is needed) or emergency (incident_id: the open
    incident). Returns the request."""
    employee = _current_employee(db, employee_id)
    raiser = _employee(db, raised_by)
    role = _role(db, role_id)
    existing = db.scalars(
        select(AccessRequest).where(
            AccessRequest.employee_id == employee.id,
            AccessRequest.role_id == role.id,
            AccessRequest.status == "awaiting_approval",
        )
    ).first()
    if existing is not None:
        raise ToolFailure(CONFLICT, f"request {existing.id} for {role.id} is already awaiting approval; use it")
    until = _iso_day(needed_until, "needed_until") if needed_until else None
    if kind == "temporary" and until is None:
        raise ToolFailure(INVALID_ARGUMENT, "a temporary request needs needed_until, the last day it is needed")
    if incident_id is not None:
        get_or_fail(db, Incident, incident_id.strip(), "incident")
    if kind == "emergency" and incident_id is None:
        raise ToolFailure(INVALID_ARGUMENT, "an emergency request needs the incident_id it is for")
    request = AccessRequest(
        id=next_id(db, AccessRequest, "AR-"),
        employee_id=employee.id,
        role_id=role.id,
        raised_by_id=raiser.id,
        kind=kind,
        needed_until=until,
        incident_id=incident_id.strip() if incident_id else None,
        status="awaiting_approval",
        created_at=NOW,
    )
    db.add(request)
    db.flush()
    return _request_view(request)


@tools.write
def grant_access(
    db: Session,
    employee_id: str,
    role_id: str,
    kind: GrantKind = "standard",
    expires_on: str | None = None,
    request_id: str | None = None,
) -> dict:
    """Internal help desk: give an employee a role on an internal system, now. kind is standard, temporary or
    emergency; expires_on is the last day the access works (YYYY-MM-DD; none: no expiry); request_id the access
    request it fulfils, if there is one (it is then marked fulfilled). Check the policy on approvals, segregation
    of duties, contractors and expiry first. Returns the grant."""
    employee = _current_employee(db, employee_id)
    role = _role(db, role_id)
    held = db.scalars(
        select(AccessGrant).where(
            AccessGrant.employee_id == employee.id, AccessGrant.role_id == role.id, AccessGrant.status == "active"
        )
    ).first()
    if held is not None:
        raise ToolFailure(CONFLICT, f"{employee.id} already holds {role.id} (grant {held.id})")
    until = _iso_day(expires_on, "expires_on") if expires_on else None
    request = None
    if request_id is not None:
        request = get_or_fail(db, AccessRequest, request_id.strip(), "access request")
        if (request.employee_id, request.role_id) != (employee.id, role.id):
            raise ToolFailure(
                INVALID_ARGUMENT, f"request {request.id} is for {request.role_id} for {request.employee_id}"
            )
        if request.status != "awaiting_approval":
            raise ToolFailure(PRECONDITION_FAILED, f"request {request.id} is already {request.status}")
        request.status = "fulfilled"
        request.closed_at = NOW
    grant = AccessGrant(
        id=next_id(db, AccessGrant, "AG-"),
        employee_id=employee.id,
        role_id=role.id,
        kind=kind,
        status="active",
        granted_at=NOW,
        expires_on=until,
        request_id=request.id if request else None,
    )
    db.add(grant)
    db.flush()
    return _grant_view(grant)


def _active_grant(db: Session, grant_id: str) -> AccessGrant:
    grant = get_or_fail(db, AccessGrant, grant_id.strip(), "access grant")
    if grant.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"grant {grant.id} is already {grant.status}")
    return grant


@tools.write
def revoke_access(db: Session, grant_id: str, reason: RevokeReason) -> dict:
    """Internal help desk: take a role away from an employee now (reason moved, leaver, no_longer_needed or
    sod_conflict). Returns the grant."""
    grant = _active_grant(db, grant_id)
    grant.status = "revoked"
    grant.revoked_at = NOW
    grant.revoke_reason = reason
    db.flush()
    return _grant_view(grant)


@tools.write
def set_access_expiry(db: Session, grant_id: str, expires_on: str) -> dict:
    """Internal help desk: set the last day an active grant works (YYYY-MM-DD, today or later); the role stays
    until then. Returns the grant."""
    grant = _active_grant(db, grant_id)
    grant.expires_on = _iso_day(expires_on, "expires_on")
    db.flush()
    return _grant_view(grant)


@tools.write
def reject_access_request(db: Session, request_id: str, reason: RejectReason) -> dict:
    """Internal help desk: close an access request awaiting approval without granting it, with the policy's reason
    (sod_conflict, auditor_read_only, contractor_limit, not_line_manager, approval_refused, no_open_incident).
    Returns the request."""
    request = get_or_fail(db, AccessRequest, request_id.strip(), "access request")
    if request.status != "awaiting_approval":
        raise ToolFailure(PRECONDITION_FAILED, f"request {request.id} is already {request.status}")
    request.status = "rejected"
    request.reject_reason = reason
    request.closed_at = NOW
    db.flush()
    return _request_view(request)


@tools.write
def assign_device(db: Session, device_id: str, employee_id: str) -> dict:
    """Internal help desk: hand an in-stock device (list_device_stock) to an employee. Returns the device."""
    device = get_or_fail(db, Device, device_id.strip(), "device")
    if device.status != "in_stock":
        raise ToolFailure(PRECONDITION_FAILED, f"device {device.id} is {device.status}, not in stock")
    employee = _current_employee(db, employee_id)
    device.status = "assigned"
    device.assigned_to = employee  # the relationship too: the reply names the employee
    device.assigned_at = NOW
    db.flush()
    return _device_view(device)


@tools.write
def return_device(db: Session, device_id: str, condition: ReturnCondition) -> dict:
    """Internal help desk: take back a device an employee has: condition working (status returned, wiped for
    re-use) or faulty (status in_repair). It stays on the employee's device list as history. Returns the device."""
    device = get_or_fail(db, Device, device_id.strip(), "device")
    if device.status != "assigned":
        raise ToolFailure(PRECONDITION_FAILED, f"device {device.id} is {device.status}; only an assigned one")
    device.status = "returned" if condition == "working" else "in_repair"
    device.returned_at = NOW
    db.flush()
    return _device_view(device)


@tools.write
def report_device_lost(db: Session, device_id: str) -> dict:
    """Internal help desk: record an assigned device as lost or stolen; it is barred from the bank's network at
    once. Returns the device."""
    device = get_or_fail(db, Device, device_id.strip(), "device")
    if device.status != "assigned":
        raise ToolFailure(PRECONDITION_FAILED, f"device {device.id} is {device.status}; only an assigned one")
    device.status = "lost"
    db.flush()
    return _device_view(device)


# --------------------------------------------------------------------------- shared: identity, tickets, policy

register_identity(tools, Customer, "customer", verify=True)
# The ticket classification the policy decides (see "Tickets: classification, status, priority and comments").
TICKET_CATEGORIES = (
    "security",
    "kyc",
    "transfer",
    "savings",
    "scheduled_payment",
    "card_lost",
    "card_stolen",
    "card_replacement",
    "fraud",
    "card_limit",
    "dispute",
    "fees",
    "closure",
    # the internal help desk (see "Internal desk tickets: classification, status and queues")
    "access",
    "emergency_access",
    "joiner",
    "mover",
    "leaver",
    "device",
)
TICKET_REASONS = (
    "identity_failed",
    "not_account_holder",
    "security_lock",
    "fraud_suspected",
    "over_limit",
    "kyc_required",
    "outside_window",
    "not_eligible",
    "balance_not_zero",
    "open_items",
    # the internal help desk
    "approval_required",
    "approval_refused",
    "sod_conflict",
    "auditor_read_only",
    "contractor_limit",
    "not_line_manager",
    "no_open_incident",
    "device_lost",
)
TICKET_QUEUES = (
    "security",
    "fraud_ops",
    "compliance",
    # the internal help desk: the owner teams of the internal systems
    "core_banking_team",
    "payments_team",
    "cards_team",
    "crm_team",
    "data_team",
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
    link=("account_id", Account, "account"),
    # the internal help desk's tickets name the employee who asked, in employee_id, and no customer
    second_requester=(Employee, "employee_id", "employee"),
)
register_policy_search(tools, POLICY_PATH, '"stolen card dispute", "savings withdrawal fee", "transfer limit held"')
