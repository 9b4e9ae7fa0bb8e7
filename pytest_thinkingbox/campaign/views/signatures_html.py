"""The HTML report's failure-signature section: each run's failed attempts by label, overall and per domain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..signatures import describe
from .common_html import _label, _pct, _swatch
from .viewer_html import _link


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


def _domain_share(counts: Mapping[str, int], label: str) -> str:
    total = sum(counts.values())
    return f"<td>{_pct(counts[label] / total)} ({counts[label]})</td>" if counts.get(label) else "<td></td>"
