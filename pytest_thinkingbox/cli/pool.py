"""`thinkingbox select-pool`: training tasks chosen by their posterior pass rate, as a table, JSON and a picture."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..campaign.attempt_record import AttemptRecord
from ..campaign.pools import EDGES, KEEP, MIN_MASS, NAMES, Probe, select_pool
from ..campaign.records import read_records
from .arguments import CliError, _edges, _names, _share, _whole


def _pool_parser(commands: Any) -> None:
    pool = commands.add_parser(
        "select-pool",
        help="choose training tasks by their posterior pass rate under a base policy",
        description="Give each probed task the Jeffreys posterior Beta(k + 1/2, n - k + 1/2) over its graded "
        "attempts (system errors left out), put it in the bin holding at least --min-mass of that posterior, and "
        "keep the tasks of the chosen bins; the tasks no bin holds so are listed as undecided, with the number of "
        "further attempts that would likely decide each.",
    )
    pool.add_argument("results", nargs="+", type=Path, help="JSONL files written by --tb-results (probe runs)")
    pool.add_argument("--out", type=Path, help="write the pool (selected, bins, mass, ...) as JSON here")
    pool.add_argument("--plot", type=Path, help="draw the bin histogram as an SVG picture here")
    pool.add_argument(
        "--keep", default=",".join(KEEP), help=f"bins to keep, of {', '.join(NAMES)} (default: {','.join(KEEP)})"
    )
    pool.add_argument(
        "--edges",
        type=_edges,
        default=EDGES,
        help=f"the four bin edges (default: {','.join(map(str, EDGES))})",
    )
    pool.add_argument("--exclude", type=Path, action="append", default=[], help="a file of task ids to leave out")
    pool.add_argument("--exclude-task", action="append", default=[], metavar="TASK", help="a task id to leave out")
    pool.add_argument(
        "--exclude-marker", action="append", default=[], metavar="NAME", help="leave out tasks with this marker"
    )
    pool.add_argument("--group-size", type=_whole, default=8, metavar="G", help="rollouts per group (default: 8)")
    pool.add_argument(
        "--min-mass",
        type=_share,
        default=MIN_MASS,
        metavar="P",
        help=f"the posterior mass a task needs in one bin to join it; the others are undecided (default: {MIN_MASS})",
    )
    pool.set_defaults(run=select_pool_command)


def probes(records: Iterable[AttemptRecord]) -> tuple[dict[str, Probe], int]:
    """Per task: successes among its graded attempts; and how many system errors were left out.

    A task whose every attempt was a system error is a probe of 0 attempts: undecided, not forgotten.
    """
    counts: dict[str, list[Any]] = defaultdict(lambda: ["", 0, 0])
    errors = 0
    for r in records:
        c = counts[r["task"]]
        c[0] = r.get("domain") or c[0]
        if r["outcome"] == "error":  # the harness or an endpoint failed: not evidence about the policy
            errors += 1
            continue
        c[1] += r["outcome"] == "passed"
        c[2] += 1
    return {task: Probe(domain, k, n) for task, (domain, k, n) in counts.items()}, errors


def select_pool_command(args: argparse.Namespace) -> int:
    records = read_records(args.results)
    found, errors = probes(records)
    excluded = set(args.exclude_task)
    for path in args.exclude:
        try:
            excluded |= {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
        except OSError as exc:
            raise CliError(f"{path}: cannot read the exclusion list ({exc.strerror})") from None
    for marker in args.exclude_marker:
        excluded |= {r["task"] for r in records if marker in r.get("markers", ())}
    try:
        pool = select_pool(
            found,
            keep=_names(args.keep),
            edges=args.edges,
            excluded=excluded,
            group=args.group_size,
            min_mass=args.min_mass,
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    pool["system_errors_left_out"] = errors
    print(
        f"{len(found)} tasks probed ({sum(p.attempts for p in found.values())} graded attempts, "
        f"{errors} system errors left out); {len(pool['excluded'])} excluded"
    )
    for line in histogram_lines(pool):
        print(line)
    for line in undecided_lines(pool):
        print(line)
    mixed = pool["pool_mixed_share"]
    print(
        f"selected {len(pool['selected'])} tasks (bins {', '.join(pool['keep'])})"
        + (f"; expected share of mixed-reward groups of {args.group_size}: {mixed:.3f}" if mixed is not None else "")
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(pool, indent=2) + "\n", encoding="utf-8")
        print(f"pool written to {args.out}")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        args.plot.write_text(histogram_svg(pool), encoding="utf-8")
        print(f"histogram drawn in {args.plot}")
    return 0


def histogram_lines(pool: dict[str, Any]) -> list[str]:
    """The bins as a table: name, interval, task count, a bar, and whether the bin is kept."""
    cuts = [0.0, *pool["edges"], 1.0]
    widest = max(pool["histogram"].values(), default=0) or 1
    lines = [f"{'bin':<14} {'p in':<12} {'tasks':>5}  kept"]
    for i, name in enumerate(NAMES):
        count = pool["histogram"][name]
        bar = "#" * round(30 * count / widest)
        kept = "yes" if name in pool["keep"] else ""
        lines.append(f"{name:<14} {f'[{cuts[i]:.2f}, {cuts[i + 1]:.2f})':<12} {count:>5}  {kept:<4} {bar}")
    lines.append(f"{'undecided':<14} {'':<12} {len(pool['undecided']):>5}")
    return lines


UNDECIDED_SHOWN = 20  # undecided tasks listed, the quickest to decide first


def undecided_lines(pool: dict[str, Any]) -> list[str]:
    """The tasks no bin holds with --min-mass, each with its likeliest bin and the attempts that would decide it."""
    undecided = pool["undecided"]
    if not undecided:
        return []
    order = sorted(
        undecided.items(), key=lambda item: (item[1]["more_attempts"] is None, item[1]["more_attempts"] or 0)
    )
    lines = [
        f"undecided: {len(undecided)} tasks have less than {pool['min_mass']:g} of their posterior in any bin; "
        "not selected: probe them more (about this many more attempts would decide each):"
    ]
    for task, u in order[:UNDECIDED_SHOWN]:
        more = (
            f"{u['more_attempts']} more attempt{'s' if u['more_attempts'] != 1 else ''}"
            if u["more_attempts"] is not None
            else "its pass rate sits on a bin edge: no number of attempts decides it"
        )
        lines.append(f"  {task:<28} likely {u['likely']} ({u['mass']:.2f}); {more}")
    if len(undecided) > UNDECIDED_SHOWN:
        lines.append(f"  ... {len(undecided) - UNDECIDED_SHOWN} more (all in --out)")
    return lines


def histogram_svg(pool: dict[str, Any]) -> str:
    """The bins as a bar chart, one self-contained SVG file."""
    width, height, left, bottom, bar = 520, 260, 40, 40, 70
    widest = max(pool["histogram"].values(), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="12">',
        f'<text x="{left}" y="18">tasks per difficulty bin (kept bins filled)</text>',
    ]
    for i, name in enumerate(NAMES):
        count = pool["histogram"][name]
        h = (height - bottom - 40) * count / widest
        x, y = left + i * (bar + 22), height - bottom - h
        fill = "#3b6ea5" if name in pool["keep"] else "#c9d3de"
        parts.append(f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{fill}"/>')
        parts.append(f'<text x="{x + bar / 2}" y="{y - 4:.1f}" text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + bar / 2}" y="{height - bottom + 16}" text-anchor="middle">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
