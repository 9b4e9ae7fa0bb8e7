"""Golden-path building blocks the consulting tasks share.

A task's golden calls read as its decision: `identify` for what every
conversation starts with (find the requester by email, look for their ticket),
the reads a kind of request needs (`client_gates`, `hardware_reads`,
`kit_reads`, `leaver_reads`), the calls of the decision itself (`grant_access`, the
approval requests, `offboard`, `expire_on`, `revoke_ended` ...), then how the
ticket ends (`solved`, `refused`, `pending`, `hold`, `late_offboarding`).
`new_ticket` opens a ticket when the requester has none; `ticket_end` reads how it
ended, for a task's asserts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domains.shared.calls import internal_note, solved, ticket_update
from pytest_thinkingbox import Call, Run, call

from .models import AccessGrant, Employee, ExpenseLine, ExpenseReport, HardwareRequest, LicenceSeat, Ticket
from .seed import STANDARD_LAPTOP

# CO-16: the team a held ticket goes to, by the reason it waits; a date still to come goes to onboarding for a
# joiner and to offboarding for a leaver. Restated from the policy rather than taken from the rules, so that the
# golden path does not lean on the rules it is checked against.
QUEUES = {
    "screening_required": "screening",
    "no_free_seat": "licensing",
    "date_unconfirmed": "people",
    "security_review": "it_security",
}
DATE_QUEUES = {"joiner": "onboarding", "leaver": "offboarding"}


# --- Opening: identify the requester, find the ticket, read the records ------------------------------------------


def identify(requester: Employee) -> list[Call]:
    """Find the requester by the email they give (CO-2), then look for their ticket (CO-3)."""
    return [
        call("find_employee_by_email", email=requester.email),
        call("list_tickets", requester_id=requester.id),
    ]


def reads_of(employee: Employee, *tools: str) -> list[Call]:
    """Each read tool, in order, called for `employee` (by its `employee_id`)."""
    return [call(tool, employee_id=employee.id) for tool in tools]


def client_gates(employee: Employee, resource_id: str) -> list[Call]:
    """Read a client resource and what decides it for `employee` (Client environments, Document folders): their
    assignments, and their NDAs and background check."""
    return [
        call("get_resource", resource_id=resource_id),
        *reads_of(employee, "list_assignments", "get_compliance_status"),
    ]


def hardware_reads(employee: Employee) -> list[Call]:
    """Read the catalogue and what `employee` already asked for this year (Hardware requests and grade budgets)."""
    return [call("list_hardware_catalogue"), *reads_of(employee, "list_hardware_requests")]


def kit_reads(joiner: Employee) -> list[Call]:
    """The look-ups of a starter kit: the joiner's profile, grants and seats, the resource and software catalogues
    (for the kit's ids and free seats) and the joiner's hardware requests."""
    return [
        *reads_of(joiner, "get_employee", "list_access_grants", "list_licence_seats"),
        call("list_resources"),
        call("list_software"),
        *reads_of(joiner, "list_hardware_requests"),
    ]


def leaver_reads(leaver: Employee, hardware: bool = False) -> list[Call]:
    """The look-ups of an offboarding: the leaver's profile (the last day), grants and seats, and their hardware
    requests when there is kit to hand back."""
    kit = ("list_hardware_requests",) if hardware else ()
    return reads_of(leaver, "get_employee", "list_access_grants", "list_licence_seats", *kit)


def assignments_and_grants(employee: Employee) -> list[Call]:
    """What a roll-off or an ended engagement turns on: `employee`'s assignments (running or ended) and grants."""
    return reads_of(employee, "list_assignments", "list_access_grants")


def held_and_asked(employee: Employee) -> list[Call]:
    """What `employee` holds and has asked for already, before a grant or an approval request: their grants and
    their approval requests (a role is not asked twice; a grant held stays while an upgrade waits)."""
    return reads_of(employee, "list_access_grants", "list_approval_requests")


def line_manager_reads(employee: Employee) -> list[Call]:
    """Before routing to the line manager: the employee's profile (who the manager is) and their approval requests."""
    return reads_of(employee, "get_employee", "list_approval_requests")


# --- The decision -----------------------------------------------------------------------------------------------


def grant_access(
    employee: Employee, resource_id: str, role: str = "viewer", expires_on: Any = None, engagement_id: Any = None
) -> Call:
    """Grant `role` on a resource (Access roles and expiry): with the last day of access and, for a client
    resource, the engagement of the assignment it is for, when the policy sets them."""
    fields = _given(expires_on=expires_on, engagement_id=engagement_id)
    return call("grant_access", employee_id=employee.id, resource_id=resource_id, role=role, **fields)


def kit_access(joiner: Employee, *resource_ids: str) -> list[Call]:
    """Viewer on the kit's systems and folders the joiner does not hold yet (Joiners)."""
    return [grant_access(joiner, resource_id) for resource_id in resource_ids]


def assign_licences(employee: Employee, *software_ids: str) -> list[Call]:
    """A free seat of each software, one after the other."""
    return [call("assign_licence", software_id=software_id, employee_id=employee.id) for software_id in software_ids]


def pool_reads(software_id: str) -> list[Call]:
    """Read a software title (its approval route, grades and seats) and the seats of its pool."""
    return [call("get_software", software_id=software_id), call("list_licence_seats", software_id=software_id)]


def pool_seat(employee: Employee, software_id: str) -> list[Call]:
    """A seat of a title that needs no approval: read the title and the seats `employee` holds, then assign one."""
    return [
        call("get_software", software_id=software_id),
        call("list_licence_seats", employee_id=employee.id),
        *assign_licences(employee, software_id),
    ]


def reclaim_seat(employee: Employee, software_id: str, idle: LicenceSeat) -> list[Call]:
    """A full pool's seat idle longest (60 days or more) released and given to `employee` (Licence pools)."""
    return [
        *pool_reads(software_id),
        call("release_licence", seat_id=idle.id),
        *assign_licences(employee, software_id),
    ]


def request_hardware(employee: Employee, model_id: str, reason: str) -> Call:
    """Raise a hardware request for `employee` (it is submitted, or awaits approval once one is asked)."""
    return call("request_hardware", employee_id=employee.id, model_id=model_id, reason=reason)


def starter_laptop(joiner: Employee, reason: str = "Starter laptop for a new joiner.") -> Call:
    """The kit's standard laptop, when the joiner has no laptop given or on its way (Joiners)."""
    return request_hardware(joiner, STANDARD_LAPTOP, reason)


def _approval(ticket_id: str, kind: str, employee: Employee, approver_id: str, **about: str) -> Call:
    """Raise an approval request of `kind` from the ticket, for `employee`, to `approver_id`; `about` names what it
    is for (the resource and role, the software, the hardware request or the expense line)."""
    return call(
        "create_approval_request",
        ticket_id=ticket_id,
        kind=kind,
        employee_id=employee.id,
        approver_id=approver_id,
        **about,
    )


def access_approval(
    ticket_id: str, kind: str, employee: Employee, approver_id: str, resource_id: str, role: str
) -> Call:
    """Ask the approver the policy names for `role` on a resource (Approval requests and routing)."""
    return _approval(ticket_id, kind, employee, approver_id, resource_id=resource_id, requested_role=role)


def licence_approval(ticket_id: str, employee: Employee, approver_id: str, software_id: str) -> Call:
    """Ask the approver a software's route names for a seat (Software licences: eligibility and approval)."""
    return _approval(ticket_id, "software_licence", employee, approver_id, software_id=software_id)


def budget_approval(ticket_id: str, employee: Employee, approver_id: str, hardware_request_id: str) -> Call:
    """Ask the line manager to approve a hardware request above the year's grade budget."""
    return _approval(ticket_id, "hardware_budget", employee, approver_id, hardware_request_id=hardware_request_id)


def override_approval(ticket_id: str, employee: Employee, approver_id: str, line: ExpenseLine) -> Call:
    """Ask the line manager to approve an expense override above the desk limit (Expense overrides)."""
    return _approval(ticket_id, "expense_override", employee, approver_id, expense_line_id=line.id)


def decide_override(report: ExpenseReport, line: ExpenseLine, rejection: str | None = None) -> list[Call]:
    """Read the expense report, then decide the override asked on `line` (Expense overrides): approved, or rejected
    for `rejection`."""
    decision = (
        call("reject_expense_override", line_id=line.id, reason=rejection)
        if rejection
        else call("approve_expense_override", line_id=line.id)
    )
    return [call("get_expense_report", report_id=report.id), decision]


def offboard(
    grants: Iterable[AccessGrant], seats: Iterable[LicenceSeat] = (), hardware: Iterable[HardwareRequest] = ()
) -> list[Call]:
    """What a leaver's last day ends (Leavers): each active grant revoked as `leaver`, each active seat released,
    each delivered item logged as returned."""
    return [
        *(call("revoke_access", grant_id=g.id, reason="leaver") for g in grants),
        *(call("release_licence", seat_id=seat.id) for seat in seats),
        *(call("record_hardware_return", request_id=item.id) for item in hardware),
    ]


def revoke_ended(*grants: AccessGrant) -> list[Call]:
    """Revoke client grants whose assignment has ended (Ended engagements and roll-offs)."""
    return [call("revoke_access", grant_id=g.id, reason="assignment_ended") for g in grants]


def expire_on(day: str, *grants: AccessGrant) -> list[Call]:
    """Set `day` as the last day of access of each grant: a leaver's last day to come, or the end of the assignment
    a roll-off closes."""
    return [call("set_access_expiry", grant_id=g.id, expires_on=day) for g in grants]


# --- How the ticket ends ----------------------------------------------------------------------------------------


def new_ticket(requester: Employee, subject: str, category: str, about: Employee | None = None) -> Call:
    """Open the conversation's ticket when the requester has no `new` or `open` one (CO-3), linked to the employee
    the request is about: the requester unless another is given (CO-15)."""
    return call(
        "create_ticket",
        requester_id=requester.id,
        subject=subject,
        category=category,
        subject_employee_id=(about or requester).id,
    )


def _given(**fields: Any) -> dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


# `solved` (CO-12, CO-14) and `internal_note` (CO-18) are domains/shared/calls.py's.


def refused(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket solved with the reason a request was refused for (CO-16), and one internal comment saying which
    rule refused it (CO-18)."""
    return [solved(ticket_id, category, reason), internal_note(ticket_id, note)]


def pending(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket pending, waiting for the employee or an approver (CO-12), with one internal comment saying for
    what (CO-18); no category when the ticket was created with it."""
    return [ticket_update(ticket_id, "pending", category=category, reason=reason), internal_note(ticket_id, note)]


def hold(ticket_id: str, category: str | None, reason: str, note: str) -> list[Call]:
    """The ticket on hold for the team its reason goes to (CO-12, CO-16), with one internal comment saying what we
    wait for (CO-18); no category when the ticket was created with it."""
    queue = DATE_QUEUES[str(category)] if reason == "awaiting_date" else QUEUES[reason]
    held = ticket_update(ticket_id, "hold", category=category, reason=reason, queue=queue)
    return [held, internal_note(ticket_id, note)]


def late_offboarding(ticket_id: str, category: str | None, note: str) -> list[Call]:
    """An offboarding done after the last day (Leavers): on hold for IT security's review, priority urgent (CO-13),
    with one internal comment."""
    fields = {"category": category, "reason": "security_review", "queue": QUEUES["security_review"]}
    return [ticket_update(ticket_id, "hold", priority="urgent", **fields), internal_note(ticket_id, note)]


# --- What a task asserts --------------------------------------------------------------------------------------------


def ticket_end(run: Run, ticket_id: str, *also: str) -> tuple[Any, ...]:
    """How the ticket ended: its status, category and reason, then the `also` fields named (such as "queue")."""
    ticket = run.db.get(Ticket, ticket_id)
    assert ticket is not None, f"no ticket {ticket_id}"
    return tuple(getattr(ticket, field) for field in ("status", "category", "reason", *also))
