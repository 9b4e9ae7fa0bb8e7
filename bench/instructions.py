"""Instructions per attempt, counted by valgrind: a figure the machine's speed does not move.

    python bench/instructions.py [--select EXPR] [--against OTHER_CHECKOUT]

The two-core machines drift by tens of percent within an hour, which buries a
change of a few percent under noise in any timed comparison. Counting
instructions hardly drifts: valgrind's cachegrind (``--cache-sim=no``) counts
every instruction a run executes, whatever else the machine does, so the runs
can share the cores.

Each checkout runs ``pytest domains -n 0 -p no:randomly --tb-agent golden -k
EXPR`` twice under valgrind, at ``--tb-repeat 2`` and ``--tb-repeat 6``, all
at once (both checkouts too), with ``PYTHONHASHSEED=0``. The difference of the
two counts divided by the attempts it adds is what one more attempt costs
once the task is warm: start-up, collection, the one-time imports and each
task's golden replay are in both runs and cancel out. ``--against`` does the
same in another checkout (a ``git worktree`` of the commit before, say) and
prints the change.

The default selection, every task whose name holds ``_001``, is 112 of the
619 bundled tasks, across the five domains; the four runs take about twelve
minutes. What is left of timing in a run (how often the event loop turns)
still moves a count a little: two runs of one commit differed by 0.07 of 58
billion instructions, and with 224 attempts added instead of 448 the figure
per attempt moved by 1% between runs of one commit. Read a change under 1%
as real only when it repeats.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOW, HIGH = 2, 6  # --tb-repeat of the two runs


def _start(checkout: Path, select: str, repeat: int, out: Path) -> subprocess.Popen[str]:
    """One counted run, started in the background; its report goes to `out`."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(checkout)}
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}.cg",
        sys.executable, "-m", "pytest", "domains", "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider",
        "--tb-agent", "golden", "--tb-repeat", str(repeat), "-k", select, "-q",
    ]  # fmt: skip
    with out.open("w") as log:
        return subprocess.Popen(command, cwd=checkout, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)


def _read(out: Path) -> tuple[int, int]:
    """(instructions, attempts passed) of a finished run; exits with its log if it did not pass."""
    text = out.read_text(encoding="utf-8")
    counted = re.search(r"I\s+refs:\s+([\d,]+)", text)
    passed = re.search(r"(\d+) passed", text)
    if counted is None or passed is None or re.search(r"\d+ (failed|error)", text):
        raise SystemExit(f"the run did not pass whole:\n{text[-3000:]}")
    return int(counted.group(1).replace(",", "")), int(passed.group(1))


def per_attempt(low: tuple[int, int], high: tuple[int, int]) -> float:
    """Instructions one more attempt costs (warm tasks), from the (instructions, attempts) of the two runs."""
    return (high[0] - low[0]) / (high[1] - low[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--select", default="_001", help="pytest -k expression (default: tasks named *_001)")
    parser.add_argument("--against", type=Path, help="another checkout to count the same way, e.g. a worktree")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    with tempfile.TemporaryDirectory() as folder:
        logs = {(c, r): Path(folder) / f"{i}-{r}.log" for i, c in enumerate(checkouts) for r in (LOW, HIGH)}
        started = [_start(checkout, args.select, repeat, out) for (checkout, repeat), out in logs.items()]
        for process in started:
            process.wait()
        runs = {key: _read(out) for key, out in logs.items()}
    counted = {}
    for checkout in checkouts:
        low, high = runs[checkout, LOW], runs[checkout, HIGH]
        counted[checkout] = per_attempt(low, high)
        print(
            f"{checkout}: {counted[checkout] / 1e6:.2f} M instructions per warm attempt "
            f"({low[0] / 1e9:.2f} G for {low[1]} attempts, {high[0] / 1e9:.2f} G for {high[1]})"
        )
    if args.against:
        mine, theirs = counted[ROOT], counted[args.against.resolve()]
        print(f"this checkout against {args.against}: {100 * (mine - theirs) / theirs:+.1f}% per attempt")


if __name__ == "__main__":
    main()
