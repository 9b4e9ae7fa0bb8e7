"""Load on the environment server: concurrent clients, abandoned episodes, and the memory they leave.

    python bench/env_load.py [--clients 200] [--abandoned 500] [--task test_case_RT001_003]

Starts `thinkingbox serve-env` on the bundled domains in a subprocess, then:

1. `--clients` clients at once, each a whole episode (reset, one tool call,
   end): requests sent, requests that failed to connect or got no answer
   (dropped), HTTP errors, and latency percentiles;
2. three rounds of `--abandoned` resets whose clients then vanish, with a
   short idle timeout: the server's resident memory and thread count before,
   at each peak, and after each round's episodes expired (read from /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFUND = {
    "tool": "issue_refund",
    "arguments": {"order_id": "O-5001", "amount_cents": 19_899, "reason": "lost_parcel", "method": "original"},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def memory(pid: int) -> tuple[float, int]:
    """Resident memory (MB) and threads of a process."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])


def start_server(port: int, *options: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "pytest_thinkingbox.cli", "serve-env", "--root", "domains", "--port", str(port)]
    server = subprocess.Popen([*command, *options], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    server.stdout.readline()  # "serving N tasks on ..."
    return server


def episode(base: str, task: str) -> tuple[list[float], list[str]]:
    """One client's whole episode: the latency of each request, and what went wrong."""
    latencies, problems = [], []
    episode_id = None
    for path, body in (
        ("/reset", {"task_id": task}),
        ("/step", {"action": {"tool_calls": [REFUND]}}),
        ("/step", {"action": {"end": True}}),
    ):
        if episode_id:
            body["episode_id"] = episode_id
        started = time.perf_counter()
        try:
            status, answer = post(base + path, body)
        except (OSError, ValueError) as exc:
            problems.append(f"dropped: {type(exc).__name__}")
            return latencies, problems
        latencies.append(time.perf_counter() - started)
        if status != 200:
            problems.append(f"HTTP {status}: {answer.get('detail')}")
            return latencies, problems
        episode_id = answer["episode_id"]
    return latencies, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--abandoned", type=int, default=500)
    parser.add_argument("--task", default="test_case_RT001_003")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(ROOT))

    port = free_port()
    server = start_server(port, "--max-episodes", str(max(args.clients, args.abandoned) + 10), "--idle-timeout", "3")
    base = f"http://127.0.0.1:{port}"
    try:
        episode(base, args.task)  # warm up: imports, the domain's image
        warm, _ = memory(server.pid)
        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            results = list(pool.map(lambda _: episode(base, args.task), range(args.clients)))
        took = time.perf_counter() - started
        latencies = sorted(x for lat, _ in results for x in lat)
        problems = [p for _, ps in results for p in ps]
        dropped = sum(p.startswith("dropped") for p in problems)
        print(f"{args.clients} concurrent clients, 3 requests each: {took:.1f} s wall")
        print(f"  requests answered {len(latencies)}, dropped {dropped}, HTTP errors {len(problems) - dropped}")
        if latencies:
            p = statistics.quantiles(latencies, n=100)
            print(f"  latency median {p[49] * 1000:.0f} ms, p90 {p[89] * 1000:.0f} ms, p99 {p[98] * 1000:.0f} ms")
        for problem in sorted(set(problems))[:5]:
            print("  e.g.", problem)

        rss0, threads0 = memory(server.pid)
        print(
            f"resident memory {warm:.0f} MB after one episode, {rss0:.0f} MB and {threads0} threads after the "
            "clients (the request threads stay for the next burst); then, idle timeout 3 s:"
        )
        for round_ in (1, 2, 3):  # a leak grows round after round; retained memory that is reused does not
            with ThreadPoolExecutor(50) as pool:
                codes = list(
                    pool.map(lambda _: post(base + "/reset", {"task_id": args.task})[0], range(args.abandoned))
                )
            rss1, threads1 = memory(server.pid)
            time.sleep(3 + 5)  # the idle timeout, and time for the episodes to end
            rss2, threads2 = memory(server.pid)
            print(
                f"  round {round_}: {args.abandoned} abandoned resets ({codes.count(200)} answered 200): "
                f"{rss1:.0f} MB and {threads1} threads at the peak, {rss2:.0f} MB and {threads2} threads after expiry "
                f"({rss2 - rss0:+.0f} MB on the start of the rounds)"
            )
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
