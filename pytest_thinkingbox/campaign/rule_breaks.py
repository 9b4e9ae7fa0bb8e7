"""Which policy rules a campaign's attempts broke: per domain and rule, how often, on which tasks.

Each record carries ``rules_broken``, the ids of its domain's rules its end
state breaks (`core/rules.py`). An attempt that failed names the policy it
broke; one that passed its task yet broke a rule shows a task whose checks
miss that rule. Records written before rules existed carry no
``rules_broken`` (or null) and count as not judged. System errors are left out, as in
every figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .attempt_record import AttemptRecord

EXAMPLES = 5  # example attempts kept per rule
#: A rule exercised by fewer tasks than this is listed: one task's trap is an example, not coverage.
COVERED_BY = 3


def rule_table(records: Iterable[AttemptRecord]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per domain, per rule broken: attempts that broke it, of the domain's judged attempts, and examples.

    Each rule's entry: ``attempts`` (that broke it), ``of`` (judged attempts of the
    domain), ``share``, ``failed`` and ``passed`` (how those attempts ended),
    ``tasks`` (distinct tasks) and ``examples`` ([task, attempt] pairs).
    """
    judged: dict[str, int] = {}
    table: dict[str, dict[str, dict[str, Any]]] = {}
    tasks: dict[tuple[str, str], set[str]] = {}
    for r in records:
        if r.get("outcome") == "error" or r.get("rules_broken") is None:
            continue
        domain = r.get("domain") or "unknown"
        judged[domain] = judged.get(domain, 0) + 1
        for rule in r["rules_broken"] or ():
            entry = table.setdefault(domain, {}).setdefault(
                rule, {"attempts": 0, "failed": 0, "passed": 0, "examples": []}
            )
            entry["attempts"] += 1
            entry["passed" if r["outcome"] == "passed" else "failed"] += 1
            tasks.setdefault((domain, rule), set()).add(r["task"])
            if len(entry["examples"]) < EXAMPLES:
                entry["examples"].append([r["task"], r.get("attempt", 1)])
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for domain, rules in sorted(table.items()):
        out[domain] = {}
        for rule, entry in sorted(rules.items(), key=lambda item: (-item[1]["attempts"], _order(item[0]))):
            of = judged[domain]
            out[domain][rule] = {
                **entry,
                "of": of,
                "share": entry["attempts"] / of,
                "tasks": len(tasks[(domain, rule)]),
            }
    return out


def failed_naming_a_rule(records: Iterable[AttemptRecord]) -> tuple[int, int]:
    """(failed attempts that name a broken rule, failed attempts judged by rules)."""
    failed = [r for r in records if r.get("outcome") == "failed" and r.get("rules_broken") is not None]
    return sum(bool(r["rules_broken"]) for r in failed), len(failed)


def passed_yet_broke(records: Iterable[AttemptRecord]) -> list[tuple[str, int, list[str]]]:
    """(task, attempt, rules) of each attempt that passed its task's checks but broke a policy rule."""
    return [
        (r["task"], r.get("attempt", 1), list(r["rules_broken"]))
        for r in records
        if r.get("outcome") == "passed" and r.get("rules_broken")
    ]


def rule_figures(records: Iterable[AttemptRecord]) -> dict[str, Any]:
    """The rule figures of a campaign, as the aggregate and the report carry them."""
    records = list(records)
    return {
        "table": rule_table(records),
        "named": list(failed_naming_a_rule(records)),
        "passed_yet_broke": [list(item) for item in passed_yet_broke(records)],
    }


def exercised_rules(verdict: Mapping[str, Any]) -> set[str]:
    """The rules a task exercises, from its ``--tb-validate`` verdict: those broken by a careless variant its
    checks catch (a declared trap, a single-step mutant of its golden calls, a policy-blind baseline, noop)."""
    found: set[str] = set()
    for t in verdict.get("traps", ()):
        if t["outcome"].startswith("caught"):
            found.update(t.get("rules", ()))
    for m in verdict.get("mutants", ()):
        if m["outcome"].startswith("killed"):
            found.update(m.get("rules", ()))
    for b in verdict.get("baselines", {}).values():
        if b["outcome"] == "failed":
            found.update(b.get("rules", ()))
    if verdict.get("noop") == "failed":
        found.update(verdict.get("noop_rules", ()))
    return found


def coverage(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Per domain, per rule (every rule of the domain, exercised or not): the tasks that exercise it.

    From the first attempts of a ``--tb-validate`` run, whose records carry the task's verdict.
    """
    out: dict[str, dict[str, list[str]]] = {}
    for r in sorted(records, key=lambda r: r["task"]):
        verdict = r.get("validation") or {}
        if verdict.get("rules") is None:
            continue
        rules = out.setdefault(r.get("domain") or "unknown", {})
        for rule in verdict["rules"]:
            rules.setdefault(rule, [])
        for rule in sorted(exercised_rules(verdict)):
            if r["task"] not in rules.setdefault(rule, []):
                rules[rule].append(r["task"])
    return out


def _order(rule: str) -> tuple[str, int]:
    """Rule ids in policy order: ``RT-7`` before ``RT-12``."""
    prefix, _, number = rule.rpartition("-")
    return (prefix, int(number)) if number.isdigit() else (rule, 0)
