"""Where the attempts' databases live: SQLite in memory, or a PostgreSQL server (--tb-db)."""

from __future__ import annotations

import pytest

from .options import group, setting


def pytest_addoption(parser: pytest.Parser) -> None:
    group(parser).addoption(
        "--tb-db",
        dest="tb_db",
        metavar="URL",
        help="PostgreSQL server for the attempts' databases (postgresql://user@host:port/dbname; used only to "
        "create and drop per-run databases). Default: ini tb_db, else SQLite in memory.",
    )
    parser.addini("tb_db", "Default database server URL (see --tb-db).", default="")


def pytest_configure(config: pytest.Config) -> None:
    url = setting(config, "tb_db")
    if url:
        check_database(url)


def check_database(url: str) -> None:
    """Refuse a URL that is not PostgreSQL, a missing driver, an unreachable server or a role without CREATEDB."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise pytest.UsageError(
            "--tb-db needs the PostgreSQL driver psycopg: pip install 'pytest-thinkingbox[postgres]'"
        ) from None
    from ..core.backends.postgres import PostgresError, check_server, server_url

    try:
        check_server(server_url(url))
    except (ValueError, PostgresError) as exc:
        raise pytest.UsageError(f"--tb-db: {exc}") from None


@pytest.fixture(scope="session")
def tb_db_url(pytestconfig: pytest.Config) -> str | None:
    """The database server for attempts (from --tb-db); None means SQLite in memory."""
    return setting(pytestconfig, "tb_db") or None
