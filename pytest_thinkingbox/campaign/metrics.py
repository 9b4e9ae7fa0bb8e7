"""Reliability figures over repeated attempts, each with its uncertainty (formulas in docs/reference.md).

A system error is not the agent's failure: a task's n counts its graded
attempts only (passed or failed), and the errors are counted beside the rates.
For a task with n graded attempts and c passes, and the campaign's k:

* pass@1 = c / n                          (every task with n >= 1)
* pass@k = 1 - C(n - c, k) / C(n, k)      solved at least once in k (unbiased; tasks with n >= k)
* pass^k = C(c, k) / C(n, k)              solved in all of k (unbiased; tasks with n >= k)
* k/k: c == n with n >= k, counted literally
* flaky: 0 < c < n with n >= k, solved sometimes but not always
* consistency gap = pass@k - pass^k: the chance that k attempts disagree

Each figure of a group is the mean over its tasks, with a standard error
clustered by task and a 95% interval (`stats.mean_estimate`). A task with
n < k cannot give an estimate at k: it is left out of pass@k, pass^k, k/k,
flaky and the gap (never estimated at k = n) and listed under ``incomplete``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from math import comb
from typing import Any

from .attempt_record import AttemptRecord
from .stats import Estimate, jeffreys_interval, mean_estimate

#: The figures that are means over tasks, and so carry ``_se`` and ``_ci95`` keys in a summary.
ESTIMATES = ("pass@1", "pass@k", "pass^k", "all_k_share", "flaky_share", "consistency_gap")


@dataclass
class TaskCounts:
    """One task's attempt records: all of them, the passes, and the system errors."""

    task: str
    domain: str
    attempts: int = 0  # records, system errors included
    passed: int = 0
    errors: int = 0

    @property
    def graded(self) -> int:
        """Attempts that the task's checks judged (passed or failed): the n of every rate."""
        return self.attempts - self.errors


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


def _put(out: dict[str, Any], name: str, estimate: Estimate) -> None:
    """A figure under its own key (as before), its standard error and its 95% interval beside it."""
    out[name] = estimate.value
    out[f"{name}_se"] = estimate.se
    out[f"{name}_ci95"] = list(estimate.interval) if estimate.interval else None


def summarize(tasks: Iterable[TaskCounts], k: int) -> dict[str, Any]:
    """The figures of one group of tasks at the campaign's k, each mean with its SE and 95% interval."""
    tasks = list(tasks)
    graded = [t for t in tasks if t.graded >= 1]
    complete = [t for t in tasks if t.graded >= k]
    attempts, errors = sum(t.attempts for t in tasks), sum(t.errors for t in tasks)
    out: dict[str, Any] = {
        "tasks": len(tasks),
        "attempts": attempts,
        "graded": attempts - errors,
        "errors": errors,
        "error_share": errors / attempts if attempts else None,
        "graded_tasks": len(graded),  # tasks in pass@1: at least one graded attempt
        "complete_tasks": len(complete),  # tasks in the k figures: at least k graded attempts
        "incomplete_tasks": len(tasks) - len(complete),
        "all_k": sum(t.passed == t.graded for t in complete),
        "flaky": sum(0 < t.passed < t.graded for t in complete),
    }
    at_k = [pass_at_k(t.graded, t.passed, k) for t in complete]
    hat_k = [pass_hat_k(t.graded, t.passed, k) for t in complete]
    _put(out, "pass@1", mean_estimate([t.passed / t.graded for t in graded]))
    _put(out, "pass@k", mean_estimate(at_k))
    _put(out, "pass^k", mean_estimate(hat_k))
    _put(out, "all_k_share", mean_estimate([float(t.passed == t.graded) for t in complete]))
    _put(out, "flaky_share", mean_estimate([float(0 < t.passed < t.graded) for t in complete]))
    _put(out, "consistency_gap", mean_estimate([a - h for a, h in zip(at_k, hat_k, strict=True)]))
    return out


def count(records: Iterable[AttemptRecord]) -> dict[str, TaskCounts]:
    """Per-task counts from per-attempt records (keyed by task)."""
    out: dict[str, TaskCounts] = {}
    for r in records:
        t = out.setdefault(r["task"], TaskCounts(r["task"], r.get("domain") or "unknown"))
        t.attempts += 1
        t.passed += r["outcome"] == "passed"
        t.errors += r["outcome"] == "error"
    return out


def task_rate(passed: int, graded: int) -> dict[str, Any]:
    """One task's pass rate c / n and its Jeffreys 95% interval (None without a graded attempt)."""
    if graded < 1:
        return {"pass@1": None, "ci95": None}
    return {"pass@1": passed / graded, "ci95": list(jeffreys_interval(passed, graded))}


def aggregate(
    records: Iterable[AttemptRecord], k: int, expected: Collection[tuple[str, int]] | None = None
) -> dict[str, Any]:
    """The aggregate document: overall, per domain and per task, at the campaign's k.

    Tasks are summed in (domain, task) order, so the figures are the same to the
    last bit whatever order the records arrived in (xdist workers finish in any order).
    With the campaign's `expected` attempts (task, attempt), those that have no
    record are listed under ``missing`` and the campaign is not ``complete``.
    ``incomplete`` maps each task with fewer than k graded attempts to its graded count.
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
        "incomplete": {t.task: t.graded for t in tasks if t.graded < k},
        "expected": len(expected) if expected is not None else None,
        "missing": missing,
        "complete": not missing,
    }
