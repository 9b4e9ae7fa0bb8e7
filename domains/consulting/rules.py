"""The consulting service desk's policy (``policy.md``) as executable rules: the second oracle beside the goldens.

Each rule reads one attempt's `Evidence` (its start and end state, the rows it
wrote and, where a clause is about what was looked up or in which order, its
transcript) and names the rows that break the clause it checks. A rule is
conditional on what the conversation was about: the ticket it worked (its
requester, the employee it is about, its category) and the records it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from domains.shared.rules import (
    TICKET_TABLES,
    TICKETS,
    comments_added,
    days_between,
    internal_notes,
    worked_tickets,
)
from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import RuleRow

from .clock import TODAY
from .seed import (
    ACROBAT,
    DELIVERY_TEMPLATES,
    IT_SECURITY_LEAD,
    PROPOSAL_TEMPLATES,
    STANDARD_LAPTOP,
    THINK_CELL,
    TIMESHEETS,
    WORKDAY,
)
from .tools import tools as _tools

RULES = Rules()

WORK = "Working a request"
WHO = "Who may ask"
TICKET = "Ticket status, priority, classification and comments"
ROLES = "Access roles and expiry"
CLIENT = "Client environments"
ENDED = "Ended engagements and roll-offs"
ROLL_OFF = "Roll-off requests"
FOLDERS = "Document folders"
SYSTEMS = "Internal systems"
APPROVALS = "Approval requests and routing"
LICENCES = "Software licences: eligibility and approval"
POOLS = "Licence pools, idle seats and the waitlist"
HARDWARE = "Hardware requests and grade budgets"
EXPENSES = "Expense overrides"
LEAVERS = "Leavers"
JOINERS = "Joiners"

GRANTS, SEATS, REQUESTS = "access_grants", "licence_seats", "hardware_requests"
APPROVAL_TABLE, LINES = "approval_requests", "expense_lines"
RECORDS = (GRANTS, SEATS, REQUESTS, APPROVAL_TABLE, LINES)
EVERYTHING = (*RECORDS, *TICKET_TABLES)
WRITE_TOOLS = frozenset(_tools.writes())

CLIENT_KINDS = ("client_environment", "client_folder")
ENDINGS = ("solved", "pending", "hold")
IN_90_DAYS = TODAY + timedelta(days=90)
YEAR_START = date(TODAY.year, 1, 1)
DESK_LIMIT = 10_000  # cents an override may be over its limit and still be approved by the desk
IDLE_DAYS = 60
LATE_DAYS = 60
BUDGETS = {
    "analyst": 200_000,
    "consultant": 250_000,
    "senior_consultant": 300_000,
    "manager": 350_000,
    "director": 450_000,
    "partner": 450_000,
}
KIT_ACCESS = (WORKDAY, TIMESHEETS, PROPOSAL_TEMPLATES, DELIVERY_TEMPLATES)
KIT_SOFTWARE = (THINK_CELL, ACROBAT)
# The categories whose request, carried out, is a grant of a resource of these kinds.
ACCESS_CATEGORIES = {
    "client_access": ("client_environment",),
    "folder_access": ("template_folder", "client_folder"),
    "system_access": ("internal_system",),
}
SELF_CATEGORIES = (*ACCESS_CATEGORIES, "software_licence", "hardware", "expense_override")
REFUSALS = ("not_authorised", "not_eligible", "not_staffed", "assignment_ended", "outside_window", "not_needed")
WAITS_ON_EMPLOYEE_OR_APPROVER = ("awaiting_employee", "needs_approval")
HOLD_QUEUES = {
    "screening_required": ("screening",),
    "no_free_seat": ("licensing",),
    "awaiting_date": ("onboarding", "offboarding"),
    "date_unconfirmed": ("people",),
    "security_review": ("it_security",),
}


# --- what the conversation was about ---------------------------------------------------------------------------


def _row(ev: Evidence, table: str, key: Any) -> RuleRow | None:
    """One row of a table no tool writes (people, resources, engagements ...), by primary key; None for no key."""
    return ev.end.get(table, key) if key else None


def decided_lines(ev: Evidence) -> list[tuple[RuleRow, RuleRow]]:
    """(before, after) of each expense line whose override the conversation decided."""
    return ev.updated(LINES, "override_status")


def the_ticket(ev: Evidence) -> RuleRow | None:
    """The conversation's ticket as it ends: the first ticket it created or changed."""
    return next((now for _, now in worked_tickets(ev)), None)


def about(ticket: RuleRow) -> str:
    """The employee a ticket is about: its subject, else its requester."""
    return str(ticket.subject_employee_id or ticket.requester_id)


def identified(ev: Evidence) -> str | None:
    """The employee the agent identified first (`find_employee_by_email`), from the transcript."""
    return ev.memo(("consulting", "identified"), lambda: _identified(ev))


def _identified(ev: Evidence) -> str | None:
    for c in ev.tool_calls():
        if c.tool == "find_employee_by_email" and c.error is None:
            found = _json(c.result)
            if isinstance(found, dict) and found.get("id"):
                return str(found["id"])
    return None


def requester(ev: Evidence) -> str | None:
    """Who is asking: the requester of the conversation's ticket, else the employee the agent identified."""
    ticket = the_ticket(ev)
    return str(ticket.requester_id) if ticket is not None else identified(ev)


def person(ev: Evidence, employee_id: str | None) -> RuleRow | None:
    return _row(ev, "employees", employee_id)


def name(ev: Evidence, employee_id: str | None) -> str:
    found = person(ev, employee_id)
    return f"{found.name} ({employee_id})" if found is not None else str(employee_id)


def manager_or_people(ev: Evidence, asking: str, employee_id: str) -> bool:
    """Whether `asking` is the employee's line manager or works in the People department (its profile says)."""
    employee, asker = person(ev, employee_id), person(ev, asking)
    return (employee is not None and employee.manager_id == asking) or (
        asker is not None and asker.department == "People"
    )


def may_ask(ev: Evidence, ticket: RuleRow) -> bool:
    """Whether the ticket's requester may ask for its offboarding, starter kit or roll-off (Who may ask)."""
    asking, subject = str(ticket.requester_id), about(ticket)
    if asking == subject:
        return ticket.category != "leaver" or manager_or_people(ev, asking, subject)
    if ticket.category == "roll_off":
        return any(g.lead_id == asking for _, g in assignments(ev, subject))
    return manager_or_people(ev, asking, subject)


def worked_for_one_who_may_ask(ev: Evidence, category: str) -> RuleRow | None:
    """The conversation's ticket when it is a `category` request (an offboarding, a starter kit, a roll-off) that was
    not refused as not_authorised and that its requester may ask for (refusals are the Who may ask rule's)."""
    ticket = the_ticket(ev)
    if ticket is None or ticket.category != category or ticket.reason == "not_authorised":
        return None
    return ticket if may_ask(ev, ticket) else None


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


# --- the records a rule looks at -------------------------------------------------------------------------------


def resource(ev: Evidence, resource_id: str | None) -> RuleRow | None:
    return _row(ev, "resources", resource_id)


def software(ev: Evidence, software_id: str | None) -> RuleRow | None:
    return _row(ev, "software", software_id)


def assignments(ev: Evidence, employee_id: str) -> list[tuple[RuleRow, RuleRow]]:
    """(assignment, its engagement) of each assignment of the employee."""
    return ev.memo(("consulting", "assignments", employee_id), lambda: _assignments(ev, employee_id))


def _assignments(ev: Evidence, employee_id: str) -> list[tuple[RuleRow, RuleRow]]:
    out = []
    for a in ev.end.where("assignments", employee_id=employee_id):
        engagement = _row(ev, "engagements", a.engagement_id)
        if engagement is not None:
            out.append((a, engagement))
    return out


def runs_today(a: RuleRow, engagement: RuleRow) -> bool:
    return engagement.status == "active" and a.start_date <= TODAY <= a.end_date


def has_ended(a: RuleRow, engagement: RuleRow) -> bool:
    return engagement.status == "closed" or a.end_date < TODAY


def staffed_on(ev: Evidence, employee_id: str, client_id: str) -> list[tuple[RuleRow, RuleRow]]:
    """The employee's assignments for the client that run today, on an active engagement."""
    return [(a, g) for a, g in assignments(ev, employee_id) if g.client_id == client_id and runs_today(a, g)]


def not_staffed(ev: Evidence, employee_id: str, client_id: str) -> str | None:
    """Why the employee is not staffed on the client today (None when they are)."""
    mine = [(a, g) for a, g in assignments(ev, employee_id) if g.client_id == client_id]
    if any(runs_today(a, g) for a, g in mine):
        return None
    future = [a for a, g in mine if a.start_date > TODAY and g.status != "closed"]
    if future:
        return f"their assignment for client {client_id} only starts on {min(a.start_date for a in future)}"
    ended = [(a, g) for a, g in mine if has_ended(a, g)]
    if ended:
        a, g = max(ended, key=lambda pair: pair[0].end_date)
        return f"their assignment on {g.id} for client {client_id} " + (
            "is on a closed engagement" if g.status == "closed" else f"ended on {a.end_date}"
        )
    return f"they have no assignment for client {client_id}"


def not_cleared_for_client(ev: Evidence, employee_id: str, client_id: str) -> str | None:
    """Why the employee may not have the client's environments or folders: not staffed today, or no current NDA."""
    why = not_staffed(ev, employee_id, client_id)
    if why is None and not nda_current(ev, employee_id, client_id):
        why = f"they have no current signed NDA for client {client_id}"
    return why


def nda_current(ev: Evidence, employee_id: str, client_id: str) -> bool:
    return any(
        r.kind == "nda"
        and r.client_id == client_id
        and r.status == "signed"
        and (r.expires_on is None or r.expires_on >= TODAY)
        for r in ev.end.where("compliance_records", employee_id=employee_id)
    )


def check_current(ev: Evidence, employee_id: str) -> bool:
    return any(
        r.kind == "background_check" and r.status == "cleared" and r.expires_on is not None and r.expires_on >= TODAY
        for r in ev.end.where("compliance_records", employee_id=employee_id)
    )


def _kind(ev: Evidence, resource_id: str | None) -> str | None:
    res = resource(ev, resource_id)
    return res.kind if res is not None else None


def approvals(ev: Evidence, employee_id: str, status: str) -> list[RuleRow]:
    return [r for r in ev.end.where(APPROVAL_TABLE, employee_id=employee_id) if r.status == status]


def idle_since(seat: RuleRow) -> date:
    """The day an active seat has been idle since: its last use, or its assignment when it was never used."""
    return seat.last_used_on or seat.assigned_on or seat.requested_on


# --- the changes a conversation made, employee by employee ------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One change the conversation made for one employee, as the policy names it."""

    kind: str  # grant, revoke, expiry, seat, waitlist, release, hardware, return, approval, expense
    employee: str
    row: RuleRow
    was: RuleRow | None = None


def changes(ev: Evidence) -> list[Change]:
    """Every change to an employee's access, seats, hardware, approvals and expense lines."""
    return ev.memo(("consulting", "changes"), lambda: _changes(ev))


def _changes(ev: Evidence) -> list[Change]:
    out = []
    for was, now in ev.changed_rows(GRANTS):
        if now is None:
            continue
        if was is None:
            out.append(Change("grant", now.employee_id, now))
        elif was.status == "active" and now.status == "revoked":
            out.append(Change("revoke", now.employee_id, now, was))
        elif now.status == "active" and was.expires_on != now.expires_on:
            out.append(Change("expiry", now.employee_id, now, was))
    for was, now in ev.changed_rows(SEATS):
        if now is None:
            continue
        if now.status == "active" and (was is None or was.status != "active"):
            out.append(Change("seat", now.employee_id, now, was))
        elif now.status == "waitlisted" and (was is None or was.status != "waitlisted"):
            out.append(Change("waitlist", now.employee_id, now, was))
        elif was is not None and was.status == "active" and now.status == "released":
            out.append(Change("release", now.employee_id, now, was))
    for was, now in ev.changed_rows(REQUESTS):
        if now is None:
            continue
        if was is None:
            out.append(Change("hardware", now.employee_id, now))
        elif was.status == "delivered" and now.status == "returned":
            out.append(Change("return", now.employee_id, now, was))
    for approval in ev.added(APPROVAL_TABLE):
        out.append(Change("approval", approval.employee_id, approval))
    for was, now in decided_lines(ev):
        report = _row(ev, "expense_reports", now.report_id)
        out.append(Change("expense", report.employee_id if report else "", now, was))
    return out


def in_starter_kit(c: Change) -> bool:
    """Whether a change is part of a joiner's starter kit: viewer on its access, its software, the standard laptop."""
    return (
        (c.kind == "grant" and c.row.resource_id in KIT_ACCESS and c.row.role == "viewer")
        or (c.kind in ("seat", "waitlist") and c.row.software_id in KIT_SOFTWARE)
        or (c.kind == "hardware" and c.row.model_id == STANDARD_LAPTOP)
    )


def reclaimed(ev: Evidence, release: Change) -> bool:
    """Whether a released seat is a pool reclaim: the conversation gave a seat of that title to someone else."""
    return any(
        c.kind == "seat" and c.row.software_id == release.row.software_id and c.employee != release.employee
        for c in changes(ev)
    )


def leaver_day_come(ev: Evidence, employee_id: str) -> bool:
    """Whether the employee is a leaver whose last day is today or has passed."""
    found = person(ev, employee_id)
    return found is not None and found.last_day is not None and found.last_day <= TODAY


def approver_due(ev: Evidence, approval: RuleRow) -> tuple[set[str], str] | str:
    """Who may decide an approval request (the routing table), and why; or why no approval is due at all."""
    employee = person(ev, approval.employee_id)
    manager = {employee.manager_id} if employee is not None and employee.manager_id else set()
    if approval.kind in ("client_access", "folder_access", "system_access"):
        res = resource(ev, approval.resource_id)
        role = approval.requested_role
        if res is None:
            return "it names no resource"
        if role == "viewer":
            return f"viewer on {res.id} is given directly, with no approval"
        if role == "admin":
            return {IT_SECURITY_LEAD}, "admin on anything goes to the IT security lead"
        if res.kind in CLIENT_KINDS:
            leads = {g.lead_id for _, g in staffed_on(ev, approval.employee_id, res.client_id)}
            return leads, f"editor on {res.id} goes to the lead of the engagement the employee is staffed on"
        if res.kind == "template_folder":
            return {res.owner_id}, f"editor on the template folder {res.id} goes to its owner"
        return manager, f"editor on the internal system {res.id} goes to the line manager"
    if approval.kind == "software_licence":
        title = software(ev, approval.software_id)
        if title is None or title.approval == "none":
            return f"software {approval.software_id} needs no approval: its seats come from the pool"
        if title.approval == "it_security":
            return {IT_SECURITY_LEAD}, f"{title.name} is approved by the IT security lead"
        return manager, f"{title.name} is approved by the line manager"
    return manager, f"a {approval.kind} approval goes to the line manager"


def _approved(ev: Evidence, employee_id: str, **reference: Any) -> bool:
    return any(all(r[k] == v for k, v in reference.items()) for r in approvals(ev, employee_id, "approved"))


def _write_before_identification(ev: Evidence) -> str | None:
    """The write tool the transcript calls successfully before any successful `find_employee_by_email`, if any."""
    called: dict[Any, str] = {}
    for m in ev.messages:
        if m.get("role") == "assistant":
            for c in m.get("tool_calls") or ():
                called[c.get("id")] = c.get("tool", "")
        elif m.get("role") == "tool" and not m.get("error"):
            tool = called.get(m.get("call_id"), "")
            if tool == "find_employee_by_email":
                return None
            if tool in WRITE_TOOLS:
                return tool
    return None


def reads(ev: Evidence) -> dict[str, list[dict[str, Any]]]:
    """The arguments of each successful read call of the transcript, by tool."""

    def make() -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for c in ev.tool_calls():
            if c.error is None and c.tool not in WRITE_TOOLS:
                out.setdefault(c.tool, []).append(c.arguments)
        return out

    return ev.memo(("consulting", "reads"), make)


def read(ev: Evidence, tool: str, **arguments: Any) -> bool:
    """Whether the agent read `tool` with these arguments (a subset of the call's)."""
    return any(all(a.get(k) == v for k, v in arguments.items()) for a in reads(ev).get(tool, ()))


def read_resource(ev: Evidence, res: RuleRow) -> bool:
    """Whether the agent read the resource: `get_resource`, or `list_resources` of all kinds or of its kind."""
    listed = any(a.get("kind") in (None, res.kind) for a in reads(ev).get("list_resources", ()))
    return listed or read(ev, "get_resource", resource_id=res.id)


def resources_read(ev: Evidence) -> list[RuleRow]:
    """The resources the agent looked up one by one (`get_resource`)."""
    found = (resource(ev, a.get("resource_id")) for a in reads(ev).get("get_resource", ()))
    return [res for res in found if res is not None]


def clients_read(ev: Evidence) -> set[str]:
    """The clients of the client resources the agent read (one by one or listed by kind)."""
    clients = {res.client_id for res in resources_read(ev) if res.client_id}
    for a in reads(ev).get("list_resources", ()):
        if a.get("kind") in (None, *CLIENT_KINDS):
            clients |= {r.client_id for r in ev.end.rows("resources") if r.client_id}
    return clients


def _unread(ev: Evidence, c: Change) -> str | None:
    """The record a change rests on that the agent did not read (as `tool(arguments)`), if any."""
    row, employee_id = c.row, c.employee
    if c.kind == "grant":
        res = resource(ev, row.resource_id)
        if res is not None and not read_resource(ev, res):
            return f"get_resource({res.id})"
        if res is not None and res.kind in CLIENT_KINDS:
            if not (
                read(ev, "list_assignments", employee_id=employee_id)
                or read(ev, "get_engagement", engagement_id=row.engagement_id)
            ):
                return f"list_assignments({employee_id})"
            if not read(ev, "get_compliance_status", employee_id=employee_id):
                return f"get_compliance_status({employee_id})"
    elif c.kind in ("seat", "waitlist"):
        if not (read(ev, "get_software", software_id=row.software_id) or "list_software" in reads(ev)):
            return f"get_software({row.software_id})"
    elif c.kind == "hardware":
        if not read(ev, "list_hardware_requests", employee_id=employee_id):
            return f"list_hardware_requests({employee_id})"
    elif c.kind == "expense":
        if not read(ev, "get_expense_report", report_id=row.report_id):
            return f"get_expense_report({row.report_id})"
    elif c.kind in ("revoke", "expiry"):
        if not read(ev, "list_access_grants", employee_id=employee_id):
            return f"list_access_grants({employee_id})"
    elif c.kind == "release":
        if not (
            read(ev, "list_licence_seats", software_id=row.software_id)
            or read(ev, "list_licence_seats", employee_id=employee_id)
        ):
            return f"list_licence_seats({row.software_id})"
    elif c.kind == "return":
        if not read(ev, "list_hardware_requests", employee_id=employee_id):
            return f"list_hardware_requests({employee_id})"
    elif c.kind == "approval":
        res = resource(ev, row.resource_id)
        if res is not None and not read_resource(ev, res):
            return f"get_resource({res.id})"
    offboarding = c.kind == "return" or (c.kind == "revoke" and row.revoke_reason == "leaver")
    if offboarding or (c.kind == "release" and not reclaimed(ev, c)):
        leaver = person(ev, employee_id)
        if leaver is not None and leaver.last_day is not None and not read(ev, "get_employee", employee_id=employee_id):
            return f"get_employee({employee_id}), where the last day is"
    return None


# --- Working a request ------------------------------------------------------------------------------------------


@RULES.rule(
    "CO-2",
    "Changes come after the employee is identified and the records are read; only a recorded approval counts",
    section=WORK,
    on=EVERYTHING,
)
def identified_first_and_only_recorded_approvals_count(ev: Evidence) -> Iterator[Violation]:
    premature = _write_before_identification(ev)
    if premature:
        yield Violation.of(
            None, f"{premature} was called before the employee was identified with find_employee_by_email"
        )
    for c in changes(ev):
        unread = _unread(ev, c)
        if unread:
            yield Violation.of(c.row, f"{c.kind} for {c.employee} without reading the record it rests on: {unread}")
        if c.kind == "grant" and c.row.role in ("editor", "admin"):
            if not _approved(ev, c.employee, resource_id=c.row.resource_id, requested_role=c.row.role):
                yield Violation.of(
                    c.row,
                    f"{c.row.role} on {c.row.resource_id} given to {c.employee} with no approved approval request",
                    "role",
                )
        elif c.kind == "seat":
            title = software(ev, c.row.software_id)
            if title is not None and title.approval != "none" and not _approved(ev, c.employee, software_id=title.id):
                yield Violation.of(
                    c.row,
                    f"a seat of {title.name} given to {c.employee} with no approved approval request "
                    f"(its approval is {title.approval})",
                    "status",
                )
        elif c.kind == "expense" and c.row.override_status == "approved":
            over = c.row.amount_cents - c.row.limit_cents
            if over > DESK_LIMIT and not _approved(ev, c.employee, expense_line_id=c.row.id):
                yield Violation.of(
                    c.row,
                    f"override {over:,} cents over the limit approved with no approved approval request "
                    f"(the desk approves up to {DESK_LIMIT:,})",
                    "override_status",
                )


@RULES.rule("CO-3", "The conversation works one ticket: the requester's new or open one", section=WORK)
def works_the_requesters_open_ticket(ev: Evidence) -> Iterator[Violation]:
    tickets = worked_tickets(ev)
    if not tickets:
        yield Violation.of(None, "no ticket was created or updated: the conversation's ticket was left as it was")
        return
    if len(tickets) > 1:
        ids = ", ".join(str(now.id) for _, now in tickets)
        for _, now in tickets[1:]:
            yield Violation.of(now, f"the conversation worked {len(tickets)} tickets ({ids}); it belongs to one")
    asking = identified(ev)
    for was, now in tickets:
        if asking is not None and now.requester_id != asking:
            yield Violation.of(
                now, f"ticket {now.id} is {now.requester_id}'s, not the identified requester {asking}'s", "requester_id"
            )
        if was is not None and was.status not in ("new", "open"):
            yield Violation.of(
                now, f"ticket {now.id} was {was.status} at the start: not the conversation's ticket", "status"
            )
        elif was is None:
            open_ones = [
                t.id
                for t in ev.start.where(TICKETS, requester_id=now.requester_id)
                if t.status in ("new", "open") and t.id != now.id
            ]
            if open_ones:
                yield Violation.of(
                    now,
                    f"ticket {now.id} was created although the requester had {', '.join(open_ones)} new or open",
                    "id",
                )


@RULES.rule("CO-4", "Each change once, and only the changes the policy calls for", section=WORK, on=(GRANTS, TICKETS))
def makes_only_the_changes_the_policy_calls_for(ev: Evidence) -> Iterator[Violation]:
    for c in changes(ev):
        if c.kind == "revoke" and c.row.revoke_reason not in ("leaver", "assignment_ended"):
            yield Violation.of(
                c.row,
                f"grant {c.row.id} revoked with reason {c.row.revoke_reason}: the policy revokes only for a leaver "
                "or an ended assignment",
                "status",
            )
    created = ev.added(TICKETS)
    if len(created) > 1:
        for extra in created[1:]:
            yield Violation.of(extra, f"{len(created)} tickets created in one conversation", "id")


# --- Who may ask --------------------------------------------------------------------------------------------------

_GIVING = ("grant", "seat", "waitlist", "hardware", "approval", "expense")


@RULES.rule(
    "CO-6",
    "Nothing is changed for another employee unless an article lets the requester ask; leavers get nothing",
    section=WHO,
    on=EVERYTHING,
    clauses=("CO-6", "CO-7", "CO-8", "CO-9", "CO-10", "CO-11"),
)
def changes_for_others_only_where_the_requester_may_ask(ev: Evidence) -> Iterator[Violation]:
    asking = requester(ev)
    ticket = the_ticket(ev)
    joiner_kit = ticket is not None and ticket.category == "joiner"
    for c in changes(ev):
        subject = person(ev, c.employee)
        if c.kind in _GIVING and subject is not None and subject.status == "left":
            yield Violation.of(c.row, f"{name(ev, c.employee)} has left the firm and gets nothing")
            continue
        if asking is None or c.employee == asking:
            continue
        why = _not_theirs_to_ask(ev, c, asking, joiner_kit)
        if why:
            yield Violation.of(c.row, f"{why} (asked by {name(ev, asking)} for {name(ev, c.employee)})")
    if asking is None:
        return
    asker = person(ev, asking)
    asker_left = asker is not None and asker.status == "left"
    if asker_left and ticket is not None and (ticket.status, ticket.reason) != ("solved", "not_eligible"):
        yield Violation.of(
            ticket, "the requester has left the firm: the ticket ends solved with reason not_eligible", "reason"
        )
    if ticket is None or ticket.category not in ("leaver", "joiner", "roll_off") or not ticket.subject_employee_id:
        return
    subject_id = str(ticket.subject_employee_id)
    if subject_id == asking:
        return
    if not may_ask(ev, ticket) and (ticket.status, ticket.reason) != ("solved", "not_authorised"):
        yield Violation.of(
            ticket,
            f"{name(ev, asking)} may not ask for the {ticket.category} request of {name(ev, subject_id)}: "
            "the ticket ends solved with reason not_authorised",
            "reason",
        )


def _joiner(ev: Evidence) -> str | None:
    ticket = the_ticket(ev)
    return str(ticket.subject_employee_id) if ticket is not None and ticket.subject_employee_id else None


def leads(ev: Evidence, employee_id: str, engagement_id: str | None) -> bool:
    """Whether the employee is the lead of the engagement."""
    engagement = _row(ev, "engagements", engagement_id)
    return engagement is not None and engagement.lead_id == employee_id


def _not_theirs_to_ask(ev: Evidence, c: Change, asking: str, joiner_kit: bool) -> str | None:
    """Why the requester may not ask for this change for another employee (None when an article lets them)."""
    offboarding = "only the leaver's line manager or the People team may ask for an offboarding"
    kit = "only the joiner, their line manager or the People team may ask for a starter kit"
    if c.kind == "release" and reclaimed(ev, c):
        return None  # a pool reclaim; the pool rule judges it
    if c.kind in ("return", "release") or (c.kind == "revoke" and c.row.revoke_reason == "leaver"):
        leaver = person(ev, c.employee)
        if leaver is None or leaver.last_day is None:
            return f"{c.employee} is not a leaver: only they may ask for this {c.kind}"
        return None if manager_or_people(ev, asking, c.employee) else offboarding
    if c.kind == "revoke" and c.row.revoke_reason == "assignment_ended":
        if leads(ev, asking, c.row.engagement_id):
            return None
        return "only the employee or the lead of the engagement they roll off may ask for a roll-off"
    if c.kind == "expiry":
        if leads(ev, asking, c.row.engagement_id):
            return None
        subject = person(ev, c.employee)
        if subject is not None and subject.last_day is not None and manager_or_people(ev, asking, c.employee):
            return None
        return "only the employee, the lead of its engagement or, for a leaver, the line manager or People may ask"
    if joiner_kit and c.employee == _joiner(ev) and in_starter_kit(c):
        return None if manager_or_people(ev, asking, c.employee) else kit
    return f"a {c.kind} change for another employee: only they may ask for it"


# --- Ticket status, priority, classification and comments ------------------------------------------------------


@RULES.rule(
    "CO-12", "A worked ticket ends solved, pending or hold; solved means nothing waits", section=TICKET, on=EVERYTHING
)
def ticket_ends_solved_pending_or_hold(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.status not in ENDINGS:
            yield Violation.of(
                ticket, f"ticket {ticket.id} is left {ticket.status}: not solved, pending or hold", "status"
            )
        elif ticket.status == "solved":
            waiting = [a.id for a in ev.added(APPROVAL_TABLE) if a.status == "pending"]
            waiting += [c.row.id for c in changes(ev) if c.kind == "waitlist"]
            if waiting:
                yield Violation.of(ticket, f"ticket {ticket.id} is solved while {', '.join(waiting)} waits", "status")


@RULES.rule("CO-13", "Priority stays as it is, except urgent for a late offboarding", section=TICKET, on=TICKET_TABLES)
def priority_is_left_alone_except_late_offboarding(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        before = was.priority if was is not None else "normal"
        late = ticket.status == "hold" and ticket.reason == "security_review"
        if ticket.priority != before and not (late and ticket.priority == "urgent"):
            yield Violation.of(ticket, f"priority changed from {before} to {ticket.priority}", "priority")
        elif late and ticket.priority != "urgent":
            yield Violation.of(ticket, f"a late offboarding is urgent, not {ticket.priority}", "priority")


@RULES.rule(
    "CO-14",
    "Every worked ticket has a category; a created ticket is linked to the employee it is about",
    section=TICKET,
    on=TICKET_TABLES,
    clauses=("CO-14", "CO-15"),
)
def ticket_is_classified_and_linked(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        if ticket.category is None:
            yield Violation.of(ticket, f"ticket {ticket.id} is worked without a category", "category")
        if was is not None:
            continue
        subject = ticket.subject_employee_id
        if subject is None:
            yield Violation.of(
                ticket, f"ticket {ticket.id} is created without the employee it is about", "subject_employee_id"
            )
        elif ticket.category in SELF_CATEGORIES and ticket.reason != "not_authorised":
            if subject != ticket.requester_id:
                yield Violation.of(
                    ticket,
                    f"a {ticket.category} request is the requester's own: linked to {subject}, "
                    f"not {ticket.requester_id}",
                    "subject_employee_id",
                )
        else:
            changed = {c.employee for c in changes(ev) if not (c.kind == "release" and reclaimed(ev, c))}
            if changed and subject not in changed:
                yield Violation.of(
                    ticket,
                    f"linked to {subject}, but the {ticket.category} changes were for {', '.join(sorted(changed))}",
                    "subject_employee_id",
                )


@RULES.rule(
    "CO-16",
    "Reason, status and queue match the table, and the reason is true of the records",
    section=TICKET,
    on=TICKET_TABLES,
)
def reason_status_and_queue_match_the_table(ev: Evidence) -> Iterator[Violation]:
    for was, ticket in worked_tickets(ev):
        status, reason, queue = ticket.status, ticket.reason, ticket.queue
        if status == "solved" and reason not in (None, *REFUSALS):
            yield Violation.of(ticket, f"reason {reason} does not go with status solved", "reason")
        elif status == "pending" and reason not in WAITS_ON_EMPLOYEE_OR_APPROVER:
            yield Violation.of(
                ticket, f"a pending ticket needs reason awaiting_employee or needs_approval, not {reason}", "reason"
            )
        elif status == "hold":
            if reason not in HOLD_QUEUES:
                yield Violation.of(ticket, f"a hold needs the reason of what it waits for, not {reason}", "reason")
            else:
                due = HOLD_QUEUES[reason]
                if reason == "awaiting_date" and ticket.category in ("joiner", "leaver"):
                    due = ("onboarding",) if ticket.category == "joiner" else ("offboarding",)
                if queue not in due:
                    yield Violation.of(
                        ticket, f"a hold for {reason} goes to queue {' or '.join(due)}, not {queue}", "queue"
                    )
        if status != "hold" and queue is not None and (was is None or was.queue != queue):
            yield Violation.of(ticket, f"only a hold has a queue; this {status} ticket has {queue}", "queue")
        if status in ENDINGS and reason is not None:
            untrue = _untrue_reason(ev, ticket)
            if untrue:
                yield Violation.of(ticket, f"reason {reason}, but {untrue}", "reason")


def _untrue_reason(ev: Evidence, ticket: RuleRow) -> str | None:
    """Why the ticket's reason holds neither for its requester nor for the employee it is about (None if it does)."""
    untrue = None
    for employee_id in dict.fromkeys((about(ticket), str(ticket.requester_id))):
        untrue = _untrue_reason_for(ev, ticket, employee_id)
        if untrue is None:
            return None
    return untrue


def _untrue_reason_for(ev: Evidence, ticket: RuleRow, employee_id: str) -> str | None:
    """Why the ticket's reason does not hold for this employee (None when it does, or cannot be told)."""
    reason = ticket.reason
    employee = person(ev, employee_id)
    if employee is None:
        return None
    decided = {now.override_rejection for _, now in decided_lines(ev)}
    if reason == "not_eligible":
        if employee.status == "left":
            return None
        for title in _software_read(ev):
            if employee.grade not in title.allowed_grades.split(","):
                return None
        return f"{employee_id} has not left and no software title read excludes their grade {employee.grade}"
    if reason in ("assignment_ended", "not_staffed"):
        clients = clients_read(ev)
        mine = [(a, g) for a, g in assignments(ev, employee_id) if not clients or g.client_id in clients]
        running = {g.client_id for a, g in mine if runs_today(a, g)}
        ended = {g.client_id for a, g in mine if has_ended(a, g)} - running
        future = {g.client_id for a, g in mine if a.start_date > TODAY and g.status != "closed"}
        if reason == "assignment_ended":
            if ended:
                return None
            return f"{employee_id} has no ended assignment for a client read ({', '.join(sorted(clients)) or 'any'})"
        if not clients or clients - running - (ended - future):
            return None
        return f"{employee_id} is staffed, or was, on every client read ({', '.join(sorted(clients))})"
    if reason == "outside_window":
        return None if "late_submission" in decided else "no expense override was rejected as late"
    if reason == "not_needed" and ticket.category not in ("leaver", "joiner", "roll_off"):
        held = [g for g in ev.start.where(GRANTS, employee_id=employee_id) if g.status == "active"]
        held += [s for s in ev.start.where(SEATS, employee_id=employee_id) if s.status == "active"]
        if "within_limit" in decided or held:
            return None
        return f"{employee_id} held no active grant or seat and no line was rejected as within its limit"
    if reason == "awaiting_employee":
        if "receipt_not_itemised" in decided:
            return None
        if _nda_to_sign(ev, employee_id):
            return None
        return f"{employee_id} has no NDA to sign for a client they are staffed on and no receipt to provide"
    if reason == "screening_required":
        if check_current(ev, employee_id):
            return f"{employee_id} has a current cleared background check"
        for a, g in assignments(ev, employee_id):
            client = _row(ev, "clients", g.client_id)
            screened = client is not None and client.background_check_required
            if runs_today(a, g) and screened and nda_current(ev, employee_id, g.client_id):
                return None
        return f"{employee_id} is not staffed, with a signed NDA, on a client that requires a background check"
    if reason in ("awaiting_date", "date_unconfirmed", "security_review"):
        last_day, start = employee.last_day, employee.start_date
        if reason == "date_unconfirmed":
            return None if last_day is None else f"{employee_id}'s last day is on the profile: {last_day}"
        if reason == "security_review":
            return None if last_day is not None and last_day < TODAY else f"{employee_id}'s last day is {last_day}"
        joining = start > TODAY
        leaving = last_day is not None and last_day > TODAY
        if (ticket.category == "joiner" and joining) or (ticket.category == "leaver" and leaving):
            return None
        if ticket.category not in ("joiner", "leaver") and (joining or leaving):
            return None
        return f"{employee_id} starts on {start} and has last day {last_day}: no date to wait for"
    return None


def _nda_to_sign(ev: Evidence, employee_id: str) -> bool:
    """Whether the employee is staffed today for a client whose NDA they have not signed (or that expired)."""
    return any(
        runs_today(a, g) and not nda_current(ev, employee_id, g.client_id) for a, g in assignments(ev, employee_id)
    )


def _software_read(ev: Evidence) -> list[RuleRow]:
    """The software titles the agent read (`get_software`, or all of them with `list_software`)."""
    if "list_software" in reads(ev):
        return ev.end.rows("software")
    found = (software(ev, a.get("software_id")) for a in reads(ev).get("get_software", ()))
    return [title for title in found if title is not None]


@RULES.rule(
    "CO-17",
    "A ticket solved with no reason had its requests carried out",
    section=TICKET,
    on=TICKET_TABLES,
)
def solved_without_reason_means_carried_out(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.status != "solved" or ticket.reason is not None or ticket.category is None:
            continue
        employee_id = about(ticket)
        mine = [c for c in changes(ev) if c.employee == employee_id]
        category = ticket.category
        if category in ACCESS_CATEGORIES:
            kinds = ACCESS_CATEGORIES[category]
            done = any(c.kind == "grant" and _kind(ev, c.row.resource_id) in kinds for c in mine)
            what = f"no {' or '.join(kinds)} access was granted to {employee_id}"
        elif category == "software_licence":
            done, what = any(c.kind == "seat" for c in mine), f"no seat was assigned to {employee_id}"
        elif category == "hardware":
            done, what = any(c.kind == "hardware" for c in mine), f"no hardware was requested for {employee_id}"
        elif category == "expense_override":
            done = any(c.kind == "expense" and c.row.override_status == "approved" for c in mine)
            what = f"no override of {employee_id} was approved"
        elif category == "roll_off":
            left_open = _unclosed_client_grants(ev, employee_id)
            done = any(c.kind in ("revoke", "expiry") for c in mine) or not left_open
            what = f"no grant of {employee_id} was closed ({', '.join(left_open)} left as they were)"
        elif category == "leaver":
            leaver = person(ev, employee_id)
            done = leaver is not None and leaver.last_day == TODAY
            what = f"{employee_id}'s last day is {leaver.last_day if leaver else None}, not today"
        elif category == "joiner":
            joiner = person(ev, employee_id)
            done = joiner is not None and joiner.start_date <= TODAY
            what = f"{employee_id} starts on {joiner.start_date if joiner else None}: the kit waits for that day"
        else:
            continue
        if not done:
            yield Violation.of(ticket, f"solved with no reason (carried out), yet {what}", "reason")


def _unclosed_client_grants(ev: Evidence, employee_id: str) -> list[str]:
    """The employee's active client grants that outlive their assignment (no expiry, a later one, or it ended)."""
    ends: dict[str, list[date]] = {}
    for a, g in assignments(ev, employee_id):
        ends.setdefault(g.id, []).append(a.end_date if g.status != "closed" else TODAY - timedelta(days=1))
    out = []
    for grant in ev.end.where(GRANTS, employee_id=employee_id):
        if grant.status != "active" or grant.engagement_id is None or _kind(ev, grant.resource_id) not in CLIENT_KINDS:
            continue
        end = max(ends.get(grant.engagement_id, [TODAY - timedelta(days=1)]))
        if end < TODAY or grant.expires_on is None or grant.expires_on > end:
            out.append(str(grant.id))
    return out


@RULES.rule(
    "CO-18",
    "Exactly one internal comment on a pending, held or refused ticket; none when carried out; never public",
    section=TICKET,
    on=TICKET_TABLES,
)
def one_internal_comment_when_waiting_or_refusing(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        new_comments = comments_added(ev, ticket.id)
        for c in new_comments:
            if c.public:
                yield Violation.of(c, "a public comment: the employee reads the replies in the conversation", "public")
        internal = internal_notes(ev, ticket.id)
        if ticket.status in ("pending", "hold") or (ticket.status == "solved" and ticket.reason is not None):
            if len(internal) != 1:
                yield Violation.of(
                    ticket,
                    f"{ticket.status} with reason {ticket.reason} needs exactly one internal comment; "
                    f"{len(internal)} added",
                    "status",
                )
        elif ticket.status == "solved" and internal:
            yield Violation.of(ticket, f"carried out, yet {len(internal)} comment(s) added", "status")


# --- Access roles and expiry --------------------------------------------------------------------------------------


@RULES.rule(
    "CO-20",
    "A new grant's expiry and engagement follow the resource kind, never past a last day",
    section=ROLES,
    on=(GRANTS,),
    clauses=("CO-20", "CO-19", "CO-1"),
)
def new_grant_expires_as_its_resource_kind_says(ev: Evidence) -> Iterator[Violation]:
    for grant in ev.added(GRANTS):
        res = resource(ev, grant.resource_id)
        employee = person(ev, grant.employee_id)
        if res is None or employee is None:
            continue
        last_day = employee.last_day if employee.last_day is not None and employee.last_day >= TODAY else None
        if res.kind in CLIENT_KINDS:
            engagement = _row(ev, "engagements", grant.engagement_id)
            if engagement is None or engagement.client_id != res.client_id:
                yield Violation.of(
                    grant,
                    f"a grant on client resource {res.id} names engagement {grant.engagement_id}",
                    "engagement_id",
                )
                continue
            ends = [
                a.end_date for a, g in assignments(ev, grant.employee_id) if g.id == engagement.id and runs_today(a, g)
            ]
            if not ends:
                yield Violation.of(
                    grant, f"{grant.employee_id} has no assignment on {engagement.id} running today", "engagement_id"
                )
                continue
            due = min(max(ends), IN_90_DAYS, *([last_day] if last_day else []))
            why = f"the earlier of the assignment's end {max(ends)} and 90 days ({IN_90_DAYS})"
        else:
            if grant.engagement_id is not None:
                yield Violation.of(
                    grant,
                    f"{res.kind} {res.id} is granted with no engagement, not {grant.engagement_id}",
                    "engagement_id",
                )
            due, why = last_day, "no expiry"
        if last_day is not None and (due is None or due >= last_day):
            why += f", capped at the last day {last_day}"
        if grant.expires_on != due:
            yield Violation.of(grant, f"expires on {grant.expires_on}; due {due} ({why})", "expires_on")


@RULES.rule(
    "CO-21",
    "Admin only through the IT security lead; the grant held stays while an upgrade waits",
    section=ROLES,
    on=(GRANTS, APPROVAL_TABLE),
    clauses=("CO-21", "CO-22"),
)
def held_grant_stays_while_an_upgrade_waits(ev: Evidence) -> Iterator[Violation]:
    for c in changes(ev):
        if c.kind == "grant" and c.row.role == "admin":
            if not _approved(
                ev, c.employee, resource_id=c.row.resource_id, requested_role="admin", approver_id=IT_SECURITY_LEAD
            ):
                yield Violation.of(
                    c.row, f"admin on {c.row.resource_id} without the IT security lead's approval", "role"
                )
        elif c.kind == "revoke" and c.row.revoke_reason not in ("leaver", "assignment_ended"):
            waiting = [a.id for a in approvals(ev, c.employee, "pending") if a.resource_id == c.row.resource_id]
            if waiting:
                yield Violation.of(
                    c.row,
                    f"grant {c.row.id} revoked while {', '.join(waiting)} for {c.row.resource_id} awaits its approver",
                    "status",
                )
    for approval in ev.added(APPROVAL_TABLE):
        if approval.requested_role == "admin" and approval.approver_id != IT_SECURITY_LEAD:
            yield Violation.of(approval, f"admin goes to the IT security lead {IT_SECURITY_LEAD}", "approver_id")


# --- Client environments ------------------------------------------------------------------------------------------


def _client_resource_asked(ev: Evidence, kinds: tuple[str, ...]) -> Iterator[tuple[RuleRow, RuleRow, str]]:
    """(row, its resource, the role) of each grant added or approval created on a resource of these kinds."""
    for grant in ev.added(GRANTS):
        res = resource(ev, grant.resource_id)
        if res is not None and res.kind in kinds:
            yield grant, res, grant.role
    for approval in ev.added(APPROVAL_TABLE):
        res = resource(ev, approval.resource_id)
        if res is not None and res.kind in kinds:
            yield approval, res, approval.requested_role


def misrouted(ev: Evidence, approval: RuleRow) -> Iterator[Violation]:
    """The approval request's approver_id, when it goes to the wrong approver or should not exist at all."""
    due = approver_due(ev, approval)
    if isinstance(due, str):
        yield Violation.of(approval, due, "approver_id")
        return
    approvers, why = due
    # With nobody to route to, the employee is not staffed, which the staffing rules judge.
    if approvers and approval.approver_id not in approvers:
        yield Violation.of(
            approval, f"{why} ({', '.join(sorted(approvers))}), not {approval.approver_id}", "approver_id"
        )


@RULES.rule(
    "CO-24",
    "A client environment only for a staffed employee with a current NDA and, where required, a cleared check",
    section=CLIENT,
    on=(GRANTS, APPROVAL_TABLE),
    clauses=("CO-23", "CO-24", "CO-25", "CO-26", "CO-27"),
)
def client_environment_passes_every_gate(ev: Evidence) -> Iterator[Violation]:
    for row, res, role in _client_resource_asked(ev, ("client_environment",)):
        employee_id = row.employee_id
        client = _row(ev, "clients", res.client_id)
        why = not_cleared_for_client(ev, employee_id, res.client_id)
        screened = client is not None and client.background_check_required
        if why is None and screened and not check_current(ev, employee_id):
            why = f"client {res.client_id} requires a background check and theirs is not cleared and current"
        if why is not None:
            yield Violation.of(row, f"{role} on {res.id} for {employee_id}, but {why}")
        elif row.table == APPROVAL_TABLE:
            yield from misrouted(ev, row)


# --- Ended engagements and roll-offs ----------------------------------------------------------------------------


@RULES.rule(
    "CO-28",
    "No client access outside a running assignment; an ended one's leftover grant is revoked",
    section=ENDED,
    on=EVERYTHING,
    clauses=("CO-28", "CO-29", "CO-30"),
)
def client_access_only_during_an_assignment(ev: Evidence) -> Iterator[Violation]:
    for row, res, role in _client_resource_asked(ev, CLIENT_KINDS):
        why = not_staffed(ev, row.employee_id, res.client_id)
        if why is not None:
            yield Violation.of(row, f"{role} on {res.id} for {row.employee_id}, but {why}")
    for c in changes(ev):
        if c.kind != "revoke" or c.row.revoke_reason != "assignment_ended":
            continue
        if c.row.engagement_id is None:
            yield Violation.of(
                c.row, f"grant {c.row.id} is for no engagement: no assignment of it can end", "revoke_reason"
            )
            continue
        mine = [(a, g) for a, g in assignments(ev, c.employee) if g.id == c.row.engagement_id]
        running = [a for a, g in mine if not has_ended(a, g)]
        if running:
            yield Violation.of(
                c.row,
                f"revoked as assignment_ended, but the assignment on {c.row.engagement_id} runs to "
                f"{max(a.end_date for a in running)}",
                "revoke_reason",
            )
    ticket = the_ticket(ev)
    if ticket is None or (ticket.status, ticket.reason) != ("solved", "assignment_ended"):
        return
    employee_id = about(ticket)
    clients = {res.client_id for res in resources_read(ev) if res.client_id}
    ended = {g.id for a, g in assignments(ev, employee_id) if has_ended(a, g)}
    staffed = {g.id for a, g in assignments(ev, employee_id) if not has_ended(a, g)}
    for grant in ev.end.where(GRANTS, employee_id=employee_id):
        held = resource(ev, grant.resource_id)
        if grant.status != "active" or held is None or held.kind not in CLIENT_KINDS or held.client_id not in clients:
            continue
        if grant.engagement_id in ended and grant.engagement_id not in staffed:
            yield Violation.of(
                grant, f"left active on {held.id} though its assignment on {grant.engagement_id} has ended", "status"
            )


# --- Roll-off requests ----------------------------------------------------------------------------------------


@RULES.rule(
    "CO-32",
    "A roll-off ends every grant of that engagement as its assignment says, and nothing else",
    section=ROLL_OFF,
    on=EVERYTHING,
    clauses=("CO-31", "CO-32", "CO-33", "CO-34", "CO-35", "CO-36"),
)
def roll_off_ends_the_engagements_grants_only(ev: Evidence) -> Iterator[Violation]:
    ticket = worked_for_one_who_may_ask(ev, "roll_off")
    if ticket is None:
        return
    employee_id = about(ticket)
    concerned: set[str] = set()
    for c in changes(ev):
        if c.employee != employee_id:
            continue
        if c.kind in ("release", "return"):
            yield Violation.of(c.row, f"a roll-off closes client access only; {c.kind} of {c.row.id} is not part of it")
        elif c.kind in ("revoke", "expiry"):
            res = resource(ev, c.row.resource_id)
            if c.row.engagement_id is None or res is None or res.kind not in CLIENT_KINDS:
                yield Violation.of(
                    c.row, f"grant {c.row.id} is not a client grant of an engagement: not part of a roll-off"
                )
            else:
                concerned.add(c.row.engagement_id)
    mine = assignments(ev, employee_id)
    for engagement_id in sorted(concerned):
        on_it = [(a, g) for a, g in mine if g.id == engagement_id]
        over = all(has_ended(a, g) for a, g in on_it)
        end = max((a.end_date for a, _ in on_it), default=None)
        for held in ev.start.where(GRANTS, employee_id=employee_id):
            res = resource(ev, held.resource_id)
            if (
                held.engagement_id != engagement_id
                or held.status != "active"
                or res is None
                or res.kind not in CLIENT_KINDS
            ):
                continue
            now = ev.end.get(GRANTS, held.id)
            if now is None:
                continue
            if over:
                if (now.status, now.revoke_reason) != ("revoked", "assignment_ended"):
                    yield Violation.of(
                        now, f"the assignment on {engagement_id} has ended: revoke it as assignment_ended", "status"
                    )
                continue
            due = end if held.expires_on is None or (end is not None and held.expires_on > end) else held.expires_on
            if now.status != "active" or now.expires_on != due:
                yield Violation.of(
                    now,
                    f"the assignment on {engagement_id} runs to {end}: the grant stays active to {due}, "
                    f"not {now.status} to {now.expires_on}",
                    "expires_on",
                )
    if ticket.status == "solved" and ticket.reason is None and comments_added(ev, ticket.id):
        yield Violation.of(ticket, "a roll-off carried out needs no comment", "status")


# --- Document folders --------------------------------------------------------------------------------------------


@RULES.rule(
    "CO-38",
    "Folders: template viewer is free; a client folder needs staffing and an NDA; editor and admin are routed",
    section=FOLDERS,
    on=(GRANTS, APPROVAL_TABLE),
    clauses=("CO-37", "CO-38", "CO-39"),
)
def folders_follow_their_kind(ev: Evidence) -> Iterator[Violation]:
    for row, res, role in _client_resource_asked(ev, ("template_folder", "client_folder")):
        if res.kind == "client_folder":
            why = not_cleared_for_client(ev, row.employee_id, res.client_id)
            if why is not None:
                yield Violation.of(row, f"{role} on the client folder {res.id} for {row.employee_id}, but {why}")
                continue
        if row.table == APPROVAL_TABLE:
            yield from misrouted(ev, row)


# --- Internal systems ----------------------------------------------------------------------------------------------


@RULES.rule(
    "CO-41",
    "Internal systems: viewer is direct, editor goes to the line manager, admin to IT security; no role asked twice",
    section=SYSTEMS,
    on=(APPROVAL_TABLE,),
    clauses=("CO-40", "CO-41", "CO-42"),
)
def internal_system_approvals_are_routed(ev: Evidence) -> Iterator[Violation]:
    for approval in ev.added(APPROVAL_TABLE):
        res = resource(ev, approval.resource_id)
        if res is None:
            continue
        held = [
            g.id
            for g in ev.start.where(GRANTS, employee_id=approval.employee_id)
            if g.status == "active" and g.resource_id == res.id and g.role == approval.requested_role
        ]
        if held:
            yield Violation.of(
                approval,
                f"{approval.employee_id} already holds {approval.requested_role} on {res.id} ({', '.join(held)})",
                "requested_role",
            )
        elif res.kind == "internal_system":
            yield from misrouted(ev, approval)


# --- Approval requests and routing ------------------------------------------------------------------------------


@RULES.rule(
    "CO-43",
    "An approval request comes from the employee's ticket, for the employee, to the approver the table names",
    section=APPROVALS,
    on=(APPROVAL_TABLE,),
    clauses=("CO-43", "CO-44"),
)
def approval_goes_to_the_approver_of_the_table(ev: Evidence) -> Iterator[Violation]:
    asking = requester(ev)
    for approval in ev.added(APPROVAL_TABLE):
        ticket, was = ev.end.get(TICKETS, approval.ticket_id), ev.start.get(TICKETS, approval.ticket_id)
        if ticket is not None:
            if was is not None and was.status not in ("new", "open"):
                yield Violation.of(
                    approval, f"raised from {ticket.id}, {was.status} at the start: not the conversation's ticket"
                )
            elif asking is not None and ticket.requester_id != asking:
                yield Violation.of(approval, f"raised from {ticket.id}, a ticket of {ticket.requester_id}", "ticket_id")
            elif approval.employee_id not in (ticket.requester_id, about(ticket)):
                yield Violation.of(
                    approval,
                    f"for {approval.employee_id}, but {ticket.id} is {ticket.requester_id}'s, about {about(ticket)}",
                    "employee_id",
                )
        yield from misrouted(ev, approval)


@RULES.rule(
    "CO-45",
    "A ticket left pending for approval has a pending approval request behind it",
    section=APPROVALS,
    on=TICKET_TABLES,
)
def pending_for_approval_has_a_pending_request(ev: Evidence) -> Iterator[Violation]:
    for _, ticket in worked_tickets(ev):
        if ticket.reason == "needs_approval" and not any(
            approvals(ev, employee_id, "pending") for employee_id in {ticket.requester_id, about(ticket)}
        ):
            yield Violation.of(ticket, f"needs_approval, but {about(ticket)} has no pending approval request", "reason")


@RULES.rule(
    "CO-46",
    "After an approval request: nothing given for it yet, and the ticket waits",
    section=APPROVALS,
    on=EVERYTHING,
)
def nothing_given_while_its_approval_waits(ev: Evidence) -> Iterator[Violation]:
    tickets = {now.id: now for _, now in worked_tickets(ev)}
    for approval in ev.added(APPROVAL_TABLE):
        ticket = tickets.get(approval.ticket_id)
        if ticket is not None and ticket.status not in ("pending", "hold"):
            yield Violation.of(
                ticket, f"{approval.id} was raised: the ticket waits (pending), not {ticket.status}", "status"
            )
    for c in changes(ev):
        if c.kind not in ("grant", "seat", "expense"):
            continue
        for a in approvals(ev, c.employee, "pending"):
            same = (
                (c.kind == "grant" and a.resource_id == c.row.resource_id and a.requested_role == c.row.role)
                or (c.kind == "seat" and a.software_id == c.row.software_id)
                or (c.kind == "expense" and a.expense_line_id == c.row.id and c.row.override_status == "approved")
            )
            if same:
                yield Violation.of(c.row, f"given while {a.id} for it awaits {a.approver_id}")


# --- Software licences: eligibility and approval --------------------------------------------------------------------


def _software_asked(ev: Evidence) -> Iterator[tuple[RuleRow, str, RuleRow]]:
    """(row, employee, title) of each seat or waitlist place taken and each software approval raised."""
    for c in changes(ev):
        if c.kind in ("seat", "waitlist"):
            title = software(ev, c.row.software_id)
            if title is not None:
                yield c.row, c.employee, title
    for approval in ev.added(APPROVAL_TABLE):
        if approval.kind == "software_licence":
            title = software(ev, approval.software_id)
            if title is not None:
                yield approval, approval.employee_id, title


@RULES.rule(
    "CO-48",
    "Software only for the grades it allows, whatever the need",
    section=LICENCES,
    on=(SEATS, APPROVAL_TABLE),
    clauses=("CO-47", "CO-48"),
)
def software_only_for_allowed_grades(ev: Evidence) -> Iterator[Violation]:
    for row, employee_id, title in _software_asked(ev):
        employee = person(ev, employee_id)
        if employee is not None and employee.grade not in title.allowed_grades.split(","):
            yield Violation.of(row, f"{title.name} is for {title.allowed_grades}; {employee_id} is a {employee.grade}")


@RULES.rule(
    "CO-49",
    "A title that needs approval gets an approval request, not a seat; one that needs none gets no request",
    section=LICENCES,
    on=(SEATS, APPROVAL_TABLE),
    clauses=("CO-49", "CO-50"),
)
def approval_titles_go_through_approval(ev: Evidence) -> Iterator[Violation]:
    for row, employee_id, title in _software_asked(ev):
        if row.table == APPROVAL_TABLE:
            if title.approval == "none":
                yield Violation.of(row, f"{title.name} needs no approval: its seat comes from the pool", "software_id")
        elif title.approval != "none" and not _approved(ev, employee_id, software_id=title.id):
            yield Violation.of(
                row, f"{title.name} needs {title.approval} approval: no seat or waitlist place before it is approved"
            )


@RULES.rule(
    "CO-51",
    "An employee who holds a seat of the title needs nothing: no release, seat, place or request for it",
    section=LICENCES,
    on=(SEATS, APPROVAL_TABLE),
)
def a_held_seat_needs_nothing(ev: Evidence) -> Iterator[Violation]:
    ticket = the_ticket(ev)
    asking = {requester(ev), about(ticket) if ticket is not None else None}
    asked = [(c.row, c.employee, c.row.software_id, c.kind) for c in changes(ev) if c.kind in ("seat", "waitlist")]
    asked += [
        (c.row, c.employee, c.row.software_id, c.kind)
        for c in changes(ev)
        if c.kind == "release" and c.employee in asking and not leaver_day_come(ev, c.employee)
    ]
    asked += [
        (a, a.employee_id, a.software_id, "approval") for a in ev.added(APPROVAL_TABLE) if a.kind == "software_licence"
    ]
    for row, employee_id, software_id, kind in asked:
        held = [
            s.id
            for s in ev.start.where(SEATS, employee_id=employee_id)
            if s.status == "active" and s.software_id == software_id
        ]
        if held:
            yield Violation.of(
                row, f"{employee_id} already holds an active {software_id} seat ({held[0]}): {kind} not needed"
            )


# --- Licence pools, idle seats and the waitlist --------------------------------------------------------------------


@RULES.rule(
    "CO-54",
    "A reclaim releases one seat only: the one idle longest, 60 days or more, of a full pool",
    section=POOLS,
    on=(SEATS,),
    clauses=("CO-54", "CO-52", "CO-1"),
)
def reclaim_only_the_longest_idle_seat(ev: Evidence) -> Iterator[Violation]:
    released: dict[str, int] = {}
    for c in changes(ev):
        if c.kind != "release" or leaver_day_come(ev, c.employee):
            continue
        title = software(ev, c.row.software_id)
        if title is None:
            continue
        released[title.id] = released.get(title.id, 0) + 1
        active = [s for s in ev.start.where(SEATS, software_id=title.id) if s.status == "active"]
        seat = c.was or c.row
        idle = days_between(idle_since(seat), TODAY)
        longest = min(active, key=lambda s: (idle_since(s), s.id), default=None)
        if len(active) < title.seats_total:
            why = f"the pool had {title.seats_total - len(active)} free seat(s)"
        elif idle < IDLE_DAYS:
            why = f"seat {seat.id} was idle {idle} days, under {IDLE_DAYS}"
        elif longest is not None and longest.id != seat.id:
            why = f"{longest.id} was idle longer (since {idle_since(longest)})"
        elif released[title.id] > 1:
            why = f"a reclaim releases one {title.name} seat only"
        elif not reclaimed(ev, c):
            why = "no seat of the title was then given to the employee asking"
        else:
            continue
        yield Violation.of(c.row, f"{title.name} seat {seat.id} released, but {why}", "status")


@RULES.rule(
    "CO-55",
    "The waitlist only when the pool is full with no idle seat, and then the ticket holds for licensing",
    section=POOLS,
    on=(SEATS, TICKETS),
    clauses=("CO-55", "CO-53", "CO-52"),
)
def waitlist_only_for_a_full_pool(ev: Evidence) -> Iterator[Violation]:
    ticket = the_ticket(ev)
    for c in changes(ev):
        if c.kind != "waitlist":
            continue
        title = software(ev, c.row.software_id)
        if title is None:
            continue
        active = [s for s in ev.start.where(SEATS, software_id=title.id) if s.status == "active"]
        idle = [s.id for s in active if days_between(idle_since(s), TODAY) >= IDLE_DAYS]
        if len(active) < title.seats_total:
            yield Violation.of(
                c.row, f"waitlisted for {title.name} with {title.seats_total - len(active)} seat(s) free"
            )
        elif idle:
            yield Violation.of(c.row, f"waitlisted for {title.name} though {', '.join(idle)} is idle 60 days or more")
        elif ticket is not None and ticket.status != "hold":
            yield Violation.of(ticket, f"{c.employee} waits on the {title.name} waitlist: the ticket holds", "status")
    if ticket is not None and ticket.reason == "no_free_seat":
        waiting = [s for s in ev.end.where(SEATS, employee_id=about(ticket)) if s.status == "waitlisted"]
        if not waiting:
            yield Violation.of(ticket, f"no_free_seat, but {about(ticket)} holds no waitlist place", "reason")


# --- Hardware requests and grade budgets -------------------------------------------------------------------------


@RULES.rule(
    "CO-58",
    "A hardware request within the year's grade budget goes through; one above it goes to the line manager",
    section=HARDWARE,
    on=(REQUESTS, APPROVAL_TABLE),
    clauses=("CO-58", "CO-56", "CO-57", "CO-59", "CO-60", "CO-5"),
)
def hardware_above_budget_goes_to_the_line_manager(ev: Evidence) -> Iterator[Violation]:
    ticket = the_ticket(ev)
    kit = ticket is not None and ticket.category == "joiner"
    new = sorted((c.row for c in changes(ev) if c.kind == "hardware"), key=lambda r: r.id)
    for request in new:
        if kit and request.model_id == STANDARD_LAPTOP:
            continue  # the starter kit's laptop
        employee = person(ev, request.employee_id)
        if employee is None or employee.grade not in BUDGETS:
            continue
        budget = BUDGETS[employee.grade]
        before = [
            r
            for r in ev.start.where(REQUESTS, employee_id=employee.id)
            if r.requested_on >= YEAR_START and r.status != "rejected"
        ]
        also = [r for r in new if r.employee_id == employee.id and r.id <= request.id]
        spend = sum(r.price_cents for r in (*before, *also))
        routed = [
            a for a in ev.end.where(APPROVAL_TABLE, hardware_request_id=request.id) if a.kind == "hardware_budget"
        ]
        if spend <= budget and routed:
            yield Violation.of(
                routed[0], f"this year's spend {spend:,} cents is within the {budget:,} budget: no approval", "id"
            )
        elif spend > budget and not any(a.approver_id == employee.manager_id for a in routed):
            yield Violation.of(
                request,
                f"this year's spend {spend:,} cents is above the {employee.grade} budget of {budget:,}: "
                f"route it to the line manager {employee.manager_id}",
                "status",
            )


# --- Expense overrides ----------------------------------------------------------------------------------------------


def _late(ev: Evidence, line: RuleRow) -> bool:
    report = _row(ev, "expense_reports", line.report_id)
    return report is not None and days_between(line.incurred_on, report.submitted_on) > LATE_DAYS


def _override_due(ev: Evidence, line: RuleRow) -> tuple[str, str | None, str]:
    """(override status, rejection, why) the policy's checks give a requested override, in their order."""
    report = _row(ev, "expense_reports", line.report_id)
    over = line.amount_cents - line.limit_cents
    if over <= 0:
        return "rejected", "within_limit", f"{line.amount_cents:,} is within the {line.limit_cents:,} limit"
    late = days_between(line.incurred_on, report.submitted_on) if report is not None else 0
    if late > LATE_DAYS:
        return "rejected", "late_submission", f"incurred {late} days before the report was submitted"
    if line.receipt != "itemised":
        return "rejected", "receipt_not_itemised", f"the receipt is {line.receipt}, not itemised"
    if over <= DESK_LIMIT:
        return "approved", None, f"{over:,} cents over, within the desk limit"
    return "awaiting_manager", None, f"{over:,} cents over, above the {DESK_LIMIT:,} desk limit"


@RULES.rule(
    "CO-61",
    "An override is decided by the checks in order: limit, late submission, receipt, desk limit",
    section=EXPENSES,
    on=(LINES,),
    clauses=("CO-61", "CO-62", "CO-1", "CO-5"),
)
def override_decided_by_the_checks_in_order(ev: Evidence) -> Iterator[Violation]:
    for was, line in decided_lines(ev):
        status, rejection, why = _override_due(ev, was)
        due_late = rejection == "within_limit" and _late(ev, was) and line.override_rejection == "late_submission"
        if (line.override_status, line.override_rejection) != (status, rejection) and not due_late:
            got = line.override_status + (f" ({line.override_rejection})" if line.override_rejection else "")
            due = status + (f" ({rejection})" if rejection else "")
            yield Violation.of(line, f"{got}, but {why}: {due}", "override_status")
        elif status == "approved" and line.reimbursable_cents != line.amount_cents:
            yield Violation.of(line, "an approved override pays the whole line", "reimbursable_cents")


@RULES.rule(
    "CO-62",
    "Every override asked is decided; a late one is final, a missing receipt or the manager keeps the ticket waiting",
    section=EXPENSES,
    on=(LINES, TICKETS),
    clauses=("CO-61", "CO-62"),
)
def override_decision_sets_the_ticket(ev: Evidence) -> Iterator[Violation]:
    ticket = the_ticket(ev)
    if ticket is None:
        return
    asker = person(ev, str(ticket.requester_id))
    if asker is not None and asker.status != "left" and ticket.reason not in ("not_authorised", "not_eligible"):
        for args in reads(ev).get("get_expense_report", ()):
            report = _row(ev, "expense_reports", args.get("report_id"))
            if report is None or report.employee_id != asker.id:
                continue
            for line in ev.end.where(LINES, report_id=report.id):
                if line.override_status == "requested":
                    yield Violation.of(
                        line,
                        f"the override asked on {line.id} ({report.id}, read) is left undecided",
                        "override_status",
                    )
    decided = [line for _, line in decided_lines(ev)]
    waits = [line.id for line in decided if line.override_rejection == "receipt_not_itemised"]
    waits += [line.id for line in decided if line.override_status == "awaiting_manager"]
    late = [line.id for line in decided if line.override_rejection == "late_submission"]
    if waits and ticket.status == "solved":
        yield Violation.of(ticket, f"{', '.join(waits)} still waits: the ticket is pending, not solved", "status")
    if late and not waits and ticket.reason == "awaiting_employee" and not _nda_to_sign(ev, about(ticket)):
        yield Violation.of(
            ticket, f"{', '.join(late)} was submitted too late: that is final, no receipt can change it", "reason"
        )


# --- Leavers --------------------------------------------------------------------------------------------------------


def _leaver(ev: Evidence) -> tuple[RuleRow, RuleRow] | None:
    """(the offboarding ticket, the leaver) when the conversation worked an offboarding it may carry out."""
    ticket = worked_for_one_who_may_ask(ev, "leaver")
    if ticket is None:
        return None
    leaver = person(ev, ticket.subject_employee_id)
    return (ticket, leaver) if leaver is not None else None


@RULES.rule(
    "CO-64",
    "From the last day, an offboarding leaves nothing active; a late one holds, urgent, for IT security",
    section=LEAVERS,
    on=EVERYTHING,
    clauses=("CO-64", "CO-63", "CO-67", "CO-1"),
)
def offboarding_from_the_last_day_closes_everything(ev: Evidence) -> Iterator[Violation]:
    found = _leaver(ev)
    if found is None:
        return
    ticket, leaver = found
    if leaver.last_day is None or leaver.last_day > TODAY:
        return
    for grant in ev.end.where(GRANTS, employee_id=leaver.id):
        if grant.status == "active":
            yield Violation.of(grant, f"still active after the last day {leaver.last_day}", "status")
    for seat in ev.end.where(SEATS, employee_id=leaver.id):
        if seat.status == "active":
            yield Violation.of(seat, f"still active after the last day {leaver.last_day}", "status")
    for request in ev.end.where(REQUESTS, employee_id=leaver.id):
        if request.status == "delivered":
            yield Violation.of(request, "delivered hardware not recorded as returned", "status")
    for c in changes(ev):
        if c.kind == "revoke" and c.employee == leaver.id and c.row.revoke_reason != "leaver":
            yield Violation.of(
                c.row, f"a leaver's grant is revoked with reason leaver, not {c.row.revoke_reason}", "revoke_reason"
            )
    if leaver.last_day < TODAY:
        due = ("hold", "urgent", "security_review", "it_security")
        if (ticket.status, ticket.priority, ticket.reason, ticket.queue) != due:
            yield Violation.of(
                ticket,
                f"the last day {leaver.last_day} has passed: hold, urgent, security_review, it_security; "
                f"not {ticket.status}, {ticket.priority}, {ticket.reason}, {ticket.queue}",
                "status",
            )


@RULES.rule(
    "CO-66",
    "Before the last day nothing is revoked, released or returned; expiries are set to it, never past it",
    section=LEAVERS,
    on=EVERYTHING,
    clauses=("CO-66", "CO-65", "CO-68", "CO-1"),
)
def nothing_ends_before_the_last_day(ev: Evidence) -> Iterator[Violation]:
    for c in changes(ev):
        employee = person(ev, c.employee)
        if employee is None:
            continue
        last_day = employee.last_day
        ending = c.kind == "return" or (c.kind == "revoke" and c.row.revoke_reason == "leaver")
        ending = ending or (c.kind == "release" and last_day is not None and not reclaimed(ev, c))
        if ending and (last_day is None or last_day > TODAY):
            yield Violation.of(c.row, f"{c.kind} for {c.employee} before their last day ({last_day})", "status")
        elif (
            c.kind == "expiry"
            and last_day is not None
            and last_day >= TODAY
            and (c.row.expires_on is None or c.row.expires_on > last_day)
        ):
            yield Violation.of(c.row, f"expiry {c.row.expires_on} runs past the last day {last_day}", "expires_on")
    found = _leaver(ev)
    if found is None:
        return
    _ticket, leaver = found
    if leaver.last_day is None:
        for c in changes(ev):
            if c.employee == leaver.id:
                yield Violation.of(c.row, "no last day on the profile: nothing changes until People records it")
        return
    if leaver.last_day <= TODAY:
        return
    for held in ev.start.where(GRANTS, employee_id=leaver.id):
        if held.status != "active":
            continue
        now = ev.end.get(GRANTS, held.id)
        due = held.expires_on if held.expires_on is not None and held.expires_on <= leaver.last_day else leaver.last_day
        if now is not None and now.expires_on != due:
            yield Violation.of(
                now, f"expires on {now.expires_on}; due {due} (last day {leaver.last_day})", "expires_on"
            )


# --- Joiners --------------------------------------------------------------------------------------------------------


@RULES.rule(
    "CO-71",
    "A starter kit is given whole from the start date, none of it before",
    section=JOINERS,
    on=EVERYTHING,
    clauses=("CO-71", "CO-69", "CO-70", "CO-1"),
)
def starter_kit_whole_from_the_start_date(ev: Evidence) -> Iterator[Violation]:
    ticket = worked_for_one_who_may_ask(ev, "joiner")
    if ticket is None:
        return
    joiner = person(ev, about(ticket))
    if joiner is None:
        return
    if joiner.start_date > TODAY:
        for c in changes(ev):
            if c.employee == joiner.id:
                yield Violation.of(c.row, f"{joiner.id} starts on {joiner.start_date}: nothing is given before")
        return
    grants = {g.resource_id for g in ev.end.where(GRANTS, employee_id=joiner.id) if g.status == "active"}
    for missing in sorted(set(KIT_ACCESS) - grants):
        yield Violation.of(ticket, f"the starter kit's {missing} access is missing for {joiner.id}")
    seats = {s.software_id: s.status for s in ev.end.where(SEATS, employee_id=joiner.id) if s.status != "released"}
    for title in KIT_SOFTWARE:
        if title not in seats:
            yield Violation.of(
                ticket, f"the starter kit's {title} seat is neither given nor waitlisted for {joiner.id}"
            )
    laptops = [r for r in ev.end.where(REQUESTS, employee_id=joiner.id) if _is_laptop(ev, r)]
    had = [r for r in ev.start.where(REQUESTS, employee_id=joiner.id) if _is_laptop(ev, r) and r.status != "rejected"]
    if not any(r.status != "rejected" for r in laptops):
        yield Violation.of(ticket, f"the starter kit's laptop is not requested for {joiner.id}")
    elif had:
        for c in changes(ev):
            if c.kind == "hardware" and c.employee == joiner.id and _is_laptop(ev, c.row):
                yield Violation.of(c.row, f"{joiner.id} already has laptop request {had[0].id}", "model_id")


def _is_laptop(ev: Evidence, request: RuleRow) -> bool:
    model = _row(ev, "hardware_models", request.model_id)
    return model is not None and model.category == "laptop"


@RULES.rule(
    "CO-72",
    "On someone else's request a joiner gets the starter kit only",
    section=JOINERS,
    on=(GRANTS, SEATS, REQUESTS, APPROVAL_TABLE, LINES),
)
def others_ask_for_the_kit_only(ev: Evidence) -> Iterator[Violation]:
    ticket = the_ticket(ev)
    if ticket is None or ticket.category != "joiner" or not ticket.subject_employee_id:
        return
    joiner = str(ticket.subject_employee_id)
    if joiner == ticket.requester_id:
        return
    for c in changes(ev):
        if c.employee != joiner:
            continue
        if not in_starter_kit(c):
            yield Violation.of(c.row, f"not part of the starter kit: only {joiner} may ask for it")
