"""The validity report of --tb-validate: per domain and per task, does the task tell careful from careless?

Columns, per domain (each counts tasks unless it says mutants or traps):

* golden stable: every golden attempt passed, with one end state;
* noop fails: the do-nothing agent fails (a stamp or free text alone does not count);
* blind fail: every policy-blind baseline fails, or the task says why its ending is right;
* mutants, then how they ended: killed by the task's own checks, killed only by
  the end-state comparison (`expect_golden`), equivalent (the very same end
  state, volatile fields included), survived;
* traps caught / declared;
* derived: golden values the task declares computed; unexplained values are problems;
* exempt: tasks marked ``tb_validity(reason)``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..campaign.rule_breaks import COVERED_BY, coverage
from ..campaign.views.terminal import format_table
from ..roles.agents import BASELINES
from .validation import note_lines, problem_lines

MUTANT_COLUMNS = ("killed by checks", "killed by end state", "equivalent", "survived")


def task_verdicts(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per task: domain, golden stability over its attempts, and the first attempt's validation."""
    tasks: dict[str, dict[str, Any]] = {}
    for r in records:
        t = tasks.setdefault(
            r["task"], {"domain": r["domain"], "attempts": 0, "passed": 0, "ends": set(), "errors": []}
        )
        if r.get("error"):
            t["errors"].append(r["error"]["message"])
        t["attempts"] += 1
        # an attempt that failed only its validation still passed under the golden agent
        t["passed"] += r["outcome"] == "passed" or bool(r.get("validation", {}).get("golden_passed"))
        if r.get("end_hash"):
            t["ends"].add(r["end_hash"])
        if "validation" in r:
            t["validation"] = r["validation"]
            t["identity"] = (r["domain"], r.get("start_hash"), r["validation"].get("calls"))
    for t in tasks.values():
        t["stable"] = t["passed"] == t["attempts"] and len(t["ends"]) == 1
        v = t.get("validation")
        t["problems"] = ([] if t["stable"] else [_instability(t)]) + (problem_lines(v) if v else [])
        if v is None:
            t["problems"].append("not validated: the first attempt did not complete under the golden agent")
        t["exempt"] = v.get("exempt") if v else None
    _mark_duplicates(tasks)
    return tasks


def _mark_duplicates(tasks: dict[str, dict[str, Any]]) -> None:
    """Two tasks with the same start state and golden calls are one task counted twice."""
    groups: dict[Any, list[str]] = defaultdict(list)
    for name, t in sorted(tasks.items()):
        if "identity" in t:
            groups[t["identity"]].append(name)
    for names in groups.values():
        for name in names[1:]:
            tasks[name]["problems"].append(f"a duplicate of {names[0]}: the same start state and golden calls")


def _instability(t: dict[str, Any]) -> str:
    if t["passed"] < t["attempts"]:
        why = f": {t['errors'][0]}" if t["errors"] else ""
        return f"the golden agent failed {t['attempts'] - t['passed']} of {t['attempts']} attempts{why}"
    return f"the golden end state differs between attempts or workers ({len(t['ends'])} end states)"


def task_row(v: dict[str, Any]) -> dict[str, int]:
    """The counts one task contributes to its domain's row."""
    mutants = v.get("mutants", [])
    traps = v.get("traps", [])
    baselines = v.get("baselines", {})
    row = {
        "noop fails": v.get("noop") == "failed",
        "blind fail": all(b["outcome"] == "failed" or b["ok"] for b in baselines.values()),
        "mutants": len(mutants),
        **{c: sum(m["outcome"] == c for m in mutants) for c in MUTANT_COLUMNS},
        "traps caught": sum(t["outcome"].startswith("caught") for t in traps),
        "traps": len(traps),
        "derived": sum(f["kind"] == "derived" for f in v.get("provenance", [])),
    }
    return {k: int(val) for k, val in row.items()}


def report_lines(records: list[dict[str, Any]], verbose: bool = False) -> tuple[list[str], bool]:
    """The report's lines, and whether the benchmark is valid (exempt tasks aside)."""
    tasks = task_verdicts(records)
    domains: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    for t in tasks.values():
        d = domains[t["domain"]]
        d["tasks"] += 1
        d["golden stable"] += t["stable"]
        d["exempt"] += t["exempt"] is not None
        for key, value in task_row(t.get("validation") or {}).items():
            d[key] += value
    for d in domains.values():
        d["traps"] = f"{d.pop('traps caught')}/{d['traps']}"  # caught of declared
    head = ["domain", "tasks", "golden stable", "noop fails", "blind fail", "mutants", *MUTANT_COLUMNS]
    head += ["traps", "derived", "exempt"]
    rows = [[name, *(d[h] for h in head[1:])] for name, d in sorted(domains.items())]
    lines = format_table(head, rows)
    lines.extend(baseline_lines(tasks))
    lines.extend(rule_lines(tasks))
    valid = True
    for name, t in sorted(tasks.items()):
        if t["problems"] and t["exempt"] is None:
            valid = False
            lines.append(f"INVALID {name} ({t['domain']}):")
            lines.extend(f"  {p}" for p in t["problems"])
        elif t["exempt"] is not None:
            lines.append(f"exempt  {name} ({t['domain']}): {t['exempt']}")
            lines.extend(f"  {p}" for p in t["problems"])
        elif verbose:
            row = task_row(t["validation"])
            lines.append(f"valid   {name}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
        notes = note_lines(t.get("validation") or {})
        if notes and (verbose or t["problems"]):
            lines.extend(f"  note: {n}" for n in notes)
    lines.append(
        "every selected task tells a careful agent from a careless one" if valid else "the benchmark is not valid"
    )
    return lines, valid


def baseline_lines(tasks: dict[str, dict[str, Any]]) -> list[str]:
    """Per baseline, the tasks it passes: without a reason (a problem) and with one."""
    passed = {b: 0 for b in BASELINES}
    excused = {b: 0 for b in BASELINES}
    for t in tasks.values():
        for name, b in (t.get("validation") or {}).get("baselines", {}).items():
            if b["outcome"] == "passed":
                (excused if b["ok"] else passed)[name] += 1
    if not any(passed.values()) and not any(excused.values()):
        return [f"policy-blind baselines ({', '.join(BASELINES)}) pass no task"]
    parts = [f"{b} {passed[b]}" + (f" (+{excused[b]} with a reason)" if excused[b] else "") for b in BASELINES]
    return ["tasks passed by each policy-blind baseline: " + ", ".join(parts)]


def rule_lines(tasks: dict[str, dict[str, Any]]) -> list[str]:
    """Per domain: its rules, those exercised by fewer than `COVERED_BY` tasks, traps that break no rule."""
    lines = []
    verdicts = [{"task": name, "domain": t["domain"], "validation": t.get("validation")} for name, t in tasks.items()]
    for domain, rules in coverage(verdicts).items():
        thin = {rule: names for rule, names in rules.items() if len(names) < COVERED_BY}
        silent = sum(bool(note_lines(t.get("validation") or {})) for t in tasks.values() if t["domain"] == domain)
        lines.append(
            f"{domain}: {len(rules)} policy rules, {len(rules) - len(thin)} exercised by {COVERED_BY} or more tasks"
            + (f"; {silent} tasks have a caught trap that breaks no rule" if silent else "")
        )
        for rule, names in sorted(thin.items()):
            lines.append(
                f"  rule {rule} is exercised by {len(names)} task(s)" + (f": {', '.join(names)}" if names else "")
            )
    return lines
