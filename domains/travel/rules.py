"""The hotel desk's policy (`policy.md`) as executable rules: the second oracle beside each task's golden path.

Every clause of the policy is checked by one of the rules below or marked judgement-only (what the agent
tells the traveller). A rule reads one attempt's `Evidence`: the start and end states, the rows it wrote and,
where a clause is about what was looked up first, its tool calls. Most rules follow the records the
conversation wrote: the bookings it cancelled, shortened, upgraded or relocated, the money it moved, the
requests and escalations it opened, and the ticket it worked. What the policy calls for is worked out once per
attempt from the start state (what was refundable, which window applied, which rate, which tier) and shared
by the rules through the evidence's per-attempt memo.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from domains.shared.rules import TICKET_TABLES, comments_added, internal_notes, worked_tickets, written_tables
from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import RuleRow, ToolCall

from .clock import TODAY
from .tools import TICKET_REASONS
from .tools import tools as _toolset

RULES = Rules()

LIMIT = 100_000  # the largest refund an agent issues
FEE = 2_500  # the cancellation service fee
HOLD_REASONS = ("over_limit", "credit_hold", "awaiting_hotel")
PENDING_REASONS = ("identity_not_verified", "needs_approval", "awaiting_organiser")
QUEUE_OF = {
    "over_limit": "payments",
    "credit_hold": "accounts_receivable",
    "awaiting_hotel": "partner_relations",
    "needs_approval": "approvals",
    "awaiting_organiser": "group_desk",
}
GOOD_TIERS = ("gold", "platinum")
OPEN_ESCALATION = ("sent", "acknowledged")
WRITE_TOOLS = frozenset(_toolset.writes())
ALL = (
    "approval_requests",
    "bookings",
    "partner_escalations",
    "payments",
    "room_inventory",
    "ticket_comments",
    "tickets",
    "trips",
)
MONEY = ("payments",)
TICKETS = ("tickets",)
DATE_MONEY = ("extra_nights", "date_change")

# The policy's headings, as rules cite them.
WORK = "Working a conversation"
IDENTITY = "Identifying the traveller"
STANDING = "Corporate account standing"
RATE = "Which nightly rate applies"
NEW = "New bookings"
WINDOW = "Free-cancellation window"
CANCEL = "Cancellations"
SERVICE_FEE = "The service fee"
FAULT = "Hotel-fault cancellations"
DATES = "Date changes"
UPGRADE = "Paid room upgrades"
DOWNGRADE = "Room downgrades and travel manager approval"
GROUPS = "Group bookings"
LATE = "Late checkout"
ALLOWANCE = "Loyalty upgrade allowance"
DUPLICATES = "Duplicate and unrecognised charges"
ESCALATIONS = "Partner escalations"
TRIPS = "Trips and itineraries"
RELOCATION = "Hotel disruptions and relocation"
CAPS = "City rate caps"
REFUND_LIMIT = "Refund limit"
STATUS = "Ticket status and priority"
CLASSIFY = "Ticket classification"


def _cents(amount: int) -> str:
    return f"{amount:,} cents"


# --- what the conversation did ---------------------------------------------------------------------------------


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _identified(ev: Evidence) -> str | None:
    """The traveller the conversation identified by email (the first successful look-up), if any."""

    def find() -> str | None:
        for c in ev.tool_calls():
            if c.tool == "find_traveller_by_email" and c.error is None:
                found = _json(c.result)
                if isinstance(found, dict) and found.get("id"):
                    return str(found["id"])
                match = re.search(r"TRV-\d+", c.result)
                if match:
                    return match.group(0)
        return None

    identified: str | None = ev.memo(("travel", "identified"), find)
    return identified


def _who(ev: Evidence) -> str | None:
    """The traveller the conversation serves: the one identified by email, else its ticket's requester."""
    who = _identified(ev)
    if who is None:
        who = next((now.requester_id for _, now in worked_tickets(ev)), None)
    return who


def _nights(check_in: dt.date, check_out: dt.date) -> set[dt.date]:
    return {check_in + dt.timedelta(days=i) for i in range((check_out - check_in).days)}


class Stay:
    """One booking the conversation wrote, as it was at the start (None if it created it) and as it is now, with
    what changed worked out once."""

    __slots__ = (
        "added_nights",
        "allowance",
        "cancelled",
        "created",
        "dates_changed",
        "id",
        "kept",
        "late_checkout",
        "now",
        "relocated",
        "relocation_target",
        "removed_nights",
        "room_changed",
        "was",
    )  # fmt: skip

    def __init__(self, was: RuleRow | None, now: RuleRow) -> None:
        self.was, self.now, self.id = was, now, str(now.id)
        self.cancelled = was is not None and was.status != "cancelled" and now.status == "cancelled"
        self.relocated = was is not None and was.status != "relocated" and now.status == "relocated"
        self.created = was is None and now.relocated_from_id is None  # a new booking, not a relocation's
        self.relocation_target = was is None and now.relocated_from_id is not None
        self.kept = was is not None and not self.cancelled and not self.relocated
        self.added_nights: set[dt.date] = set()
        self.removed_nights: set[dt.date] = set()
        self.dates_changed = self.allowance = self.room_changed = self.late_checkout = False
        if was is None or not self.kept:
            return
        if (was.check_in, was.check_out) != (now.check_in, now.check_out):
            self.dates_changed = True
            old, new = _nights(was.check_in, was.check_out), _nights(now.check_in, now.check_out)
            self.added_nights, self.removed_nights = new - old, old - new
        self.allowance = not was.upgrade_allowance_used and bool(now.upgrade_allowance_used)
        # moved to another room type or rate by change_room_type (not by the allowance)
        self.room_changed = not self.allowance and (
            was.room_type_id != now.room_type_id or was.nightly_rate_cents != now.nightly_rate_cents
        )
        self.late_checkout = not was.late_checkout and bool(now.late_checkout)


def _stays(ev: Evidence) -> dict[str, Stay]:
    """The bookings the conversation wrote, by id."""
    stays: dict[str, Stay] = ev.memo(
        ("travel", "stays"),
        lambda: {str(now.id): Stay(was, now) for was, now in ev.changed_rows("bookings") if now is not None},
    )
    return stays


def _paid(ev: Evidence) -> dict[str, list[RuleRow]]:
    """The payment lines the conversation added, per booking."""

    def build() -> dict[str, list[RuleRow]]:
        found: dict[str, list[RuleRow]] = {}
        for p in ev.added("payments"):
            found.setdefault(str(p.booking_id), []).append(p)
        return found

    paid: dict[str, list[RuleRow]] = ev.memo(("travel", "paid"), build)
    return paid


def _refunds(ev: Evidence, booking_id: str, *reasons: str) -> list[RuleRow]:
    return [p for p in _paid(ev).get(booking_id, ()) if p.kind == "refund" and (not reasons or p.reason in reasons)]


def _charges(ev: Evidence, booking_id: str, *reasons: str) -> list[RuleRow]:
    return [p for p in _paid(ev).get(booking_id, ()) if p.kind == "charge" and (not reasons or p.reason in reasons)]


def _refundable(lines: list[RuleRow]) -> int:
    """What is still refundable on a ledger: charged (and carried in) less refunded (and carried out) and fees."""
    total = 0
    for p in lines:
        if p.kind in ("charge", "transfer_in"):
            total += p.amount_cents
        elif p.kind in ("refund", "transfer_out"):
            total -= p.amount_cents + (p.service_fee_cents if p.kind == "refund" else 0)
    return total


def _rank(ev: Evidence, room_type_id: str) -> int:
    room_type = ev.start.get("room_types", room_type_id)
    return int(room_type.rank) if room_type is not None else 0


def _rates(ev: Evidence, account_id: str, room_type_id: str, check_in: dt.date) -> set[int]:
    """The nightly rates the policy prices a room type at for a stay checking in on `check_in`: the account's
    negotiated rate valid that day, else the rack rate."""
    negotiated = {
        r.nightly_rate_cents
        for r in ev.start.where("negotiated_rates", account_id=account_id, room_type_id=room_type_id)
        if r.valid_from <= check_in <= r.valid_until
    }
    if negotiated:
        return negotiated
    room_type = ev.start.get("room_types", room_type_id)
    return {room_type.rack_rate_cents} if room_type is not None else set()


def _standing(ev: Evidence, account_id: str) -> str | None:
    """Why the account is not in good standing, or None when it is."""
    account = ev.start.get("corporate_accounts", account_id)
    if account is None:
        return None
    if account.status != "active":
        return f"account {account_id} is {account.status}"
    today = ev.now.date() if ev.now else TODAY
    for invoice in ev.start.where("invoices", account_id=account_id, status="issued"):
        overdue = (today - invoice.due_on).days
        if overdue > 30:
            return f"invoice {invoice.id} of account {account_id} is {overdue} days overdue"
    return None


def _suspended(ev: Evidence) -> set[str]:
    """The suspended accounts (one query, usually none, so no traveller need be looked up)."""
    return {str(a.id) for a in ev.start.where("corporate_accounts", status="suspended")}


def _suspended_account_of(ev: Evidence, traveller_id: str | None) -> str | None:
    suspended = _suspended(ev)
    if not suspended or traveller_id is None:
        return None
    account = _account_of(ev, traveller_id)
    return str(account.id) if account is not None and str(account.id) in suspended else None


def _account_of(ev: Evidence, traveller_id: str | None) -> RuleRow | None:
    traveller = ev.start.get("travellers", traveller_id) if traveller_id else None
    return ev.start.get("corporate_accounts", traveller.account_id) if traveller is not None else None


def _booked_rates(ev: Evidence, booking: RuleRow) -> set[int]:
    """The nightly rates the policy prices the booking's own room type at, for its check-in."""
    return _rates(ev, booking.account_id, booking.room_type_id, booking.check_in)


def _cap(ev: Evidence, account_id: str, hotel_id: str) -> int | None:
    """The account's nightly rate cap for the hotel's city, if it has one."""
    hotel = ev.start.get("hotels", hotel_id)
    if hotel is None:
        return None
    caps = [
        c.max_nightly_rate_cents
        for c in ev.start.where("city_rate_caps", account_id=account_id)
        if str(c.city).lower() == str(hotel.city).lower()
    ]
    return min(caps) if caps else None


def _over_cap(ev: Evidence, booking: RuleRow) -> int | None:
    """The city cap the booking's nightly rate is above, or None (no cap, or within it)."""
    cap = _cap(ev, booking.account_id, booking.hotel_id)
    return cap if cap is not None and booking.nightly_rate_cents > cap else None


def _deadline(ev: Evidence, booking: RuleRow) -> tuple[dt.datetime, str]:
    """The free-cancellation deadline that applies to a booking, and whose it is (the group's for a group room)."""
    if booking.group_id:
        group = ev.start.get("group_bookings", booking.group_id)
        if group is not None:
            return group.free_cancellation_until, f"group {group.id}'s deadline"
    return booking.free_cancellation_until, "its deadline"


def _inside(ev: Evidence, booking: RuleRow) -> bool:
    return ev.now is not None and ev.now <= _deadline(ev, booking)[0]


def _approvals(ev: Evidence, booking_id: str, status: str) -> list[RuleRow]:
    return [a for a in ev.start.where("approval_requests", booking_id=booking_id) if a.status == status]


def _asks_the_price(
    ev: Evidence, request: RuleRow, booking: RuleRow, target: str, what: str, when: str = ""
) -> Iterator[Violation]:
    """A request to the travel manager asks the rate `target` is priced at for the booking's account and check-in
    (TR-49, TR-85): `what` names the request in the message, `when` ends it."""
    rates = _rates(ev, booking.account_id, target, booking.check_in)
    if rates and request.requested_rate_cents not in rates:
        yield Violation.of(
            request,
            f"{what} asks {_cents(request.requested_rate_cents)}; {target} is priced at {_cents(min(rates))}{when}",
            "requested_rate_cents",
        )


def _tier_counts(ev: Evidence, traveller_id: str, on: dt.date) -> str | None:
    """The traveller's loyalty tier if it is valid on `on` (an expired tier counts as member)."""
    profile = ev.start.one("loyalty_profiles", traveller_id=traveller_id)
    if profile is None or profile.tier_valid_until < on:
        return None
    return str(profile.tier)


def _relocation_call(ev: Evidence, old_id: str) -> ToolCall | None:
    return next(
        (
            c
            for c in ev.tool_calls()
            if c.tool == "relocate_booking" and c.error is None and c.arguments.get("booking_id") == old_id
        ),
        None,
    )


def _relocated_room_type(ev: Evidence, target: RuleRow) -> str:
    """The room type a relocation booked (the target may have been upgraded by the allowance since)."""
    found = _relocation_call(ev, str(target.relocated_from_id))
    if found is not None and found.arguments.get("room_type_id"):
        return str(found.arguments["room_type_id"])
    return str(target.room_type_id)


# --- what the policy calls for -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Due:
    """A movement of money the policy calls for on one booking: a refund, a charge or a claim on the hotel."""

    booking_id: str
    kind: str  # refund, charge, claim
    reason: str
    amount: int
    fee: int
    why: str


def _relocations(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """(old booking at the start, new booking) of each relocation the conversation made."""

    def build() -> list[tuple[RuleRow, RuleRow]]:
        stays = _stays(ev)
        found = []
        for stay in stays.values():
            if stay.relocation_target:
                old = stays.get(str(stay.now.relocated_from_id))
                if old is not None and old.relocated and old.was is not None:
                    found.append((old.was, stay.now))
        return found

    relocations: list[tuple[RuleRow, RuleRow]] = ev.memo(("travel", "relocations"), build)
    return relocations


def _cancellation_due(ev: Evidence, stay: Stay) -> Due:
    was = stay.was
    assert was is not None
    before = _refundable(ev.start.where("payments", booking_id=stay.id))
    # money the conversation moved on the booking before cancelling it (a charge, another refund)
    for p in _paid(ev).get(stay.id, ()):
        if p.kind == "charge":
            before += p.amount_cents
        elif p.kind == "refund" and p.reason not in ("cancellation", "hotel_fault"):
            before -= p.amount_cents + p.service_fee_cents
    if was.hotel_confirmation == "cannot_honour":
        return Due(stay.id, "refund", "hotel_fault", before, 0, f"hotel fault: all {_cents(before)} refundable")
    deadline, whose = _deadline(ev, was)
    if _inside(ev, was):
        why = f"inside the window ({whose}, {deadline:%d %b %H:%M}): {_cents(before)} refundable less the fee"
        return Due(stay.id, "refund", "cancellation", before - FEE, FEE, why)
    rate = was.nightly_rate_cents
    why = (
        f"after the window ({whose}, {deadline:%d %b %H:%M}): {_cents(before)} refundable less one night of "
        f"{_cents(rate)} and the fee"
    )
    return Due(stay.id, "refund", "cancellation", before - rate - FEE, FEE, why)


def _date_change_due(ev: Evidence, stay: Stay) -> Due | None:
    was = stay.was
    assert was is not None
    added, removed = len(stay.added_nights), len(stay.removed_nights)
    rate = was.nightly_rate_cents
    if added and removed:
        return None  # a move (same nights: no money) or a mix the policy does not price
    if added:
        return Due(stay.id, "charge", "extra_nights", added * rate, 0, f"{added} added night(s) at {_cents(rate)}")
    if _inside(ev, was):
        return Due(stay.id, "refund", "date_change", removed * rate, 0, f"{removed} removed night(s) inside the window")
    deadline, whose = _deadline(ev, was)
    why = f"{removed} removed night(s) after the window ({whose}, {deadline:%d %b %H:%M}), the first kept"
    return Due(stay.id, "refund", "date_change", (removed - 1) * rate, 0, why)


def _room_direction(ev: Evidence, stay: Stay) -> str:
    """'up' for a paid upgrade, 'down' for a downgrade (a lower rank, or the same rank at a lower rate)."""
    was, now = stay.was, stay.now
    assert was is not None
    old, new = _rank(ev, was.room_type_id), _rank(ev, now.room_type_id)
    if new != old:
        return "up" if new > old else "down"
    return "down" if now.nightly_rate_cents < was.nightly_rate_cents else "up"


def _room_move(ev: Evidence, stay: Stay) -> str | None:
    """'up' or 'down' where the conversation moved the booking to another room type or rate, else None."""
    return _room_direction(ev, stay) if stay.room_changed else None


def _late_fee(ev: Evidence, booking: RuleRow) -> tuple[int, str]:
    """The late checkout fee the policy sets for a booking, and why (the tier of the traveller staying)."""
    tier = _tier_counts(ev, booking.traveller_id, booking.check_out)
    if tier in GOOD_TIERS:
        return 0, f"{tier} valid on the {booking.check_out:%d %b} check-out"
    hotel = ev.start.get("hotels", booking.hotel_id)
    fee = hotel.late_checkout_fee_cents if hotel is not None else 0
    return (
        fee,
        f"traveller {booking.traveller_id} has no gold or platinum tier valid on the "
        f"{booking.check_out:%d %b} check-out",
    )


def _plan(ev: Evidence) -> dict[tuple[str, str], Due]:
    """Per (booking, reason): what the policy calls for, given the changes the conversation made."""

    def build() -> dict[tuple[str, str], Due]:
        plan: dict[tuple[str, str], Due] = {}

        def add(due: Due | None) -> None:
            if due is not None:
                plan[due.booking_id, due.reason] = due

        for stay in _stays(ev).values():
            if stay.cancelled:
                add(_cancellation_due(ev, stay))
            if stay.dates_changed:
                add(_date_change_due(ev, stay))
            if stay.room_changed:
                was, now = stay.was, stay.now
                assert was is not None
                step = was.nightly_rate_cents - now.nightly_rate_cents
                if _room_direction(ev, stay) == "down":
                    why = f"({_cents(was.nightly_rate_cents)} - {_cents(now.nightly_rate_cents)}) x {now.nights} nights"
                    add(Due(stay.id, "refund", "room_downgrade", step * now.nights, 0, why))
                else:
                    why = f"({_cents(now.nightly_rate_cents)} - {_cents(was.nightly_rate_cents)}) x {now.nights} nights"
                    add(Due(stay.id, "charge", "room_upgrade", -step * now.nights, 0, why))
            if stay.late_checkout:
                fee, why = _late_fee(ev, stay.now)
                add(Due(stay.id, "charge", "late_checkout", fee, 0, why))
        for old, new in _relocations(ev):
            applicable = min(_rates(ev, old.account_id, _relocated_room_type(ev, new), old.check_in) or {0})
            if applicable < old.nightly_rate_cents:
                step = old.nightly_rate_cents - applicable
                why = f"({_cents(old.nightly_rate_cents)} - {_cents(applicable)}) x {old.nights} nights"
                add(Due(str(new.id), "refund", "hotel_fault", step * old.nights, 0, why))
            elif applicable > old.nightly_rate_cents:
                step = applicable - old.nightly_rate_cents
                why = f"({_cents(applicable)} - {_cents(old.nightly_rate_cents)}) x {old.nights} nights"
                add(Due(str(old.id), "claim", "relocation", step * old.nights, 0, why))
        return plan

    plan: dict[tuple[str, str], Due] = ev.memo(("travel", "plan"), build)
    return plan


def _over_limit(ev: Evidence) -> list[Due]:
    return [d for d in _plan(ev).values() if d.kind == "refund" and d.amount > LIMIT]


def _hotel_escalations(ev: Evidence) -> list[RuleRow]:
    """The escalations the conversation opened that wait for a hotel (a relocation's claim is ours, not a wait)."""
    return [x for x in ev.added("partner_escalations") if x.kind != "relocation"]


def _waits(ticket: RuleRow) -> bool:
    """The ticket waits, for a reason that says why (another request of the conversation is held or pending)."""
    return (ticket.status == "hold" and ticket.reason in HOLD_REASONS) or (
        ticket.status == "pending" and ticket.reason in PENDING_REASONS
    )


def _ends_solved(ev: Evidence, what: str) -> Iterator[Violation]:
    """A request the conversation granted leaves its ticket solved, unless another one still waits."""
    for _, ticket in worked_tickets(ev):
        if ticket.status != "solved" and not _waits(ticket):
            yield Violation.of(
                ticket,
                f"the conversation {what}, yet ticket {ticket.id} ends {ticket.status} with reason {ticket.reason}: "
                "a granted request is solved unless something else waits",
                "status",
            )


def _outside_window_changes(ev: Evidence) -> list[str]:
    """The cancellations (not the hotel's fault) and shortened stays the conversation made after the window."""

    def build() -> list[str]:
        found = []
        for stay in _stays(ev).values():
            was = stay.was
            if was is None or _inside(ev, was):
                continue
            if stay.cancelled and was.hotel_confirmation != "cannot_honour":
                found.append(f"booking {stay.id} cancelled after the window")
            elif stay.removed_nights and not stay.added_nights:
                found.append(f"booking {stay.id} shortened after the window")
        return found

    outside: list[str] = ev.memo(("travel", "outside window"), build)
    return outside


def _detected_reasons(ev: Evidence, ticket: RuleRow) -> dict[str, str]:
    """The reason codes the state shows apply to the conversation, with why."""
    found: dict[str, str] = {}
    over = _over_limit(ev)
    if over:
        found["over_limit"] = f"a refund of {_cents(over[0].amount)} on booking {over[0].booking_id} is due"
    opened = _hotel_escalations(ev)
    if opened:
        found["awaiting_hotel"] = f"escalation {opened[0].id} was opened"
    created = ev.added("approval_requests")
    if created:
        found["needs_approval"] = f"approval request {created[0].id} was created"
    suspended = _suspended_account_of(ev, ticket.requester_id)
    if suspended:
        found["account_suspended"] = f"account {suspended} is suspended"
    outside = _outside_window_changes(ev)
    if outside:
        found["outside_window"] = outside[0]
    return found


def _kinds(ev: Evidence) -> tuple[set[str], bool]:
    """The ticket categories of what the conversation did, and whether a room of a group was involved."""

    def build() -> tuple[set[str], bool]:
        kinds: set[str] = set()
        group = False
        stays = _stays(ev)
        for stay in stays.values():
            if stay.now.group_id and not stay.created:
                group = True
            if stay.cancelled:
                kinds.add("cancellation")
            if stay.relocated:
                kinds.add("relocation")
            if stay.created:
                kinds.add("new_booking")
            if stay.dates_changed:
                kinds.add("date_change")
            if stay.room_changed:
                kinds.add("room_upgrade" if _room_direction(ev, stay) == "up" else "room_downgrade")
            if stay.late_checkout:
                kinds.add("late_checkout")
            if stay.allowance or (stay.relocation_target and _allowance_on_target(ev, stay.now)):
                kinds.add("loyalty_upgrade")
        for p in ev.added("payments"):
            if p.kind == "refund" and p.reason == "duplicate_charge":
                kinds.add("billing")
        if _hotel_escalations(ev):
            kinds.add("billing")
        for a in ev.added("approval_requests"):
            kinds.add("room_upgrade" if a.kind == "cap_exception" else "room_downgrade")
            booking = ev.start.get("bookings", a.booking_id)
            group = group or bool(booking is not None and booking.group_id)
        if ev.added("trips"):
            kinds.add("new_booking")
        return kinds, group

    kinds: tuple[set[str], bool] = ev.memo(("travel", "kinds"), build)
    return kinds


def _categories(ev: Evidence) -> set[str]:
    """The categories a granted request's ticket may carry: what the conversation did, and group_booking where a
    room of a group was involved."""
    kinds, group = _kinds(ev)
    return kinds | ({"group_booking"} if group else set())


def _allowance_on_target(ev: Evidence, target: RuleRow) -> bool:
    old = ev.start.get("bookings", target.relocated_from_id)
    return bool(target.upgrade_allowance_used and old is not None and not old.upgrade_allowance_used)


def _may_manage(ev: Evidence, who: str, booking: RuleRow) -> bool:
    """Whether the traveller may manage the booking: their own, or a room of a group they organise."""
    if booking.traveller_id == who:
        return True
    if booking.group_id:
        group = ev.start.get("group_bookings", booking.group_id)
        return group is not None and group.organiser_id == who
    return False


def _booking(ev: Evidence, booking_id: str) -> RuleRow | None:
    """A booking as it was at the start (as it is, if the conversation made it)."""
    stay = _stays(ev).get(booking_id)
    if stay is not None:
        return stay.was or stay.now
    return ev.start.get("bookings", booking_id)


# --- Working a conversation ------------------------------------------------------------------------------------

RULES.judgement(
    "TR-1", section=WORK, why="the clock itself: the rules read it as the evidence's now; nothing to check on its own"
)
RULES.judgement(
    "TR-7",
    section=WORK,
    why="how the traveller's requests are split and decided is seen through each article's own rules",
)


# A booking is looked up when a read names it, or when a read of its trip or group (or the write that made it)
# returns it; a list of the traveller's bookings shows no window, rate or payments, so it does not count.
_NAMING_READS = {"get_booking", "list_payments", "list_approval_requests", "list_partner_escalations"}
_LISTING_READS = {"get_trip", "get_group_booking", "list_tickets", "get_ticket"}
_MAKING_WRITES = {"create_booking", "relocate_booking", "create_ticket", "create_trip"}


@RULES.rule("TR-2", "Identify the traveller, then act only on records looked up", section=WORK, on=ALL)
def acts_only_on_records_it_looked_up(ev: Evidence) -> Iterator[Violation]:
    named: set[str] = set()
    shown: list[str] = []
    identified = False
    for c in ev.tool_calls():
        if c.error is not None:
            continue
        if c.tool == "find_traveller_by_email":
            identified = True
        if c.tool in WRITE_TOOLS:
            if not identified:
                yield Violation.of(None, f"{c.tool} is made before the traveller is identified")
            for name in ("booking_id", "ticket_id", "trip_id"):
                value = c.arguments.get(name)
                if isinstance(value, str) and value and value not in named and not any(value in t for t in shown):
                    yield Violation.of(None, f"{c.tool} acts on {name} {value} without looking that record up", name)
        if c.tool in _NAMING_READS or c.tool == "get_trip":
            named.update(str(v) for k, v in c.arguments.items() if k in ("booking_id", "trip_id"))
        if c.tool in _LISTING_READS or c.tool in _MAKING_WRITES:
            shown.append(c.result)


@RULES.rule("TR-3", "Work the traveller's own new or open ticket, and only that one", section=WORK, on=TICKET_TABLES)
def works_the_travellers_open_ticket(ev: Evidence) -> Iterator[Violation]:
    worked = worked_tickets(ev)
    who = _identified(ev)
    if len(worked) > 1:
        ids = ", ".join(str(now.id) for _, now in worked)
        yield Violation.of(worked[1][1], f"the conversation works {len(worked)} tickets ({ids}); it belongs to one")
    for was, now in worked:
        if was is not None and was.status not in ("new", "open"):
            yield Violation.of(
                now, f"ticket {now.id} was {was.status} at the start: another matter, not to be edited", "status"
            )
        if who is not None and now.requester_id != who:
            yield Violation.of(
                now, f"ticket {now.id} is {now.requester_id}'s, not the identified {who}'s", "requester_id"
            )
        if was is None:
            open_ones = [
                t.id for t in ev.start.where("tickets", requester_id=now.requester_id) if t.status in ("new", "open")
            ]
            if open_ones:
                yield Violation.of(
                    now, f"ticket {now.id} was created although the traveller's ticket {open_ones[0]} is open", "id"
                )
            if now.booking_id:
                booking = _booking(ev, now.booking_id)
                if booking is not None and not _may_manage(ev, now.requester_id, booking):
                    yield Violation.of(
                        now, f"ticket {now.id} links booking {now.booking_id}, not one of the requester's", "booking_id"
                    )


@RULES.rule("TR-4", "Leave the ticket with its final status and category", section=WORK)
def leaves_the_ticket_with_its_final_status(ev: Evidence) -> Iterator[Violation]:
    worked = worked_tickets(ev)
    if not worked:
        changed = written_tables(ev, *TICKET_TABLES)
        if changed:
            yield Violation.of(
                None, f"the conversation changed {', '.join(sorted(changed))} but set no ticket's ending"
            )
        elif _identified(ev):
            yield Violation.of(None, f"traveller {_identified(ev)} was served, but no ticket was left with its ending")
    for _, now in worked:
        if now.status not in ("solved", "pending", "hold"):
            yield Violation.of(now, f"ticket {now.id} is left {now.status}: set solved, pending or hold", "status")
        if not now.category:
            yield Violation.of(now, f"ticket {now.id} is left without a category", "category")


def _books_the_stay_twice(ev: Evidence, booking: RuleRow) -> Iterator[Violation]:
    """A new booking whose nights the traveller already holds in another confirmed booking."""
    nights = _nights(booking.check_in, booking.check_out)
    for other in ev.end.where("bookings", traveller_id=booking.traveller_id, status="confirmed"):
        if other.id != booking.id and nights & _nights(other.check_in, other.check_out):
            yield Violation.of(
                booking,
                f"booking {booking.id} ({booking.check_in:%d %b} to {booking.check_out:%d %b}) books nights the "
                f"traveller already holds in booking {other.id}: one stay, booked once",
                "check_in",
            )
            return


@RULES.rule(
    "TR-5",
    "Move money once, and only where the policy prices it",
    section=WORK,
    on=MONEY,
    clauses=("TR-5", "TR-6"),
)
def moves_money_once_and_only_as_priced(ev: Evidence) -> Iterator[Violation]:
    plan = _plan(ev)
    for stay in _stays(ev).values():
        if stay.created:
            yield from _books_the_stay_twice(ev, stay.now)
    for booking_id, lines in _paid(ev).items():
        repeated = Counter((p.kind, p.reason) for p in lines if p.kind in ("refund", "charge"))
        for (kind, reason), count in repeated.items():
            if count > 1:
                row = next(p for p in lines if (p.kind, p.reason) == (kind, reason))
                amounts = " + ".join(_cents(p.amount_cents) for p in lines if (p.kind, p.reason) == (kind, reason))
                yield Violation.of(
                    row, f"{count} {reason} {kind}s on booking {booking_id} ({amounts}): one change, one movement"
                )
        paid_stay = _stays(ev).get(booking_id)
        added, removed = (
            (len(paid_stay.added_nights), len(paid_stay.removed_nights)) if paid_stay is not None else (0, 0)
        )
        mixed = added and removed and added != removed  # nights both added and removed: each side is priced
        for p in lines:
            if p.kind not in ("refund", "charge") or p.reason in ("duplicate_charge", "booking"):
                continue  # a duplicate is judged against the ledger; a new booking's charge is the tool's own
            if mixed and p.reason in DATE_MONEY:
                continue
            due = plan.get((booking_id, p.reason))
            if due is None or due.kind != p.kind or due.amount <= 0:
                yield Violation.of(
                    p,
                    f"{p.reason} {p.kind} of {_cents(p.amount_cents)} on booking {booking_id}: nothing the "
                    "conversation changed calls for it",
                    "amount_cents",
                )


# --- Identifying the traveller ---------------------------------------------------------------------------------


@RULES.rule(
    "TR-9",
    "Act for the traveller identified by email, on bookings they may manage",
    section=IDENTITY,
    on=ALL,
    clauses=("TR-8", "TR-9"),
)
def acts_for_the_identified_traveller_only(ev: Evidence) -> Iterator[Violation]:
    calls = ev.tool_calls()
    found = next((i for i, c in enumerate(calls) if c.tool == "find_traveller_by_email" and c.error is None), None)
    first = next((i for i, c in enumerate(calls) if c.tool in WRITE_TOOLS and c.error is None), None)
    if first is not None and (found is None or first < found):
        yield Violation.of(None, f"{calls[first].tool} is made before the traveller is identified by email")
    who = _who(ev)
    if who is None:
        return
    touched: dict[str, RuleRow] = {}
    for stay in _stays(ev).values():
        if stay.was is not None:
            touched[stay.id] = stay.now
        elif stay.created and stay.now.traveller_id != who:
            yield Violation.of(
                stay.now, f"booking {stay.id} is made for {stay.now.traveller_id}, not for {who}", "traveller_id"
            )
    for trip in ev.added("trips"):
        if trip.traveller_id != who:
            yield Violation.of(trip, f"trip {trip.id} is opened for {trip.traveller_id}, not for {who}", "traveller_id")
    for table in ("payments", "partner_escalations", "approval_requests"):
        for row in ev.added(table):
            touched.setdefault(str(row.booking_id), row)
    for booking_id, row in touched.items():
        booking = _booking(ev, booking_id)
        if booking is not None and not _may_manage(ev, who, booking):
            yield Violation.of(
                row,
                f"booking {booking_id} is {booking.traveller_id}'s, and {who} does not organise its group: "
                "neither discussed nor changed",
            )


@RULES.rule("TR-10", "A failed employee-number check changes nothing", section=IDENTITY, on=ALL)
def a_failed_employee_number_check_changes_nothing(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.reason == "identity_not_verified":
            changed = written_tables(ev, *TICKET_TABLES)
            if changed:
                yield Violation.of(
                    ticket,
                    f"the employee number did not match, yet the conversation changed {', '.join(sorted(changed))}",
                    "reason",
                )


# --- Corporate account standing --------------------------------------------------------------------------------

_CHARGING = {"create_booking", "charge_booking"}


def _standing_unchecked(seen: set[str]) -> list[str]:
    """What of the account's standing the tools `seen` so far leave unlooked-up."""
    missing = []
    if not seen & {"get_corporate_account", "get_traveller"}:
        missing.append("the account's status")
    if "list_account_invoices" not in seen:
        missing.append("its invoices")
    return missing


@RULES.rule(
    "TR-12",
    "No new booking or charge unless the account, checked first, is in good standing",
    section=STANDING,
    on=("payments", "tickets"),
    clauses=("TR-11", "TR-12", "TR-13", "TR-14"),
)
def charges_only_an_account_in_good_standing(ev: Evidence) -> Iterator[Violation]:
    for booking_id, lines in _paid(ev).items():
        charges = [p for p in lines if p.kind == "charge"]
        if not charges:
            continue
        booking = _booking(ev, booking_id)
        why = _standing(ev, booking.account_id) if booking is not None else None
        if why:
            for p in charges:
                yield Violation.of(
                    p,
                    f"{p.reason} charge of {_cents(p.amount_cents)} on booking {booking_id} while {why}",
                    "amount_cents",
                )
    seen: set[str] = set()
    for c in ev.tool_calls():
        charging = c.tool in _CHARGING or (c.tool == "arrange_late_checkout" and c.arguments.get("fee_cents"))
        if charging and c.error is None:
            missing = _standing_unchecked(seen)
            if missing:
                yield Violation.of(None, f"{c.tool} charges money before looking up {' and '.join(missing)}")
        if c.error is None:
            seen.add(c.tool)
    for _, ticket in worked_tickets(ev):
        if ticket.reason == "credit_hold":
            account = _account_of(ev, ticket.requester_id)
            if account is not None and _standing(ev, account.id) is None:
                yield Violation.of(
                    ticket,
                    f"reason credit_hold, but account {account.id} is active with no invoice over 30 days overdue",
                    "reason",
                )


@RULES.rule("TR-15", "A suspended account gets no change of any kind", section=STANDING, on=ALL)
def a_suspended_account_gets_no_change(ev: Evidence) -> Iterator[Violation]:
    suspended = _suspended(ev)
    if not suspended:
        return
    accounts: dict[str, list[RuleRow]] = defaultdict(list)
    for _, ticket in worked_tickets(ev):
        account_id = _suspended_account_of(ev, ticket.requester_id)
        if account_id:
            accounts[account_id].append(ticket)
    for stay in _stays(ev).values():
        if str(stay.now.account_id) in suspended:
            accounts.setdefault(str(stay.now.account_id), [])
    for account_id, tickets in accounts.items():
        changed = written_tables(ev, *TICKET_TABLES)
        if changed:
            yield Violation.of(None, f"account {account_id} is suspended, yet {', '.join(sorted(changed))} changed")
        for ticket in tickets:
            if ticket.status != "solved":
                yield Violation.of(
                    ticket, f"account {account_id} is suspended: the ticket is solved, not {ticket.status}", "status"
                )
            if comments_added(ev, ticket.id):
                yield Violation.of(ticket, f"account {account_id} is suspended: the ticket gets no comment")


# --- Which nightly rate applies --------------------------------------------------------------------------------


@RULES.rule(
    "TR-16",
    "Price new bookings and paid upgrades at the applicable rate, added nights at the booking's",
    section=RATE,
    on=("bookings", "payments"),
    clauses=("TR-16", "TR-17", "TR-18"),
)
def prices_at_the_applicable_rate(ev: Evidence) -> Iterator[Violation]:
    for stay in _stays(ev).values():
        now = stay.now
        if stay.created:
            rates = _booked_rates(ev, now)
            if rates and now.nightly_rate_cents not in rates:
                yield Violation.of(
                    now,
                    f"booking {stay.id} is priced at {_cents(now.nightly_rate_cents)} a night; the rate for "
                    f"{now.room_type_id} checking in {now.check_in:%d %b} is {_cents(min(rates))}",
                    "nightly_rate_cents",
                )
        elif _room_move(ev, stay) == "up":
            rates = _booked_rates(ev, now)
            rates |= {
                a.requested_rate_cents
                for a in _approvals(ev, stay.id, "approved")
                if a.requested_room_type_id == now.room_type_id
            }
            if rates and now.nightly_rate_cents not in rates:
                yield Violation.of(
                    now,
                    f"booking {stay.id} is upgraded at {_cents(now.nightly_rate_cents)} a night; {now.room_type_id} "
                    f"is priced at {_cents(min(rates))} for the {now.check_in:%d %b} check-in",
                    "nightly_rate_cents",
                )
        if stay.added_nights and not stay.removed_nights:
            was = stay.was
            assert was is not None
            wanted = len(stay.added_nights) * was.nightly_rate_cents
            for p in _charges(ev, stay.id, "extra_nights"):
                if p.amount_cents != wanted:
                    yield Violation.of(
                        p,
                        f"{len(stay.added_nights)} added night(s) at the booking's {_cents(was.nightly_rate_cents)} "
                        f"come to {_cents(wanted)}, not {_cents(p.amount_cents)}",
                        "amount_cents",
                    )


# --- New bookings ----------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-19",
    "Book only after checking the account's standing and the availability",
    section=NEW,
    on=("bookings",),
    clauses=("TR-19", "TR-20"),
)
def books_after_checking_standing_and_availability(ev: Evidence) -> Iterator[Violation]:
    seen: list[ToolCall] = []
    for c in ev.tool_calls():
        if c.tool == "create_booking" and c.error is None:
            missing = _standing_unchecked({s.tool for s in seen})
            hotel = c.arguments.get("hotel_id")
            if not any(s.tool == "search_availability" and s.arguments.get("hotel_id") == hotel for s in seen):
                missing.append(f"the availability at {hotel}")
            if missing:
                yield Violation.of(None, f"create_booking at {hotel} made before looking up {', '.join(missing)}")
        if c.error is None:
            seen.append(c)


@RULES.rule(
    "TR-22",
    "Book at the applicable rate within the city cap; the ticket links no booking and ends solved",
    section=NEW,
    on=("bookings", "tickets"),
    clauses=("TR-21", "TR-22", "TR-23", "TR-24"),
)
def books_at_the_rate_within_the_cap(ev: Evidence) -> Iterator[Violation]:
    created = [s for s in _stays(ev).values() if s.created]
    for stay in created:
        now = stay.now
        rates = _booked_rates(ev, now)
        if rates and now.nightly_rate_cents not in rates:
            yield Violation.of(
                now,
                f"booked at {_cents(now.nightly_rate_cents)} a night, not the applicable {_cents(min(rates))}",
                "nightly_rate_cents",
            )
        cap = _over_cap(ev, now)
        if cap is not None:
            yield Violation.of(
                now,
                f"booked at {_cents(now.nightly_rate_cents)} a night, above the account's city cap of {_cents(cap)}",
                "nightly_rate_cents",
            )
    joined = {str(s.now.trip_id) for s in created if s.now.trip_id}
    for was, ticket in worked_tickets(ev):
        if was is None and ticket.category == "new_booking" and ticket.booking_id:
            linked = _booking(ev, ticket.booking_id)
            if linked is None or str(linked.trip_id) not in joined:
                yield Violation.of(
                    ticket, f"a new-booking ticket links no booking, not {ticket.booking_id}", "booking_id"
                )
    if created:
        yield from _ends_solved(ev, f"made booking {created[0].id}")


# --- Free-cancellation window ----------------------------------------------------------------------------------


@RULES.rule(
    "TR-25",
    "Judge the window at the request's moment, by the group's deadline for a group room",
    section=WINDOW,
    on=("bookings",),
    clauses=("TR-25", "TR-26"),
)
def judges_the_window_by_the_right_deadline(ev: Evidence) -> Iterator[Violation]:
    for stay in _stays(ev).values():
        was = stay.was
        if was is None or (stay.cancelled and was.hotel_confirmation == "cannot_honour"):
            continue
        if stay.cancelled:
            due = _cancellation_due(ev, stay)
            given = sum(p.amount_cents for p in _refunds(ev, stay.id, "cancellation", "hotel_fault"))
        elif stay.removed_nights and not stay.added_nights:
            found = _date_change_due(ev, stay)
            if found is None:
                continue
            due = found
            given = sum(p.amount_cents for p in _refunds(ev, stay.id, "date_change"))
        else:
            continue
        inside = _inside(ev, was)
        # what the other side of the window would give: one night more (or less) kept
        other = due.amount - was.nightly_rate_cents if inside else due.amount + was.nightly_rate_cents
        if due.amount > LIMIT or not given or given == max(due.amount, 0) or given != max(other, 0):
            continue
        deadline, whose = _deadline(ev, was)
        yield Violation.of(
            stay.now,
            f"refund of {_cents(given)} on booking {stay.id} is what the other side of the window gives: at "
            f"{ev.now:%d %b %H:%M} the request is {'inside' if inside else 'after'} the window ({whose}, "
            f"{deadline:%d %b %H:%M}), so {_cents(max(due.amount, 0))} ({due.why})",
            "free_cancellation_until",
        )


# --- Cancellations ---------------------------------------------------------------------------------------------


def _cancellation_violations(ev: Evidence, stay: Stay) -> Iterator[Violation]:
    due = _cancellation_due(ev, stay)
    given = _refunds(ev, stay.id, "cancellation", "hotel_fault")
    if due.amount <= 0 or due.amount > LIMIT:
        for p in given:
            left = "nothing is left to refund" if due.amount <= 0 else f"{_cents(due.amount)} is above the refund limit"
            yield Violation.of(
                p,
                f"refund of {_cents(p.amount_cents)} on cancelled booking {stay.id}: {left} ({due.why})",
                "amount_cents",
            )
        return
    if not given:
        yield Violation.of(
            stay.now,
            f"booking {stay.id} is cancelled but not refunded: {_cents(due.amount)} is due ({due.why})",
            "status",
        )
        return
    if len(given) == 1:
        p = given[0]
        if (p.amount_cents, p.reason, p.service_fee_cents) == (due.amount, due.reason, due.fee):
            return
    got = " + ".join(f"{_cents(p.amount_cents)} ({p.reason}, fee {p.service_fee_cents:,})" for p in given)
    yield Violation.of(
        given[0],
        f"cancelled booking {stay.id} is refunded {got}; due: one {due.reason} refund of {_cents(due.amount)} with a "
        f"{due.fee:,}-cent fee ({due.why})",
        "amount_cents",
    )


@RULES.rule(
    "TR-27",
    "A cancellation is refunded once, by the window, and the ticket is solved",
    section=CANCEL,
    on=("bookings",),
    clauses=("TR-27", "TR-28", "TR-29", "TR-30", "TR-31", "TR-32"),
)
def refunds_a_cancellation_by_the_window(ev: Evidence) -> Iterator[Violation]:
    cancelled = [s for s in _stays(ev).values() if s.cancelled]
    for stay in cancelled:
        yield from _cancellation_violations(ev, stay)
    if cancelled:
        yield from _ends_solved(ev, f"cancelled booking {cancelled[0].id}")


# --- The service fee -------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-33",
    "The 2,500-cent service fee on cancellation refunds only",
    section=SERVICE_FEE,
    on=MONEY,
    clauses=("TR-33", "TR-34"),
)
def withholds_the_fee_only_on_cancellations(ev: Evidence) -> Iterator[Violation]:
    for lines in _paid(ev).values():
        for p in lines:
            if p.kind != "refund":
                continue
            wanted = FEE if p.reason == "cancellation" else 0
            if p.service_fee_cents != wanted:
                yield Violation.of(
                    p,
                    f"{p.reason} refund withholds a {p.service_fee_cents:,}-cent fee; the fee is {wanted:,} "
                    + ("on a cancellation" if wanted else "on any refund but a cancellation"),
                    "service_fee_cents",
                )


# --- Hotel-fault cancellations ---------------------------------------------------------------------------------


@RULES.rule(
    "TR-35",
    "A booking the hotel cannot honour is refunded in full as its fault; no other booking is",
    section=FAULT,
    on=("bookings", "payments"),
    clauses=("TR-35", "TR-36"),
)
def refunds_the_hotels_fault_in_full(ev: Evidence) -> Iterator[Violation]:
    stays = _stays(ev)
    for stay in stays.values():
        if stay.cancelled and stay.was is not None and stay.was.hotel_confirmation == "cannot_honour":
            due = _cancellation_due(ev, stay)
            given = _refunds(ev, stay.id)
            wrong = [p for p in given if p.reason != "hotel_fault" or p.service_fee_cents]
            total = sum(p.amount_cents for p in given if p.reason == "hotel_fault")
            if wrong or (due.amount <= LIMIT and total != due.amount):
                yield Violation.of(
                    stay.now,
                    f"booking {stay.id} is one the hotel cannot honour: all {_cents(due.amount)} refundable comes back "
                    f"as hotel_fault with no fee, not {_cents(total)}"
                    + (
                        f" and a {wrong[0].reason} refund with a {wrong[0].service_fee_cents:,}-cent fee"
                        if wrong
                        else ""
                    ),
                    "hotel_confirmation",
                )
    for booking_id, lines in _paid(ev).items():
        for p in lines:
            if p.kind != "refund" or p.reason != "hotel_fault":
                continue
            paid_stay = stays.get(booking_id)
            fault = paid_stay is not None and (
                paid_stay.relocation_target
                or (
                    paid_stay.cancelled
                    and paid_stay.was is not None
                    and paid_stay.was.hotel_confirmation == "cannot_honour"
                )
            )
            if not fault:
                booking = _booking(ev, booking_id)
                confirmation = booking.hotel_confirmation if booking is not None else "unknown"
                yield Violation.of(
                    p,
                    f"hotel_fault refund on booking {booking_id}, whose hotel confirmation is {confirmation} and which "
                    "the conversation neither cancelled as the hotel's fault nor relocated",
                    "reason",
                )


# --- Date changes ----------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-37",
    "Added nights charged and removed nights refunded by the window, once; the ticket solved",
    section=DATES,
    on=("bookings",),
    clauses=("TR-37", "TR-38", "TR-39", "TR-40", "TR-41", "TR-42"),
)
def prices_a_date_change_by_the_window(ev: Evidence) -> Iterator[Violation]:
    changed = [s for s in _stays(ev).values() if s.dates_changed]
    for stay in changed:
        was, now = stay.was, stay.now
        assert was is not None
        if now.nightly_rate_cents != was.nightly_rate_cents and not stay.room_changed:
            yield Violation.of(now, "a date change keeps the booking's nightly rate", "nightly_rate_cents")
        added, removed = stay.added_nights, stay.removed_nights
        charges = _charges(ev, stay.id, "extra_nights")
        refunds = _refunds(ev, stay.id, "date_change")
        if added and removed:
            if len(added) == len(removed) and (charges or refunds):
                yield Violation.of(
                    (charges or refunds)[0],
                    f"booking {stay.id} moved to other dates with the same nights: no money moves",
                )
            continue
        due = _date_change_due(ev, stay)
        if due is None:
            continue
        given = charges if due.kind == "charge" else refunds
        other = refunds if due.kind == "charge" else charges
        for p in other:
            yield Violation.of(
                p, f"a {p.reason} {p.kind} on booking {stay.id}, whose stay was {'extended' if added else 'shortened'}"
            )
        amounts = [p.amount_cents for p in given]
        if due.amount <= 0 or (due.kind == "refund" and due.amount > LIMIT):
            wanted: list[int] = []
        else:
            wanted = [due.amount]
        if amounts != wanted:
            got = " + ".join(_cents(a) for a in amounts) or "nothing"
            want = _cents(wanted[0]) if wanted else "nothing by the agent"
            yield Violation.of(
                given[0] if given else now,
                f"booking {stay.id}: {due.why} makes {want} ({due.reason}), not {got}",
                "amount_cents" if given else "check_out",
            )
    if changed:
        yield from _ends_solved(ev, f"changed the dates of booking {changed[0].id}")


# --- Paid room upgrades ----------------------------------------------------------------------------------------


@RULES.rule(
    "TR-43",
    "A paid upgrade: good standing, the applicable rate, approval above the cap, its difference charged",
    section=UPGRADE,
    on=("bookings",),
    clauses=("TR-43", "TR-44", "TR-45", "TR-46", "TR-47"),
)
def charges_a_paid_upgrade_its_difference(ev: Evidence) -> Iterator[Violation]:
    upgraded = [s for s in _stays(ev).values() if _room_move(ev, s) == "up"]
    for stay in upgraded:
        was, now = stay.was, stay.now
        assert was is not None
        why = _standing(ev, now.account_id)
        if why:
            yield Violation.of(now, f"booking {stay.id} is upgraded while {why}", "room_type_id")
        approved = [a for a in _approvals(ev, stay.id, "approved") if a.requested_room_type_id == now.room_type_id]
        cap = _over_cap(ev, now)
        if cap is not None and not approved:
            yield Violation.of(
                now,
                f"upgrade of booking {stay.id} at {_cents(now.nightly_rate_cents)} a night is above the city cap of "
                f"{_cents(cap)} and no approved cap exception covers {now.room_type_id}",
                "room_type_id",
            )
        wanted = (now.nightly_rate_cents - was.nightly_rate_cents) * now.nights
        amounts = [p.amount_cents for p in _charges(ev, stay.id, "room_upgrade")]
        if amounts != ([wanted] if wanted > 0 else []):
            got = " + ".join(_cents(a) for a in amounts) or "nothing"
            yield Violation.of(
                now,
                f"upgrade of booking {stay.id} from {_cents(was.nightly_rate_cents)} to "
                f"{_cents(now.nightly_rate_cents)} "
                f"a night for {now.nights} nights is charged {got}, not {_cents(wanted)}",
                "nightly_rate_cents",
            )
    if upgraded:
        yield from _ends_solved(ev, f"upgraded booking {upgraded[0].id}")


# --- Room downgrades and travel manager approval ---------------------------------------------------------------


@RULES.rule(
    "TR-48",
    "A downgrade only on an approved request, refunded its difference; a new request leaves the booking as it is",
    section=DOWNGRADE,
    on=("bookings", "approval_requests"),
    clauses=("TR-48", "TR-49"),
)
def downgrades_only_with_approval(ev: Evidence) -> Iterator[Violation]:
    stays = _stays(ev)
    for stay in stays.values():
        if _room_move(ev, stay) != "down":
            continue
        was, now = stay.was, stay.now
        assert was is not None
        approved = [
            a
            for a in _approvals(ev, stay.id, "approved")
            if a.requested_room_type_id in (now.room_type_id, None) and a.kind in ("room_downgrade", "rate_reduction")
        ]
        if not approved:
            yield Violation.of(
                now,
                f"booking {stay.id} is moved down to {now.room_type_id} with no approved request for it",
                "room_type_id",
            )
        elif now.nightly_rate_cents not in {a.requested_rate_cents for a in approved}:
            yield Violation.of(
                now,
                f"booking {stay.id} is moved at {_cents(now.nightly_rate_cents)}, not the approved "
                f"{_cents(approved[0].requested_rate_cents)}",
                "nightly_rate_cents",
            )
        wanted = (was.nightly_rate_cents - now.nightly_rate_cents) * now.nights
        amounts = [p.amount_cents for p in _refunds(ev, stay.id, "room_downgrade")]
        if amounts != ([wanted] if 0 < wanted <= LIMIT else []):
            got = " + ".join(_cents(a) for a in amounts) or "nothing"
            want = _cents(wanted) if wanted <= LIMIT else f"nothing by the agent ({_cents(wanted)} is over the limit)"
            yield Violation.of(
                now, f"downgrade of booking {stay.id} is refunded {got}; due {want}", "nightly_rate_cents"
            )
    for request in ev.added("approval_requests"):
        if request.kind not in ("room_downgrade", "rate_reduction"):
            continue
        booking = ev.start.get("bookings", request.booking_id)
        if booking is None:
            continue
        requested_stay = stays.get(str(booking.id))
        if requested_stay is not None and requested_stay.room_changed:
            yield Violation.of(request, f"request {request.id} is created, yet booking {booking.id} was changed too")
        target = request.requested_room_type_id or booking.room_type_id
        if request.kind == "room_downgrade" and _rank(ev, target) >= _rank(ev, booking.room_type_id):
            yield Violation.of(
                request,
                f"{target} is not of a lower rank than the booked {booking.room_type_id}",
                "requested_room_type_id",
            )
        yield from _asks_the_price(
            ev, request, booking, target, f"request {request.id}", f" for the {booking.check_in:%d %b} check-in"
        )
        decided = [
            a
            for a in ev.start.where("approval_requests", booking_id=booking.id)
            if a.status in ("approved", "rejected") and a.requested_room_type_id == target
        ]
        if decided:
            yield Violation.of(
                request,
                f"request {decided[0].id} for {target} on booking {booking.id} was already {decided[0].status}: "
                "create no new one",
            )


# --- Group bookings --------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-50",
    "Only the organiser changes a group's rooms; each guest's benefits follow their own tier",
    section=GROUPS,
    on=("bookings",),
    clauses=("TR-50", "TR-51", "TR-52"),
)
def only_the_organiser_changes_group_rooms(ev: Evidence) -> Iterator[Violation]:
    who = _who(ev)
    for stay in _stays(ev).values():
        was, now = stay.was, stay.now
        if was is None or not was.group_id:
            continue
        changed = stay.cancelled or stay.relocated or stay.dates_changed or stay.room_changed
        group = ev.start.get("group_bookings", was.group_id)
        if changed and who is not None and group is not None and group.organiser_id != who:
            yield Violation.of(
                now,
                f"group room {stay.id} is changed at the request of {who}; only the organiser "
                f"{group.organiser_id} may change the rooms of group {group.id}",
                "status",
            )
        if stay.late_checkout:
            fee, why = _late_fee(ev, now)
            given = sum(p.amount_cents for p in _charges(ev, stay.id, "late_checkout"))
            if fee and not given:
                yield Violation.of(
                    now,
                    f"late checkout on group room {stay.id} is free though {why}: the organiser's tier gives nothing",
                    "late_checkout",
                )
        if stay.allowance:
            tier = _tier_counts(ev, now.traveller_id, was.check_in)
            if tier != "platinum":
                yield Violation.of(
                    now,
                    f"allowance on group room {stay.id}, whose traveller {now.traveller_id} is not platinum",
                    "upgrade_allowance_used",
                )


def _inventory_left(ev: Evidence, room_type_id: str, nights: set[dt.date]) -> int:
    """The fewest rooms of a type left on any of these nights, at the start."""
    stock = {
        r.night: r.total_rooms - r.booked_rooms for r in ev.start.where("room_inventory", room_type_id=room_type_id)
    }
    return min((stock.get(n, 0) for n in nights), default=0)


@RULES.rule(
    "TR-53",
    "Each upgraded group room is charged its own difference on its own booking; a cancelled one by the group's terms",
    section=GROUPS,
    on=("bookings", "payments"),
    clauses=("TR-53", "TR-54"),
)
def treats_each_group_room_on_its_own(ev: Evidence) -> Iterator[Violation]:
    stays = _stays(ev)
    for stay in stays.values():
        was, now = stay.was, stay.now
        if was is None or not was.group_id:
            continue
        if stay.cancelled:
            yield from _cancellation_violations(ev, stay)
        if _room_move(ev, stay) == "up":
            wanted = (now.nightly_rate_cents - was.nightly_rate_cents) * now.nights
            charged = sum(p.amount_cents for p in _charges(ev, stay.id, "room_upgrade"))
            if charged != wanted:
                yield Violation.of(
                    now,
                    f"group room {stay.id} is upgraded for {_cents(wanted)} ({now.nights} nights at "
                    f"{_cents(now.nightly_rate_cents - was.nightly_rate_cents)} more), charged {_cents(charged)} on "
                    "its own booking",
                    "nightly_rate_cents",
                )
    for booking_id, lines in _paid(ev).items():
        paid_stay = stays.get(booking_id)
        for p in lines:
            if p.kind == "charge" and p.reason == "room_upgrade" and (paid_stay is None or not paid_stay.room_changed):
                booking = _booking(ev, booking_id)
                if booking is not None and booking.group_id:
                    yield Violation.of(
                        p,
                        f"upgrade charge of {_cents(p.amount_cents)} on group room {booking_id}, which was "
                        "not upgraded: each room pays its own",
                        "booking_id",
                    )


# --- Late checkout ---------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-55",
    "Late checkout is free for a valid gold or platinum guest, else at the hotel's fee",
    section=LATE,
    on=("bookings",),
    clauses=("TR-55", "TR-56", "TR-57", "TR-58"),
)
def charges_late_checkout_by_the_guests_tier(ev: Evidence) -> Iterator[Violation]:
    arranged = [s for s in _stays(ev).values() if s.late_checkout]
    for stay in arranged:
        fee, why = _late_fee(ev, stay.now)
        given = [p.amount_cents for p in _charges(ev, stay.id, "late_checkout")]
        if given != ([fee] if fee else []):
            got = " + ".join(_cents(a) for a in given) or "nothing"
            yield Violation.of(
                stay.now,
                f"late checkout on booking {stay.id} is charged {got}; it costs {_cents(fee)} ({why})",
                "late_checkout",
            )
    if arranged:
        yield from _ends_solved(ev, f"arranged a late checkout on booking {arranged[0].id}")


# --- Loyalty upgrade allowance ---------------------------------------------------------------------------------


@RULES.rule(
    "TR-59",
    "The allowance: a valid platinum guest, once per stay, exactly one rank up at the booked rate",
    section=ALLOWANCE,
    on=("bookings",),
    clauses=("TR-59", "TR-60", "TR-61", "TR-62"),
)
def applies_the_allowance_once_one_rank_up(ev: Evidence) -> Iterator[Violation]:
    used = []
    for stay in _stays(ev).values():
        now = stay.now
        if stay.allowance:
            was = stay.was
            assert was is not None
            before_type, before_rate, check_in = was.room_type_id, was.nightly_rate_cents, was.check_in
        elif stay.relocation_target and _allowance_on_target(ev, now):
            before_type = _relocated_room_type(ev, now)
            before_rate, check_in = now.nightly_rate_cents, now.check_in
        else:
            if (
                stay.was is not None
                and stay.was.upgrade_allowance_used
                and _room_move(ev, stay) == "up"
                and not _charges(ev, stay.id, "room_upgrade")
            ):
                yield Violation.of(
                    now, f"booking {stay.id} has used its allowance: a further upgrade is paid", "room_type_id"
                )
            continue
        used.append(stay)
        tier = _tier_counts(ev, now.traveller_id, check_in)
        if tier != "platinum":
            yield Violation.of(
                now,
                f"allowance on booking {stay.id}: traveller {now.traveller_id} has no platinum tier valid on the "
                f"{check_in:%d %b} check-in",
                "upgrade_allowance_used",
            )
        hotel_types = ev.start.where("room_types", hotel_id=now.hotel_id)
        above = sorted({int(r.rank) for r in hotel_types if r.rank > _rank(ev, before_type)})
        rank = _rank(ev, now.room_type_id)
        if not above or rank != above[0]:
            yield Violation.of(
                now,
                f"allowance moves booking {stay.id} from rank {_rank(ev, before_type)} to rank {rank}; it "
                "gives exactly "
                f"the next rank up ({above[0] if above else 'none'})",
                "room_type_id",
            )
        if now.nightly_rate_cents != before_rate or _charges(ev, stay.id, "room_upgrade"):
            yield Violation.of(
                now,
                f"the allowance keeps booking {stay.id}'s rate of {_cents(before_rate)} and charges nothing",
                "nightly_rate_cents",
            )
    if used:
        yield from _ends_solved(ev, f"applied the upgrade allowance on booking {used[0].id}")


# --- Duplicate and unrecognised charges ------------------------------------------------------------------------


@RULES.rule(
    "TR-63",
    "Refund only a line our ledger holds twice; escalate a charge it holds once",
    section=DUPLICATES,
    on=("payments", "partner_escalations"),
    clauses=("TR-63", "TR-64", "TR-65", "TR-66", "TR-67"),
)
def refunds_only_our_own_duplicates(ev: Evidence) -> Iterator[Violation]:
    for booking_id, lines in _paid(ev).items():
        refunds = [p for p in lines if p.kind == "refund" and p.reason == "duplicate_charge"]
        if not refunds:
            continue
        ledger = ev.start.where("payments", booking_id=booking_id)
        for amount, group in Counter(p.amount_cents for p in refunds).items():
            copies = Counter(p.reason for p in ledger if p.kind == "charge" and p.amount_cents == amount)
            twice = max(copies.values(), default=0)
            refunded = sum(
                1 for p in ledger if p.kind == "refund" and p.reason == "duplicate_charge" and p.amount_cents == amount
            )
            if group + refunded > twice - 1:
                row = next(p for p in refunds if p.amount_cents == amount)
                held = f"holds {twice} charge line(s) of that amount" if twice else "holds no charge of that amount"
                yield Violation.of(
                    row,
                    f"duplicate refund of {_cents(amount)} on booking {booking_id}: our ledger {held}, so "
                    + ("it is the hotel's charge or a legitimate one" if twice < 2 else "it is already refunded"),
                    "amount_cents",
                )
    opened = [x for x in ev.added("partner_escalations") if x.kind == "duplicate_charge"]
    for escalation in opened:
        ledger = ev.start.where("payments", booking_id=escalation.booking_id)
        copies = Counter(p.reason for p in ledger if p.kind == "charge" and p.amount_cents == escalation.amount_cents)
        if max(copies.values(), default=0) >= 2:
            yield Violation.of(
                escalation,
                f"our ledger charged {_cents(escalation.amount_cents)} twice on booking {escalation.booking_id}: we "
                "refund our own duplicate, the hotel is not asked",
                "amount_cents",
            )
    if opened:
        for _, ticket in worked_tickets(ev):
            if ticket.status != "hold" or ticket.priority != "high":
                yield Violation.of(
                    ticket,
                    f"escalation {opened[0].id} waits for the hotel: the ticket is hold with priority high, not "
                    f"{ticket.status}/{ticket.priority}",
                    "status",
                )


# --- Partner escalations ---------------------------------------------------------------------------------------


@RULES.rule(
    "TR-68",
    "No refund on the hotel's behalf (of the charge escalated) while its escalation is open",
    section=ESCALATIONS,
    on=MONEY,
    clauses=("TR-68", "TR-69"),
)
def refunds_nothing_the_hotel_is_working_on(ev: Evidence) -> Iterator[Violation]:
    for booking_id, lines in _paid(ev).items():
        refunds = [p for p in lines if p.kind == "refund" and p.reason == "duplicate_charge"]
        escalations = [
            x
            for x in ev.end.where("partner_escalations", booking_id=booking_id)
            if x.status in OPEN_ESCALATION and x.kind in ("duplicate_charge", "overcharge")
        ]
        for refund in refunds:
            # Our own duplicate on the same booking is ours to refund: only the charge escalated is the hotel's.
            hotels = [x for x in escalations if x.amount_cents in (0, refund.amount_cents)]
            if hotels:
                yield Violation.of(
                    refund,
                    f"refund of {_cents(refund.amount_cents)} on booking {booking_id} while escalation "
                    f"{hotels[0].id} ({hotels[0].status}) has the hotel working on that charge",
                    "amount_cents",
                )


# --- Trips and itineraries -------------------------------------------------------------------------------------


@RULES.rule(
    "TR-70",
    "A trip is decided segment by segment; a new trip holds its new stays",
    section=TRIPS,
    on=("bookings", "trips"),
    clauses=("TR-70", "TR-71", "TR-72", "TR-73", "TR-74"),
)
def decides_a_trip_segment_by_segment(ev: Evidence) -> Iterator[Violation]:
    stays = _stays(ev)
    who = _who(ev)
    for stay in stays.values():
        was = stay.was
        if not (stay.cancelled and was is not None and was.trip_id):
            continue
        yield from _cancellation_violations(ev, stay)
        if was.group_id and who is not None:
            group = ev.start.get("group_bookings", was.group_id)
            if group is not None and group.organiser_id != who:
                yield Violation.of(
                    stay.now,
                    f"segment {stay.id} is a room of group {group.id}: only its organiser cancels it",
                    "status",
                )
    trips = ev.added("trips")
    if not trips:
        return
    created = [s for s in stays.values() if s.created]
    opened = {str(t.id) for t in trips}
    for stay in created:
        if str(stay.now.trip_id) not in opened and not stay.now.trip_id:
            yield Violation.of(
                stay.now, f"booking {stay.id} is left out of the new trip {sorted(opened)[0]}", "trip_id"
            )
    if _kinds(ev)[0] != {"new_booking"}:
        return  # with another request, that one may have come first and the ticket be its
    for was, ticket in worked_tickets(ev):
        if was is None and ticket.booking_id:
            yield Violation.of(
                ticket, f"the ticket of a new trip links no booking, not {ticket.booking_id}", "booking_id"
            )
        if ticket.reason is None and ticket.category not in ("new_booking", None):
            yield Violation.of(ticket, f"a new trip's ticket is new_booking, not {ticket.category}", "category")


# --- Hotel disruptions and relocation --------------------------------------------------------------------------


def _disrupted(ev: Evidence, hotel_id: str, room_type_id: str, nights: set[dt.date]) -> bool:
    for d in ev.start.where("hotel_disruptions", hotel_id=hotel_id):
        if d.room_type_id in (None, room_type_id) and any(d.first_night <= n <= d.last_night for n in nights):
            return True
    return False


def _affected(ev: Evidence, booking: RuleRow) -> bool:
    """Whether a disruption of the booking's hotel touches its room type on a night of its stay."""
    return _disrupted(ev, booking.hotel_id, booking.room_type_id, _nights(booking.check_in, booking.check_out))


@RULES.rule(
    "TR-75",
    "Only an affected booking is relocated, charging nothing; the new booking is an ordinary one",
    section=RELOCATION,
    on=("bookings",),
    clauses=("TR-75", "TR-76", "TR-77", "TR-80"),
)
def relocates_only_affected_bookings(ev: Evidence) -> Iterator[Violation]:
    for old, new in _relocations(ev):
        if not _affected(ev, old):
            yield Violation.of(
                new,
                f"booking {old.id} ({old.room_type_id}, {old.check_in:%d %b} to {old.check_out:%d %b}) is "
                "touched by no "
                f"disruption of {old.hotel_id}: it is not relocated",
                "relocated_from_id",
            )
        for booking_id in (str(old.id), str(new.id)):
            for p in _charges(ev, booking_id):
                yield Violation.of(
                    p,
                    f"{p.reason} charge of {_cents(p.amount_cents)} on relocation {booking_id}: a "
                    "relocation charges nothing",
                    "amount_cents",
                )
    for stay in _stays(ev).values():
        was = stay.was
        if stay.cancelled and was is not None and was.relocated_from_id and was.hotel_confirmation != "cannot_honour":
            for p in _refunds(ev, stay.id, "hotel_fault"):
                yield Violation.of(
                    p,
                    f"booking {stay.id} came from a relocation and its hotel confirmed it: the old hotel's "
                    "fault does not "
                    "carry over",
                    "reason",
                )


@RULES.rule(
    "TR-78",
    "Relocate to the lowest qualifying rank at the city's other hotel, rate protected, the difference "
    "refunded or claimed",
    section=RELOCATION,
    on=("bookings",),
    clauses=("TR-78", "TR-79", "TR-81"),
)
def relocates_by_rank_with_rate_protection(ev: Evidence) -> Iterator[Violation]:
    moves = _relocations(ev)
    per_group: dict[str, list[tuple[RuleRow, RuleRow]]] = defaultdict(list)
    for old, new in moves:
        if old.group_id:
            per_group[str(old.group_id)].append((old, new))
    plan = _plan(ev)
    for old, new in moves:
        room_type = _relocated_room_type(ev, new)
        nights = _nights(old.check_in, old.check_out)
        here, there = ev.start.get("hotels", old.hotel_id), ev.start.get("hotels", new.hotel_id)
        if here is not None and there is not None and str(here.city).lower() != str(there.city).lower():
            yield Violation.of(
                new, f"relocated from {here.city} to {there.city}: the other hotel of the same city", "hotel_id"
            )
        together = per_group.get(str(old.group_id), [(old, new)]) if old.group_id else [(old, new)]
        rooms = len(together)
        old_rank, rank = _rank(ev, old.room_type_id), _rank(ev, room_type)
        if rank < old_rank:
            yield Violation.of(
                new, f"relocated to rank {rank} from rank {old_rank}: never a lower rank", "room_type_id"
            )
        if _disrupted(ev, new.hotel_id, room_type, nights):
            yield Violation.of(
                new, f"{room_type} at {new.hotel_id} is itself disrupted on a night of the stay", "room_type_id"
            )
        for candidate in ev.start.where("room_types", hotel_id=new.hotel_id):
            if (
                old_rank <= candidate.rank < rank
                and not _disrupted(ev, new.hotel_id, candidate.id, nights)
                and _inventory_left(ev, candidate.id, nights) >= rooms
            ):
                yield Violation.of(
                    new,
                    f"{candidate.id} (rank {candidate.rank}) qualifies for {rooms} room(s) every night; "
                    f"{room_type} (rank {rank}) is not the lowest qualifying rank",
                    "room_type_id",
                )
                break
        if old.group_id and len({(str(n.hotel_id), _relocated_room_type(ev, n)) for _, n in together}) > 1:
            yield Violation.of(
                new, f"the rooms of group {old.group_id} move to one hotel and one room type", "room_type_id"
            )
        applicable = min(_rates(ev, old.account_id, room_type, old.check_in) or {0})
        wanted = min(old.nightly_rate_cents, applicable)
        if new.nightly_rate_cents != wanted:
            yield Violation.of(
                new,
                f"relocated at {_cents(new.nightly_rate_cents)} a night; rate protection gives the lower of "
                f"{_cents(old.nightly_rate_cents)} booked and {_cents(applicable)} for {room_type}",
                "nightly_rate_cents",
            )
        refund = plan.get((str(new.id), "hotel_fault"))
        given = [p.amount_cents for p in _refunds(ev, str(new.id), "hotel_fault")]
        want = [refund.amount] if refund is not None and refund.amount <= LIMIT else []
        if given != want:
            yield Violation.of(
                new,
                f"relocation of {old.id} refunds {' + '.join(_cents(a) for a in given) or 'nothing'}; due "
                + (f"{_cents(want[0])} ({refund.why})" if want and refund else "nothing by the agent"),
                "nightly_rate_cents",
            )
        claim = plan.get((str(old.id), "relocation"))
        claims = [
            x.amount_cents for x in ev.added("partner_escalations") if x.kind == "relocation" and x.booking_id == old.id
        ]
        want = [claim.amount] if claim is not None else []
        if claims != want:
            yield Violation.of(
                new,
                f"relocation of {old.id} claims {' + '.join(_cents(a) for a in claims) or 'nothing'} from "
                "the hotel; due " + (f"{_cents(want[0])} ({claim.why})" if want and claim else "no claim"),
                "nightly_rate_cents",
            )
    for group_id, moved in per_group.items():
        ids = {str(o.id) for o, _ in moved}
        for room in ev.start.where("bookings", group_id=group_id):
            if room.status == "confirmed" and str(room.id) not in ids and _affected(ev, room):
                yield Violation.of(
                    room, f"room {room.id} of group {group_id} is affected too: the rooms move together", "status"
                )


@RULES.rule("TR-82", "A relocation waits on no one: its ticket is solved", section=RELOCATION, on=("bookings",))
def a_relocation_waits_on_no_one(ev: Evidence) -> Iterator[Violation]:
    moves = _relocations(ev)
    if not moves:
        return
    other_escalations = _hotel_escalations(ev)
    kinds = _kinds(ev)[0]
    for _, ticket in worked_tickets(ev):
        if not other_escalations and (ticket.reason == "awaiting_hotel" or ticket.queue == "partner_relations"):
            yield Violation.of(
                ticket,
                "a relocation claim is ours, not the traveller's: it puts the ticket on no hold for the hotel",
                "reason",
            )
        if ticket.status != "solved" and not _waits(ticket):
            yield Violation.of(
                ticket, f"the relocation waits on no one: ticket {ticket.id} is solved, not {ticket.status}", "status"
            )
        if ticket.reason is None and kinds == {"relocation"}:
            allowed = _categories(ev)
            if ticket.category not in allowed:
                yield Violation.of(
                    ticket,
                    f"a relocation's ticket is {' or '.join(sorted(allowed))}, not {ticket.category}",
                    "category",
                )


# --- City rate caps --------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-83",
    "Nothing booked above the city cap; over_city_cap only where a cap exists",
    section=CAPS,
    on=("bookings", "tickets"),
    clauses=("TR-83", "TR-84"),
)
def books_nothing_above_the_city_cap(ev: Evidence) -> Iterator[Violation]:
    for stay in _stays(ev).values():
        if stay.created:
            now = stay.now
            cap = _over_cap(ev, now)
            if cap is not None:
                yield Violation.of(
                    now,
                    f"{now.room_type_id} booked at {_cents(now.nightly_rate_cents)} a night, above the "
                    f"city cap of {_cents(cap)}",
                    "nightly_rate_cents",
                )
    for _, ticket in worked_tickets(ev):
        if ticket.reason == "over_city_cap":
            account = _account_of(ev, ticket.requester_id)
            if account is not None and not ev.start.where("city_rate_caps", account_id=account.id):
                yield Violation.of(ticket, f"reason over_city_cap, but account {account.id} caps no city", "reason")


@RULES.rule(
    "TR-85",
    "An upgrade above the cap waits for a cap exception, asked once at the applicable rate",
    section=CAPS,
    on=("approval_requests", "bookings"),
    clauses=("TR-85", "TR-86"),
)
def asks_a_cap_exception_for_an_upgrade_above_the_cap(ev: Evidence) -> Iterator[Violation]:
    stays = _stays(ev)
    created = [a for a in ev.added("approval_requests") if a.kind == "cap_exception"]
    for request in created:
        booking = ev.start.get("bookings", request.booking_id)
        if booking is None:
            continue
        target = request.requested_room_type_id or booking.room_type_id
        if _rank(ev, target) <= _rank(ev, booking.room_type_id):
            yield Violation.of(
                request,
                f"a cap exception is for an upgrade; {target} is not above the booked {booking.room_type_id}",
                "requested_room_type_id",
            )
        stay = stays.get(str(booking.id))
        if stay is not None and (stay.room_changed or stay.allowance):
            yield Violation.of(
                request, f"cap exception {request.id} asked, yet booking {booking.id} was changed: change nothing"
            )
        yield from _asks_the_price(ev, request, booking, target, "cap exception")
        cap = _cap(ev, booking.account_id, booking.hotel_id)
        if cap is None or request.requested_rate_cents <= cap:
            yield Violation.of(
                request,
                f"{_cents(request.requested_rate_cents)} is within the city cap"
                + (f" of {_cents(cap)}" if cap is not None else " (the city has none)")
                + ": no approval is needed",
                "requested_rate_cents",
            )
        earlier = [
            a
            for a in ev.start.where("approval_requests", booking_id=booking.id)
            if a.kind == "cap_exception" and a.requested_room_type_id == target
        ]
        if earlier:
            yield Violation.of(
                request,
                f"request {earlier[0].id} for {target} is already {earlier[0].status}: create nothing",
                "booking_id",
            )
    for stay in stays.values():
        if _room_move(ev, stay) == "up":
            now = stay.now
            cap = _over_cap(ev, now)
            approved = [
                a
                for a in _approvals(ev, stay.id, "approved")
                if a.kind == "cap_exception" and a.requested_room_type_id == now.room_type_id
            ]
            if cap is not None and not approved:
                yield Violation.of(
                    now,
                    f"upgrade at {_cents(now.nightly_rate_cents)} a night is above the cap of {_cents(cap)} without an "
                    "approved cap exception",
                    "room_type_id",
                )
    if created:
        kinds = _kinds(ev)[0]
        for _, ticket in worked_tickets(ev):
            if kinds == {"room_upgrade"} and ticket.category not in _categories(ev):
                yield Violation.of(
                    ticket,
                    f"the cap exception is for an upgrade: category room_upgrade, not {ticket.category}",
                    "category",
                )


# --- Refund limit ----------------------------------------------------------------------------------------------


@RULES.rule(
    "TR-87",
    "No refund over 100,000 cents by the agent, never split; the payments team is asked on hold",
    section=REFUND_LIMIT,
    on=("payments", "bookings"),
    clauses=("TR-87", "TR-88"),
)
def leaves_refunds_over_the_limit_to_payments(ev: Evidence) -> Iterator[Violation]:
    for lines in _paid(ev).values():
        for p in lines:
            if p.kind == "refund" and p.amount_cents > LIMIT:
                yield Violation.of(
                    p, f"refund of {_cents(p.amount_cents)} is above the {_cents(LIMIT)} limit", "amount_cents"
                )
    over = _over_limit(ev)
    for due in over:
        for p in _refunds(ev, due.booking_id, due.reason):
            yield Violation.of(
                p,
                f"the {_cents(due.amount)} {due.reason} refund due on booking {due.booking_id} is above the limit: "
                f"the payments team sends it whole, no {_cents(p.amount_cents)} part by the agent",
                "amount_cents",
            )
    if over:
        for _, ticket in worked_tickets(ev):
            if (ticket.status, ticket.priority, ticket.reason, ticket.queue) != (
                "hold",
                "high",
                "over_limit",
                "payments",
            ):
                yield Violation.of(
                    ticket,
                    f"a {_cents(over[0].amount)} refund is due on booking {over[0].booking_id}: the ticket "
                    "is hold, high, "
                    f"over_limit, payments, not {ticket.status}, {ticket.priority}, {ticket.reason}, {ticket.queue}",
                    "status",
                )
            internal = internal_notes(ev, ticket.id)
            if len(internal) != 1:
                yield Violation.of(
                    ticket, f"the payments team needs one internal comment with the amount, not {len(internal)}"
                )


# --- Ticket status and priority --------------------------------------------------------------------------------


@RULES.rule(
    "TR-89",
    "The status says what still waits; new and closed are never set; every hold is high priority",
    section=STATUS,
    on=TICKETS,
    clauses=("TR-89", "TR-90", "TR-91", "TR-92", "TR-93", "TR-94"),
)
def the_status_says_what_waits(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        status, reason = ticket.status, ticket.reason
        if status in ("new", "closed") and (was is None or was.status != status):
            yield Violation.of(
                ticket, f"ticket {ticket.id} is set {status}; new and closed are never set by the agent", "status"
            )
        if reason in HOLD_REASONS and status != "hold":
            yield Violation.of(
                ticket, f"reason {reason} waits for another team or the hotel: hold, not {status}", "status"
            )
        elif reason in PENDING_REASONS and status != "pending":
            yield Violation.of(
                ticket, f"reason {reason} waits on the traveller's side: pending, not {status}", "status"
            )
        elif status in ("hold", "pending") and reason not in HOLD_REASONS + PENDING_REASONS:
            yield Violation.of(
                ticket,
                f"ticket {ticket.id} is left {status} with reason {reason}: nothing the policy names waits",
                "status",
            )
        if _hotel_escalations(ev) and status != "hold":
            yield Violation.of(
                ticket, f"an escalation to the hotel was opened: the ticket is hold, not {status}", "status"
            )
        if ev.added("approval_requests") and status not in ("pending", "hold"):
            yield Violation.of(
                ticket, f"an approval request waits for the travel manager: pending, not {status}", "status"
            )
        if status == "hold" and ticket.priority != "high":
            yield Violation.of(ticket, f"every hold gets priority high, not {ticket.priority}", "priority")
        elif status != "hold":
            before = was.priority if was is not None else "normal"
            if ticket.priority != before:
                yield Violation.of(
                    ticket,
                    f"priority is left as it is ({before}) unless the ticket is held, not {ticket.priority}",
                    "priority",
                )


@RULES.rule(
    "TR-95",
    "One internal comment on a waiting ticket; none on a solved one; never a public one",
    section=STATUS,
    on=TICKET_TABLES,
)
def comments_only_what_waits(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        added = comments_added(ev, ticket.id)
        for c in added:
            if c.public:
                yield Violation.of(
                    c,
                    f"public comment {c.id} on ticket {ticket.id}: the conversation is what the traveller reads",
                    "public",
                )
        internal = [c for c in added if not c.public]
        if ticket.status in ("pending", "hold") and len(internal) != 1:
            yield Violation.of(
                ticket,
                f"ticket {ticket.id} is left {ticket.status} with {len(internal)} internal comments, not exactly one",
            )
        if ticket.status == "solved" and added:
            yield Violation.of(added[0], f"ticket {ticket.id} is solved: no comment is added", "ticket_id")


# --- Ticket classification -------------------------------------------------------------------------------------


@RULES.rule(
    "TR-96",
    "The category is what the traveller asked first: one of the grants made, group rooms first",
    section=CLASSIFY,
    on=TICKETS,
    clauses=tuple(f"TR-{n}" for n in range(96, 110)),
)
def the_category_is_what_was_asked(ev: Evidence) -> Iterator[Violation]:
    kinds = _kinds(ev)[0]
    for _, ticket in worked_tickets(ev):
        if not ticket.category:
            yield Violation.of(ticket, f"ticket {ticket.id} has no category", "category")
            continue
        if ticket.reason is not None or ticket.status != "solved" or not kinds:
            continue  # a refusal or a wait: the first request may be one that made no change
        if ticket.category not in _categories(ev):
            yield Violation.of(
                ticket,
                f"every request was granted ({', '.join(sorted(kinds))}), so the category is one of them, "
                f"not {ticket.category}",
                "category",
            )
        rooms = [(s.was, s.cancelled) for s in _stays(ev).values() if s.was is not None]
        trip_cancelled = any(cancelled and was.trip_id for was, cancelled in rooms)  # a trip's is a cancellation
        all_group_rooms = rooms and all(was.group_id for was, _ in rooms) and not trip_cancelled
        if all_group_rooms and ticket.category != "group_booking":
            yield Violation.of(ticket, "every booking changed is a room of a group: category group_booking", "category")


@RULES.rule(
    "TR-110",
    "The reason is the first that applies; no reason means something was granted",
    section=CLASSIFY,
    on=TICKETS,
    clauses=("TR-110", "TR-124"),
)
def the_reason_is_the_first_that_applies(ev: Evidence) -> Iterator[Violation]:
    changed = written_tables(ev, *TICKET_TABLES)
    for _, ticket in worked_tickets(ev):
        found = _detected_reasons(ev, ticket)
        if found:
            first = min(found, key=TICKET_REASONS.index)
            if ticket.reason is None:
                yield Violation.of(
                    ticket, f"reason {first} applies ({found[first]}), yet the ticket has none", "reason"
                )
            elif ticket.reason in TICKET_REASONS and TICKET_REASONS.index(ticket.reason) > TICKET_REASONS.index(first):
                yield Violation.of(
                    ticket, f"reason {first} ({found[first]}) comes before {ticket.reason} in the list", "reason"
                )
        if ticket.status == "solved" and ticket.reason is None and not changed:
            yield Violation.of(
                ticket,
                f"ticket {ticket.id} is solved with no reason, which says a request was granted, but the conversation "
                "changed nothing",
                "reason",
            )


def _managed(ev: Evidence, traveller_id: str) -> list[str]:
    """The bookings a traveller may manage: their own and the rooms of the groups they organise."""
    found = [str(b.id) for b in ev.start.where("bookings", traveller_id=traveller_id)]
    for group in ev.start.where("group_bookings", organiser_id=traveller_id):
        found += [str(r.id) for r in ev.start.where("bookings", group_id=group.id) if r.traveller_id != traveller_id]
    return found


def _requests_of(ev: Evidence, traveller_id: str, status: str) -> list[RuleRow]:
    """Approval requests in `status` (at the end) on the bookings the traveller may manage."""
    return [
        a
        for booking_id in _managed(ev, traveller_id)
        for a in ev.end.where("approval_requests", booking_id=booking_id)
        if a.status == status
    ]


def _reason_holds(ev: Evidence, ticket: RuleRow) -> str | None:
    """Why the ticket's reason cannot be right, or None when the state allows it."""
    reason, who = ticket.reason, ticket.requester_id
    account = _account_of(ev, who) if reason in ("credit_hold", "account_suspended") else None
    if reason == "over_limit":
        if _over_limit(ev):
            return None
        for booking in ev.start.where("bookings", traveller_id=who):
            amounts = Counter(
                p.amount_cents for p in ev.start.where("payments", booking_id=booking.id) if p.kind == "charge"
            )
            if any(n > 1 and amount > LIMIT for amount, n in amounts.items()):
                return None
        return "no refund the policy calls for is above 100,000 cents"
    if reason == "credit_hold" and account is not None and _standing(ev, account.id) is None:
        return f"account {account.id} is in good standing"
    if reason == "awaiting_hotel" and not any(
        x.status in OPEN_ESCALATION and x.kind != "relocation"
        for b in _managed(ev, who)
        for x in ev.end.where("partner_escalations", booking_id=b)
    ):
        return "no escalation to a hotel is open on the traveller's bookings"
    if reason == "identity_not_verified":
        cancelled = [s.id for s in _stays(ev).values() if s.cancelled]
        if cancelled:
            return f"booking {cancelled[0]} was cancelled all the same"
    if reason == "needs_approval" and not _requests_of(ev, who, "pending"):
        return "no approval request is pending for the traveller"
    if reason == "awaiting_organiser":
        rooms = [b for b in ev.start.where("bookings", traveller_id=who) if b.group_id]
        guest = any(
            (g := ev.start.get("group_bookings", b.group_id)) is not None and g.organiser_id != who for b in rooms
        )
        if not guest:
            return "the traveller is a guest of no group"
    if reason == "account_suspended" and (account is None or account.status != "suspended"):
        return f"account {account.id if account else '?'} is not suspended"
    if reason == "approval_rejected" and not _requests_of(ev, who, "rejected"):
        return "no approval request of the traveller's was rejected"
    if reason == "outside_window" and not _outside_window_changes(ev):
        return "no cancellation or shortened stay was made after its window"
    return None


@RULES.rule(
    "TR-111",
    "A reason is given only where its case holds",
    section=CLASSIFY,
    on=TICKETS,
    clauses=tuple(f"TR-{n}" for n in range(111, 124)),
)
def gives_a_reason_only_where_it_holds(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.reason is None:
            continue
        why = _reason_holds(ev, ticket)
        if why:
            yield Violation.of(ticket, f"reason {ticket.reason}, but {why}", "reason")


@RULES.rule(
    "TR-125",
    "The queue is the team that follows the waiting reason up; solved tickets get none",
    section=CLASSIFY,
    on=TICKETS,
    clauses=("TR-125", "TR-126", "TR-127", "TR-128", "TR-129", "TR-130", "TR-131"),
)
def queues_the_team_that_follows_up(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        wanted = QUEUE_OF.get(ticket.reason) if ticket.status in ("pending", "hold") else None
        if ticket.queue != wanted:
            yield Violation.of(
                ticket,
                f"ticket {ticket.id} ({ticket.status}, reason {ticket.reason}) goes to queue {wanted}, not "
                f"{ticket.queue}",
                "queue",
            )
