"""--tb-validate: golden stability, noop, and single-step mutants that the checks must catch."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from conftest import REFUND_TASK

from pytest_thinkingbox import call
from pytest_thinkingbox.mutants import mutants

ROOT = Path(__file__).resolve().parent.parent


def _refund(db, account_id: str, amount_cents: int, reason: str = "goodwill", urgent: bool = False) -> dict:
    """A stand-in write tool: its signature is what the mutants read."""
    return {}


def _update_ticket(db, ticket_id: str, status: Literal["open", "hold", "solved"] | None = None) -> dict:
    return {}


def test_mutants_of_a_golden_path_by_hand():
    golden = [
        call("get_account", account_id="A-1"),
        call("refund", account_id="A-1", amount_cents=4000, urgent=False),
        call("update_ticket", ticket_id="T-9", status="solved"),
    ]
    ids = {"accounts": ["A-0", "A-1"], "tickets": ["T-9"]}
    found = mutants(golden, {"refund": _refund, "update_ticket": _update_ticket}, ids)
    assert [m.change for m in found] == [
        "call 2 refund(account_id='A-1', amount_cents=4000, urgent=False) left out",
        "call 2 refund(account_id='A-1', amount_cents=4000, urgent=False) made twice",
        "call 2 refund: account_id 'A-1' -> 'A-0'",  # another existing id of the same table
        "call 2 refund: amount_cents 4000 -> 3600",  # a tenth less
        "call 2 refund: urgent False -> True",
        "call 3 update_ticket(ticket_id='T-9', status='solved') left out",
        "call 3 update_ticket(ticket_id='T-9', status='solved') made twice",
        "call 3 update_ticket: status 'solved' -> 'open'",  # the next enum value; T-9 has no other ticket
        "extra call at the end: refund(account_id='A-0', amount_cents=4000, urgent=False)",
    ]
    assert found[0].calls == (golden[0], golden[2]) and found[1].calls == (golden[0], golden[1], *golden[1:])
    assert found[-1].calls[:3] == tuple(golden)


def test_a_sound_task_is_valid(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-validate")
    result.assert_outcomes(passed=3)  # golden 3 times by default
    result.stdout.fnmatch_lines(
        [
            "*thinkingbox validity*",
            "domain*tasks*golden stable*noop fails*mutants*equivalent*killed*survived*exempt",
            "toy*1*1*1*",
            "every selected task can tell right from wrong",
        ]
    )


WEAKENED_RETAIL_TASK = '''
from domains.retail.clock import days_ago
from domains.retail.factories import CustomerFactory, OrderFactory, ShipmentFactory, TicketFactory
from domains.retail.models import Refund, Ticket
from domains.retail.seed import TENT
from pytest_thinkingbox import User, call


def test_case_RT001_003(tb):
    """RT001_003 with its check on the refund amount removed (and no expect_golden)."""
    priya = CustomerFactory(name="Priya Nair")
    order = OrderFactory(customer=priya, status="shipped", placed_at=days_ago(14), shipping_cents=999, lines=[TENT])
    ShipmentFactory(order=order, carrier="USPS", status="exception", exception_opened_at=days_ago(8),
                    exception_reason="Label unreadable")
    ticket = TicketFactory(requester=priya, order_id=order.id, subject="Tent never arrived")
    run = tb.run(
        User(says="My tent never arrived. I'd like my money back.", knows={"email": priya.email, "order id": order.id}),
        golden=[
            call("find_customer_by_email", email=priya.email),
            call("get_order", order_id=order.id),
            call("get_shipment_tracking", order_id=order.id),
            call("list_tickets", requester_id=priya.id),
            call("issue_refund", order_id=order.id, amount_cents=19_899, reason="lost_parcel", method="original"),
            call("update_ticket", ticket_id=ticket.id, status="solved"),
        ],
    )
    refund = run.db.query(Refund).one()
    assert refund.reason == "lost_parcel"
    assert run.db.get(Ticket, ticket.id).status == "solved"
'''


@pytest.fixture
def retail(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester directory whose tasks run on the bundled retail domain."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\ndef tb_domain():\n"
        "    from domains.retail import DOMAIN\n    return DOMAIN\n"
    )
    return pytester


def test_a_weakened_copy_of_a_retail_task_shows_the_mutant_its_checks_miss(retail):
    retail.makepyfile(test_weakened=WEAKENED_RETAIL_TASK)
    result = retail.runpytest_subprocess("--tb-validate", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*INVALID test_case_RT001_003 (retail):",
            "*surviving mutant, call 5 issue_refund: amount_cents 19899 -> 17910: the checks pass, yet "
            "*wrong refunds[[]RF-0001[]].amount_cents: expected 19899, got 17910",
            "the benchmark is not valid",
        ]
    )
    # the refund's reason and the ticket's status are checked: those mutants are killed, not reported
    assert "reason 'lost_parcel' ->" not in result.stdout.str()


def test_a_marked_task_is_listed_with_its_reason_and_does_not_fail(retail):
    retail.makepyfile(
        test_weakened=WEAKENED_RETAIL_TASK.replace(
            "def test_case_RT001_003",
            "import pytest\n@pytest.mark.tb_validity('amount checked elsewhere')\ndef test_case_RT001_003",
        )
    )
    result = retail.runpytest_subprocess("--tb-validate", "--tb-repeat", "1", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "exempt  test_case_RT001_003 (retail): amount checked elsewhere",
            "*surviving mutant, call 5 issue_refund: amount_cents 19899 -> 17910*",
            "every selected task can tell right from wrong",
        ]
    )


def test_a_task_that_noop_passes_and_an_unstable_golden_are_reported(toy):
    toy.makepyfile(
        test_tasks="""
        from pytest_thinkingbox import User, call
        from toydomain import AccountFactory

        def test_case_TY001_001(tb):
            account = AccountFactory()
            tb.run(User(says="hi"), golden=[call("get_account", account_id=account.id)])

        def test_case_TY002_001(tb, _tb_attempt):
            account = AccountFactory(balance_cents=_tb_attempt)  # a start state that changes per attempt
            run = tb.run(User(says="hi"), golden=[call("issue_refund", account_id=account.id, amount_cents=100)])
            run.expect_golden()
        """
    )
    result = toy.runpytest("--tb-validate", "--tb-repeat", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "INVALID test_case_TY001_001 (toy):",
            "  the noop agent passes: the task requires nothing to be done",
            "INVALID test_case_TY002_001 (toy):",
            "  the golden end state differs between attempts or workers (2 end states)",
        ]
    )


def test_validate_refuses_another_agent(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-validate", "--tb-agent", "noop")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-validate runs the golden agent*leave out --tb-agent*"])
