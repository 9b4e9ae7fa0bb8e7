"""Grading on deltas: the backends' change tracking, against full snapshots, on a large table.

Every scenario writes through the ORM and through raw SQL, then checks that
the partial states built from the tracked rows explain every difference
exactly as full snapshots do, and that hashes follow state equality.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import toydomain
from sqlalchemy import insert, text

from pytest_thinkingbox import next_id
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.core.expectations import explain
from pytest_thinkingbox.core.state import (
    changed,
    compare,
    delta_hash,
    diff,
    followed_by,
    graded_states,
    snapshot,
    state_hash,
    undo,
)

METADATA = toydomain.Base.metadata
VOLATILE = {"tickets": {"note"}}
PADDING = 3_000  # accounts, and as many tickets and refunds, in the image


def _padded_seed(db: Any) -> None:
    toydomain.seed(db)
    db.execute(insert(toydomain.Account), [{"id": f"A-{i:05d}", "owner": f"o{i}"} for i in range(1, PADDING)])
    db.execute(insert(toydomain.Ticket), [{"id": f"T-{i:05d}", "account_id": f"A-{i:05d}"} for i in range(1, PADDING)])
    db.execute(
        insert(toydomain.Refund),
        [
            {"id": f"RF-{i:04d}", "account_id": f"A-{i:05d}", "amount_cents": i, "created_at": toydomain.NOW}
            for i in range(1, PADDING)
        ],
    )


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "sqlite":
        databases: Any = SQLiteBackend()
    else:
        from pytest_thinkingbox.core.backends.postgres import PostgresBackend

        databases = PostgresBackend(request.getfixturevalue("postgres_server"))
    yield databases
    databases.close()


@pytest.fixture
def image(backend: Any) -> Any:
    return backend.build_image(METADATA, _padded_seed)


def _raw(db: Any, sql: str, **params: Any) -> None:
    db.execute(text(sql), params)
    db.commit()


def arrange(db: Any) -> None:
    """The task's rows: one by the ORM, one by raw SQL; one image row changed, one changed and written back."""
    db.add(toydomain.Account(id="B-1", owner="Amara", balance_cents=500))
    db.add(toydomain.Ticket(id="TK-1", account_id="B-1"))
    db.commit()
    _raw(db, "INSERT INTO accounts (id, owner, balance_cents) VALUES ('B-2', 'Ben', 0)")
    _raw(db, "UPDATE accounts SET balance_cents = 7 WHERE id = 'A-00010'")
    _raw(db, "UPDATE accounts SET owner = 'x' WHERE id = 'A-00011'")
    _raw(db, "UPDATE accounts SET owner = 'o11' WHERE id = 'A-00011'")


def golden_calls(db: Any) -> None:
    """Refund B-1, solve its ticket, close an old ticket, remove a refund."""
    db.add(
        toydomain.Refund(
            id=next_id(db, toydomain.Refund, "RF-"), account_id="B-1", amount_cents=200, created_at=toydomain.NOW
        )
    )
    db.get(toydomain.Account, "B-1").balance_cents += 200
    db.get(toydomain.Ticket, "TK-1").status = "solved"
    db.commit()
    _raw(db, "UPDATE tickets SET status = 'closed' WHERE id = 'T-00005'")
    _raw(db, "DELETE FROM refunds WHERE id = 'RF-0003'")


def agent_calls(db: Any) -> None:
    """A careless agent: a wrong amount, the old ticket left open (missing), the wrong refund removed and
    another ticket touched (extra), a row added and one removed (extra), a volatile note, a value written back."""
    db.add(
        toydomain.Refund(
            id=next_id(db, toydomain.Refund, "RF-"), account_id="B-1", amount_cents=250, created_at=toydomain.NOW
        )
    )
    db.get(toydomain.Account, "B-1").balance_cents += 250
    ticket = db.get(toydomain.Ticket, "TK-1")
    ticket.status, ticket.note = "solved", "refunded, sorry"
    db.commit()
    _raw(db, "DELETE FROM refunds WHERE id = 'RF-0004'")
    _raw(db, "UPDATE tickets SET status = 'hold' WHERE id = 'T-00006'")
    _raw(db, "INSERT INTO accounts (id, owner, balance_cents) VALUES ('B-3', 'Eve', 1)")
    _raw(db, "DELETE FROM tickets WHERE id = 'T-00007'")
    _raw(db, "UPDATE accounts SET owner = 'zz' WHERE id = 'A-00012'")
    _raw(db, "UPDATE accounts SET owner = 'o12' WHERE id = 'A-00012'")


def _graded(backend: Any, image: Any, agent: Any) -> dict[str, Any]:
    """One attempt graded both ways: full snapshots, and the tracked rows."""
    db = backend.restore(image)
    try:
        image_state = snapshot(db, METADATA)
        image_hash = state_hash(image_state)
        arrange(db)
        start = snapshot(db, METADATA)
        arranged = backend.take_changes(db)
        scratch = backend.restore(backend.dump(db))
        try:
            golden_calls(scratch)
            golden_full = snapshot(scratch, METADATA)
            by_golden = changed(backend.changes(scratch))
        finally:
            backend.release(scratch)
        agent(db)
        end = snapshot(db, METADATA)
        by_agent = backend.changes(db)
        before, golden_end, after = graded_states(by_agent, by_golden)
        return {
            "full": compare(start, golden_full, end, VOLATILE),
            "delta": compare(before, golden_end, after, VOLATILE),
            "full_effects": diff(start, end),
            "delta_effects": diff(before, after),
            "full_golden_effects": diff(start, golden_full),
            "delta_golden_effects": diff(before, golden_end),
            "start_state": undo(end, by_agent) == start and undo(start, arranged) == image_state,
            "start": delta_hash(image_hash, arranged),
            "end": delta_hash(image_hash, followed_by(arranged, by_agent)),
            "golden": delta_hash(image_hash, followed_by(arranged, by_golden)),
            "rows": sum(len(rows) for rows in (*by_agent.values(), *by_golden.values())),
        }
    finally:
        backend.release(db)


def test_deltas_explain_wrong_missing_and_extra_as_full_snapshots_do(backend, image):
    graded = _graded(backend, image, agent_calls)
    assert graded["rows"] < 20  # what was written, not the 9,000 rows of the image
    assert graded["delta"] == graded["full"]
    assert explain(graded["delta"]) == explain(graded["full"])
    assert graded["delta_effects"] == graded["full_effects"]
    assert graded["delta_golden_effects"] == graded["full_golden_effects"]
    assert graded["start_state"]
    found = {(d.kind, d.table, d.key, d.field) for d in graded["delta"]}
    assert found == {
        ("wrong", "accounts", "B-1", "balance_cents"),  # 500 + 200 expected, 500 + 250 got
        ("wrong", "refunds", "RF-3000", "amount_cents"),  # the new refund, numbered past the image's RF-2999
        ("missing", "tickets", "T-00005", "status"),
        ("missing", "refunds", "RF-0003", None),  # should have been removed
        ("extra", "refunds", "RF-0004", None),  # removed, should have been kept
        ("extra", "tickets", "T-00006", "status"),
        ("extra", "accounts", "B-3", None),  # created by raw SQL
        ("extra", "tickets", "T-00007", None),  # removed by raw SQL
    }
    assert graded["end"] != graded["golden"]


def test_hashes_follow_state_equality_whatever_rows_were_written_on_the_way(backend, image):
    golden = _graded(backend, image, golden_calls)
    assert golden["delta"] == golden["full"] == []

    # The same end state reached with a detour (a value changed and written back) hashes the same.
    def detour_calls(db: Any) -> None:
        _raw(db, "UPDATE accounts SET owner = 'q' WHERE id = 'A-00020'")
        _raw(db, "UPDATE accounts SET owner = 'o20' WHERE id = 'A-00020'")
        golden_calls(db)

    detour = _graded(backend, image, detour_calls)
    assert detour["end"] == golden["end"] == golden["golden"] == detour["golden"]
    assert detour["start"] == golden["start"]
    noop = _graded(backend, image, lambda db: None)
    assert noop["end"] == noop["start"] != noop["golden"]
    assert {d.kind for d in noop["delta"]} == {"missing"}
    assert noop["delta"] == noop["full"]


def test_a_restore_starts_a_new_baseline(backend, image):
    db = backend.restore(image)
    try:
        arrange(db)
        assert set(backend.changes(db)["accounts"]) == {"B-1", "B-2", "A-00010", "A-00011"}
        backend.take_changes(db)
        assert backend.changes(db) == {}
        copy = backend.restore(backend.dump(db))
        assert backend.changes(copy) == {}
        backend.release(copy)
    finally:
        backend.release(db)
    again = backend.restore(image)
    try:
        assert backend.changes(again) == {}
    finally:
        backend.release(again)


def _scanned_next_id(ids: list[str], prefix: str) -> str:
    """What next_id returned before it used the index: the highest number among all ids, by a scan."""
    numbers = [int(m.group(1)) for m in (re.fullmatch(re.escape(prefix) + r"(\d+)", v) for v in ids) if m]
    return f"{prefix}{max(numbers, default=0) + 1:04d}"


@pytest.mark.parametrize(
    "ids",
    [
        [],
        ["RF-0001", "RF-0002", "RF-0100"],
        ["RF-9999", "RF-10000", "RF-0005"],  # the width grows past 9999
        ["RF-00005", "RF-1234", "RF-7"],  # a longer id with leading zeros is not the highest
        ["RF-12a5", "RF-99x", "RF-0042", "RFX-99999", "rf-5000", "RF-", "RF-0041"],  # ids that are not numbered
        ["RF-9"] + [f"RF-{i:06d}" for i in range(1, 80)],  # one short id above a page of longer ones
    ],
)
def test_next_id_is_what_a_scan_of_the_table_gives(backend, image, ids):
    db = backend.restore(image)
    try:
        db.execute(text("DELETE FROM refunds"))
        for i, id_ in enumerate(ids):
            db.add(toydomain.Refund(id=id_, account_id="A-0", amount_cents=i + 1, created_at=toydomain.NOW))
        db.commit()
        assert next_id(db, toydomain.Refund, "RF-") == _scanned_next_id(ids, "RF-")
    finally:
        backend.release(db)


def _spy_on_loads(backend: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The images the backend loads whole from now on (an undo loads none)."""
    loads: list[Any] = []
    load = backend._load

    def spy(session: Any, image: Any) -> Any:
        loads.append(image)
        return load(session, image)

    monkeypatch.setattr(backend, "_load", spy)
    return loads


def test_a_database_given_back_is_restored_exactly_whatever_was_written(backend, image, monkeypatch):
    """Arranged rows, an episode's writes, raw SQL, deletes, uncommitted rows: the next restore is the image again.

    On PostgreSQL the database comes back by undoing the tracked writes, not by
    loading the image in again (which would hide an undo that failed).
    """
    loads = _spy_on_loads(backend, monkeypatch)
    fresh = backend.restore(image)
    expected = snapshot(fresh, METADATA)
    backend.release(fresh)
    for _ in range(2):  # the second round undoes on a database that an undo brought back
        db = backend.restore(image)
        arrange(db)
        backend.take_changes(db)
        agent_calls(db)
        golden_calls(db)
        db.add(toydomain.Account(id="B-9", owner="left uncommitted"))
        db.flush()
        backend.release(db)
        again = backend.restore(image)
        assert snapshot(again, METADATA) == expected
        assert backend.changes(again) == {}
        backend.release(again)
    if backend.undoes_writes:  # the database the image was built in holds it already
        assert loads == [], "a restore loaded the whole image instead of undoing the writes"


def test_undoing_an_update_of_a_parent_keeps_its_children_under_on_delete_cascade(backend, monkeypatch):
    """An updated row is written back in place: deleting and re-inserting it would cascade to rows never written."""
    from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table

    metadata = MetaData()
    Table("parents", metadata, Column("id", String, primary_key=True), Column("name", String))
    Table(
        "children",
        metadata,
        Column("id", String, primary_key=True),
        Column("parent_id", String, ForeignKey("parents.id", ondelete="CASCADE")),
        Column("n", Integer),
    )

    def seed(db: Any) -> None:
        _raw(db, "INSERT INTO parents (id, name) VALUES ('P-1', 'one'), ('P-2', 'two')")
        _raw(db, "INSERT INTO children (id, parent_id, n) VALUES ('C-1', 'P-1', 1), ('C-2', 'P-2', 2)")

    image = backend.build_image(metadata, seed)
    loads = _spy_on_loads(backend, monkeypatch)
    db = backend.restore(image)
    expected = snapshot(db, metadata)
    _raw(db, "UPDATE parents SET name = 'renamed' WHERE id = 'P-1'")
    _raw(db, "DELETE FROM parents WHERE id = 'P-2'")  # its child goes with it, and both come back
    _raw(db, "INSERT INTO parents (id, name) VALUES ('P-3', 'new')")
    _raw(db, "INSERT INTO children (id, parent_id, n) VALUES ('C-3', 'P-3', 3)")
    backend.release(db)
    again = backend.restore(image)
    assert snapshot(again, metadata) == expected
    backend.release(again)
    assert len(loads) == (0 if backend.undoes_writes else 2)


@pytest.fixture
def postgres(postgres_server: str) -> Iterator[Any]:
    from pytest_thinkingbox.core.backends.postgres import PostgresBackend

    databases = PostgresBackend(postgres_server)
    yield databases
    databases.close()


def _scans(db: Any, table: str) -> tuple[int, int]:
    """This transaction's sequential and index scans of `table` so far (PostgreSQL)."""
    row = db.execute(
        text("SELECT seq_scan, coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables WHERE relname = :t"), {"t": table}
    ).one()
    return int(row[0]), int(row[1])


def test_written_rows_are_read_by_key_however_large_the_tracking_tables_look(postgres):
    """Grading reads the few rows written by probing their keys, never by scanning the table.

    The seed is the image, so it leaves nothing in the tracking tables; and a
    shadow emptied many times (dead rows until it is vacuumed) must not turn the
    read into a hash join over the whole domain table.
    """
    image = postgres.build_image(METADATA, _padded_seed)
    db = postgres.restore(image)
    try:
        sizes = db.execute(text("SELECT pg_relation_size('_tb_was_accounts'), pg_relation_size('_tb_base_accounts')"))
        assert sizes.one() == (0, 0), "the seed was recorded as writes"
        dead = "SELECT 'X-' || i, false FROM generate_series(1, 5000) i"
        _raw(db, f"INSERT INTO _tb_was_accounts (id, _tb_existed) {dead}")
        _raw(db, "DELETE FROM _tb_was_accounts")  # 5,000 dead rows: the planner now guesses the shadow large
        _raw(db, "UPDATE accounts SET owner = 'renamed' WHERE id = 'A-00007'")
        before = _scans(db, "accounts")
        written = postgres.changes(db)
        seq, index = (now - then for now, then in zip(_scans(db, "accounts"), before, strict=True))
        assert written["accounts"]["A-00007"][1]["owner"] == "renamed"
        assert (seq, index) == (0, 1), f"reading one written row scanned accounts {seq} times, probed it {index}"
    finally:
        postgres.release(db)


def test_a_scratch_copy_is_thrown_away_whatever_the_block_wrote(backend, monkeypatch):
    """The golden replay's scratch copy: the attempt's database keeps its start state, sequences included.

    On PostgreSQL the scratch is the attempt's own database, and what the block
    wrote is undone after it (a copy would load every row); the rows written
    before the baseline stay undoable back to the image.
    """
    from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table

    metadata = MetaData()
    Table("parents", metadata, Column("id", String, primary_key=True), Column("name", String))
    Table(
        "events",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("parent_id", String, ForeignKey("parents.id", ondelete="CASCADE")),
    )

    def seed(db: Any) -> None:
        _raw(db, "INSERT INTO parents (id, name) VALUES ('P-1', 'one'), ('P-2', 'two')")
        _raw(db, "INSERT INTO events (parent_id) VALUES ('P-1'), ('P-2')")

    image = backend.build_image(metadata, seed)
    loads = _spy_on_loads(backend, monkeypatch)
    db = backend.restore(image)
    loads.clear()  # the first restore of a database loads the image
    restored = snapshot(db, metadata)
    _raw(db, "UPDATE parents SET name = 'arranged' WHERE id = 'P-1'")  # the arrange step
    _raw(db, "INSERT INTO events (parent_id) VALUES ('P-1')")
    arranged = backend.take_changes(db)
    start = snapshot(db, metadata)
    with backend.scratch(db) as scratch:
        _raw(scratch, "UPDATE parents SET name = 'golden' WHERE id = 'P-1'")
        _raw(scratch, "DELETE FROM parents WHERE id = 'P-2'")  # its event goes with it
        _raw(scratch, "INSERT INTO events (parent_id) VALUES ('P-1')")
        scratch.execute(text("INSERT INTO parents (id, name) VALUES ('P-9', 'uncommitted')"))
        assert set(backend.changes(scratch)) == {"parents", "events"}
    assert snapshot(db, metadata) == start
    assert backend.changes(db) == {}
    _raw(db, "INSERT INTO events (parent_id) VALUES ('P-2')")  # the episode: the sequence goes on from the start
    written = backend.changes(db)["events"]
    assert list(written) == ["4"], "the sequence was not put back"
    backend.release(db)
    again = backend.restore(image)
    assert snapshot(again, metadata) == restored
    assert arranged
    backend.release(again)
    if backend.undoes_writes:
        assert len(loads) == 0, "the scratch or the next restore loaded the whole image instead of undoing"
