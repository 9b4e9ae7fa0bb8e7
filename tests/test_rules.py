"""Each bundled policy as executable rules: every clause mapped, every citation real, rules that judge rows.

The rules themselves are checked against every golden end state by
``pytest domains --tb-validate`` (tests/test_validation.py runs it on small
domains); here: the policy's numbering, the mapping of clauses to rules, and
the evidence a rule reads.
"""

from __future__ import annotations

import importlib

import pytest

from pytest_thinkingbox import Evidence, Rules, Violation
from pytest_thinkingbox.core.rules import parse_policy

DOMAINS = ["auto_insurance", "consulting", "neobank", "retail", "travel"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_clause_of_every_policy_has_a_rule_or_is_judgement_only(domain):
    bundled = importlib.import_module(f"domains.{domain}").DOMAIN
    assert bundled.rules is not None, f"domains/{domain}: give Domain(rules=...) the policy's rules (rules.py)"
    assert bundled.rules.problems(bundled.policy_text) == []


POLICY = """# A shop

The preamble holds no clause.

## Refunds

- [SH-1] Refund at most 100.
  A second line of the same clause.
- [SH-2] Never split a refund.
  - a nested bullet belongs to SH-2

### Method

[SH-3] Refund to the original payment.

## Tickets

- [SH-4] Hold tickets you escalate.
"""


def test_a_policy_is_parsed_into_numbered_clauses_under_their_headings():
    policy = parse_policy(POLICY)
    assert list(policy.clauses) == ["SH-1", "SH-2", "SH-3", "SH-4"]
    assert policy.clauses["SH-3"].sections == ("Refunds", "Method")
    assert policy.clauses["SH-3"].section == "Refunds"
    assert "nested bullet" in policy.clauses["SH-2"].text
    assert policy.unnumbered == ()


def test_unmapped_clauses_unnumbered_paragraphs_and_bad_citations_are_named():
    rules = Rules()

    @rules.rule("SH-1", "At most 100", section="Refunds", clauses=("SH-1", "SH-9"))
    def at_most_100(ev):
        return []

    @rules.rule("SH-4", "Hold escalations", section="Refunds")
    def hold(ev):
        return []

    @rules.rule("SH-3", "Refund to the original payment", section="Method", clauses=("SH-3", "SH-1"))
    def original(ev):  # its second clause, a definition elsewhere, may sit in any section
        return []

    problems = rules.problems(POLICY.replace("- [SH-2] Never", "- Never"))
    assert problems == [
        "a paragraph has no clause id: 'Never split a refund.'",
        "rule SH-1 checks clause SH-9, which the policy does not number",
        "rule SH-4 cites section 'Refunds', but clause SH-4 is under 'Tickets'",
    ]


def test_a_rule_that_cites_a_section_the_policy_lacks_is_named():
    rules = Rules()

    @rules.rule("SH-1", "At most 100", section="Refund limits")
    def at_most_100(ev):
        return []

    assert "rule SH-1 cites section 'Refund limits', which the policy does not have" in rules.problems(POLICY)
    assert "clause SH-2 has no rule and is not marked judgement-only" in rules.problems(POLICY)


def test_a_rule_runs_only_when_a_table_it_watches_was_written_and_its_violations_carry_its_id():
    rules = Rules()
    seen = []

    @rules.rule("SH-1", "At most 100", section="Refunds", on=("refunds",))
    def at_most_100(ev):
        seen.append("SH-1")
        for refund in ev.added("refunds"):
            if refund.amount > 100:
                yield Violation.of(refund, f"refund of {refund.amount}", "amount")

    class NoDatabase:
        def select(self, table, match):
            return {}

    from sqlalchemy import Column, Integer, MetaData, String, Table

    metadata = MetaData()
    Table("refunds", metadata, Column("id", String, primary_key=True), Column("amount", Integer))
    Table("tickets", metadata, Column("id", String, primary_key=True), Column("status", String))
    quiet = Evidence(
        metadata,
        {"tickets": {"T-1": ({"id": "T-1", "status": "open"}, {"id": "T-1", "status": "hold"})}},
        NoDatabase(),  # type: ignore[arg-type]  # reads nothing
    )
    assert rules.check(quiet) == []
    assert seen == []
    refund = {"id": "R-1", "amount": 150}
    loud = Evidence(metadata, {"refunds": {"R-1": (None, refund)}}, NoDatabase())  # type: ignore[arg-type]
    [violation] = rules.check(loud)
    assert violation == Violation("refund of 150", "refunds", "R-1", "amount", "SH-1")
    assert violation.explain() == "SH-1 refunds[R-1].amount: refund of 150"


# One golden per domain made to break its policy: a bundled task whose declared trap is moved into its golden path.
WEAKENED = {
    "auto_insurance": ("test_endorsements", "test_case_AI020_002", "AI-48"),
    "consulting": ("test_licences", "test_case_CO004_002", "CO-54"),
    "neobank": ("test_internal_access", "test_case_NB038_001", "NB-106"),
    "retail": ("test_account_promotions", "test_case_RT009_003", "RT-69"),
    "travel": ("test_loyalty", "test_case_TR008_003", "TR-59"),
}


def weakened_task(module: str, task: str) -> str:
    """The source of `task` with its first trap appended to its golden calls and no check but expect_golden."""
    import ast
    import inspect

    function = ast.parse(inspect.getsource(getattr(importlib.import_module(module), task))).body[0]
    assert isinstance(function, ast.FunctionDef)
    for i, statement in enumerate(function.body):
        if isinstance(statement, ast.Assign) and "tb.run" in ast.unparse(statement.value):
            keywords = {k.arg: k for k in statement.value.keywords}  # type: ignore[attr-defined]
            keywords["golden"].value.elts.append(keywords["traps"].value.elts[0])
            statement.value.keywords.remove(keywords["traps"])  # type: ignore[attr-defined]
            function.body[i + 1 :] = ast.parse("run.expect_golden()").body
            break
    function.decorator_list = []
    return ast.unparse(function)


@pytest.mark.parametrize("domain", sorted(WEAKENED))
def test_a_golden_that_breaks_the_policy_is_invalid_naming_the_rule(pytester, domain):
    module, task, rule = WEAKENED[domain]
    source = f"domains.{domain}.{module}"
    pytester.makeconftest(
        f"import pytest\n\n@pytest.fixture(scope='session')\ndef tb_domain():\n"
        f"    from domains.{domain} import DOMAIN\n    return DOMAIN\n"
    )
    body = f"import {source} as original\n"
    body += "globals().update({k: v for k, v in vars(original).items() if not k.startswith(('test', '__'))})\n\n"
    pytester.makepyfile(**{f"test_weakened_{domain}": body + weakened_task(source, task)})
    result = pytester.runpytest("--tb-validate", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [f"INVALID {task} ({domain}):", f"*the golden end state breaks policy rule {rule}[: ]*"]
    )


# The flaky agent's faults at seed 7, and the rules a reader of each policy says each one breaks (checked by hand
# against the differences of each attempt; attempts not listed passed and break none).
HAND_CHECKED = {
    ("test_case_AI020_002", 1): ["AI-99"],  # the ticket filed under vehicle: the change made was a coverage
    ("test_case_AI020_002", 2): ["AI-99"],  # filed under driver, the same way
    ("test_case_AI020_002", 4): ["AI-101"],  # the coverage dropped, yet solved with no reason: a grant of nothing
    ("test_case_NB038_001", 3): ["NB-102", "NB-142", "NB-149"],  # ticket left open after failed verification
    ("test_case_RT003_001", 3): ["RT-15"],  # refunded to store credit the customer never asked for
    ("test_case_RT009_003", 2): ["RT-4"],  # the ticket's ending dropped
    ("test_case_RT009_003", 3): ["RT-84", "RT-88", "RT-89", "RT-102"],  # a refusal put on hold: wrong reason,
    # priority and comment for a hold
    ("test_case_TR001_003", 1): ["TR-27", "TR-35"],  # cancelled by the hotel's fault, not refunded in full
    ("test_case_TR008_003", 1): ["TR-110"],  # the upgrade dropped, yet solved with no reason
}


def test_the_rules_a_flaky_agent_breaks_are_those_a_reader_of_the_policy_names(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    tasks = sorted({task.removeprefix("test_case_") for task, _ in HAND_CHECKED})
    results = tmp_path / "flaky.jsonl"
    command = [sys.executable, "-m", "pytest", "domains", "-k", " or ".join(tasks), "--tb-agent", "flaky"]
    command += ["--tb-seed", "7", "--tb-repeat", "4", "-p", "no:randomly", "-q", "--tb-results", str(results)]
    subprocess.run(command, cwd=Path(__file__).resolve().parents[1], capture_output=True, check=False)
    records = [json.loads(line) for line in results.read_text().splitlines() if '"manifest"' not in line]
    assert len(records) == 4 * len(tasks)
    broken = {(r["task"], r["attempt"]): r["rules_broken"] for r in records if r["rules_broken"]}
    assert broken == HAND_CHECKED
    assert all(r["outcome"] == "failed" for r in records if (r["task"], r["attempt"]) in HAND_CHECKED)
