"""The `thinkingbox` command: tools that work on results files, outside pytest.

thinkingbox select-pool RESULTS.jsonl [...] [--out POOL.json] [--plot HIST.svg]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from .pool import EDGES, KEEP, NAMES, Probe, select_pool


class CliError(Exception):
    """Bad input, with a message that names the file, line or option."""


def read_records(paths: list[Path]) -> list[dict[str, Any]]:
    """Every attempt record of the given JSONL files."""
    records = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CliError(f"{path}: cannot read it ({exc.strerror})") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                record["task"], record["outcome"]
            except (ValueError, TypeError, KeyError):
                raise CliError(f"{path}:{number}: not an attempt record (written by --tb-results?)") from None
            records.append(record)
    return records


def probes(records: list[dict[str, Any]]) -> tuple[dict[str, Probe], int]:
    """Per task: successes among its graded attempts; and how many system errors were left out."""
    counts: dict[str, list[Any]] = defaultdict(lambda: ["", 0, 0])
    errors = 0
    for r in records:
        if r["outcome"] == "error":  # the harness or an endpoint failed: not evidence about the policy
            errors += 1
            continue
        c = counts[r["task"]]
        c[0] = r.get("domain") or ""
        c[1] += r["outcome"] == "passed"
        c[2] += 1
    return {task: Probe(domain, k, n) for task, (domain, k, n) in counts.items()}, errors


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _edges(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in _names(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--edges expects numbers separated by commas, got {text!r}") from None


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
        pool = select_pool(found, keep=_names(args.keep), edges=args.edges, excluded=excluded, group=args.group_size)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    pool["system_errors_left_out"] = errors
    print(
        f"{len(found)} tasks probed ({sum(p.attempts for p in found.values())} graded attempts, "
        f"{errors} system errors left out); {len(pool['excluded'])} excluded"
    )
    for line in histogram_lines(pool):
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


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="thinkingbox", description="Tools for pytest-thinkingbox results files.")
    commands = root.add_subparsers(dest="command", required=True)
    pool = commands.add_parser(
        "select-pool",
        help="choose training tasks by their posterior pass rate under a base policy",
        description="Give each probed task the Jeffreys posterior Beta(k + 1/2, n - k + 1/2), put it in the bin "
        "holding the most posterior mass, and keep the tasks of the chosen bins.",
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
    pool.add_argument("--group-size", type=int, default=8, metavar="G", help="rollouts per group (default: 8)")
    pool.set_defaults(run=select_pool_command)

    env = commands.add_parser(
        "serve-env",
        help="serve the tasks as an environment over HTTP (OpenEnv conventions: /reset, /step, /state)",
        description="Serve the tasks under ROOT episode by episode: reset picks a task, each step is one agent "
        "step, and the last step returns the task's 0/1 reward.",
    )
    env.add_argument(
        "--root", type=Path, default=Path("domains"), help="folder of the task packages (default: domains)"
    )
    env.add_argument("--tasks", type=Path, help="serve only the tasks a pool file selects (select-pool --out)")
    env.add_argument("--host", default="127.0.0.1")
    env.add_argument("--port", type=int, default=8000)
    env.set_defaults(run=serve_env_command)
    return root


def serve_env_command(args: argparse.Namespace) -> int:
    from .env_server import EnvServer, serve

    tasks = None
    if args.tasks:
        try:
            tasks = list(json.loads(args.tasks.read_text(encoding="utf-8"))["selected"])
        except OSError as exc:
            raise CliError(f"{args.tasks}: cannot read it ({exc.strerror})") from None
        except (ValueError, KeyError, TypeError):
            raise CliError(f'{args.tasks}: expected JSON with a "selected" list of task ids') from None
    env = EnvServer(args.root.resolve(), tasks)
    if not env.tasks:
        raise CliError(f"no tasks (test_case_... functions) under {args.root}")
    http = serve(env, args.host, args.port)
    print(f"serving {len(env.tasks)} tasks on http://{args.host}:{http.server_port} (Ctrl-C stops)")
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as exc:
        print(f"thinkingbox {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
