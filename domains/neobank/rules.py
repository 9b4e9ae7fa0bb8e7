"""Kestrel Bank's policy (`policy.md`) as executable rules, clause by clause, for both of its desks.

Each rule reads one attempt's `Evidence`: the rows the conversation wrote, the
start and end states around them and, where a clause is about what was looked up
or verified first, the tool calls. The customer desk's rules judge customer
tickets (``requester_id``) and the bank's records; the internal desk's rules
judge employee tickets (``employee_id``), grants, requests and devices. The
clauses no state or tool call can show (what the agent says) are marked
judgement-only at the end.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from typing import Any

from domains.shared.rules import (
    COMMENTS,
    TICKET_TABLES,
    TICKETS,
    called,
    comments_added,
    days_between,
    internal_notes,
    worked_tickets,
)
from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import RuleRow, ToolCall

from .seed import HUMAN_RESOURCES, INFORMATION_SECURITY, INTERNAL_AUDIT, PAYMENTS_HUB, TECHNOLOGY
from .tools import TICKET_CATEGORIES

RULES = Rules()

WORKING = "Working a conversation"
IDENTITY = "Identity verification"
LOCKS = "Security locks"
KYC = "KYC levels and limits"
TRANSFERS = "Outgoing transfers"
SAVINGS = "Savings accounts and withdrawals"
SCHEDULED = "Scheduled payments"
LOST = "Lost or misplaced cards"
STOLEN = "Stolen cards"
REPLACEMENTS = "Card replacements"
FRAUD = "Fraud alerts and unfreezing cards"
LIMITS = "Card spending limits"
DISPUTES = "Card disputes"
FEES = "Fees and fee refunds"
CLOSURE = "Account closure"
CUSTOMER_TICKETS = "Tickets: classification, status, priority and comments"
DESK = "Internal help desk: who may ask and identity"
ACCESS = "Internal access: roles and approvals"
SOD = "Segregation of duties"
CONTRACTORS = "Contractors"
TEMPORARY = "Temporary and emergency access"
JOINERS = "Joiners"
MOVERS = "Movers"
LEAVERS = "Leavers"
DEVICES = "Devices: laptops, tokens and phones"
DESK_TICKETS = "Internal desk tickets: classification, status and queues"

#: The customer desk's records, and the internal desk's, as the tools write them.
CUSTOMER_RECORDS = (
    "customers",
    "accounts",
    "holds",
    "cards",
    "transactions",
    "transfers",
    "scheduled_payments",
    "disputes",
    "fees",
    "fee_refunds",
    "fraud_alerts",
)
DESK_RECORDS = ("access_grants", "access_requests", "devices")

DESK_CATEGORIES = ("access", "emergency_access", "joiner", "mover", "leaver", "device")
#: The ticket categories the tools accept, less the internal desk's: the customer desk's.
CUSTOMER_CATEGORIES = tuple(c for c in TICKET_CATEGORIES if c not in DESK_CATEGORIES)
FINAL = ("pending", "hold", "solved")
NOT_THE_CALLERS = ("identity_failed", "not_account_holder")  # a pending ticket that decided nothing


# --------------------------------------------------------------------------- reading the evidence


def _answer(c: ToolCall) -> dict[str, Any]:
    """What a successful call returned, as an object ({} for a failed call or an answer of another kind)."""
    if c.error is not None:
        return {}
    try:
        answer = json.loads(c.result)
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def _verification(ev: Evidence, tool: str, key: str) -> tuple[list[str], bool, int]:
    """Who `tool` verified (their ids), whether a check failed, and how many checks were made."""
    found: tuple[list[str], bool, int] = ev.memo(("verified", tool), lambda: _verify(ev, tool, key))
    return found


def _verify(ev: Evidence, tool: str, key: str) -> tuple[list[str], bool, int]:
    verified, failed, made = [], False, 0
    for c in ev.tool_calls():
        if c.tool != tool:
            continue
        made += 1
        answer = _answer(c)
        if answer.get("verified") is True:
            verified.append(str(answer.get(key)))
        elif answer.get("verified") is False:
            failed = True
    return verified, failed, made


def _found(ev: Evidence, tool: str) -> str | None:
    """The id of the first person the look-up `tool` found (the caller, by their email or employee number)."""
    for c in ev.tool_calls():
        if c.tool == tool and (found := _answer(c).get("id")):
            return str(found)
    return None


def _customer_failed(ev: Evidence) -> bool:
    """The caller failed the customer identity check and never passed it."""
    verified, failed, _ = _verification(ev, "verify_identity", "customer_id")
    return failed and not verified


def _employee_failed(ev: Evidence) -> bool:
    verified, failed, _ = _verification(ev, "verify_employee", "employee_id")
    return failed and not verified


def _tickets(ev: Evidence, desk: bool) -> list[tuple[RuleRow | None, RuleRow]]:
    """(before, after) of each ticket of one desk the conversation created or changed, then of each it only
    commented on."""

    def read() -> list[tuple[RuleRow | None, RuleRow]]:
        worked = {now.key: (was, now) for was, now in worked_tickets(ev)}
        for comment in ev.added(COMMENTS):
            if comment.ticket_id not in worked:
                now = ev.end.get(TICKETS, comment.ticket_id)
                if now is not None:
                    worked[now.key] = (ev.start.get(TICKETS, comment.ticket_id), now)
        return [(was, now) for was, now in worked.values() if (now.employee_id is not None) == desk]

    tickets: list[tuple[RuleRow | None, RuleRow]] = ev.memo(("tickets", desk), read)
    return tickets


def _today(ev: Evidence) -> dt.date:
    assert ev.now is not None, "the neobank rules need the domain clock"
    return ev.now.date()


def _same_month(moment: dt.datetime | dt.date, today: dt.date) -> bool:
    return (moment.year, moment.month) == (today.year, today.month)


def _set_to(ev: Evidence, table: str, field: str, value: Any) -> list[RuleRow]:
    """Each row of `table` whose `field` the conversation changed to `value`, as it is now."""
    return [now for _, now in ev.updated(table, field) if now[field] == value]


def _account_owner(ev: Evidence, account_id: str | None) -> str | None:
    account = ev.start.get("accounts", account_id) if account_id else None  # an account keeps its owner
    return None if account is None else account.customer_id


def _owner(ev: Evidence, table: str, row: RuleRow) -> str | None:
    """The customer a record of the customer desk belongs to."""
    if table == "customers":
        return str(row.id)
    if table in ("accounts", "cards", "disputes", "fee_refunds", "fraud_alerts"):
        return row.customer_id
    return _account_owner(ev, row.account_id)


def _level(ev: Evidence, customer_id: str | None) -> RuleRow | None:
    """The KYC level the records give a customer, with its limits."""
    customer = ev.start.get("customers", customer_id) if customer_id else None
    return None if customer is None else ev.start.get("kyc_levels", customer.kyc_level)


def _cents(amount: int) -> str:
    return f"{amount:,} cents"


def _savings_withdrawals(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """(transaction, account) of each withdrawal the conversation booked from a savings account."""

    def read() -> list[tuple[RuleRow, RuleRow]]:
        found = []
        for tx in ev.added("transactions"):
            account = ev.start.get("accounts", tx.account_id) if tx.kind == "transfer_out" else None
            if account is not None and account.kind == "savings":
                found.append((tx, account))
        return found

    withdrawals: list[tuple[RuleRow, RuleRow]] = ev.memo(("savings withdrawals",), read)
    return withdrawals


#: The customer desk's writes to the bank's records, and the arguments naming the records they act on.
CUSTOMER_WRITES = {
    "freeze_card": ("card_id",),
    "unfreeze_card": ("card_id",),
    "block_card": ("card_id",),
    "order_replacement_card": ("card_id",),
    "set_card_limit": ("card_id",),
    "create_transfer": ("account_id",),
    "transfer_between_accounts": ("from_account_id", "to_account_id"),
    "cancel_scheduled_payment": ("scheduled_payment_id",),
    "open_dispute": ("transaction_id",),
    "refund_fee": ("fee_id",),
    "resolve_fraud_alert": ("alert_id",),
    "set_security_lock": ("customer_id",),
    "close_account": ("account_id",),
}
DESK_WRITES = {
    "create_access_request": ("employee_id", "role_id"),
    "grant_access": ("employee_id", "role_id", "request_id"),
    "revoke_access": ("grant_id",),
    "set_access_expiry": ("grant_id",),
    "reject_access_request": ("request_id",),
    "assign_device": ("device_id", "employee_id"),
    "return_device": ("device_id",),
    "report_device_lost": ("device_id",),
}


_WRITES = frozenset((*CUSTOMER_WRITES, *DESK_WRITES, "create_ticket", "update_ticket", "add_ticket_comment"))


def _writes_made(ev: Evidence, writes: dict[str, tuple[str, ...]]) -> Iterator[tuple[int, ToolCall]]:
    """Each successful call of a tool `writes` names, with its place among the tool calls."""
    for i, c in enumerate(ev.tool_calls()):
        if c.tool in writes and c.error is None:
            yield i, c


def _acts_unseen(ev: Evidence, index: int, call: ToolCall, names: tuple[str, ...]) -> Iterator[Violation]:
    """The write `call` (at `index`) acts on a record whose id no look-up before it returned."""
    ids = [call.arguments.get(n) for n in names]
    answers = [c.result for c in ev.tool_calls()[:index] if c.error is None and c.tool not in _WRITES]
    if not all(any(f'"{i}"' in text for text in answers) for i in ids if i):
        yield Violation.of(
            None,
            f"{call.tool}({', '.join(f'{n}={v}' for n, v in zip(names, ids, strict=True))}) acts on a record "
            "no look-up before it returned",
        )


def _ends_settled(ev: Evidence, category: str, allowed: tuple[tuple[str, str | None], ...] = ()) -> Iterator[Violation]:
    """A customer ticket of `category` ends `solved`, unless the caller was not verified or not the holder
    (`pending`), a security-team lock stood in the way (`hold`), or `allowed` gives another ending."""
    endings = (("pending", "identity_failed"), ("pending", "not_account_holder"), ("hold", "security_lock"), *allowed)
    for _, t in _tickets(ev, desk=False):
        if t.category == category and t.status in ("pending", "hold") and (t.status, t.reason) not in endings:
            yield Violation.of(
                t, f"a {category} request is settled here (ticket solved), but the ticket ends {t.status}", "status"
            )


def _not_the_open_ticket(ev: Evidence, was: RuleRow | None, now: RuleRow, asker: str) -> Iterator[Violation]:
    """A ticket worked that was not new or open, or created while the one who asks (`asker`) had one open."""
    if was is not None and was.status not in ("new", "open"):
        yield Violation.of(now, f"ticket {now.id} was {was.status}: only the new or open ticket is worked", "status")
    if was is None:
        open_ones = [t.id for t in ev.start.where(TICKETS, **{asker: now[asker]}) if t.status in ("new", "open")]
        if open_ones:
            yield Violation.of(now, f"a ticket was created although {', '.join(open_ones)} is open", "id")


def _more_than_one(worked: list[tuple[RuleRow | None, RuleRow]]) -> Iterator[Violation]:
    if len(worked) > 1:
        names = ", ".join(sorted(str(now.id) for _, now in worked))
        yield Violation.of(worked[-1][1], f"one conversation, one ticket: tickets {names} were all worked")


def _none_ended(
    ev: Evidence, worked: list[tuple[RuleRow | None, RuleRow]], records: tuple[str, ...], desk: str, find: str
) -> Iterator[Violation]:
    """The conversation ended no ticket of the desk, yet changed its `records` or found the caller (tool `find`)."""
    if any(now.status in FINAL for _, now in worked):
        return
    changed = sorted(ev.tables_written.intersection(records))
    if changed:
        yield Violation.of(None, f"the conversation changed {', '.join(changed)} but ended no {desk} ticket")
    elif found := _found(ev, find):
        yield Violation.of(None, f"the conversation with {found} ended without setting a ticket's final status")


# --------------------------------------------------------------------------- Working a conversation


@RULES.rule("NB-2", "Look a record up before acting on it", section=WORKING)
def records_are_looked_up_before_they_are_changed(ev: Evidence) -> Iterator[Violation]:
    if not ev.tables_written.intersection(CUSTOMER_RECORDS):
        return
    for i, c in _writes_made(ev, CUSTOMER_WRITES):
        yield from _acts_unseen(ev, i, c, CUSTOMER_WRITES[c.tool])


@RULES.rule("NB-3", "Work in the customer's one new or open ticket", section=WORKING, on=TICKET_TABLES)
def the_conversation_works_in_the_customers_open_ticket(ev: Evidence) -> Iterator[Violation]:
    worked = _tickets(ev, desk=False)
    for was, now in worked:
        yield from _not_the_open_ticket(ev, was, now, "requester_id")
        if was is None and now.account_id is not None and _account_owner(ev, now.account_id) != now.requester_id:
            yield Violation.of(now, f"account {now.account_id} is not {now.requester_id}'s", "account_id")
    yield from _more_than_one(worked)


@RULES.rule("NB-4", "End the conversation's ticket with its final status", section=WORKING)
def the_customers_ticket_is_left_with_a_final_status(ev: Evidence) -> Iterator[Violation]:
    worked = _tickets(ev, desk=False)
    for _, now in worked:
        if now.status not in FINAL:
            yield Violation.of(now, f"ticket {now.id} is left {now.status}, not pending, hold or solved", "status")
    yield from _none_ended(ev, worked, CUSTOMER_RECORDS, "customer", "find_customer_by_email")


@RULES.rule("NB-5", "Make each change once; never split a transfer", section=WORKING, on=("transfers", "transactions"))
def no_transfer_is_repeated_or_split(ev: Evidence) -> Iterator[Violation]:
    seen: dict[tuple[str, str], RuleRow] = {}
    for transfer in ev.added("transfers"):
        key = (transfer.account_id, transfer.beneficiary_iban)
        if key in seen:
            yield Violation.of(
                transfer,
                f"a second transfer from {key[0]} to {key[1]} ({_cents(transfer.amount_cents)} after "
                f"{_cents(seen[key].amount_cents)}): a change made twice or split",
                "amount_cents",
            )
        seen[key] = transfer
    withdrawn: dict[str, RuleRow] = {}
    for tx, account in _savings_withdrawals(ev):
        if account.id in withdrawn:
            yield Violation.of(
                tx,
                f"a second withdrawal from {account.id} ({_cents(tx.amount_cents)} after "
                f"{_cents(withdrawn[account.id].amount_cents)}): a change made twice or split",
                "amount_cents",
            )
        withdrawn[account.id] = tx


# --------------------------------------------------------------------------- Identity verification


@RULES.rule(
    "NB-8",
    "Verify the customer once before any change, and change only their records; otherwise change nothing, pending",
    section=IDENTITY,
    clauses=("NB-7", "NB-8", "NB-9", "NB-10"),
)
def only_the_verified_customers_records_change(ev: Evidence) -> Iterator[Violation]:
    verified, failed, made = _verification(ev, "verify_identity", "customer_id")
    if made > 1:
        yield Violation.of(None, f"identity was checked {made} times: verify once, with the details the caller gave")
    looked_up = passed = False
    for c in ev.tool_calls():
        if c.tool == "find_customer_by_email" and c.error is None:
            looked_up = True
        elif c.tool == "verify_identity":
            passed = passed or _answer(c).get("verified") is True
        elif c.tool in CUSTOMER_WRITES and c.error is None:
            lock_for_failure = c.tool == "set_security_lock" and c.arguments.get("reason") == "failed_verification"
            if not passed and not lock_for_failure:
                yield Violation.of(None, f"{c.tool} was called before the customer was verified")
            elif not looked_up:
                yield Violation.of(None, f"{c.tool} was called before the customer was found by email")
    if failed and not verified:
        for table in sorted(ev.tables_written.intersection(CUSTOMER_RECORDS) - {"customers"}):
            yield Violation.of(None, f"verification failed, yet the conversation changed {table}")
        for _, t in _tickets(ev, desk=False):
            if (t.status, t.reason) != ("pending", "identity_failed"):
                yield Violation.of(
                    t, f"verification failed: the ticket is pending with identity_failed, not {t.status}/{t.reason}"
                )
    if not verified:
        return
    for table in sorted(ev.tables_written.intersection(CUSTOMER_RECORDS)):
        for was, now in ev.changed_rows(table):
            row = now if now is not None else was
            assert row is not None
            owner = _owner(ev, table, row)
            if owner is not None and owner not in verified:
                yield Violation.of(row, f"{table} {row.key} belongs to {owner}, not to the verified {verified[0]}")
    for _, t in _tickets(ev, desk=False):
        if t.reason == "not_account_holder":
            for now in _set_to(ev, "customers", "security_locked", True):
                yield Violation.of(now, "a record that is not the caller's sets no security lock", "security_locked")


# --------------------------------------------------------------------------- Security locks

_HIGH_RISK = ("transfer", "savings", "closure")  # sending money or closing an account, whatever the details
_LOW_RISK = ("security", "kyc", "scheduled_payment", "card_lost", "card_stolen", "card_replacement", "dispute", "fees")
_BLOCKED_BY_A_LOCK = ("security", "transfer", "savings", "card_limit")
_SECURITY_TEAM_LOCKS = ("failed_verification", "suspected_takeover")


@RULES.rule(
    "NB-12",
    "Locks: set for a failed high-risk caller or at the verified customer's request; only customer locks lifted",
    section=LOCKS,
    on=("customers", TICKETS, COMMENTS),
    clauses=("NB-11", "NB-12", "NB-13", "NB-14", "NB-15"),
)
def locks_are_set_and_lifted_only_as_the_policy_says(ev: Evidence) -> Iterator[Violation]:
    verified, failed, _ = _verification(ev, "verify_identity", "customer_id")
    failed = failed and not verified
    set_now = {}
    for was, now in ev.updated("customers", "security_locked"):
        if now.security_locked:
            set_now[now.id] = now
            if now.security_lock_reason == "failed_verification" and not failed:
                yield Violation.of(
                    now, "a failed_verification lock without a failed verification", "security_lock_reason"
                )
            elif now.security_lock_reason == "customer_request" and now.id not in verified:
                yield Violation.of(now, "a customer_request lock for a caller who was not verified", "security_locked")
            elif now.security_lock_reason == "suspected_takeover":
                yield Violation.of(now, "support sets no suspected_takeover lock", "security_lock_reason")
        elif was.security_lock_reason != "customer_request":
            yield Violation.of(
                now, f"a {was.security_lock_reason} lock is lifted only by the security team", "security_locked"
            )
        elif now.id not in verified:
            yield Violation.of(now, "a lock is lifted only for the verified customer", "security_locked")
    for _, t in _tickets(ev, desk=False):
        if failed and t.category in _HIGH_RISK and t.requester_id not in set_now:
            start = ev.start.get("customers", t.requester_id)
            if start is not None and not start.security_locked:
                yield Violation.of(
                    t, f"a failed caller asked for a high-risk {t.category} request: set a lock", "category"
                )
        if failed and t.category in _LOW_RISK and t.requester_id in set_now:
            yield Violation.of(t, f"a {t.category} request is not high-risk: no lock for a failed caller", "category")
        if failed or t.category not in _BLOCKED_BY_A_LOCK:
            continue
        start = ev.start.get("customers", t.requester_id)
        if start is not None and start.security_locked and start.security_lock_reason in _SECURITY_TEAM_LOCKS:
            refused_first = t.category == "card_limit" and (t.status, t.reason) == ("solved", "over_limit")
            if (t.status, t.reason) != ("hold", "security_lock") and not refused_first:
                yield Violation.of(
                    t,
                    f"a {start.security_lock_reason} lock stands in the way of this {t.category} request: hold for "
                    f"the security team (security_lock), not {t.status}/{t.reason}",
                    "status",
                )


# --------------------------------------------------------------------------- KYC levels and limits


@RULES.rule(
    "NB-16",
    "Card limits stay within the recorded level's highest daily limit",
    section=KYC,
    on=("cards",),
    clauses=("NB-16", "NB-17", "NB-18", "NB-6"),
)
def card_limits_stay_within_the_recorded_level(ev: Evidence) -> Iterator[Violation]:
    for _, card in ev.updated("cards", "daily_limit_cents"):
        level = _level(ev, card.customer_id)
        if level is not None and card.daily_limit_cents > level.card_daily_limit_max_cents:
            yield Violation.of(
                card,
                f"daily limit {_cents(card.daily_limit_cents)} is above the {level.level} level's highest card "
                f"limit of {_cents(level.card_daily_limit_max_cents)}",
                "daily_limit_cents",
            )


@RULES.rule(
    "NB-19",
    "Support never changes a KYC level: a level request is refused",
    section=KYC,
    on=(*TICKET_TABLES, "customers"),
)
def a_kyc_level_request_is_refused(ev: Evidence) -> Iterator[Violation]:
    for _, now in ev.updated("customers", "kyc_level"):
        yield Violation.of(now, "support cannot change a KYC level", "kyc_level")
    for _, t in _tickets(ev, desk=False):
        if t.category == "kyc" and (t.status, t.reason) not in (
            ("solved", "kyc_required"),
            ("pending", "identity_failed"),
            ("pending", "not_account_holder"),
        ):
            yield Violation.of(
                t,
                f"a KYC level or limit request is refused (solved, kyc_required), not {t.status}/{t.reason}",
                "reason",
            )


# --------------------------------------------------------------------------- Outgoing transfers


def _transfers_this_month(ev: Evidence, customer_id: str, today: dt.date) -> int:
    """The customer's outgoing transfers created this month, completed or held, from every current account."""
    total = 0
    for account in ev.start.where("accounts", customer_id=customer_id, kind="current"):
        for transfer in ev.start.where("transfers", account_id=account.id):
            if transfer.status in ("completed", "held") and _same_month(transfer.created_at, today):
                total += transfer.amount_cents
    return total


@RULES.rule(
    "NB-21",
    "A transfer above a KYC limit is held for review, one within both limits is executed",
    section=TRANSFERS,
    on=("transfers", TICKETS, COMMENTS),
    clauses=("NB-20", "NB-21", "NB-22", "NB-23", "NB-1", "NB-6", "NB-16", "NB-17", "NB-18"),
)
def a_transfer_is_held_exactly_when_it_is_above_a_limit(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    sent: dict[str, int] = {}
    held = []
    for transfer in ev.added("transfers"):
        account = ev.start.get("accounts", transfer.account_id)
        if account is None:
            continue
        if account.kind != "current":
            yield Violation.of(
                transfer, f"transfers leave from a current account; {account.id} is {account.kind}", "account_id"
            )
        customer = account.customer_id
        level = _level(ev, customer)
        if level is None:
            continue
        if customer not in sent:
            sent[customer] = _transfers_this_month(ev, customer, today)
        month = sent[customer] + transfer.amount_cents
        sent[customer] = month
        single, monthly = level.single_transfer_limit_cents, level.monthly_transfer_limit_cents
        above = transfer.amount_cents > single or month > monthly
        figures = (
            f"{_cents(transfer.amount_cents)} (single limit {_cents(single)}), {_cents(month)} this month "
            f"(monthly limit {_cents(monthly)}) at the {level.level} level"
        )
        if above and transfer.status != "held":
            yield Violation.of(transfer, f"above a limit, so held for review: {figures}", "status")
        elif not above and transfer.status == "held":
            yield Violation.of(transfer, f"within both limits, so executed at once: {figures}", "status")
        if transfer.status == "held":
            held.append(transfer)
    for _, t in _tickets(ev, desk=False):
        if held and t.status == "solved" and t.reason is None:
            yield Violation.of(
                t, f"transfer {held[0].id} is held for compliance: the ticket is pending, not solved", "status"
            )
        if t.reason == "over_limit" and t.status == "pending" and not held:
            yield Violation.of(t, "pending over_limit, yet no transfer was held for review", "reason")
    yield from _ends_settled(ev, "transfer", (("pending", "over_limit"),))


# --------------------------------------------------------------------------- Savings accounts and withdrawals

_WITHDRAWAL_FEE = 250
_FEE_FOR = re.compile(r"Withdrawal fee for (TX-\d+)")


def _withdrawal_index(ev: Evidence, account_id: str, booked: dt.datetime, key: Any) -> int:
    """How many withdrawals from a savings account came before this one in its calendar month."""
    earlier = 0
    for tx in ev.start.where("transactions", account_id=account_id, kind="transfer_out"):
        if _same_month(tx.booked_at, booked.date()) and (tx.booked_at, str(tx.key)) < (booked, str(key)):
            earlier += 1
    for tx in ev.added("transactions"):
        if tx.account_id == account_id and tx.kind == "transfer_out" and str(tx.key) < str(key):
            earlier += 1
    return earlier


@RULES.rule(
    "NB-26",
    "Savings withdrawals go to the customer's current account: the first 3 of a month free, then 250 cents",
    section=SAVINGS,
    on=("transactions", "fees", TICKETS, COMMENTS),
    clauses=("NB-25", "NB-26", "NB-27", "NB-28", "NB-1", "NB-6"),
)
def a_savings_withdrawal_costs_what_its_place_in_the_month_says(ev: Evidence) -> Iterator[Violation]:
    fees = {
        m[1]: f for f in ev.added("fees") if f.kind == "savings_withdrawal" and (m := _FEE_FOR.match(f.description))
    }
    for tx, account in _savings_withdrawals(ev):
        n = _withdrawal_index(ev, account.id, tx.booked_at, tx.key)
        due = _WITHDRAWAL_FEE if n >= 3 else 0
        fee = fees.get(str(tx.id))
        charged = fee.amount_cents if fee is not None else 0
        if charged != due:
            yield Violation.of(
                tx,
                f"withdrawal number {n + 1} of the month from {account.id} costs {_cents(due)}; "
                f"{_cents(charged)} was charged",
                "amount_cents",
            )
        for into in ev.added("transactions"):
            if into.kind == "transfer_in" and into.description.endswith(f"({account.id})"):
                target = ev.start.get("accounts", into.account_id)
                if target is not None and target.kind != "current":
                    yield Violation.of(
                        into, f"savings money goes only to a current account, not {target.id}", "account_id"
                    )
    yield from _ends_settled(ev, "savings")


# --------------------------------------------------------------------------- Scheduled payments


@RULES.rule(
    "NB-29",
    "A scheduled payment is cancelled only 2 or more days before it runs",
    section=SCHEDULED,
    on=("scheduled_payments", TICKETS, COMMENTS),
    clauses=("NB-29", "NB-30", "NB-1"),
)
def a_scheduled_payment_is_cancelled_only_before_the_cut_off(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for payment in _set_to(ev, "scheduled_payments", "status", "cancelled"):
        days = days_between(today, payment.next_run_on)
        if days < 2:
            yield Violation.of(
                payment, f"it runs on {payment.next_run_on} ({days} day(s) from today): too late to cancel", "status"
            )
    yield from _ends_settled(ev, "scheduled_payment")


# --------------------------------------------------------------------------- Lost or misplaced cards


def _unauthorised_cards(ev: Evidence) -> dict[str, RuleRow]:
    """The cards whose payments the conversation disputed as unauthorised, with one such dispute each."""
    cards: dict[str, RuleRow] = {}
    for dispute in ev.added("disputes"):
        if dispute.reason == "unauthorised":
            tx = ev.start.get("transactions", dispute.transaction_id)
            if tx is not None and tx.card_id is not None:
                cards.setdefault(tx.card_id, dispute)
    return cards


@RULES.rule(
    "NB-31",
    "A lost card is frozen, and blocked as lost only after 14 days frozen",
    section=LOST,
    on=("cards", "disputes", TICKETS, COMMENTS),
    clauses=("NB-31", "NB-32", "NB-33", "NB-34", "NB-35", "NB-1"),
)
def a_lost_card_is_frozen_before_it_is_blocked(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    unauthorised = _unauthorised_cards(ev)
    for was, card in ev.updated("cards", "status"):
        lost = card.status == "frozen" or (card.status == "blocked" and card.block_reason == "lost")
        if lost and card.id in unauthorised:
            yield Violation.of(
                card,
                f"payment {unauthorised[card.id].transaction_id} was not the customer's: the card is stolen, not lost",
                "status",
            )
        if card.status != "blocked" or card.block_reason != "lost":
            continue
        if was.status != "frozen" or was.frozen_at is None:
            yield Violation.of(card, f"a lost card that was {was.status} is frozen first, not blocked", "block_reason")
        elif days_between(was.frozen_at, today) < 14:
            days = days_between(was.frozen_at, today)
            yield Violation.of(card, f"frozen {days} days ago: a lost card is blocked after 14 days frozen", "status")
    yield from _ends_settled(ev, "card_lost")


# --------------------------------------------------------------------------- Stolen cards


@RULES.rule(
    "NB-36",
    "A stolen card is blocked and replaced, never only frozen; its unrecognised payments disputed in booking order",
    section=STOLEN,
    on=("cards", "disputes", "fraud_alerts", TICKETS, COMMENTS),
    clauses=("NB-36", "NB-37", "NB-38", "NB-39"),
)
def a_stolen_card_is_blocked_and_its_payments_disputed(ev: Evidence) -> Iterator[Violation]:
    blocked = {
        card.id: card for card in _set_to(ev, "cards", "status", "blocked") if card.block_reason in ("stolen", "fraud")
    }
    frozen = _set_to(ev, "cards", "status", "frozen")
    for _, t in _tickets(ev, desk=False):
        if t.category == "card_stolen" and frozen and not blocked:
            yield Violation.of(frozen[0], "a stolen card is blocked and replaced, never only frozen", "status")
    for card_id, dispute in _unauthorised_cards(ev).items():
        card = ev.end.get("cards", card_id)
        if card is not None and card.status not in ("blocked", "cancelled"):
            yield Violation.of(
                card,
                f"used for payment {dispute.transaction_id} without permission, so blocked (stolen), not {card.status}",
                "status",
            )
    last: RuleRow | None = None
    for dispute in ev.added("disputes"):
        if dispute.reason != "unauthorised":
            continue
        tx = ev.start.get("transactions", dispute.transaction_id)
        if tx is None:
            continue
        if last is not None and tx.booked_at < last.booked_at:
            yield Violation.of(
                dispute,
                f"payment {tx.id} (booked {tx.booked_at}) is disputed after {last.id} (booked {last.booked_at}): "
                "earliest first, and nothing from before the theft",
                "transaction_id",
            )
        last = tx
    disputed = {d.transaction_id for d in ev.added("disputes") if d.reason == "unauthorised"}
    for card in blocked.values():
        for alert in ev.end.where("fraud_alerts", customer_id=card.customer_id, status="open"):
            if alert.risk_level != "high" and (alert.card_id == card.id or alert.transaction_id in disputed):
                yield Violation.of(
                    alert, f"the alert concerns stolen card {card.id}: resolve it as confirmed_fraud", "status"
                )
    yield from _ends_settled(ev, "card_stolen")


# --------------------------------------------------------------------------- Card replacements

_REPLACEMENT_FEE = 600


@RULES.rule(
    "NB-41",
    "A blocked card is replaced: free when stolen, fraud or enhanced, otherwise 600 cents",
    section=REPLACEMENTS,
    on=("cards", "fees"),
    clauses=("NB-40", "NB-41", "NB-42", "NB-6"),
)
def a_blocked_card_is_replaced_for_the_policys_fee(ev: Evidence) -> Iterator[Violation]:
    for card in _set_to(ev, "cards", "status", "blocked"):
        if ev.end.one("cards", replaces_card_id=card.id) is None:
            yield Violation.of(
                card, f"blocked as {card.block_reason}, so replaced: no replacement was ordered", "status"
            )
    fees = [f for f in ev.added("fees") if f.kind == "card_replacement"]
    for new in ev.added("cards"):
        old = ev.end.get("cards", new.replaces_card_id) if new.replaces_card_id else None
        if old is None:
            continue
        level = _level(ev, old.customer_id)
        free = old.block_reason in ("stolen", "fraud") or (level is not None and level.level == "enhanced")
        due = 0 if free else _REPLACEMENT_FEE
        charged = sum(f.amount_cents for f in fees if f.card_id == old.id)
        if charged != due:
            why = f"blocked as {old.block_reason}" + (f", {level.level} level" if level is not None else "")
            yield Violation.of(
                new,
                f"replacing {old.id} ({why}) costs {_cents(due)}; {_cents(charged)} was charged",
                "replaces_card_id",
            )


# --------------------------------------------------------------------------- Fraud alerts and unfreezing cards


@RULES.rule(
    "NB-43",
    "No unfreeze while an alert is open; a high-risk alert is left to the fraud team; confirmed fraud blocks the card",
    section=FRAUD,
    on=("cards", "fraud_alerts", "disputes", TICKETS, COMMENTS),
    clauses=("NB-43", "NB-44", "NB-45"),
)
def no_card_is_unfrozen_while_a_fraud_alert_is_open(ev: Evidence) -> Iterator[Violation]:
    for was, card in ev.updated("cards", "status"):
        if was.status == "frozen" and card.status == "active":
            still_open = ev.end.where("fraud_alerts", customer_id=card.customer_id, status="open")
            if still_open:
                yield Violation.of(card, f"alert {still_open[0].id} is still open: no card is unfrozen", "status")
            if not called(ev, "list_fraud_alerts"):
                yield Violation.of(card, "unfrozen without looking at the fraud alerts", "status")
    for _, alert in ev.updated("fraud_alerts", "status"):
        if alert.risk_level == "high":
            yield Violation.of(alert, "a high-risk alert is for the fraud team only: never resolved here", "status")
        if alert.status != "confirmed_fraud":
            continue
        fraud_tx = ev.start.get("transactions", alert.transaction_id) if alert.transaction_id else None
        card_id = fraud_tx.card_id if fraud_tx is not None and fraud_tx.card_id else alert.card_id
        fraud_card = ev.end.get("cards", card_id) if card_id else None
        if fraud_card is not None and (
            fraud_card.status != "blocked" or fraud_card.block_reason not in ("fraud", "stolen")
        ):
            yield Violation.of(
                fraud_card, f"fraud confirmed on alert {alert.id}: the card is blocked (fraud)", "status"
            )
        if fraud_tx is not None and ev.end.one("disputes", transaction_id=fraud_tx.id, reason="unauthorised") is None:
            yield Violation.of(
                alert, f"fraud confirmed: payment {fraud_tx.id} is disputed as unauthorised", "transaction_id"
            )
    for _, t in _tickets(ev, desk=False):
        if t.category != "fraud" and t.reason != "fraud_suspected":
            continue
        high = [
            a for a in ev.end.where("fraud_alerts", customer_id=t.requester_id, status="open") if a.risk_level == "high"
        ]
        if t.reason == "fraud_suspected" and not high:
            yield Violation.of(t, "fraud_suspected, yet no high-risk alert is open", "reason")
        if (
            high
            and t.category == "fraud"
            and t.reason not in NOT_THE_CALLERS
            and (t.status, t.reason) != ("hold", "fraud_suspected")
        ):
            yield Violation.of(
                t, f"high-risk alert {high[0].id} is open: hold for the fraud team, not {t.status}/{t.reason}", "status"
            )


# --------------------------------------------------------------------------- Card spending limits


@RULES.rule(
    "NB-46",
    "A card's daily limit is set from 1,000 cents; the request is settled here",
    section=LIMITS,
    on=("cards", TICKETS, COMMENTS),
    clauses=("NB-46", "NB-47", "NB-48"),
)
def a_card_limit_is_at_least_the_minimum(ev: Evidence) -> Iterator[Violation]:
    for _, card in ev.updated("cards", "daily_limit_cents"):
        if card.daily_limit_cents < 1_000:
            yield Violation.of(
                card, f"{_cents(card.daily_limit_cents)} is below the 1,000-cent minimum", "daily_limit_cents"
            )
    yield from _ends_settled(ev, "card_limit")


# --------------------------------------------------------------------------- Card disputes


@RULES.rule(
    "NB-49",
    "A dispute is opened within 120 days, for the amount its reason allows",
    section=DISPUTES,
    on=("disputes", TICKETS, COMMENTS),
    clauses=("NB-49", "NB-50", "NB-51", "NB-1", "NB-6"),
)
def a_dispute_is_in_time_and_for_the_right_amount(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for dispute in ev.added("disputes"):
        tx = ev.start.get("transactions", dispute.transaction_id)
        if tx is None:
            continue
        age = days_between(tx.booked_at, today)
        if age > 120:
            yield Violation.of(
                dispute, f"payment {tx.id} was booked {age} days ago, outside the 120-day window", "transaction_id"
            )
        if dispute.reason == "incorrect_amount":
            if dispute.amount_cents >= tx.amount_cents:
                yield Violation.of(
                    dispute,
                    f"an incorrect amount disputes only the difference, not {_cents(dispute.amount_cents)} of "
                    f"{_cents(tx.amount_cents)}",
                    "amount_cents",
                )
        elif dispute.amount_cents != tx.amount_cents:
            yield Violation.of(
                dispute,
                f"a {dispute.reason} dispute is for the full {_cents(tx.amount_cents)}, "
                f"not {_cents(dispute.amount_cents)}",
                "amount_cents",
            )
        if dispute.reason == "duplicate_charge":
            twins = ev.start.where(
                "transactions", account_id=tx.account_id, description=tx.description, amount_cents=tx.amount_cents
            )
            earlier = [o for o in twins if (o.booked_at, str(o.key)) < (tx.booked_at, str(tx.key))]
            if not earlier:
                yield Violation.of(
                    dispute, f"{tx.id} is the earlier of the two charges: the later one is disputed", "transaction_id"
                )
            elif all(ev.start.one("disputes", transaction_id=o.id) is not None for o in earlier):
                yield Violation.of(
                    dispute,
                    f"the earlier charge {earlier[-1].id} was disputed on its own: it is no duplicate that stands",
                    "reason",
                )
    yield from _ends_settled(ev, "dispute")


# --------------------------------------------------------------------------- Fees and fee refunds


def _charged_in_error(ev: Evidence, fee: RuleRow) -> bool | None:
    """Whether the policy's own rules did not allow a fee (None: the records cannot tell)."""
    if fee.kind == "card_replacement":
        level = _level(ev, _account_owner(ev, fee.account_id))
        if level is not None and level.level == "enhanced":
            return True
        card = ev.start.get("cards", fee.card_id) if fee.card_id else None
        if card is None or card.block_reason is None:
            return None
        return card.block_reason in ("stolen", "fraud")
    if fee.kind == "savings_withdrawal":
        found = _FEE_FOR.match(fee.description)
        tx = ev.start.get("transactions", found[1]) if found else None
        if tx is None:
            return None
        return _withdrawal_index(ev, tx.account_id, tx.booked_at, tx.key) < 3
    return None


@RULES.rule(
    "NB-53",
    "A fee charged in error is refunded as such; goodwill only within 90 days and once per 180 days",
    section=FEES,
    on=("fee_refunds", TICKETS, COMMENTS),
    clauses=("NB-52", "NB-53", "NB-54", "NB-55", "NB-1"),
)
def a_fee_refund_has_the_reason_the_policy_allows(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    goodwill_here: list[RuleRow] = []
    for refund in ev.added("fee_refunds"):
        fee = ev.start.get("fees", refund.fee_id)
        if fee is None:
            continue
        in_error = _charged_in_error(ev, fee)
        if refund.reason == "charged_in_error":
            if in_error is False:
                yield Violation.of(
                    refund, f"fee {fee.id} ({fee.kind}) was charged under the rules: not in error", "reason"
                )
            continue
        if in_error:
            yield Violation.of(refund, f"fee {fee.id} was charged in error: refund it as charged_in_error", "reason")
            continue
        age = days_between(fee.charged_at, today)
        if age > 90:
            yield Violation.of(
                refund, f"fee {fee.id} was charged {age} days ago: goodwill only within 90 days", "fee_id"
            )
        earlier = [
            r
            for r in ev.start.where("fee_refunds", customer_id=refund.customer_id, reason="goodwill")
            if days_between(r.created_at, today) <= 180
        ] + goodwill_here
        if earlier:
            days = days_between(earlier[0].created_at, today)
            yield Violation.of(
                refund, f"goodwill refund {earlier[0].id} was given {days} days ago: one per 180 days", "reason"
            )
        goodwill_here.append(refund)
    yield from _ends_settled(ev, "fees")


# --------------------------------------------------------------------------- Account closure


@RULES.rule(
    "NB-56",
    "An account is closed only at a balance of exactly 0, with no active hold and no open dispute",
    section=CLOSURE,
    on=("accounts", TICKETS, COMMENTS),
    clauses=("NB-56", "NB-59"),
)
def an_account_is_closed_only_when_nothing_is_left_on_it(ev: Evidence) -> Iterator[Violation]:
    for account in _set_to(ev, "accounts", "status", "closed"):
        if account.balance_cents != 0:
            yield Violation.of(account, f"closed with a balance of {_cents(account.balance_cents)}, not 0", "status")
        holds = ev.end.where("holds", account_id=account.id, status="active")
        if holds:
            yield Violation.of(
                account, f"closed with active hold {holds[0].id} of {_cents(holds[0].amount_cents)}", "status"
            )
        for dispute in ev.end.where("disputes", customer_id=account.customer_id, status="open"):
            tx = ev.start.get("transactions", dispute.transaction_id)
            if tx is not None and tx.account_id == account.id:
                yield Violation.of(
                    account, f"closed with dispute {dispute.id} still open on its payment {tx.id}", "status"
                )
    yield from _ends_settled(ev, "closure")


def _closure_account(ev: Evidence, ticket: RuleRow) -> list[str]:
    """The accounts a closure ticket is about: its own, else every account of the customer."""
    if ticket.account_id is not None:
        return [ticket.account_id]
    return [a.id for a in ev.start.where("accounts", customer_id=ticket.requester_id)]


@RULES.rule(
    "NB-57",
    "Only the closed account's scheduled payments are cancelled; a refused closure closes and cancels nothing",
    section=CLOSURE,
    on=("scheduled_payments", "accounts", TICKETS, COMMENTS),
    clauses=("NB-57", "NB-58"),
)
def a_closure_cancels_only_what_it_must(ev: Evidence) -> Iterator[Violation]:
    closed = {a.id for a in _set_to(ev, "accounts", "status", "closed")}
    cancelled = _set_to(ev, "scheduled_payments", "status", "cancelled")
    if closed:
        for payment in cancelled:
            if payment.account_id not in closed:
                yield Violation.of(
                    payment, f"on {payment.account_id}, not on the closed account: not touched", "status"
                )
    for _, t in _tickets(ev, desk=False):
        if t.category != "closure" or t.reason not in ("balance_not_zero", "open_items"):
            continue
        accounts = _closure_account(ev, t)
        for payment in cancelled:
            if payment.account_id in accounts:
                yield Violation.of(payment, f"the closure is refused ({t.reason}): nothing is cancelled", "status")
        for account in closed & set(accounts):
            yield Violation.of(
                ev.end.get("accounts", account), f"the closure is refused ({t.reason}): nothing is closed", "status"
            )


# --------------------------------------------------------------------------- Tickets: classification ...


def _customer_done(ev: Evidence, category: str) -> bool:
    """Whether the conversation made the change a request of `category` asks for."""
    if category == "security":
        return bool(ev.updated("customers", "security_locked"))
    if category == "transfer":
        return bool(ev.added("transfers"))
    if category == "savings":
        return bool(_savings_withdrawals(ev))
    if category == "scheduled_payment":
        return bool(_set_to(ev, "scheduled_payments", "status", "cancelled"))
    if category == "card_lost":
        return any(
            c.status == "frozen" or (c.status == "blocked" and c.block_reason == "lost")
            for _, c in ev.updated("cards", "status")
        )
    if category == "card_stolen":
        return any(c.status == "blocked" and c.block_reason == "stolen" for _, c in ev.updated("cards", "status"))
    if category == "card_replacement":
        return any(c.replaces_card_id is not None for c in ev.added("cards"))
    if category == "fraud":
        unfrozen = any(w.status == "frozen" and c.status == "active" for w, c in ev.updated("cards", "status"))
        return unfrozen or bool(ev.updated("fraud_alerts", "status"))
    if category == "card_limit":
        return bool(ev.updated("cards", "daily_limit_cents"))
    if category == "dispute":
        return bool(ev.added("disputes"))
    if category == "fees":
        return bool(ev.added("fee_refunds"))
    if category == "closure":
        return bool(_set_to(ev, "accounts", "status", "closed"))
    return False  # kyc: support never changes a level


@RULES.rule(
    "NB-75",
    "A ticket carries a category; solved without a reason, its request was done",
    section=CUSTOMER_TICKETS,
    on=TICKET_TABLES,
    clauses=(
        "NB-60",
        "NB-61",
        "NB-62",
        "NB-63",
        "NB-64",
        "NB-65",
        "NB-66",
        "NB-67",
        "NB-68",
        "NB-69",
        "NB-70",
        "NB-71",
        "NB-72",
        "NB-73",
        "NB-74",
        "NB-75",
        "NB-87",
        "NB-93",
    ),
)
def a_ticket_solved_without_a_reason_had_its_request_done(ev: Evidence) -> Iterator[Violation]:
    for _, t in _tickets(ev, desk=False):
        if t.status not in FINAL:
            continue
        if t.category not in CUSTOMER_CATEGORIES:
            yield Violation.of(
                t, f"a customer ticket ends with a category of the customer desk, not {t.category}", "category"
            )
        elif t.status == "solved" and t.reason is None and not _customer_done(ev, t.category):
            yield Violation.of(
                t,
                f"solved with no reason, yet no {t.category} request was done: a refusal carries its reason",
                "reason",
            )


#: The reason codes each status takes, and the categories a reason belongs to (none: any).
_CUSTOMER_REASONS: dict[str, dict[str | None, tuple[str, ...]]] = {
    "solved": {
        None: (),
        "over_limit": ("card_limit",),
        "kyc_required": ("kyc",),
        "outside_window": ("dispute", "scheduled_payment", "fees", "card_lost"),
        "not_eligible": (),
        "balance_not_zero": ("closure",),
        "open_items": ("closure",),
    },
    "pending": {"identity_failed": (), "not_account_holder": (), "over_limit": ("transfer",)},
    "hold": {"security_lock": (), "fraud_suspected": ()},
}
_CUSTOMER_QUEUES = {
    ("hold", "security_lock"): "security",
    ("hold", "fraud_suspected"): "fraud_ops",
    ("pending", "over_limit"): "compliance",
}


def _closure_items(ev: Evidence, account_id: str) -> list[str]:
    """What stands in the way of closing an account with a balance of 0: holds, open disputes, late payments."""
    items = [f"hold {h.id}" for h in ev.end.where("holds", account_id=account_id, status="active")]
    account = ev.end.get("accounts", account_id)
    if account is not None:
        for d in ev.end.where("disputes", customer_id=account.customer_id, status="open"):
            tx = ev.start.get("transactions", d.transaction_id)
            if tx is not None and tx.account_id == account_id:
                items.append(f"dispute {d.id}")
    today = _today(ev)
    for p in ev.end.where("scheduled_payments", account_id=account_id, status="active"):
        if days_between(today, p.next_run_on) < 2:
            items.append(f"scheduled payment {p.id}")
    return items


@RULES.rule(
    "NB-76",
    "Reason, status and queue go together as the reason codes say",
    section=CUSTOMER_TICKETS,
    on=TICKET_TABLES,
    clauses=(
        "NB-76",
        "NB-77",
        "NB-78",
        "NB-79",
        "NB-80",
        "NB-81",
        "NB-82",
        "NB-83",
        "NB-84",
        "NB-85",
        "NB-86",
        "NB-88",
        "NB-89",
        "NB-90",
        "NB-91",
        "NB-92",
        "NB-94",
        "NB-95",
        "NB-96",
    ),
)
def a_ticket_reason_matches_its_status_and_queue(ev: Evidence) -> Iterator[Violation]:
    for was, t in _tickets(ev, desk=False):
        if t.status in ("new", "closed") and (was is None or was.status != t.status):
            yield Violation.of(t, f"{t.status} is set by the system, never by the agent", "status")
            continue
        reasons = _CUSTOMER_REASONS.get(t.status)
        if reasons is None:
            continue
        if t.reason not in reasons:
            allowed = ", ".join(str(r) for r in reasons)
            yield Violation.of(t, f"a {t.status} ticket takes reason {allowed}, not {t.reason}", "reason")
            continue
        categories = reasons[t.reason]
        if categories and t.category not in categories:
            yield Violation.of(t, f"{t.reason} is a reason for {', '.join(categories)}, not {t.category}", "reason")
        queue = _CUSTOMER_QUEUES.get((t.status, t.reason))
        if t.queue != queue:
            yield Violation.of(t, f"{t.status}/{t.reason} goes to queue {queue}, not {t.queue}", "queue")
        if t.reason == "identity_failed" and not _customer_failed(ev):
            yield Violation.of(t, "identity_failed, yet the caller was not refused by verify_identity", "reason")
        if t.reason in ("balance_not_zero", "open_items") and t.account_id is not None:
            account = ev.end.get("accounts", t.account_id)
            if account is None:
                continue
            if t.reason == "open_items" and account.balance_cents != 0:
                yield Violation.of(
                    t, f"the balance is {_cents(account.balance_cents)}: balance_not_zero comes first", "reason"
                )
            elif t.reason == "balance_not_zero" and account.balance_cents == 0:
                yield Violation.of(t, "the balance is 0: the closure is not refused for the balance", "reason")
            elif t.reason == "open_items" and not _closure_items(ev, account.id):
                yield Violation.of(t, f"nothing stands in the way of closing {account.id}: no open items", "reason")


@RULES.rule(
    "NB-97", "Priority stays, except high on hold or when a lock is set", section=CUSTOMER_TICKETS, on=TICKET_TABLES
)
def a_ticket_priority_changes_only_for_a_hold_or_a_lock(ev: Evidence) -> Iterator[Violation]:
    locked = {c.id for c in _set_to(ev, "customers", "security_locked", True)}
    for was, t in _tickets(ev, desk=False):
        if t.status == "hold" or t.requester_id in locked:
            due = "high"
        else:
            due = was.priority if was is not None else "normal"
        if t.priority != due:
            why = "on hold or locked" if due == "high" else "priority stays as it was"
            yield Violation.of(t, f"priority {t.priority}, not {due} ({why})", "priority")


@RULES.rule(
    "NB-99",
    "One internal comment when a reason is set, none otherwise, never a public one",
    section=CUSTOMER_TICKETS,
    on=TICKET_TABLES,
    clauses=("NB-98", "NB-99", "NB-100"),
)
def a_ticket_gets_one_internal_comment_exactly_when_it_gets_a_reason(ev: Evidence) -> Iterator[Violation]:
    yield from _comments_follow_the_reason(ev, desk=False)


def _comments_follow_the_reason(ev: Evidence, desk: bool) -> Iterator[Violation]:
    for was, t in _tickets(ev, desk=desk):
        for c in comments_added(ev, t.id):
            if c.public:
                yield Violation.of(c, "never a public comment: the replies are what the customer reads", "public")
        notes = internal_notes(ev, t.id)
        reason_set = t.reason is not None and (was is None or was.reason != t.reason)
        if reason_set and len(notes) != 1:
            yield Violation.of(
                t, f"reason {t.reason} is set with exactly one internal comment, not {len(notes)}", "reason"
            )
        elif t.reason is None and notes:
            yield Violation.of(notes[0], f"no reason is set, so no comment ({len(notes)} added)", "body")


# --------------------------------------------------------------------------- Internal help desk: who may ask


def _caller(ev: Evidence) -> str | None:
    """The employee the conversation verified, else the employee of the desk ticket it worked."""
    verified, _, _ = _verification(ev, "verify_employee", "employee_id")
    if verified:
        return verified[0]
    worked = _tickets(ev, desk=True)
    return worked[0][1].employee_id if worked else None


@RULES.rule(
    "NB-104",
    "Work in the caller's one new or open desk ticket; the customer articles stay out of it",
    section=DESK,
    on=TICKET_TABLES,
    clauses=("NB-101", "NB-104"),
)
def the_conversation_works_in_the_callers_open_desk_ticket(ev: Evidence) -> Iterator[Violation]:
    worked = _tickets(ev, desk=True)
    for was, now in worked:
        yield from _not_the_open_ticket(ev, was, now, "employee_id")
        if was is None and now.account_id is not None:
            yield Violation.of(now, "a desk ticket concerns no account", "account_id")
    yield from _more_than_one(worked)
    if worked:
        for table in sorted(ev.tables_written.intersection(CUSTOMER_RECORDS)):
            yield Violation.of(None, f"an employee's conversation changed customer records ({table})")


def _subjects(ev: Evidence) -> dict[str, RuleRow]:
    """The employees whose grants, requests or devices the conversation changed, with one changed row each."""
    found: dict[str, RuleRow] = {}
    for table, column in (
        ("access_grants", "employee_id"),
        ("access_requests", "employee_id"),
        ("devices", "assigned_to_id"),
    ):
        for was, now in ev.changed_rows(table):
            for row in (was, now):
                if row is not None and row[column] is not None:
                    found.setdefault(row[column], row)
    return found


def _may_ask_for(ev: Evidence, caller: RuleRow, employee: RuleRow) -> bool:
    if employee.id == caller.id or employee.manager_id == caller.id:
        return True
    return employee.leave_on is not None and caller.department == HUMAN_RESOURCES


@RULES.rule(
    "NB-102",
    "Verify the employee once before any change; act only for oneself, one's reports, or a leaver as HR",
    section=DESK,
    clauses=("NB-102", "NB-103", "NB-105"),
)
def the_verified_caller_acts_only_for_whom_they_may(ev: Evidence) -> Iterator[Violation]:
    verified, failed, made = _verification(ev, "verify_employee", "employee_id")
    if made > 1:
        yield Violation.of(None, f"the employee was checked {made} times: verify once")
    passed = False
    for c in ev.tool_calls():
        if c.tool == "verify_employee":
            passed = passed or _answer(c).get("verified") is True
        elif c.tool in DESK_WRITES and c.error is None and not passed:
            yield Violation.of(None, f"{c.tool} was called before the employee was verified")
    if failed and not verified:
        for table in sorted(ev.tables_written.intersection(DESK_RECORDS)):
            yield Violation.of(None, f"verification failed, yet the conversation changed {table}")
        for _, t in _tickets(ev, desk=True):
            if (t.status, t.reason) != ("pending", "identity_failed"):
                yield Violation.of(t, f"verification failed: pending with identity_failed, not {t.status}/{t.reason}")
        return
    if not ev.tables_written.intersection(DESK_RECORDS):
        return
    caller_id = _caller(ev)
    caller = ev.start.get("employees", caller_id) if caller_id else None
    if caller is None:
        return
    for employee_id, row in _subjects(ev).items():
        employee = ev.start.get("employees", employee_id)
        if employee is not None and not _may_ask_for(ev, caller, employee):
            yield Violation.of(
                row,
                f"{caller.id} is not {employee.id}'s line manager ({employee.manager_id}): nothing changes for them",
            )


@RULES.rule("NB-106", "Look the records up before deciding", section=DESK, on=DESK_RECORDS)
def desk_records_are_looked_up_before_they_are_changed(ev: Evidence) -> Iterator[Violation]:
    for i, c in _writes_made(ev, DESK_WRITES):
        yield from _acts_unseen(ev, i, c, DESK_WRITES[c.tool])
        if c.tool == "grant_access" and not any(
            d.tool == "list_access_grants" and d.arguments.get("employee_id") == c.arguments.get("employee_id")
            for d in ev.tool_calls()[:i]
        ):
            yield Violation.of(
                None, f"{c.arguments.get('employee_id')}'s grants were not looked up before granting a role"
            )


# --------------------------------------------------------------------------- Internal access: roles and approvals


def _role(ev: Evidence, role_id: str) -> tuple[RuleRow | None, RuleRow | None]:
    """A role and its system (both tables are a few seeded rows: read whole, once)."""
    roles, systems = _roles_and_systems(ev)
    role = roles.get(role_id)
    return role, (systems.get(role.system_id) if role is not None else None)


def _roles_and_systems(ev: Evidence) -> tuple[dict[str, RuleRow], dict[str, RuleRow]]:
    def read() -> tuple[dict[str, RuleRow], dict[str, RuleRow]]:
        roles = {r.id: r for r in ev.start.rows("system_roles")}
        return roles, {s.id: s for s in ev.start.rows("internal_systems")}

    found: tuple[dict[str, RuleRow], dict[str, RuleRow]] = ev.memo("roles", read)
    return found


def _needed(role: RuleRow, system: RuleRow) -> list[str]:
    """The approvals a role needs, in the order the queue of a hold takes them."""
    if role.privileged:
        return ["line_manager", "system_owner", "security"]
    if not role.read_only and system.risk == "high":
        return ["line_manager", "system_owner"]
    return ["line_manager"]


def _right_person(ev: Evidence, approval: RuleRow, employee: RuleRow, system: RuleRow) -> bool:
    if approval.capacity == "line_manager":
        return approval.approver_id == employee.manager_id
    if approval.capacity == "system_owner":
        return approval.approver_id == system.owner_id
    approver = ev.start.get("employees", approval.approver_id)
    return approver is not None and approver.department == INFORMATION_SECURITY


def _approved(
    ev: Evidence, request_id: str | None, employee: RuleRow, system: RuleRow, self_counts: bool = False
) -> set[str]:
    """The capacities approved on a request by the right person (not by the employee, unless `self_counts`)."""
    if request_id is None:
        return set()
    return {
        a.capacity
        for a in ev.start.where("approvals", request_id=request_id)
        if a.decision == "approved"
        and _right_person(ev, a, employee, system)
        and (self_counts or a.approver_id != employee.id)
    }


def _refused(ev: Evidence, request_id: str, employee: RuleRow, system: RuleRow) -> bool:
    return any(
        a.decision == "refused" and _right_person(ev, a, employee, system)
        for a in ev.start.where("approvals", request_id=request_id)
    )


def _missing(ev: Evidence, grant_or_request: RuleRow, caller: str | None, self_counts: bool = False) -> list[str]:
    """The approvals a grant or a request for a role still lacks (a line manager who asks approves by asking)."""
    employee = ev.start.get("employees", grant_or_request.employee_id)
    role, system = _role(ev, grant_or_request.role_id)
    if employee is None or role is None or system is None:
        return []
    request_id = grant_or_request.request_id if grant_or_request.table == "access_grants" else grant_or_request.id
    have = _approved(ev, request_id, employee, system, self_counts)
    if grant_or_request.kind == "emergency":
        return [] if "security" in have else ["security"]
    if caller is not None and caller == employee.manager_id:
        have.add("line_manager")
    return [c for c in _needed(role, system) if c not in have]


def _awaiting(ev: Evidence, employee_id: str, role_id: str) -> list[RuleRow]:
    return [
        r
        for r in ev.start.where("access_requests", employee_id=employee_id, role_id=role_id)
        if r.status == "awaiting_approval"
    ]


@RULES.rule(
    "NB-108",
    "A role is granted only with every approval it needs, against its awaiting request",
    section=ACCESS,
    on=("access_grants",),
    clauses=("NB-107", "NB-108", "NB-109", "NB-110", "NB-112"),
)
def a_role_is_granted_only_with_every_approval(ev: Evidence) -> Iterator[Violation]:
    caller = _caller(ev)
    for grant in ev.added("access_grants"):
        if grant.kind == "emergency":
            continue  # security's approval alone: Temporary and emergency access
        waiting = _awaiting(ev, grant.employee_id, grant.role_id)
        if waiting and grant.request_id is None:
            yield Violation.of(
                grant, f"request {waiting[0].id} awaits approval for this role: grant against it", "request_id"
            )
        missing = _missing(ev, grant, caller, self_counts=True)
        if missing:
            yield Violation.of(grant, f"{grant.role_id} still lacks the approval of {', '.join(missing)}", "role_id")
        employee = ev.start.get("employees", grant.employee_id)
        if (
            grant.kind == "standard"
            and grant.expires_on is not None
            and employee is not None
            and not employee.is_contractor
            and employee.leave_on is None
        ):
            yield Violation.of(grant, f"a standard role has no expiry, not {grant.expires_on}", "expires_on")


def _refusal(ev: Evidence, employee: RuleRow, role: RuleRow, kind: str, incident_id: str | None) -> str | None:
    """The reason a rule of Segregation of duties, Contractors or Temporary and emergency access refuses a role."""
    roles, _ = _roles_and_systems(ev)
    conflicting = {role.conflicts_with_id} | {r.id for r in roles.values() if r.conflicts_with_id == role.id}
    held = {g.role_id for g in ev.end.where("access_grants", employee_id=employee.id, status="active")}
    if conflicting & held:
        return "sod_conflict"
    if employee.department == INTERNAL_AUDIT and not role.read_only:
        return "auditor_read_only"
    if employee.is_contractor and role.privileged:
        return "contractor_limit"
    if kind == "emergency":
        incident = ev.start.get("incidents", incident_id) if incident_id else None
        if incident is None or incident.status != "open" or incident.system_id != role.system_id:
            return "no_open_incident"
    return None


@RULES.rule(
    "NB-113",
    "A missing approval is a recorded request and a hold; a refusal rejects the request; roles given up are revoked",
    section=ACCESS,
    on=("access_requests", "access_grants", TICKETS, COMMENTS),
    clauses=("NB-111", "NB-113", "NB-114", "NB-115", "NB-116"),
)
def a_request_waits_or_is_rejected_as_the_policy_says(ev: Evidence) -> Iterator[Violation]:
    caller = _caller(ev)
    granted = {(g.employee_id, g.role_id) for g in ev.added("access_grants")}
    for request in ev.added("access_requests"):
        if caller is not None and request.raised_by_id != caller:
            yield Violation.of(request, f"raised by {request.raised_by_id}, not by the caller {caller}", "raised_by_id")
        if request.status == "rejected":
            yield Violation.of(request, "never record a request only to reject it", "status")
        employee = ev.start.get("employees", request.employee_id)
        role, _ = _role(ev, request.role_id)
        if employee is not None and role is not None:
            refused = _refusal(ev, employee, role, request.kind, request.incident_id)
            if refused is not None:
                yield Violation.of(
                    request, f"{request.role_id} is refused ({refused}): no request is recorded", "role_id"
                )
    for _, request in ev.updated("access_requests", "status"):
        employee = ev.start.get("employees", request.employee_id)
        role, system = _role(ev, request.role_id)
        if request.status != "rejected" or employee is None or role is None or system is None:
            continue
        if request.reject_reason == "approval_refused":
            fits = _refused(ev, request.id, employee, system)
        elif request.reject_reason == "not_line_manager":
            raiser = ev.start.get("employees", request.raised_by_id)
            fits = raiser is not None and not _may_ask_for(ev, raiser, employee)
        else:
            fits = _refusal(ev, employee, role, request.kind, request.incident_id) == request.reject_reason
        if not fits:
            yield Violation.of(
                request, f"rejected as {request.reject_reason}, which the records do not bear out", "reject_reason"
            )
    for grant in ev.added("access_grants"):
        for request in _awaiting(ev, grant.employee_id, grant.role_id):
            employee = ev.start.get("employees", grant.employee_id)
            _, system = _role(ev, grant.role_id)
            if employee is not None and system is not None and _refused(ev, request.id, employee, system):
                yield Violation.of(
                    grant, f"{request.id} was refused by the right approver: the request ends", "role_id"
                )
    worked = _tickets(ev, desk=True)
    if any(t.category == "access" for _, t in worked):
        for grant in _set_to(ev, "access_grants", "status", "revoked"):
            if grant.revoke_reason != "no_longer_needed":
                yield Violation.of(
                    grant, f"a role given up is revoked as no_longer_needed, not {grant.revoke_reason}", "revoke_reason"
                )
    for _, t in worked:
        if (t.status, t.reason) != ("hold", "approval_required"):
            continue
        held = [r for r in ev.end.where("access_requests", status="awaiting_approval") if _in_conversation(ev, r)]
        lacking = [m for r in held if (m := _missing(ev, r, caller, self_counts=False))]
        if not held:
            yield Violation.of(t, "on hold for an approval, yet no request awaits approval", "reason")
        elif len(lacking) == 1:
            request = next(r for r in held if _missing(ev, r, caller))
            _, system = _role(ev, request.role_id)
            due = _queue_for(lacking[0], system)
            if t.queue != due:
                yield Violation.of(
                    t, f"{request.id} first lacks {lacking[0][0]}'s approval: queue {due}, not {t.queue}", "queue"
                )
        if granted & {(r.employee_id, r.role_id) for r in held}:
            yield Violation.of(t, "a role that waits for an approval is not granted", "reason")


def _queue_for(missing: list[str], system: RuleRow | None) -> str | None:
    if "system_owner" in missing and system is not None:
        return system.owner_queue
    if "security" in missing:
        return "security"
    return None


def _in_conversation(ev: Evidence, request: RuleRow) -> bool:
    """Whether the conversation recorded the request, or looked up its employee's requests."""
    if any(r.id == request.id for r in ev.added("access_requests")):
        return True
    return any(
        c.tool == "list_access_requests" and c.arguments.get("employee_id") == request.employee_id
        for c in ev.tool_calls()
    )


# --------------------------------------------------------------------------- Segregation of duties


@RULES.rule(
    "NB-117",
    "No conflicting roles, no approval of one's own access, read-only roles only for auditors",
    section=SOD,
    on=("access_grants",),
    clauses=("NB-117", "NB-118", "NB-119", "NB-109"),
)
def no_grant_breaks_segregation_of_duties(ev: Evidence) -> Iterator[Violation]:
    caller = _caller(ev)
    for grant in ev.added("access_grants"):
        employee = ev.start.get("employees", grant.employee_id)
        role, _ = _role(ev, grant.role_id)
        if employee is None or role is None:
            continue
        refused = _refusal(ev, employee, role, "standard", None)
        if refused == "sod_conflict":
            yield Violation.of(grant, f"{grant.role_id} conflicts with a role {employee.id} still holds", "role_id")
        elif refused == "auditor_read_only":
            yield Violation.of(grant, f"{employee.id} is an internal auditor: read-only roles only", "role_id")
        if (
            grant.kind != "emergency"
            and _missing(ev, grant, caller)
            and not _missing(ev, grant, caller, self_counts=True)
        ):
            yield Violation.of(grant, f"the grant rests on {employee.id}'s approval of their own access", "role_id")
    for grant in _set_to(ev, "access_grants", "status", "revoked"):
        if grant.revoke_reason == "sod_conflict":
            yield Violation.of(
                grant, "a conflicting role the employee gives up is revoked as no_longer_needed", "revoke_reason"
            )


# --------------------------------------------------------------------------- Contractors


@RULES.rule(
    "NB-120",
    "Contractors: no privileged role, no phone, every role ending by the contract end",
    section=CONTRACTORS,
    on=("access_grants", "devices"),
    clauses=("NB-120", "NB-121", "NB-122"),
)
def a_contractor_gets_only_what_contractors_may(ev: Evidence) -> Iterator[Violation]:
    for grant in ev.added("access_grants"):
        employee = ev.start.get("employees", grant.employee_id)
        if employee is None or not employee.is_contractor:
            continue
        role, _ = _role(ev, grant.role_id)
        if role is not None and role.privileged:
            yield Violation.of(grant, f"{grant.role_id} is privileged: never for a contractor", "role_id")
        end = employee.contract_end_on
        if end is not None and (grant.expires_on is None or grant.expires_on > end):
            yield Violation.of(
                grant, f"a contractor's role ends by the contract end {end}, not {grant.expires_on}", "expires_on"
            )
    for _, device in ev.updated("devices", "status"):
        if device.kind == "phone" and device.status == "assigned" and device.assigned_to_id is not None:
            employee = ev.start.get("employees", device.assigned_to_id)
            if employee is not None and employee.is_contractor:
                yield Violation.of(device, f"{employee.id} is a contractor: no company phone", "assigned_to_id")


# --------------------------------------------------------------------------- Temporary and emergency access


@RULES.rule(
    "NB-123",
    "Temporary access ends on its date, at most 30 days out; emergency access for an open incident, until tomorrow",
    section=TEMPORARY,
    on=("access_grants", "access_requests", TICKETS, COMMENTS),
    clauses=("NB-123", "NB-124", "NB-125", "NB-126", "NB-1", "NB-109"),
)
def temporary_and_emergency_access_end_when_the_policy_says(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    cap = today + dt.timedelta(days=30)
    for grant in ev.added("access_grants"):
        request = ev.start.get("access_requests", grant.request_id) if grant.request_id else None
        employee = ev.start.get("employees", grant.employee_id)
        role, system = _role(ev, grant.role_id)
        if employee is None or role is None or system is None:
            continue
        if grant.kind == "temporary":
            due = cap
            if request is not None and request.needed_until is not None:
                due = min(request.needed_until, cap)
            if employee.is_contractor and employee.contract_end_on is not None:
                due = min(due, employee.contract_end_on)
            late = grant.expires_on is None or grant.expires_on > due
            if late or (request is not None and request.needed_until is not None and grant.expires_on != due):
                yield Violation.of(grant, f"temporary access ends on {due}, not {grant.expires_on}", "expires_on")
        if grant.kind != "emergency":
            continue
        if grant.expires_on != today + dt.timedelta(days=1):
            yield Violation.of(grant, f"emergency access ends tomorrow, not {grant.expires_on}", "expires_on")
        incident = request.incident_id if request is not None else None
        if _refusal(ev, employee, role, "emergency", incident) == "no_open_incident":
            yield Violation.of(
                grant, f"no open incident on {role.system_id} ({incident}): no emergency access", "role_id"
            )
        if "security" not in _approved(ev, grant.request_id, employee, system):
            yield Violation.of(grant, "emergency access needs security's approval", "role_id")
    for request in ev.added("access_requests"):
        if request.kind == "emergency" and request.incident_id is None:
            yield Violation.of(request, "an emergency request names its incident", "incident_id")
    for _, t in _tickets(ev, desk=True):
        if t.category == "emergency_access" and t.priority != "urgent":
            yield Violation.of(t, f"emergency access is urgent, not {t.priority}", "priority")


# --------------------------------------------------------------------------- Joiners


def _profile(employee: RuleRow) -> str:
    return "developer" if employee.department == TECHNOLOGY else "standard"


def _first_in_stock(ev: Evidence, kind: str, profile: str | None = None) -> RuleRow | None:
    for device in ev.start.where("devices", kind=kind, status="in_stock"):
        if profile is None or device.profile == profile:
            return device
    return None


def _handed_out(ev: Evidence) -> list[RuleRow]:
    return [d for was, d in ev.updated("devices", "status") if d.status == "assigned" and was.status == "in_stock"]


def _right_device(ev: Evidence, device: RuleRow, employee: RuleRow) -> Iterator[Violation]:
    """A laptop of the employee's profile, or a token or phone: the in-stock one with the lowest id."""
    profile = _profile(employee) if device.kind == "laptop" else None
    if profile is not None and device.profile != profile:
        yield Violation.of(
            device, f"{employee.id} ({employee.department}) gets a {profile} laptop, not {device.profile}", "id"
        )
        return
    first = _first_in_stock(ev, device.kind, profile)
    if first is not None and first.id != device.id:
        yield Violation.of(device, f"the in-stock {device.kind} with the lowest id is {first.id}", "id")


def _payments_role(ev: Evidence, grant: RuleRow) -> bool:
    role, _ = _role(ev, grant.role_id)
    return role is not None and role.system_id == PAYMENTS_HUB and not role.read_only


@RULES.rule(
    "NB-127",
    "A joiner is set up only at the line manager's request: laptop by profile, token only with a payments role",
    section=JOINERS,
    on=DESK_RECORDS,
    clauses=("NB-127", "NB-128", "NB-129"),
)
def a_joiner_is_set_up_only_as_the_policy_says(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    caller = _caller(ev)
    for employee_id, row in _subjects(ev).items():
        employee = ev.start.get("employees", employee_id)
        if employee is None or employee.start_on <= today:
            continue
        if caller != employee.manager_id:
            yield Violation.of(row, f"{employee.id} is a joiner: only their line manager {employee.manager_id} asks")
        paying = any(_payments_role(ev, g) for g in ev.added("access_grants") if g.employee_id == employee.id)
        for device in _handed_out(ev):
            if device.assigned_to_id != employee.id:
                continue
            if device.kind == "token" and not paying:
                yield Violation.of(
                    device, "a joiner gets a token only with a payments hub role given now", "assigned_to_id"
                )
            yield from _right_device(ev, device, employee)


# --------------------------------------------------------------------------- Movers


@RULES.rule(
    "NB-131",
    "A mover loses the previous department's roles (moved) and the token with the last payments role",
    section=MOVERS,
    on=("access_grants", "devices"),
    clauses=("NB-130", "NB-131", "NB-132"),
)
def a_mover_keeps_only_what_the_new_job_needs(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for employee_id in _subjects(ev):
        employee = ev.start.get("employees", employee_id)
        if employee is None:
            continue
        mover = (
            employee.previous_department is not None and employee.moved_on is not None and employee.moved_on <= today
        )
        revoked = [g for g in _set_to(ev, "access_grants", "status", "revoked") if g.employee_id == employee.id]
        for grant in revoked:
            if grant.revoke_reason != "moved":
                continue
            role, _ = _role(ev, grant.role_id)
            if not mover:
                yield Violation.of(grant, f"{employee.id} is not a mover: nothing is revoked as moved", "revoke_reason")
            elif role is not None and role.department != employee.previous_department:
                yield Violation.of(
                    grant,
                    f"{grant.role_id} is not a role of the previous department {employee.previous_department}",
                    "status",
                )
        if not mover or not any(g.revoke_reason == "moved" for g in revoked):
            continue
        active = ev.end.where("access_grants", employee_id=employee.id, status="active")
        for grant in active:
            role, _ = _role(ev, grant.role_id)
            if role is not None and role.department == employee.previous_department:
                yield Violation.of(
                    grant, f"{grant.role_id} belongs to {employee.previous_department}: revoke it (moved)", "status"
                )
        had = any(
            _payments_role(ev, g) for g in ev.start.where("access_grants", employee_id=employee.id, status="active")
        )
        has = any(_payments_role(ev, g) for g in active)
        for was, device in ev.changed_rows("devices"):
            if was is None or was.assigned_to_id != employee.id:
                continue
            if device is not None and device.status != was.status and (device.kind != "token" or has):
                yield Violation.of(device, f"{device.kind} {device.id} stays with the mover", "status")
        if had and not has:
            for token in ev.end.where("devices", assigned_to_id=employee.id, kind="token", status="assigned"):
                yield Violation.of(token, "no payments hub role is left: the token comes back (working)", "status")


# --------------------------------------------------------------------------- Leavers


@RULES.rule(
    "NB-134",
    "A leaver's grants expire on a future leave date, and everything is revoked and handed in after it",
    section=LEAVERS,
    on=DESK_RECORDS,
    clauses=("NB-133", "NB-134", "NB-135"),
)
def a_leavers_access_ends_with_the_leave_date(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for employee_id in _subjects(ev):
        employee = ev.start.get("employees", employee_id)
        changed = [
            now for _, now in ev.changed_rows("access_grants") if now is not None and now.employee_id == employee_id
        ]
        left = [g for g in changed if g.status == "revoked" and g.revoke_reason == "leaver"]
        if employee is None or employee.leave_on is None:
            for grant in left:
                yield Violation.of(
                    grant, f"{employee_id} has no leave date: nothing is revoked as leaver", "revoke_reason"
                )
            continue
        active = ev.end.where("access_grants", employee_id=employee.id, status="active")
        if employee.leave_on > today:
            for grant in left:
                yield Violation.of(
                    grant, f"the leave date {employee.leave_on} is still ahead: revoke nothing yet", "status"
                )
            if any(g.expires_on == employee.leave_on for g in changed):
                for grant in active:
                    if grant.expires_on is None or grant.expires_on > employee.leave_on:
                        yield Violation.of(
                            grant,
                            f"expires on the leave date {employee.leave_on}, not {grant.expires_on}",
                            "expires_on",
                        )
        elif left:
            for grant in active:
                yield Violation.of(
                    grant, f"{employee.id} left on {employee.leave_on}: every grant is revoked", "status"
                )
            for device in ev.end.where("devices", assigned_to_id=employee.id, status="assigned"):
                yield Violation.of(
                    device, f"{employee.id} left on {employee.leave_on}: every device comes back", "status"
                )


# --------------------------------------------------------------------------- Devices


@RULES.rule(
    "NB-136",
    "Laptops replaced when broken or 4+ years old, lost devices reported and replaced, one of each kind",
    section=DEVICES,
    on=("devices", TICKETS, COMMENTS),
    clauses=("NB-136", "NB-137", "NB-138", "NB-139", "NB-1"),
)
def devices_are_replaced_as_the_policy_says(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    refresh = today.replace(year=today.year - 4)
    handed = _handed_out(ev)
    gone = [(was, d) for was, d in ev.updated("devices", "status") if was.status == "assigned"]
    for was, device in gone:
        employee = ev.start.get("employees", was.assigned_to_id) if was.assigned_to_id else None
        if employee is None:
            continue
        replaced = [d for d in handed if d.kind == device.kind and d.assigned_to_id == employee.id]
        if device.kind == "laptop" and device.status == "returned" and replaced and device.purchased_on > refresh:
            yield Violation.of(
                device, f"a working laptop bought {device.purchased_on} is replaced after 4 years", "status"
            )
        if device.status == "lost" and device.kind == "laptop" and replaced:
            yield Violation.of(
                replaced[0], "a lost laptop is not replaced by the desk: security decides", "assigned_to_id"
            )
        lost_here = device.status == "lost" and device.kind in ("token", "phone")
        contractor_phone = device.kind == "phone" and employee.is_contractor
        if lost_here and not replaced and not contractor_phone and employee.leave_on is None:
            yield Violation.of(device, f"a lost {device.kind} is replaced at once from stock", "status")
    receivers = {d.assigned_to_id for d in handed}
    for device in handed:
        employee = ev.start.get("employees", device.assigned_to_id)
        if employee is None or employee.start_on > today:
            continue  # a joiner's devices: Joiners
        yield from _right_device(ev, device, employee)
    for employee_id in receivers:
        kinds = [d.kind for d in ev.end.where("devices", assigned_to_id=employee_id, status="assigned")]
        for kind in sorted(set(kinds)):
            if kinds.count(kind) > 1:
                yield Violation.of(handed[0], f"{employee_id} has {kinds.count(kind)} {kind}s assigned: at most one")
    lost_laptop = any(d.kind == "laptop" and d.status == "lost" for _, d in gone)
    for _, t in _tickets(ev, desk=True):
        if (
            lost_laptop
            and t.reason == "device_lost"
            and (t.status, t.queue, t.priority) != ("hold", "security", "high")
        ):
            yield Violation.of(
                t, f"a lost laptop: hold, queue security, priority high, not {t.status}/{t.queue}/{t.priority}"
            )
        if t.reason == "device_lost" and not lost_laptop:
            yield Violation.of(t, "device_lost, yet no laptop was reported lost", "reason")


# --------------------------------------------------------------------------- Internal desk tickets


def _desk_done(ev: Evidence, category: str) -> bool:
    """Whether the conversation made the change a desk request of `category` asks for."""
    grants = ev.added("access_grants")
    revoked = _set_to(ev, "access_grants", "status", "revoked")
    if category == "access":
        return bool(grants or revoked)
    if category == "emergency_access":
        return any(g.kind == "emergency" for g in grants)
    if category == "joiner":
        return bool(grants or _handed_out(ev))
    if category == "mover":
        return bool(grants or revoked)
    if category == "leaver":
        return bool(revoked or ev.updated("access_grants", "expires_on") or ev.updated("devices", "status"))
    return bool(ev.updated("devices", "status"))  # device


@RULES.rule(
    "NB-142",
    "A desk ticket ends with its category; solved without a reason, its request was done; priority stays",
    section=DESK_TICKETS,
    clauses=("NB-141", "NB-142", "NB-143", "NB-144", "NB-145", "NB-146", "NB-147", "NB-155"),
)
def a_desk_ticket_solved_without_a_reason_had_its_request_done(ev: Evidence) -> Iterator[Violation]:
    worked = _tickets(ev, desk=True)
    for was, t in worked:
        if t.status not in FINAL:
            yield Violation.of(t, f"ticket {t.id} is left {t.status}, not pending, hold or solved", "status")
            continue
        if t.category not in DESK_CATEGORIES:
            yield Violation.of(t, f"a desk ticket ends with a category of the desk, not {t.category}", "category")
        elif t.status == "solved" and t.reason is None and not _desk_done(ev, t.category):
            yield Violation.of(t, f"solved with no reason, yet no {t.category} request was done", "reason")
        due = was.priority if was is not None else "normal"
        if t.category == "emergency_access":
            due = "urgent"
        elif t.reason == "device_lost":
            due = "high"
        if t.priority != due:
            yield Violation.of(t, f"priority {t.priority}, not {due}", "priority")
    yield from _none_ended(ev, worked, DESK_RECORDS, "desk", "find_employee")


_DESK_REASONS: dict[str, tuple[str | None, ...]] = {
    "solved": (
        None,
        "not_line_manager",
        "sod_conflict",
        "auditor_read_only",
        "contractor_limit",
        "no_open_incident",
        "approval_refused",
        "not_eligible",
    ),
    "pending": ("identity_failed",),
    "hold": ("approval_required", "device_lost"),
}
_OWNER_QUEUES = ("core_banking_team", "payments_team", "cards_team", "crm_team", "data_team")


@RULES.rule(
    "NB-149",
    "A desk ticket's reason matches its status and queue, with exactly one internal comment",
    section=DESK_TICKETS,
    on=TICKET_TABLES,
    clauses=("NB-140", "NB-148", "NB-149", "NB-150", "NB-151", "NB-152", "NB-153", "NB-154"),
)
def a_desk_ticket_reason_matches_its_status_and_queue(ev: Evidence) -> Iterator[Violation]:
    for _, t in _tickets(ev, desk=True):
        reasons = _DESK_REASONS.get(t.status)
        if reasons is None:
            continue
        if t.reason not in reasons:
            allowed = ", ".join(str(r) for r in reasons)
            yield Violation.of(t, f"a {t.status} desk ticket takes reason {allowed}, not {t.reason}", "reason")
        elif t.reason == "approval_required":
            if t.queue not in (*_OWNER_QUEUES, "security", None):
                yield Violation.of(
                    t, f"waiting for an approval goes to an owner's queue or security, not {t.queue}", "queue"
                )
        elif t.reason == "device_lost":
            if t.queue != "security":
                yield Violation.of(t, f"a lost laptop goes to queue security, not {t.queue}", "queue")
        elif t.queue is not None:
            yield Violation.of(t, f"{t.status}/{t.reason} goes to no queue, not {t.queue}", "queue")
        if t.reason == "identity_failed" and not _employee_failed(ev):
            yield Violation.of(t, "identity_failed, yet the caller was not refused by verify_employee", "reason")
    yield from _comments_follow_the_reason(ev, desk=True)


# --------------------------------------------------------------------------- judgement only

RULES.judgement(
    "NB-24",
    section=TRANSFERS,
    why="telling the customer that the balance is too low; the tool itself refuses a transfer above the available "
    "balance",
)

__all__ = ["RULES"]
