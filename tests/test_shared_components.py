"""The components bundled domains share (domains/shared): tickets, identity and policy search over MCP."""

from __future__ import annotations

import asyncio
import json
from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from domains.shared.clock import Clock
from domains.shared.identity import register_identity
from domains.shared.policy_search import policy_sections, register_policy_search, search
from domains.shared.tickets import CommentColumns, TicketColumns, register_ticket_tools
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.core.tools import ToolSession, ToolSet

CLOCK = Clock(datetime(2026, 4, 1, 9, 30))
POLICY = """# Policy

## Refunds
Refunds go back to the original payment method within 30 days.

## Identity checks
Verify the member with their date of birth and postal code before any change.

## Refund limits
A refund above 500.00 needs a supervisor.
"""


class Base(DeclarativeBase):
    pass


class Member(Base):
    __tablename__ = "members"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    email: Mapped[str] = mapped_column(String(200))
    date_of_birth: Mapped[date] = mapped_column(Date)
    postal_code: Mapped[str] = mapped_column(String(16))


class Ticket(TicketColumns, Base):
    __tablename__ = "tickets"
    requester_id: Mapped[str] = mapped_column(ForeignKey("members.id"))
    other_member_id: Mapped[str | None] = mapped_column(ForeignKey("members.id"), nullable=True)


class TicketComment(CommentColumns, Base):
    __tablename__ = "ticket_comments"
    ticket_id: Mapped[str] = mapped_column(ForeignKey("tickets.id"))


def _seed(db):
    db.add(Member(id="M-1", email="ana@example.com", date_of_birth=date(1990, 5, 17), postal_code="97214"))
    db.add(Ticket(id="T-1", requester_id="M-1", subject="Hello", created_at=CLOCK.days_ago(2), updated_at=CLOCK.now))
    db.add(
        Ticket(
            id="T-2",
            requester_id="M-1",
            subject="Old",
            status="closed",
            created_at=CLOCK.days_ago(9),
            updated_at=CLOCK.days_ago(9),
        )
    )


def _tools(tmp_path):
    policy = tmp_path / "policy.md"
    policy.write_text(POLICY, encoding="utf-8")
    tools = ToolSet("shared-test")
    register_identity(tools, Member, "member", verify=True)
    register_ticket_tools(
        tools,
        Ticket,
        TicketComment,
        requester=Member,
        now=CLOCK.now,
        requester_label="member",
        categories=("billing", "access"),
        reasons=("not_eligible", "over_limit"),
        queues=("finance",),
        link=("other_member_id", Member, "member"),
    )
    register_policy_search(tools, policy, '"refund limit"')
    return tools


def _calls(tmp_path, *calls):
    sqlite = SQLiteBackend()
    db = sqlite.restore(sqlite.build_image(Base.metadata, _seed))

    async def go():
        async with ToolSession(_tools(tmp_path), db) as session:
            return [await session.call(name, args) for name, args in calls]

    results = asyncio.run(go())
    return db, [json.loads(r.text) if r.ok else r.error for r in results]


def test_clock_helpers_count_whole_days_from_the_fixed_moment():
    assert CLOCK.today == date(2026, 4, 1)
    assert CLOCK.days_ago(3, hour=8) == datetime(2026, 3, 29, 8)
    assert CLOCK.in_days(1) == datetime(2026, 4, 2, 10)


def test_identity_look_up_hides_the_verification_details(tmp_path):
    _, [found, missing, good, wrong_code, bad_date] = _calls(
        tmp_path,
        ("find_member_by_email", {"email": " ANA@example.com"}),
        ("find_member_by_email", {"email": "nobody@example.com"}),
        ("verify_identity", {"email": "ana@example.com", "date_of_birth": "1990-05-17", "postal_code": "97214"}),
        ("verify_identity", {"email": "ana@example.com", "date_of_birth": "1990-05-17", "postal_code": "97215"}),
        ("verify_identity", {"email": "ana@example.com", "date_of_birth": "17/05/1990", "postal_code": "97214"}),
    )
    assert found == {"id": "M-1", "email": "ana@example.com"}
    assert missing == "NOT_FOUND"
    assert good == {"verified": True, "member_id": "M-1"}
    assert wrong_code["verified"] is False
    assert "97214" not in json.dumps(wrong_code)
    assert bad_date == "INVALID_ARGUMENT"


def test_ticket_tools_write_with_the_domain_clock_and_refuse_closed_tickets(tmp_path):
    db, results = _calls(
        tmp_path,
        ("update_ticket", {"ticket_id": "T-1", "status": "hold", "priority": "high"}),
        ("add_ticket_comment", {"ticket_id": "T-1", "body": "  waiting for the carrier  "}),
        ("update_ticket", {"ticket_id": "T-1"}),
        ("update_ticket", {"ticket_id": "T-1", "status": "closed"}),
        ("add_ticket_comment", {"ticket_id": "T-2", "body": "reopen?"}),
        ("create_ticket", {"requester_id": "M-1", "subject": "New question", "category": "billing"}),
        ("create_ticket", {"requester_id": "M-9", "subject": "Nobody", "category": "billing"}),
        ("list_tickets", {"requester_id": "M-1"}),
        ("get_ticket", {"ticket_id": "T-1"}),
    )
    held, comment, empty, closed, on_closed, created, unknown, listed, full = results
    assert (held["status"], held["priority"]) == ("hold", "high")
    assert comment["id"] == "TC-0001"
    assert comment["body"] == "waiting for the carrier"
    assert comment["public"] is False
    assert [empty, closed, on_closed, unknown] == [
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "PRECONDITION_FAILED",
        "NOT_FOUND",
    ]
    assert created["id"] == "T-0003"
    assert created["created_at"] == CLOCK.now.isoformat()
    assert [t["id"] for t in listed] == ["T-0003", "T-1", "T-2"]
    assert listed[1]["comment_count"] == 1
    assert [c["id"] for c in full["comments"]] == ["TC-0001"]
    assert db.get(Ticket, "T-1").updated_at == CLOCK.now


def test_ticket_classification_takes_only_the_domain_values(tmp_path):
    db, results = _calls(
        tmp_path,
        ("update_ticket", {"ticket_id": "T-1", "status": "hold", "reason": "over_limit", "queue": "finance"}),
        ("update_ticket", {"ticket_id": "T-1", "category": "shipping"}),
        ("update_ticket", {"ticket_id": "T-1", "queue": "legal"}),
        (
            "create_ticket",
            {"requester_id": "M-1", "subject": "Refund", "category": "billing", "other_member_id": "M-1"},
        ),
        ("create_ticket", {"requester_id": "M-1", "subject": "No category"}),
        (
            "create_ticket",
            {"requester_id": "M-1", "subject": "Dangling", "category": "access", "other_member_id": "M-9"},
        ),
    )
    held, bad_category, bad_queue, created, no_category, dangling = results
    assert (held["status"], held["reason"], held["queue"], held["category"]) == ("hold", "over_limit", "finance", None)
    assert [bad_category, bad_queue, no_category, dangling] == ["INVALID_ARGUMENT"] * 3 + ["NOT_FOUND"]
    row = db.get(Ticket, created["id"])
    assert (row.category, row.other_member_id, row.reason) == ("billing", "M-1", None)


def test_policy_search_ranks_title_hits_first_and_rejects_empty_queries(tmp_path):
    sections = policy_sections(POLICY)
    assert [title for title, _ in sections] == ["Refunds", "Identity checks", "Refund limits"]
    assert [title for title, _ in search(sections, "refund limit supervisor")] == ["Refund limits", "Refunds"]
    _, [found, empty] = _calls(
        tmp_path, ("search_policy", {"query": "date of birth"}), ("search_policy", {"query": "the a"})
    )
    assert found["results"][0]["title"] == "Identity checks"
    assert len(found["all_articles"]) == 3
    assert empty == "INVALID_ARGUMENT"
