"""Fresh backend per attempt: restored from one image, identical, isolated."""

from __future__ import annotations

import toydomain
from sqlalchemy import event

from pytest_thinkingbox import backend
from pytest_thinkingbox.harness import WorkerCache
from pytest_thinkingbox.state import snapshot, state_hash


def test_every_restore_starts_from_identical_state_and_writes_stay_private():
    sqlite = backend.SQLiteBackend()
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
    sqlite = backend.SQLiteBackend()
    db = sqlite.restore(sqlite.build_image(toydomain.Base.metadata, toydomain.seed))
    db.add(toydomain.Account(id="A-5", owner="y"))
    copy = sqlite.restore(sqlite.dump(db))
    copy.get(toydomain.Account, "A-5").owner = "changed"
    copy.commit()
    assert db.get(toydomain.Account, "A-5").owner == "y"
