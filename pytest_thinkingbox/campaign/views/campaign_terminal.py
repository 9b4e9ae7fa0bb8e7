"""`thinkingbox report` in the terminal: per run its header, table, completeness, costs and failure shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..report import shard_gaps
from ..signatures import describe
from .terminal import ALIKE, ALIKE_NOTE, errors_cell, format_table, interval, offline_roles_note, rule_lines, with_se

EXAMPLES_SHOWN = 3


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _usd(value: float | None) -> str:
    if value is None:
        return "-"
    return f"${value:.4f}" if abs(value) < 1 else f"${value:,.2f}"


def header_lines(run: Mapping[str, Any]) -> list[str]:
    """Who ran what: run id, label, bundle, model configuration, k and the times."""
    m = run["manifest"]
    label = run["label"].removesuffix(f" ({run['id']})")  # the id is said already
    lines = [
        f"run {run['id']}: {label}  (bundle {m.get('bundle') or 'unknown'}, "
        f"plugin {m.get('plugin_version') or 'unknown'}, from {', '.join(run['files'])})"
    ]
    roles = [f"{role} {m[role]}" for role in ("agent", "user", "judge") if m.get(role)]
    lines.append(f"  {', '.join(roles) or 'agent unknown'}; seed {m.get('seed', '-')}; k = {m.get('k')} per task")
    note = offline_roles_note(m)
    if note:
        lines.append(f"  {note}")
    for role, model in (m.get("models") or {}).items():
        where = ", ".join(str(model[f]) for f in ("base_url", "api") if model.get(f))
        lines.append(f"  {role} model {model.get('model')}" + (f" ({where})" if where else ""))
    if "started" in m:
        lines.append(
            f"  started {m['started']}, "
            + (f"finished {m['finished']}" if m.get("finished") else "not finished (interrupted, or still running)")
        )
    else:
        lines.append("  no manifest line in the results (an older file): k is the most attempts seen")
    return lines


def table_lines(agg: Mapping[str, Any]) -> list[str]:
    """Per domain and overall: tasks, attempts, rates ± standard error, k/k, flaky, gap, short of k, errors."""
    k = agg["k"]
    groups = [*agg["domains"].items(), ("overall", agg["overall"])]
    short = any(s["incomplete_tasks"] for _, s in groups)
    head = ["domain", "tasks", "attempts", "pass@1", f"pass@{k}", f"pass^{k}", f"{k}/{k}", "flaky", "gap"]
    head += ["short of k"] if short else []

    def row(name: str, s: Mapping[str, Any]) -> list[Any]:
        cells = [name, s["tasks"], s["attempts"], *(with_se(s, f) for f in ("pass@1", "pass@k", "pass^k"))]
        cells += [s["all_k"], s["flaky"], with_se(s, "consistency_gap")]
        return [*cells, *([s["incomplete_tasks"]] if short else []), errors_cell(s)]

    return format_table([*head, "errors"], [row(name, s) for name, s in groups])


#: The figures whose 95% intervals the report lists, with their column names ({k} is the campaign's k).
INTERVALS: tuple[tuple[str, str], ...] = (
    ("pass@1", "pass@1"),
    ("pass@k", "pass@{k}"),
    ("pass^k", "pass^{k}"),
    ("all_k_share", "{k}/{k} share"),
    ("flaky_share", "flaky share"),
    ("consistency_gap", "gap"),
)


def interval_lines(agg: Mapping[str, Any]) -> list[str]:
    """Each group's 95% intervals (Student's t over tasks), under a line saying what they are."""
    head = ["  95% intervals", *(label.format(k=agg["k"]) for _, label in INTERVALS)]
    groups = [*agg["domains"].items(), ("overall", agg["overall"])]
    rows = [[f"  {name}", *(interval(s, figure) for figure, _ in INTERVALS)] for name, s in groups]
    alike = any(str(cell).endswith(ALIKE) for row in rows for cell in row)
    return [
        "± is the standard error over tasks (clustered by task); the 95% intervals use Student's t, tasks - 1 df:",
        *format_table(head, rows),
        *([f"  {ALIKE_NOTE}"] if alike else []),
    ]


TASKS_SHOWN = 20  # per-task rates listed, least solved first


def task_rate_lines(run: Mapping[str, Any]) -> list[str]:
    """The tasks not solved k of k, least solved first, each with its Jeffreys 95% interval."""
    rates = run.get("task_rates") or {}
    k = run["aggregate"]["k"]
    shown = [(t, r) for t, r in rates.items() if r["pass@1"] is None or r["passed"] < r["graded"] or r["graded"] < k]
    if not shown:
        return []
    shown.sort(key=lambda item: (-1 if item[1]["pass@1"] is None else item[1]["pass@1"], item[0]))
    lines = [f"per-task pass rates of the {len(shown)} tasks not solved {k} of {k} (Jeffreys 95% interval):"]
    width = max(len(t) for t, _ in shown[:TASKS_SHOWN])
    for task, r in shown[:TASKS_SHOWN]:
        notes = [f"{r['errors']} system errors"] if r["errors"] else []
        notes += [f"short of k = {k}"] if r["graded"] < k else []
        if r["pass@1"] is None:
            figure = "no graded attempt"
        else:
            low, high = r["ci95"]
            figure = f"{r['passed']:>3}/{r['graded']:<3} {r['pass@1']:.3f} [{low:.3f}, {high:.3f}]"
        lines.append(f"  {task:<{width}}  {figure}  {r['domain']}" + (f" ({', '.join(notes)})" if notes else ""))
    if len(shown) > TASKS_SHOWN:
        lines.append(f"  ... {len(shown) - TASKS_SHOWN} more (every task is in --json and --html)")
    return lines


def completeness_lines(run: Mapping[str, Any]) -> list[str]:
    agg = run["aggregate"]
    if not agg["tasks"]:
        return ["incomplete: no attempt records for this run (did it stop before the first attempt?)"]
    reruns = (
        [f"  {run['reruns']} system errors were run again (--tb-rerun-errors); their later records count"]
        if run.get("reruns")
        else []
    )
    errors = agg["overall"]["errors"]
    if errors:
        reruns.insert(
            0,
            f"  {errors} attempts ended in a system error ({agg['overall']['error_share']:.1%}): not graded, so "
            "left out of the rates and counted beside them; re-run them with --tb-rerun-errors",
        )
    if run["complete"]:
        return [f"complete: {agg['tasks']} tasks x {agg['k']} attempts", *reruns]
    keys = ", ".join(f"{task}#{attempt}" for task, attempt in run["missing"][:10])
    more = " ..." if run["missing_count"] > 10 else ""
    expected = run.get("expected_count", agg["tasks"] * agg["k"])
    unreached = sum(1 for task in agg.get("missing", {}) if task not in agg["per_task"])
    return [
        *(f"incomplete: {gap}; run it with the same options and --tb-run {run['id']}" for gap in shard_gaps(run)),
        f"incomplete: {run['missing_count']} of {expected} expected attempts missing, in "
        f"{len(agg.get('missing', {}))} tasks ({unreached} never reached); tasks short of k attempts are left out "
        "of pass@k, pass^k and k/k (never estimated at fewer). Finish the run with --tb-resume.",
        f"  missing: {keys}{more}",
        *reruns,
    ]


def cost_lines(run: Mapping[str, Any]) -> list[str]:
    cost = run["cost"]
    if cost is None:
        if any(r.get("usage") for r in run["records"]):
            return ["cost: unknown; the records carry token usage but no prices were given (--prices PATH)"]
        return ["cost: none recorded (no token usage: an offline agent, user and judge)"]
    lines = [
        f"cost: {_usd(cost['total'])} for the campaign, {_usd(cost['per_attempt'])} per attempt, "
        f"{_usd(cost['per_success'])} per success{_usd_interval(cost.get('per_success_ci95'))}, "
        f"{_usd(cost['per_dependable'])} per dependable task{_usd_interval(cost.get('per_dependable_ci95'))}"
    ]
    if cost.get("errors"):
        lines.append(f"  of which {_usd(cost['errors'])} on attempts that ended in a system error")
    return lines


def _usd_interval(ci: list[float] | None) -> str:
    return f" [{_usd(ci[0])}, {_usd(ci[1])}]" if ci else ""


def signature_lines(run: Mapping[str, Any], order: list[str]) -> list[str]:
    """Each failure label's count and share of the failed attempts, overall and per domain, with examples."""
    sig = run["signatures"]
    total = sum(sig["overall"].values())
    if not total:
        return ["failure signatures: no failed attempts"]
    domains = list(sig["domains"])
    per_domain = {d: sum(c.values()) for d, c in sig["domains"].items()}
    head = ["signature", "failed", "share", *domains]
    rows = []
    for label in [lb for lb in order if lb in sig["overall"]] + [lb for lb in sig["overall"] if lb not in order]:
        shares = [f"{sig['domains'][d].get(label, 0) / per_domain[d]:.0%}" for d in domains]
        rows.append([label, sig["overall"][label], f"{sig['overall'][label] / total:.0%}", *shares])
    lines = [f"failure signatures ({total} failed attempts; share of the failed attempts, overall and per domain):"]
    lines += ["  " + line for line in format_table(head, rows)]
    for label in [row[0] for row in rows]:
        examples = ", ".join(f"{t}#{a}" for t, a in sig["examples"].get(label, [])[:EXAMPLES_SHOWN])
        lines.append(f"  {label}: {describe(label)}")
        lines.append(f"    e.g. {examples}")
    return lines


def frontier_lines(document: Mapping[str, Any]) -> list[str]:
    """The cost frontiers, when more than one run has cost figures to put on them."""
    priced = [r for r in document["runs"] if r["cost"]]
    if len(priced) < 2:
        return []
    by_id = {r["id"]: r for r in priced}
    mixed_k = len({r["aggregate"]["k"] for r in priced}) > 1  # then k/k has a frontier per k
    lines = ["cost frontier (no other run is both cheaper and at least as accurate):"]
    for key, figure, name in (
        ("per_success", "pass@1", "per success"),
        ("per_dependable", "k/k share", "per dependable task"),
    ):
        parts = []
        for rid in document["frontier"][key]:
            r = by_id[rid]
            agg = r["aggregate"]
            acc = agg["overall"]["pass@1"] if key == "per_success" else agg["overall"]["all_k_share"]
            at_k = f" at k = {agg['k']}" if mixed_k and key == "per_dependable" else ""
            parts.append(f"{r['label']} ({_usd(r['cost'][key])}, {figure} {acc:.3f}{at_k})")
        lines.append(f"  cost {name} vs {figure}: " + ("; ".join(parts) or "no run has this figure"))
    return lines


def report_lines(document: Mapping[str, Any]) -> list[str]:
    """The whole report, run after run, then the frontiers."""
    lines: list[str] = []
    for run in document["runs"]:
        if lines:
            lines.append("")
        lines += header_lines(run)
        lines += table_lines(run["aggregate"])
        lines += interval_lines(run["aggregate"])
        lines += completeness_lines(run)
        lines += task_rate_lines(run)
        lines += cost_lines(run)
        lines += signature_lines(run, document["signature_order"])
        lines += rule_lines(run["rules"]) if run.get("rules") else []
    extra = frontier_lines(document)
    return lines + (["", *extra] if extra else [])
