"""`thinkingbox rules`: each domain's policy rules, the clauses they check, and the tasks that exercise them.

The rules come from the domain packages under a root (each exports ``DOMAIN``
with its ``rules``); which tasks exercise each rule comes from a
``--tb-validate`` results file, whose first attempts carry each task's
verdict (`rule_breaks.coverage`): a rule is exercised by a task when a careless
variant that the task's checks catch breaks it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.rules import parse_policy
from .attempt_record import AttemptRecord
from .rule_breaks import COVERED_BY, coverage


def domains_under(root: Path) -> dict[str, Any]:
    """Each package under `root` that has a policy and exports ``DOMAIN``, by the domain's name."""
    root = root.resolve()
    if str(root.parent) not in sys.path:
        sys.path.insert(0, str(root.parent))
    found = {}
    for folder in sorted(p for p in root.iterdir() if (p / "policy.md").exists() and (p / "__init__.py").exists()):
        domain = getattr(importlib.import_module(f"{root.name}.{folder.name}"), "DOMAIN", None)
        if domain is not None:
            found[domain.name] = domain
    return found


def rule_listing(domains: Mapping[str, Any], records: Iterable[AttemptRecord] | None = None) -> dict[str, Any]:
    """The listing: per domain its clauses, rules (with the tasks exercising each, given validation records),
    judgement-only clauses and mapping problems; ``thin`` lists the rules fewer than `COVERED_BY` tasks exercise."""
    exercised = coverage(records) if records is not None else None
    out: dict[str, Any] = {"coverage": exercised is not None, "covered_by": COVERED_BY, "domains": {}}
    for name, domain in sorted(domains.items()):
        rules = domain.rules
        if rules is None:
            out["domains"][name] = {"rules": [], "problems": ["the domain declares no rules (Domain(rules=...))"]}
            continue
        tasks = (exercised or {}).get(name, {})
        listed = []
        for rule in rules.rules.values():
            entry = {
                "id": rule.id,
                "title": rule.title,
                "section": rule.section,
                "clauses": list(rule.clauses),
                "on": list(rule.on),
            }
            if exercised is not None:
                entry["tasks"] = tasks.get(rule.id, [])
            listed.append(entry)
        out["domains"][name] = {
            "clauses": len(parse_policy(domain.policy_text).clauses),
            "rules": listed,
            "judgement": [{"clause": j.clause, "section": j.section, "why": j.why} for j in rules.judgements.values()],
            "problems": rules.problems(domain.policy_text),
            "thin": [r["id"] for r in listed if len(r.get("tasks", [])) < COVERED_BY] if exercised is not None else [],
        }
    return out


def listing_lines(listing: Mapping[str, Any]) -> list[str]:
    """The listing as text: one block per domain, one line per rule."""
    lines: list[str] = []
    for name, d in listing["domains"].items():
        if lines:
            lines.append("")
        judged = len(d.get("judgement", []))
        lines.append(f"{name}: {len(d['rules'])} rules over {d.get('clauses', 0)} clauses ({judged} judgement-only)")
        for problem in d["problems"]:
            lines.append(f"  PROBLEM {problem}")
        for r in d["rules"]:
            lines.append(f"  {r['id']:<7} {r['title']}  [{r['section']}; clauses {', '.join(r['clauses'])}]")
            if "tasks" in r:
                shown = ", ".join(t.removeprefix("test_case_") for t in r["tasks"][:6])
                more = f" and {len(r['tasks']) - 6} more" if len(r["tasks"]) > 6 else ""
                lines.append(f"          exercised by {len(r['tasks'])} tasks" + (f": {shown}{more}" if shown else ""))
        for j in d.get("judgement", []):
            lines.append(f"  {j['clause']:<7} judgement-only: {j['why']}  [{j['section']}]")
        if listing["coverage"]:
            thin = d["thin"]
            lines.append(
                f"  {len(d['rules']) - len(thin)} of {len(d['rules'])} rules exercised by {listing['covered_by']} or "
                "more tasks" + (f"; fewer: {', '.join(thin)}" if thin else "")
            )
    if not listing["coverage"]:
        lines.append("")
        lines.append(
            "which tasks exercise each rule: give the results of a validation run, e.g. "
            "`pytest domains --tb-validate -n 2 --tb-results validate.jsonl` then `--validation validate.jsonl`"
        )
    return lines
