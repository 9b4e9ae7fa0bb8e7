"""Results files in, one campaign report document out.

A results file (``--tb-results``) holds manifest lines and attempt records. Shards
of one campaign share a run id and are merged; runs of different models sit side
by side. Bad input stops the report with a message naming the file and line:
a figure computed from a cut-off file, a mixed-up bundle or a doubled attempt
would be silently wrong, and a report is what people decide from.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ThinkingboxError
from .costs import Prices, frontier, run_cost
from .metrics import aggregate
from .signatures import LABELS, signature

UNKNOWN_RUN = "(unknown)"  # records written before run ids existed
OUTCOMES = ("passed", "failed", "error")
MISSING_SHOWN = 50  # missing (task, attempt) keys listed in the document; all are counted
EXAMPLES = 5  # example attempts kept per failure signature


class ReportError(ThinkingboxError):
    """Bad input to a report: the message names the file and line, or the option, that fixes it."""


def read_lines(paths: Sequence[Path], required: Sequence[str] = ("task", "outcome")) -> Iterator[tuple[str, dict]]:
    """Every line of the results files as (``file:line``, object), checked one line at a time.

    A manifest line is ``{"manifest": {...}}``; any other line must be an attempt
    record holding the `required` keys.
    """
    for path in paths:
        try:
            text = Path(path).read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise ReportError(f"{path}: cannot read it ({exc.strerror})") from None
        lines = text.splitlines()
        last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=0)
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                obj = json.loads(line)
            except ValueError:
                if number == last:
                    raise ReportError(
                        f"{where}: not an attempt record: the last line is cut off, so the file looks truncated "
                        "(an interrupted run?); finish the campaign with --tb-resume, or delete this line to "
                        "report the attempts before it"
                    ) from None
                raise ReportError(
                    f"{where}: not an attempt record: the line is not JSON (written by --tb-results?)"
                ) from None
            if not isinstance(obj, dict):
                raise ReportError(f"{where}: not an attempt record: a JSON object was expected")
            if "manifest" in obj:
                _check_manifest(where, obj["manifest"])
            else:
                _check_record(where, obj, required)
            yield where, obj


def _check_manifest(where: str, manifest: Any) -> None:
    if not isinstance(manifest, dict) or not isinstance(manifest.get("run"), str):
        raise ReportError(f'{where}: a manifest line needs {{"manifest": {{"run": ID, ...}}}}')
    k = manifest.get("k")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        raise ReportError(f"{where}: the manifest's k should be a whole number of at least 1, got {k!r}")


def _check_record(where: str, record: dict, required: Sequence[str]) -> None:
    absent = [key for key in required if key not in record]
    if absent:
        names = ", ".join(repr(key) for key in absent)
        raise ReportError(f"{where}: not an attempt record: no {names} (written by --tb-results?)")
    if record["outcome"] not in OUTCOMES:
        raise ReportError(f"{where}: outcome {record['outcome']!r} is not one of {', '.join(OUTCOMES)}")
    attempt = record.get("attempt", 1)
    if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        raise ReportError(f"{where}: attempt should be a whole number of at least 1, got {attempt!r}")


def read_records(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Every attempt record of the given files, manifest lines left out (select-pool reads these)."""
    return [obj for _, obj in read_lines(paths) if "manifest" not in obj]


@dataclass
class Run:
    """One campaign: its last manifest (with the earliest start) and its records from every shard."""

    id: str
    manifest: dict[str, Any] | None = None
    manifest_at: str | None = None  # file:line of the manifest kept
    records: list[dict[str, Any]] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # file:line of each record
    files: list[str] = field(default_factory=list)
    reruns: int = 0  # system errors replaced by a later record of the same attempt

    @property
    def bundle(self) -> str | None:
        if self.manifest:
            return self.manifest.get("bundle")
        return next((r["bundle"] for r in self.records if r.get("bundle")), None)

    @property
    def k(self) -> int:
        """Attempts per task: as requested in the manifest, else the most attempts seen."""
        if self.manifest and self.manifest.get("k"):
            return self.manifest["k"]
        return max((r["attempt"] for r in self.records), default=1)

    def missing(self) -> list[tuple[str, int]]:
        """The (task, attempt) keys expected (every task seen x attempts 1..k) with no record."""
        seen = {(r["task"], r["attempt"]) for r in self.records}
        tasks = sorted({r["task"] for r in self.records})
        return [(t, a) for t in tasks for a in range(1, self.k + 1) if (t, a) not in seen]

    def describe(self) -> str:
        return f"{self.id} ({', '.join(self.files)})"


def load(paths: Sequence[Path], allow_mixed_bundles: bool = False) -> list[Run]:
    """The runs in the given files, shards merged by run id, in order of first appearance."""
    runs: dict[str, Run] = {}
    seen: dict[tuple[str, str, int], tuple[str, int]] = {}  # key -> (file:line, index in its run's records)

    def run_of(run_id: str, where: str) -> Run:
        run = runs.setdefault(run_id, Run(run_id))
        source = where.rsplit(":", 1)[0]
        if source not in run.files:
            run.files.append(source)
        return run

    for where, obj in read_lines(paths, required=("task", "attempt", "outcome")):
        if "manifest" in obj:
            _add_manifest(run_of(obj["manifest"]["run"], where), obj["manifest"], where)
            continue
        run = run_of(obj.get("run") or UNKNOWN_RUN, where)
        key = (run.id, obj["task"], obj["attempt"])
        if obj.get("signature") is None and obj["outcome"] == "failed":
            obj["signature"] = signature(obj)  # older records carry no label
        if key in seen:
            first, index = seen[key]
            if run.records[index]["outcome"] != "error":
                raise ReportError(_duplicate(where, key, first))
            # --tb-rerun-errors appends a new record for an attempt that ended in a system error: it replaces it.
            run.records[index], run.where[index] = obj, where
            run.reruns += 1
            seen[key] = where, index
            continue
        seen[key] = where, len(run.records)
        run.records.append(obj)
        run.where.append(where)
    for run in runs.values():
        _check_bundle_lines(run)
    result = list(runs.values())
    if not allow_mixed_bundles:
        check_same_bundle(result)
    return result


def _duplicate(where: str, key: tuple[str, str, int], first: str) -> str:
    run, task, attempt = key
    why = (
        "records without a run id (older files) all count as one run, so report such files one at a time"
        if run == UNKNOWN_RUN
        else "a shard was given twice, or two shards ran the same attempts"
    )
    return f"{where}: duplicate attempt (run {run}, task {task}, attempt {attempt}), first written at {first}; {why}"


def _add_manifest(run: Run, manifest: dict[str, Any], where: str) -> None:
    # A resumed campaign appends a new manifest under the same run: keep the last, with the first start.
    if run.manifest is not None:
        if manifest.get("bundle") != run.manifest.get("bundle"):
            raise ReportError(
                f"{where}: run {run.id} resumed with bundle {manifest.get('bundle')}, but {run.manifest_at} "
                f"started it with bundle {run.manifest.get('bundle')}; the tasks changed between the shards"
            )
        starts = [s for s in (run.manifest.get("started"), manifest.get("started")) if s]
        manifest = {**manifest, **({"started": min(starts)} if starts else {})}
    run.manifest, run.manifest_at = dict(manifest), where


def _check_bundle_lines(run: Run) -> None:
    bundle, origin = run.bundle, run.manifest_at
    for record, where in zip(run.records, run.where, strict=True):
        if not record.get("bundle"):
            continue
        if bundle is None or origin is None:
            bundle, origin = record["bundle"], where
        elif record["bundle"] != bundle:
            raise ReportError(
                f"{where}: this attempt is from bundle {record['bundle']}, but run {run.id} is bundle {bundle} "
                f"(see {origin}); results of different task sources were written under one run id"
            )


def check_same_bundle(runs: Sequence[Run]) -> None:
    """Refuse to put runs of different bundles (different tasks, domains or policies) side by side."""
    bundles = {run.bundle for run in runs if run.bundle}
    if len(bundles) > 1:
        listed = "; ".join(f"{run.describe()}: bundle {run.bundle}" for run in runs if run.bundle)
        raise ReportError(
            f"runs of different bundles cannot be compared: {listed}. Their tasks, domain code or policies "
            "differ; pass --allow-mixed-bundles to report them side by side anyway"
        )


def labels(runs: Sequence[Run]) -> dict[str, str]:
    """A short name per run: the agent's model or name, plus the run id when two runs would share it."""
    names = {}
    for run in runs:
        agent = (run.manifest or {}).get("agent") or next((r.get("agent") for r in run.records), None) or "?"
        names[run.id] = agent.split(":", 1)[1] if agent.startswith("openai:") else agent
    counts = Counter(names.values())
    return {rid: f"{name} ({rid})" if counts[name] > 1 else name for rid, name in names.items()}


def _manifest(run: Run) -> dict[str, Any]:
    """The run's manifest; for older files, what the records tell about it."""
    if run.manifest is not None:
        return run.manifest
    first = run.records[0] if run.records else {}
    return {
        "run": run.id,
        "bundle": run.bundle,
        "agent": first.get("agent"),
        "user": first.get("user"),
        "seed": first.get("seed"),
        "k": run.k,
    }


def _signatures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
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


def build_report(runs: Sequence[Run], prices: Prices | None = None) -> dict[str, Any]:
    """The report document (plain JSON-able data) that the terminal, JSON and HTML views show.

    Args:
        runs: from `load`.
        prices: from ``--prices``; each of its models overrides the run manifest's price.
    """
    names = labels(runs)
    out: list[dict[str, Any]] = []
    for run in runs:
        agg = aggregate(run.records, run.k)
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
                "reruns": run.reruns,
                "cost": run_cost(run, agg["overall"], prices),
                "signatures": _signatures(run.records),
                "records": run.records,
            }
        )
    return {
        "runs": out,
        "frontier": {
            "per_success": frontier(
                {r["id"]: (r["cost"]["per_success"], r["aggregate"]["overall"]["pass@1"]) for r in out if r["cost"]}
            ),
            "per_dependable": frontier(
                {
                    r["id"]: (r["cost"]["per_dependable"], r["aggregate"]["overall"]["all_k_share"])
                    for r in out
                    if r["cost"]
                }
            ),
        },
        "signature_order": list(LABELS),
    }
