from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple, cast

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
ROOT = HERE.parent
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


def read_records(paths: list[Path], *, drop_cut_line: bool = False) -> list[dict[str, Any]]:
    """The attempt records of results files, read by the package's reader, as the JSON they are: tests look
    into fields that `AttemptRecord` says may be absent."""
    from pytest_thinkingbox.campaign import records

    return cast("list[dict[str, Any]]", records.read_records(paths, drop_cut_line=drop_cut_line))


def run_domains(
    tmp_path: Path, *args: str, name: str = "run", where: str = "domains"
) -> tuple[subprocess.CompletedProcess[str], list[dict], dict]:
    """Run pytest on the bundled `domains/` (or the part `where` names) in a subprocess from the repository root."""
    results, aggregate = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            where,
            "-q",
            "-p",
            "no:cacheprovider",
            "--tb=line",
            "--tb-results",
            str(results),
            "--tb-aggregate",
            str(aggregate),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    records = read_records([results]) if results.exists() else []
    return done, records, json.loads(aggregate.read_text()) if aggregate.exists() else {}


class Campaign(NamedTuple):
    """A run of the whole bundled benchmark: the process, its records, its aggregate, and its results file."""

    done: subprocess.CompletedProcess[str]
    records: list[dict]
    aggregate: dict
    results: Path


def run_domains_once(tmp_path_factory: pytest.TempPathFactory, name: str, *args: str) -> Campaign:
    """`run_domains` once per test session, even under xdist, for the tests that only read what the run left.

    Under xdist the first worker to ask runs it into a folder all workers of the session share (the parent
    of their base temporary folders), holding a lock; the others wait on the lock and read the same files.
    A run that did not finish (its worker died) leaves no `.done.json`, so the next one to ask runs it again.
    """
    try:
        import fcntl
    except ImportError:  # no flock (Windows): each worker runs its own
        fcntl = None  # type: ignore[assignment]
    if os.environ.get("PYTEST_XDIST_WORKER") is None or fcntl is None:
        where = tmp_path_factory.mktemp(name)
        return Campaign(*run_domains(where, *args, name=name), where / f"{name}.jsonl")
    where = tmp_path_factory.getbasetemp().parent / "shared-campaigns"
    where.mkdir(exist_ok=True)
    marker = where / f"{name}.done.json"
    with open(where / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
        if not marker.exists():
            done, _, _ = run_domains(where, *args, name=name)
            fields = {"args": done.args, "returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
            marker.with_suffix(".tmp").write_text(json.dumps(fields))
            marker.with_suffix(".tmp").replace(marker)
    fields = json.loads(marker.read_text())
    ran_with = fields["args"][len(fields["args"]) - len(args) :]
    assert ran_with == list(args), f"{name} was run with other options: {fields['args']}"
    done = subprocess.CompletedProcess(fields["args"], fields["returncode"], fields["stdout"], fields["stderr"])
    results, aggregate = where / f"{name}.jsonl", where / f"{name}.json"
    records = read_records([results]) if results.exists() else []
    return Campaign(done, records, json.loads(aggregate.read_text()) if aggregate.exists() else {}, results)


#: The flaky campaign the bundled-domain tests share: reproducible (seed 7), three attempts a task.
FLAKY_CAMPAIGN = ("--tb-agent", "flaky", "--tb-seed", "7", "--tb-repeat", "3")


#: The golden campaign the bundled-domain tests share. Validation runs every task's golden attempts as a
#: campaign does, and on the first attempt also noop, the baselines, the mutants and the traps: one run of
#: the whole benchmark answers "golden always passes", "noop always fails" and "every task is valid".
GOLDEN_CAMPAIGN = ("--tb-agent", "golden", "--tb-repeat", "2", "--tb-validate")


@pytest.fixture(scope="session")
def golden_campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    """The whole bundled benchmark validated (GOLDEN_CAMPAIGN) on 2 workers, on SQLite: run once a session."""
    return run_domains_once(tmp_path_factory, "golden", "-n", "2", *GOLDEN_CAMPAIGN)


@pytest.fixture(scope="session")
def flaky_campaign(tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    """The whole bundled benchmark under the flaky agent (FLAKY_CAMPAIGN) on 2 workers: run once a session."""
    return run_domains_once(tmp_path_factory, "flaky", "-n", "2", *FLAKY_CAMPAIGN)
