"""The neobank support desk's tools, as an agent sees them.

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
)

from .clock import NOW, TODAY
from .models import (
    Account,
    AlertResolution,
    BlockReason,
    Card,
    Customer,
    Dispute,
    DisputeReason,
    Fee,
    FeeRefund,
    FeeRefundReason,
    FraudAlert,
    Hold,
    LockReason,
    ScheduledPayment,
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
    cards = db.scalars(select(Card).where(Card.account_id == account_id).order_by(Card.id)).all()
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
    disputes = db.scalars(select(Dispute).where(Dispute.transaction_id == transaction_id).order_by(Dispute.id)).all()
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
    rows = db.scalars(
        select(ScheduledPayment).where(ScheduledPayment.account_id == account_id).order_by(ScheduledPayment.id)
    ).all()
    return [row_dict(s) for s in rows]


# --------------------------------------------------------------------------- reads: cards, disputes, fees, fraud


@tools.read
def list_cards(db: Session, customer_id: str) -> list[dict]:
    """All cards of a customer: kind (physical, virtual), last 4 digits, account, status (ordered, active, frozen,
    blocked, cancelled), daily spending limit, when frozen or blocked and why, and which card it replaces."""
    _customer(db, customer_id)
    cards = db.scalars(select(Card).where(Card.customer_id == customer_id).order_by(Card.id)).all()
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
    for card in db.scalars(select(Card).where(Card.account_id == account_id).order_by(Card.id)):
        if card.status in ("ordered", "active", "frozen"):
            card.status = "cancelled"
            cancelled.append(card.id)
    db.flush()
    return {**_account_view(account), "cancelled_cards": cancelled}


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
)
TICKET_QUEUES = (
    "security",
    "fraud_ops",
    "compliance",
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
)
register_policy_search(tools, POLICY_PATH, '"stolen card dispute", "savings withdrawal fee", "transfer limit held"')
