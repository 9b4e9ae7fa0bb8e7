"""Failure explanations for state checks, written for the person reading pytest's output."""

from __future__ import annotations

from collections.abc import Sequence

from .state import Difference


def explain(differences: Sequence[Difference], what: str = "the golden end state") -> str:
    counts = {kind: sum(d.kind == kind for d in differences) for kind in ("wrong", "missing", "extra")}
    head = f"end state differs from {what}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
    return "\n".join([head, *("  " + d.explain() for d in differences)])


def expect_no_differences(differences: Sequence[Difference], what: str = "the golden end state") -> None:
    """Fail with a per-row, per-field explanation when there is any difference."""
    __tracebackhide__ = True
    if differences:
        raise AssertionError(explain(differences, what))
