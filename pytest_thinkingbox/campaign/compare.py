"""Two runs on the same tasks, task by task: what changed, and whether it is more than noise.

The comparison is paired: each task is its own control, so the test runs on the
per-task differences (b - a), not on two independent figures. For pass@1 and
pass^k it gives the mean difference, its 95% interval with Student's t at T - 1
degrees of freedom, the two-sided paired p-value, and the smallest difference
the campaign could detect; per domain the same, with Holm's correction over the
domains. System errors are left out of both runs' rates (a task's n is its
graded attempts) and their rates are compared beside. Runs of different bundles
or k are refused unless allowed. Pure functions over `records.Campaign`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .metrics import TaskCounts, count, pass_hat_k
from .records import Campaign, ReportError, check_same_bundle
from .report import labels
from .rule_breaks import rule_table
from .stats import ALPHA, PairedTest, holm, paired_test, two_proportion_p

SHOWN = 20  # per-task changes listed in the terminal, largest first
FIGURES = ("pass@1", "pass^k")  # the figures compared, overall and per domain


def check_same_k(a: Campaign, b: Campaign) -> None:
    """Refuse two runs of different k: pass@k, pass^k and k/k mean other things at another k."""
    if a.k != b.k:
        raise ReportError(
            f"the runs have different k (attempts per task): {a.describe()} has k = {a.k}, {b.describe()} has "
            f"k = {b.k}, so their pass^k and k/k are different figures; run both with the same --tb-repeat, or "
            "pass --allow-different-k to compare pass@1, and pass^k at the smaller k"
        )


def _rate(t: TaskCounts) -> float | None:
    return t.passed / t.graded if t.graded else None


def _hat(t: TaskCounts, k: int) -> float | None:
    return pass_hat_k(t.graded, t.passed, k) if t.graded >= k else None


def _all_k(t: TaskCounts, k: int) -> bool | None:
    """Solved k of k (every graded attempt passed, with at least k of them); None when short of k."""
    return t.passed == t.graded if t.graded >= k else None


def paired_dict(test: PairedTest) -> dict[str, Any]:
    """A paired test as plain data (the JSON-able form of `stats.PairedTest`)."""
    return {
        "tasks": test.tasks,
        "mean": test.mean,
        "sd": test.sd,
        "se": test.se,
        "ci95": list(test.interval) if test.interval else None,
        "p": test.p,
        "mdd80": test.mdd,
        "every": test.every,
        "significant": test.significant,
    }


def paired(per_task: Sequence[Mapping[str, Any]], figure: str) -> PairedTest:
    """The paired test of one figure over the per-task rows that have it in both runs."""
    return paired_test([t[figure]["b"] - t[figure]["a"] for t in per_task if t[figure]["delta"] is not None])


def paired_rows(ca: Mapping[str, TaskCounts], cb: Mapping[str, TaskCounts], k_a: int, k_b: int) -> list[dict[str, Any]]:
    """One row per task in both runs: pass@1 and pass^k (at the smaller k) in a and b, k/k at each run's k.

    A figure's ``delta`` is None when a run cannot estimate it for the task (no graded attempt, or
    fewer than k): such a task is left out of that figure's paired test.
    """
    k = min(k_a, k_b)
    rows: list[dict[str, Any]] = []
    for task in sorted(set(ca) & set(cb)):
        ta, tb = ca[task], cb[task]
        row: dict[str, Any] = {"task": task, "domain": tb.domain}
        for figure, of in (("pass@1", _rate), ("pass^k", lambda t: _hat(t, k))):
            va, vb = of(ta), of(tb)
            row[figure] = {"a": va, "b": vb, "delta": None if va is None or vb is None else vb - va}
        row |= {
            "a": row["pass@1"]["a"],
            "b": row["pass@1"]["b"],
            "delta": row["pass@1"]["delta"],
            "all_a": _all_k(ta, k_a),
            "all_b": _all_k(tb, k_b),
            "attempts_a": ta.graded,
            "attempts_b": tb.graded,
            "errors_a": ta.errors,
            "errors_b": tb.errors,
        }
        rows.append(row)
    return rows


def compare(
    a: Campaign, b: Campaign, allow_mixed_bundles: bool = False, allow_different_k: bool = False
) -> dict[str, Any]:
    """Run `b` against run `a` (the baseline), paired by task.

    Returns:
        A JSON-able dict: the runs (with their system-error counts), tasks only in one of them, per task
        pass@1 and pass^k in a and b, the tasks that gained or lost k/k, the paired tests of pass@1 and
        pass^k overall (``figures``) and per domain (``domains``, with Holm-adjusted p-values), the
        tasks left out of each figure, and whether the error rates differ.
    """
    if not allow_mixed_bundles:
        check_same_bundle([a, b])
    if not allow_different_k:
        check_same_k(a, b)
    k = min(a.k, b.k)  # pass^k at a k both runs can estimate
    ca, cb = count(a.records), count(b.records)
    common = sorted(set(ca) & set(cb))
    per_task = paired_rows(ca, cb, a.k, b.k)
    domains: dict[str, dict[str, Any]] = {}
    for domain in sorted({t["domain"] for t in per_task}):
        rows = [t for t in per_task if t["domain"] == domain]
        domains[domain] = {figure: paired_dict(paired(rows, figure)) for figure in FIGURES}
    for figure in FIGURES:  # Holm over the domains, figure by figure
        adjusted = holm({d: figures[figure]["p"] for d, figures in domains.items()})
        for d, p in adjusted.items():
            domains[d][figure]["p_holm"] = p
            domains[d][figure]["significant"] = p is not None and p < ALPHA
    names = {
        side: f"{labels([run])[run.id]} (" + (f"run {run.id}" if a.id != b.id else ", ".join(run.files)) + ")"
        for side, run in (("a", a), ("b", b))
    }
    sides: dict[str, dict[str, Any]] = {}
    for side, run, counts in (("a", a, ca), ("b", b, cb)):
        attempts = sum(counts[t].attempts for t in common)
        errors = sum(counts[t].errors for t in common)
        sides[side] = {
            "id": run.id,
            "label": names[side],
            "bundle": run.bundle,
            "k": run.k,
            "attempts": attempts,
            "errors": errors,
            "error_share": errors / attempts if attempts else None,
        }
    error_p = two_proportion_p(
        sides["a"]["errors"], sides["a"]["attempts"], sides["b"]["errors"], sides["b"]["attempts"]
    )
    return {
        "rules": rule_changes(a, b, set(common)),
        "a": sides["a"],
        "b": sides["b"],
        "k": k,
        "only_a": sorted(set(ca) - set(cb)),
        "only_b": sorted(set(cb) - set(ca)),
        "per_task": per_task,
        "gained": [t["task"] for t in per_task if t["all_b"] is True and t["all_a"] is False],
        "lost": [t["task"] for t in per_task if t["all_a"] is True and t["all_b"] is False],
        "tasks": len(per_task),
        "figures": {figure: paired_dict(paired(per_task, figure)) for figure in FIGURES},
        "domains": domains,
        "left_out": {figure: [t["task"] for t in per_task if t[figure]["delta"] is None] for figure in FIGURES},
        "errors": {"p": error_p, "differ": error_p is not None and error_p < ALPHA},
        "regrade": regrade_changes(a, b),
    }


def regrade_changes(a: Campaign, b: Campaign) -> dict[str, Any] | None:
    """When `b` is `a` regraded (``thinkingbox regrade``: same run id, a manifest that says so): attempt by
    attempt, which verdicts changed and which replays diverged, per task. None for two ordinary runs."""
    if a.id != b.id or not (b.manifest or {}).get("regrade"):
        return None
    before = {(r["task"], r["attempt"]): r["outcome"] for r in a.records}
    tasks: dict[str, dict[str, Any]] = {}
    for r in b.records:
        was = before.get((r["task"], r["attempt"]))
        regraded = r.get("regrade")
        status = regraded["status"] if regraded is not None else None
        row = tasks.setdefault(r["task"], {"task": r["task"], "flipped": [], "diverged": 0, "attempts": 0})
        row["attempts"] += 1
        if status == "diverged":
            row["diverged"] += 1
        elif was is not None and status == "regraded" and r["outcome"] != was:
            row["flipped"].append({"attempt": r["attempt"], "was": was, "now": r["outcome"]})
    ca, cb = count(a.records), count(b.records)
    for task, row in tasks.items():
        row["a"] = [ca[task].passed, ca[task].graded] if task in ca else None
        row["b"] = [cb[task].passed, cb[task].graded] if task in cb else None
    return {
        "attempts": sum(row["attempts"] for row in tasks.values()),
        "flipped": sum(len(row["flipped"]) for row in tasks.values()),
        "diverged": sum(row["diverged"] for row in tasks.values()),
        "judge": b.manifest["regrade"].get("judge") if b.manifest else None,
        "tasks": [row for _, row in sorted(tasks.items()) if row["flipped"] or row["diverged"]],
    }


def regrade_lines(result: Mapping[str, Any]) -> list[str]:
    """Original against regrade, per task: passed of graded in each, the attempts that flipped, those diverged."""
    changes = result.get("regrade")
    if not changes:
        return []
    lines = [
        f"  regrade of run {result['a']['id']}: {changes['attempts']} attempts, {changes['flipped']} changed their "
        f"verdict, {changes['diverged']} diverged (a tool result differs from the recorded one: left out of the "
        "regrade's rates as system errors, to be run again)"
    ]
    if changes["tasks"]:
        lines.append("  per task, passed of graded (original -> regrade), attempts that changed:")
    for row in changes["tasks"][:SHOWN]:
        a, b = (f"{side[0]}/{side[1]}" if side else "-" for side in (row["a"], row["b"]))
        flips = ", ".join(f"{f['attempt']} {f['was']}->{f['now']}" for f in row["flipped"])
        diverged = f"; {row['diverged']} diverged" if row["diverged"] else ""
        lines.append(f"    {row['task']:<28} {a:>7} -> {b:<7} {flips}{diverged}")
    if len(changes["tasks"]) > SHOWN:
        lines.append(f"    ... {len(changes['tasks']) - SHOWN} more tasks")
    return lines


def rule_changes(a: Campaign, b: Campaign, tasks: set[str]) -> list[dict[str, Any]]:
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


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _share(errors: int, attempts: int) -> str:
    return f"{errors} of {attempts} attempts ({errors / attempts:.1%})" if attempts else "no attempts"


def _figure_name(figure: str, k: int) -> str:
    return figure.replace("k", str(k))


def figure_lines(name: str, test: Mapping[str, Any]) -> list[str]:
    """One figure's paired result: the difference, its interval and p-value, or why there is none."""
    tasks = test["tasks"]
    if not tasks:
        return [f"  {name}: no task has it in both runs: nothing to compare"]
    if test["every"] is not None:
        p = f"{_p(test['p'])} (sign-flip test: 2 / 2^{tasks})" if test["every"] else "no difference to test"
        return [
            f"  {name}: every one of the {tasks} paired tasks moved by exactly {_pct(test['every'])}; with no spread "
            f"between tasks there is no t interval; {p}"
        ]
    head = f"  {name} difference (b - a) over {tasks} paired tasks: {_pct(test['mean'])}"
    if test["ci95"] is None:
        return [head + " (one task: the spread between tasks is unknown, so no interval and no test)"]
    low, high = test["ci95"]
    verdict = "more than noise at the 5% level" if test["significant"] else "within the noise (not significant at 5%)"
    return [
        head + f", 95% interval [{_pct(low)}, {_pct(high)}], {_p(test['p'])} (paired t-test, {tasks - 1} df)",
        f"    {verdict}; detectable with 80% power at 5% two-sided over {tasks} tasks: {test['mdd80']:.3f} "
        f"(sd of the per-task differences {test['sd']:.3f})",
    ]


def compare_lines(result: dict[str, Any]) -> list[str]:
    """The comparison for the terminal: runs and errors, the paired tests, per domain, k/k and per-task changes."""
    a, b, k = result["a"], result["b"], result["k"]
    lines = [f"compare {b['label']} against {a['label']}, bundle {b['bundle'] or 'unknown'}"]
    lines += regrade_lines(result)
    if a["bundle"] != b["bundle"]:
        lines.append(f"  warning: different bundles ({a['bundle']} vs {b['bundle']}): tasks may differ")
    if a["k"] != b["k"]:
        lines.append(
            f"  WARNING: different k (a {a['k']}, b {b['k']}; --allow-different-k): pass^k is compared at k = {k}, "
            "and k/k (solved k of k) is each run's own k"
        )
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
    lines.append(
        f"  system errors on the paired tasks, left out of both runs' rates: a {_share(a['errors'], a['attempts'])}, "
        f"b {_share(b['errors'], b['attempts'])}"
    )
    if result["errors"]["differ"]:
        lines.append(
            f"  WARNING: the system-error rates differ ({_p(result['errors']['p'])}, two-proportion test): the rates "
            "leave errors out, so if errors strike harder tasks or longer episodes the comparison is biased; "
            "re-run them with --tb-rerun-errors before trusting it"
        )
    for figure in FIGURES:
        lines += figure_lines(_figure_name(figure, k), result["figures"][figure])
        left = result["left_out"][figure]
        if left:
            why = "no graded attempt" if figure == "pass@1" else f"fewer than k = {k} graded attempts"
            lines.append(
                f"    {len(left)} tasks left out ({why} in a run): {', '.join(left[:5])}"
                + (" ..." if len(left) > 5 else "")
            )
    lines += [
        "  (a 95% interval: made this way, 95 of 100 intervals hold the true mean difference over tasks like these;",
        "  it counts which tasks were drawn as well as the noise of their attempts. More tasks narrow it as 1/sqrt(T))",
    ]
    lines += domain_lines(result)
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


def domain_lines(result: Mapping[str, Any]) -> list[str]:
    """Per domain: each figure's difference, interval and Holm-adjusted p-value (none with one domain)."""
    domains = result["domains"]
    if len(domains) < 2:
        return []
    k = result["k"]
    lines = [f"  per domain (p-values adjusted by Holm over the {len(domains)} domains):"]
    width = max(len(d) for d in domains)
    for domain, figures in domains.items():
        parts = []
        for figure in FIGURES:
            test, name = figures[figure], _figure_name(figure, k)
            if test["every"] is not None:
                parts.append(f"{name} every task {_pct(test['every'])}, Holm " + _p(test["p_holm"]))
            elif test["ci95"] is None:
                parts.append(f"{name} " + (f"{_pct(test['mean'])} (one task)" if test["tasks"] else "-"))
            else:
                low, high = test["ci95"]
                mark = " *" if test["significant"] else ""
                parts.append(
                    f"{name} {_pct(test['mean'])} [{_pct(low)}, {_pct(high)}], Holm {_p(test['p_holm'])}{mark}"
                )
        lines.append(f"    {domain:<{width}}  " + ";  ".join(parts))
    lines.append("    (* more than noise at 5% after Holm's correction)")
    return lines
