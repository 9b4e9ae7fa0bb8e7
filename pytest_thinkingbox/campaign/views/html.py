"""The campaign report as one self-contained HTML page (`thinkingbox report --html PATH`).

A campaign report gets mailed, attached to CI runs and opened years later, so everything is
inline: the CSS, the SVG charts (drawn in Python, `charts_html`), the record fields the attempt
viewer needs (as JSON) and a small script for the viewer (`viewer_html`). Nothing is fetched, and
a Content Security Policy forbids fetching anything, so the page opens offline. Every string from
a record is escaped, and the viewer sets text with ``textContent`` only: a transcript is untrusted
model output.

This module is the page frame (head, policy, navigation, style); each section has its own module.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from html import escape
from typing import Any

from .charts_html import _cost_charts, _domain_chart, _reliability_chart
from .common_html import _label, _legend, _swatch
from .rules_html import rules_section
from .runs_html import _run_section
from .signatures_html import _signatures
from .viewer_html import OUTCOME_LEGEND, SCRIPT, _attempt_index, _grid, _link


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


def _nav() -> str:
    links = [("runs", "Runs"), ("chart-reliability", "Reliability"), ("chart-cost", "Cost")]
    links += [("chart-domains", "Domains"), ("signatures", "Failure signatures"), ("rules", "Policy rules")]
    links += [("attempts", "Attempts")]
    return "<nav>" + " · ".join(f'<a href="#{i}">{t}</a>' for i, t in links) + "</nav>"


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
