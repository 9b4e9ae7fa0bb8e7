"""MCP tool plumbing: results, stable error codes, crashes that do not end the run."""

from __future__ import annotations

import asyncio
import json
import logging

import toydomain
from sqlalchemy import create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from pytest_thinkingbox import next_id, rows_where
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.core.tools import ToolSession


def _fresh():
    sqlite = SQLiteBackend()
    return sqlite.restore(sqlite.build_image(toydomain.Base.metadata, toydomain.seed))


def _calls(*calls):
    db = _fresh()

    async def go():
        async with ToolSession(toydomain.tools, db) as session:
            return session.specs, [await session.call(name, args) for name, args in calls]

    return db, *asyncio.run(go())


def test_schemas_hide_the_session_parameter_and_mark_read_only_tools():
    _, specs, _ = _calls()
    by_name = {s.name: s for s in specs}
    assert set(by_name["issue_refund"].input_schema["properties"]) == {"account_id", "amount_cents"}
    assert by_name["get_account"].read_only
    assert not by_name["issue_refund"].read_only
    assert "Refund an amount" in by_name["issue_refund"].description


def test_successful_calls_write_to_the_bound_database():
    db, _, [result] = _calls(("issue_refund", {"account_id": "A-0", "amount_cents": 250}))
    assert result.ok
    assert json.loads(result.text)["id"] == "RF-0001"
    assert db.get(toydomain.Account, "A-0").balance_cents == 250


def test_failures_come_back_as_error_results_with_stable_codes():
    _, _, results = _calls(
        ("get_account", {"account_id": "nope"}),
        ("issue_refund", {"account_id": "A-0", "amount_cents": -5}),
        ("issue_refund", {"account_id": "A-0", "amount_cents": "many"}),
        ("issue_refund", {"account_id": "A-0"}),
        ("no_such_tool", {}),
        ("get_account", ["A-0"]),
        ("get_account", {"account_id": "A-0"}),
    )
    codes = [r.error for r in results]
    assert codes == [
        "NOT_FOUND",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "UNKNOWN_TOOL",
        "INVALID_ARGUMENT",
        None,
    ]
    payload = json.loads(results[0].text)["error"]
    assert payload == {"code": "NOT_FOUND", "message": "no account with id 'nope'"}
    assert "amount_cents" in json.loads(results[2].text)["error"]["message"]
    assert "get_account" in json.loads(results[4].text)["error"]["message"]


def test_a_crash_in_a_tool_is_an_error_result_logged_with_its_cause(caplog):
    with caplog.at_level(logging.ERROR):
        _db, _, [crash, after] = _calls(("explode", {}), ("issue_refund", {"account_id": "A-0", "amount_cents": 1}))
    assert crash.error == "INTERNAL"
    assert after.ok
    assert any("bug in the tool" in (r.exc_text or "") or "bug in the tool" in str(r.exc_info) for r in caplog.records)


def test_the_harness_path_gives_what_a_session_gives(caplog):
    """`ToolSet.apply` (the golden replay's calls) skips the client session, not the server's handling."""
    import datetime as dt

    from pytest_thinkingbox.core.tools import ToolSet

    tools = ToolSet("toy-and-notes")
    for fn, read_only in toydomain.tools._functions.values():
        (tools.read if read_only else tools.write)(fn)

    @tools.read
    def echo(db, text: str) -> dict:
        return {"text": text}

    calls = [
        ("issue_refund", {"account_id": "A-0", "amount_cents": 250}),
        ("get_account", {"account_id": "nope"}),
        ("issue_refund", {"account_id": "A-0", "amount_cents": "many"}),
        ("issue_refund", {"account_id": "A-0"}),
        ("issue_refund", {"account_id": "A-0", "amount_cents": 5, "memo": "x"}),
        ("no_such_tool", {}),
        ("get_account", ["A-0"]),
        ("update_ticket", {"ticket_id": "T-1", "status": "closed"}),
        ("explode", {}),
        ("echo", {"text": dt.date(2026, 1, 2)}),  # sent in its JSON form, as an agent's would be
        ("get_account", {"account_id": "A-0"}),
    ]
    over_session, direct = _fresh(), _fresh()

    async def go():
        async with ToolSession(tools, over_session) as session:
            sent = [await session.call(name, args) for name, args in calls]
        return sent, [await tools.apply(direct, name, args) for name, args in calls]

    with caplog.at_level(logging.ERROR):
        sent, applied = asyncio.run(go())
    assert applied == sent
    assert [r.error for r in applied][-3:] == ["INTERNAL", None, None]
    assert json.loads(applied[-2].text) == {"text": "2026-01-02"}
    assert direct.get(toydomain.Account, "A-0").balance_cents == 250


def test_failed_calls_leave_no_partial_writes():
    db, _, [failed] = _calls(("issue_refund", {"account_id": "A-0", "amount_cents": 0}))
    assert failed.error == "INVALID_ARGUMENT"
    assert db.query(toydomain.Refund).count() == 0


def test_next_id_comes_from_the_rows_present():
    db = _fresh()
    assert next_id(db, toydomain.Refund, "RF-") == "RF-0001"
    db.add(toydomain.Refund(id="RF-0007", account_id="A-0", amount_cents=1, created_at=toydomain.NOW))
    db.flush()
    assert next_id(db, toydomain.Refund, "RF-") == "RF-0008"


def test_rows_where_reads_the_rows_of_one_value_in_key_order():
    db = _fresh()
    for id_, account in [("RF-0003", "A-0"), ("RF-0001", "A-0"), ("RF-0002", "A-9")]:
        db.add(toydomain.Refund(id=id_, account_id=account, amount_cents=1, created_at=toydomain.NOW))
    db.flush()
    assert [r.id for r in rows_where(db, toydomain.Refund.account_id, "A-0")] == ["RF-0001", "RF-0003"]
    assert rows_where(db, toydomain.Refund.account_id, "A-404") == []


def test_rows_where_with_none_reads_the_rows_where_the_column_is_null():
    """As ``column == None`` does in an expression: SQL's ``= NULL`` would match no row at all."""

    class Base(DeclarativeBase):
        pass

    class Note(Base):
        __tablename__ = "notes"
        id: Mapped[int] = mapped_column(primary_key=True)
        topic: Mapped[str | None]

    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as db:
        db.add_all([Note(id=2, topic=None), Note(id=1, topic="x"), Note(id=3, topic=None)])
        db.flush()
        assert [n.id for n in rows_where(db, Note.topic, None)] == [2, 3]
        assert [n.id for n in rows_where(db, Note.topic, "x")] == [1]


def test_sessions_after_the_first_do_not_list_the_tools_again(monkeypatch):
    """Every session sends its calls over MCP, but only the first in a process asks the server for the schemas."""
    server = toydomain.tools.server
    listed = []
    real_list_tools = server.list_tools

    async def counting_list_tools(*args, **kwargs):
        listed.append(1)
        return await real_list_tools(*args, **kwargs)

    monkeypatch.setattr(server, "list_tools", counting_list_tools)  # a spy: the real listing still answers
    monkeypatch.setattr(toydomain.tools, "specs", None)  # as in a fresh process
    first = _calls(("get_account", {"account_id": "A-0"}), ("issue_refund", {"account_id": "A-0", "amount_cents": 5}))
    later = [_calls(("issue_refund", {"account_id": "A-0", "amount_cents": 5})) for _ in range(3)]
    assert all(result.ok for _, _, results in [first, *later] for result in results)
    assert len(listed) == 1  # the first session's schemas, kept on the ToolSet
    assert [s.name for s in later[-1][1]] == [s.name for s in first[1]]


def test_time_inside_tool_functions_is_counted_on_the_session():
    """An attempt's `tools_s`: the domain's own work, told apart from the MCP round trip around it."""
    import time

    from pytest_thinkingbox.core.tools import ToolSet, tool_seconds

    slow = ToolSet("slow")

    @slow.read
    def get_account(db, account_id: str) -> dict:
        time.sleep(0.05)
        return toydomain.get_account(db, account_id)

    db = _fresh()

    async def go():
        async with ToolSession(slow, db) as session:
            return [await session.call("get_account", {"account_id": "A-0"}), await session.call("no_such_tool", {})]

    started = time.perf_counter()
    results = asyncio.run(go())
    elapsed = time.perf_counter() - started
    assert [r.ok for r in results] == [True, False]
    assert 0.05 <= tool_seconds(db) < elapsed  # the sleep is counted; an unknown tool never reaches a body
    assert tool_seconds(_fresh()) == 0.0
