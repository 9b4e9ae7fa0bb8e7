"""Throughput against a slow model endpoint, on a whole domain: attempts per minute beside the ideal, by episodes
in flight.

    python bench/models.py [--domain retail] [--latency S] [--concurrency 1,2x32,4x64] [--attempts-per-worker K]
    python bench/models.py --task NAME ...    # one task only: a best case, labelled as one

Each run is ``W`` (W xdist workers, one episode each) or ``WxC`` (W workers,
``--tb-concurrency C``): n = W * C episodes in flight.

Setup: a golden run of the domain (``-n 0``) gives the scripts that the local
``ScriptedModelServer`` replays and each task's golden path (g tool calls, so
g + 1 model requests an attempt). The server runs in this process and sleeps
``--latency`` seconds before every reply.

By default every run is the real mix: every task of the domain, every module,
``--tb-repeat k`` with k = ceil(max(8, K * n) / tasks), in pytest's order. With
``--task`` only that task is repeated (its module's other tasks get one attempt
each): the case of one task, whose attempts all start from one arranged state.
Each run is a subprocess timed end to end (the wall time)::

    pytest domains/DOMAIN -n W --tb-concurrency C -p no:randomly --tb-agent openai:scripted
        --tb-base-url URL --tb-repeat k --tb-results FILE -p bench.models

``-n 1`` is one xdist worker, so every run pays the same kind of start-up.
Records carry durations but no absolute times, so this file is also a
bench-only pytest plugin (``-p bench.models``): each process stamps
``time.time()`` and its CPU time around every test's whole runtest protocol
(setup + call + teardown), at start-up, after collection and at session finish,
with its peak resident memory (``VmHWM`` from /proc/self/status),
into one file per process.

Measured per n:

* throughput: attempts / span * 60, the span running from the first attempt's
  start to the last attempt's end (start-up, collection and exit left out,
  and reported apart as ``up`` and ``1st at``);
* ideal: 60 * n / d1, where d1 is what an attempt of the run's mix takes
  without contention: the mean over its tasks of (g + 1) * latency, plus the
  mean time an attempt spends outside its model calls (``duration_s`` less
  ``usage.agent.latency_s``), measured in the run with the smallest n, each
  worker's first attempt left out (it pays the worker's one-time imports).
  share = throughput / ideal;
* packing: throughput / (60 * n / dn), with dn that run's own mean
  ``duration_s``: how busy the workers were kept during the span. Share is
  about packing * d1 / dn, so a shortfall splits into idle workers and slower
  attempts;
* CPU: per attempt in its worker (the whole protocol, each worker's first
  attempt left out), and of all pytest processes over the run's attempts
  (start-up and collection included);
* peak memory per worker (VmHWM), max and median, and the total: every
  worker's peak and the controller's, added (an upper bound on the RSS the
  run held at once).

The smallest run (``1`` by default) takes a sample of the domain's tasks
(``--sample``, spread over its modules), one attempt each, since running every
task at n = 1 would take minutes of model latency: it measures the time
outside model calls, which does not depend on n.

The machine reference (``bench/machine.py``) is printed before the first run
and after the last: CPU-bound shares move with the machine's speed of the day.

The diagnosis table says where time and CPU went: launch to the last worker
up, launch to the first attempt, the first attempt of each worker beside the
others, the agent's model latency per attempt (``usage.agent.latency_s``;
(g + 1) * latency when neither side queues), CPU seconds per attempt in the
workers, the CPU used by the pytest processes, by this process (the server) and
by everything else on the machine (from /proc/stat: a shared machine shows
here) against the cores over the wall time, and the throughput once every
worker has finished its first attempt (attempts straddling that moment count
pro rata).
"""

from __future__ import annotations

import json
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


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


def task_node(domain: str, task: str) -> str:
    """The task's node id: only its module is collected (``-k`` would collect every task of the domain); the
    module's other tasks get one attempt each (``--bench-task``, see `pytest_generate_tests`)."""
    for path in sorted((ROOT / "domains" / domain).glob("test_*.py")):
        if f"def {task}(" in path.read_text(encoding="utf-8"):
            return f"{path.relative_to(ROOT).as_posix()}::{task}"
    raise SystemExit(f"no {domain} test file defines {task}")


def sample_tasks(domain: str, tasks: list[str], size: int) -> list[str]:
    """`size` of the domain's tasks, spread evenly over its modules in pytest's order."""
    ordered = []
    for path in sorted((ROOT / "domains" / domain).glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        ordered += [t for t in tasks if f"def {t}(" in source]
    step = max(1, len(ordered) // size)
    return ordered[::step][:size]


@dataclass(frozen=True)
class Run:
    """One bench run: W workers x C episodes in flight, over `target` (pytest arguments) with k attempts a task."""

    workers: int
    per_worker: int
    target: tuple[str, ...]
    repeat: int
    extra: tuple[str, ...] = ()  # for experiments (e.g. another -p plugin)

    @property
    def n(self) -> int:
        return self.workers * self.per_worker

    @property
    def label(self) -> str:
        return f"{self.workers}x{self.per_worker}"


def measure(run: Run, golden: dict[str, int], server: Any, tmp: Path) -> dict[str, Any]:
    """Run `run` against `server`; every attempt must pass in its task's golden calls + 1 model requests."""
    import statistics

    from pytest_thinkingbox.campaign.records import read_records

    results, stamps = tmp / f"n{run.label}.jsonl", tmp / f"stamps{run.label}"
    stamps.mkdir()
    env = {
        **os.environ,
        "OPENAI_API_KEY": "bench",  # the local server takes any key
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    cpu_self = time.process_time()  # this process: the server's threads
    busy = machine_busy()[0]
    launched, wall, cpu_pytest = run_pytest(
        *run.target,
        "-n",
        str(run.workers),
        "--tb-concurrency",
        str(run.per_worker),
        "-p",
        "no:randomly",
        "--tb-agent",
        "openai:scripted",
        "--tb-base-url",
        server.base_url,
        "--tb-repeat",
        str(run.repeat),
        "--tb-results",
        str(results),
        "-p",
        "bench.models",
        "--bench-stamps",
        str(stamps),
        *run.extra,
        env=env,
    )
    cpu_server = time.process_time() - cpu_self
    cpu_machine = machine_busy()[0] - busy
    records = read_records([results])
    bad = [
        r["nodeid"]
        for r in records
        if r["outcome"] != "passed" or r["usage"]["agent"]["calls"] != golden.get(r["task"], -1) + 1
    ]
    if bad:
        raise SystemExit(
            f"{run.label}: {len(bad)} of {len(records)} attempts did not pass in golden calls + 1: {bad[:5]}"
        )
    workers = [json.loads(p.read_text()) for p in sorted(stamps.glob("gw*.json"))]
    stamped = [a for w in workers for a in w["attempts"]]
    firsts = {min(w["attempts"], key=lambda a: a["start"])["nodeid"] for w in workers if w["attempts"]}
    span = max(a["end"] for a in stamped) - min(a["start"] for a in stamped)
    memory = [w["vmhwm_mb"] for w in workers]
    controller = json.loads((stamps / "controller.json").read_text())["vmhwm_mb"]
    rest = [r for r in records if r["nodeid"] not in firsts] or records
    return {
        "n": run.n,
        "label": run.label,
        "attempts": len(records),
        "tasks": len({r["task"] for r in records}),
        "wall": wall,
        "span": span,
        "per_min": 60 * len(records) / span,
        "steady": after_warmup(workers),
        "duration": statistics.mean(r["duration_s"] for r in records),
        "first": statistics.mean(r["duration_s"] for r in records if r["nodeid"] in firsts),
        "rest": statistics.mean(r["duration_s"] for r in rest),
        "outside_model": statistics.mean(r["duration_s"] - r["usage"]["agent"]["latency_s"] for r in rest),
        "requests": statistics.mean(golden[r["task"]] + 1 for r in records),
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
    import math
    import statistics
    import tempfile

    from machine import reference_line  # bench/ is the script's folder (this file is also a pytest plugin)

    from pytest_thinkingbox.serve.model_server import ScriptedModelServer, scripts_from_results

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", default="retail", help="bundled domain to run (default retail: all its tasks)")
    parser.add_argument("--latency", type=float, default=0.5, help="seconds the server waits per reply (default 0.5)")
    parser.add_argument(
        "--concurrency",
        default="1,2x32,4x64",
        help="runs, comma-separated: W (-n W) or WxC (-n W --tb-concurrency C) (default 1,2x32,4x64)",
    )
    parser.add_argument("--task", help="run this one task only (a best case: every attempt starts from one state)")
    parser.add_argument(
        "--sample", type=int, default=12, help="tasks the smallest run takes, one attempt each (default 12)"
    )
    parser.add_argument(
        "--attempts-per-worker",
        type=int,
        default=30,
        help="attempts are at least max(8, this * n) (default 30: a campaign gives each worker hundreds, and each "
        "worker's first attempt pays its one-time imports, so short runs understate throughput)",
    )
    args = parser.parse_args()
    shapes = sorted({_shape(x) for x in args.concurrency.split(",")}, key=lambda s: (s[0] * s[1], s))
    cores = os.cpu_count() or 1
    print(reference_line("before"), flush=True)

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        golden_results = tmp / "golden.jsonl"
        pick = ("-k", args.task) if args.task else ()
        run_pytest(f"domains/{args.domain}", *pick, "-n", "0", "-p", "no:randomly", "--tb-agent", "golden",
                   "--tb-results", str(golden_results))  # fmt: skip
        golden = golden_paths(golden_results)
        if args.task and args.task not in golden:
            raise SystemExit(f"no {args.domain} task {args.task} passed its golden run")
        tasks = sorted(golden)
        plan = []
        for index, (workers, per_worker) in enumerate(shapes):
            attempts = max(8, args.attempts_per_worker * workers * per_worker)
            if args.task:
                target: tuple[str, ...] = (task_node(args.domain, args.task),)
                plan.append(Run(workers, per_worker, target, attempts, ("--bench-task", args.task)))
            elif index == 0:  # the reference run: a sample, one attempt each
                sample = sample_tasks(args.domain, tasks, args.sample)
                plan.append(Run(workers, per_worker, (f"domains/{args.domain}", "-k", " or ".join(sample)), 1))
            else:
                plan.append(Run(workers, per_worker, (f"domains/{args.domain}",), math.ceil(attempts / len(tasks))))

        with ScriptedModelServer(scripts_from_results(golden_results), latency_s=args.latency) as server:
            runs = []
            for run in plan:
                runs.append(measure(run, golden, server, tmp))
                print(f"  {run.label}: done", flush=True)
    print(reference_line("after"))

    outside = runs[0]["outside_model"]
    mix_requests = statistics.mean(golden[t] + 1 for t in tasks)
    d1 = mix_requests * args.latency + outside
    what = (
        f"task {args.task} only (a best case)" if args.task else f"every {args.domain} task ({len(tasks)}), all modules"
    )
    print(
        f"{what}: {mix_requests:.2f} model requests an attempt on average, server latency {args.latency:g} s per "
        f"reply, {cores} cores; ideal = 60 * n / {d1:.2f} s = {mix_requests:.2f} requests x {args.latency:g} s + "
        f"{outside:.3f} s outside model calls (at {runs[0]['label']}, without each worker's first attempt)"
    )
    print(
        f"{'WxC':>6} {'n':>4} {'tasks':>5} {'attempts':>8} {'wall s':>7} {'span s':>7} {'att/min':>8} {'ideal':>7}"
        f" {'share':>6} {'packing':>8} {'cpu ms/att':>10} {'mem max MB':>10} {'median':>7} {'total':>7}"
    )
    for r in runs[1:] if len(runs) > 1 and not args.task else runs:
        ideal = 60 * r["n"] / (r["requests"] * args.latency + outside)
        packing = r["per_min"] / (60 * r["n"] / r["duration"])
        print(
            f"{r['label']:>6} {r['n']:>4} {r['tasks']:>5} {r['attempts']:>8} {r['wall']:>7.1f} {r['span']:>7.1f}"
            f" {r['per_min']:>8.1f} {ideal:>7.1f} {r['per_min'] / ideal:>6.0%} {packing:>8.0%}"
            f" {1000 * r['cpu_pytest'] / r['attempts']:>10.1f} {r['mem_max']:>10.1f} {r['mem_median']:>7.1f}"
            f" {r['mem_total']:>7.1f}"
        )
    print(
        "  cpu ms/att: CPU of every pytest process (start-up and collection included) over the run's attempts; "
        "ideal: for the run's own mix of tasks"
    )
    print()
    print("diagnosis (s = seconds; 'first' = each worker's first attempt)")
    print(
        f"{'WxC':>6} {'up':>6} {'1st at':>7} {'dur 1st':>8} {'dur rest':>9} {'model lat':>10} {'cpu 1st':>8}"
        f" {'cpu rest':>9} {'pytest cpu':>11} {'server cpu':>11} {'other cpu':>10} {'warm att/min':>13} {'share':>6}"
    )
    for r in runs:
        ideal = 60 * r["n"] / (r["requests"] * args.latency + outside)
        print(
            f"{r['label']:>6} {r['up']:>6.1f} {r['to_first']:>7.1f} {r['first']:>8.2f} {r['rest']:>9.2f}"
            f" {r['latency']:>10.2f} {r['cpu_first']:>8.2f} {r['cpu_rest']:>9.3f}"
            f" {r['cpu_pytest'] / (cores * r['wall']):>11.0%} {r['cpu_server'] / (cores * r['wall']):>11.0%}"
            f" {r['cpu_others'] / (cores * r['wall']):>10.0%} {r['steady']:>13.1f}"
            f" {r['steady'] / ideal:>6.0%}"
        )
    print(
        f"  up: launch to the last worker configured (start-up); 1st at: launch to the first attempt's start "
        f"(start-up and collection); model lat: usage.agent.latency_s per attempt ((g + 1) x {args.latency:g} s "
        f"unqueued); cpu: per attempt in its worker; pytest/server/other cpu: "
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
