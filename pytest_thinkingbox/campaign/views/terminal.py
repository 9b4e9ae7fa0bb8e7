"""The terminal summary: per-domain reliability table (each rate with its standard error) and per-task passes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def with_se(s: Mapping[str, Any], figure: str) -> str:
    """A rate and its task-clustered standard error, e.g. ``0.612 ±0.041`` (no ± without one)."""
    value, se = s.get(figure), s.get(f"{figure}_se")
    return _fmt(value) + ("" if value is None or se is None else f" ±{se:.3f}")


def errors_cell(s: Mapping[str, Any]) -> str:
    """System errors: the count, and their share of the attempts when there are any."""
    return f"{s['errors']} ({s['error_share']:.1%})" if s["errors"] and s.get("error_share") else str(s["errors"])


#: Marks an interval that is the Jeffreys fallback of `stats.mean_estimate` (every task had the same figure).
ALIKE = "*"
ALIKE_NOTE = f"{ALIKE} every task had the same figure: no spread to measure, so a Jeffreys interval over the tasks"


def interval(s: Mapping[str, Any], figure: str) -> str:
    """A figure's 95% interval as ``[0.531, 0.693]`` (`ALIKE` after the fallback's), or why it has none."""
    ci = s.get(f"{figure}_ci95")
    if ci is not None:
        return f"[{ci[0]:.3f}, {ci[1]:.3f}]" + (ALIKE if s.get(f"{figure}_se") == 0 else "")
    return "none (one task)" if s.get(figure) is not None else "none"


def table_lines(agg: dict[str, Any]) -> list[str]:
    """Per domain and overall: tasks, attempts, the rates with their standard errors, k/k and system errors."""
    k = agg["k"]
    # With one attempt per task, pass@k and pass^k are pass@1 again: show it once.
    figures = ["pass@1", "pass@k", "pass^k"] if k > 1 else ["pass@1"]
    short = any(s["incomplete_tasks"] for s in [agg["overall"], *agg["domains"].values()])
    head = ["domain", "tasks", "attempts", *[f.replace("k", str(k)) for f in figures], f"{k}/{k}"]
    head += ["short of k"] if short else []
    rows = [[name, *_cells(s, figures, short)] for name, s in agg["domains"].items()]
    rows.append(["overall", *_cells(agg["overall"], figures, short)])
    return format_table([*head, "errors"], rows)


def legend_lines(agg: Mapping[str, Any]) -> list[str]:
    """What ± means, and the overall figures' 95% intervals."""
    k, s = agg["k"], agg["overall"]
    names = [("pass@1", "pass@1")] + ([("pass@k", f"pass@{k}"), ("pass^k", f"pass^{k}")] if k > 1 else [])
    names.append(("all_k_share", f"{k}/{k} share"))
    cells = [interval(s, figure) for figure, _ in names]
    parts = ", ".join(f"{label} {cell}" for (_, label), cell in zip(names, cells, strict=True))
    return [
        "± is the standard error over tasks (clustered by task); system errors are not graded attempts",
        f"95% intervals overall (Student's t, tasks - 1 df): {parts}",
        *([f"  {ALIKE_NOTE}"] if any(cell.endswith(ALIKE) for cell in cells) else []),
    ]


def format_table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """Aligned lines: the first column to the left, figures to the right."""
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: list[Any]) -> str:
        first = str(cells[0]).ljust(widths[0])
        return "  ".join([first, *(str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    return [line(head), *(line(r) for r in rows)]


def _cells(s: dict[str, Any], figures: list[str], short: bool) -> list[Any]:
    cells = [s["tasks"], s["attempts"], *(with_se(s, f) for f in figures), s["all_k"]]
    return [*cells, *([s["incomplete_tasks"]] if short else []), errors_cell(s)]


RULES_SHOWN = 5  # rules listed per domain, most broken first, unless verbose
OFFLINE_AGENTS = ("golden", "noop", "flaky")


def offline_roles_note(manifest: dict[str, Any]) -> str | None:
    """One line when a model (or an agent of your own) was graded with an offline user or judge, else None."""
    agent = str(manifest.get("agent") or "")
    if not agent or agent in OFFLINE_AGENTS or agent.startswith("blind:"):
        return None
    offline = [
        f"the {role} is {name} (offline)"
        for role, name in (("user", manifest.get("user")), ("judge", manifest.get("judge")))
        if name and not str(name).startswith("openai:")
    ]
    if not offline:
        return None
    return (
        f"note: the agent is {agent}, but {' and '.join(offline)}; --tb-user openai:MODEL and --tb-judge "
        "openai:MODEL (or user: and judge: sections in --tb-config) have models play them"
    )


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
    m, k = agg["manifest"], agg["k"]
    tr.write_sep("=", "thinkingbox")
    tr.write_line(f"agent {m['agent']}, user {m['user']}, seed {m['seed']}, k = {k} attempts per task")
    note = offline_roles_note(m)
    if note:
        tr.write_line(note)
    for text in [*table_lines(agg), *legend_lines(agg)]:
        tr.write_line(text)
    per_task = agg["per_task"]
    shown = {t: c for t, c in per_task.items() if verbose or c["passed"] < c["attempts"]}
    if shown:
        tr.write_line("")
        tr.write_line(
            "per-task passes of graded attempts" + ("" if verbose else " (tasks not solved every time)") + ":"
        )
        for task, c in shown.items():
            graded = c["attempts"] - c["errors"]
            errors = f", {c['errors']} system errors" if c["errors"] else ""
            short = f", short of k = {k}" if graded < k else ""
            tr.write_line(f"  {task:<28} {c['passed']:>3}/{graded:<3} {c['domain']}{errors}{short}")
    for line in incomplete_lines(agg):
        tr.write_line(line)
    if agg.get("rules"):
        lines = rule_lines(agg["rules"], verbose)
        if lines:
            tr.write_line("")
        for line in lines:
            tr.write_line(line)
    overall = agg["overall"]
    if overall["errors"]:
        tr.write_line(
            f"{overall['errors']} attempts ended in a system error ({overall['error_share']:.1%} of the attempts); "
            "they are not graded, so they are left out of the rates above; re-run them with --tb-rerun-errors."
        )
    ungraded = overall["tasks"] - overall["graded_tasks"]
    if ungraded:
        tr.write_line(f"{ungraded} tasks had only system errors: they are in no rate at all.")


def incomplete_lines(agg: Mapping[str, Any]) -> list[str]:
    """The tasks short of k graded attempts: in pass@1, left out of the k figures, never estimated at n."""
    short = agg["incomplete"]
    if not short:
        return []
    lines = [
        "",
        f"short of k: {len(short)} tasks have fewer than k = {agg['k']} graded attempts (system errors, or attempts "
        "that did not run); they count in pass@1 but are left out of pass@k, pass^k and k/k, never estimated at "
        "fewer than k:",
    ]
    return lines + [f"  {task}: {n} graded attempts" for task, n in sorted(short.items())]
