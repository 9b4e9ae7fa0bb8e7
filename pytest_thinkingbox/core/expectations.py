"""Failure explanations for state checks, written for the person reading pytest's output."""

from __future__ import annotations

from collections.abc import Sequence

from .rules import Violation, rules_broken
from .state import Difference


def explain(
    differences: Sequence[Difference], what: str = "the golden end state", violations: Sequence[Violation] = ()
) -> str:
    counts = {kind: sum(d.kind == kind for d in differences) for kind in ("wrong", "missing", "extra")}
    head = f"end state differs from {what}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
    lines = [head, *("  " + d.explain() for d in differences)]
    if violations:
        lines.append(f"policy rules broken: {', '.join(rules_broken(violations))}")
        lines.extend("  " + v.explain() for v in violations)
    return "\n".join(lines)


def expect_no_differences(
    differences: Sequence[Difference], what: str = "the golden end state", violations: Sequence[Violation] = ()
) -> None:
    """Fail with a per-row, per-field explanation when there is any difference (and the rules broken)."""
    __tracebackhide__ = True
    if differences:
        raise AssertionError(explain(differences, what, violations))
