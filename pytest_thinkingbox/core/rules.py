"""A domain's policy as executable rules: the second oracle, beside each task's golden path.

A policy (``policy.md``) is numbered clause by clause: every paragraph and
top-level bullet under a heading starts with its id in brackets
(``- [RT-7] If the exception was opened ...``). A domain's ``rules.py`` declares
one `Rules` for that policy; each clause is then either checked by a rule or
marked judgement-only (a matter of what the agent says, graded by rubric
questions)::

    RULES = Rules()

    @RULES.rule("RT-7", "No refund while a carrier exception is open", section="Delivery exceptions", on=("refunds",))
    def no_refund_during_an_open_exception(ev: Evidence) -> Iterator[Violation]:
        for refund in ev.added("refunds"):
            ...
                yield Violation.of(refund, "the order's carrier exception is still open", "order_id")

    RULES.judgement("RT-9", section="Delivery exceptions", why="what the customer is told")

A rule is a pure function of an attempt's `Evidence`: its start and end state
(whole tables, read lazily), its effects (the rows written) and, where a clause
is about the order of things, its transcript. It runs only when one of the
tables it names in ``on`` was written (every time when it names none), so most
attempts evaluate a handful of rules. It returns the violations it finds, each
naming the row and field; nothing here knows about pytest or agents.

This module is the rules API; `policy` reads the policy text into clauses and
`evidence` holds what a rule reads (both exported here as before).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import TaskDefinitionError
from .evidence import Evidence, RuleRow, TableView, ToolCall
from .policy import parse_policy
from .state import Key

__all__ = [
    "Check",
    "Evidence",
    "Judgement",
    "Rule",
    "RuleRow",
    "Rules",
    "TableView",
    "ToolCall",
    "Violation",
    "parse_policy",
    "rules_broken",
]


@dataclass(frozen=True)
class Violation:
    """A rule broken by one row (or by the attempt as a whole, when `table` is None)."""

    message: str
    table: str | None = None
    key: Key | None = None
    field: str | None = None
    rule: str = ""  # set by `Rules.check`

    @classmethod
    def of(cls, row: RuleRow | None, message: str, field: str | None = None) -> Violation:
        """The violation of `row` (its `field`, if one), saying why."""
        if row is None:
            return cls(message)
        return cls(message, row.table, row.key, field)

    def explain(self) -> str:
        where = "" if self.table is None else f" {self.table}[{self.key}]" + (f".{self.field}" if self.field else "")
        return f"{self.rule}{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "table": self.table, "key": self.key, "field": self.field, "message": self.message}


Check = Callable[[Evidence], Iterable[Violation]]


@dataclass(frozen=True)
class Rule:
    """One executable rule: the clauses it checks, the tables whose writes wake it, and the check."""

    id: str
    title: str
    section: str
    check: Check
    on: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """A clause no state can show: what the agent says or how it talks, graded by rubric questions."""

    clause: str
    section: str
    why: str


@dataclass
class Rules:
    """A domain's policy as executable rules, and the clauses left to judgement (``Domain(rules=...)``)."""

    rules: dict[str, Rule] = field(default_factory=dict)
    judgements: dict[str, Judgement] = field(default_factory=dict)

    def rule(
        self, id: str, title: str, *, section: str, on: Sequence[str] = (), clauses: Sequence[str] = ()
    ) -> Callable[[Check], Check]:
        """Declare a rule (a decorator): ``@RULES.rule("RT-7", "...", section="Refunds", on=("refunds",))``.

        Args:
            id: the rule's id; by default also the one clause it checks.
            title: what the rule requires, in a line.
            section: the policy heading its (first) clause sits under.
            on: the tables whose writes make the rule worth checking (none: check every attempt).
            clauses: the clause ids it checks, when not just `id`: its own first, then any it relies on
                (a definition, a date rule) wherever they sit in the policy.
        """
        if id in self.rules:
            raise TaskDefinitionError(f"rule {id} is declared twice")

        def declare(check: Check) -> Check:
            self.rules[id] = Rule(id, title, section, check, tuple(on), tuple(clauses) or (id,))
            return check

        return declare

    def judgement(self, *clauses: str, section: str, why: str) -> None:
        """Mark clauses as judgement-only: graded by what the agent says (rubric questions), not by state."""
        for clause in clauses:
            self.judgements[clause] = Judgement(clause, section, why)

    def check(self, evidence: Evidence) -> list[Violation]:
        """Every violation of every rule that the evidence's writes wake, each stamped with its rule id."""
        written = evidence.tables_written
        out = []
        for r in self.rules.values():
            if r.on and not written.intersection(r.on):
                continue
            for v in r.check(evidence) or ():
                out.append(Violation(v.message, v.table, v.key, v.field, r.id))
        return out

    def problems(self, policy_text: str) -> list[str]:
        """What keeps the rules from mapping the policy: unnumbered paragraphs, unmapped clauses, bad citations."""
        policy = parse_policy(policy_text)
        lines = [f"a paragraph has no clause id: {text!r}" for text in policy.unnumbered]
        covered: dict[str, str] = {}
        for r in self.rules.values():
            if r.section not in policy.headings:
                lines.append(f"rule {r.id} cites section {r.section!r}, which the policy does not have")
            for i, clause in enumerate(r.clauses):
                found = policy.clauses.get(clause)
                if found is None:
                    lines.append(f"rule {r.id} checks clause {clause}, which the policy does not number")
                elif i == 0 and r.section not in found.sections:  # later clauses: definitions it uses, anywhere
                    lines.append(
                        f"rule {r.id} cites section {r.section!r}, but clause {clause} is under {found.section!r}"
                    )
                covered.setdefault(clause, f"rule {r.id}")
        for j in self.judgements.values():
            found = policy.clauses.get(j.clause)
            if found is None:
                lines.append(f"judgement-only clause {j.clause} is not a clause the policy numbers")
            elif j.section not in found.sections:
                lines.append(f"judgement-only clause {j.clause} cites {j.section!r}, but it is under {found.section!r}")
            elif j.clause in covered:
                lines.append(f"clause {j.clause} is both checked by {covered[j.clause]} and marked judgement-only")
            covered.setdefault(j.clause, "judgement")
        for clause in policy.clauses:
            if clause not in covered:
                lines.append(f"clause {clause} has no rule and is not marked judgement-only")
        return lines

    def describe(self) -> list[dict[str, Any]]:
        """Each rule and judgement-only clause, as `thinkingbox rules` lists them."""
        rows: list[dict[str, Any]] = [
            {"id": r.id, "title": r.title, "section": r.section, "clauses": list(r.clauses), "on": list(r.on)}
            for r in self.rules.values()
        ]
        return rows


def rules_broken(violations: Iterable[Violation]) -> list[str]:
    """The ids of the rules broken, each once, in the order first broken."""
    return list(dict.fromkeys(v.rule for v in violations))
