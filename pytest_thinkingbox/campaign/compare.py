"""Two runs on the same tasks, task by task: what changed, and whether it is more than noise.

The comparison is paired: each task is its own control, so the interval comes
from the per-task differences of pass@1 (normal approximation, sd / sqrt(T)),
not from two independent pass@1 figures. Pure functions over `campaign.Run`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .metrics import count
from .records import Run, check_same_bundle
from .report import labels
from .rule_breaks import rule_table

Z95 = 1.959964  # two-sided 95% quantile of the normal distribution
SHOWN = 20  # per-task changes listed in the terminal, largest first


def mean_interval(diffs: Sequence[float]) -> tuple[float, float | None]:
    """The mean of paired differences and the half-width of its 95% interval (None with fewer than 2)."""
    t = len(diffs)
    mean = sum(diffs) / t
    if t < 2:
        return mean, None
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (t - 1))
    return mean, Z95 * sd / math.sqrt(t)


def compare(a: Run, b: Run, allow_mixed_bundles: bool = False) -> dict[str, Any]:
    """Run `b` against run `a` (the baseline), paired by task.

    Returns:
        A JSON-able dict: the runs, tasks only in one of them, per-task pass@1 (a, b, delta), the tasks that
        gained or lost observed k/k, and the mean pass@1 difference with its 95% interval.
    """
    if not allow_mixed_bundles:
        check_same_bundle([a, b])
    ca, cb = count(a.records), count(b.records)
    common = sorted(set(ca) & set(cb))
    per_task: list[dict[str, Any]] = []
    for task in common:
        ta, tb = ca[task], cb[task]
        pa, pb = ta.passed / ta.attempts, tb.passed / tb.attempts
        all_a, all_b = ta.passed == ta.attempts, tb.passed == tb.attempts
        per_task.append(
            {
                "task": task,
                "domain": tb.domain,
                "a": pa,
                "b": pb,
                "delta": pb - pa,
                "all_a": all_a,
                "all_b": all_b,
                "attempts_a": ta.attempts,
                "attempts_b": tb.attempts,
            }
        )
    mean, half = mean_interval([t["delta"] for t in per_task]) if per_task else (None, None)
    interval = [mean - half, mean + half] if mean is not None and half is not None else None
    # Named by agent and run id; the same run id in both files (two older files, say) by file instead.
    names = {
        side: f"{labels([run])[run.id]} (" + (f"run {run.id}" if a.id != b.id else ", ".join(run.files)) + ")"
        for side, run in (("a", a), ("b", b))
    }
    return {
        "rules": rule_changes(a, b, set(common)),
        "a": {"id": a.id, "label": names["a"], "bundle": a.bundle, "k": a.k},
        "b": {"id": b.id, "label": names["b"], "bundle": b.bundle, "k": b.k},
        "only_a": sorted(set(ca) - set(cb)),
        "only_b": sorted(set(cb) - set(ca)),
        "per_task": per_task,
        "gained": [t["task"] for t in per_task if t["all_b"] and not t["all_a"]],
        "lost": [t["task"] for t in per_task if t["all_a"] and not t["all_b"]],
        "tasks": len(per_task),
        "mean_delta": mean,
        "interval": interval,
        "within_noise": interval is None or interval[0] <= 0 <= interval[1],
        "half_width": half,
    }


def rule_changes(a: Run, b: Run, tasks: set[str]) -> list[dict[str, Any]]:
    """Per domain and policy rule, the share of the paired tasks' attempts breaking it in each run."""
    tables = [rule_table(r for r in run.records if r["task"] in tasks) for run in (a, b)]
    out = []
    for domain in sorted(set(tables[0]) | set(tables[1])):
        rules = set(tables[0].get(domain, {})) | set(tables[1].get(domain, {}))
        for rule in sorted(rules):
            sides = [t.get(domain, {}).get(rule) for t in tables]
            share_a, share_b = (side["share"] if side else 0.0 for side in sides)
            counts = [side["attempts"] if side else 0 for side in sides]
            out.append(
                {
                    "domain": domain,
                    "rule": rule,
                    "a": share_a,
                    "b": share_b,
                    "delta": share_b - share_a,
                    "attempts_a": counts[0],
                    "attempts_b": counts[1],
                }
            )
    return sorted(out, key=lambda r: (-abs(r["delta"]), r["domain"], r["rule"]))


def _pct(x: float) -> str:
    return f"{x:+.3f}"


def compare_lines(result: dict[str, Any]) -> list[str]:
    """The comparison for the terminal: headline, interval, noise warning, k/k changes, per-task deltas."""
    a, b = result["a"], result["b"]
    lines = [f"compare {b['label']} against {a['label']}, bundle {b['bundle'] or 'unknown'}"]
    if a["bundle"] != b["bundle"]:
        lines.append(f"  warning: different bundles ({a['bundle']} vs {b['bundle']}): tasks may differ")
    for side, tasks in (("a", result["only_a"]), ("b", result["only_b"])):
        if tasks:
            owner = result[side]["label"]
            lines.append(
                f"  {len(tasks)} tasks only in {owner}, left out: {', '.join(tasks[:10])}"
                + (" ..." if len(tasks) > 10 else "")
            )
    if not result["tasks"]:
        lines.append("  no task in common: nothing to compare")
        return lines
    attempts = sorted({t["attempts_a"] for t in result["per_task"]} | {t["attempts_b"] for t in result["per_task"]})
    head = f"  pass@1 difference (b - a) over {result['tasks']} paired tasks: {_pct(result['mean_delta'])}"
    if result["interval"] is None:
        lines.append(head + " (one task: no interval)")
    else:
        low, high = result["interval"]
        lines.append(head + f", 95% interval [{_pct(low)}, {_pct(high)}]")
    if result["within_noise"] and result["half_width"] == 0:
        lines.append("  every paired task has the same pass@1 in both runs: no difference to test")
    elif result["within_noise"]:
        floor = f"{result['half_width']:.3f}" if result["half_width"] is not None else "unknown"
        lines.append(
            f"  within the noise floor: with {result['tasks']} tasks and {'/'.join(map(str, attempts))} attempts each,"
        )
        lines.append(
            f"  a pass@1 difference smaller than about {floor} cannot be told from chance (more tasks or "
            "attempts narrow it)"
        )
    lines.append(f"  observed k/k: {len(result['gained'])} tasks gained, {len(result['lost'])} lost")
    for word, tasks in (("gained", result["gained"]), ("lost", result["lost"])):
        if tasks:
            more = f" ... {len(tasks) - SHOWN} more" if len(tasks) > SHOWN else ""
            lines.append(f"    {word}: {', '.join(tasks[:SHOWN])}{more}")
    changed = sorted((t for t in result["per_task"] if t["delta"]), key=lambda t: (-abs(t["delta"]), t["task"]))
    if changed:
        lines.append(f"  per-task pass@1 changes ({len(changed)} of {result['tasks']} tasks, largest first):")
        for t in changed[:SHOWN]:
            lines.append(f"    {t['task']:<28} {t['a']:.3f} -> {t['b']:.3f}  {_pct(t['delta'])}  {t['domain']}")
        if len(changed) > SHOWN:
            lines.append(f"    ... {len(changed) - SHOWN} more")
    else:
        lines.append("  no task changed its pass@1")
    moved = [r for r in result.get("rules", []) if r["delta"]]
    if moved:
        lines.append(f"  policy rules broken, share of attempts (a -> b), {len(moved)} that moved, largest first:")
        for r in moved[:SHOWN]:
            lines.append(
                f"    {r['rule']:<8} {r['a']:.3f} -> {r['b']:.3f}  {_pct(r['delta'])}  "
                f"({r['attempts_a']} -> {r['attempts_b']} attempts)  {r['domain']}"
            )
    return lines
