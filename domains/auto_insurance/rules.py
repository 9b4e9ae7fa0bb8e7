"""The auto insurance desk's policy (`policy.md`) as executable rules: the second oracle beside each golden path.

Each rule reads one attempt's `Evidence` (the start and end state, the rows the
conversation wrote and, where a clause is about what was looked up or in what
order, its tool calls) and names the rows that break a clause of the policy.
Rules are conditional: they judge the records the conversation wrote and the
ticket it worked, never the rest of the book. Clauses that only say what the
agent tells the customer, or that no record or tool call can show, are marked
judgement-only.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from functools import cached_property
from typing import Any, TypeGuard

from domains.shared.rules import TICKET_TABLES, TICKETS, comments_added, days_between, internal_notes, worked_tickets
from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import RuleRow, TableView, ToolCall

from .tools import tools as _toolset
from .vin import check_vin

RULES = Rules()

# --- what the rules share ---------------------------------------------------------------------------------------

#: The tables a change to a policy, its billing or a claim writes (everything but the tickets).
RECORD_TABLES = (
    "policies",
    "vehicles",
    "drivers",
    "coverages",
    "billing_accounts",
    "bills",
    "payments",
    "payment_extensions",
    "instalment_plans",
    "claims",
    "claim_payments",
    "premium_adjustments",
    "documents",
)
ALL_TABLES = RECORD_TABLES + TICKET_TABLES
TICKET_TOOLS = frozenset({"create_ticket", "update_ticket", "add_ticket_comment", "get_ticket", "list_tickets"})
IDENTITY_TOOLS = frozenset({"find_customer_by_email", "verify_identity"})
#: The tools that record a change other than the ticket tools.
RECORD_WRITES = frozenset(_toolset.writes()) - TICKET_TOOLS

SAME_DAY_STATES = frozenset({"AZ", "CO", "GA", "OH", "TX"})
NEXT_DAY_STATES = frozenset({"CA", "FL", "IL", "NY", "PA"})
LIABILITY = ("bodily_injury_liability", "property_damage_liability")
PHYSICAL_DAMAGE = ("collision", "comprehensive")
DEDUCTIBLES = (25_000, 50_000, 100_000, 150_000, 200_000)
MAJOR_ESTIMATE_CENTS = 500_000
REINSTATEMENT_DAYS = 30
SALE_DATE_DAYS = 30
NEWLY_ACQUIRED_DAYS = 14
EXTENSION_DAYS = 10
MAX_RENTAL_DAYS = 30
#: The coverage each kind of desk claim payment comes from.
PAID_FROM = {
    "glass_repair": "comprehensive",
    "rental_reimbursement": "rental_reimbursement",
    "towing": "roadside_assistance",
}

WAITING = ("pending", "hold")
FINAL = ("pending", "hold", "solved")
PENDING_REASONS = frozenset({"identity_not_verified", "licence_not_valid", "invalid_vin", "insufficient_payment"})
#: A hold's reason, and the queue it goes to.
HOLD_QUEUES = {
    "open_major_claim": "claims",
    "major_claim": "claims",
    "payment_dispute": "billing",
    "underwriting_review": "underwriting",
}
SOLVED_REASONS = frozenset(
    {
        "not_policyholder",
        "licence_not_valid",
        "not_covered",
        "not_eligible",
        "outside_window",
        "insufficient_payment",
        "below_deductible",
    }
)
#: The categories a refusal reason can belong to (reasons not named here fit any category).
REASON_CATEGORIES = {
    "licence_not_valid": {"driver"},
    "invalid_vin": {"vehicle"},
    "open_major_claim": {"coverage", "vehicle"},
    "major_claim": {"claim"},
    "not_covered": {"claim"},
    "below_deductible": {"claim"},
    "payment_dispute": {"billing", "cancellation"},
    "underwriting_review": {"reinstatement"},
    "outside_window": {"reinstatement"},
    "insufficient_payment": {"cancellation", "reinstatement"},
}
_RANK = {"solved": 0, "pending": 1, "hold": 2}


def _today(ev: Evidence) -> dt.date:
    assert ev.now is not None, "the auto insurance rules count days from the domain clock"
    return ev.now.date()


def _year_ago(today: dt.date) -> dt.date:
    """The first day of "the last 12 months": the same calendar day one year before today."""
    try:
        return today.replace(year=today.year - 1)
    except ValueError:  # 29 February
        return today.replace(year=today.year - 1, day=28)


def _licence(number: Any) -> str:
    """A licence number as the tools compare them."""
    return str(number or "").strip().upper()


def _money(cents: int) -> str:
    return f"{cents:,} cents"


class Transcript:
    """What the conversation's tool calls show: verifications, licence and VIN checks, where each write came."""

    def __init__(self, ev: Evidence) -> None:
        self.calls: list[ToolCall] = ev.tool_calls()
        self._parsed: dict[int, Any] = {}

    def result(self, index: int) -> Any:
        """The call's result as JSON (None when it is not JSON), parsed once."""
        if index not in self._parsed:
            try:
                self._parsed[index] = json.loads(self.calls[index].result)
            except ValueError:
                self._parsed[index] = None
        return self._parsed[index]

    def ok(self, tool: str) -> list[int]:
        """The positions of the successful calls of `tool`."""
        return [i for i, c in enumerate(self.calls) if c.tool == tool and c.error is None]

    def _rows(self, tool: str) -> Iterator[tuple[int, dict[str, Any]]]:
        """(position, result) of each successful call of `tool` that returned a record."""
        for i in self.ok(tool):
            row = self.result(i)
            if isinstance(row, dict):
                yield i, row

    @cached_property
    def verifications(self) -> list[tuple[int, bool, str | None]]:
        return [
            (i, bool(found.get("verified")), found.get("customer_id")) for i, found in self._rows("verify_identity")
        ]

    @cached_property
    def passed_at(self) -> int | None:
        """Where the caller first passed verification, if they did."""
        return next((i for i, passed, _ in self.verifications if passed), None)

    @cached_property
    def verified(self) -> set[str]:
        return {who for _, passed, who in self.verifications if passed and who}

    @cached_property
    def failed_only(self) -> bool:
        """Verification failed and never passed."""
        return bool(self.verifications) and self.passed_at is None

    @cached_property
    def callers(self) -> set[str]:
        """The customers the caller was identified as (by email) or verified as."""
        return self.verified | {row["id"] for _, row in self._rows("find_customer_by_email") if row.get("id")}

    @cached_property
    def first_record_write(self) -> int | None:
        return next((i for i, c in enumerate(self.calls) if c.error is None and c.tool in RECORD_WRITES), None)

    @cached_property
    def licence_checks(self) -> list[tuple[int, str, str, str]]:
        """(position, licence number, state, status) of each licence record check_licence returned."""
        return [
            (i, _licence(row.get("licence_number")), str(row.get("licence_state")), str(row.get("status")))
            for i, row in self._rows("check_licence")
        ]

    @cached_property
    def vin_checks(self) -> list[tuple[int, str, bool]]:
        """(position, VIN, valid) of each decode_vin."""
        return [
            (i, str(row.get("vin") or self.calls[i].arguments.get("vin", "")).upper(), bool(row.get("valid")))
            for i, row in self._rows("decode_vin")
        ]

    def position(self, tool: str, **arguments: Any) -> int | None:
        """Where the first successful call of `tool` with these arguments (a subset) was made."""
        for i in self.ok(tool):
            if all(self.calls[i].arguments.get(k) == v for k, v in arguments.items()):
                return i
        return None

    def made(self, tool: str, result_id: str) -> int | None:
        """Where the successful call of `tool` whose result has this id was made (a created row)."""
        return next((i for i, row in self._rows(tool) if row.get("id") == result_id), None)


def _transcript(ev: Evidence) -> Transcript:
    """The attempt's transcript, read once for every rule that needs it."""
    transcript: Transcript = ev.memo(("auto_insurance", "transcript"), lambda: Transcript(ev))
    return transcript


def _ticket(ev: Evidence) -> RuleRow | None:
    """The ticket the conversation worked (the first, when it wrongly worked several)."""
    return next((now for _, now in worked_tickets(ev)), None)


def _sent(ev: Evidence, kind: str) -> list[RuleRow]:
    """The documents of `kind` the conversation sent."""
    return [d for d in ev.added("documents") if d.kind == kind]


def _open_major(view: TableView, **match: Any) -> list[RuleRow]:
    """The open major claims of a state that match (a policy's, a vehicle's)."""
    return [c for c in view.where("claims", status="open", **match) if c.severity == "major"]


def _moved(ev: Evidence, table: str, to: str, *, from_: str | None = None) -> list[tuple[RuleRow, RuleRow]]:
    """(before, after) of each row of `table` whose status the conversation moved to `to` (from `from_`, or any)."""
    return [
        (was, now)
        for was, now in ev.updated(table, "status")
        if now.status == to and (from_ is None or was.status == from_)
    ]


def _policy_then_and_now(ev: Evidence, policy_id: str) -> tuple[RuleRow | None, RuleRow | None]:
    """The policy at the start and as the conversation left it."""
    return ev.start.get("policies", policy_id), ev.end.get("policies", policy_id)


def _policy_of(ev: Evidence, table: str, row: RuleRow) -> str | None:
    """The policy a row of a record table belongs to."""
    if table == "policies":
        return str(row.id)
    if "policy_id" in row:
        return row.policy_id
    if "billing_account_id" in row:
        account = ev.end.get("billing_accounts", row.billing_account_id)
        return account.policy_id if account else None
    if table == "claim_payments":
        claim = ev.end.get("claims", row.claim_id)
        return claim.policy_id if claim else None
    return None


def _policies_written(ev: Evidence) -> dict[str, tuple[str, RuleRow]]:
    """Each policy the conversation changed a record of, with the first (table, row) that shows it."""
    found: dict[str, tuple[str, RuleRow]] = {}
    for table in RECORD_TABLES:
        for was, now in ev.changed_rows(table):
            row = now if now is not None else was
            assert row is not None
            policy = _policy_of(ev, table, row)
            if policy is not None:
                found.setdefault(policy, (table, row))
    return found


def _requesters_policies(ev: Evidence, ticket: RuleRow | None) -> list[RuleRow]:
    """The policies of the customer the ticket is for (or of the verified caller)."""
    owners = {ticket.requester_id} if ticket is not None else _transcript(ev).verified
    return [p for who in sorted(owners) for p in ev.start.where("policies", customer_id=who)]


def _open_major_claims(ev: Evidence, policy_id: str) -> list[RuleRow]:
    """The policy's open major claims, at the start or as the conversation left them."""
    found = {c.id: c for c in _open_major(ev.start, policy_id=policy_id)}
    for c in _open_major(ev.end, policy_id=policy_id):
        found.setdefault(c.id, c)
    return [found[k] for k in sorted(found)]


def _made_major(ev: Evidence) -> list[RuleRow]:
    """The claims the conversation filed as major or turned major."""
    return [
        now
        for was, now in ev.changed_rows("claims")
        if now is not None and now.severity == "major" and (was is None or was.severity != "major")
    ]


def _still_cancelled(ev: Evidence, policy: RuleRow) -> RuleRow | None:
    """The policy as the conversation left it, when it is (still) cancelled."""
    now = ev.end.get("policies", policy.id)
    return now if now is not None and now.status == "cancelled" else None


def _waiting_reasons(ev: Evidence) -> dict[str, str]:
    """The reasons the conversation's ticket may wait (pending or hold) for, given what it found and did."""
    reasons: dict[str, str] = ev.memo(("auto_insurance", "waiting reasons"), lambda: _find_waiting_reasons(ev))
    return reasons


def _find_waiting_reasons(ev: Evidence) -> dict[str, str]:
    t = _transcript(ev)
    reasons = {"payment_dispute": "the customer says a payment is missing or was taken twice"}
    if t.failed_only:
        reasons["identity_not_verified"] = "verification failed"
    if _sent(ev, "excluded_driver_form"):
        reasons["licence_not_valid"] = "an excluded-driver form was sent"
    if any(not valid for _, _, valid in t.vin_checks):
        reasons["invalid_vin"] = "a VIN failed decode_vin"
    if any(now is not None and now.severity == "major" for _, now in ev.changed_rows("claims")):
        reasons["major_claim"] = "a claim was filed or updated as major"
    today = _today(ev)
    for policy in _requesters_policies(ev, _ticket(ev)):
        cancelled = _still_cancelled(ev, policy)
        if cancelled is not None and cancelled.cancellation_effective_on is not None:
            if cancelled.cancellation_reason != "non_payment":
                reasons["underwriting_review"] = f"policy {policy.id} was cancelled for another reason than non-payment"
            elif days_between(cancelled.cancellation_effective_on, today) <= REINSTATEMENT_DAYS:
                reasons["insufficient_payment"] = f"policy {policy.id} can still be reinstated"
        if _open_major_claims(ev, policy.id):
            reasons["open_major_claim"] = f"policy {policy.id} has an open major claim"
    return reasons


def _left_waiting(ev: Evidence, what: str) -> Iterator[Violation]:
    """After a change the conversation made, the ticket waits only for what another request of it waits on."""
    ticket = _ticket(ev)
    if ticket is None or ticket.status not in WAITING:
        return
    if ticket.reason not in _waiting_reasons(ev):
        yield Violation.of(
            ticket,
            f"{what}, yet ticket {ticket.id} is left {ticket.status} ({ticket.reason or 'no reason'}) while nothing "
            "in this conversation waits on the customer or another team: it ends solved",
            "status",
        )


def _status_when(ev: Evidence, policy_id: str, at: int | None) -> str | None:
    """A policy's status when the call at `at` was made: its start status, or its end status once the
    conversation's rescind_cancellation or reinstate_policy came before that call."""
    was, now = _policy_then_and_now(ev, policy_id)
    if was is None or now is None or was.status == now.status:
        return None if now is None else now.status
    t = _transcript(ev)
    changed = [t.position(tool, policy_id=policy_id) for tool in ("rescind_cancellation", "reinstate_policy")]
    if at is not None and any(i is not None and i < at for i in changed):
        return now.status
    return was.status


def _unearned(policy: RuleRow, premium: int, first_day: dt.date) -> int:
    """The unearned premium from the first day no longer covered to the term end, as quote_unearned_premium gives it."""
    term_days = (policy.term_end - policy.term_start).days + 1
    days_left = (policy.term_end - first_day).days + 1
    return premium * days_left // term_days


def _quoted(ev: Evidence, policy_id: str, first_day: dt.date, vehicle_id: str | None) -> bool:
    """Whether quote_unearned_premium was asked for this policy, first day and vehicle."""
    t = _transcript(ev)
    return any(
        a.get("policy_id") == policy_id
        and str(a.get("from_date", "")).strip() == first_day.isoformat()
        and a.get("vehicle_id") == vehicle_id
        for a in (t.calls[i].arguments for i in t.ok("quote_unearned_premium"))
    )


def _in_force(coverage: RuleRow, day: dt.date) -> bool:
    """Whether a coverage was in force on a day: started by then and not removed on or before it."""
    if coverage.effective_on is not None and coverage.effective_on > day:
        return False
    if coverage.status == "removed":
        return coverage.changed_on is not None and coverage.changed_on > day
    return True


# --- Working a conversation -------------------------------------------------------------------------------------

WORK = "Working a conversation"

RULES.judgement(
    "AI-1",
    section=WORK,
    why="defines today and how days are counted; the date rules of the other articles (AI-12, AI-20, AI-26, AI-55, "
    "AI-59, AI-65, AI-67) apply it, and on its own it requires nothing of the records",
)
RULES.judgement(
    "AI-6",
    section=WORK,
    why="says amounts are cents and dates YYYY-MM-DD; the amount rules of the other articles apply it, and a "
    "misread amount shows only against what the customer said",
)


#: The changes that act on a policy's vehicles, drivers, coverages or cancellation details, which only get_policy shows.
NEEDS_POLICY_READ = RECORD_WRITES - {"schedule_cancellation", "send_document"}


@RULES.rule(
    "AI-2",
    "Every change acts on records the conversation looked up, not on what the caller says they hold",
    section=WORK,
    on=RECORD_TABLES,
)
def changes_act_on_records_looked_up_first(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    policies_read: set[str] = set()
    shown: list[str] = []  # what the look-ups and earlier writes returned
    for c in t.calls:
        if c.error is not None:
            continue
        if c.tool in RECORD_WRITES:
            policy = c.arguments.get("policy_id")
            if isinstance(policy, str) and policy not in policies_read and c.tool in NEEDS_POLICY_READ:
                yield Violation.of(None, f"{c.tool} changes policy {policy}, which get_policy did not read before")
            for name, value in sorted(c.arguments.items()):
                if name.endswith("_id") and isinstance(value, str) and not any(f'"{value}"' in s for s in shown):
                    yield Violation.of(None, f"{c.tool} acts on {name} {value}, which no look-up before it showed")
        if c.tool == "get_policy":
            policies_read.add(str(c.arguments.get("policy_id")))
        if c.tool not in TICKET_TOOLS and c.tool not in IDENTITY_TOOLS:
            shown.append(c.result)


@RULES.rule(
    "AI-3",
    "The conversation works the customer's one new or open ticket, creating one only when they have none",
    section=WORK,
    on=TICKET_TABLES,
)
def works_the_customers_open_ticket(ev: Evidence) -> Iterator[Violation]:
    worked = worked_tickets(ev)
    callers = _transcript(ev).callers
    for was, now in worked:
        if was is not None and was.status not in ("new", "open"):
            yield Violation.of(
                now,
                f"ticket {now.id} was {was.status} before the conversation: only a new or open ticket is worked",
                "status",
            )
        if callers and now.requester_id not in callers:
            yield Violation.of(
                now,
                f"ticket {now.id} is {now.requester_id}'s, not the caller's ({', '.join(sorted(callers))})",
                "requester_id",
            )
        if was is None:
            open_ = [
                t.id
                for status in ("new", "open")
                for t in ev.start.where(TICKETS, requester_id=now.requester_id, status=status)
            ]
            if open_:
                yield Violation.of(now, f"ticket {now.id} was created while {', '.join(open_)} was open", "id")
    if len(worked) > 1:
        names = ", ".join(now.id for _, now in worked)
        yield Violation.of(worked[1][1], f"the conversation worked {len(worked)} tickets ({names}); it belongs to one")


@RULES.rule("AI-4", "The conversation ends with its ticket set to a final status", section=WORK)
def the_ticket_ends_saying_what_happened(ev: Evidence) -> Iterator[Violation]:
    worked = worked_tickets(ev)
    if not worked:
        yield Violation.of(
            None, "no ticket was updated or created: the conversation ends without a ticket saying what happened"
        )
    for _, now in worked:
        if now.status in ("new", "open"):
            yield Violation.of(now, f"ticket {now.id} is left {now.status}: set its final status", "status")


#: The changes that record something new each time they are made (a repeated update changes nothing more).
RECORDING_WRITES = frozenset(
    {
        "add_driver",
        "add_vehicle",
        "add_coverage",
        "record_payment",
        "grant_payment_extension",
        "set_up_instalment_plan",
        "file_claim",
        "issue_claim_payment",
        "apply_premium_credit",
        "send_document",
    }
)


@RULES.rule("AI-5", "Each change is made once", section=WORK, on=RECORD_TABLES)
def each_change_is_made_once(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    seen: dict[str, int] = {}
    for c in t.calls:
        if c.error is None and c.tool in RECORDING_WRITES:
            key = c.tool + json.dumps(c.arguments, sort_keys=True, default=str)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 2:
                yield Violation.of(None, f"{c.tool} was made twice with the same arguments ({_arguments(c.arguments)})")


def _arguments(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in arguments.items() if k not in ("description", "full_name"))


# --- Identity verification --------------------------------------------------------------------------------------

IDENTITY = "Identity verification"


@RULES.rule(
    "AI-8",
    "Nothing changes before the caller passed verify_identity; a failed verification changes nothing, tries no other "
    "values and leaves the ticket pending",
    section=IDENTITY,
    on=ALL_TABLES,
    clauses=("AI-7", "AI-8", "AI-9"),
)
def changes_only_after_a_passed_verification(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    first = t.first_record_write
    if first is not None and t.passed_at is None:
        yield Violation.of(None, f"{t.calls[first].tool} changed a record, but the caller never passed verify_identity")
    elif first is not None and t.passed_at is not None and t.passed_at > first:
        yield Violation.of(None, f"{t.calls[first].tool} changed a record before the caller passed verify_identity")
    failures = [i for i, passed, _ in t.verifications if not passed]
    if failures and any(i > failures[0] for i, _, _ in t.verifications):
        yield Violation.of(None, "verify_identity was tried again after it failed: other values are never tried")
    ticket = _ticket(ev)
    if ticket is None:
        return
    if not t.failed_only:
        if ticket.reason == "identity_not_verified":
            yield Violation.of(
                ticket, f"ticket {ticket.id} says identity_not_verified, but verification did not fail", "reason"
            )
        return
    if (ticket.status, ticket.reason) != ("pending", "identity_not_verified"):
        yield Violation.of(
            ticket,
            f"verification failed: ticket {ticket.id} is {ticket.status} ({ticket.reason or 'no reason'}), "
            "not pending with reason identity_not_verified",
            "status",
        )
    was = ev.start.get(TICKETS, ticket.id)
    if was is not None and was.priority != ticket.priority:
        yield Violation.of(
            ticket,
            f"verification failed: the priority goes from {was.priority} to {ticket.priority}; it is kept",
            "priority",
        )


@RULES.rule(
    "AI-10",
    "Only the verified policyholder's records change; another customer's policy is refused as not_policyholder",
    section=IDENTITY,
    on=ALL_TABLES,
)
def only_the_policyholders_records_change(ev: Evidence) -> Iterator[Violation]:
    verified = _transcript(ev).verified
    if verified:
        for policy_id, (table, row) in sorted(_policies_written(ev).items()):
            policy = ev.start.get("policies", policy_id)
            if policy is not None and policy.customer_id not in verified:
                yield Violation.of(
                    row,
                    f"{table} of policy {policy_id} changed, but that policy is {policy.customer_id}'s, not the "
                    f"verified caller's ({', '.join(sorted(verified))})",
                )
    for _, now in worked_tickets(ev):
        if now.reason == "not_policyholder" and now.status != "solved":
            yield Violation.of(
                now, f"ticket {now.id} refused as not_policyholder is {now.status}, not solved", "status"
            )


# --- Adding a driver --------------------------------------------------------------------------------------------

DRIVER = "Adding a driver"


def _listed_licences(ev: Evidence, ticket: RuleRow | None) -> set[str]:
    """The licences of the drivers already on the customer's policies (listed, excluded or removed)."""
    return {
        _licence(d.licence_number)
        for p in _requesters_policies(ev, ticket)
        for d in ev.start.where("drivers", policy_id=p.id)
    }


def _new_people_checked(ev: Evidence, status: str) -> list[tuple[int, str, str]]:
    """(position, licence, state) of each licence checked for a person not on the policy, its record in `status`."""
    t = _transcript(ev)
    checks = [(i, n, s) for i, n, s, found in t.licence_checks if found == status]
    if not checks:
        return []
    known = _listed_licences(ev, _ticket(ev))
    return [c for c in checks if c[1] not in known]


@RULES.rule(
    "AI-11",
    "A driver is added only on a licence record checked first and valid, from today or a later date; then solved",
    section=DRIVER,
    on=("drivers", "documents", *TICKET_TABLES),
    clauses=("AI-11", "AI-12", "AI-13", "AI-14"),
)
def a_driver_is_added_on_a_valid_licence_from_today(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    today = _today(ev)
    added = ev.added("drivers")
    for d in added:
        if d.licence_status != "valid":
            yield Violation.of(
                d, f"driver {d.id} was added, but the licence record shows {d.licence_status}", "licence_status"
            )
        made = t.made("add_driver", d.id)
        if made is not None and not any(
            i < made and n == _licence(d.licence_number) and s == d.licence_state for i, n, s, _ in t.licence_checks
        ):
            yield Violation.of(
                d, f"driver {d.id} was added without check_licence on {d.licence_number} first", "licence_number"
            )
        if d.effective_on < today:
            yield Violation.of(
                d,
                f"driver {d.id} is effective from {d.effective_on}, {days_between(d.effective_on, today)} days before "
                f"today ({today}): a driver is never back-dated",
                "effective_on",
            )
    expired = _new_people_checked(ev, "expired")
    if expired:
        licences = {n for _, n, _ in expired}
        for doc in ev.added("documents"):
            if _licence(doc.licence_number) in licences:
                yield Violation.of(
                    doc, f"{doc.kind} sent for licence {doc.licence_number}, which is expired: send nothing", "kind"
                )
        ticket = _ticket(ev)
        if ticket is not None and ticket.reason is None:
            yield Violation.of(
                ticket,
                f"licence {', '.join(sorted(licences))} is expired, so that driver is not added; ticket {ticket.id} "
                "carries no reason, as if the request was granted",
                "reason",
            )
    if added:
        yield from _left_waiting(ev, f"driver {added[0].id} was added")


# --- Suspended licences and excluded drivers --------------------------------------------------------------------

SUSPENDED = "Suspended licences and excluded drivers"


@RULES.rule(
    "AI-15",
    "A household member with a suspended licence is not added: the excluded-driver form goes out and the ticket waits",
    section=SUSPENDED,
    on=("drivers", "documents", *TICKET_TABLES),
    clauses=("AI-15", "AI-16", "AI-17"),
)
def a_suspended_licence_is_excluded_not_added(ev: Evidence) -> Iterator[Violation]:
    forms = _sent(ev, "excluded_driver_form")
    sent = {_licence(d.licence_number) for d in forms}
    ticket = _ticket(ev)
    for _, number, state in _new_people_checked(ev, "suspended"):
        for d in ev.added("drivers"):
            if _licence(d.licence_number) == number:
                yield Violation.of(d, f"driver {d.id} was added with licence {number}, which is suspended", "status")
        if number not in sent:
            yield Violation.of(ticket, f"{state} licence {number} is suspended: the excluded-driver form was not sent")
        if ticket is not None and ticket.status not in WAITING:
            yield Violation.of(
                ticket,
                f"an excluded-driver form is awaited for licence {number}, but ticket {ticket.id} is {ticket.status}, "
                "not pending with reason licence_not_valid",
                "status",
            )
    for form in forms:
        number = _licence(form.licence_number)
        status = {r.status for r in ev.start.where("licence_records", licence_number=form.licence_number)}
        if status and "suspended" not in status:
            yield Violation.of(
                form,
                f"excluded-driver form sent for licence {number}, whose record is {', '.join(sorted(status))}",
                "kind",
            )
        for _, now in ev.changed_rows("drivers"):
            if now is not None and _licence(now.licence_number) == number:
                yield Violation.of(
                    now, f"driver {now.id} changed now; an exclusion waits for the signed form", "status"
                )
    if ticket is not None and (ticket.status, ticket.reason) == ("pending", "licence_not_valid") and not forms:
        yield Violation.of(
            ticket, f"ticket {ticket.id} is pending licence_not_valid, but no excluded-driver form was sent", "reason"
        )


# --- Adding a vehicle: the VIN ----------------------------------------------------------------------------------

VIN = "Adding a vehicle: the VIN"


@RULES.rule(
    "AI-18",
    "A vehicle is added only on a VIN decode_vin found valid; an invalid VIN waits for the customer to read it again",
    section=VIN,
    on=("vehicles", *TICKET_TABLES),
    clauses=("AI-18", "AI-19"),
)
def a_vehicle_is_added_only_on_a_valid_vin(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    added = ev.added("vehicles")
    last_added = -1
    for v in added:
        made = t.made("add_vehicle", v.id)
        if made is not None:
            last_added = max(last_added, made)
            if not any(i < made and vin == v.vin and valid for i, vin, valid in t.vin_checks):
                yield Violation.of(v, f"vehicle {v.id} was added without decode_vin finding {v.vin} valid first", "vin")
        decoded = check_vin(v.vin, _today(ev).year + 1)
        if decoded.valid and decoded.model_year != v.year:
            yield Violation.of(v, f"vehicle {v.id} has year {v.year}; its VIN decodes to {decoded.model_year}", "year")
    invalid = [(i, vin) for i, vin, valid in t.vin_checks if not valid]
    ticket = _ticket(ev)
    if ticket is None:
        return
    waiting = [vin for i, vin in invalid if i > last_added]  # no vehicle added after it: still waiting for the VIN
    if waiting and ticket.status not in WAITING:
        yield Violation.of(
            ticket,
            f"VIN {waiting[0]} is invalid and nothing was added: ticket {ticket.id} is {ticket.status}, not pending "
            "with reason invalid_vin",
            "status",
        )
    if ticket.reason == "invalid_vin" and not invalid:
        yield Violation.of(ticket, f"ticket {ticket.id} says invalid_vin, but no VIN failed decode_vin", "reason")


# --- Adding a vehicle: the effective date -----------------------------------------------------------------------

EFFECTIVE = "Adding a vehicle: the effective date"


@RULES.rule(
    "AI-20",
    "An added vehicle is covered from the date the rules give, gets its ID card, and the ticket is solved",
    section=EFFECTIVE,
    on=("vehicles", "documents", *TICKET_TABLES),
    clauses=("AI-20", "AI-21", "AI-22", "AI-23", "AI-24", "AI-25"),
)
def an_added_vehicle_is_covered_from_the_date_the_rules_give(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    added = ev.added("vehicles")
    cards = {d.vehicle_id for d in _sent(ev, "insurance_id_card")}
    for v in added:
        policy = ev.end.get("policies", v.policy_id)
        acquired = v.acquired_on
        if acquired is None or policy is None:
            continue
        if acquired > today:
            expected, why = acquired, f"delivered on {acquired}, a later date"
        elif days_between(acquired, today) <= NEWLY_ACQUIRED_DAYS:
            expected, why = acquired, f"acquired {days_between(acquired, today)} days ago, newly acquired"
        elif policy.state in NEXT_DAY_STATES:
            expected, why = (
                today + dt.timedelta(days=1),
                f"acquired {days_between(acquired, today)} days ago in {policy.state}, a next-day state",
            )
        else:
            expected, why = (
                today,
                f"acquired {days_between(acquired, today)} days ago in {policy.state}, a same-day state",
            )
        if v.effective_on != expected:
            yield Violation.of(
                v,
                f"vehicle {v.id} is effective from {v.effective_on}; {why}, it is covered from {expected}",
                "effective_on",
            )
        if v.id not in cards:
            yield Violation.of(v, f"vehicle {v.id} was added, but no insurance ID card was sent for it", "id")
    if added:
        yield from _left_waiting(ev, f"vehicle {added[0].id} was added")


# --- Removing a vehicle or a driver -----------------------------------------------------------------------------

REMOVING = "Removing a vehicle or a driver"


def _removed_vehicles(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """The active vehicles the conversation removed."""
    return _moved(ev, "vehicles", "removed", from_="active")


def _removed_drivers(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """The drivers the conversation removed."""
    return _moved(ev, "drivers", "removed")


def _total_loss_claims(ev: Evidence, vehicle_id: str) -> list[RuleRow]:
    return [c for c in ev.end.where("claims", vehicle_id=vehicle_id) if c.total_loss]


@RULES.rule(
    "AI-26",
    "A vehicle comes off from its sale date or today as the rules say, never the last one or one in an open major "
    "claim, with its unearned premium credited",
    section=REMOVING,
    on=("vehicles", "premium_adjustments"),
    clauses=("AI-26", "AI-27", "AI-28", "AI-29"),
)
def a_vehicle_comes_off_as_the_removal_rules_say(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    credited = {a.vehicle_id for a in ev.added("premium_adjustments") if a.kind == "vehicle_removal_credit"}
    for _, v in _removed_vehicles(ev):
        claims = ev.end.where("claims", vehicle_id=v.id)
        if not any(c.total_loss for c in claims):  # a total loss comes off from its loss date (AI-39)
            off = v.removed_on
            if off > today:
                yield Violation.of(v, f"vehicle {v.id} is removed from {off}, after today ({today})", "removed_on")
            elif off < today:
                ago = days_between(off, today)
                later = [c for c in claims if c.loss_date >= off]
                if ago > SALE_DATE_DAYS:
                    yield Violation.of(
                        v,
                        f"vehicle {v.id} is removed from {off}, {ago} days ago: after {SALE_DATE_DAYS} days, today",
                        "removed_on",
                    )
                elif later:
                    yield Violation.of(
                        v,
                        f"vehicle {v.id} is removed from {off}, but claim {later[0].id} has a later loss date "
                        f"({later[0].loss_date}): it comes off today",
                        "removed_on",
                    )
            blocking = [c for c in claims if c.status == "open" and c.severity == "major"]
            if blocking:
                yield Violation.of(
                    v, f"vehicle {v.id} was removed while its claim {blocking[0].id} is open and major", "status"
                )
        if not ev.end.where("vehicles", policy_id=v.policy_id, status="active"):
            yield Violation.of(
                v, f"vehicle {v.id} was policy {v.policy_id}'s only vehicle: it is never removed", "status"
            )
        if v.term_premium_cents > 0 and v.id not in credited:
            yield Violation.of(
                v,
                f"vehicle {v.id} has a premium of its own ({_money(v.term_premium_cents)}) but no removal credit",
                "term_premium_cents",
            )


@RULES.rule(
    "AI-30",
    "A driver comes off from today, never the named insured, only from the caller's own policy; then solved",
    section=REMOVING,
    on=("drivers", "vehicles", *TICKET_TABLES),
    clauses=("AI-30", "AI-31", "AI-32"),
)
def a_driver_comes_off_from_today(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    removed = _removed_drivers(ev)
    for was, d in removed:
        if d.removed_on != today:
            yield Violation.of(
                d, f"driver {d.id} is removed from {d.removed_on}; a driver comes off today ({today})", "removed_on"
            )
        if was.relation_to_insured == "named_insured":
            yield Violation.of(d, f"driver {d.id} is the named insured and is never removed", "status")
    removals = [d for _, d in removed] + [v for _, v in _removed_vehicles(ev)]
    verified = _transcript(ev).verified
    for row in removals:
        policy = ev.start.get("policies", row.policy_id)
        if verified and policy is not None and policy.customer_id not in verified:
            yield Violation.of(
                row,
                f"{row.table} {row.id} was removed from {policy.customer_id}'s policy at another customer's request",
                "status",
            )
    if removals:
        yield from _left_waiting(ev, f"{removals[0].table[:-1]} {removals[0].id} was removed")


# --- Principal drivers ------------------------------------------------------------------------------------------

PRINCIPAL = "Principal drivers"


@RULES.rule(
    "AI-34",
    "A principal driver is a listed driver whose licence check_licence found valid; one who leaves is replaced first",
    section=PRINCIPAL,
    on=("vehicles", "drivers", *TICKET_TABLES),
    clauses=("AI-33", "AI-34", "AI-35", "AI-36", "AI-37"),
)
def a_principal_driver_is_listed_valid_and_replaced_before_leaving(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    for _, v in ev.updated("vehicles", "principal_driver_id"):
        if v.principal_driver_id is None:
            continue
        d = ev.end.get("drivers", v.principal_driver_id)
        if d is None:
            continue
        if d.status != "listed" or d.policy_id != v.policy_id:
            yield Violation.of(
                v, f"driver {d.id} is not a listed driver of policy {v.policy_id}", "principal_driver_id"
            )
        records = [
            r
            for r in ev.start.where("licence_records", licence_state=d.licence_state)
            if _licence(r.licence_number) == _licence(d.licence_number)
        ]
        if records and records[0].status != "valid":
            yield Violation.of(
                v,
                f"driver {d.id} is made principal of {v.id}, but their licence record is {records[0].status}",
                "principal_driver_id",
            )
        assigned = t.position("assign_principal_driver", vehicle_id=v.id, driver_id=d.id)
        if assigned is not None and not any(
            i < assigned and n == _licence(d.licence_number) for i, n, _, _ in t.licence_checks
        ):
            yield Violation.of(
                v,
                f"driver {d.id} is made principal of {v.id} without check_licence on their licence first",
                "principal_driver_id",
            )
    left = [now for _, now in _removed_drivers(ev)]
    for d in left:
        for v in ev.end.where("vehicles", principal_driver_id=d.id, status="active"):
            yield Violation.of(
                d, f"driver {d.id} was removed while still the principal driver of vehicle {v.id}", "status"
            )
    ticket = _ticket(ev)
    principal_left = [d for d in left if ev.start.where("vehicles", principal_driver_id=d.id, status="active")]
    if (
        principal_left
        and ticket is not None
        and ticket.reason is None
        and ticket.category != "driver"
        and not ev.added("vehicles")
    ):
        yield Violation.of(
            ticket,
            f"principal driver {principal_left[0].id} left: ticket {ticket.id} is under {ticket.category}, not driver",
            "category",
        )


# --- Total loss -------------------------------------------------------------------------------------------------

TOTAL_LOSS = "Total loss"


@RULES.rule(
    "AI-39",
    "A total-loss vehicle comes off from its claim's loss date, past an open major claim; a solved vehicle ticket",
    section=TOTAL_LOSS,
    on=("vehicles", *TICKET_TABLES),
    clauses=("AI-38", "AI-39", "AI-40", "AI-41"),
)
def a_total_loss_comes_off_from_its_loss_date(ev: Evidence) -> Iterator[Violation]:
    removed = []
    for _, v in _removed_vehicles(ev):
        totals = _total_loss_claims(ev, v.id)
        if not totals:
            open_major = _open_major(ev.end, vehicle_id=v.id)
            if open_major:
                yield Violation.of(
                    v,
                    f"vehicle {v.id} was removed as if a total loss, but claim {open_major[0].id} is not declared one",
                    "status",
                )
            continue
        removed.append(v)
        loss = max(c.loss_date for c in totals)
        if v.removed_on != loss:
            yield Violation.of(
                v,
                f"total-loss vehicle {v.id} is removed from {v.removed_on}, not its claim's loss date {loss}",
                "removed_on",
            )
    if not removed:
        return
    ticket = _ticket(ev)
    only_vehicle_changes = not (ev.tables_written & {"claims", "claim_payments", "coverages", "drivers", "payments"})
    if ticket is not None and ticket.reason is None and only_vehicle_changes and ticket.category != "vehicle":
        yield Violation.of(
            ticket,
            f"total-loss vehicle {removed[0].id} came off: ticket {ticket.id} is filed under {ticket.category}",
            "category",
        )
    yield from _left_waiting(ev, f"total-loss vehicle {removed[0].id} was removed")


# --- Coverage changes -------------------------------------------------------------------------------------------

COVERAGE = "Coverage changes"


def _physical_damage_changes(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """Collision or comprehensive removed or given another deductible."""
    return [
        (was, now)
        for was, now in ev.updated("coverages", "status", "deductible_cents")
        if now.coverage in PHYSICAL_DAMAGE
    ]


@RULES.rule(
    "AI-42",
    "Coverage changes keep liability at the state minimums and allowed deductibles, read the claims first; then solved",
    section=COVERAGE,
    on=("coverages", *TICKET_TABLES),
    clauses=("AI-42", "AI-43", "AI-44"),
)
def coverage_changes_stay_within_the_rules(ev: Evidence) -> Iterator[Violation]:
    changed = ev.updated("coverages")
    t = _transcript(ev)
    for was, c in changed:
        if c.coverage in LIABILITY:
            if c.status == "removed":
                yield Violation.of(c, f"{c.coverage} was removed; liability is never removed", "status")
            policy = ev.start.get("policies", c.policy_id)
            state = ev.start.get("state_requirements", policy.state) if policy else None
            if state is not None:
                minimum = (
                    state.min_bi_per_person_cents if c.coverage == "bodily_injury_liability" else state.min_pd_cents
                )
                if c.limit_cents is not None and c.limit_cents < minimum:
                    yield Violation.of(
                        c,
                        f"{c.coverage} limit {_money(c.limit_cents)} is below {state.code}'s minimum {_money(minimum)}",
                        "limit_cents",
                    )
                per_accident = c.limit_per_accident_cents
                if (
                    c.coverage == "bodily_injury_liability"
                    and per_accident is not None
                    and per_accident < state.min_bi_per_accident_cents
                ):
                    yield Violation.of(
                        c,
                        f"bodily injury limit per accident {_money(per_accident)} is below {state.code}'s "
                        f"minimum {_money(state.min_bi_per_accident_cents)}",
                        "limit_per_accident_cents",
                    )
        if c.deductible_cents != was.deductible_cents and c.deductible_cents not in DEDUCTIBLES:
            yield Violation.of(
                c, f"deductible {_money(c.deductible_cents)} is not one of the offered deductibles", "deductible_cents"
            )
    for _, c in _physical_damage_changes(ev):
        tool = "remove_coverage" if c.status == "removed" else "update_coverage"
        at = t.position(tool, policy_id=c.policy_id, coverage=c.coverage)
        read = t.position("list_policy_claims", policy_id=c.policy_id)
        if at is not None and (read is None or read > at):
            yield Violation.of(
                c, f"{c.coverage} changed before the policy's claims were read (list_policy_claims)", "coverage"
            )
    yield from _coverage_refused_as_not_eligible(ev)
    if changed:
        yield from _left_waiting(ev, f"{changed[0][1].coverage} was changed")


def _coverage_refused_as_not_eligible(ev: Evidence) -> Iterator[Violation]:
    """A coverage request the policy forbids is refused: solved, reason not_eligible."""
    ticket = _ticket(ev)
    if (
        ticket is not None
        and (ticket.category, ticket.status) == ("coverage", "solved")
        and ticket.reason not in (None, "not_eligible", "not_policyholder")
    ):
        yield Violation.of(
            ticket,
            f"ticket {ticket.id} refuses a coverage request as {ticket.reason}; a forbidden change is not_eligible",
            "reason",
        )


# --- Open major claims ------------------------------------------------------------------------------------------

OPEN_MAJOR = "Open major claims"


@RULES.rule(
    "AI-46",
    "An open major claim blocks collision and comprehensive changes and its vehicle's removal: held for claims",
    section=OPEN_MAJOR,
    on=("coverages", "vehicles", *TICKET_TABLES),
    clauses=("AI-45", "AI-46", "AI-47"),
)
def an_open_major_claim_blocks_the_change(ev: Evidence) -> Iterator[Violation]:
    for _, c in _physical_damage_changes(ev):
        blocking = _open_major(ev.start, policy_id=c.policy_id)
        if blocking:
            change = "removed" if c.status == "removed" else f"deductible set to {_money(c.deductible_cents)}"
            yield Violation.of(c, f"{c.coverage} {change} while claim {blocking[0].id} is open and major", "coverage")
    for _, v in _removed_vehicles(ev):
        if _total_loss_claims(ev, v.id):
            continue  # the one exception: a declared total loss
        blocking = _open_major(ev.start, vehicle_id=v.id)
        if blocking:
            yield Violation.of(
                v, f"vehicle {v.id} was removed while its claim {blocking[0].id} is open and major", "status"
            )
    ticket = _ticket(ev)
    if ticket is None or ticket.reason != "open_major_claim":
        return
    blocking = [x for p in _requesters_policies(ev, ticket) for x in _open_major_claims(ev, p.id)]
    if not blocking:
        yield Violation.of(
            ticket, f"ticket {ticket.id} says open_major_claim, but the policy has no open major claim", "reason"
        )
        return
    notes = internal_notes(ev, ticket.id)
    if notes and not any(x.id in n.body for n in notes for x in blocking):
        names = ", ".join(x.id for x in blocking)
        yield Violation.of(notes[0], f"the claims team's comment does not name the open major claim ({names})", "body")


# --- Adding a coverage (endorsements) ---------------------------------------------------------------------------

ENDORSEMENTS = "Adding a coverage (endorsements)"


@RULES.rule(
    "AI-48",
    "A coverage is added only to an active policy that lacks it (rental only beside collision and comprehensive); "
    "then solved",
    section=ENDORSEMENTS,
    on=("coverages", *TICKET_TABLES),
    clauses=("AI-48", "AI-49", "AI-50"),
)
def a_coverage_is_added_only_where_allowed(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    t = _transcript(ev)
    added = ev.added("coverages")
    for c in added:
        status = _status_when(ev, c.policy_id, t.made("add_coverage", c.id))
        if status != "active":
            yield Violation.of(c, f"{c.coverage} was added to policy {c.policy_id}, which is {status}", "policy_id")
        if c.effective_on is not None and c.effective_on != today:
            yield Violation.of(
                c, f"{c.coverage} starts {c.effective_on}; an added coverage starts today", "effective_on"
            )
        others = [x for x in ev.end.where("coverages", policy_id=c.policy_id, status="active") if x.id != c.id]
        if any(x.coverage == c.coverage for x in others):
            yield Violation.of(c, f"policy {c.policy_id} already has {c.coverage}", "coverage")
        if c.coverage == "rental_reimbursement":
            missing = [k for k in PHYSICAL_DAMAGE if not any(x.coverage == k for x in others)]
            if missing:
                yield Violation.of(
                    c,
                    f"rental reimbursement added to policy {c.policy_id}, which has no active {' or '.join(missing)}",
                    "coverage",
                )
    yield from _coverage_refused_as_not_eligible(ev)
    if added:
        yield from _left_waiting(ev, f"{added[0].coverage} was added")


# --- Payments ---------------------------------------------------------------------------------------------------

PAYMENTS = "Payments"


@RULES.rule(
    "AI-51",
    "A payment is at most the balance and changes no policy status by itself; a disputed payment is held for billing",
    section=PAYMENTS,
    on=("payments", "policies", *TICKET_TABLES),
    clauses=("AI-51", "AI-52", "AI-53"),
)
def a_payment_is_taken_within_the_balance(ev: Evidence) -> Iterator[Violation]:
    for p in ev.added("payments"):
        account = ev.start.get("billing_accounts", p.billing_account_id)
        if account is None:
            continue
        if p.amount_cents > account.balance_cents:
            yield Violation.of(
                p,
                f"payment of {_money(p.amount_cents)} is more than the balance of {_money(account.balance_cents)}",
                "amount_cents",
            )
        was, now = _policy_then_and_now(ev, account.policy_id)
        after = ev.end.get("billing_accounts", account.id)
        if was is None or now is None or after is None:
            continue
        if was.status == "cancellation_scheduled" and now.status != was.status and after.past_due_cents > 0:
            yield Violation.of(
                p,
                f"the payment leaves {_money(after.past_due_cents)} past due, yet policy {was.id}'s scheduled "
                f"cancellation was withdrawn",
                "amount_cents",
            )
    ticket = _ticket(ev)
    if (
        ticket is not None
        and ticket.reason == "payment_dispute"
        and (ticket.status, ticket.priority, ticket.queue) != ("hold", "high", "billing")
    ):
        yield Violation.of(
            ticket,
            f"a disputed payment goes on hold, high, to billing; ticket {ticket.id} is {ticket.status}, "
            f"{ticket.priority}, queue {ticket.queue}",
            "status",
        )


# --- Payment extensions -----------------------------------------------------------------------------------------

EXTENSIONS = "Payment extensions"


@RULES.rule(
    "AI-54",
    "An extension only for an active, current policy with none this term, at most 10 days past the original due date",
    section=EXTENSIONS,
    on=("payment_extensions", *TICKET_TABLES),
    clauses=("AI-54", "AI-55", "AI-56", "AI-57"),
)
def an_extension_only_when_allowed_and_within_10_days(ev: Evidence) -> Iterator[Violation]:
    added = ev.added("payment_extensions")
    for e in added:
        account = ev.end.get("billing_accounts", e.billing_account_id)
        policy = ev.end.get("policies", account.policy_id) if account else None
        if account is None or policy is None:
            continue
        if policy.status != "active":
            yield Violation.of(e, f"extension granted on policy {policy.id}, which is {policy.status}", "bill_id")
        if account.delinquency_status != "current":
            yield Violation.of(
                e,
                f"extension while the account is {account.delinquency_status} ({_money(account.past_due_cents)})",
                "bill_id",
            )
        this_term = [
            x
            for x in ev.end.where("payment_extensions", billing_account_id=account.id)
            if x.id != e.id and x.term_start == policy.term_start
        ]
        if this_term:
            yield Violation.of(
                e, f"extension {this_term[0].id} was already granted in the term from {policy.term_start}", "bill_id"
            )
        bill = ev.start.get("bills", e.bill_id)
        if bill is not None:
            latest = bill.original_due_on + dt.timedelta(days=EXTENSION_DAYS)
            if e.new_due_on > latest:
                yield Violation.of(
                    e,
                    f"new due date {e.new_due_on} is {(e.new_due_on - bill.original_due_on).days} days after the "
                    f"original {bill.original_due_on}; the latest allowed is {latest}",
                    "new_due_on",
                )
    if added:
        yield from _left_waiting(ev, f"extension {added[0].id} was granted")


# --- Instalment plans -------------------------------------------------------------------------------------------

PLANS = "Instalment plans"


@RULES.rule(
    "AI-58",
    "An instalment plan has 2 to 4 instalments, only for an account its billing history does not disqualify",
    section=PLANS,
    on=("instalment_plans", *TICKET_TABLES),
    clauses=("AI-58", "AI-59", "AI-60"),
)
def an_instalment_plan_only_for_a_qualifying_account(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    since = _year_ago(today)
    added = ev.added("instalment_plans")
    for plan in added:
        if not 2 <= plan.instalments <= 4:
            yield Violation.of(plan, f"plan of {plan.instalments} instalments; it has 2, 3 or 4", "instalments")
        account = ev.end.get("billing_accounts", plan.billing_account_id)
        if account is None:
            continue
        if account.delinquency_status == "past_due":
            yield Violation.of(
                plan, f"the account is past due ({_money(account.past_due_cents)}): no plan", "billing_account_id"
            )
        returned = [
            p
            for p in ev.start.where("payments", billing_account_id=account.id, status="returned_nsf")
            if p.received_at.date() >= since
        ]
        if returned:
            yield Violation.of(
                plan,
                f"payment {returned[0].id} received {returned[0].received_at.date()} was returned unpaid: no plan",
                "billing_account_id",
            )
        missed = [
            b
            for b in ev.end.where("bills", billing_account_id=account.id)
            if b.status in ("missed", "paid_late") and since <= b.original_due_on <= today
        ]
        if len(missed) >= 2:
            yield Violation.of(
                plan,
                f"{len(missed)} missed payments in the last 12 months ({', '.join(b.id for b in missed)}): no plan",
                "billing_account_id",
            )
    if added:
        yield from _left_waiting(ev, f"instalment plan {added[0].id} was set up")


# --- Scheduled cancellation for non-payment ---------------------------------------------------------------------

SCHEDULED = "Scheduled cancellation for non-payment"


def _scheduled_for_non_payment(policy: RuleRow | None) -> TypeGuard[RuleRow]:
    return (
        policy is not None and policy.status == "cancellation_scheduled" and policy.cancellation_reason == "non_payment"
    )


@RULES.rule(
    "AI-62",
    "Paying the full past due before the date withdraws a non-payment cancellation with its notice; less leaves it",
    section=SCHEDULED,
    on=("policies", "payments", "documents", *TICKET_TABLES),
    clauses=("AI-61", "AI-62", "AI-63"),
)
def a_full_payment_withdraws_the_scheduled_cancellation(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    paid_accounts = {p.billing_account_id for p in ev.added("payments")}
    notices = {d.policy_id for d in _sent(ev, "cancellation_rescission_notice")}
    ticket = _ticket(ev)
    for account_id in sorted(
        paid_accounts | {a.id for p, _ in _rescinded(ev) for a in ev.end.where("billing_accounts", policy_id=p.id)}
    ):
        account = ev.end.get("billing_accounts", account_id)
        if account is None:
            continue
        was, now = _policy_then_and_now(ev, account.policy_id)
        if not _scheduled_for_non_payment(was) or now is None:
            continue
        if now.status == "active":
            if account.past_due_cents > 0:
                yield Violation.of(
                    now,
                    f"policy {now.id}'s cancellation withdrawn with {_money(account.past_due_cents)} still past due",
                    "status",
                )
            if was.cancellation_effective_on is not None and was.cancellation_effective_on <= today:
                yield Violation.of(
                    now, f"policy {now.id}'s cancellation took effect on {was.cancellation_effective_on}", "status"
                )
            if now.id not in notices:
                yield Violation.of(
                    now, f"policy {now.id}'s cancellation was withdrawn without a rescission notice", "status"
                )
        elif account_id in paid_accounts:
            if account.past_due_cents == 0:
                yield Violation.of(
                    now,
                    f"the past due of policy {now.id} is paid in full, yet its cancellation is still scheduled",
                    "status",
                )
            elif ticket is not None and ticket.reason is None:
                yield Violation.of(
                    ticket,
                    f"the payment leaves {_money(account.past_due_cents)} past due and the cancellation stands: ticket "
                    f"{ticket.id} carries no reason",
                    "reason",
                )


def _rescinded(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """The policies whose scheduled cancellation the conversation withdrew."""
    return _moved(ev, "policies", "active", from_="cancellation_scheduled")


def _reinstated(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """The cancelled policies the conversation reinstated."""
    return _moved(ev, "policies", "active", from_="cancelled")


@RULES.rule(
    "AI-64",
    "No payment extension or instalment plan while a cancellation is scheduled",
    section=SCHEDULED,
    on=("payment_extensions", "instalment_plans"),
)
def nothing_extended_while_a_cancellation_is_scheduled(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    for table, tool in (
        ("payment_extensions", "grant_payment_extension"),
        ("instalment_plans", "set_up_instalment_plan"),
    ):
        for row in ev.added(table):
            account = ev.end.get("billing_accounts", row.billing_account_id)
            if account is None:
                continue
            was, now = _policy_then_and_now(ev, account.policy_id)
            if was is None or now is None or was.status != "cancellation_scheduled":
                continue
            granted = t.made(tool, row.id)
            withdrawn = t.position("rescind_cancellation", policy_id=was.id)
            if now.status == "cancellation_scheduled" or (
                granted is not None and (withdrawn is None or withdrawn > granted)
            ):
                yield Violation.of(row, f"{tool} on policy {was.id} while its cancellation is scheduled", "bill_id")


# --- Cancelling at the customer's request -----------------------------------------------------------------------

CANCELLING = "Cancelling at the customer's request"

RULES.judgement(
    "AI-66",
    section=CANCELLING,
    why="whether the customer asked to cancel, or took the request back, is in what they say; a cancellation the "
    "conversation makes is checked by AI-65",
)


@RULES.rule(
    "AI-65",
    "A cancellation at the customer's request is scheduled from the date asked, never before today; then solved",
    section=CANCELLING,
    on=("policies", *TICKET_TABLES),
)
def a_requested_cancellation_is_never_back_dated(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    scheduled = [now for _, now in _moved(ev, "policies", "cancellation_scheduled", from_="active")]
    for p in scheduled:
        if p.cancellation_reason != "customer_request":
            yield Violation.of(
                p,
                f"policy {p.id} cancelled for {p.cancellation_reason}; the desk cancels at the customer's request",
                "cancellation_reason",
            )
        if p.cancellation_effective_on is not None and p.cancellation_effective_on < today:
            yield Violation.of(
                p,
                f"policy {p.id} is cancelled from {p.cancellation_effective_on}, before today ({today})",
                "cancellation_effective_on",
            )
    if scheduled:
        yield from _left_waiting(ev, f"policy {scheduled[0].id}'s cancellation was scheduled")


# --- Reinstatement after cancellation ---------------------------------------------------------------------------

REINSTATEMENT = "Reinstatement after cancellation"


@RULES.rule(
    "AI-67",
    "A policy is reinstated only within 30 days of a non-payment cancellation, past due paid, with its notice",
    section=REINSTATEMENT,
    on=("policies", "payments", "documents"),
    clauses=("AI-67", "AI-68"),
)
def a_reinstatement_follows_the_full_past_due_within_30_days(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    t = _transcript(ev)
    notices = {d.policy_id for d in _sent(ev, "reinstatement_notice")}
    for was, now in _reinstated(ev):
        if was.cancellation_reason != "non_payment":
            yield Violation.of(
                now,
                f"policy {now.id} was cancelled for {was.cancellation_reason}: only underwriting reinstates it",
                "status",
            )
        if (
            was.cancellation_effective_on is not None
            and days_between(was.cancellation_effective_on, today) > REINSTATEMENT_DAYS
        ):
            yield Violation.of(
                now,
                f"policy {now.id} was cancelled on {was.cancellation_effective_on}, "
                f"{days_between(was.cancellation_effective_on, today)} days ago, past {REINSTATEMENT_DAYS} days",
                "status",
            )
        for account in ev.end.where("billing_accounts", policy_id=now.id):
            if account.past_due_cents > 0:
                yield Violation.of(
                    now,
                    f"policy {now.id} was reinstated with {_money(account.past_due_cents)} still past due",
                    "status",
                )
            paid = t.position("record_payment", billing_account_id=account.id)
            reinstated = t.position("reinstate_policy", policy_id=now.id)
            if paid is not None and reinstated is not None and paid > reinstated:
                yield Violation.of(now, f"policy {now.id} was reinstated before the past due was paid", "status")
        if now.id not in notices:
            yield Violation.of(now, f"policy {now.id} was reinstated without a reinstatement notice", "status")


@RULES.rule(
    "AI-69",
    "No payment for a cancelled policy not reinstated; a refused reinstatement carries the reason its facts give",
    section=REINSTATEMENT,
    on=("payments", *TICKET_TABLES),
    clauses=("AI-69", "AI-70", "AI-71"),
)
def no_payment_for_a_policy_not_reinstated(ev: Evidence) -> Iterator[Violation]:
    today = _today(ev)
    for p in ev.added("payments"):
        account = ev.end.get("billing_accounts", p.billing_account_id)
        policy = ev.end.get("policies", account.policy_id) if account else None
        if policy is not None and policy.status == "cancelled":
            yield Violation.of(p, f"payment taken for policy {policy.id}, which stays cancelled", "amount_cents")
    ticket = _ticket(ev)
    if ticket is None or ticket.reason not in ("outside_window", "insufficient_payment", "underwriting_review"):
        return
    facts = []
    for policy in _requesters_policies(ev, ticket):
        cancelled = _still_cancelled(ev, policy)
        if cancelled is None or cancelled.cancellation_effective_on is None:
            continue
        ago = days_between(cancelled.cancellation_effective_on, today)
        if cancelled.cancellation_reason != "non_payment":
            facts.append("underwriting_review")
        elif ago > REINSTATEMENT_DAYS:
            facts.append("outside_window")
        else:
            facts.append("insufficient_payment")
    if ticket.reason == "insufficient_payment" and ticket.status != "pending":
        return  # a partial payment on a scheduled cancellation (AI-63)
    if ticket.reason not in facts:
        found = ", ".join(facts) or "no cancelled policy"
        yield Violation.of(
            ticket, f"ticket {ticket.id} says {ticket.reason}, but the customer's policies show {found}", "reason"
        )


# --- Claims: first notice of loss -------------------------------------------------------------------------------

FIRST_NOTICE = "Claims: first notice of loss"

RULES.judgement(
    "AI-74",
    "AI-75",
    section=FIRST_NOTICE,
    why="the loss type, the facts and the description recorded follow the customer's account of the loss; the "
    "claim's severity is checked under Claim severity (AI-76)",
)


def _not_covered(ev: Evidence, claim: RuleRow) -> str | None:
    """Why the claim's vehicle was not insured with us on the loss date, if it was not."""
    loss = claim.loss_date
    vehicle = ev.end.get("vehicles", claim.vehicle_id)
    policy = ev.end.get("policies", claim.policy_id)
    if vehicle is None or policy is None:
        return None
    if vehicle.effective_on > loss:
        return f"vehicle {vehicle.id} is covered only from {vehicle.effective_on}"
    if vehicle.removed_on is not None and vehicle.removed_on <= loss:
        return f"vehicle {vehicle.id} was removed from {vehicle.removed_on}"
    if not policy.term_start <= loss <= policy.term_end:
        return f"the policy term runs {policy.term_start} to {policy.term_end}"
    ends = policy.cancellation_effective_on
    if policy.status in ("cancelled", "cancellation_scheduled") and ends is not None and loss >= ends:
        return f"policy {policy.id} is cancelled from {ends}"
    if (
        policy.lapse_start is not None
        and policy.lapse_end is not None
        and policy.lapse_start <= loss <= policy.lapse_end
    ):
        return f"policy {policy.id} lapsed from {policy.lapse_start} to {policy.lapse_end}"
    return None


@RULES.rule(
    "AI-73",
    "A claim is filed only for a vehicle the policy covered on the loss date, naming only a listed driver",
    section=FIRST_NOTICE,
    on=("claims",),
    clauses=("AI-72", "AI-73"),
)
def a_claim_is_filed_only_for_a_covered_vehicle(ev: Evidence) -> Iterator[Violation]:
    for claim in ev.added("claims"):
        why = _not_covered(ev, claim)
        if why is not None:
            yield Violation.of(
                claim, f"claim {claim.id} for a loss on {claim.loss_date} was filed, but {why}", "loss_date"
            )
        driver = ev.end.get("drivers", claim.driver_id) if claim.driver_id else None
        if driver is not None and (
            driver.status == "excluded" or (driver.removed_on is not None and driver.removed_on <= claim.loss_date)
        ):
            yield Violation.of(
                claim,
                f"claim {claim.id} names driver {driver.id}, who was not a listed driver on {claim.loss_date}",
                "driver_id",
            )


# --- Claim severity ---------------------------------------------------------------------------------------------

SEVERITY = "Claim severity"


def _severity(claim: RuleRow) -> tuple[str, str]:
    """The severity a claim's facts give, and which fact makes it major."""
    if claim.injuries:
        return "major", "someone was injured"
    if not claim.drivable:
        return "major", "the vehicle cannot be driven"
    if claim.loss_type in ("theft", "fire"):
        return "major", f"the loss is a {claim.loss_type}"
    if (claim.estimated_damage_cents or 0) >= MAJOR_ESTIMATE_CENTS:
        return "major", f"the estimate is {_money(claim.estimated_damage_cents)}"
    return "minor", "no injury, drivable, neither theft nor fire, an estimate under 500,000 cents"


@RULES.rule(
    "AI-76",
    "A claim's severity follows its facts: injury, not drivable, theft, fire or a 500,000-cent estimate make it major",
    section=SEVERITY,
    on=("claims",),
    clauses=("AI-76", "AI-77"),
)
def a_claims_severity_follows_its_facts(ev: Evidence) -> Iterator[Violation]:
    for _, claim in ev.changed_rows("claims"):
        if claim is None:
            continue
        expected, why = _severity(claim)
        if claim.severity != expected:
            yield Violation.of(claim, f"claim {claim.id} is {claim.severity}, but {why}: it is {expected}", "severity")


@RULES.rule(
    "AI-78",
    "A claim filed or turned major is held for the claims team; new facts update the open claim, never a second one",
    section=SEVERITY,
    on=("claims", *TICKET_TABLES),
    clauses=("AI-78", "AI-79"),
)
def a_major_claim_is_held_for_the_claims_team(ev: Evidence) -> Iterator[Violation]:
    ticket = _ticket(ev)
    major = _made_major(ev)
    changed = ev.changed_rows("claims")
    for claim in ev.added("claims"):
        same = [
            c
            for c in ev.start.where("claims", vehicle_id=claim.vehicle_id)
            if (c.loss_date, c.loss_type) == (claim.loss_date, claim.loss_type)
        ]
        if same:
            yield Violation.of(claim, f"claim {claim.id} is a second claim for the loss of claim {same[0].id}", "id")
    if ticket is None:
        return
    if major:
        names = ", ".join(c.id for c in major)
        if (ticket.status, ticket.priority, ticket.queue) != ("hold", "high", "claims") or ticket.reason not in (
            "major_claim",
            "open_major_claim",
        ):
            yield Violation.of(
                ticket,
                f"claim {names} is major: ticket {ticket.id} is {ticket.status}, {ticket.priority}, "
                f"{ticket.reason or 'no reason'}, queue {ticket.queue}; it goes on hold, high, major_claim, claims",
                "status",
            )
        notes = internal_notes(ev, ticket.id)
        if notes and not all(any(c.id in n.body for n in notes) for c in major):
            yield Violation.of(notes[0], f"the claims team's comment does not name claim {names}", "body")
    elif ticket.reason == "major_claim" and not any(now is not None and now.severity == "major" for _, now in changed):
        yield Violation.of(
            ticket, f"ticket {ticket.id} says major_claim, but no claim was filed or turned major", "reason"
        )
    if changed:
        yield from _left_waiting(ev, "the claim was recorded")


# --- Claim payments the desk makes ------------------------------------------------------------------------------

CLAIM_PAYMENTS = "Claim payments the desk makes"


@RULES.rule(
    "AI-81",
    "A desk claim payment comes from a coverage in force on the loss date, after reading what was paid; then solved",
    section=CLAIM_PAYMENTS,
    on=("claim_payments", *TICKET_TABLES),
    clauses=("AI-80", "AI-81", "AI-85"),
)
def a_claim_payment_comes_from_a_coverage_in_force(ev: Evidence) -> Iterator[Violation]:
    t = _transcript(ev)
    added = ev.added("claim_payments")
    for p in added:
        claim = ev.end.get("claims", p.claim_id)
        if claim is None:
            continue
        kind = PAID_FROM.get(p.kind)
        rows = [c for c in ev.end.where("coverages", policy_id=claim.policy_id) if c.coverage == kind]
        if not any(_in_force(c, claim.loss_date) for c in rows):
            yield Violation.of(
                p, f"{p.kind} paid from {kind}, which was not in force on the loss date {claim.loss_date}", "kind"
            )
        if ev.start.get("claims", claim.id) is not None:
            paid = t.made("issue_claim_payment", p.id)
            read = t.position("list_claim_payments", claim_id=claim.id)
            if paid is not None and (read is None or read > paid):
                yield Violation.of(
                    p, f"{p.kind} paid on claim {claim.id} before reading what was already paid on it", "claim_id"
                )
    if added:
        yield from _left_waiting(ev, f"{added[0].kind} was paid on claim {added[0].claim_id}")


@RULES.rule(
    "AI-82",
    "Glass only on a glass claim; rental only for an undrivable or stolen car, 30 days at most at the daily limit; "
    "a tow up to the per-tow limit",
    section=CLAIM_PAYMENTS,
    on=("claim_payments", *TICKET_TABLES),
    clauses=("AI-82", "AI-83", "AI-84"),
)
def each_claim_payment_within_its_kinds_limits(ev: Evidence) -> Iterator[Violation]:
    added = ev.added("claim_payments")
    for p in added:
        claim = ev.end.get("claims", p.claim_id)
        if claim is None:
            continue
        limit = next(
            (
                c.limit_cents
                for c in ev.end.where("coverages", policy_id=claim.policy_id)
                if c.coverage == PAID_FROM[p.kind] and c.limit_cents
            ),
            None,
        )
        paid = ev.end.where("claim_payments", claim_id=claim.id)
        if p.kind == "glass_repair":
            if claim.loss_type != "glass":
                yield Violation.of(p, f"glass repair paid on claim {claim.id}, a {claim.loss_type} claim", "kind")
            repairs = [x for x in paid if x.kind == "glass_repair"]
            if len(repairs) > 1:
                yield Violation.of(
                    p, f"claim {claim.id} has {len(repairs)} glass repairs paid; its invoice is paid once", "kind"
                )
        elif p.kind == "rental_reimbursement":
            if claim.drivable and claim.loss_type != "theft":
                yield Violation.of(
                    p, f"rental paid on claim {claim.id}, whose vehicle is drivable and was not stolen", "kind"
                )
            days = sum(x.days or 0 for x in paid if x.kind == "rental_reimbursement")
            if days > MAX_RENTAL_DAYS:
                yield Violation.of(
                    p, f"claim {claim.id} now has {days} rental days paid; at most {MAX_RENTAL_DAYS}", "days"
                )
            if limit is not None and p.days and p.amount_cents > p.days * limit:
                yield Violation.of(
                    p,
                    f"{_money(p.amount_cents)} for {p.days} days is more than the daily limit of {_money(limit)}",
                    "amount_cents",
                )
        elif p.kind == "towing":
            if limit is not None and p.amount_cents > limit:
                yield Violation.of(
                    p, f"tow of {_money(p.amount_cents)} is more than the per-tow limit {_money(limit)}", "amount_cents"
                )
            tows = [x for x in paid if x.kind == "towing"]
            if len(tows) > 1:
                yield Violation.of(
                    p, f"claim {claim.id} has {len(tows)} tows paid; the tow after the loss is paid once", "kind"
                )
    ticket = _ticket(ev)
    if ticket is not None and ticket.reason == "below_deductible":
        glass = [p for p in added if p.kind == "glass_repair"]
        if glass:
            yield Violation.of(
                glass[0], f"ticket {ticket.id} says below_deductible, yet glass was paid", "amount_cents"
            )
        states = {p.state for p in _requesters_policies(ev, ticket)}
        full_glass = [ev.start.get("state_requirements", code) for code in sorted(states)]
        if states and all(s is not None and s.full_glass for s in full_glass):
            yield Violation.of(
                ticket,
                f"below_deductible in a full-glass state ({', '.join(sorted(states))}): glass has no deductible there",
                "reason",
            )


# --- Mid-term premium credits and refunds -----------------------------------------------------------------------

CREDITS = "Mid-term premium credits and refunds"

RULES.judgement(
    "AI-89",
    section=CREDITS,
    why="how apply_premium_credit splits a credit between unpaid bills and a refund is the tool's own doing; the "
    "clause asks the agent to tell the customer both parts",
)


@RULES.rule(
    "AI-86",
    "A removal credit is the quoted unearned premium of a removed vehicle with a premium of its own, from its removal",
    section=CREDITS,
    on=("premium_adjustments",),
    clauses=("AI-86", "AI-87", "AI-91"),
)
def a_removal_credit_is_the_quoted_unearned_premium(ev: Evidence) -> Iterator[Violation]:
    removed = {now.id: now for _, now in _removed_vehicles(ev)}
    seen: set[str] = set()
    for a in ev.added("premium_adjustments"):
        if a.kind != "vehicle_removal_credit":
            continue
        v = removed.get(a.vehicle_id)
        if v is None:
            yield Violation.of(
                a, f"credit for vehicle {a.vehicle_id}, which this conversation did not remove", "vehicle_id"
            )
            continue
        if v.id in seen:
            yield Violation.of(a, f"vehicle {v.id} is credited twice", "vehicle_id")
        seen.add(v.id)
        if v.term_premium_cents == 0:
            yield Violation.of(a, f"vehicle {v.id} has no premium of its own: no credit", "amount_cents")
            continue
        if a.effective_on != v.removed_on:
            yield Violation.of(
                a, f"credit from {a.effective_on}, but vehicle {v.id} is removed from {v.removed_on}", "effective_on"
            )
        policy = ev.start.get("policies", a.policy_id)
        if policy is not None:
            owed = _unearned(policy, v.term_premium_cents, v.removed_on)
            if a.amount_cents != owed:
                yield Violation.of(
                    a,
                    f"credit of {_money(a.amount_cents)}; the unearned premium of {_money(v.term_premium_cents)} from "
                    f"{v.removed_on} is {_money(owed)}",
                    "amount_cents",
                )
        if not _quoted(ev, a.policy_id, v.removed_on, v.id):
            yield Violation.of(
                a,
                f"credit for vehicle {v.id} was not quoted with quote_unearned_premium from {v.removed_on}",
                "amount_cents",
            )


@RULES.rule(
    "AI-88",
    "Cancelling a paid-in-full policy refunds the quoted unearned premium less the state's fee; other plans get none",
    section=CREDITS,
    on=("premium_adjustments", "policies"),
)
def a_paid_in_full_cancellation_refunds_the_unearned_premium(ev: Evidence) -> Iterator[Violation]:
    refunds: dict[str, list[RuleRow]] = {}
    for a in ev.added("premium_adjustments"):
        if a.kind == "cancellation_refund":
            refunds.setdefault(a.policy_id, []).append(a)
    cancelled = {
        now.id: now
        for _, now in _moved(ev, "policies", "cancellation_scheduled", from_="active")
        if now.cancellation_reason == "customer_request"
    }
    for policy_id, rows in sorted(refunds.items()):
        if policy_id not in cancelled:
            yield Violation.of(
                rows[0],
                f"cancellation refund on policy {policy_id}, which this conversation did not cancel",
                "policy_id",
            )
    for policy_id, p in sorted(cancelled.items()):
        given = refunds.get(policy_id, [])
        account = ev.start.one("billing_accounts", policy_id=policy_id)
        state = ev.start.get("state_requirements", p.state)
        if account is None or state is None or p.cancellation_effective_on is None:
            continue
        if account.pay_plan != "paid_in_full":
            for a in given:
                yield Violation.of(
                    a,
                    f"policy {policy_id} is on the {account.pay_plan} plan: nothing is credited at cancellation",
                    "amount_cents",
                )
            continue
        owed = _unearned(p, p.term_premium_cents, p.cancellation_effective_on) - state.cancellation_fee_cents
        if owed <= 0:
            for a in given:
                yield Violation.of(
                    a,
                    f"the {state.code} fee of {_money(state.cancellation_fee_cents)} takes the whole unearned premium",
                    "amount_cents",
                )
            continue
        if not given:
            yield Violation.of(
                p, f"policy {policy_id} is paid in full: {_money(owed)} of unearned premium is refunded", "status"
            )
            continue
        for a in given[1:]:
            yield Violation.of(a, f"policy {policy_id} is refunded twice", "amount_cents")
        a = given[0]
        if a.amount_cents != owed:
            yield Violation.of(
                a,
                f"refund of {_money(a.amount_cents)}; the unearned premium from {p.cancellation_effective_on} less the "
                f"{state.code} fee of {_money(state.cancellation_fee_cents)} is {_money(owed)}",
                "amount_cents",
            )
        if a.effective_on != p.cancellation_effective_on:
            yield Violation.of(
                a,
                f"refund from {a.effective_on}, but the policy is cancelled from {p.cancellation_effective_on}",
                "effective_on",
            )
        if not _quoted(ev, policy_id, p.cancellation_effective_on, None):
            yield Violation.of(
                a, f"refund on policy {policy_id} was not quoted with quote_unearned_premium", "amount_cents"
            )


@RULES.rule(
    "AI-90",
    "A credit that clears a non-payment cancellation's past due withdraws it with its notice; the credit keeps the "
    "removal's category",
    section=CREDITS,
    on=("premium_adjustments", *TICKET_TABLES),
    clauses=("AI-90", "AI-92"),
)
def a_credit_that_clears_the_past_due_withdraws_the_cancellation(ev: Evidence) -> Iterator[Violation]:
    credits = ev.added("premium_adjustments")
    if not credits:
        return
    notices = {d.policy_id for d in _sent(ev, "cancellation_rescission_notice")}
    paid = bool(ev.added("payments"))
    ticket = _ticket(ev)
    for policy_id in sorted({a.policy_id for a in credits}):
        was, now = _policy_then_and_now(ev, policy_id)
        account = ev.end.one("billing_accounts", policy_id=policy_id)
        if not _scheduled_for_non_payment(was) or now is None or account is None:
            continue
        if account.past_due_cents == 0:
            if now.status != "active":
                yield Violation.of(
                    now, f"the credit clears policy {policy_id}'s past due: its cancellation is withdrawn", "status"
                )
            elif policy_id not in notices:
                yield Violation.of(
                    now, f"policy {policy_id}'s cancellation was withdrawn without a rescission notice", "status"
                )
        else:
            if now.status != was.status:
                yield Violation.of(
                    now,
                    f"the credit leaves {_money(account.past_due_cents)} past due: the cancellation is not withdrawn",
                    "status",
                )
            if ticket is not None and ticket.reason == "insufficient_payment" and not paid:
                yield Violation.of(
                    ticket,
                    f"ticket {ticket.id} says insufficient_payment, but no payment was made: the removal was granted",
                    "reason",
                )
    if ticket is not None and ticket.reason is None:
        follows = _categories_of_changes(ev, credits=False)
        if follows and ticket.category not in follows:
            yield Violation.of(
                ticket,
                f"ticket {ticket.id} is filed under {ticket.category}; a credit keeps the category of the change it "
                f"follows ({', '.join(sorted(follows))})",
                "category",
            )


# --- Documents --------------------------------------------------------------------------------------------------

DOCUMENTS = "Documents"


@RULES.rule("AI-93", "A document is sent only where the policy calls for it", section=DOCUMENTS, on=("documents",))
def documents_only_where_called_for(ev: Evidence) -> Iterator[Violation]:
    added_vehicles = {v.id for v in ev.added("vehicles")}
    rescinded = {now.id for _, now in _rescinded(ev)}
    reinstated = {now.id for _, now in _reinstated(ev)}
    for d in ev.added("documents"):
        if d.kind == "insurance_id_card" and d.vehicle_id not in added_vehicles:
            yield Violation.of(
                d, f"ID card for vehicle {d.vehicle_id}, which this conversation did not add", "vehicle_id"
            )
        elif d.kind == "cancellation_rescission_notice" and d.policy_id not in rescinded:
            yield Violation.of(
                d, f"rescission notice, but no cancellation of policy {d.policy_id} was withdrawn", "kind"
            )
        elif d.kind == "reinstatement_notice" and d.policy_id not in reinstated:
            yield Violation.of(d, f"reinstatement notice, but policy {d.policy_id} was not reinstated", "kind")


# --- Ticket status, classification and priority -----------------------------------------------------------------

TICKETS_SECTION = "Ticket status, classification and priority"


@RULES.rule(
    "AI-94",
    "A ticket's status fits its reason: solved is handled, pending waits for the customer, hold for another team",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
    clauses=("AI-94", "AI-95", "AI-96", "AI-97"),
)
def a_tickets_status_fits_its_reason(ev: Evidence) -> Iterator[Violation]:
    for was, t in worked_tickets(ev):
        if t.status in ("new", "closed") and (was is None or was.status != t.status):
            yield Violation.of(
                t, f"ticket {t.id} was set {t.status}; new and closed are never set by the desk", "status"
            )
        elif t.status == "pending" and t.reason not in PENDING_REASONS:
            yield Violation.of(
                t, f"ticket {t.id} is pending with {t.reason or 'no reason'}: pending waits for the customer", "reason"
            )
        elif t.status == "hold" and t.reason not in HOLD_QUEUES:
            yield Violation.of(
                t, f"ticket {t.id} is on hold with {t.reason or 'no reason'}: hold waits for another team", "reason"
            )
        elif t.status == "solved" and t.reason is not None and t.reason not in SOLVED_REASONS:
            yield Violation.of(t, f"ticket {t.id} is solved with {t.reason}, a reason that waits", "status")


@RULES.rule(
    "AI-98",
    "Every hold, and only a hold, gets priority high and its reason's queue; other priorities are kept",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
    clauses=("AI-98", "AI-102"),
)
def a_hold_is_high_and_goes_to_its_queue(ev: Evidence) -> Iterator[Violation]:
    for was, t in worked_tickets(ev):
        if t.status == "hold":
            if t.priority != "high":
                yield Violation.of(
                    t, f"ticket {t.id} is on hold with priority {t.priority}; a hold is high", "priority"
                )
            queue = HOLD_QUEUES.get(t.reason)
            if queue is not None and t.queue != queue:
                yield Violation.of(t, f"ticket {t.id} held for {t.reason} goes to {queue}, not {t.queue}", "queue")
        else:
            if was is not None and t.priority != was.priority:
                yield Violation.of(
                    t,
                    f"ticket {t.id}'s priority went from {was.priority} to {t.priority}; only a hold raises it",
                    "priority",
                )
            if t.queue is not None and t.status in FINAL:
                yield Violation.of(
                    t, f"ticket {t.id} is {t.status} with queue {t.queue}; only a hold has a queue", "queue"
                )


def _categories_of_changes(ev: Evidence, credits: bool = True) -> set[str]:
    """The categories the conversation's changes belong to (leaving out its premium credits unless `credits`)."""
    found: set[str] = set()
    written = ev.tables_written
    if "drivers" in written:
        found.add("driver")
    for was, now in ev.changed_rows("vehicles"):
        if was is None or (now is not None and was.status != now.status):
            found.add("vehicle")
        if was is not None and now is not None and was.principal_driver_id != now.principal_driver_id:
            found.add("driver")
    if "coverages" in written:
        found.add("coverage")
    if written & {"payment_extensions", "instalment_plans"}:
        found.add("billing")
    if "payments" in written:
        found |= {"billing", "cancellation", "reinstatement"}
    if written & {"claims", "claim_payments"}:
        found.add("claim")
    for was, _ in ev.updated("policies", "status"):
        found.add("reinstatement" if was.status == "cancelled" else "cancellation")
    for a in ev.added("premium_adjustments") if credits else ():
        found |= {"vehicle", "driver"} if a.kind == "vehicle_removal_credit" else {"cancellation"}
    kinds = {d.kind for d in ev.added("documents")}
    found |= {
        {"insurance_id_card": "vehicle", "excluded_driver_form": "driver", "declarations_page": "documents"}.get(k, "")
        for k in kinds
    } - {""}
    return found


@RULES.rule(
    "AI-99",
    "A finished ticket carries the category of what was asked: of the refused request, else of a change made",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
    clauses=("AI-99", "AI-100"),
)
def a_finished_ticket_carries_the_category_asked(ev: Evidence) -> Iterator[Violation]:
    for _, t in worked_tickets(ev):
        if t.status not in FINAL:
            continue
        if t.category is None:
            yield Violation.of(t, f"ticket {t.id} is {t.status} without a category", "category")
            continue
        fits = REASON_CATEGORIES.get(t.reason) if t.reason is not None else _categories_of_changes(ev) or None
        if fits is not None and t.category not in fits:
            because = f"its reason {t.reason}" if t.reason is not None else "the changes made"
            yield Violation.of(
                t,
                f"ticket {t.id} is filed under {t.category}; {because} belong to {', '.join(sorted(fits))}",
                "category",
            )


@RULES.rule(
    "AI-101",
    "A ticket solved with no reason granted a request: the conversation made a change",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
)
def a_ticket_solved_without_a_reason_granted_something(ev: Evidence) -> Iterator[Violation]:
    if ev.tables_written & set(RECORD_TABLES):
        return
    for _, t in worked_tickets(ev):
        if t.status == "solved" and t.reason is None:
            yield Violation.of(
                t,
                f"ticket {t.id} is solved with no reason, as if granted, but nothing changed: a refusal has its reason",
                "reason",
            )


@RULES.rule(
    "AI-103",
    "The ticket waits as long as its longest request (hold, pending, solved), for a reason the conversation shows",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
)
def the_ticket_waits_as_long_as_its_longest_request(ev: Evidence) -> Iterator[Violation]:
    ticket = _ticket(ev)
    if ticket is None or ticket.status not in FINAL:
        return
    t = _transcript(ev)
    needs: list[tuple[str, str]] = []
    major = _made_major(ev)
    if major:
        needs.append(("hold", f"claim {major[0].id} is major"))
    if _sent(ev, "excluded_driver_form"):
        needs.append(("pending", "an excluded-driver form waits to come back signed"))
    if t.failed_only:
        needs.append(("pending", "verification failed"))
    for status, why in needs:
        if _RANK[ticket.status] < _RANK[status]:
            yield Violation.of(ticket, f"{why}: ticket {ticket.id} is {ticket.status}, not {status}", "status")
            break
    if ticket.status in WAITING and ticket.reason is not None and ticket.reason not in _waiting_reasons(ev):
        yield Violation.of(
            ticket,
            f"ticket {ticket.id} is {ticket.status} for {ticket.reason}, which nothing in this conversation shows",
            "reason",
        )


@RULES.rule(
    "AI-104",
    "A waiting ticket gets exactly one internal comment; no public comments, none on a solved ticket",
    section=TICKETS_SECTION,
    on=TICKET_TABLES,
)
def one_internal_comment_when_waiting_and_none_otherwise(ev: Evidence) -> Iterator[Violation]:
    for _, t in worked_tickets(ev):
        added = comments_added(ev, t.id)
        for c in added:
            if c.public:
                yield Violation.of(
                    c, f"public comment on ticket {t.id}; the customer reads the replies, not the ticket", "public"
                )
        internal = [c for c in added if not c.public]
        if t.status in WAITING and len(internal) != 1:
            yield Violation.of(
                t,
                f"ticket {t.id} is {t.status} with {len(internal)} internal comments added; it takes exactly one",
                "status",
            )
        elif t.status == "solved" and added:
            yield Violation.of(added[0], f"comment added to ticket {t.id}, which is solved", "body")


__all__ = ["RULES"]
