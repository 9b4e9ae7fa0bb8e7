"""The PostgreSQL backend (--tb-db): the same isolation guarantees as SQLite, on a real server.

These tests need a server (the `postgres_server` fixture in conftest.py says which, and skips without one).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REFUND_TASK, run_domains
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

ROOT = Path(__file__).resolve().parent.parent


def _admin(url: str):
    # No pool: each connection closes with its block, not when the engine is collected (a ResourceWarning).
    return create_engine(
        url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT", poolclass=NullPool
    )


def _stale(url: str) -> list[str]:
    """Databases of runs that are no longer connected (what a run must not leave behind)."""
    with _admin(url).connect() as c:
        names = c.scalars(text(r"SELECT datname FROM pg_database WHERE datname LIKE 'thinkingbox\_%'")).all()
        alive = set(c.scalars(text("SELECT application_name FROM pg_stat_activity")).all())
    return [n for n in names if "_".join(n.split("_")[:2]) not in alive]


MARKER_DOMAIN = """
import datetime as dt
from sqlalchemy import Integer
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from pytest_thinkingbox import Domain, ToolSet


class Base(DeclarativeBase):
    pass


class Marker(Base):
    __tablename__ = "markers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    attempt: Mapped[int]
    via: Mapped[str]


tools = ToolSet("markers")


@tools.write
def add_marker(db: Session, attempt: int) -> dict:
    '''Insert a marker through the session, and one through a second connection that stays open,
    holding a lock, as a careless tool might.'''
    db.add(Marker(attempt=attempt, via="session"))
    db.flush()
    extra = db.get_bind().connect()
    extra.exec_driver_sql("INSERT INTO markers (attempt, via) VALUES (%s, 'extra')", (attempt,))
    extra.commit()
    extra.exec_driver_sql("SELECT * FROM markers FOR UPDATE")  # open transaction left behind
    LEAKED.append(extra)
    return {"ok": True}


LEAKED = []
DOMAIN = Domain(name="markers", metadata=Base.metadata, tools=tools, policy="Add a marker.",
                now=dt.datetime(2026, 1, 1))
"""

MARKER_TASK = """
from sqlalchemy import select
from pytest_thinkingbox import User, call
from markerdomain import Marker


def test_case_PG001_001(tb, _tb_attempt):
    run = tb.run(User(says="mark"), golden=[call("add_marker", attempt=_tb_attempt)])
    run.expect_golden()
    rows = run.db.execute(select(Marker.id, Marker.attempt, Marker.via).order_by(Marker.id)).all()
    # the sequence starts afresh, and no other attempt's marker (nor its leaked connection) is visible
    assert [tuple(r) for r in rows] == [(1, _tb_attempt, "session"), (2, _tb_attempt, "extra")]
"""


def test_every_attempt_sees_only_its_own_markers_under_four_workers(postgres_server, pytester, monkeypatch):
    pytester.makepyfile(markerdomain=MARKER_DOMAIN, test_markers=MARKER_TASK)
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef tb_domain():\n"
        "    from markerdomain import DOMAIN\n    return DOMAIN\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    result = pytester.runpytest_subprocess("-n", "4", "--tb-repeat", "40", "--tb-db", postgres_server)
    result.assert_outcomes(passed=40)
    assert _stale(postgres_server) == [], "the run left databases behind"


def test_a_crashed_runs_databases_are_swept_and_a_live_runs_are_kept(postgres_server):
    from pytest_thinkingbox.core.backends.postgres import PostgresBackend

    crashed = "thinkingbox_00000dead0_1"
    with _admin(postgres_server).connect() as c:
        c.execute(text(f"DROP DATABASE IF EXISTS {crashed}"))
        c.execute(text(f"CREATE DATABASE {crashed}"))
    live = PostgresBackend(postgres_server)
    try:
        live.build_image(__import__("toydomain").Base.metadata)
        other = PostgresBackend(postgres_server)  # its start-up sweep runs now
        other.close()
        with _admin(postgres_server).connect() as c:
            names = set(c.scalars(text("SELECT datname FROM pg_database")).all())
        assert crashed not in names
        assert f"thinkingbox_{live.run_id}_1" in names
    finally:
        live.close()
    with _admin(postgres_server).connect() as c:
        left = c.scalar(
            text("SELECT count(*) FROM pg_stat_activity WHERE application_name IN (:a, :b)"),
            {"a": f"thinkingbox_{live.run_id}", "b": f"thinkingbox_{other.run_id}"},
        )
    assert left == 0, "a closed backend left connections to the server open"


def test_a_stale_database_of_another_role_is_kept_without_breaking_a_createdb_role(postgres_server, toy):
    stale = "thinkingbox_00000beef0_1"
    with _admin(postgres_server).connect() as c:
        for role in ("thinkingbox_owner", "thinkingbox_creator"):
            if not c.scalar(text(f"SELECT 1 FROM pg_roles WHERE rolname = '{role}'")):
                c.execute(text(f"CREATE ROLE {role} LOGIN CREATEDB"))
        c.execute(text(f"DROP DATABASE IF EXISTS {stale}"))
        c.execute(text(f"CREATE DATABASE {stale} OWNER thinkingbox_owner"))
    url = make_url(postgres_server).set(username="thinkingbox_creator").render_as_string(hide_password=False)
    try:
        toy.makepyfile(test_tasks=REFUND_TASK)
        result = toy.runpytest("--tb-db", url, "--tb-repeat", "2", "-W", "default")
        result.assert_outcomes(passed=2)
        assert result.stdout.str().count("belong to another role and were kept") == 1
    finally:
        with _admin(postgres_server).connect() as c:
            c.execute(text(f"DROP DATABASE IF EXISTS {stale}"))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@127.0.0.1/test", "*--tb-db: 'mysql://root@127.0.0.1/test' is not a PostgreSQL URL*"),
        ("not a url", "*--tb-db: 'not a url' is not a database URL*"),
        ("postgresql://postgres@127.0.0.1:1/postgres", "*--tb-db: cannot connect to PostgreSQL at*127.0.0.1:1*"),
    ],
)
def test_bad_urls_and_unreachable_servers_are_usage_errors(toy, url, message):
    toy.makepyfile(test_nothing="def test_case_TY001_001(tb):\n    pass\n")
    result = toy.runpytest("--tb-db", url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_role_that_may_not_create_databases_is_a_usage_error(postgres_server, toy):
    with _admin(postgres_server).connect() as c:
        if not c.scalar(text("SELECT 1 FROM pg_roles WHERE rolname = 'thinkingbox_nocreate'")):
            c.execute(text("CREATE ROLE thinkingbox_nocreate LOGIN NOCREATEDB"))
    url = make_url(postgres_server).set(username="thinkingbox_nocreate").render_as_string(hide_password=False)
    toy.makepyfile(test_nothing="def test_case_TY001_001(tb):\n    pass\n")
    result = toy.runpytest("--tb-db", url)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*may not create databases*ALTER ROLE thinkingbox_nocreate CREATEDB*"])


def _shares(aggregate: dict) -> dict[str, tuple[str, float, float]]:
    """Each task's domain and the shares of its attempts passed and in error: comparable across numbers of attempts."""
    return {
        task: (c["domain"], c["passed"] / c["attempts"], c["errors"] / c["attempts"])
        for task, c in aggregate["per_task"].items()
    }


def test_bundled_domains_pass_under_golden_on_postgres_as_on_sqlite(postgres_server, golden_campaign, tmp_path):
    # on SQLite: the session's golden campaign (2 attempts a task on 2 workers, tests/conftest.py), which
    # test_bundled_domains.py checks too; a second SQLite run here would only repeat it
    assert golden_campaign.done.returncode == 0, golden_campaign.done.stdout[-3000:]
    on_sqlite = golden_campaign.aggregate
    done, records, on_postgres = run_domains(tmp_path, "-n", "2", "--tb-repeat", "2", "--tb-db", postgres_server)
    assert done.returncode == 0, done.stdout[-3000:]
    assert _shares(on_postgres) == _shares(on_sqlite)
    assert {c["attempts"] for c in on_postgres["per_task"].values()} == {2}  # every attempt ran on PostgreSQL
    assert on_postgres["overall"]["pass@1"] == 1.0
    assert set(on_postgres["domains"]) == set(on_sqlite["domains"])
    ends: dict[str, set[str]] = {}
    for r in records:
        ends.setdefault(r["task"], set()).add(r["end_hash"])
    assert all(len(e) == 1 for e in ends.values()), "end states differ between attempts or workers"
