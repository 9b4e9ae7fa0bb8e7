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
    assert len(images) == 1 and len(creates) == 1


def test_dump_copies_committed_state_into_an_independent_database():
    sqlite = SQLiteBackend()
    db = sqlite.restore(sqlite.build_image(toydomain.Base.metadata, toydomain.seed))
    db.add(toydomain.Account(id="A-5", owner="y"))
    copy = sqlite.restore(sqlite.dump(db))
    copy.get(toydomain.Account, "A-5").owner = "changed"
    copy.commit()
    assert db.get(toydomain.Account, "A-5").owner == "y"


def test_a_worker_alternating_between_schemas_reads_each_correctly():
    # Two schemas at the same schema version number, sharing a table created in another order (as the
    # shared ticket tables are): a connection reused across them would keep prepared statements, cached
    # by their SQL text, that read the other schema's pages ("database disk image is malformed").
    from sqlalchemy import Column, Integer, MetaData, String, Table, select

    first, second = MetaData(), MetaData()
    items_1 = Table("items", first, Column("id", Integer, primary_key=True), Column("name", String))
    Table("zones", first, Column("id", Integer, primary_key=True))
    Table("aisles", second, Column("n", Integer, primary_key=True))  # created first: takes the first root page
    items_2 = Table("items", second, Column("id", Integer, primary_key=True), Column("name", String))
    sqlite = SQLiteBackend()
    one = sqlite.build_image(first, lambda db: db.execute(items_1.insert().values(id=1, name="lamp")))
    two = sqlite.build_image(second, lambda db: db.execute(items_2.insert().values(id=7, name="shelf")))
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
    assert [fk.constraint.deferrable for fk in child.c.parent_id.foreign_keys] == [None]  # the model is as declared
    db.execute(insert(child).values(id=1, parent_id=5))  # a child before its parent, as an arrange step may
    db.execute(insert(parent).values(id=5))
    db.commit()  # checked here, and satisfied
    db.execute(insert(child).values(id=2, parent_id=9))
    with pytest.raises(IntegrityError):  # a dangling reference: the commit (a tool's, at the end of its call) fails
        db.commit()
    db.rollback()
    assert [tuple(r) for r in db.execute(child.select())] == [(1, 5)]
    databases.release(db)
