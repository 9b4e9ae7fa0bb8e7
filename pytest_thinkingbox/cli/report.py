"""`thinkingbox report` and `thinkingbox compare`: the campaign report of results files, and two runs paired by task."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..campaign.gates import MIN_TASKS
from ..campaign.records import ReportError
from .arguments import CliError, _whole


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


def report_command(args: argparse.Namespace) -> int:
    from ..campaign.costs import load_prices
    from ..campaign.gates import parse_gate
    from ..campaign.records import load
    from ..campaign.report import build_report, shard_gaps
    from ..campaign.views.campaign_terminal import report_lines

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
        from ..campaign.views.html import render_html

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
    from ..campaign.compare import compare, compare_lines
    from ..campaign.records import load

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


def _compare_parser(commands: Any) -> None:
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
