"""The terminal summary: per-domain reliability table and per-task pass counts."""

from __future__ import annotations

from typing import Any


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def table_lines(agg: dict[str, Any]) -> list[str]:
    k = agg["k"]
    # With one attempt per task, pass@k and pass^k are pass@1 again: show it once.
    figures = ["pass@1", "pass@k", "pass^k"] if k > 1 else ["pass@1"]
    head = ["domain", "tasks", "attempts", *[f.replace("k", str(k)) for f in figures], f"{k}/{k}", "errors"]
    rows = [[name, *_cells(s, figures)] for name, s in agg["domains"].items()]
    rows.append(["overall", *_cells(agg["overall"], figures)])
    return format_table(head, rows)


def format_table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """Aligned lines: the first column to the left, figures to the right."""
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: list[Any]) -> str:
        first = str(cells[0]).ljust(widths[0])
        return "  ".join([first, *(str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    return [line(head), *(line(r) for r in rows)]


def _cells(s: dict[str, Any], figures: list[str]) -> list[Any]:
    return [s["tasks"], s["attempts"], *(_fmt(s[f]) for f in figures), s["all_k"], s["errors"]]


RULES_SHOWN = 5  # rules listed per domain, most broken first, unless verbose


def rule_lines(rules: dict[str, Any], verbose: bool = False) -> list[str]:
    """The policy rules broken, per domain (`rule_breaks.rule_table`), and the passing attempts that broke one.

    `rules` holds ``table``, ``named`` ([failed attempts naming a rule, failed attempts judged]) and
    ``passed_yet_broke`` ([task, attempt, rules] each).
    """
    named, judged = rules["named"]
    if not judged and not rules["table"]:
        return []
    lines = [f"policy rules broken: {named} of {judged} failed attempts name the rule they broke"]
    for domain, table in rules["table"].items():
        shown = list(table.items()) if verbose else list(table.items())[:RULES_SHOWN]
        parts = [f"{rule} {e['attempts']} ({e['share']:.0%}, {e['tasks']} tasks)" for rule, e in shown]
        more = f" and {len(table) - len(shown)} more" if len(shown) < len(table) else ""
        lines.append(f"  {domain}: " + ", ".join(parts) + more)
    passed = rules["passed_yet_broke"]
    if passed:
        lines.append(
            f"  {len(passed)} attempts passed their task's checks yet broke a policy rule (the checks miss it): "
            + ", ".join(f"{task}#{attempt} ({', '.join(broken)})" for task, attempt, broken in passed[:RULES_SHOWN])
            + (" ..." if len(passed) > RULES_SHOWN else "")
        )
    return lines


def write_summary(tr: Any, agg: dict[str, Any], verbose: bool = False) -> None:
    m = agg["manifest"]
    tr.write_sep("=", "thinkingbox")
    tr.write_line(f"agent {m['agent']}, user {m['user']}, seed {m['seed']}, k = {agg['k']} attempts per task")
    for text in table_lines(agg):
        tr.write_line(text)
    per_task = agg["per_task"]
    shown = {t: c for t, c in per_task.items() if verbose or c["passed"] < c["attempts"]}
    if shown:
        tr.write_line("")
        tr.write_line("per-task passes" + ("" if verbose else " (tasks not solved every time)") + ":")
        for task, c in shown.items():
            errors = f", {c['errors']} errors" if c["errors"] else ""
            tr.write_line(f"  {task:<28} {c['passed']:>3}/{c['attempts']:<3} {c['domain']}{errors}")
    if agg["incomplete"]:
        tr.write_line("")
        tr.write_line(
            f"incomplete: {len(agg['incomplete'])} tasks ran fewer than k = {agg['k']} attempts; their pass@k and "
            "pass^k are estimated at k = their attempt count:"
        )
        for task, n in sorted(agg["incomplete"].items()):
            tr.write_line(f"  {task}: {n} attempts")
    if agg.get("rules"):
        lines = rule_lines(agg["rules"], verbose)
        if lines:
            tr.write_line("")
        for line in lines:
            tr.write_line(line)
    errors = agg["overall"]["errors"]
    if errors:
        tr.write_line(f"{errors} attempts ended in a system or task error; they count as unsuccessful above.")
