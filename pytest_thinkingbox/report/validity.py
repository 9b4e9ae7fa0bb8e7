"""The validity report of --tb-validate: per domain and per task, can the checks tell right from wrong?"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..validation import problem_lines
from .terminal import format_table

OUTCOMES = ("equivalent", "killed", "survived")


def task_verdicts(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per task: domain, golden stability over its attempts, and the first attempt's validation."""
    tasks: dict[str, dict[str, Any]] = {}
    for r in records:
        t = tasks.setdefault(r["task"], {"domain": r["domain"], "attempts": 0, "passed": 0, "ends": set()})
        t["attempts"] += 1
        t["passed"] += r["outcome"] == "passed"
        if r.get("end_hash"):
            t["ends"].add(r["end_hash"])
        if "validation" in r:
            t["validation"] = r["validation"]
    for t in tasks.values():
        t["stable"] = t["passed"] == t["attempts"] and len(t["ends"]) == 1
        v = t.get("validation")
        t["problems"] = ([] if t["stable"] else [_instability(t)]) + (problem_lines(v) if v else [])
        if v is None:
            t["problems"].append("not validated: the first attempt did not complete under the golden agent")
        t["exempt"] = v.get("exempt") if v else None
    return tasks


def _instability(t: dict[str, Any]) -> str:
    if t["passed"] < t["attempts"]:
        return f"the golden agent failed {t['attempts'] - t['passed']} of {t['attempts']} attempts"
    return f"the golden end state differs between attempts or workers ({len(t['ends'])} end states)"


def report_lines(records: list[dict[str, Any]], verbose: bool = False) -> tuple[list[str], bool]:
    """The report's lines, and whether the benchmark is valid (exempt tasks aside)."""
    tasks = task_verdicts(records)
    domains: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for t in tasks.values():
        d = domains[t["domain"]]
        v = t.get("validation") or {"noop": "-", "mutants": []}
        d["tasks"] += 1
        d["golden stable"] += t["stable"]
        d["noop fails"] += v["noop"] == "failed"
        d["mutants"] += len(v["mutants"])
        for outcome in OUTCOMES:
            d[outcome] += sum(m["outcome"] == outcome for m in v["mutants"])
        d["exempt"] += t["exempt"] is not None
    head = ["domain", "tasks", "golden stable", "noop fails", "mutants", *OUTCOMES, "exempt"]
    rows = [[name, *(d[h] for h in head[1:])] for name, d in sorted(domains.items())]
    lines = format_table(head, rows)
    counts = [len(t["validation"]["mutants"]) for t in tasks.values() if t.get("validation")]
    if counts:
        lines.append(f"mutants per task: {min(counts)} to {max(counts)}, {sum(counts) / len(counts):.1f} on average")
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
            v = t["validation"]
            lines.append(f"valid   {name}: {len(v['mutants'])} mutants, noop {v['noop']}")
    lines.append("every selected task can tell right from wrong" if valid else "the benchmark is not valid")
    return lines, valid
