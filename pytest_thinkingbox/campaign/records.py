"""Results files: the one reader and writer of their JSON lines, and the runs they hold.

A results file (``--tb-results``, ``--tb-errors``) is JSON lines: manifest lines
(``{"manifest": {...}}``) and attempt records. Every line is written whole,
newline last, and flushed, so a killed run can leave only one kind of damage: a
last line with no newline that is not JSON (cut off). The report refuses such a
file, because figures from a cut-off campaign would be silently wrong; a resumed
campaign drops the cut line and runs that attempt again. Any other bad line is an
error naming the file and line. Shards of one campaign share a run id and are
merged into one `Campaign`.

A campaign split with ``--tb-shard I/N`` deals each task's attempts round-robin
over the N shards, starting at a shard fixed by the task's name (`shard_of`), so
the split depends only on (task, attempt, N): the same on every machine, with
or without xdist, whatever else was collected. Each shard's manifest carries its
``shard``, its own ``expected`` attempts and the whole ``campaign``; merging
refuses shards of different runs (the fields that differ are named) and two
files that claim one shard with different records, and names a missing shard
with the attempts it held.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast, final

from typing_extensions import TypedDict

from ..core.errors import ThinkingboxError
from .attempt_record import RECORD_VERSION, AttemptRecord
from .signatures import signature

UNKNOWN_RUN = "(unknown)"  # records written before run ids existed
OUTCOMES = ("passed", "failed", "error")

Key = tuple[str, int]

#: The manifest fields that define a run: shards merge, and a session continues a file, only when all are equal.
#: The shard (I of N) is not one of them, so every shard of a campaign has the same fingerprint.
DEFINING = ("bundle", "k", "agent", "user", "judge", "seed", "models", "prompts")


def fingerprint(manifest: Mapping[str, Any]) -> str:
    """A short hash of the fields that define a run (`DEFINING`)."""
    text = json.dumps({name: manifest.get(name) for name in DEFINING}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shard_of(task: str, attempt: int, count: int) -> int:
    """The shard (1..`count`) that runs `attempt` of `task`.

    Each task's attempts are dealt round-robin over the shards, from a start
    that a hash of the task's name fixes: every shard gets the same number of a
    task's attempts (give or take one), so a slow task slows every shard alike,
    and the answer depends on nothing but its arguments.
    """
    start = int.from_bytes(hashlib.sha256(task.encode()).digest()[:8], "big") % count
    return (start + attempt - 1) % count + 1


def expected_attempts(keys: Iterable[Key]) -> dict[str, int | list[int]]:
    """Attempt keys as a manifest lists them: {task: n} for attempts 1..n, else {task: [attempts]}; tasks sorted."""
    attempts: dict[str, set[int]] = {}
    for task, attempt in keys:
        attempts.setdefault(task, set()).add(attempt)
    out: dict[str, int | list[int]] = {}
    for task, numbers in sorted(attempts.items()):
        top = max(numbers)
        out[task] = top if len(numbers) == top else sorted(numbers)
    return out


def expected_keys(expected: Mapping[str, Any] | None) -> set[Key]:
    """The attempt keys a manifest's ``expected`` (or ``campaign``) lists, in either form of `expected_attempts`."""
    keys: set[Key] = set()
    for task, attempts in (expected or {}).items():
        numbers = range(1, int(attempts) + 1) if isinstance(attempts, int) else attempts
        keys.update((task, int(a)) for a in numbers)
    return keys


class ReportError(ThinkingboxError):
    """Bad input to a report: the message names the file and line, or the option, that fixes it."""


@final
class ManifestLine(TypedDict):
    """A results file's manifest line: what the run was (`plugin/output_files.manifest`)."""

    manifest: dict[str, Any]


Line = ManifestLine | AttemptRecord


def read_lines(
    paths: Sequence[Path], required: Sequence[str] = ("task", "outcome"), *, drop_cut_line: bool = False
) -> Iterator[tuple[str, Line]]:
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
                yield where, cast(ManifestLine, obj)
            else:
                _check_record(where, obj, required)
                yield where, cast(AttemptRecord, obj)  # checked: its required fields are there


def _check_manifest(where: str, manifest: Any) -> None:
    if not isinstance(manifest, dict) or not isinstance(manifest.get("run"), str):
        raise ReportError(f'{where}: a manifest line needs {{"manifest": {{"run": ID, ...}}}}')
    version = manifest.get("record_version", 1)
    if not isinstance(version, int) or version > RECORD_VERSION:
        raise ReportError(
            f"{where}: this file was written with record version {version!r}; this pytest-thinkingbox reads "
            f"versions up to {RECORD_VERSION}: upgrade it to read the file"
        )
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


def read_records(paths: Sequence[Path], *, drop_cut_line: bool = False) -> list[AttemptRecord]:
    """Every attempt record of the given files, manifest lines left out (select-pool reads these)."""
    return [obj for _, obj in read_lines(paths, drop_cut_line=drop_cut_line) if "manifest" not in obj]


@dataclass
class Campaign:
    """One campaign: its last manifest (with the earliest start) and its records from every shard."""

    id: str
    manifest: dict[str, Any] | None = None
    manifest_at: str | None = None  # file:line of the manifest kept
    records: list[AttemptRecord] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # file:line of each record
    files: list[str] = field(default_factory=list)
    reruns: int = 0  # system errors replaced by a later record of the same attempt
    shard_count: int | None = None  # N, when the campaign was split with --tb-shard I/N
    shard_files: dict[int, list[str]] = field(default_factory=dict)  # shard index -> the files that hold it
    campaign: dict[str, Any] | None = None  # a sharded campaign's every attempt, from any shard's manifest
    campaign_at: str | None = None  # file:line of the manifest the campaign came from

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

    def missing_shards(self) -> list[tuple[int, int | None]]:
        """The shards of a sharded campaign with no file, each with its attempts (None if no shard says)."""
        if not self.shard_count:
            return []
        count = self.shard_count
        campaign = expected_keys(self.campaign) if self.campaign is not None else None
        return [
            (index, None if campaign is None else sum(shard_of(t, a, count) == index for t, a in campaign))
            for index in range(1, count + 1)
            if index not in self.shard_files
        ]

    def expected(self) -> set[Key]:
        """The (task, attempt) keys the campaign expected.

        The attempts the manifests list (every attempt collected when the
        campaign started, the union of its shards'), so tasks never reached
        count too, and with them the attempts of a shard that has no file; for
        older files without that list, every task seen x attempts 1..k.
        """
        expected = (self.manifest or {}).get("expected")
        if isinstance(expected, dict) and (expected or self.shard_count):
            keys = expected_keys(expected)
            absent = {index for index, _ in self.missing_shards()}
            if absent and self.campaign is not None and self.shard_count:
                count = self.shard_count
                keys |= {(t, a) for t, a in expected_keys(self.campaign) if shard_of(t, a, count) in absent}
            return keys
        return {(t, a) for t in {r["task"] for r in self.records} for a in range(1, self.k + 1)}

    def missing(self) -> list[Key]:
        """The (task, attempt) keys expected with no record."""
        return sorted(self.expected() - {(r["task"], r["attempt"]) for r in self.records})

    def describe(self) -> str:
        return f"{self.id} ({', '.join(self.files)})"


def load(paths: Sequence[Path], allow_mixed_bundles: bool = False) -> list[Campaign]:
    """The runs in the given files, shards merged by run id, in order of first appearance."""
    runs: dict[str, Campaign] = {}
    seen: dict[tuple[str, str, int], tuple[str, int]] = {}  # key -> (file:line, index in its run's records)
    file_shard: dict[tuple[str, str], int] = {}  # (run, file) -> the shard index its manifest claims

    def run_of(run_id: str, where: str) -> Campaign:
        run = runs.setdefault(run_id, Campaign(run_id))
        source = _file(where)
        if source not in run.files:
            run.files.append(source)
        return run

    for where, obj in read_lines(paths, required=("task", "attempt", "outcome")):
        if "manifest" in obj:
            run = run_of(obj["manifest"]["run"], where)
            _add_manifest(run, obj["manifest"], where)
            shard = obj["manifest"].get("shard")
            if shard:
                _claim_shard(run, file_shard, shard["index"], where)
            continue
        run = run_of(obj.get("run") or UNKNOWN_RUN, where)
        key = (run.id, obj["task"], obj["attempt"])
        if obj.get("signature") is None and obj["outcome"] == "failed":
            obj = {**obj, "signature": signature(obj)}  # older records carry no label
        if key in seen:
            first, index = seen[key]
            shard = file_shard.get((run.id, _file(where)))
            same_shard = shard is not None and shard == file_shard.get((run.id, _file(first)))
            if same_shard and _file(first) != _file(where) and run.records[index] == obj:
                continue  # one shard's record in two files (a copy, or its --tb-errors file): counted once
            if run.records[index]["outcome"] != "error" or (same_shard and _file(first) != _file(where)):
                raise ReportError(_duplicate(where, key, first, f"{shard}/{run.shard_count}" if same_shard else ""))
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


def _file(where: str) -> str:
    return where.rsplit(":", 1)[0]


def _claim_shard(run: Campaign, file_shard: dict[tuple[str, str], int], index: int, where: str) -> None:
    claimed = file_shard.setdefault((run.id, _file(where)), index)
    if claimed != index:
        raise ReportError(
            f"{where}: this file holds shard {claimed}/{run.shard_count} of run {run.id} and now claims shard "
            f"{index}/{run.shard_count}; keep each shard's results in its own file"
        )
    files = run.shard_files.setdefault(index, [])
    if _file(where) not in files:
        files.append(_file(where))


def _duplicate(where: str, key: tuple[str, str, int], first: str, shard: str = "") -> str:
    run, task, attempt = key
    if shard:
        return (
            f"{where}: {_file(first)} and {_file(where)} both claim shard {shard} of run {run} with different "
            f"records (task {task}, attempt {attempt}, first written at {first}); keep one file per shard"
        )
    why = (
        "records without a run id (older files) all count as one run, so report such files one at a time"
        if run == UNKNOWN_RUN
        else "a shard was given twice, or two shards ran the same attempts"
    )
    return f"{where}: duplicate attempt (run {run}, task {task}, attempt {attempt}), first written at {first}; {why}"


def _add_manifest(run: Campaign, manifest: dict[str, Any], where: str) -> None:
    _check_shard(run, manifest, where)
    # A resumed campaign appends a new manifest under the same run: keep the last, with the first start.
    if run.manifest is not None:
        if manifest.get("bundle") != run.manifest.get("bundle"):
            raise ReportError(
                f"{where}: run {run.id} resumed with bundle {manifest.get('bundle')}, but {run.manifest_at} "
                f"started it with bundle {run.manifest.get('bundle')}; the tasks changed between the shards"
            )
        _check_fingerprint(run, manifest, where)
        starts = [s for s in (run.manifest.get("started"), manifest.get("started")) if s]
        manifest = {**manifest, **({"started": min(starts)} if starts else {})}
        # Shards expect their own attempts; the campaign expects all of them.
        expected = expected_keys(run.manifest.get("expected")) | expected_keys(manifest.get("expected"))
        if expected or "expected" in manifest:
            manifest["expected"] = expected_attempts(expected)
    manifest = {name: value for name, value in manifest.items() if name != "shard"}  # the merged run is every shard
    run.manifest, run.manifest_at = manifest, where


def _check_fingerprint(run: Campaign, manifest: dict[str, Any], where: str) -> None:
    """Refuse a manifest whose fingerprint differs from the run's: different options under one run id."""
    assert run.manifest is not None
    mine, theirs = manifest.get("fingerprint"), run.manifest.get("fingerprint")
    if mine is None or theirs is None or mine == theirs:
        return  # older files carry no fingerprint; their bundles were compared
    differ = [name for name in DEFINING if manifest.get(name) != run.manifest.get(name)]
    now = ", ".join(f"{name} {manifest.get(name)!r}" for name in differ) or f"fingerprint {mine}"
    then = ", ".join(f"{name} {run.manifest.get(name)!r}" for name in differ) or f"fingerprint {theirs}"
    raise ReportError(
        f"{where}: run {run.id} here has {now}, but {run.manifest_at} has {then}; these files are not one "
        "campaign: shards (and resumed parts) of one run must be run with the same options"
    )


def _check_shard(run: Campaign, manifest: dict[str, Any], where: str) -> None:
    """One run is all shards of one split, cut from one campaign, or no shards at all."""
    shard = manifest.get("shard")
    if run.manifest is not None and bool(shard) != bool(run.shard_count):
        raise ReportError(
            f"{where}: run {run.id} mixes a file of a sharded campaign (--tb-shard) with one that is not (see "
            f"{run.manifest_at}); give each campaign its own --tb-run id"
        )
    if not shard:
        return
    if not isinstance(shard, dict) or not all(isinstance(shard.get(n), int) for n in ("index", "count")):
        raise ReportError(f'{where}: a manifest\'s shard should read {{"index": I, "count": N}}, got {shard!r}')
    if run.shard_count is not None and shard["count"] != run.shard_count:
        raise ReportError(
            f"{where}: this is shard {shard['index']}/{shard['count']}, but {run.manifest_at} split run {run.id} "
            f"into {run.shard_count} shards; every shard of a campaign needs the same N in --tb-shard I/N"
        )
    run.shard_count = shard["count"]
    campaign = manifest.get("campaign")
    if campaign is None:
        return  # an xdist shard cut off before its closing manifest does not know the whole campaign
    if run.campaign is None:
        run.campaign, run.campaign_at = campaign, where
    elif expected_keys(campaign) != expected_keys(run.campaign):
        ours, theirs = expected_keys(campaign), expected_keys(run.campaign)
        raise ReportError(
            f"{where}: shard {shard['index']}/{shard['count']} of run {run.id} was cut from another campaign than "
            f"{run.campaign_at} ({len(ours - theirs)} attempts only here, {len(theirs - ours)} only there); every "
            "shard must collect the same tasks (same paths, -k, -m, --tb-tasks and --tb-repeat)"
        )


def _check_bundle_lines(run: Campaign) -> None:
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


def check_same_bundle(runs: Sequence[Campaign]) -> None:
    """Refuse to put runs of different bundles (different tasks, domains or policies) side by side."""
    bundles = {run.bundle for run in runs if run.bundle}
    if len(bundles) > 1:
        listed = "; ".join(f"{run.describe()}: bundle {run.bundle}" for run in runs if run.bundle)
        raise ReportError(
            f"runs of different bundles cannot be compared: {listed}. Their tasks, domain code or policies "
            "differ; pass --allow-mixed-bundles to report them side by side anyway"
        )
