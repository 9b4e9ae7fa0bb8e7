"""Harness overhead per attempt and sweep wall time, measured (not asserted).

    python bench/overhead.py [DOMAIN_PATH] [--repeat N] [--rounds R] [--tb-db URL]

1. Per-attempt overhead: runs the domain's tasks with the golden agent on one
   process and reads each attempt's ``duration_s`` (setup + call + teardown)
   and ``timing`` split (fresh backend; the task's own arrange step, the ORM
   flush of its rows included; the golden episode over MCP, and the part of it
   spent inside the domain's tool functions; grading: hashes, golden end
   state, comparison; the domain's policy rules checked on the end state)
   from the results file. Harness overhead is printed twice:
   the whole attempt less the task's arrange step, and that less the time in
   the domain's tool functions too (the domain's own work, not the harness's).
2. Sweep wall and CPU time: ``pytest DOMAIN -n 2 --tb-repeat N --tb-agent golden`` as
   a subprocess, timed end to end (interpreter start and collection included),
   and whether every attempt passed with one end hash per task. Before it, one
   ``--collect-only`` run times what each process pays before its first attempt.

``--sweep-only`` skips part 1, e.g. for the whole benchmark:
``python bench/overhead.py domains --sweep-only``; ``--sweep-rounds N`` runs
the sweep N times and prints the median rate.

Every run prints the machine reference (``bench/machine.py``) before and
after: the same code's figures move by tens of percent from day to day.

``--rss`` measures memory instead: ``pytest DOMAIN -p no:randomly --tb-repeat N
--tb-agent golden --tb-results FILE`` in one process, N chosen so that at least
5,000 attempts run, with ``-p bench.rss`` reading the process's VmRSS after
attempt 500 and after attempt 5,000 (the target: within 50 MB of each other).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import reference_line  # bench/ is the script's folder

from pytest_thinkingbox.campaign.records import read_records

ROOT = Path(__file__).resolve().parent.parent


def pytest_run(*args: str) -> tuple[float, float]:
    """Run pytest in ROOT: its wall seconds, and the CPU seconds (user + system) it and its xdist workers used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def show(label: str, seconds: list[float]) -> None:
    ms = sorted(x * 1000 for x in seconds)
    print(f"  {label:<46} median {statistics.median(ms):6.2f} ms   p90 {ms[int(len(ms) * 0.9)]:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("domain", nargs="?", default="domains/retail")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="measurement rounds at -n 0 (default 3)")
    parser.add_argument("--tb-db", metavar="URL", help="run on this PostgreSQL server instead of SQLite in memory")
    parser.add_argument("--sweep-only", action="store_true", help="measure only the -n 2 sweep")
    parser.add_argument("--sweep-rounds", type=int, default=1, help="sweeps to run; their median is printed")
    parser.add_argument("--rss", action="store_true", help="measure only a worker's RSS after 500 and 5,000 attempts")
    args = parser.parse_args()
    backend = ("--tb-db", args.tb_db) if args.tb_db else ()
    print(reference_line("before"), flush=True)
    if args.rss:
        rss(args, backend)
    else:
        if not args.sweep_only:
            attempts(args, backend)
        sweep(args, backend)
    print(reference_line("after"))


def attempts(args: argparse.Namespace, backend: tuple[str, ...]) -> None:

    rounds = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp) / "results.jsonl"
            pytest_run(
                args.domain,
                "-n",
                "0",
                "--tb-repeat",
                str(args.repeat),
                "--tb-agent",
                "golden",
                "--tb-results",
                str(results),
                *backend,
            )
            rounds.append(read_records([results]))
    # A shared virtual machine adds noise that only ever slows a round down, so the
    # quietest round is the best estimate; every round's median is printed too, and
    # the median over the rounds of the harness overhead (the figure).
    overhead = [statistics.median(r["duration_s"] - r["timing"]["arrange_s"] for r in records) for records in rounds]
    print(
        "whole-attempt median per round: "
        + ", ".join(f"{statistics.median(r['duration_s'] for r in records) * 1000:.2f} ms" for records in rounds)
    )
    print(
        "harness overhead median per round: "
        + ", ".join(f"{ms * 1000:.2f} ms" for ms in overhead)
        + f"; median of the rounds {statistics.median(overhead) * 1000:.2f} ms"
    )
    records = min(rounds, key=lambda records: statistics.median(r["duration_s"] for r in records))
    tasks = len({r["task"] for r in records})
    print(
        f"quietest round, golden agent, -n 0: {len(records)} attempts of {tasks} tasks, "
        f"{statistics.mean(r['tool_calls'] for r in records):.1f} tool calls on average"
    )
    show("whole attempt (setup + test + teardown)", [r["duration_s"] for r in records])
    show("  fresh backend (restore, factories reset)", [r["timing"]["setup_s"] for r in records])
    show("  the task's own arrange step (factories)", [r["timing"]["arrange_s"] for r in records])
    show("  tb.run: golden episode over MCP", [r["timing"]["run_s"] for r in records])
    show("    of it, inside the domain's tool functions", [r["timing"]["tools_s"] for r in records])
    show("  tb.run: grading (hashes, golden end, compare)", [r["timing"]["grade_s"] for r in records])
    show("  tb.run: the domain's policy rules checked", [r["timing"].get("rules_s", 0.0) for r in records])
    show("harness overhead (whole attempt - arrange)", [r["duration_s"] - r["timing"]["arrange_s"] for r in records])
    show(
        "  the same, less the tool functions",
        [r["duration_s"] - r["timing"]["arrange_s"] - r["timing"]["tools_s"] for r in records],
    )


def sweep(args: argparse.Namespace, backend: tuple[str, ...]) -> None:
    command = ["-n", "2", "--tb-repeat", str(args.repeat), "--tb-agent", "golden", *backend]
    print(f"sweep: pytest {args.domain} {' '.join(command)}")
    # Every worker starts an interpreter and collects every item before its first attempt: a fixed cost in the
    # sweep's wall time, far larger where PYTHONDONTWRITEBYTECODE makes each start compile the task modules again.
    start_up, start_up_cpu = pytest_run(args.domain, "--collect-only", "--tb-repeat", str(args.repeat), *backend)
    compiled = " (PYTHONDONTWRITEBYTECODE is set: modules without a .pyc compile at every start)"
    note = compiled if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    print(f"  one process's start-up and collection: {start_up:.1f} s wall, {start_up_cpu:.1f} s CPU{note}")
    rates = []
    for _ in range(args.sweep_rounds):
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp) / "sweep.jsonl"
            wall, cpu = pytest_run(args.domain, *command, "--tb-results", str(results))
            records = read_records([results])
        hashes: dict[str, set[str]] = {}
        for r in records:
            hashes.setdefault(r["task"], set()).add(r["end_hash"])
        passed = sum(r["outcome"] == "passed" for r in records)
        rates.append(len(records) / wall)
        print(
            f"  wall {wall:.1f} s, CPU {cpu:.1f} s ({1000 * cpu / len(records):.1f} ms an "
            f"attempt, start-up included) for {len(records)} attempts of {len(hashes)} tasks ({rates[-1]:.0f} "
            "attempts/s); "
            f"{passed} passed; tasks with one end hash over all attempts: "
            f"{sum(len(h) == 1 for h in hashes.values())} of {len(hashes)}",
            flush=True,
        )
    if len(rates) > 1:
        print(f"  median of {len(rates)} sweeps: {statistics.median(rates):.0f} attempts/s")


RSS_AT = (500, 5000)  # attempts after which the process's RSS is read
RSS_GROWTH_TARGET_MB = 50


def rss(args: argparse.Namespace, backend: tuple[str, ...]) -> None:
    """A worker's resident memory after 500 and after 5,000 attempts, in one process (results written)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", args.domain],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    tasks = sum("::test_" in line for line in listed.stdout.splitlines())
    if not tasks:
        sys.exit(f"no tasks collected from {args.domain}:\n{listed.stdout[-3000:]}\n{listed.stderr[-3000:]}")
    repeat = math.ceil(RSS_AT[-1] / tasks)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rss.json"
        command = ["-p", "no:randomly", "--tb-repeat", str(repeat), "--tb-agent", "golden", *backend]
        wall, cpu = pytest_run(
            args.domain,
            *command,
            "--tb-results",
            str(Path(tmp) / "results.jsonl"),
            "-p",
            "bench.rss",
            "--rss-at",
            ",".join(map(str, RSS_AT)),
            "--rss-out",
            str(out),
        )
        measured = json.loads(out.read_text())
    samples = {int(n): kb / 1024 for n, kb in measured["samples"].items()}
    print(
        f"rss: pytest {args.domain} {' '.join(command)} (one process, {measured['tests']} attempts, {wall:.0f} s wall, "
        f"{cpu:.0f} s CPU)"
    )
    for n, mb in sorted(samples.items()):
        print(f"  VmRSS after attempt {n:>5}: {mb:7.1f} MB")
    first, last = (samples[n] for n in RSS_AT)
    growth = last - first
    verdict = "within" if growth <= RSS_GROWTH_TARGET_MB else "OVER"
    per_attempt = growth * 1024 / (RSS_AT[-1] - RSS_AT[0])
    print(
        f"  growth from attempt {RSS_AT[0]} to {RSS_AT[-1]}: {growth:.1f} MB ({per_attempt:.1f} kB per attempt), "
        f"{verdict} the {RSS_GROWTH_TARGET_MB} MB target"
    )


if __name__ == "__main__":
    main()
