"""The `thinkingbox` command: tools that work on results files, outside pytest.

thinkingbox report RESULTS.jsonl [...] [--prices PATH] [--html PATH] [--json PATH] [--gate EXPR]...
thinkingbox compare A.jsonl B.jsonl [--allow-mixed-bundles] [--allow-different-k]
thinkingbox select-pool RESULTS.jsonl [...] [--out POOL.json] [--plot HIST.svg] [--min-mass P]
thinkingbox serve-env [--root DIR] [--tasks POOL.json]
thinkingbox serve-model [--script RESULTS.jsonl] [--port N] [--latency S]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from .campaign.gates import MIN_TASKS
from .campaign.pools import EDGES, KEEP, MIN_MASS, NAMES, Probe, select_pool
from .campaign.records import ReportError, read_records
from .core.errors import ThinkingboxError
from .core.values import at_least_one


class CliError(ThinkingboxError):
    """Bad input, with a message that names the file, line or option."""


def probes(records: list[dict[str, Any]]) -> tuple[dict[str, Probe], int]:
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


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _whole(text: str) -> int:
    """A whole number of at least 1 (argparse names the option in its error)."""
    try:
        return at_least_one(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _share(text: str) -> float:
    """A number in (0, 1] (argparse names the option in its error)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], e.g. 0.6, got {text!r}")
    return value


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


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="thinkingbox", description="Tools for pytest-thinkingbox results files.")
    commands = root.add_subparsers(dest="command", required=True)
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

    _report_parser(commands)
    _compare_parser(commands)
    _serve_model_parser(commands)

    env = commands.add_parser(
        "serve-env",
        help="serve the tasks as an OpenEnv environment (HTTP /reset, /step, /state and a WebSocket at /ws)",
        description="Serve the tasks under ROOT episode by episode: reset picks a task, each step is one agent "
        "step, and the last step returns the task's 0/1 reward. openenv-core's GenericEnvClient connects to it.",
    )
    env.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder of the task packages (default: ./domains, else the bundled domains installed with the plugin)",
    )
    env.add_argument("--tasks", type=Path, help="serve only the tasks a pool file selects (select-pool --out)")
    env.add_argument("--host", default="127.0.0.1")
    env.add_argument("--port", type=int, default=8000)
    env.add_argument(
        "--max-episodes", type=_whole, default=256, help="live episodes at once; a reset beyond gets 503 (default: 256)"
    )
    env.add_argument(
        "--idle-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="end and free an episode whose client sends nothing this long (default: 300)",
    )
    env.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the random task choice of a reset that names no task and gives no seed (default: unseeded)",
    )
    env.add_argument(
        "--max-body",
        type=_whole,
        default=1 << 20,
        metavar="BYTES",
        help="largest request body or WebSocket message read; a larger one gets 413 (default: 1048576, 1 MiB)",
    )
    env.set_defaults(run=serve_env_command)
    return root


def _report_parser(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="the campaign report: reliability per domain, completeness, costs, failure signatures",
        description="Read results files (shards of one run are merged by run id; several runs are shown side by "
        "side) and print, per run, the per-domain table, completeness, cost figures and failure-signature "
        "shares, then the cost frontier. Exit status: 0, 1 when a --gate fails or --require-complete finds "
        "missing attempts, 2 on bad input.",
    )
    report.add_argument(
        "results", nargs="+", metavar="RESULTS.jsonl", type=Path, help="JSONL files written by --tb-results"
    )
    report.add_argument(
        "--prices",
        type=Path,
        metavar="PATH",
        help="YAML or JSON {MODEL: {input, cached_input, output}} in USD per 1M tokens; "
        "overrides the run manifest's prices model by model",
    )
    report.add_argument("--html", type=Path, metavar="PATH", help="write the self-contained HTML report here")
    report.add_argument("--json", type=Path, metavar="PATH", help="write the report document as JSON here")
    report.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="EXPR",
        help="a CI gate checked on every run, e.g. pass^k>=0.6, pass@1.lcb95>=0.8 (the lower end of the 95%% "
        "interval), k/k>=40, domain:retail:pass@1>=0.8 (repeatable)",
    )
    report.add_argument(
        "--gate-min-tasks",
        type=_whole,
        default=MIN_TASKS,
        metavar="N",
        help=f"a gate on a rate over fewer than N tasks fails, saying so (default: {MIN_TASKS})",
    )
    report.add_argument("--require-complete", action="store_true", help="exit 1 when a run has missing attempts")
    report.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="judge the gates of a run that has missing attempts (by default every gate of such a run fails)",
    )
    report.add_argument(
        "--allow-mixed-bundles", action="store_true", help="report runs of different bundles side by side"
    )
    report.set_defaults(run=report_command)


def _serve_model_parser(commands: Any) -> None:
    model = commands.add_parser(
        "serve-model",
        help="a local OpenAI-compatible server with scripted replies, to try the model path offline",
        description="Serve /v1/chat/completions, /v1/responses and /v1/models on the loopback interface. An agent "
        "request replays the tool calls that a passed attempt with the same opening message made (from --script), "
        "then closes; a judge request answers yes; a user request says thanks and stops.",
    )
    model.add_argument(
        "--script",
        type=Path,
        action="append",
        default=[],
        metavar="RESULTS.jsonl",
        help="results of a golden run whose calls the agent replays (repeatable)",
    )
    model.add_argument("--port", type=int, default=8000)
    model.add_argument("--latency", type=float, default=0.0, metavar="S", help="seconds to wait before each reply")
    model.add_argument(
        "--sloppy",
        action="append",
        default=[],
        metavar="MODEL=RATE",
        help="make MODEL close early at RATE per turn, to mimic a less reliable model (repeatable)",
    )
    model.add_argument("--seed", type=int, default=0, help="seed of the sloppy models' slips (default: 0)")
    model.set_defaults(run=serve_model_command)


def serve_model_command(args: argparse.Namespace) -> int:
    from .serve.model_server import ScriptedModelServer, scripts_from_results

    scripts: dict[str, Any] = {}
    for path in args.script:
        scripts.update(scripts_from_results(path))  # a bad file is a ReportError naming its line
    sloppy = {}
    for text in args.sloppy:
        name, _, rate = text.rpartition("=")
        try:
            sloppy[name] = float(rate)
        except ValueError:
            raise CliError(f"--sloppy {text!r}: expected MODEL=RATE, e.g. small=0.1") from None
    server = ScriptedModelServer(scripts, latency_s=args.latency, sloppy=sloppy, seed=args.seed, port=args.port)
    print(f"serving a scripted model ({len(scripts)} scripted conversations) on {server.base_url} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _compare_parser(commands: Any) -> None:
    rules = commands.add_parser(
        "rules",
        help="list each domain's policy rules, the clauses they check and the tasks that exercise them",
        description="List the policy rules of the domains under ROOT: each rule's id, title, section and clauses, "
        "the judgement-only clauses, and any clause left unmapped. With --validation, the results of a "
        "`pytest --tb-validate` run, each rule also lists the tasks whose careless variants break it. "
        "Exit status: 0, 1 when a clause is unmapped or (with --validation) a rule is exercised by fewer than "
        "3 tasks, 2 on bad input.",
    )
    rules.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder of the domain packages (default: ./domains, else the bundled domains installed with the plugin)",
    )
    rules.add_argument("--domain", action="append", default=[], help="only this domain (repeatable)")
    rules.add_argument("--validation", type=Path, help="results of a --tb-validate run: which tasks exercise each rule")
    rules.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    rules.set_defaults(run=rules_command)

    compare = commands.add_parser(
        "compare",
        help="paired per-task comparison of two runs on the same bundle",
        description="Compare run B against run A task by task: the mean pass@1 and pass^k differences with 95% "
        "intervals (Student's t over the paired tasks), paired p-values and the smallest detectable difference, "
        "per domain with Holm's correction, the tasks that gained or lost k/k, and per-task pass@1 changes. "
        "System errors are left out of both runs' rates; a difference in their rates is a loud warning. Exit "
        "status: 0, or 2 on bad input (including runs of different bundles or k, unless allowed).",
    )
    compare.add_argument("a", metavar="A.jsonl", type=Path, help="results of the baseline run (one run per file)")
    compare.add_argument("b", metavar="B.jsonl", type=Path, help="results of the run compared with it")
    compare.add_argument("--allow-mixed-bundles", action="store_true", help="compare runs of different bundles")
    compare.add_argument(
        "--allow-different-k",
        action="store_true",
        help="compare runs of different k (attempts per task): pass@1, and pass^k at the smaller k",
    )
    compare.set_defaults(run=compare_command)


def rules_command(args: argparse.Namespace) -> int:
    from .campaign.records import read_records
    from .campaign.rule_list import domains_under, listing_lines, rule_listing
    from .serve.reward import bundled_root

    root = args.root or bundled_root()
    if not root.is_dir():
        raise CliError(f"--root {root}: not a folder")
    domains = domains_under(root)
    unknown = sorted(set(args.domain) - set(domains))
    if unknown:
        raise CliError(f"--domain {unknown[0]}: no such domain under {root} (domains: {', '.join(domains)})")
    chosen = {name: d for name, d in domains.items() if not args.domain or name in args.domain}
    records = read_records([args.validation]) if args.validation else None
    listing = rule_listing(chosen, records)
    if args.format == "json":
        print(json.dumps(listing, indent=1))
    else:
        print("\n".join(listing_lines(listing)))
    broken = any(d["problems"] or d.get("thin") for d in listing["domains"].values())
    return 1 if broken else 0


def report_command(args: argparse.Namespace) -> int:
    from .campaign.costs import load_prices
    from .campaign.gates import parse_gate
    from .campaign.records import load
    from .campaign.report import build_report, shard_gaps
    from .campaign.views.campaign_terminal import report_lines

    gates = []
    for text in args.gate:
        try:
            gates.append(parse_gate(text))
        except ValueError as exc:
            raise CliError(f"--gate {text!r}: {exc}") from None
    prices = load_prices(args.prices) if args.prices else None
    runs = load(args.results, args.allow_mixed_bundles)
    if not any(run.records for run in runs):
        names = ", ".join(map(str, args.results))
        raise CliError(f"{names}: no attempt records (a results file written by --tb-results has one per attempt)")
    document = build_report(runs, prices)
    for line in report_lines(document):
        print(line)
    failed = False
    if gates:
        print()
        for run in document["runs"]:
            for gate in gates:
                result = gate.evaluate(
                    run["aggregate"], allow_incomplete=args.allow_incomplete, min_tasks=args.gate_min_tasks
                )
                failed |= not result.ok
                print(f"{run['label']}: {result.line}")
    incomplete = [run for run in document["runs"] if not run["complete"]]
    if args.require_complete and incomplete:
        failed = True
        for run in incomplete:
            what = f"{run['missing_count']} attempts missing" if run["missing_count"] else "no attempt records"
            what = "; ".join([*shard_gaps(run), what])
            print(f"thinkingbox report: run {run['id']} is incomplete: {what} (--require-complete)", file=sys.stderr)
    if args.json:
        _write(args.json, json.dumps(document, indent=1, default=str) + "\n", "report document")
    if args.html:
        from .campaign.views.html import render_html

        _write(args.html, render_html(document), "HTML report")
    return 1 if failed else 0


def _write(path: Path, text: str, what: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{path}: cannot write the {what} ({exc.strerror})") from None
    print(f"{what} written to {path}")


def compare_command(args: argparse.Namespace) -> int:
    from .campaign.compare import compare, compare_lines
    from .campaign.records import load

    runs = []
    for path in (args.a, args.b):
        found = load([path], allow_mixed_bundles=True)
        if len(found) != 1:
            ids = ", ".join(run.id for run in found) or "none"
            raise ReportError(f"{path}: compare takes one run per file, found {len(found)} ({ids})")
        runs.append(found[0])
    result = compare(
        runs[0], runs[1], allow_mixed_bundles=args.allow_mixed_bundles, allow_different_k=args.allow_different_k
    )
    for line in compare_lines(result):
        print(line)
    return 0


def serve_env_command(args: argparse.Namespace) -> int:
    from .serve.env_http import HttpServer
    from .serve.env_server import EnvServer
    from .serve.reward import bundled_root

    tasks = None
    if args.tasks:
        try:
            tasks = list(json.loads(args.tasks.read_text(encoding="utf-8"))["selected"])
        except OSError as exc:
            raise CliError(f"{args.tasks}: cannot read it ({exc.strerror})") from None
        except (ValueError, KeyError, TypeError):
            raise CliError(f'{args.tasks}: expected JSON with a "selected" list of task ids') from None
    root = args.root or bundled_root()
    env = EnvServer(
        root.resolve(), tasks, max_episodes=args.max_episodes, idle_timeout_s=args.idle_timeout, seed=args.seed
    )
    if not env.tasks:
        raise CliError(f"no tasks (test_case_... functions) under {root}")
    try:
        http = HttpServer(env, args.host, args.port, max_body=args.max_body)
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    print(f"serving {len(env.tasks)} tasks on http://{args.host}:{http.server_port} (Ctrl-C stops)")
    with contextlib.suppress(KeyboardInterrupt):
        http.serve_forever()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except ThinkingboxError as exc:  # CliError, ReportError and the harness's own
        print(f"thinkingbox {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush is quiet too
        return 0


if __name__ == "__main__":
    sys.exit(main())
