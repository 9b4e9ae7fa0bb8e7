"""What every domain's rules read the same way: the tickets a conversation worked, their comments, calendar days.

Each domain's ``rules.py`` declares its policy's rules (`pytest_thinkingbox.Rules`);
these helpers read an attempt's `Evidence` for the parts every domain shares
(the ticket tables of `domains/shared/tickets.py`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pytest_thinkingbox import Evidence
from pytest_thinkingbox.core.rules import RuleRow

TICKETS, COMMENTS = "tickets", "ticket_comments"
TICKET_TABLES = (TICKETS, COMMENTS)


def worked_tickets(ev: Evidence) -> list[tuple[RuleRow | None, RuleRow]]:
    """(before, after) of each ticket the conversation created (before is None) or changed, by id."""
    worked: list[tuple[RuleRow | None, RuleRow]] = ev.memo(
        ("worked tickets",), lambda: [(was, now) for was, now in ev.changed_rows(TICKETS) if now is not None]
    )
    return worked


def comments_added(ev: Evidence, ticket_id: str) -> list[RuleRow]:
    """The comments the conversation added to one ticket."""
    by_ticket: dict[str, list[RuleRow]] = ev.memo(("comments by ticket",), lambda: _by_ticket(ev.added(COMMENTS)))
    return by_ticket.get(ticket_id, [])


def internal_notes(ev: Evidence, ticket_id: str) -> list[RuleRow]:
    """The internal (not public) comments the conversation added to one ticket."""
    return [c for c in comments_added(ev, ticket_id) if not c.public]


def _by_ticket(comments: list[RuleRow]) -> dict[str, list[RuleRow]]:
    out: dict[str, list[RuleRow]] = {}
    for c in comments:
        out.setdefault(str(c.ticket_id), []).append(c)
    return out


def days_between(earlier: dt.date | dt.datetime, later: dt.date | dt.datetime) -> int:
    """Calendar days from `earlier` to `later` (a delivery on the 6th is 10 days before the 16th)."""
    return (_day(later) - _day(earlier)).days


def _day(value: dt.date | dt.datetime) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


def written_tables(ev: Evidence, *ignore: str) -> set[str]:
    """The tables the conversation wrote, leaving out `ignore` (e.g. the ticket tables)."""
    return set(ev.tables_written) - set(ignore)


def called(ev: Evidence, tool: str, **arguments: Any) -> bool:
    """Whether the transcript has a successful call of `tool` with these arguments (a subset of its own)."""
    return any(
        c.tool == tool and c.error is None and all(c.arguments.get(k) == v for k, v in arguments.items())
        for c in ev.tool_calls()
    )
