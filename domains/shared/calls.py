"""Golden-path building blocks that every domain's ``calls.py`` writes alike.

How a ticket ends is the same few calls in every domain: `ticket_update` (the
fields that are set, in the order given), `solved`, and the `internal_note` a
refusal or a wait carries. Each domain builds its own `pending` and `hold` on
them, since only it knows the team each of its reasons goes to. `verified`
identifies the caller where the policy verifies them
(`register_identity(verify=True)`), and `new_id` is the id a create tool gives
a new row.
"""

from __future__ import annotations

from typing import Any

from pytest_thinkingbox import Call, call


def verified(customer: Any, date_of_birth: str | None = None, postal_code: str | None = None) -> list[Call]:
    """Find the calling customer by email, then verify them with the date of birth and postal code they give: their own,
    unless others are given for a caller who fails verification."""
    return [
        call("find_customer_by_email", email=customer.email),
        call(
            "verify_identity",
            email=customer.email,
            date_of_birth=date_of_birth or customer.date_of_birth.isoformat(),
            postal_code=postal_code or customer.postal_code,
        ),
    ]


def ticket_update(ticket_id: str, status: str, **fields: str | None) -> Call:
    """`update_ticket` to `status` with the `fields` that are set, in the order given; None leaves a field out (a
    ticket created with its category is not given it again)."""
    given = {name: value for name, value in fields.items() if value is not None}
    return call("update_ticket", ticket_id=ticket_id, status=status, **given)


def solved(ticket_id: str, category: str | None = None, reason: str | None = None) -> Call:
    """The ticket solved: the request was handled, or refused for `reason`; the category unless the ticket was
    created with it."""
    return ticket_update(ticket_id, "solved", category=category, reason=reason)


def internal_note(ticket_id: str, body: str) -> Call:
    """An internal comment (`public` false) on the ticket: what was refused, or what the ticket waits for."""
    return call("add_ticket_comment", ticket_id=ticket_id, body=body, public=False)


def new_id(prefix: str, *existing: Any, digits: int = 4) -> str:
    """The id a create tool gives a new row when `existing` (rows, or their ids) are all its table holds: the
    highest number after `prefix` plus one, zero-padded to `digits`."""
    numbers = [int((row if isinstance(row, str) else row.id).removeprefix(prefix)) for row in existing]
    return f"{prefix}{max(numbers, default=0) + 1:0{digits}d}"
