"""Regrading a campaign from its records: wall and CPU time for at least 1,000 attempts (not asserted).

    python bench/regrade.py [DOMAIN_PATH] [--attempts N] [--agent NAME] [--seed N]

1. A campaign to regrade: ``pytest DOMAIN -n 2 --tb-agent flaky --tb-seed 7
   --tb-repeat K --tb-results FILE``, K chosen so that at least N attempts run
   (default 1,000; retail's 115 tasks take K = 9), with failures of every kind.
   Timed too, for scale, but it is not the figure.
2. ``thinkingbox regrade FILE -o NEW`` as a subprocess, timed end to end
   (interpreter start, loading the tasks and building the domain's image
   included): its wall time and its CPU (user + system), and per attempt; then
   whether every verdict came out as the campaign's (the tasks did not change,
   so every one must).

The regrade runs in one process: each attempt is a fresh backend, the task's
arrange step, the recorded calls replayed over MCP, the checks and the rules.
The machine reference (``bench/machine.py``) is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import reference_line  # bench/ is the script's folder

from pytest_thinkingbox.campaign.records import read_records
from pytest_thinkingbox.core.catalog import task_ids

ROOT = Path(__file__).resolve().parent.parent
VERDICT = ("outcome", "failure", "error", "differences", "violations", "rubric", "end_hash", "signature")


def timed(*command: str, ok: tuple[int, ...] = (0,)) -> tuple[float, float, str]:
    """Run `command` in ROOT: its wall seconds, the CPU seconds (user + system) of it and its children, stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain", nargs="?", default="domains/retail")
    parser.add_argument("--attempts", type=int, default=1000, help="at least this many attempts (default 1,000)")
    parser.add_argument("--agent", default="flaky")
    parser.add_argument("--seed", default="7")
    args = parser.parse_args()
    print(reference_line("before"), flush=True)
    tasks = len(task_ids(ROOT / args.domain))
    repeat = math.ceil(args.attempts / tasks)
    with tempfile.TemporaryDirectory() as where:
        results, regraded = Path(where) / "run.jsonl", Path(where) / "regrade.jsonl"
        wall, cpu, _ = timed(
            sys.executable, "-m", "pytest", args.domain, "-q", "-p", "no:cacheprovider", "-n", "2", "--tb=no",
            "--tb-agent", args.agent, "--tb-seed", args.seed, "--tb-repeat", str(repeat), "--tb-results", str(results),
            ok=(0, 1),  # 1: some attempts failed, as the flaky agent's do
        )  # fmt: skip
        records = read_records([results])
        outcomes = {o: sum(r["outcome"] == o for r in records) for o in ("passed", "failed", "error")}
        print(f"campaign: {tasks} tasks x {repeat} = {len(records)} attempts {outcomes}, -n 2: {wall:.1f} s wall, "
              f"{cpu:.1f} s CPU")  # fmt: skip
        root = Path(args.domain).parts[0]
        wall, cpu, out = timed(
            sys.executable, "-m", "pytest_thinkingbox.cli", "regrade", str(results), "-o", str(regraded),
            "--root", root,
        )  # fmt: skip
        new = read_records([regraded])
        same = sum(
            json.dumps({k: a.get(k) for k in VERDICT}) == json.dumps({k: b.get(k) for k in VERDICT})
            for a, b in zip(records, new, strict=True)
        )
        print(out.rstrip())
        print(
            f"regrade of {len(new)} attempts, one process: {wall:.1f} s wall, {cpu:.1f} s CPU "
            f"({1000 * wall / len(new):.1f} ms wall, {1000 * cpu / len(new):.1f} ms CPU an attempt); "
            f"{same} of {len(new)} verdicts as the campaign's"
        )
    print(reference_line("after"))


if __name__ == "__main__":
    main()
