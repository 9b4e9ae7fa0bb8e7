"""The HTML report's SVG charts, drawn in Python: reliability, cost frontier and per-domain bars."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from .common_html import _colour, _label, _legend, _num, _swatch, _usd

W, H, LEFT, RIGHT, TOP, BOTTOM = 560, 380, 60, 30, 20, 50  # chart box and its margins


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
