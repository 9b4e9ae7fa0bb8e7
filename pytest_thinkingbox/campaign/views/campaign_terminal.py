"""`thinkingbox report` in the terminal: per run its header, table, completeness, costs and failure shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..report import shard_gaps
from ..signatures import describe
from .terminal import format_table, rule_lines

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
    """Per domain and overall: tasks, attempts, pass@1, pass@k, pass^k, observed k/k, retention, errors."""
    k = agg["k"]
    head = ["domain", "tasks", "attempts", "pass@1", f"pass@{k}", f"pass^{k}", f"{k}/{k}", "retention", "errors"]

    def row(name: str, s: Mapping[str, Any]) -> list[Any]:
        return [
            name,
            s["tasks"],
            s["attempts"],
            _num(s["pass@1"]),
            _num(s["pass@k"]),
            _num(s["pass^k"]),
            s["all_k"],
            _num(s["retention"]),
            s["errors"],
        ]

    return format_table(head, [*(row(d, s) for d, s in agg["domains"].items()), row("overall", agg["overall"])])


def completeness_lines(run: Mapping[str, Any]) -> list[str]:
    agg = run["aggregate"]
    if not agg["tasks"]:
        return ["incomplete: no attempt records for this run (did it stop before the first attempt?)"]
    reruns = (
        [f"  {run['reruns']} system errors were run again (--tb-rerun-errors); their later records count"]
        if run.get("reruns")
        else []
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
        f"{len(agg.get('missing', {}))} tasks ({unreached} never reached); pass@k and pass^k of the short tasks "
        "are estimated at k = their attempt count. Finish the run with --tb-resume.",
        f"  missing: {keys}{more}",
        *reruns,
    ]


def cost_lines(run: Mapping[str, Any]) -> list[str]:
    cost = run["cost"]
    if cost is None:
        if any(r.get("usage") for r in run["records"]):
            return ["cost: unknown; the records carry token usage but no prices were given (--prices PATH)"]
        return ["cost: none recorded (no token usage: an offline agent, user and judge)"]
    return [
        f"cost: {_usd(cost['total'])} for the campaign, {_usd(cost['per_attempt'])} per attempt, "
        f"{_usd(cost['per_success'])} per success, {_usd(cost['per_dependable'])} per dependable task"
    ]


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
            parts.append(f"{r['label']} ({_usd(r['cost'][key])}, {figure} {acc:.3f})")
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
        lines += completeness_lines(run)
        lines += cost_lines(run)
        lines += signature_lines(run, document["signature_order"])
        lines += rule_lines(run["rules"]) if run.get("rules") else []
    extra = frontier_lines(document)
    return lines + ([""] + extra if extra else [])
