"""Fresh backend per attempt: restored from one image, identical, isolated."""

from __future__ import annotations

import pytest
import toydomain
from sqlalchemy import event

from pytest_thinkingbox.attempt import WorkerCache
from pytest_thinkingbox.core.backends.sqlite import SQLiteBackend
from pytest_thinkingbox.core.state import snapshot, state_hash


def test_every_restore_starts_from_identical_state_and_writes_stay_private():
    sqlite = SQLiteBackend()
    image = sqlite.build_image(toydomain.Base.metadata, toydomain.seed)
    first, second = sqlite.restore(image), sqlite.restore(image)
    try:
        start = state_hash(snapshot(first, toydomain.Base.metadata))
        first.add(toydomain.Account(id="A-99", owner="x"))
        first.commit()
        assert first.get(toydomain.Account, "A-99") is not None
        assert second.get(toydomain.Account, "A-99") is None
        assert state_hash(snapshot(second, toydomain.Base.metadata)) == start
    finally:
        sqlite.release(first)
        sqlite.release(second)
    # A released database is reused, and restoring wipes what the last attempt wrote.
    third = sqlite.restore(image)
    assert third.get(toydomain.Account, "A-99") is None
    assert state_hash(snapshot(third, toydomain.Base.metadata)) == start


def test_image_is_built_once_per_worker_not_per_attempt():
    creates = []
    listener = lambda *args, **kwargs: creates.append(1)  # noqa: E731
    event.listen(toydomain.Base.metadata, "before_create", listener)
    try:
        cache = WorkerCache()
        images = {id(cache.image(toydomain.DOMAIN)) for _ in range(5)}
    finally:
        event.remove(toydomain.Base.metadata, "before_create", listener)
    assert len(images) == 1
    assert len(creates) == 1


def test_dump_copies_committed_state_into_an_independent_database():
    sqlite = SQLiteBackend()
    db = sqlite.restore(sqlite.build_image(toydomain.Base.metadata, toydomain.seed))
    db.add(toydomain.Account(id="A-5", owner="y"))
    copy = sqlite.restore(sqlite.dump(db))
    copied = copy.get(toydomain.Account, "A-5")
    assert copied is not None
    copied.owner = "changed"
    copy.commit()
    original = db.get(toydomain.Account, "A-5")
    assert original is not None
    assert original.owner == "y"


def test_a_worker_alternating_between_schemas_reads_each_correctly():
    # Two schemas at the same schema version number, sharing a table created in another order (as the
    # shared ticket tables are): a connection reused across them would keep prepared statements, cached
    # by their SQL text, that read the other schema's pages ("database disk image is malformed").
    from sqlalchemy import Column, Integer, MetaData, String, Table, select
    from sqlalchemy.orm import Session

    first, second = MetaData(), MetaData()
    items_1 = Table("items", first, Column("id", Integer, primary_key=True), Column("name", String))
    Table("zones", first, Column("id", Integer, primary_key=True))
    Table("aisles", second, Column("n", Integer, primary_key=True))  # created first: takes the first root page
    items_2 = Table("items", second, Column("id", Integer, primary_key=True), Column("name", String))

    def seed_first(db: Session) -> None:
        db.execute(items_1.insert().values(id=1, name="lamp"))

    def seed_second(db: Session) -> None:
        db.execute(items_2.insert().values(id=7, name="shelf"))

    sqlite = SQLiteBackend()
    one = sqlite.build_image(first, seed_first)
    two = sqlite.build_image(second, seed_second)
    for _ in range(3):
        for image, table, row in ((one, items_1, (1, "lamp")), (two, items_2, (7, "shelf"))):
            db = sqlite.restore(image)
            assert db.execute(select(table)).one() == tuple(row)
            sqlite.release(db)


@pytest.fixture(params=["sqlite", "postgres"])
def databases(request):
    """Each backend in turn (PostgreSQL only where a server answers)."""
    if request.param == "sqlite":
        yield SQLiteBackend()
        return
    from pytest_thinkingbox.core.backends.postgres import PostgresBackend

    databases = PostgresBackend(request.getfixturevalue("postgres_server"))
    yield databases
    databases.close()


def test_foreign_keys_are_checked_when_a_transaction_commits(databases):
    from sqlalchemy import Column, ForeignKey, Integer, MetaData, Table, insert
    from sqlalchemy.exc import IntegrityError

    schema = MetaData()
    parent = Table("parent", schema, Column("id", Integer, primary_key=True))
    child = Table(
        "child", schema, Column("id", Integer, primary_key=True), Column("parent_id", ForeignKey("parent.id"))
    )
    db = databases.restore(databases.build_image(schema))
    assert [fk.deferrable for fk in child.foreign_key_constraints] == [None]  # the model is as declared
    db.execute(insert(child).values(id=1, parent_id=5))  # a child before its parent, as an arrange step may
    db.execute(insert(parent).values(id=5))
    db.commit()  # checked here, and satisfied
    db.execute(insert(child).values(id=2, parent_id=9))
    with pytest.raises(IntegrityError):  # a dangling reference: the commit (a tool's, at the end of its call) fails
        db.commit()
    db.rollback()
    assert [tuple(r) for r in db.execute(child.select())] == [(1, 5)]
    databases.release(db)


def test_a_session_takes_over_a_database_and_reads_what_was_written_there(databases):
    """What --tb-concurrency does when a test adopts the episode started early on another database."""
    from toydomain import Account, Refund, Ticket

    image = databases.build_image(toydomain.Base.metadata, toydomain.seed)
    mine, theirs = databases.restore(image), databases.restore(image)
    for db in (mine, theirs):  # the same arrange step on both
        db.add_all([Account(id="A-1", owner="amy", balance_cents=500), Ticket(id="T-1", account_id="A-1")])
        databases.take_changes(db)
    account, ticket = mine.get(Account, "A-1"), mine.get(Ticket, "T-1")
    theirs.get(Account, "A-1").balance_cents = 4500
    theirs.add(Refund(id="RF-1", account_id="A-1", amount_cents=4000, created_at=toydomain.NOW))
    theirs.delete(theirs.get(Ticket, "T-1"))
    theirs.commit()
    own_database = mine.get_bind()

    databases.take_over(mine, databases.hold(theirs))
    assert account.balance_cents == 4500  # a held object loads again from the database taken over
    assert mine.get(Refund, "RF-1").amount_cents == 4000
    assert ticket.status == "open"  # a row removed there: its object keeps its values, detached
    assert mine.get(Ticket, "T-1") is None
    written = databases.changes(mine)  # the writes since the baseline, as made there
    assert written["tickets"]["T-1"][1] is None
    assert written["accounts"]["A-1"][1]["balance_cents"] == 4500
    databases.release(mine)
    again = databases.restore(image)  # both databases went back to the idle ones, and restore cleanly
    other = databases.restore(image)
    assert own_database in {again.get_bind(), other.get_bind()}
    for db in (again, other):
        assert db.get(Account, "A-1") is None
        assert db.get(Refund, "RF-1") is None
    dropped = other.get_bind()
    other.add(Account(id="A-7", owner="zoe"))
    databases.drop(databases.hold(other))  # kept, then not taken over: its database goes back to the idle ones
    databases.release(again)
    reused = [databases.restore(image) for _ in range(2)]
    assert dropped in {db.get_bind() for db in reused}
    assert all(db.get(Account, "A-7") is None for db in reused)
    for db in reused:
        databases.release(db)
