"""Attempt time against the size of the start state, measured (not asserted).

    python bench/large_tables.py [--attempts N] [--sizes 100,1000,10000,100000] [--tb-db URL]

Runs retail's ``test_case_RT003_001`` (5 golden calls, a refund and a ticket
update, with the golden agent) over a start state padded with extra rows:
half customers, half orders, bulk-inserted into the domain's image once per
size (in its seed, so the image is built once, not by factories per
attempt). Each attempt is built as the ``tb`` fixture builds it, and timed
whole: fresh backend, the task's arrange step, the episode, grading, close.
Prints the median per size and its split by stage, after a warm-up attempt
that builds the image; "golden" is the grading of the task's first attempt,
which replays the golden calls (once per task and worker).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domains.retail import DOMAIN
from domains.retail.models import Customer, Order
from domains.retail.test_refunds import test_case_RT003_001 as TASK
from pytest_thinkingbox.attempt import WorkerCache
from pytest_thinkingbox.core.backends import open_backend
from pytest_thinkingbox.roles.agents import make_agent
from pytest_thinkingbox.serve.reward import offline_harness


def padded_seed(extra: int) -> Any:
    """The retail seed, then `extra` rows: customers and one order each, in two bulk inserts."""

    def seed(db: Session) -> None:
        assert DOMAIN.seed is not None
        DOMAIN.seed(db)
        customers = extra // 2
        placed = dt.datetime(2025, 6, 1, 9, 0)
        db.execute(
            insert(Customer),
            [
                {
                    "id": f"CP-{i:06d}",
                    "name": f"Padded Customer {i}",
                    "email": f"padded{i}@example.test",
                    "phone": "555-0100",
                    "member_since": dt.date(2024, 1, 1),
                    "address_line": f"{i} Padding Street",
                    "city": "Reno",
                    "postal_code": "89501",
                }
                for i in range(customers)
            ],
        )
        db.execute(
            insert(Order),
            [
                {
                    "id": f"OP-{i:06d}",
                    "customer_id": f"CP-{i % max(customers, 1):06d}",
                    "status": "delivered",
                    "placed_at": placed,
                    "subtotal_cents": 1_000,
                    "total_cents": 1_000,
                    "ship_line": f"{i} Padding Street",
                    "ship_city": "Reno",
                    "ship_postal_code": "89501",
                }
                for i in range(extra - customers)
            ],
        )

    return seed


def attempt_times(cache: WorkerCache, domain: Any, attempts: int) -> list[tuple[float, dict[str, float]]]:
    """Whole-attempt seconds and the stage split of a task's first attempt, then of `attempts` more.

    A warm-up attempt builds the image (and hashes it) first. The golden end
    state it cached is then forgotten, so the first attempt reported replays
    the golden calls as each task's first attempt on a worker does.
    """
    out = []
    for number in range(attempts + 2):
        if number == 1:
            cache.golden.clear()
        started = time.perf_counter()
        attempt = offline_harness(lambda context: make_agent("golden", context), cache=cache).attempt(
            "RT003_001", number + 1, domain
        )
        try:
            TASK(attempt)
        finally:
            attempt.close()
        if number:
            out.append((time.perf_counter() - started, dict(attempt.result.timing)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=30, help="timed attempts per size (default 30)")
    parser.add_argument("--sizes", default="100,1000,10000,100000", help="extra rows per start state")
    parser.add_argument("--tb-db", metavar="URL", help="run on this PostgreSQL server instead of SQLite in memory")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    medians = {}
    header = ("extra rows", "attempt", "setup", "arrange", "episode", "grade", "golden")
    print(f"{header[0]:>10}  {header[1]:>9}  " + "  ".join(f"{h:>8}" for h in header[2:]) + "  (medians, ms)")
    for size in sizes:
        cache = WorkerCache(databases=open_backend(args.tb_db))
        try:
            domain = replace(DOMAIN, name=f"retail+{size}", seed=padded_seed(size))
            (_, first), *times = attempt_times(cache, domain, args.attempts)
        finally:
            cache.close()
        medians[size] = statistics.median(t for t, _ in times)
        stages = [statistics.median(split.get(stage, 0.0) for _, split in times) * 1000 for stage in STAGES]
        stages.append(first["grade_s"] * 1000)  # a task's first attempt grades with the golden replay
        print(f"{size:>10}  {medians[size] * 1000:>9.2f}  " + "  ".join(f"{ms:>8.2f}" for ms in stages))
    if len(sizes) > 1:
        print(f"time at {sizes[-1]} rows / time at {sizes[0]} rows: {medians[sizes[-1]] / medians[sizes[0]]:.2f}x")


STAGES = ("setup_s", "arrange_s", "run_s", "grade_s")

if __name__ == "__main__":
    main()
