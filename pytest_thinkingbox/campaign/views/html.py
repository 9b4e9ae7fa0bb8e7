"""The campaign report as one self-contained HTML page (`thinkingbox report --html PATH`).

A campaign report gets mailed, attached to CI runs and opened years later, so everything is
inline: the CSS, the SVG charts (drawn here, in Python), the record fields the attempt viewer
needs (as JSON) and a small script for the viewer. Nothing is fetched, and a Content Security
Policy forbids fetching anything, so the page opens offline. Every string from a record is
escaped, and the viewer sets text with ``textContent`` only: a transcript is untrusted model output.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from ..report import shard_gaps
from ..signatures import describe
from .rules_html import rules_section

COLOURS = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f")
OUTCOME_CLASS = {"passed": "pass", "failed": "fail", "error": "error"}
OUTCOME_LEGEND = (("pass", "passed"), ("fail", "failed"), ("error", "system error"), ("missing", "missing"))
#: The record fields the attempt viewer shows; the rest stay in the results file.
VIEWER_FIELDS = (
    "task", "domain", "attempt", "outcome", "signature", "failure", "error", "usage", "transcript", "differences",
    "wrong", "missing", "extra", "end_reason", "steps", "turns", "tool_calls", "tool_errors", "fault", "duration_s",
    "violations",
)  # fmt: skip
W, H, LEFT, RIGHT, TOP, BOTTOM = 560, 380, 60, 30, 20, 50  # chart box and its margins


def render_html(document: Mapping[str, Any]) -> str:
    """The whole page for a report document (the dict `build_report` returns)."""
    runs = list(document.get("runs", []))
    index, attempts = _attempt_index(runs)
    data = json.dumps({"runs": [_label(r) for r in runs], "attempts": attempts})
    # "<" inside a JSON string is legal as \u003c; this way no record can close the script element.
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    policy = f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{script_hash}'"
    labels = ", ".join(_label(r) for r in runs) or "no runs"
    body = [
        f"<header><h1>thinkingbox campaign report</h1><p>{len(runs)} run(s): {escape(labels)}</p>{_nav()}</header>",
        '<section id="runs"><h2>Runs</h2>',
        *(_run_section(run, n) for n, run in enumerate(runs, 1)),
        '</section><div class="side">',
        _reliability_chart(runs),
        _domain_chart(runs),
        "</div>",
        _cost_charts(runs, document.get("frontier") or {}),
        _signatures(runs, document.get("signature_order") or [], index),
        rules_section(runs, index, lambda run, n: f"{_swatch(n)}{escape(_label(run))}", _link),
        '<section id="attempts"><h2>Attempts</h2>',
        _legend([(f'<span class="cell {c}"></span>', t) for c, t in OUTCOME_LEGEND]),
        *(_grid(run, n, index) for n, run in enumerate(runs, 1)),
        "</section>",
        '<section id="attempt-viewer"><h2>Attempt viewer</h2><div id="viewer-body">'
        '<p class="note">Click a cell of a grid, or an example of a failure signature, to open that attempt.</p>'
        "</div></section>",
    ]
    return "\n".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
            f"<title>thinkingbox report: {escape(labels)}</title><style>{CSS}</style></head><body>",
            *body,
            f'<script type="application/json" id="attempt-data">{data}</script>',
            f"<script>{SCRIPT}</script></body></html>\n",
        ]
    )


def _attempt_index(runs: Sequence[Mapping[str, Any]]) -> tuple[dict[tuple[int, str, int], int], list[dict]]:
    """The viewer's attempts as one list, and each (run number, task, attempt)'s place in it."""
    index: dict[tuple[int, str, int], int] = {}
    attempts: list[dict[str, Any]] = []
    for n, run in enumerate(runs, 1):
        for record in run.get("records", []):
            index[n, record["task"], record["attempt"]] = len(attempts)
            attempts.append({"run": n - 1, **{f: record.get(f) for f in VIEWER_FIELDS}})
    return index, attempts


def _nav() -> str:
    links = [("runs", "Runs"), ("chart-reliability", "Reliability"), ("chart-cost", "Cost")]
    links += [("chart-domains", "Domains"), ("signatures", "Failure signatures"), ("rules", "Policy rules")]
    links += [("attempts", "Attempts")]
    return "<nav>" + " · ".join(f'<a href="#{i}">{t}</a>' for i, t in links) + "</nav>"


# -- numbers ---------------------------------------------------------------------------------------


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _usd(value: float | None) -> str:
    if value is None:
        return "–"
    return f"${value:,.0f}" if value >= 100 else f"${value:.2f}" if value >= 1 else f"${value:.3g}"


def _label(run: Mapping[str, Any]) -> str:
    return str(run.get("label") or run.get("id") or "(unknown)")


def _colour(n: int) -> str:
    return COLOURS[(n - 1) % len(COLOURS)]


# -- 1. per run: header, completeness, cost, table -------------------------------------------------


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


# -- 2-4. charts -----------------------------------------------------------------------------------


def _scatter(
    points: list[tuple[float, float, str, int]],
    x_max: float,
    x_fmt: Callable[[float], str],
    axes: tuple[str, str],
    line: Sequence[tuple[float, float]] = (),
    diagonal: bool = False,
    tip_fmt: Callable[[float], str] | None = None,
    whiskers: Sequence[tuple[Sequence[float] | None, Sequence[float] | None]] = (),
) -> str:
    """An SVG scatter of (x, y, label, run number) with y in 0..1, optionally a polyline through `line`.

    `whiskers`, one per point, holds the point's x and y 95% intervals (or None), drawn as error bars.
    """
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def sx(x: float) -> float:
        return round(LEFT + pw * x / x_max, 1)

    def sy(y: float) -> float:
        return round(TOP + ph * (1 - y), 1)

    out = [f'<svg viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img">']
    for i in range(6):
        f = i / 5
        out.append(f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{sy(f)}" y2="{sy(f)}"/>')
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{sy(f) + 4}" text-anchor="end">{f:.1f}</text>')
        out.append(f'<text class="tick" x="{sx(x_max * f)}" y="{H - BOTTOM + 16}" text-anchor="middle">')
        out.append(f"{escape(x_fmt(x_max * f))}</text>")
    out.append(f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{H - BOTTOM}"/>')
    out.append(f'<line class="axis" x1="{LEFT}" x2="{W - RIGHT}" y1="{H - BOTTOM}" y2="{H - BOTTOM}"/>')
    out.append(f'<text class="label" x="{LEFT + pw / 2}" y="{H - 10}" text-anchor="middle">{axes[0]}</text>')
    out.append(f'<text class="label" transform="translate(14 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">')
    out.append(f"{axes[1]}</text>")
    if diagonal:
        out.append(f'<line class="ref" x1="{sx(0)}" y1="{sy(0)}" x2="{sx(1)}" y2="{sy(1)}"/>')
        out.append(f'<text class="tick" x="{sx(0.52)}" y="{sy(0.58)}">all or nothing</text>')
    if line:
        coords = " ".join(f"{sx(x)},{sy(y)}" for x, y in sorted(line))
        out.append(f'<polyline class="frontier" points="{coords}"/>')
    for (x, y, _, n), (x_ci, y_ci) in zip(points, whiskers, strict=False):
        if x_ci:
            out.append(f'<line class="whisker" x1="{sx(x_ci[0])}" x2="{sx(x_ci[1])}" y1="{sy(y)}" y2="{sy(y)}" ')
            out.append(f'stroke="{_colour(n)}"/>')
        if y_ci:
            out.append(f'<line class="whisker" x1="{sx(x)}" x2="{sx(x)}" y1="{sy(y_ci[0])}" y2="{sy(y_ci[1])}" ')
            out.append(f'stroke="{_colour(n)}"/>')
    for i, (x, y, label, n) in enumerate(points):
        dy = -9 if i % 2 == 0 else 16  # alternate above and below so close runs stay legible
        tip = escape(f"{label}: {axes[0]} {(tip_fmt or x_fmt)(x)}, {axes[1]} {y:.3f}")
        out.append(f'<g class="point"><title>{tip}</title><circle cx="{sx(x)}" cy="{sy(y)}" r="6" ')
        out.append(f'fill="{_colour(n)}"/><text x="{sx(x) + 9}" y="{sy(y) + dy}">{escape(label)}</text></g>')
    return "".join(out) + "</svg>"


def _by_k(runs: Sequence[Mapping[str, Any]]) -> dict[int, list[tuple[int, Mapping[str, Any]]]]:
    """The runs (with their numbers) grouped by k: figures at different k never share a chart's axis."""
    groups: dict[int, list[tuple[int, Mapping[str, Any]]]] = {}
    for n, run in enumerate(runs, 1):
        groups.setdefault(run["aggregate"]["k"], []).append((n, run))
    return dict(sorted(groups.items()))


def _k_note(groups: Mapping[int, Any]) -> str:
    if len(groups) < 2:
        return ""
    return (
        '<p class="note">The runs have different k, so they are drawn on separate charts, one per k: k/k at '
        "one k is another figure than at another k.</p>"
    )


def _reliability_chart(runs: Sequence[Mapping[str, Any]]) -> str:
    groups = _by_k(runs)
    charts = []
    for k, members in groups.items():
        points, whiskers, left_off = [], [], []
        for n, run in members:
            s = run["aggregate"]["overall"]
            share = s["all_k_share"]
            if s["pass@1"] is not None and share is not None:
                points.append((s["pass@1"], share, _label(run), n))
                whiskers.append((s.get("pass@1_ci95"), s.get("all_k_share_ci95")))
            else:
                left_off.append(_label(run))
        axes = ("pass@1", f"share of tasks solved {k} of {k}")
        svg = _scatter(points, 1.0, lambda x: f"{x:.1f}", axes, diagonal=True, tip_fmt=_num, whiskers=whiskers)
        caption = f"<figcaption>k = {k}</figcaption>" if len(groups) > 1 else ""
        if left_off:  # say why a run has no point rather than drop it silently
            caption += (
                f'<p class="note">Not drawn, no task with {k} graded attempts: {escape(", ".join(left_off))}.</p>'
            )
        charts.append(f'<figure id="reliability-k{k}">{caption}{svg}</figure>')
    return (
        '<section id="chart-reliability" class="chart"><h2>Reliability: pass@1 against k/k</h2>'
        '<p class="note">A run on the diagonal solves each task all or nothing; below it, tasks pass sometimes, '
        "not every time. The bars are 95% intervals.</p>"
        f'{_k_note(groups)}<div class="pair">{"".join(charts)}</div></section>'
    )


def _cost_charts(runs: Sequence[Mapping[str, Any]], frontier: Mapping[str, Any]) -> str:
    head = '<section id="chart-cost" class="chart"><h2>Cost frontier</h2>'
    if not any(run.get("cost") for run in runs):
        return head + '<p class="note">No cost figures: no run recorded token usage.</p></section>'
    groups = _by_k(runs)
    panels = [("per_success", "pass@1", "per success", list(enumerate(runs, 1)), "")]
    for k, members in groups.items():  # k/k at different k is not one axis: a chart per k
        suffix = f"-k{k}" if len(groups) > 1 else ""
        panels.append(("per_dependable", f"share solved {k} of {k}", "per dependable task", members, suffix))
    charts = []
    for key, y_label, title, members, suffix in panels:
        points = []
        for n, run in members:
            s, x = run["aggregate"]["overall"], (run.get("cost") or {}).get(key)
            y = s["pass@1"] if key == "per_success" else s["all_k_share"]
            if x is not None and y is not None:
                points.append((x, y, _label(run), n))
        on = set(frontier.get(key) or [])
        line = [(x, y) for (x, y, _, n) in points if runs[n - 1].get("id") in on]
        x_max = max((p[0] for p in points), default=0) * 1.2 or 1.0
        svg = _scatter(points, x_max, _usd, (f"cost {title} (USD)", y_label), line=line)
        left = len(members) - len(points)
        note = f'<p class="note">{left} run(s) without this figure are not plotted.</p>' if left else ""
        caption = f"Cost {title}" + (f", k = {suffix[2:]}" if suffix else "")
        charts.append(f'<figure id="cost-{key}{suffix}"><figcaption>{caption}</figcaption>{svg}{note}</figure>')
    caption = "Runs on the frontier (no other run is both cheaper and at least as accurate) are joined by a line."
    return head + f'<p class="note">{caption}</p>{_k_note(groups)}<div class="pair">{"".join(charts)}</div></section>'


def _domain_chart(runs: Sequence[Mapping[str, Any]]) -> str:
    groups = _by_k(runs)
    svgs = []
    for k, members in groups.items():
        caption = f"<figcaption>k = {k}</figcaption>" if len(groups) > 1 else ""
        svgs.append(f"<figure>{caption}{_domain_bars(members)}</figure>")
    legend = _legend([(_swatch(n), _label(run)) for n, run in enumerate(runs, 1)])
    return (
        '<section id="chart-domains" class="chart"><h2>Per domain</h2>'
        '<p class="note">For each run: pass@1 (solid bar) and share of tasks solved k of k (pale bar).</p>'
        f"{_k_note(groups)}{legend}{''.join(svgs)}</section>"
    )


def _domain_bars(members: Sequence[tuple[int, Mapping[str, Any]]]) -> str:
    """One bar chart of the runs of one k: per domain, each run's pass@1 and k/k share."""
    domains = sorted({d for _, run in members for d in run["aggregate"]["domains"]})
    bar, ph = 14, H - TOP - BOTTOM
    group = max(len(members) * 2 * bar + 24, 110)
    width = LEFT + len(domains) * group + RIGHT
    out = [f'<svg viewBox="0 0 {width} {H}" width="{width}" height="{H}" role="img">']
    for i in range(6):
        y = TOP + ph * (1 - i / 5)
        out.append(f'<line class="grid" x1="{LEFT}" x2="{width - RIGHT}" y1="{y}" y2="{y}"/>')
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{y + 4}" text-anchor="end">{i / 5:.1f}</text>')
    for d, domain in enumerate(domains):
        x0 = LEFT + d * group + (group - len(members) * 2 * bar) / 2
        for r, (n, run) in enumerate(members):
            s = run["aggregate"]["domains"].get(domain)
            figures = (("pass@1", s["pass@1"]), ("k/k share", s["all_k_share"])) if s else ()
            for j, (name, value) in enumerate(figures):
                value, x = value or 0.0, x0 + (2 * r + j) * bar
                tip = escape(f"{_label(run)}, {domain}: {name} {value:.3f}")
                out.append(
                    f'<rect class="{"kk" if j else "p1"}" x="{x}" y="{TOP + ph * (1 - value)}" width="{bar - 2}"'
                )
                out.append(f' height="{ph * value}" fill="{_colour(n)}"><title>{tip}</title></rect>')
        out.append(f'<text class="tick" x="{LEFT + d * group + group / 2}" y="{H - BOTTOM + 16}" text-anchor="middle">')
        out.append(f"{escape(domain)}</text>")
    out.append(f'<line class="axis" x1="{LEFT}" x2="{width - RIGHT}" y1="{H - BOTTOM}" y2="{H - BOTTOM}"/></svg>')
    return "".join(out)


def _legend(items: Sequence[tuple[str, str]]) -> str:
    """A line of (swatch HTML, text) pairs."""
    return '<p class="legend">' + "".join(f"{swatch}{escape(text)} " for swatch, text in items) + "</p>"


def _swatch(n: int) -> str:
    return f'<span class="swatch" style="background:{_colour(n)}"></span>'


# -- 5. the task-by-attempt grid -------------------------------------------------------------------


def _grid(run: Mapping[str, Any], n: int, index: Mapping[tuple[int, str, int], int]) -> str:
    agg, records = run["aggregate"], {(r["task"], r["attempt"]): r for r in run.get("records", [])}
    tasks = {task: c["domain"] for task, c in agg["per_task"].items()}
    for task, _ in run.get("missing") or []:
        tasks.setdefault(task, "")
    width = max([agg["k"], *(attempt for _, attempt in records)])
    rates = run.get("task_rates") or {}
    rows, domain = [], None
    for task, task_domain in tasks.items():
        if task_domain != domain:
            domain = task_domain
            rows.append(f'<div class="domain">{escape(domain or "(no records)")}</div>')
        cells = [_cell(n, task, attempt, records.get((task, attempt)), index) for attempt in range(1, width + 1)]
        rate = _task_rate(rates.get(task))
        rows.append(f'<div class="row"><span class="task">{escape(task)}</span>{"".join(cells)}{rate}</div>')
    head = f"<h3>{_swatch(n)}{escape(_label(run))}</h3>"
    return f'<div class="grid" id="grid-{n}">{head}<div class="rows">{"".join(rows)}</div></div>'


def _task_rate(rate: Mapping[str, Any] | None) -> str:
    """A task's passes over graded attempts, with the Jeffreys 95% interval of its pass rate as the tooltip."""
    if not rate or rate.get("pass@1") is None:
        return ""
    low, high = rate["ci95"]
    tip = f"pass rate {rate['pass@1']:.3f}, Jeffreys 95% interval [{low:.3f}, {high:.3f}]"
    return f'<span class="rate" title="{tip}">{rate["passed"]}/{rate["graded"]} [{low:.2f}, {high:.2f}]</span>'


def _cell(n: int, task: str, attempt: int, record: Mapping[str, Any] | None, index: Mapping[tuple, int]) -> str:
    """One attempt's button; a missing attempt is clickable too, and the viewer says it was not recorded."""
    if record is None:
        where = f'data-a="-1" data-task="{escape(task)}" data-attempt="{attempt}"'
        return f'<button class="cell missing" {where} title="{escape(task)} #{attempt}: missing"></button>'
    what = record["outcome"] + (f", {record['signature']}" if record.get("signature") else "")
    kind = OUTCOME_CLASS.get(record["outcome"], "error")
    title = escape(f"{task} #{attempt}: {what}")
    return f'<button class="cell {kind}" data-a="{index[n, task, attempt]}" title="{title}"></button>'


# -- 6. failure signatures -------------------------------------------------------------------------


def _signatures(runs: Sequence[Mapping[str, Any]], order: Sequence[str], index: Mapping[tuple, int]) -> str:
    parts = ['<section id="signatures"><h2>Failure signatures</h2>']
    parts.append(
        '<p class="note">Each run\'s failed attempts (system errors excluded) by label, overall and per domain.'
    )
    parts.append(" A label opens its first example; the examples open the others.</p>")
    for n, run in enumerate(runs, 1):
        parts.append(f"<h3>{_swatch(n)}{escape(_label(run))}</h3>{_signature_table(run, n, order, index)}")
    return "".join(parts) + "</section>"


def _signature_table(run: Mapping[str, Any], n: int, order: Sequence[str], index: Mapping[tuple, int]) -> str:
    sig = run.get("signatures") or {}
    overall, domains, examples = sig.get("overall") or {}, sig.get("domains") or {}, sig.get("examples") or {}
    labels = [label for label in order if overall.get(label)]
    labels += sorted(label for label in overall if label not in order and overall[label])
    if not labels:
        return '<p class="note">No failed attempts.</p>'
    total, names = sum(overall.values()), sorted(domains)
    rows = []
    for label in labels:
        keys = [key for key in examples.get(label, []) if (n, *key) in index]
        links = [_link(index[n, task, attempt], f"{task} #{attempt}") for task, attempt in keys]
        name = _link(index[n, *keys[0]], label) if keys else escape(label)
        share = overall[label] / total
        rows.append(
            f'<tr><th>{name}<br><small>{escape(describe(label))}</small></th><td class="share">'
            f'<span class="bar"><span style="width:{100 * share:.1f}%"></span></span> {_pct(share)}</td>'
            f"<td>{overall[label]}</td>{''.join(_domain_share(domains[d], label) for d in names)}"
            f'<td class="examples">{" ".join(links)}</td></tr>'
        )
    head = "".join(f"<th>{escape(d)}</th>" for d in names)
    head = f'<tr><th>signature</th><th>share</th><th>count</th>{head}<th class="examples">examples</th></tr>'
    return f'<table class="signatures">{head}{"".join(rows)}</table>'


def _link(i: int, text: str) -> str:
    return f'<a href="#attempt-viewer" class="example" data-a="{i}">{escape(text)}</a>'


def _domain_share(counts: Mapping[str, int], label: str) -> str:
    total = sum(counts.values())
    return f"<td>{_pct(counts[label] / total)} ({counts[label]})</td>" if counts.get(label) else "<td></td>"


# -- 7. the attempt viewer: style and script -------------------------------------------------------

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:0 24px 40px;max-width:1400px;
 color:#1f2937;background:#fff}
h1{margin:20px 0 4px}h2{border-bottom:1px solid #e5e7eb;padding-bottom:4px;margin-top:32px}h3{margin:18px 0 6px}
nav a{color:#2563eb}.note{color:#6b7280}.ok{color:#047857}.warn{color:#b45309;font-weight:600}
dl.facts{display:flex;flex-wrap:wrap;gap:2px 20px;margin:6px 0}dl.facts div{display:flex;gap:6px}dt{color:#6b7280}
dd{margin:0}.side{display:flex;flex-wrap:wrap;gap:0 40px;align-items:flex-start}
th small{font-weight:400;color:#6b7280;display:block;max-width:340px}
td{white-space:nowrap}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 10px;border-bottom:1px solid #e5e7eb;text-align:right}
th:first-child{text-align:left}tr.total{font-weight:600;background:#f9fafb}
svg text{font-size:12px;fill:#374151}svg .tick{fill:#6b7280;font-size:11px}svg .label{font-size:12px;fill:#111827}
svg .grid{stroke:#eef0f3}svg .axis{stroke:#9ca3af}svg .ref{stroke:#9ca3af;stroke-dasharray:4 4}
svg .frontier{fill:none;stroke:#111827;stroke-width:1.5;stroke-dasharray:6 3}svg .kk{fill-opacity:.4}
svg .whisker{stroke-width:1.5;stroke-opacity:.6}small.ci,small.se{color:#6b7280}
.rate{font:10px monospace;color:#6b7280;margin-left:6px;white-space:nowrap}
.pair{display:flex;flex-wrap:wrap;gap:24px}figure{margin:0}figcaption{font-weight:600}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.legend{margin:4px 0}.legend .cell{margin-right:4px;vertical-align:-2px;cursor:default}
.bar{display:inline-block;width:120px;height:10px;background:#f3f4f6;vertical-align:middle}
.bar span{display:block;height:100%;background:#dc2626}.examples{text-align:left;font-size:12px;white-space:normal}
.rows{columns:250px}.grid .domain{font-weight:600;margin-top:6px;break-after:avoid}.row{break-inside:avoid}
.row{display:flex;align-items:center;gap:2px;height:16px}.task{font:11px monospace;width:170px;overflow:hidden}
.cell{width:14px;height:14px;padding:0;border:0;border-radius:2px;cursor:pointer;display:inline-block}
.cell.pass{background:#16a34a}.cell.fail{background:#dc2626}.cell.error{background:#f59e0b}
.cell.missing{background:repeating-linear-gradient(45deg,#e5e7eb 0 3px,#fff 3px 6px);outline:1px solid #d1d5db}
.cell.selected{outline:2px solid #111827;outline-offset:1px}
#attempt-viewer{border-top:3px solid #111827;margin-top:32px}.panes{display:grid;grid-template-columns:1fr 1fr;gap:20px}
.pane{max-height:80vh;overflow:auto}.msg{border-left:3px solid #d1d5db;padding:4px 10px;margin:6px 0}
.msg .who{font-size:11px;font-weight:600;color:#6b7280}.msg.user{border-color:#2563eb}
.msg.assistant{border-color:#059669}.msg.call{border-color:#7c3aed;background:#faf5ff}.msg.tool{border-color:#9ca3af}
.msg.err{border-color:#dc2626;background:#fef2f2}
.errorbox{border-left:3px solid #dc2626;background:#fef2f2;padding:6px 10px}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px}
.diff td,.diff th{text-align:left;vertical-align:top}.kind-wrong{color:#b91c1c}.kind-missing{color:#b45309}
.kind-extra{color:#7c3aed}
"""

SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("attempt-data").textContent);
  var body = document.getElementById("viewer-body");
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, children) { children.forEach(function (c) { if (c) parent.appendChild(c); }); return parent; }
  function json(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function pretty(text) { try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; } }
  function fact(dl, name, value) { add(dl, [add(el("div"), [el("dt", null, name), el("dd", null, value)])]); }
  function facts(a) {
    var dl = el("dl", "facts");
    [["run", data.runs[a.run]], ["outcome", a.outcome], ["signature", a.signature], ["end reason", a.end_reason],
     ["steps / turns", a.steps + " / " + a.turns], ["tool calls / errors", a.tool_calls + " / " + a.tool_errors],
     ["wrong / missing / extra", a.wrong + " / " + a.missing + " / " + a.extra], ["fault", a.fault],
     ["policy rules broken", (a.violations || []).map(function (v) { return v.rule + ": " + v.message; })
       .join("; ") || null],
     ["duration", a.duration_s == null ? null : a.duration_s.toFixed(2) + " s"]].forEach(function (f) {
      if (f[1] !== null && f[1] !== undefined) fact(dl, f[0], f[1]);
    });
    Object.keys(a.usage || {}).forEach(function (role) {
      var u = a.usage[role];
      fact(dl, role + " usage", u.model + ": " + u.input_tokens + " in (" + u.cached_tokens + " cached), " +
        u.output_tokens + " out (" + u.reasoning_tokens + " reasoning), " + u.calls + " calls, " + u.latency_s +
        " s, " + u.retries + " retries");
    });
    return dl;
  }
  function message(m) {
    if (m.role === "tool") {
      var box = el("div", "msg tool" + (m.error ? " err" : ""));
      return add(box, [el("div", "who", "tool result: " + m.tool + (m.error ? " — " + m.error : "")),
                       el("pre", null, pretty(m.content))]);
    }
    if (m.tool_calls && m.tool_calls.length) {
      var calls = el("div");
      m.tool_calls.forEach(function (c) {
        var box = el("div", "msg call");
        add(calls, [add(box, [el("div", "who", "tool call: " + c.tool), el("pre", null, json(c.arguments))])]);
      });
      return calls;
    }
    return add(el("div", "msg " + m.role), [el("div", "who", m.role), el("pre", null, m.content)]);
  }
  function diff(a) {
    var d = a.differences || [];
    if (!d.length) {
      return el("p", "note", a.outcome === "error" ? "No state difference: the attempt ended in a system error."
        : a.wrong + a.missing + a.extra ? "No difference details recorded." : "The end state matches the golden one.");
    }
    var t = add(el("table", "diff"), [add(el("tr"), ["kind", "table", "key", "field", "expected", "actual"].map(
      function (h) { return el("th", null, h); }))]);
    d.forEach(function (x) {
      add(t, [add(el("tr", "kind-" + x.kind), [el("td", null, x.kind), el("td", null, x.table), el("td", null, x.key),
        el("td", null, x.field === null ? "(whole row)" : x.field), add(el("td"), [el("pre", null, json(x.expected))]),
        add(el("td"), [el("pre", null, json(x.actual))])])]);
    });
    return t;
  }
  function open(target) {
    var i = Number(target.dataset.a), a = data.attempts[i];
    document.querySelectorAll(".cell.selected").forEach(function (c) { c.classList.remove("selected"); });
    if (target.classList.contains("cell")) target.classList.add("selected");
    if (!a) {
      body.replaceChildren(el("p", "warn", target.dataset.task + " #" + target.dataset.attempt + ": not recorded."));
    } else {
      var messages = (a.transcript || []).map(message);
      var left = add(el("div", "pane transcript"), [el("h4", null, "Transcript")].concat(messages));
      var right = add(el("div", "pane state-diff"), [el("h4", null, "State difference"), diff(a)]);
      var e = a.error;
      body.replaceChildren(el("h3", null, a.task + " #" + a.attempt + " (" + a.domain + ")"), facts(a),
        e ? el("pre", "errorbox", "system error in " + e.stage + ": " + e.type + ": " + e.message) : el("span"),
        a.failure ? el("pre", "errorbox", a.failure) : el("span"), add(el("div", "panes"), [left, right]));
    }
    document.getElementById("attempt-viewer").scrollIntoView();
  }
  document.addEventListener("click", function (ev) {
    var target = ev.target.closest("[data-a]");
    if (!target) return;
    ev.preventDefault();
    open(target);
  });
})();
"""
