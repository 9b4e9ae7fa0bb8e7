from __future__ import annotations

import contextlib
import importlib
import os
from pathlib import Path

# Import the heavy modules once here: pytester's in-process runs drop modules first
# imported inside them, and SQLAlchemy's compiled parts do not survive a re-import.
import openai  # noqa: F401
import pytest
import toydomain

import pytest_thinkingbox.attempt  # noqa: F401

# The openai client imports its transport lazily; a re-import would make twins of its exception classes.
for _transport in ("httpcore2", "httpcore"):
    with contextlib.suppress(ImportError):
        importlib.import_module(_transport)

_SERVER = toydomain.tools.server  # builds the MCP server, importing the SDK

HERE = Path(__file__).parent
POSTGRES_URL = os.environ.get("TB_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")

TOY_CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def tb_domain():
    from toydomain import DOMAIN
    return DOMAIN
"""

#: A task on the toy domain: a 40.00 refund, then the ticket solved.
REFUND_TASK = """
from pytest_thinkingbox import User, call
from toydomain import AccountFactory, TicketFactory, Ticket

def test_case_TY001_001(tb):
    account = AccountFactory(balance_cents=500)
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="Please refund the 40 dollars you owe me.", knows={"account id": account.id, "ticket": "T-9"}),
        golden=[
            call("get_account", account_id=account.id),
            call("issue_refund", account_id=account.id, amount_cents=4000),
            call("update_ticket", ticket_id="T-9", status="solved", note="refunded"),
        ],
    )
    run.expect_golden()
    assert run.db.get(Ticket, "T-9").status == "solved"
"""


@pytest.fixture
def toy(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester directory whose tasks run on the toy domain (tests/toydomain.py)."""
    pytester.syspathinsert(HERE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
    pytester.makeconftest(TOY_CONFTEST)
    return pytester


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """A PostgreSQL server URL (TB_TEST_POSTGRES_URL, else the local default), once it has answered.

    Without a usable server the test is skipped, except under CI (CI=true), where that fails it.
    """
    try:
        from pytest_thinkingbox.core.backends.postgres import check_server, server_url

        check_server(server_url(POSTGRES_URL))
    except Exception as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but no usable PostgreSQL server at {POSTGRES_URL}: {exc}")
        pytest.skip(f"no usable PostgreSQL server at {POSTGRES_URL} ({exc}); start one or set TB_TEST_POSTGRES_URL")
    return POSTGRES_URL
