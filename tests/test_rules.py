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
        metadata, {"tickets": {"T-1": ({"id": "T-1", "status": "open"}, {"id": "T-1", "status": "hold"})}}, NoDatabase()
    )
    assert rules.check(quiet) == [] and seen == []
    refund = {"id": "R-1", "amount": 150}
    loud = Evidence(metadata, {"refunds": {"R-1": (None, refund)}}, NoDatabase())
    [violation] = rules.check(loud)
    assert violation == Violation("refund of 150", "refunds", "R-1", "amount", "SH-1")
    assert violation.explain() == "SH-1 refunds[R-1].amount: refund of 150"
