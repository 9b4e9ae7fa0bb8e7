"""The HTML report's policy-rules section: per run and domain, each rule broken, how often, with examples.

Kept beside `html.py` (the page) so the page module keeps to laying out sections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any


def rules_section(
    runs: Sequence[Mapping[str, Any]],
    index: Mapping[tuple[int, str, int], int],
    heading: Callable[[Mapping[str, Any], int], str],
    link: Callable[[int, str], str],
) -> str:
    """The section: for each run, a table per domain of the rules its attempts broke (`rule_breaks.rule_table`).

    `heading` gives a run's heading (its swatch and label); `link` an attempt's link for the viewer.
    """
    parts = ['<section id="rules"><h2>Policy rules broken</h2>']
    parts.append(
        "<p class=\"note\">The domain's policy as executable rules, checked on every attempt's end state: each "
        "rule an attempt broke, as a share of the domain's attempts, with how many of them failed and how many "
        "passed their task's checks anyway (a check the task misses). System errors are left out.</p>"
    )
    for n, run in enumerate(runs, 1):
        rules = run.get("rules") or {}
        named, judged = rules.get("named") or (0, 0)
        parts.append(f"<h3>{heading(run, n)}</h3>")
        if not rules.get("table"):
            parts.append('<p class="note">No attempt broke a policy rule (or the records carry no rule check).</p>')
            continue
        parts.append(f'<p class="note">{named} of {judged} failed attempts name the rule they broke.</p>')
        for domain, table in rules["table"].items():
            rows = []
            for rule, e in table.items():
                keys = [tuple(key) for key in e["examples"] if (n, *key) in index]
                links = " ".join(link(index[n, task, attempt], f"{task} #{attempt}") for task, attempt in keys)
                rows.append(
                    f'<tr><th>{escape(rule)}</th><td class="share"><span class="bar"><span style="width:'
                    f'{100 * e["share"]:.1f}%"></span></span> {e["share"]:.1%}</td><td>{e["attempts"]} of {e["of"]}'
                    f"</td><td>{e['failed']}</td><td>{e['passed']}</td><td>{e['tasks']}</td>"
                    f'<td class="examples">{links}</td></tr>'
                )
            head = (
                "<tr><th>rule</th><th>share</th><th>attempts</th><th>failed</th><th>passed</th><th>tasks</th>"
                '<th class="examples">examples</th></tr>'
            )
            parts.append(f'<h4>{escape(domain)}</h4><table class="signatures">{head}{"".join(rows)}</table>')
    return "".join(parts) + "</section>"
