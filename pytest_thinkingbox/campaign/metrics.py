"""Reliability figures over repeated attempts (formulas in docs/reference.md).

For a task with n attempts and c passes:

* pass@1 = c / n
* pass@k = 1 - C(n - c, k) / C(n, k)   solved at least once in k (unbiased)
* pass^k = C(c, k) / C(n, k)           solved in all of k (unbiased)
* observed k/k: c == n, counted literally

Each figure of a group is the mean over its tasks. A task with n < k cannot
give an unbiased estimate at k; it is estimated at k = n and listed under
``incomplete`` so the shortfall is visible rather than silently absorbed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from math import comb
from typing import Any


@dataclass
class TaskCounts:
    task: str
    domain: str
    attempts: int = 0
    passed: int = 0
    errors: int = 0


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k attempts drawn from n passes."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all of k attempts drawn from n pass."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def summarize(tasks: Iterable[TaskCounts], k: int) -> dict[str, Any]:
    """The figures of one group of tasks at the campaign's k."""
    tasks = list(tasks)
    if not tasks:
        return {
            "tasks": 0,
            "attempts": 0,
            "pass@1": None,
            "pass@k": None,
            "pass^k": None,
            "all_k": 0,
            "all_k_share": None,
            "retention": None,
            "errors": 0,
        }
    p1 = sum(t.passed / t.attempts for t in tasks) / len(tasks)
    pk = sum(pass_at_k(t.attempts, t.passed, min(k, t.attempts)) for t in tasks) / len(tasks)
    hk = sum(pass_hat_k(t.attempts, t.passed, min(k, t.attempts)) for t in tasks) / len(tasks)
    all_k = sum(t.passed == t.attempts for t in tasks)
    share = all_k / len(tasks)
    return {
        "tasks": len(tasks),
        "attempts": sum(t.attempts for t in tasks),
        "pass@1": p1,
        "pass@k": pk,
        "pass^k": hk,
        "all_k": all_k,
        "all_k_share": share,
        "retention": share / p1 if p1 else None,
        "errors": sum(t.errors for t in tasks),
    }


def count(records: Iterable[Mapping[str, Any]]) -> dict[str, TaskCounts]:
    """Per-task counts from per-attempt records (keyed by domain and task)."""
    out: dict[str, TaskCounts] = {}
    for r in records:
        t = out.setdefault(r["task"], TaskCounts(r["task"], r.get("domain") or "unknown"))
        t.attempts += 1
        t.passed += r["outcome"] == "passed"
        t.errors += r["outcome"] == "error"
    return out


def aggregate(
    records: Iterable[Mapping[str, Any]], k: int, expected: Collection[tuple[str, int]] | None = None
) -> dict[str, Any]:
    """The aggregate document: overall, per domain and per task, at the campaign's k.

    Tasks are summed in (domain, task) order, so the figures are the same to the
    last bit whatever order the records arrived in (xdist workers finish in any order).
    With the campaign's `expected` attempts (task, attempt), those that have no
    record are listed under ``missing`` and the campaign is not ``complete``.
    """
    records = list(records)
    seen = {(r["task"], r.get("attempt", 1)) for r in records}
    missing: dict[str, list[int]] = {}
    for task, attempt in sorted(set(expected or ()) - seen):
        missing.setdefault(task, []).append(attempt)
    tasks = sorted(count(records).values(), key=lambda t: (t.domain, t.task))
    by_domain: dict[str, list[TaskCounts]] = {}
    for t in tasks:
        by_domain.setdefault(t.domain, []).append(t)
    return {
        "k": k,
        "tasks": len(tasks),
        "attempts": sum(t.attempts for t in tasks),
        "overall": summarize(tasks, k),
        "domains": {name: summarize(ts, k) for name, ts in sorted(by_domain.items())},
        "per_task": {
            t.task: {"domain": t.domain, "passed": t.passed, "attempts": t.attempts, "errors": t.errors} for t in tasks
        },
        "incomplete": {t.task: t.attempts for t in tasks if t.attempts < k},
        "expected": len(expected) if expected is not None else None,
        "missing": missing,
        "complete": not missing,
    }
