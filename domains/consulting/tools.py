"""The consulting service desk's tools, as an agent sees them.

Reads return plain dicts; writes validate their arguments and the preconditions
the call itself would break (an unknown id, a second active grant on the same
resource, a seat in a full pool, an override that was never requested), and
otherwise do what they are told: whether access, a licence, hardware or an
override is *due*, and who must approve it, is the policy's question, answered
by the agent. Every time comes from the domain clock and every new id from the
rows present.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from sqlalchemy import select
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
    AccessRole,
    ApprovalKind,
    ApprovalRequest,
    Assignment,
    Client,
    ComplianceRecord,
    Employee,
    Engagement,
    ExpenseLine,
    ExpenseReport,
    HardwareModel,
    HardwareRequest,
    LicenceSeat,
    OverrideRejection,
    Resource,
    ResourceKind,
    RevokeReason,
    Software,
    Ticket,
    TicketComment,
)

tools = ToolSet("consulting")

POLICY_PATH = Path(__file__).with_name("policy.md")

_OPEN_HARDWARE = ("submitted", "awaiting_approval", "ordered")
_RESOURCE_KINDS_OF = {
    "client_access": ("client_environment",),
    "folder_access": ("template_folder", "client_folder"),
    "system_access": ("internal_system",),
}
_REFERENCES = ("resource_id", "software_id", "hardware_request_id", "expense_line_id")
_REFERENCE_OF = {
    "client_access": "resource_id",
    "folder_access": "resource_id",
    "system_access": "resource_id",
    "software_licence": "software_id",
    "hardware_budget": "hardware_request_id",
    "expense_override": "expense_line_id",
}


# --------------------------------------------------------------------------- helpers


def _employee(db: Session, employee_id: str) -> Employee:
    return get_or_fail(db, Employee, employee_id, "employee")


def _current(db: Session, employee_id: str) -> Employee:
    """An employee who has not left the firm (writes on behalf of a leaver are refused)."""
    employee = _employee(db, employee_id)
    if employee.status == "left":
        raise ToolFailure(PRECONDITION_FAILED, f"employee {employee_id} has left the firm")
    return employee


def _date(value: str, field: str) -> date:
    return iso_date(value, f"{field} must be a date as YYYY-MM-DD, not {value!r}")


def _future_date(value: str, field: str) -> date:
    parsed = _date(value, field)
    if parsed < TODAY:
        raise ToolFailure(INVALID_ARGUMENT, f"{field} {parsed.isoformat()} is in the past (today is {TODAY})")
    return parsed


def _name(db: Session, employee_id: str | None) -> str | None:
    if employee_id is None:
        return None
    person = db.get(Employee, employee_id)
    return person.name if person else None


def _seats(db: Session, software_id: str, status: str) -> list[LicenceSeat]:
    return list(
        db.scalars(
            select(LicenceSeat)
            .where(LicenceSeat.software_id == software_id, LicenceSeat.status == status)
            .order_by(LicenceSeat.id)
        )
    )


def _software_view(db: Session, software: Software) -> dict:
    used = len(_seats(db, software.id, "active"))
    return {
        **row_dict(software, "allowed_grades"),
        "allowed_grades": software.allowed_grades.split(","),
        "seats_used": used,
        "seats_free": software.seats_total - used,
        "waitlist_length": len(_seats(db, software.id, "waitlisted")),
    }


def _seat_view(db: Session, seat: LicenceSeat) -> dict:
    return {**row_dict(seat), "software_name": seat.software.name, "employee_name": _name(db, seat.employee_id)}


def _grant_view(grant: AccessGrant) -> dict:
    return {**row_dict(grant), "resource_name": grant.resource.name, "resource_kind": grant.resource.kind}


def _engagement_summary(db: Session, engagement: Engagement) -> dict:
    return {
        **row_dict(engagement),
        "client_name": engagement.client.name,
        "lead_name": _name(db, engagement.lead_id),
    }


def _line_view(line: ExpenseLine) -> dict:
    return {**row_dict(line), "over_limit_cents": max(0, line.amount_cents - line.limit_cents)}


def _requested_line(db: Session, line_id: str) -> ExpenseLine:
    line = get_or_fail(db, ExpenseLine, line_id, "expense line")
    if line.override_status != "requested":
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"expense line {line_id} has override status {line.override_status}; only a requested override "
            "can be decided here",
        )
    return line


# --------------------------------------------------------------------------- reads: people and engagements


@tools.read
def get_employee(db: Session, employee_id: str) -> dict:
    """An employee's profile: grade, title, department, office, line manager (manager_id and name), status
    (active, on_leave, left), start date and last day (set when they are leaving)."""
    employee = _employee(db, employee_id)
    return {**row_dict(employee), "manager_name": _name(db, employee.manager_id)}


@tools.read
def get_manager_chain(db: Session, employee_id: str) -> dict:
    """The employee's reporting line upwards: their line manager first, then that manager's manager, up to the
    managing partner. Each entry has id, name, grade, title and department."""
    employee = _employee(db, employee_id)
    chain, seen, current = [], {employee.id}, employee.manager_id
    while current is not None and current not in seen:
        seen.add(current)
        boss = _employee(db, current)
        chain.append({k: getattr(boss, k) for k in ("id", "name", "grade", "title", "department")})
        current = boss.manager_id
    return {"employee_id": employee_id, "chain": chain}


@tools.read
def list_assignments(db: Session, employee_id: str) -> list[dict]:
    """Every engagement the employee is or was staffed on, newest first: the assignment (role, start and end
    dates) and its engagement (id, name, client, status, start and end dates, engagement lead)."""
    _employee(db, employee_id)
    rows = db.scalars(
        select(Assignment)
        .where(Assignment.employee_id == employee_id)
        .order_by(Assignment.start_date.desc(), Assignment.id)
    ).all()
    return [{**row_dict(a), "engagement": _engagement_summary(db, a.engagement)} for a in rows]


@tools.read
def get_engagement(db: Session, engagement_id: str) -> dict:
    """A client engagement: client, status (planned, active, closed), start and end dates, the engagement lead,
    and everyone staffed on it with their assignment dates."""
    engagement = get_or_fail(db, Engagement, engagement_id, "engagement")
    return {
        **_engagement_summary(db, engagement),
        "staffing": [{**row_dict(a), "employee_name": _name(db, a.employee_id)} for a in engagement.assignments],
    }


@tools.read
def get_client(db: Session, client_id: str) -> dict:
    """A client: name, industry and whether it requires a background check for access to its environments."""
    return row_dict(get_or_fail(db, Client, client_id, "client"))


# --------------------------------------------------------------------------- reads: access and compliance


@tools.read
def list_resources(db: Session, kind: ResourceKind | None = None) -> list[dict]:
    """The systems, client environments and document folders access can be granted to (optionally of one kind:
    internal_system, client_environment, template_folder, client_folder), with their ids."""
    query = select(Resource).order_by(Resource.id)
    if kind is not None:
        query = query.where(Resource.kind == kind)
    return [{k: getattr(r, k) for k in ("id", "name", "kind", "client_id")} for r in db.scalars(query)]


@tools.read
def get_resource(db: Session, resource_id: str) -> dict:
    """One system, client environment or folder: its kind, its client (with whether that client requires a
    background check) and its owner."""
    resource = get_or_fail(db, Resource, resource_id, "resource")
    return {
        **row_dict(resource),
        "client": row_dict(resource.client) if resource.client else None,
        "owner_name": _name(db, resource.owner_id),
    }


@tools.read
def list_access_grants(db: Session, employee_id: str) -> list[dict]:
    """Every access grant the employee has or had: resource, role (viewer, editor, admin), status (active,
    revoked, expired), the engagement it was given for, when it was granted, when it expires, and any revocation."""
    _employee(db, employee_id)
    rows = rows_where(db, AccessGrant.employee_id, employee_id)
    return [_grant_view(g) for g in rows]


@tools.read
def get_compliance_status(db: Session, employee_id: str) -> dict:
    """The employee's NDAs (one per client: status signed, sent or expired, with signing and expiry dates) and
    background checks (status cleared, in_progress, failed or expired, with completion and expiry dates)."""
    _employee(db, employee_id)
    rows = rows_where(db, ComplianceRecord.employee_id, employee_id)
    return {
        "employee_id": employee_id,
        "ndas": [
            {**row_dict(r, "kind"), "client_name": r.client.name if r.client else None} for r in rows if r.kind == "nda"
        ],
        "background_checks": [row_dict(r, "kind", "client_id") for r in rows if r.kind == "background_check"],
    }


# --------------------------------------------------------------------------- reads: licences and hardware


@tools.read
def list_software(db: Session) -> list[dict]:
    """The software catalogue: each title's id, seat pool size and seats used, grades allowed and approval route."""
    return [_software_view(db, s) for s in db.scalars(select(Software).order_by(Software.id))]


@tools.read
def get_software(db: Session, software_id: str) -> dict:
    """One software title: seats total, used and free, waitlist length, the grades allowed to hold it and who must
    approve a seat (approval none, line_manager or it_security)."""
    return _software_view(db, get_or_fail(db, Software, software_id, "software"))


@tools.read
def list_licence_seats(db: Session, software_id: str | None = None, employee_id: str | None = None) -> list[dict]:
    """Licence seats of one software title and/or one employee: status (active, released, waitlisted), holder,
    when it was requested and assigned, and when the holder last used it (last_used_on)."""
    if software_id is None and employee_id is None:
        raise ToolFailure(INVALID_ARGUMENT, "give a software_id, an employee_id or both")
    query = select(LicenceSeat).order_by(LicenceSeat.id)
    if software_id is not None:
        get_or_fail(db, Software, software_id, "software")
        query = query.where(LicenceSeat.software_id == software_id)
    if employee_id is not None:
        _employee(db, employee_id)
        query = query.where(LicenceSeat.employee_id == employee_id)
    return [_seat_view(db, s) for s in db.scalars(query)]


@tools.read
def list_hardware_catalogue(db: Session) -> list[dict]:
    """The hardware catalogue: model id, name, category and price."""
    return [row_dict(m) for m in db.scalars(select(HardwareModel).order_by(HardwareModel.id))]


@tools.read
def list_hardware_requests(db: Session, employee_id: str) -> list[dict]:
    """Every hardware request of an employee, newest first: model, price, date requested and status (submitted,
    awaiting_approval, ordered, delivered, rejected, returned), and the day a returned item came back."""
    _employee(db, employee_id)
    rows = db.scalars(
        select(HardwareRequest)
        .where(HardwareRequest.employee_id == employee_id)
        .order_by(HardwareRequest.requested_on.desc(), HardwareRequest.id)
    ).all()
    return [{**row_dict(r, "reason"), "model_name": r.model.name} for r in rows]


# --------------------------------------------------------------------------- reads: expenses and approvals


@tools.read
def list_expense_reports(db: Session, employee_id: str) -> list[dict]:
    """An employee's expense reports, newest first, with status, submission date and number of lines."""
    _employee(db, employee_id)
    rows = db.scalars(
        select(ExpenseReport)
        .where(ExpenseReport.employee_id == employee_id)
        .order_by(ExpenseReport.submitted_on.desc(), ExpenseReport.id)
    ).all()
    return [{**row_dict(r), "line_count": len(r.lines)} for r in rows]


@tools.read
def get_expense_report(db: Session, report_id: str) -> dict:
    """An expense report with every line: date incurred, category, merchant, amount, the policy limit for the
    line, how far it is over the limit, the receipt held (itemised, card_slip, none), the override status and
    justification, and the amount currently reimbursable."""
    report = get_or_fail(db, ExpenseReport, report_id, "expense report")
    return {**row_dict(report), "lines": [_line_view(line) for line in report.lines]}


@tools.read
def list_approval_requests(db: Session, employee_id: str) -> list[dict]:
    """Every approval request about an employee's requests: kind, approver, status and what it is for."""
    _employee(db, employee_id)
    rows = rows_where(db, ApprovalRequest.employee_id, employee_id)
    return [{**row_dict(r, "note"), "approver_name": _name(db, r.approver_id)} for r in rows]


# --------------------------------------------------------------------------- writes: access


@tools.write
def grant_access(
    db: Session,
    employee_id: str,
    resource_id: str,
    role: AccessRole,
    expires_on: str | None = None,
    engagement_id: str | None = None,
) -> dict:
    """Give an employee access to a system, client environment or folder with a role (viewer, editor, admin).
    expires_on is the last day of access (YYYY-MM-DD), or none for access that does not expire; engagement_id is
    the engagement a client grant is for. Check the policy first. Returns the grant."""
    employee = _current(db, employee_id)
    resource = get_or_fail(db, Resource, resource_id, "resource")
    until = _future_date(expires_on, "expires_on") if expires_on is not None else None
    if engagement_id is not None:
        engagement = get_or_fail(db, Engagement, engagement_id, "engagement")
        if resource.client_id is None:
            raise ToolFailure(INVALID_ARGUMENT, f"{resource.name} is not a client resource; give no engagement_id")
        if engagement.client_id != resource.client_id:
            raise ToolFailure(
                INVALID_ARGUMENT, f"engagement {engagement_id} is for another client than {resource.name}"
            )
    existing = db.scalars(
        select(AccessGrant).where(
            AccessGrant.employee_id == employee.id,
            AccessGrant.resource_id == resource_id,
            AccessGrant.status == "active",
        )
    ).first()
    if existing is not None:
        raise ToolFailure(
            CONFLICT,
            f"{employee.name} already has active {existing.role} access to {resource.name} (grant {existing.id})",
        )
    grant = AccessGrant(
        id=next_id(db, AccessGrant, "AG-"),
        employee_id=employee.id,
        resource_id=resource_id,
        role=role,
        status="active",
        engagement_id=engagement_id,
        granted_at=NOW,
        expires_on=until,
    )
    db.add(grant)
    db.flush()
    return _grant_view(grant)


def _active_grant(db: Session, grant_id: str) -> AccessGrant:
    grant = get_or_fail(db, AccessGrant, grant_id, "access grant")
    if grant.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"access grant {grant_id} is already {grant.status}")
    return grant


@tools.write
def revoke_access(db: Session, grant_id: str, reason: RevokeReason) -> dict:
    """Revoke an active access grant now, with the reason (leaver, assignment_ended, requested, security)."""
    grant = _active_grant(db, grant_id)
    grant.status = "revoked"
    grant.revoked_at = NOW
    grant.revoke_reason = reason
    return _grant_view(grant)


@tools.write
def set_access_expiry(db: Session, grant_id: str, expires_on: str) -> dict:
    """Change the last day (YYYY-MM-DD, today or later) of an active access grant; it lapses after that day."""
    grant = _active_grant(db, grant_id)
    grant.expires_on = _future_date(expires_on, "expires_on")
    return _grant_view(grant)


# --------------------------------------------------------------------------- writes: licences


@tools.write
def assign_licence(db: Session, software_id: str, employee_id: str) -> dict:
    """Give an employee a seat of a software title from its pool (a place they hold on the waitlist becomes the
    seat). Fails when every seat is taken. Returns the seat."""
    software = get_or_fail(db, Software, software_id, "software")
    employee = _current(db, employee_id)
    mine = db.scalars(
        select(LicenceSeat)
        .where(LicenceSeat.software_id == software_id, LicenceSeat.employee_id == employee_id)
        .where(LicenceSeat.status.in_(("active", "waitlisted")))
    ).first()
    if mine is not None and mine.status == "active":
        raise ToolFailure(CONFLICT, f"{employee.name} already holds a {software.name} seat ({mine.id})")
    if len(_seats(db, software_id, "active")) >= software.seats_total:
        raise ToolFailure(
            PRECONDITION_FAILED,
            f"all {software.seats_total} {software.name} seats are taken; release one or use the waitlist",
        )
    if mine is None:
        mine = LicenceSeat(id=next_id(db, LicenceSeat, "LS-"), software_id=software_id, employee_id=employee_id)
        mine.requested_on = TODAY
        db.add(mine)
    mine.status = "active"
    mine.assigned_on = TODAY
    mine.last_used_on = None
    db.flush()
    return _seat_view(db, mine)


@tools.write
def release_licence(db: Session, seat_id: str) -> dict:
    """Take back an active licence seat from its holder, freeing it in the pool."""
    seat = get_or_fail(db, LicenceSeat, seat_id, "licence seat")
    if seat.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"licence seat {seat_id} is {seat.status}, not active")
    seat.status = "released"
    seat.released_on = TODAY
    return _seat_view(db, seat)


@tools.write
def join_licence_waitlist(db: Session, software_id: str, employee_id: str) -> dict:
    """Put an employee on a software title's waitlist; they get the next seat that frees up. Returns their
    waitlist entry and position."""
    software = get_or_fail(db, Software, software_id, "software")
    employee = _current(db, employee_id)
    mine = db.scalars(
        select(LicenceSeat)
        .where(LicenceSeat.software_id == software_id, LicenceSeat.employee_id == employee_id)
        .where(LicenceSeat.status.in_(("active", "waitlisted")))
    ).first()
    if mine is not None:
        raise ToolFailure(CONFLICT, f"{employee.name} already has a {software.name} entry ({mine.id}, {mine.status})")
    entry = LicenceSeat(
        id=next_id(db, LicenceSeat, "LS-"),
        software_id=software_id,
        employee_id=employee_id,
        status="waitlisted",
        requested_on=TODAY,
    )
    db.add(entry)
    db.flush()
    return {**_seat_view(db, entry), "position": len(_seats(db, software_id, "waitlisted"))}


# --------------------------------------------------------------------------- writes: approvals and hardware


@tools.write
def create_approval_request(
    db: Session,
    ticket_id: str,
    kind: ApprovalKind,
    employee_id: str,
    approver_id: str,
    resource_id: str | None = None,
    requested_role: AccessRole | None = None,
    software_id: str | None = None,
    hardware_request_id: str | None = None,
    expense_line_id: str | None = None,
    note: str | None = None,
) -> dict:
    """Ask an approver to decide on an employee's request, from the ticket it belongs to. Give the one reference
    the kind needs: resource_id and requested_role for client_access, folder_access and system_access;
    software_id for software_licence; hardware_request_id for hardware_budget; expense_line_id for
    expense_override. The policy says who the approver is. Nothing is granted until the approver decides."""
    ticket = get_or_fail(db, Ticket, ticket_id, "ticket")
    if ticket.status == "closed":
        raise ToolFailure(PRECONDITION_FAILED, f"ticket {ticket_id} is closed")
    employee = _employee(db, employee_id)
    approver = _employee(db, approver_id)
    if approver.status != "active":
        raise ToolFailure(PRECONDITION_FAILED, f"{approver.name} is {approver.status} and cannot approve requests")
    if approver_id == employee_id:
        raise ToolFailure(INVALID_ARGUMENT, "an employee cannot approve their own request")
    given = {
        "resource_id": resource_id,
        "software_id": software_id,
        "hardware_request_id": hardware_request_id,
        "expense_line_id": expense_line_id,
    }
    needed = _REFERENCE_OF[kind]
    if given[needed] is None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} approval needs {needed}")
    extra = [k for k in _REFERENCES if k != needed and given[k] is not None]
    if extra:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} approval takes only {needed}; drop {', '.join(extra)}")
    if needed == "resource_id":
        resource = get_or_fail(db, Resource, resource_id, "resource")
        if resource.kind not in _RESOURCE_KINDS_OF[kind]:
            raise ToolFailure(INVALID_ARGUMENT, f"{resource.name} is a {resource.kind}; it is not a {kind} request")
        if requested_role is None:
            raise ToolFailure(INVALID_ARGUMENT, f"a {kind} approval needs the requested_role")
    elif requested_role is not None:
        raise ToolFailure(INVALID_ARGUMENT, f"a {kind} approval takes no requested_role")
    hardware = line = None
    if kind == "software_licence":
        get_or_fail(db, Software, software_id, "software")
    elif kind == "hardware_budget":
        hardware = get_or_fail(db, HardwareRequest, hardware_request_id, "hardware request")
        if hardware.employee_id != employee_id:
            raise ToolFailure(INVALID_ARGUMENT, f"hardware request {hardware.id} is not {employee.name}'s")
        if hardware.status != "submitted":
            raise ToolFailure(PRECONDITION_FAILED, f"hardware request {hardware.id} is {hardware.status}")
    elif kind == "expense_override":
        assert expense_line_id is not None  # checked above: an expense_override approval needs expense_line_id
        line = _requested_line(db, expense_line_id)
        if line.report.employee_id != employee_id:
            raise ToolFailure(INVALID_ARGUMENT, f"expense line {line.id} is not on one of {employee.name}'s reports")
    duplicate = db.scalars(
        select(ApprovalRequest).where(
            ApprovalRequest.kind == kind,
            ApprovalRequest.employee_id == employee_id,
            ApprovalRequest.status == "pending",
            getattr(ApprovalRequest, needed) == given[needed],
        )
    ).first()
    if duplicate is not None:
        raise ToolFailure(CONFLICT, f"approval request {duplicate.id} for the same thing is already pending")
    approval = ApprovalRequest(
        id=next_id(db, ApprovalRequest, "APR-"),
        kind=kind,
        employee_id=employee_id,
        approver_id=approver_id,
        status="pending",
        ticket_id=ticket_id,
        requested_role=requested_role,
        created_at=NOW,
        note=note.strip() if note else None,
        **given,
    )
    db.add(approval)
    if hardware is not None:
        hardware.status = "awaiting_approval"
    if line is not None:
        line.override_status = "awaiting_manager"
    ticket.updated_at = NOW
    db.flush()
    return {**row_dict(approval), "approver_name": approver.name}


@tools.write
def request_hardware(db: Session, employee_id: str, model_id: str, reason: str) -> dict:
    """Raise a hardware request for an employee for one catalogue model at its catalogue price, with the business
    reason. Procurement orders it once it is submitted; route it for approval first when the policy says so.
    Returns the request."""
    employee = _current(db, employee_id)
    model = get_or_fail(db, HardwareModel, model_id, "hardware model")
    if not model.orderable:
        raise ToolFailure(PRECONDITION_FAILED, f"{model.name} can no longer be ordered")
    if not reason.strip():
        raise ToolFailure(INVALID_ARGUMENT, "give the business reason for the request")
    open_request = db.scalars(
        select(HardwareRequest).where(
            HardwareRequest.employee_id == employee_id,
            HardwareRequest.model_id == model_id,
            HardwareRequest.status.in_(_OPEN_HARDWARE),
        )
    ).first()
    if open_request is not None:
        raise ToolFailure(CONFLICT, f"{employee.name} already has an open request for {model.name} ({open_request.id})")
    request = HardwareRequest(
        id=next_id(db, HardwareRequest, "HR-"),
        employee_id=employee_id,
        model_id=model_id,
        price_cents=model.price_cents,
        status="submitted",
        requested_on=TODAY,
        reason=reason.strip(),
    )
    db.add(request)
    db.flush()
    return {**row_dict(request), "model_name": model.name}


@tools.write
def record_hardware_return(db: Session, request_id: str) -> dict:
    """Record that the item of a delivered hardware request is being handed back to IT (the request becomes
    returned, dated today). Only a delivered item can be returned. Returns the request."""
    request = get_or_fail(db, HardwareRequest, request_id, "hardware request")
    if request.status != "delivered":
        raise ToolFailure(PRECONDITION_FAILED, f"hardware request {request_id} is {request.status}, not delivered")
    request.status = "returned"
    request.returned_on = TODAY
    return {**row_dict(request), "model_name": request.model.name}


# --------------------------------------------------------------------------- writes: expenses


@tools.write
def approve_expense_override(db: Session, line_id: str) -> dict:
    """Approve a requested override on an expense line that is over its policy limit: the whole amount becomes
    reimbursable. Returns the line."""
    line = _requested_line(db, line_id)
    if line.amount_cents <= line.limit_cents:
        raise ToolFailure(PRECONDITION_FAILED, f"expense line {line_id} is within its limit; no override is needed")
    line.override_status = "approved"
    line.reimbursable_cents = line.amount_cents
    return _line_view(line)


@tools.write
def reject_expense_override(db: Session, line_id: str, reason: OverrideRejection) -> dict:
    """Refuse a requested override on an expense line, with the reason (receipt_not_itemised, late_submission,
    within_limit): only the amount up to the policy limit stays reimbursable. Returns the line."""
    line = _requested_line(db, line_id)
    line.override_status = "rejected"
    line.override_rejection = reason
    line.reimbursable_cents = min(line.amount_cents, line.limit_cents)
    return _line_view(line)


# --------------------------------------------------------------------------- shared: identity, tickets, policy

register_identity(tools, Employee, "employee")
# The ticket classification the policy decides (see "Ticket status, priority, classification and comments").
TICKET_CATEGORIES = (
    "client_access",
    "folder_access",
    "system_access",
    "software_licence",
    "hardware",
    "expense_override",
    "joiner",
    "leaver",
    "roll_off",
)
TICKET_REASONS = (
    "not_authorised",
    "not_eligible",
    "not_staffed",
    "assignment_ended",
    "outside_window",
    "not_needed",
    "awaiting_employee",
    "needs_approval",
    "screening_required",
    "no_free_seat",
    "awaiting_date",
    "date_unconfirmed",
    "security_review",
)
TICKET_QUEUES = (
    "screening",
    "licensing",
    "onboarding",
    "offboarding",
    "people",
    "it_security",
)
register_ticket_tools(
    tools,
    Ticket,
    TicketComment,
    requester=Employee,
    now=NOW,
    requester_label="employee",
    categories=TICKET_CATEGORIES,
    reasons=TICKET_REASONS,
    queues=TICKET_QUEUES,
    link=("subject_employee_id", Employee, "employee"),
)
register_policy_search(tools, POLICY_PATH, '"client environment NDA", "licence pool full", "expense override"')
