"""Runs in, one campaign report document out.

`records.load` reads the results files into runs (shards merged by run id,
bad input refused with the file and line); `build_report` puts the runs of
different models side by side with their figures (each with its 95% interval),
per-task rates (with Jeffreys intervals), costs, failure signatures and missing
attempts, as plain data that the terminal, JSON and HTML views show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .attempt_record import AttemptRecord
from .costs import Prices, frontier, run_cost
from .metrics import aggregate, task_rate
from .records import Campaign
from .rule_breaks import rule_figures
from .signatures import LABELS

MISSING_SHOWN = 50  # missing (task, attempt) keys listed in the document; all are counted
EXAMPLES = 5  # example attempts kept per failure signature


def labels(runs: Sequence[Campaign]) -> dict[str, str]:
    """A short name per run: the agent's model or name, plus the run id when two runs would share it."""
    names = {}
    for run in runs:
        agent = (run.manifest or {}).get("agent") or next((r.get("agent") for r in run.records), None) or "?"
        names[run.id] = agent.split(":", 1)[1] if agent.startswith("openai:") else agent
    counts = Counter(names.values())
    return {rid: f"{name} ({rid})" if counts[name] > 1 else name for rid, name in names.items()}


def _manifest(run: Campaign) -> dict[str, Any]:
    """The run's manifest; for older files, what the records tell about it."""
    if run.manifest is not None:
        return run.manifest
    first: Mapping[str, Any] = run.records[0] if run.records else {}
    return {
        "run": run.id,
        "bundle": run.bundle,
        "agent": first.get("agent"),
        "user": first.get("user"),
        "seed": first.get("seed"),
        "k": run.k,
    }


def _signatures(records: Sequence[AttemptRecord]) -> dict[str, Any]:
    overall: Counter[str] = Counter()
    domains: dict[str, Counter[str]] = {}
    examples: dict[str, list[list[Any]]] = {}
    for r in records:
        label = r.get("signature")
        if r["outcome"] != "failed" or not label:
            continue
        overall[label] += 1
        domains.setdefault(r.get("domain") or "unknown", Counter())[label] += 1
        shown = examples.setdefault(label, [])
        if len(shown) < EXAMPLES:
            shown.append([r["task"], r["attempt"]])
    order = {label: i for i, label in enumerate(LABELS)}

    def ordered(counts: Counter[str]) -> dict[str, int]:
        return dict(sorted(counts.items(), key=lambda item: order.get(item[0], len(order))))

    return {
        "overall": ordered(overall),
        "domains": {name: ordered(c) for name, c in sorted(domains.items())},
        "examples": examples,
    }


def _shards(run: Campaign) -> dict[str, Any] | None:
    """A sharded run's split: N, the shards that have files, and each missing shard with its attempts."""
    if not run.shard_count:
        return None
    return {
        "count": run.shard_count,
        "files": {str(index): files for index, files in sorted(run.shard_files.items())},
        "missing": [
            {"shard": f"{index}/{run.shard_count}", "attempts": attempts} for index, attempts in run.missing_shards()
        ],
    }


def shard_gaps(run: Mapping[str, Any]) -> list[str]:
    """One phrase per missing shard of a report document's run, e.g. "shard 2/3 missing: 160 attempts"."""
    gaps = (run.get("shards") or {}).get("missing") or []
    return [
        f"shard {gap['shard']} missing: "
        + (f"{gap['attempts']} attempts" if gap["attempts"] is not None else "its attempts are unknown")
        for gap in gaps
    ]


def task_rates(agg: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per task: its domain, graded attempts, passes, errors, pass rate c / n and the rate's Jeffreys 95% interval."""
    out = {}
    for task, c in agg["per_task"].items():
        graded = c["attempts"] - c["errors"]
        out[task] = {"domain": c["domain"], "passed": c["passed"], "graded": graded, "errors": c["errors"]}
        out[task] |= task_rate(c["passed"], graded)
    return out


def build_report(runs: Sequence[Campaign], prices: Prices | None = None) -> dict[str, Any]:
    """The report document (plain JSON-able data) that the terminal, JSON and HTML views show.

    Args:
        runs: from `load`.
        prices: from ``--prices``; each of its models overrides the run manifest's price.
    """
    names = labels(runs)
    out: list[dict[str, Any]] = []
    for run in runs:
        expected = run.expected()
        agg = aggregate(run.records, run.k, expected)
        missing = run.missing()
        out.append(
            {
                "id": run.id,
                "label": names[run.id],
                "manifest": _manifest(run),
                "files": run.files,
                "aggregate": agg,
                "complete": bool(run.records) and not missing,
                "missing": [list(key) for key in missing[:MISSING_SHOWN]],
                "missing_count": len(missing),
                "expected_count": len(expected),
                "shards": _shards(run),
                "reruns": run.reruns,
                "task_rates": task_rates(agg),
                "cost": run_cost(run, prices),
                "signatures": _signatures(run.records),
                "rules": rule_figures(run.records),
                "records": run.records,
            }
        )
    return {
        "runs": out,
        "frontier": {
            "per_success": frontier(
                {r["id"]: (r["cost"]["per_success"], r["aggregate"]["overall"]["pass@1"]) for r in out if r["cost"]}
            ),
            # k/k at one k is another figure than at another: a frontier per k, joined
            "per_dependable": [
                rid
                for k in sorted({r["aggregate"]["k"] for r in out})
                for rid in frontier(
                    {
                        r["id"]: (r["cost"]["per_dependable"], r["aggregate"]["overall"]["all_k_share"])
                        for r in out
                        if r["cost"] and r["aggregate"]["k"] == k
                    }
                )
            ],
        },
        "signature_order": list(LABELS),
    }
