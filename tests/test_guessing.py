"""Guessing must not pay: validation tries the endings a careless agent would guess, and looks across tasks.

The toy domain's tasks below are written to be caught: a hold that the domain's
usual ending passes, a family whose memoriser passes, a near-copy of another
task, an opening line that dictates the amount.
"""

from __future__ import annotations

import json

import pytest

from pytest_thinkingbox.core.endings import Ending, domain_endings, ending_of
from pytest_thinkingbox.core.task_checks import answered_by_opening, duplicates

#: A task whose refund above the limit is held: `{n}` numbers it, `{amount}` is the refund asked for (cents).
HOLD = """
def test_case_TY0{family}_00{n}(tb):
    account = AccountFactory()
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="Refund the {dollars} dollars you owe me now.", knows={{"account id": account.id, "ticket": "T-9"}}),
        golden=[
            call("get_account", account_id=account.id),
            call("update_ticket", ticket_id="T-9", status="hold", note="above the refund limit"),
        ],
    )
    run.expect_golden()
    assert run.db.get(Ticket, "T-9").status == "hold"
"""
HEAD = "import pytest\nfrom pytest_thinkingbox import User, call, derived\nfrom toydomain import *\n"


def hold(family: int, n: int, amount: int) -> str:
    return HOLD.format(family=family, n=n, dollars=amount // 100)


def test_a_task_the_domains_usual_ending_passes_is_invalid_naming_the_guess(toy):
    toy.makepyfile(test_tasks=HEAD + hold(20, 1, 15_000) + hold(21, 1, 25_000) + hold(22, 1, 35_000))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "baselines that guess the domain's usual endings (rank:1-10) and the family's (family) pass rank:1 3/3; "
            "any of them 3/3",
            "INVALID test_case_TY020_001 (toy):",
            "  the policy-blind baseline 'rank:1' passes (it writes status hold): the task cannot tell its fixed "
            "ending from the policy's*",
        ]
    )


def test_a_family_whose_memoriser_passes_is_reported_and_a_reason_lets_one_task_through(toy):
    tasks = hold(30, 1, 15_000) + hold(30, 2, 25_000)
    toy.makepyfile(test_tasks=HEAD + tasks)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*'family' passes (it writes status hold)*"])
    marked = '@pytest.mark.tb_validity(baseline_ok={"family": "why", "rank:1": "why", "hold": "why"})'
    toy.makepyfile(test_tasks=HEAD + marked + hold(30, 1, 15_000) + marked + hold(30, 2, 25_000))
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["INVALID toy: 2 of 2 tasks declare a baseline's ending right *"])  # at most 1%
    toy.makepyfile(test_tasks=HEAD + marked + hold(30, 1, 15_000))
    assert toy.runpytest("--tb-validate", "--tb-repeat", "1").ret == pytest.ExitCode.OK  # one task may


def test_a_near_copy_of_another_task_is_a_structural_duplicate_unless_declared_a_variant(toy):
    refund = """
def test_case_TY0{family}_001(tb):
    account = AccountFactory(owner="{owner}")
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="{says}", knows={{"account id": account.id, "ticket": "T-9"}}),
        golden=[
            call("get_account", account_id=account.id),
            call("issue_refund", account_id=account.id, amount_cents=derived({amount}, "what the customer asked")),
            call("update_ticket", ticket_id="T-9", status="solved", note="{note}"),
        ],
    )
    run.expect_golden()
"""
    one = refund.format(family=40, owner="Ada", says="Refund what I paid twice.", amount=4_000, note="refunded in full")
    two = refund.format(family=41, owner="Bo", says="I was charged twice, refund it.", amount=6_000, note="paid back")
    toy.makepyfile(test_tasks=HEAD + one + two)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        ["INVALID test_case_TY041_001 (toy):", "  a structural duplicate of test_case_TY040_001: *"]
    )
    variant = '@pytest.mark.tb_validity(variant_of={"test_case_TY040_001": "the same refund at another amount"})'
    toy.makepyfile(test_tasks=HEAD + one + variant + two)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    assert "structural duplicate" not in result.stdout.str()


def test_an_opening_line_that_dictates_the_computed_amount_is_reported(toy):
    task = """
def test_case_TY050_001(tb):
    account = AccountFactory()
    TicketFactory(id="T-9", account_id=account.id)
    run = tb.run(
        User(says="Refund me $40.00 now.", knows={"account id": account.id, "ticket": "T-9"}),
        golden=[
            call("get_account", account_id=account.id),
            call("issue_refund", account_id=account.id, amount_cents=derived(4_000, "the double charge")),
            call("update_ticket", ticket_id="T-9", status="solved", note="refunded"),
        ],
    )
    run.expect_golden()
"""
    toy.makepyfile(test_tasks=HEAD + task)
    result = toy.runpytest("--tb-validate", "--tb-repeat", "1", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        ["*the user's opening line names what the policy decides (amount_cents 4000 (computed by the policy))*"]
    )


def test_the_ending_of_a_golden_path_is_its_first_tickets_last_fields_and_internal_comment():
    golden = [
        {"tool": "create_ticket", "arguments": {"requester_id": "C-1", "category": "delivery"}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-2", "status": "hold", "priority": "high"}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-2", "queue": "carrier_claims"}},
        {"tool": "add_ticket_comment", "arguments": {"ticket_id": "T-2", "body": "x", "public": False}},
        {"tool": "update_ticket", "arguments": {"ticket_id": "T-3", "status": "solved"}},
    ]
    assert ending_of(golden) == Ending("hold", "high", None, "carrier_claims", comment=True)
    assert ending_of([{"tool": "issue_refund", "arguments": {}}]) is None


def test_guesses_are_learnt_from_the_other_tasks_only():
    briefs = [
        {"task": f"test_case_XX00{f}_00{n}", "domain": "d", "golden": [_ticket(status)]}
        for f, n, status in [(1, 1, "hold"), (1, 2, "hold"), (2, 1, "solved"), (2, 2, "pending"), (3, 1, "solved")]
    ]
    endings = domain_endings(briefs)["d"]
    assert [e.status for e in endings.ranked("test_case_XX001_001")] == ["solved", "hold", "pending"]
    assert [e.status for e in endings.ranked("test_case_XX002_001")] == ["hold", "pending", "solved"]
    assert endings.family("test_case_XX001_001") == Ending("hold")
    assert endings.family("test_case_XX003_001") is None  # no other task in its family


def test_shapes_keep_decisions_and_forget_names_ids_text_and_amounts():
    def brief(task: str, owner: str, amount: int, method: str) -> dict:
        call = {"tool": "refund", "arguments": {"order_id": f"O-{amount}", "amount_cents": amount, "method": method}}
        rows = {"customers": {f"C-{amount}": {"name": owner, "tier": "plus"}}}
        return {"task": task, "domain": "d", "golden": [call], "arranged": rows}

    same = [brief("a", "Ada", 4_000, "original"), brief("b", "Bo", 9_900, "original")]
    assert duplicates(same) == {"a": ["b"], "b": ["a"]}
    assert duplicates([same[0], brief("c", "Cy", 9_900, "store_credit")]) == {}  # another decision


def test_an_opening_that_names_one_decided_value_is_speech_and_two_are_a_dictation():
    golden = [{"tool": "update_ticket", "arguments": {"ticket_id": "T-1", "status": "hold", "queue": "refunds_team"}}]

    def says(text: str) -> dict:
        return {"user": {"says": text}, "golden": golden}

    assert answered_by_opening(says("My parcel is on hold at the depot.")) == []
    assert answered_by_opening(says("Put the ticket on hold for the refunds team.")) == [
        "status 'hold'",
        "queue 'refunds_team'",
    ]


def _ticket(status: str) -> dict:
    return {"tool": "update_ticket", "arguments": {"ticket_id": "T-1", "status": status}}


def test_the_capture_file_holds_each_tasks_brief_once(toy):
    toy.makepyfile(test_tasks=HEAD + hold(60, 1, 15_000))
    toy.runpytest("--tb-capture", "briefs.jsonl", "--tb-repeat", "3").assert_outcomes(passed=3)
    [brief] = [json.loads(line) for line in (toy.path / "briefs.jsonl").read_text().splitlines()]
    assert brief["task"] == "test_case_TY060_001"
    assert brief["domain"] == "toy"
    assert [c["tool"] for c in brief["golden"]] == ["get_account", "update_ticket"]
    assert brief["arranged"]["tickets"]["T-9"]["account_id"] == "A-1"


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_guessing_baseline_runs_as_an_agent_with_or_without_workers(toy, workers):
    toy.makepyfile(test_tasks=HEAD + hold(70, 1, 15_000) + hold(71, 1, 25_000) + hold(72, 1, 35_000))
    result = toy.runpytest_subprocess(*workers, "--tb-agent", "blind:rank:1", "-p", "no:randomly")
    result.assert_outcomes(passed=3)  # each task's guess, from the two others, is the hold its checks accept
    result = toy.runpytest_subprocess(*workers, "--tb-agent", "blind:rank:2", "-p", "no:randomly")
    result.assert_outcomes(failed=3)  # there is no second ending to guess: it writes nothing
