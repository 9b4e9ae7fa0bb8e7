"""An arrange step recognised before its flush: the same pending writes, the same rows written again."""

from __future__ import annotations

import itertools
import warnings

import pytest
import toydomain
from sqlalchemy import JSON, Engine, ForeignKey, String, event, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from pytest_thinkingbox import User, call
from pytest_thinkingbox.attempt import Attempt, WorkerCache
from pytest_thinkingbox.core.arranged import commit_noting_filled, pending_writes, persist_unflushed
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.roles.agents import make_agent
from pytest_thinkingbox.serve.reward import offline_harness


class Base(DeclarativeBase):
    pass


_stamps = itertools.count()


class Shop(Base):
    __tablename__ = "shops"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str]
    orders: Mapped[list[Order]] = relationship(back_populates="shop")


class Order(Base):
    __tablename__ = "orders"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    shop_id: Mapped[str] = mapped_column(ForeignKey("shops.id"))
    shop: Mapped[Shop] = relationship(back_populates="orders")
    status: Mapped[str] = mapped_column(default="open")  # the same every time: fine unset
    stamp: Mapped[int] = mapped_column(default=lambda: next(_stamps))  # computed at flush: must be given
    notes: Mapped[dict | None] = mapped_column(JSON)


class Counter(Base):
    __tablename__ = "counters"
    id: Mapped[int] = mapped_column(primary_key=True)  # the database numbers it


class Shops:
    """Sessions on databases restored from one image of the shops schema (one seeded shop)."""

    def __init__(self) -> None:
        self.backend = SQLiteBackend()
        self._image = self.backend.build_image(Base.metadata, lambda db: db.add(Shop(id="S-0", name="seeded")))
        self._sessions: list[Session] = []

    def __call__(self) -> Session:
        self._sessions.append(self.backend.restore(self._image))
        return self._sessions[-1]

    def close(self) -> None:
        for db in self._sessions:
            self.backend.release(db)
        self.backend.close()


@pytest.fixture
def shops():
    fresh = Shops()
    yield fresh
    fresh.close()


def _arrange(db: Session, name: str = "corner", stamp: int | None = 7) -> Order:
    shop = Shop(id="S-1", name=name)
    order = Order(id="O-1", shop=shop, **({"stamp": stamp} if stamp is not None else {}))
    db.add(order)
    return order


def test_the_same_arrange_step_has_the_same_pending_writes_and_another_has_others(shops):
    first, second, third = shops(), shops(), shops()
    _arrange(first)
    _arrange(second)
    _arrange(third, name="high street")
    assert pending_writes(first) is not None
    assert pending_writes(first) == pending_writes(second)
    assert pending_writes(first) != pending_writes(third)


def test_a_changed_row_of_the_start_state_is_part_of_the_pending_writes(shops):
    first, second = shops(), shops()
    first.get(Shop, "S-0").name = "renamed"
    second.get(Shop, "S-0").name = "renamed again"
    assert pending_writes(first) != pending_writes(second)
    assert pending_writes(first) != pending_writes(shops())


@pytest.mark.parametrize(
    "arrange",
    [
        pytest.param(lambda db: _arrange(db, stamp=None), id="a default computed at flush, left unset"),
        pytest.param(lambda db: db.add(Counter()), id="a key the database assigns"),
        pytest.param(lambda db: db.delete(db.get(Shop, "S-0")), id="a deleted row"),
    ],
)
def test_writes_a_flush_would_not_repeat_exactly_are_not_vouched_for(shops, arrange):
    db = shops()
    arrange(db)
    assert pending_writes(db) is None


def test_an_insert_event_makes_the_pending_writes_unknown(shops):
    db = shops()
    _arrange(db)
    listener = lambda *args: None  # noqa: E731
    event.listen(Order, "before_insert", listener)
    try:
        assert pending_writes(db) is None
    finally:
        event.remove(Order, "before_insert", listener)
    assert pending_writes(db) is not None


def test_rows_written_again_read_back_as_the_flushed_ones_in_the_same_order(shops):
    flushed, replayed = shops(), shops()
    flushed.add_all([Shop(id=f"S-{n}", name=f"shop {n}") for n in (9, 3, 5)])
    flushed.add_all([Counter(id=n) for n in (4, 2)])  # an integer key: SQLite's rowid itself
    rows = shops.backend.rows_to_replay(flushed)
    assert rows is not None
    assert not shops.backend.written_since_restore(replayed)
    shops.backend.replay(replayed, rows)
    assert shops.backend.written_since_restore(replayed)
    for table in ("shops", "counters"):
        read = f"SELECT rowid, * FROM {table} ORDER BY rowid"
        assert flushed.connection().exec_driver_sql(read).all() == replayed.connection().exec_driver_sql(read).all()
    assert shops.backend.changes(replayed) == {}  # the baseline, as take_changes leaves it


def test_rows_that_existed_are_not_replayed(shops):
    db = shops()
    db.get(Shop, "S-0").name = "renamed"
    db.add(Shop(id="S-1", name="new"))
    assert shops.backend.rows_to_replay(db) is None


def _toy_attempt(cache: WorkerCache, attempt: int, task: str = "test_case_TY900_001") -> Attempt:
    harness = offline_harness(lambda context: make_agent("golden", context), seed=attempt, cache=cache)
    return harness.attempt(task, attempt, toydomain.DOMAIN, key="test_case_TY900_001")


def _toy_task(tb: Attempt, balance_cents: int = 500) -> tuple[str, str]:
    account: toydomain.Account = toydomain.AccountFactory(balance_cents=balance_cents)
    ticket: toydomain.Ticket = toydomain.TicketFactory(account_id=account.id)
    run = tb.run(
        User(says="Please put my ticket on hold.", knows={"ticket": ticket.id}),
        golden=[call("update_ticket", ticket_id=ticket.id, status="hold")],
    )
    run.expect_golden()
    # The objects the task made are persistent, and what the flush fills in loads from the rows.
    assert run.db.get(toydomain.Ticket, ticket.id) is ticket
    assert ticket.status == "hold"
    assert account in run.db
    assert not run.db.new
    assert run.db.scalars(select(toydomain.Ticket.account_id)).all() == [account.id]
    return tb.result.start_hash or "", tb.result.end_hash or ""


def test_the_next_attempt_of_a_task_writes_its_rows_again_without_a_flush():
    cache = WorkerCache()
    inserts: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        if statement.startswith("INSERT INTO accounts"):
            inserts.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    hashes, flushed = [], []
    try:
        for n, balance in enumerate((500, 500, 900, 900), 1):
            # Another start state is another task (one task has one); it shares the rows' cache key here.
            attempt = _toy_attempt(cache, n, "test_case_TY900_001" if balance == 500 else "test_case_TY900_002")
            before = len(inserts)
            try:
                hashes.append(_toy_task(attempt, balance))
            finally:
                attempt.close()
            flushed.append(len(inserts) > before)
    finally:
        event.remove(Engine, "before_cursor_execute", count)
        cache.close()
    # Attempt 2 arranges as 1 did: its rows are written again. Attempt 3 arranges other rows: a flush.
    assert flushed == [True, False, True, False]
    assert hashes[0] == hashes[1]
    assert hashes[2] == hashes[3]
    assert hashes[0][0] != hashes[2][0]


def test_a_written_again_start_state_equals_the_flushed_one():
    cache = WorkerCache()
    states = []
    try:
        for n in (1, 2):
            attempt = _toy_attempt(cache, n)
            try:
                _toy_task(attempt)
                assert attempt.last_run is not None
                states.append(attempt.last_run.start_state())
            finally:
                attempt.close()
    finally:
        cache.close()
    assert states[0] == states[1]


def test_objects_made_persistent_without_a_flush_read_as_after_one(shops):
    flushed, unflushed = shops(), shops()
    for db in (flushed, unflushed):
        db.add(Order(id="O-1", shop=db.get(Shop, "S-0"), stamp=1))  # the shop's orders: an append not yet loaded
    writes = pending_writes(unflushed)
    assert writes is not None
    assert writes == pending_writes(flushed)
    filled = commit_noting_filled(flushed)
    assert filled == ({"shop_id": "S-0", "status": "open", "notes": None},)  # set or left NULL by the flush
    rows = shops.backend.rows_to_replay(flushed)
    order = next(iter(unflushed.new))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SQLAlchemy warns of a collection change it cannot flush
        persist_unflushed(unflushed, filled, lambda: shops.backend.replay(unflushed, rows))
    assert not unflushed.new
    assert not unflushed.dirty
    loads: list[str] = []

    def load(conn, cursor, statement, *args) -> None:
        loads.append(statement)

    event.listen(Engine, "before_cursor_execute", load)
    try:
        assert (order.shop_id, order.status, order.notes) == ("S-0", "open", None)
    finally:
        event.remove(Engine, "before_cursor_execute", load)
    assert not loads  # held, as after a flush: not read again
    shop = unflushed.get(Shop, "S-0")
    assert shop.orders == [order]
    assert order.shop is shop


def test_pending_writes_keep_their_own_copy_of_a_value_changed_in_place_later(shops):
    first, second = shops(), shops()
    order = _arrange(first)
    order.notes = {"gift": True}
    writes = pending_writes(first)
    order.notes["gift"] = False  # in place: the object that was compared is changed
    _arrange(second).notes = {"gift": True}
    assert writes == pending_writes(second)
