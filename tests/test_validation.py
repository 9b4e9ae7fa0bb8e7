"""--tb-validate: golden stability, noop, and single-step mutants that the checks must catch."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from conftest import REFUND_TASK

from pytest_thinkingbox import call
from pytest_thinkingbox.core.mutants import mutants

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
    assert found[0].calls == (golden[0], golden[2])
    assert found[1].calls == (golden[0], golden[1], *golden[1:])
    assert found[-1].calls[:3] == tuple(golden)


def test_a_sound_task_is_valid(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-validate")
    result.assert_outcomes(passed=3)  # golden 3 times by default
    result.stdout.fnmatch_lines(
        [
            "*thinkingbox validity*",
            "domain*tasks*golden stable*noop fails*blind fail*mutants*killed by checks*killed by end state*equivalent*"
            "survived*traps*derived*exempt",
            "toy*1*1*1*",
            "every selected task tells a careful agent from a careless one",
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
            "every selected task tells a careful agent from a careless one",
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
            "  the noop agent passes: the task requires nothing to be done*",
            "INVALID test_case_TY002_001 (toy):",
            "  the golden agent failed 1 of 2 attempts: test_case_TY002_001: attempt 2 starts from another state "
            "than attempt 1 did (*): the task's arrange step is not deterministic*",
        ]
    )


def test_validate_refuses_another_agent(toy):
    toy.makepyfile(test_tasks=REFUND_TASK)
    result = toy.runpytest("--tb-validate", "--tb-agent", "noop")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-validate runs the golden agent*leave out --tb-agent*"])


# One weakened task per check of --tb-validate, each caught by the check it targets, beside a sound original.

SOLVE_ONLY_TASK = """
import pytest
from pytest_thinkingbox import User, call
from toydomain import AccountFactory, TicketFactory, Ticket

{marker}
def test_case_TY010_001(tb):
    account = AccountFactory()
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="Thanks, my question is answered; close ticket T-9.", knows={{"account id": account.id}}),
        golden=[call("get_account", account_id=account.id), call("update_ticket", ticket_id="T-9", status="solved")],
    )
    run.expect_golden()
    assert run.db.get(Ticket, "T-9").status == "solved"
"""

HOLD_TASK = """
import pytest
from pytest_thinkingbox import User, call
from toydomain import AccountFactory, TicketFactory, Ticket, Refund

@pytest.mark.tb_validity(baseline_ok={{"hold": "above the limit, holding the ticket is the policy's answer"}})
def test_case_TY011_001(tb):
    account = AccountFactory()
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="Refund the 150 dollars you owe me now.", knows={{"account id": account.id, "ticket": "T-9"}}),
        golden=[
            call("get_account", account_id=account.id),
            call("update_ticket", ticket_id="T-9", status="hold", note="above the refund limit"),
        ],
        traps=[{trap}],
    )
{checks}
"""
STRONG_CHECKS = """    run.expect_golden()
    assert run.db.query(Refund).count() == 0  # policy: above 100 dollars, hold
    assert run.db.get(Ticket, "T-9").status == "hold"
"""
WEAK_CHECKS = """    assert run.db.get(Ticket, "T-9").status == "hold"
"""
REFUND_TRAP = 'call("issue_refund", account_id=account.id, amount_cents=15_000)'


def test_validate_a_golden_call_with_an_unknown_argument_is_a_task_definition_error(toy):
    toy.makepyfile(test_tasks=REFUND_TASK.replace('note="refunded"', 'nots="refunded"'))
    result = toy.runpytest("--tb-validate")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*test_case_TY001_001: golden call 3, update_ticket(ticket_id='T-9', status='solved', nots='refunded'): "
            "INVALID_ARGUMENT: update_ticket has no argument 'nots'; its arguments are: ticket_id, status, note"
        ]
    )


def test_an_agent_call_with_an_unknown_argument_is_refused_and_the_episode_goes_on(toy):
    from pytest_thinkingbox.campaign.records import read_records

    toy.makepyfile(test_tasks=REFUND_TASK)
    toy.makeconftest(
        (toy.path / "conftest.py").read_text()
        + """
from pytest_thinkingbox import call
from pytest_thinkingbox.roles.agents.golden import GoldenAgent

@pytest.fixture(scope="session")
def tb_agent():
    return lambda context: GoldenAgent([call("issue_refund", account_id="A-1", amount_cents=4000, memo="x"),
                                        *context.golden])
"""
    )
    result = toy.runpytest("--tb-results", "r.jsonl")
    result.assert_outcomes(passed=1)  # nothing ran for the refused call: the golden refund is the only one
    [record] = read_records([toy.path / "r.jsonl"])
    refused = next(m for m in record["transcript"] if m["role"] == "tool")
    assert refused["error"] == "INVALID_ARGUMENT"
    assert "issue_refund has no argument 'memo'; its arguments are: account_id, amount_cents" in refused["content"]


def test_validate_grades_own_checks_apart_from_the_end_state_comparison(toy):
    only_golden = REFUND_TASK.replace('    assert run.db.get(Ticket, "T-9").status == "solved"\n', "")
    toy.makepyfile(test_tasks=only_golden)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-v")
    assert result.ret == pytest.ExitCode.OK
    # every mutant that changes graded state is caught by expect_golden alone, none by the task's own asserts
    result.stdout.fnmatch_lines(
        [
            "valid   test_case_TY001_001: noop fails 1, blind fail 1, mutants *, "
            "killed by checks 0, killed by end state [1-9]*, equivalent *, survived 0*"
        ]
    )


def test_validate_shows_a_mutant_that_changes_only_a_volatile_field(toy):
    # the account to credit is written into the volatile note: a wrong account passes every check
    toy.makepyfile(
        test_tasks="""
        from pytest_thinkingbox import User, call
        from toydomain import AccountFactory, TicketFactory

        def test_case_TY012_001(tb):
            account = AccountFactory()
            TicketFactory(id="T-9", account_id=account.id)
            run = tb.run(
                User(says="Put ticket T-9 on hold for the account review.", knows={"account id": account.id}),
                golden=[call("get_account", account_id=account.id),
                        call("update_ticket", ticket_id="T-9", status="hold", note=account.id)],
            )
            run.expect_golden()
        """
    )
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "toy *1 *1 *1 *0 *5 *0 *3 *1 *1 *0/0 *0 *0",  # the hold baseline passes too
            "*surviving mutant, call 2 update_ticket: note 'A-1' -> 'A-0': the checks pass, yet "
            "wrong tickets[[]T-9[]].note: expected 'A-1', got 'A-0'",
        ]
    )


def test_validate_fails_a_task_a_policy_blind_baseline_passes_unless_it_gives_a_reason(toy):
    toy.makepyfile(test_tasks=SOLVE_ONLY_TASK.format(marker=""))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "tasks passed by each policy-blind baseline: solve 1, hold 0, pending 0, refuse 1, comply 0",
            "INVALID test_case_TY010_001 (toy):",
            "  the policy-blind baseline 'solve' passes: the task cannot tell its fixed ending from the policy's*",
        ]
    )
    reason = "the user only asks to close the ticket"
    marked = f'@pytest.mark.tb_validity(baseline_ok={{"solve": "{reason}", "refuse": "{reason}"}})'
    toy.makepyfile(test_tasks=SOLVE_ONLY_TASK.format(marker=marked))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "tasks passed by each policy-blind baseline: solve 0 (+1 with a reason), hold 0, pending 0, "
            "refuse 0 (+1 with a reason), comply 0"
        ]
    )


def test_the_baselines_run_as_agents_and_a_misnamed_one_is_a_usage_error(toy):
    toy.makepyfile(test_tasks=SOLVE_ONLY_TASK.format(marker="") + REFUND_TASK)
    result = toy.runpytest("--tb-agent", "blind:solve")
    result.assert_outcomes(passed=1, failed=1)  # solving the ticket without the refund fails TY001
    result = toy.runpytest("--tb-agent", "blind:hold")
    result.assert_outcomes(failed=2)
    result = toy.runpytest("--tb-agent", "blind:nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tb-agent 'blind:nope' is not an agent; choose one of: *blind:solve*"])


def test_validate_requires_each_trap_to_be_caught(toy):
    toy.makepyfile(test_tasks=HOLD_TASK.format(trap=REFUND_TRAP, checks=WEAK_CHECKS))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*trap 1, issue_refund(account_id='A-1', amount_cents=15000), is not caught: the checks pass after it"]
    )
    toy.makepyfile(test_tasks=HOLD_TASK.format(trap=REFUND_TRAP, checks=STRONG_CHECKS))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["toy *1/1 *0 *0"])  # traps caught/declared, derived, exempt


def test_a_trap_the_tool_refuses_tests_nothing_and_a_read_is_no_trap(toy):
    refused = 'call("issue_refund", account_id=account.id, amount_cents=0)'
    toy.makepyfile(test_tasks=HOLD_TASK.format(trap=refused, checks=STRONG_CHECKS))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*trap 1, issue_refund(*amount_cents=0), is refused by the tool (INVALID_ARGUMENT:*"])
    toy.makepyfile(test_tasks=HOLD_TASK.format(trap='call("get_account", account_id=account.id)', checks=STRONG_CHECKS))
    result = toy.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_case_TY011_001: trap 1, get_account(account_id='A-1'), is not a write*"])


def test_validate_requires_golden_values_the_agent_could_see_or_derive(toy):
    unseen = REFUND_TASK.replace("Please refund the 40 dollars you owe me.", "Please refund what you owe me.")
    toy.makepyfile(test_tasks=unseen)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["  call 2 issue_refund amount_cents = 4000 appears nowhere the agent could see before the call*"]
    )
    declared = unseen.replace("import User, call", "import User, call, derived").replace(
        "amount_cents=4000", 'amount_cents=derived(4000, "the 40 dollars the account is owed, in cents")'
    )
    toy.makepyfile(test_tasks=declared)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["toy *0/0 *1 *0"])  # one derived value


def test_validate_fails_a_volatile_column_written_with_data_the_user_gave(toy):
    copied = REFUND_TASK.replace("Please refund the 40 dollars you owe me.", "Refund the 40 dollars, ref INV-2231.")
    toy.makepyfile(test_tasks=copied.replace('note="refunded"', 'note="INV-2231"'))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "  tickets[[]T-9[]].note is volatile (never graded) but is written with 'INV-2231', "
            "a value from the user's message: grade it*"
        ]
    )


def test_validate_counts_a_noop_that_differs_only_in_a_stamp_as_passing(toy):
    toy.makepyfile(
        test_tasks="""
        from pytest_thinkingbox import User, call
        from toydomain import AccountFactory, TicketFactory

        def test_case_TY013_001(tb):
            account = AccountFactory()
            TicketFactory(id="T-9", account_id=account.id)  # already open: setting it open stamps updated_at only
            golden = [call("update_ticket", ticket_id="T-9", status="open")]
            run = tb.run(User(says="Is ticket T-9 open?"), golden=golden)
            run.expect_golden()
        """
    )
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["INVALID test_case_TY013_001 (toy):", "  the noop agent passes: the task requires nothing to be done*"]
    )
    assert "golden agent failed" not in result.stdout.str()  # a validation failure is not an unstable golden


def test_validate_reports_two_tasks_with_the_same_start_and_golden_calls_as_duplicates(toy):
    toy.makepyfile(test_tasks=REFUND_TASK + REFUND_TASK.replace("TY001_001", "TY001_002"))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2)  # each task is sound on its own; the report sees the pair
    result.stdout.fnmatch_lines(
        [
            "INVALID test_case_TY001_002 (toy):",
            "  a duplicate of test_case_TY001_001: the same start state and golden calls",
            "the benchmark is not valid",
        ]
    )


def test_a_malformed_validity_marker_is_a_usage_error(toy):
    toy.makepyfile(test_tasks=SOLVE_ONLY_TASK.format(marker='@pytest.mark.tb_validity(baseline_ok={"close": "x"})'))
    result = toy.runpytest("--tb-validate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tb_validity(baseline_ok=...) names 'close'; baselines are solve, hold, *"])
