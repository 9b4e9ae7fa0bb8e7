"""The HTML report's run sections: each run's facts, completeness, cost line and table of figures."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from ..report import shard_gaps
from .common_html import _label, _num, _pct, _swatch, _usd


def _run_section(run: Mapping[str, Any], n: int) -> str:
    m, agg = run.get("manifest") or {}, run["aggregate"]
    facts = [("run", run.get("id")), ("bundle", m.get("bundle")), ("agent", m.get("agent")), ("user", m.get("user"))]
    facts += [("judge", m.get("judge")), ("seed", m.get("seed")), ("k", agg["k"]), ("plugin", m.get("plugin_version"))]
    for role, model in (m.get("models") or {}).items():
        where = ", ".join(str(model[key]) for key in ("api", "base_url") if model.get(key))
        facts.append((f"{role} model", f"{model.get('model')}" + (f" ({where})" if where else "")))
    facts += [("started", m.get("started")), ("finished", m.get("finished") or (m.get("started") and "not finished"))]
    dl = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(str(v))}</dd></div>" for k, v in facts if v is not None)
    return (
        f'<article class="run" id="run-{n}"><h3>{_swatch(n)}Run {n}: {escape(_label(run))}</h3>'
        f'<dl class="facts">{dl}</dl>{_completeness(run)}{_cost_line(run.get("cost"))}{_table(agg)}</article>'
    )


def _completeness(run: Mapping[str, Any]) -> str:
    if run.get("complete"):
        return '<p class="ok">Complete: every task has its k attempts.</p>'
    count, keys = run.get("missing_count", 0), run.get("missing") or []
    listed = ", ".join(f"{escape(str(task))} #{attempt}" for task, attempt in keys)
    more = f" (first {len(keys)} listed)" if len(keys) < count else ""
    gaps = "".join(f'<p class="warn">Incomplete: {escape(gap)}.</p>' for gap in shard_gaps(run))
    return f'{gaps}<p class="warn">Incomplete: {count} attempt(s) missing{more}: {listed}</p>'


def _cost_line(cost: Mapping[str, Any] | None) -> str:
    if not cost:
        return '<p class="note">No cost figures: no token usage was recorded for this run.</p>'
    parts = [("campaign", "total"), ("per attempt", "per_attempt"), ("per success", "per_success")]
    parts.append(("per dependable task", "per_dependable"))

    def shown(key: str) -> str:
        ci = cost.get(f"{key}_ci95")
        return f"<b>{_usd(cost.get(key))}</b>" + (f" <small>[{_usd(ci[0])}, {_usd(ci[1])}]</small>" if ci else "")

    spent = f"; {_usd(cost['errors'])} of it on system errors" if cost.get("errors") else ""
    return "<p>Estimated cost: " + ", ".join(f"{t} {shown(key)}" for t, key in parts) + f"{spent}</p>"


def _interval(s: Mapping[str, Any], figure: str) -> str:
    """A figure's 95% interval as small text (``*`` after the Jeffreys fallback), or nothing without one."""
    ci = s.get(f"{figure}_ci95")
    if ci is None:
        return ""
    alike = "*" if s.get(f"{figure}_se") == 0 else ""
    return f'<br><small class="ci">[{ci[0]:.3f}, {ci[1]:.3f}]{alike}</small>'


def _rate(s: Mapping[str, Any], figure: str) -> str:
    """A rate cell: the figure, its standard error and its 95% interval."""
    se = s.get(f"{figure}_se")
    plus = f' <small class="se">±{se:.3f}</small>' if se is not None and s.get(figure) is not None else ""
    return f"<td>{_num(s.get(figure))}{plus}{_interval(s, figure)}</td>"


def _table(agg: Mapping[str, Any]) -> str:
    k = agg["k"]
    head = ["domain", "tasks", "attempts", "pass@1", f"pass@{k}", f"pass^{k}", f"{k}/{k}", "flaky", "gap", "errors"]
    rows = [*agg["domains"].items(), ("overall", agg["overall"])]
    body = "".join(
        f"<tr{' class=total' if name == 'overall' else ''}><th>{escape(name)}</th><td>{s['tasks']}</td>"
        f"<td>{s['attempts']}</td>{_rate(s, 'pass@1')}{_rate(s, 'pass@k')}{_rate(s, 'pass^k')}"
        f"<td>{s['all_k']} ({_pct(s['all_k_share'])}){_interval(s, 'all_k_share')}</td>"
        f"<td>{s['flaky']} ({_pct(s['flaky_share'])}){_interval(s, 'flaky_share')}</td>{_rate(s, 'consistency_gap')}"
        f"<td>{s['errors']}" + (f" ({s['error_share']:.1%})" if s["errors"] else "") + "</td></tr>"
        for name, s in rows
    )
    short = agg["overall"]["incomplete_tasks"]
    notes = [
        "± standard error over tasks (clustered by task); [ ] 95% interval, Student's t with tasks − 1 df "
        "(* every task had the same figure: a Jeffreys interval). flaky: tasks solved sometimes but not always; "
        f"gap: pass@{k} − pass^{k}, the chance that {k} attempts disagree. System errors are not graded: they are "
        "left out of the rates and counted beside them."
    ]
    if short:
        notes.append(
            f"{short} task(s) have fewer than k = {k} graded attempts: they count in pass@1 and are left out of "
            f"pass@{k}, pass^{k}, {k}/{k}, flaky and gap (never estimated at fewer than k)."
        )
    table = f'<table class="figures"><tr>{"".join(f"<th>{h}</th>" for h in head)}</tr>{body}</table>'
    return table + "".join(f'<p class="note">{escape(note)}</p>' for note in notes)
