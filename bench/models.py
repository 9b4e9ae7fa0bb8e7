"""Throughput against a slow model endpoint: attempts per minute beside the ideal, by episodes in flight.

    python bench/models.py [--latency S] [--concurrency 1,2x32,4x64] [--task NAME] [--attempts-per-worker K]

Each run is ``W`` (W xdist workers, one episode each) or ``WxC`` (W workers,
``--tb-concurrency C``): n = W * C episodes in flight.

Setup: a golden run of domains/retail (``-n 0``) gives the scripts that the local
``ScriptedModelServer`` replays and, unless ``--task`` names one, the task: the
first whose golden path is exactly 4 tool calls, so one episode is 5 model
requests (4 tool-call turns and the closing turn). The server runs in this
process and sleeps ``--latency`` seconds before every reply.

For each run, as a subprocess timed end to end (the wall time)::

    pytest domains/retail/FILE::TASK -n W --tb-concurrency C -p no:randomly --tb-agent openai:scripted
        --tb-base-url URL --tb-repeat max(8, K*n) --tb-results FILE -p bench.models --bench-task TASK

``-n 1`` is one xdist worker, so every run pays the same kind of start-up.
Records carry durations but no absolute times, so this file is also a
bench-only pytest plugin (``-p bench.models``): each process stamps
``time.time()`` and its CPU time around every test's whole runtest protocol
(setup + call + teardown), at start-up, after collection and at session finish,
with its peak resident memory (``VmHWM`` from /proc/self/status),
into one file per process.

Measured per n:

* throughput: attempts / span * 60, the span running from the first attempt's
  start to the last attempt's end (start-up, collection and exit left out);
* ideal: 60 * n / d1, where d1 is the mean ``duration_s`` (setup + call +
  teardown) of an attempt in the run with the smallest n, each worker's first
  attempt left out (it pays the worker's one-time imports): the episode
  latency measured without contention or warm-up; share = throughput / ideal;
* packing: throughput / (60 * n / dn), with dn that run's own mean
  ``duration_s``: how busy the workers were kept during the span. Share is
  about packing * d1 / dn, so a shortfall splits into idle workers and slower
  attempts;
* peak memory per worker (VmHWM), max and median, and the total: every
  worker's peak and the controller's, added (an upper bound on the RSS the
  run held at once).

The machine reference (``bench/machine.py``) is printed before the first run
and after the last: CPU-bound shares move with the machine's speed of the day.

The diagnosis table says where time and CPU went: launch to the last worker
up, launch to the first attempt, the first attempt of each worker beside the
others, the agent's model latency per attempt (``usage.agent.latency_s``;
5 * latency when neither side queues), CPU seconds per attempt in the workers,
the CPU used by the pytest processes, by this process (the server) and by
everything else on the machine (from /proc/stat: a shared machine shows here)
against the cores over the wall time, and the throughput once every worker has
finished its first attempt (attempts straddling that moment count pro rata).
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_CALLS = 4  # the task: a golden path of 4 tool calls, 5 model requests


# -- the bench-only plugin, loaded in pytest's processes with ``-p bench.models`` --


def pytest_addoption(parser: pytest.Parser) -> None:
    bench = parser.getgroup("thinkingbox bench")
    bench.addoption(
        "--bench-stamps", metavar="DIR", help="Write this process's timestamps and peak memory to DIR (bench only)."
    )
    bench.addoption("--bench-task", metavar="NAME", help="The task the bench runs; the others get one attempt each.")


@pytest.hookimpl(tryfirst=True)  # before the plugin's own, which reads the tb_repeat marker
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give every task but the benched one a single attempt.

    Naming one test on the command line, pytest still parametrizes every test
    of its module before it deselects them; at thousands of attempts a task,
    that is the module's 24 tasks times --tb-repeat items in every worker
    (about 700 MB each at 7,680 attempts), which the bench would then count as
    the cost of the episodes in flight.
    """
    task = metafunc.config.getoption("--bench-task")
    if task and metafunc.function.__name__ != task and "_tb_attempt" in metafunc.fixturenames:
        metafunc.definition.add_marker(pytest.mark.tb_repeat(1))


def pytest_configure(config: pytest.Config) -> None:
    folder = config.getoption("--bench-stamps")
    if folder:
        config.pluginmanager.register(Stamps(Path(folder), config), "bench-stamps")


class Stamps:
    """Wall and CPU stamps of one pytest process, written to DIR/<worker id>.json at session finish."""

    def __init__(self, folder: Path, config: pytest.Config) -> None:
        self.worker = config.workerinput["workerid"] if hasattr(config, "workerinput") else "controller"
        self.path = folder / f"{self.worker}.json"
        self.data: dict[str, Any] = {
            "worker": self.worker,
            "process_start": _process_start(),
            "configured": time.time(),
            "attempts": [],
        }

    def pytest_collection_finish(self) -> None:
        self.data["collected"] = time.time()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        start, cpu = time.time(), time.process_time()
        try:
            return (yield)
        finally:
            self.data["attempts"].append(
                {"nodeid": item.nodeid, "start": start, "end": time.time(), "cpu_s": time.process_time() - cpu}
            )

    def pytest_sessionfinish(self) -> None:
        status = Path("/proc/self/status").read_text()
        hwm_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
        self.data.update(
            finished=time.time(),
            cpu_s=time.process_time(),
            vmhwm_mb=hwm_kb / 1024,
        )
        self.path.write_text(json.dumps(self.data), encoding="utf-8")


def _process_start() -> float:
    """When this process started, as a Unix time (from /proc; clock ticks, so to about 10 ms)."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line[:5] == "btime")
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")


# -- the bench --


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def run_pytest(*args: str, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Run pytest in ROOT; (launch time, wall seconds, CPU seconds of pytest and its workers)."""
    import subprocess
    import sys

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    launched = time.time()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.time() - launched
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return launched, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def golden_paths(results: Path) -> dict[str, int]:
    """Task -> number of tool calls of its passed golden attempt."""
    from pytest_thinkingbox.campaign.records import read_records

    return {
        r["task"]: sum(len(m.get("tool_calls") or []) for m in r["transcript"])
        for r in read_records([results])
        if r["outcome"] == "passed" and r.get("transcript")
    }


def after_warmup(workers: list[dict[str, Any]]) -> float:
    """Attempts per minute once every worker has finished its first attempt.

    The window runs from the last first-attempt end to the last attempt end; an
    attempt straddling its start counts for the fraction of it inside.
    """
    attempts = [sorted(w["attempts"], key=lambda a: a["start"]) for w in workers if w["attempts"]]
    since = max(a[0]["end"] for a in attempts)
    until = max(a[-1]["end"] for a in attempts)
    inside = sum(
        (a["end"] - max(a["start"], since)) / (a["end"] - a["start"]) for w in attempts for a in w if a["end"] > since
    )
    return 60 * inside / (until - since) if until > since else float("nan")


def task_node(task: str) -> str:
    """The task's node id: only its module is collected (``-k`` would collect every retail task); the
    module's other tasks get one attempt each (``--bench-task``, see `pytest_generate_tests`)."""
    for path in sorted((ROOT / "domains" / "retail").glob("test_*.py")):
        if f"def {task}(" in path.read_text(encoding="utf-8"):
            return f"{path.relative_to(ROOT).as_posix()}::{task}"
    raise SystemExit(f"no retail test file defines {task}")


def measure(
    workers: int, per_worker: int, task: str, attempts: int, server: Any, tmp: Path, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    """One run: -n `workers`, each with `per_worker` episodes in flight; `extra` pytest arguments are for
    experiments (e.g. another -p plugin)."""
    import statistics

    from pytest_thinkingbox.campaign.records import read_records

    n = workers * per_worker
    label = f"{workers}x{per_worker}"
    results, stamps = tmp / f"n{label}.jsonl", tmp / f"stamps{label}"
    stamps.mkdir()
    env = {
        **os.environ,
        "OPENAI_API_KEY": "bench",  # the local server takes any key
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    cpu_self = time.process_time()  # this process: the server's threads
    busy = machine_busy()[0]
    launched, wall, cpu_pytest = run_pytest(
        task_node(task),
        "-n",
        str(workers),
        "--tb-concurrency",
        str(per_worker),
        "-p",
        "no:randomly",
        "--tb-agent",
        "openai:scripted",
        "--tb-base-url",
        server.base_url,
        "--tb-repeat",
        str(attempts),
        "--tb-results",
        str(results),
        "-p",
        "bench.models",
        "--bench-stamps",
        str(stamps),
        "--bench-task",
        task,
        *extra,
        env=env,
    )
    cpu_server = time.process_time() - cpu_self
    cpu_machine = machine_busy()[0] - busy
    records = read_records([results])
    bad = [r["nodeid"] for r in records if r["outcome"] != "passed" or r["usage"]["agent"]["calls"] != GOLDEN_CALLS + 1]
    if len(records) != attempts or bad:
        calls = GOLDEN_CALLS + 1
        raise SystemExit(f"{label}: {len(records)} records of {attempts}, not passed in {calls} calls: {bad}")
    workers = [json.loads(p.read_text()) for p in sorted(stamps.glob("gw*.json"))]
    stamped = [a for w in workers for a in w["attempts"]]
    firsts = {min(w["attempts"], key=lambda a: a["start"])["nodeid"] for w in workers if w["attempts"]}
    span = max(a["end"] for a in stamped) - min(a["start"] for a in stamped)
    memory = [w["vmhwm_mb"] for w in workers]
    controller = json.loads((stamps / "controller.json").read_text())["vmhwm_mb"]
    return {
        "n": n,
        "label": label,
        "attempts": len(records),
        "wall": wall,
        "span": span,
        "per_min": 60 * len(records) / span,
        "steady": after_warmup(workers),
        "duration": statistics.mean(r["duration_s"] for r in records),
        "first": statistics.mean(r["duration_s"] for r in records if r["nodeid"] in firsts),
        "rest": statistics.mean([r["duration_s"] for r in records if r["nodeid"] not in firsts] or [float("nan")]),
        "latency": statistics.mean(r["usage"]["agent"]["latency_s"] for r in records),
        "up": max(w["configured"] for w in workers) - launched,
        "to_first": min(a["start"] for a in stamped) - launched,
        "cpu_first": statistics.mean(a["cpu_s"] for a in stamped if a["nodeid"] in firsts),
        "cpu_rest": statistics.mean([a["cpu_s"] for a in stamped if a["nodeid"] not in firsts] or [float("nan")]),
        "cpu_pytest": cpu_pytest,
        "cpu_server": cpu_server,
        "cpu_others": max(0.0, cpu_machine - cpu_pytest - cpu_server),
        "mem_max": max(memory),
        "mem_median": statistics.median(memory),
        "mem_total": sum(memory) + controller,
        "workers": len(workers),
    }


def main() -> None:
    import argparse
    import tempfile

    from machine import reference_line  # bench/ is the script's folder (this file is also a pytest plugin)

    from pytest_thinkingbox.serve.model_server import ScriptedModelServer, scripts_from_results

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds the server waits per reply (default 0.5)")
    parser.add_argument(
        "--concurrency",
        default="1,2x32,4x64",
        help="runs, comma-separated: W (-n W) or WxC (-n W --tb-concurrency C) (default 1,2x32,4x64)",
    )
    parser.add_argument("--task", help=f"retail task to run (default: the first with {GOLDEN_CALLS} golden calls)")
    parser.add_argument(
        "--attempts-per-worker",
        type=int,
        default=30,
        help="attempts are max(8, this * n) (default 30: a campaign gives each worker hundreds, and each worker's "
        "first attempt pays its one-time imports, so short runs understate throughput)",
    )
    args = parser.parse_args()
    shapes = sorted({_shape(x) for x in args.concurrency.split(",")}, key=lambda s: (s[0] * s[1], s))
    cores = os.cpu_count() or 1
    print(reference_line("before"), flush=True)

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        golden = tmp / "golden.jsonl"
        pick = ("-k", args.task) if args.task else ()
        run_pytest("domains/retail", *pick, "-n", "0", "-p", "no:randomly", "--tb-agent", "golden",
                   "--tb-results", str(golden))  # fmt: skip
        paths = golden_paths(golden)
        task = args.task or next((t for t, calls in sorted(paths.items()) if calls == GOLDEN_CALLS), None)
        if task is None or paths.get(task) != GOLDEN_CALLS:
            raise SystemExit(f"no retail task with a golden path of {GOLDEN_CALLS} calls: {args.task or sorted(paths)}")

        with ScriptedModelServer(scripts_from_results(golden), latency_s=args.latency) as server:
            runs = []
            for workers, per_worker in shapes:
                n = workers * per_worker
                runs.append(measure(workers, per_worker, task, max(8, args.attempts_per_worker * n), server, tmp))
                print(f"  {workers}x{per_worker}: done", flush=True)
    print(reference_line("after"))

    d1 = runs[0]["rest"]
    print(
        f"{task} ({GOLDEN_CALLS} golden calls, {GOLDEN_CALLS + 1} model requests), server latency "
        f"{args.latency:g} s per reply, {cores} cores; ideal = 60 * n / {d1:.2f} s, the mean attempt "
        f"duration_s at {runs[0]['label']} without each worker's first attempt"
    )
    print(
        f"{'WxC':>6} {'n':>4} {'attempts':>8} {'wall s':>7} {'span s':>7} {'att/min':>8} {'ideal':>7} {'share':>6}"
        f" {'packing':>8} {'mem max MB':>10} {'median':>7} {'total':>7}"
    )
    for r in runs:
        ideal = 60 * r["n"] / d1
        packing = r["per_min"] / (60 * r["n"] / r["duration"])
        print(
            f"{r['label']:>6} {r['n']:>4} {r['attempts']:>8} {r['wall']:>7.1f} {r['span']:>7.1f} {r['per_min']:>8.1f}"
            f" {ideal:>7.1f} {r['per_min'] / ideal:>6.0%} {packing:>8.0%} {r['mem_max']:>10.1f}"
            f" {r['mem_median']:>7.1f} {r['mem_total']:>7.1f}"
        )
    print()
    print("diagnosis (s = seconds; 'first' = each worker's first attempt)")
    print(
        f"{'WxC':>6} {'up':>6} {'1st at':>7} {'dur 1st':>8} {'dur rest':>9} {'model lat':>10} {'cpu 1st':>8}"
        f" {'cpu rest':>9} {'pytest cpu':>11} {'server cpu':>11} {'other cpu':>10} {'warm att/min':>13} {'share':>6}"
    )
    for r in runs:
        print(
            f"{r['label']:>6} {r['up']:>6.1f} {r['to_first']:>7.1f} {r['first']:>8.2f} {r['rest']:>9.2f}"
            f" {r['latency']:>10.2f} {r['cpu_first']:>8.2f} {r['cpu_rest']:>9.3f}"
            f" {r['cpu_pytest'] / (cores * r['wall']):>11.0%} {r['cpu_server'] / (cores * r['wall']):>11.0%}"
            f" {r['cpu_others'] / (cores * r['wall']):>10.0%} {r['steady']:>13.1f}"
            f" {r['steady'] / (60 * r['n'] / d1):>6.0%}"
        )
    print(
        f"  up: launch to the last worker configured; 1st at: launch to the first attempt's start; model lat: "
        f"usage.agent.latency_s per attempt ({GOLDEN_CALLS + 1} x {args.latency:g} s = "
        f"{(GOLDEN_CALLS + 1) * args.latency:.2f} s unqueued); cpu: per attempt in its worker; "
        f"pytest/server/other cpu: "
        f"share of {cores} cores over the wall time used by the pytest processes, by this process (the server) and "
        f"by everything else on the machine; warm att/min: "
        "throughput once every worker has finished its first attempt, and its share of ideal"
    )


def _shape(text: str) -> tuple[int, int]:
    """``W`` or ``WxC`` as (workers, episodes per worker)."""
    workers, _, per_worker = text.strip().partition("x")
    return int(workers), int(per_worker or 1)


if __name__ == "__main__":
    main()
