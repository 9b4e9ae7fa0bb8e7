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

from ..campaign.attempt_record import AttemptRecord
from ..campaign.rule_breaks import COVERED_BY, coverage
from ..campaign.views.terminal import format_table
from ..roles.agents import BASELINES, GUESSES
from .validation import note_lines, problem_lines

MUTANT_COLUMNS = ("killed by checks", "killed by end state", "equivalent", "survived")


def task_verdicts(records: list[AttemptRecord]) -> dict[str, dict[str, Any]]:
    """Per task: domain, golden stability over its attempts, and the first attempt's validation."""
    tasks: dict[str, dict[str, Any]] = {}
    for r in records:
        t = tasks.setdefault(
            r["task"], {"domain": r["domain"], "attempts": 0, "passed": 0, "ends": set(), "errors": []}
        )
        if error := r.get("error"):
            t["errors"].append(error["message"])
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


def report_lines(
    records: list[AttemptRecord], verbose: bool = False, briefs: list[dict[str, Any]] | None = None
) -> tuple[list[str], bool]:
    """The report's lines, and whether the benchmark is valid (exempt tasks aside).

    With the session's `briefs` (what every task declares), tasks are also
    checked across each other: structural duplicates and openings that answer.
    """
    tasks = task_verdicts(records)
    if briefs is not None:
        _mark_across_tasks(tasks, briefs)
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
    excused = excused_lines(tasks)
    lines.extend(excused)
    valid = not excused
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
    """Per baseline, the tasks it passes: without a reason (a problem) and with one; the guessing ones as shares."""
    passed: dict[str, int] = {}
    excused: dict[str, int] = {}
    tried: dict[str, int] = {}
    union = 0
    for t in tasks.values():
        baselines = (t.get("validation") or {}).get("baselines", {})
        union += any(b["outcome"] == "passed" and name in GUESSES for name, b in baselines.items())
        for name, b in baselines.items():
            tried[name] = tried.get(name, 0) + 1
            if b["outcome"] == "passed":
                (excused if b["ok"] else passed)[name] = (excused if b["ok"] else passed).get(name, 0) + 1
    fixed = ", ".join(BASELINES)
    lines = []
    if not any(passed.get(b) or excused.get(b) for b in BASELINES):
        lines.append(f"policy-blind baselines ({fixed}) pass no task")
    else:
        parts = [
            f"{b} {passed.get(b, 0)}" + (f" (+{excused[b]} with a reason)" if excused.get(b) else "") for b in BASELINES
        ]
        lines.append("tasks passed by each policy-blind baseline: " + ", ".join(parts))
    guessed = [name for name in GUESSES if name in tried]
    if guessed:
        shares = [
            f"{name} {passed.get(name, 0) + excused.get(name, 0)}/{tried[name]}"
            for name in guessed
            if passed.get(name) or excused.get(name)
        ]
        lines.append(
            "baselines that guess the domain's usual endings (rank:1-10) and the family's (family) pass "
            + (", ".join(shares) + f"; any of them {union}/{len(tasks)}" if shares else "no task")
        )
    return lines


#: The share of a domain's tasks that may declare a baseline's ending right (one task at least): more is a
#: benchmark of guesses.
EXCUSED_SHARE = 0.01


def excused_lines(tasks: dict[str, dict[str, Any]]) -> list[str]:
    """Domains where more than `EXCUSED_SHARE` of the tasks declare a baseline's ending right (a problem)."""
    lines = []
    per_domain: dict[str, list[str]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for name, t in tasks.items():
        counts[t["domain"]] += 1
        if ((t.get("validation") or {}).get("declared") or {}).get("baseline_ok"):
            per_domain[t["domain"]].append(name)
    for domain, names in sorted(per_domain.items()):
        if len(names) > max(1, int(EXCUSED_SHARE * counts[domain])):
            lines.append(
                f"INVALID {domain}: {len(names)} of {counts[domain]} tasks declare a baseline's ending right "
                f"(tb_validity(baseline_ok=...)), more than {EXCUSED_SHARE:.0%} (one task at least): "
                + ", ".join(sorted(names))
            )
    return lines


def _mark_across_tasks(tasks: dict[str, dict[str, Any]], briefs: list[dict[str, Any]]) -> None:
    """Problems only the whole collection shows: structural duplicates, openings that give the answer."""
    from ..core.task_checks import answered_by_opening, duplicates

    declared = {name: (t.get("validation") or {}).get("declared") or {} for name, t in tasks.items()}
    twins = duplicates(b for b in briefs if b["task"] in tasks)
    for name, others in twins.items():
        first = min([name, *others])
        variants = set(declared[name].get("variant_of") or {})
        if (
            name != first
            and first not in variants
            and not any(name in (declared[o].get("variant_of") or {}) for o in others)
        ):
            tasks[name]["problems"].append(
                f"a structural duplicate of {first}: the same arranged rows and golden calls, decisions and all, "
                f"with other names, ids, text or amounts (declare tb_validity(variant_of={{{first!r}: reason}}) "
                "if it is a deliberate variant)"
            )
    for brief in briefs:
        if brief["task"] not in tasks or declared[brief["task"]].get("opening_ok"):
            continue
        named = answered_by_opening(brief)
        if named:
            tasks[brief["task"]]["problems"].append(
                f"the user's opening line names what the policy decides ({'; '.join(named)}): an agent that does "
                "as it is told passes (declare tb_validity(opening_ok=reason) if the request really says so)"
            )


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
