"""The inventory of the bundled domains, measured: the table in docs/domains.md.

    python scripts/inventory.py           # print the table
    python scripts/inventory.py --write   # write it into docs/domains.md
    python scripts/inventory.py --check   # exit 1 when docs/domains.md is not current (CI)
    python scripts/inventory.py --check --records golden.jsonl   # from a golden run already made

Static figures (tools, tables, policy articles) come from each domain package;
the rest from one golden run of every task (`pytest domains --tb-results`,
or the results file of a golden run given with ``--records``; the first
passed attempt of each task counts), whose transcripts hold the golden calls
as made:

* golden calls: the mean per task, and the tasks with 10 or more;
* ticket-only: the share of tasks whose golden writes are all ticket writes
  (refusals, holds, escalations);
* rubric: tasks that ask the judge a question; creates ticket: tasks whose
  golden path opens a ticket;
* articles: the policy's articles (its ``##`` headings) that some task module
  names in its ``ARTICLES`` tuple, of all of them;
* shared sequence: the share of tasks whose sequence of golden tool names is
  also another task's;
* two requests, distractors, pushback: the tasks marked with that trait
  (``@pytest.mark.pushback``; the markers are registered in domains/conftest.py).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("auto_insurance", "consulting", "neobank", "retail", "travel")
TICKET_WRITES = {"create_ticket", "update_ticket", "add_ticket_comment"}
TRAITS = {"two_requests": "two requests", "distractors": "distractors", "pushback": "pushback"}
DOC = ROOT / "docs" / "domains.md"
START, END = "<!-- inventory:start (scripts/inventory.py --write) -->", "<!-- inventory:end -->"


def articles(domain: str) -> list[str]:
    """The policy's articles: its level-2 headings."""
    text = (ROOT / "domains" / domain / "policy.md").read_text(encoding="utf-8")
    return re.findall(r"^## (.+?)\s*$", text, flags=re.M)


def declared_articles(path: Path) -> tuple[str, ...] | None:
    """The module-level ``ARTICLES = (...)`` of a task module, or None when it declares none."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ARTICLES" for t in node.targets):
            value = ast.literal_eval(node.value)
            return tuple(value) if isinstance(value, (tuple, list)) else (value,)
    return None


def marked_traits(path: Path) -> Counter[str]:
    """How many task functions of a module carry each trait marker (``@pytest.mark.pushback``)."""
    found: Counter[str] = Counter()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_"):
            for decorator in node.decorator_list:
                name = getattr(decorator, "attr", None)
                if name in TRAITS and getattr(getattr(decorator, "value", None), "attr", None) == "mark":
                    found[name] += 1
    return found


def golden_records(given: Path | None = None) -> list[dict[str, Any]]:
    """One passed golden attempt per task: from `given` (a results file), else from a run made now."""
    sys.path.insert(0, str(ROOT))
    from pytest_thinkingbox.campaign.records import read_records

    if given is not None:
        first: dict[str, dict[str, Any]] = {}
        for r in sorted(read_records([given]), key=lambda r: r["attempt"]):
            if r["outcome"] == "passed" and r.get("agent") == "golden":
                first.setdefault(r["task"], r)
        return list(first.values())
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "golden.jsonl"
        command = [sys.executable, "-m", "pytest", "domains", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
        command += ["-n", "2", "--tb-repeat", "1", "--tb-agent", "golden", "--tb-results", str(results)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "CI": ""})
        if done.returncode != 0:
            raise SystemExit(f"the golden run failed:\n{done.stdout[-3000:]}")
        return read_records([results])


def calls(record: dict[str, Any]) -> list[str]:
    messages = [m for m in record.get("transcript", []) if m["role"] == "assistant"]
    return [c["tool"] for m in messages for c in m.get("tool_calls") or []]


def inventory(given: Path | None = None) -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(ROOT))
    records = golden_records(given)
    by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_domain[r["domain"]].append(r)
    sequences = Counter(tuple(calls(r)) for r in records)
    table = {}
    for name in DOMAINS:
        domain = importlib.import_module(f"domains.{name}").DOMAIN
        writes = set(domain.tools.writes())
        rows = by_domain[name]
        paths = [calls(r) for r in rows]
        heads = articles(name)
        named: set[str] = set()
        traits: Counter[str] = Counter()
        for module in sorted((ROOT / "domains" / name).glob("test_*.py")):
            named.update(declared_articles(module) or ())
            traits.update(marked_traits(module))
        table[name] = {
            "tasks": len(rows),
            "tools": len(domain.tools._functions),
            "tables": len(domain.metadata.tables),
            "golden calls": sum(map(len, paths)) / len(rows) if rows else 0.0,
            "10+ calls": sum(len(p) >= 10 for p in paths),
            "ticket-only": sum({c for c in p if c in writes} <= TICKET_WRITES for p in paths) / len(rows),
            "rubric": sum(bool(r.get("rubric")) for r in rows),
            "creates ticket": sum("create_ticket" in p for p in paths),
            "articles": f"{len(named & set(heads))}/{len(heads)}",
            "shared sequence": sum(sequences[tuple(p)] > 1 for p in paths) / len(rows),
            **{label: traits[marker] for marker, label in TRAITS.items()},
        }
    return table


def markdown(table: dict[str, dict[str, Any]]) -> str:
    columns = list(next(iter(table.values())))
    lines = ["| domain | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name, row in table.items():
        cells = [_cell(column, value) for column, value in row.items()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    total = sum(r["tasks"] for r in table.values())
    lines.append(f"\n{total} tasks in all.")
    return "\n".join(lines)


def _cell(column: str, value: Any) -> str:
    if column == "golden calls":
        return f"{value:.1f}"
    return f"{value:.0%}" if isinstance(value, float) else str(value)


def in_doc(text: str) -> str:
    return text[text.index(START) + len(START) : text.index(END)].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the table into docs/domains.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/domains.md is not current")
    parser.add_argument("--records", type=Path, metavar="FILE", help="a golden run's results file, not a new run")
    args = parser.parse_args()
    table = markdown(inventory(args.records))
    doc = DOC.read_text(encoding="utf-8")
    if args.write:
        before, after = doc[: doc.index(START) + len(START)], doc[doc.index(END) :]
        DOC.write_text(f"{before}\n{table}\n{after}", encoding="utf-8")
    elif args.check:
        if in_doc(doc) != table:
            print(f"{DOC} is not current; run python scripts/inventory.py --write\n\nmeasured:\n{table}")
            return 1
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
