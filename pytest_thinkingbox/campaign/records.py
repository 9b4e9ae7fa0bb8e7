"""Results files: the one reader and writer of their JSON lines, and the runs they hold.

A results file (``--tb-results``, ``--tb-errors``) is JSON lines: manifest lines
(``{"manifest": {...}}``) and attempt records. Every line is written whole,
newline last, and flushed, so a killed run can leave only one kind of damage: a
last line with no newline that is not JSON (cut off). The report refuses such a
file, because figures from a cut-off campaign would be silently wrong; a resumed
campaign drops the cut line and runs that attempt again. Any other bad line is an
error naming the file and line. Shards of one campaign share a run id and are
merged into one `Run`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..core.errors import ThinkingboxError
from .signatures import signature

UNKNOWN_RUN = "(unknown)"  # records written before run ids existed
OUTCOMES = ("passed", "failed", "error")


class ReportError(ThinkingboxError):
    """Bad input to a report: the message names the file and line, or the option, that fixes it."""


def read_lines(
    paths: Sequence[Path], required: Sequence[str] = ("task", "outcome"), *, drop_cut_line: bool = False
) -> Iterator[tuple[str, dict]]:
    """Every line of the results files as (``file:line``, object), checked one line at a time.

    A manifest line is ``{"manifest": {...}}``; any other line must be an attempt
    record holding the `required` keys. A cut-off last line is an error, or is
    skipped with `drop_cut_line` (a resumed campaign runs that attempt again).
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
                if number == last and not text.endswith("\n"):
                    if drop_cut_line:
                        continue
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


def read_records(paths: Sequence[Path], *, drop_cut_line: bool = False) -> list[dict[str, Any]]:
    """Every attempt record of the given files, manifest lines left out (select-pool reads these)."""
    return [obj for _, obj in read_lines(paths, drop_cut_line=drop_cut_line) if "manifest" not in obj]


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
        """The (task, attempt) keys expected with no record.

        Expected: the attempts the manifest lists (every attempt collected when the
        campaign started), so tasks never reached count too; for older files
        without that list, every task seen x attempts 1..k.
        """
        seen = {(r["task"], r["attempt"]) for r in self.records}
        expected = (self.manifest or {}).get("expected")
        if isinstance(expected, dict) and expected:
            keys = [(t, a) for t, n in sorted(expected.items()) for a in range(1, int(n) + 1)]
        else:
            keys = [(t, a) for t in sorted({r["task"] for r in self.records}) for a in range(1, self.k + 1)]
        return [key for key in keys if key not in seen]

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
        # Shards expect their own attempts; the campaign expects all of them.
        expected = {**(run.manifest.get("expected") or {})}
        for task, n in (manifest.get("expected") or {}).items():
            expected[task] = max(n, expected.get(task, 0))
        if expected:
            manifest["expected"] = dict(sorted(expected.items()))
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


def whole_length(path: Path) -> int:
    """The bytes of `path` up to the end of its last whole line (a cut-off last line excluded)."""
    data = path.read_bytes()
    tail = data[data.rfind(b"\n") + 1 :]
    if tail.strip():
        try:
            json.loads(tail)
        except ValueError:
            return len(data) - len(tail)
    return len(data)


class ResultsWriter:
    """Appends lines to a results file, each written whole and flushed.

    Opening for append first removes a cut-off last line and ends a last line
    that lacks its newline, so every line after it starts on its own line.
    """

    def __init__(self, path: Path, *, append: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if append and path.exists():
            whole = whole_length(path)
            with path.open("r+b") as f:
                f.truncate(whole)
                if whole:
                    f.seek(whole - 1)
                    if f.read(1) != b"\n":  # a last line complete but for its newline
                        f.write(b"\n")
        self._out: IO[str] = path.open("a" if append else "w", encoding="utf-8")

    def write(self, item: dict[str, Any]) -> None:
        self._out.write(json.dumps(item, default=str) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.close()
