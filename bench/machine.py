"""How fast this machine runs our kind of Python right now: one fixed workload, timed.

    python bench/machine.py

The two-core machines the benches run on are shared, and their speed drifts
by tens of percent from one day to the next: the same commit measured a
harness overhead of 7.99 ms per attempt one day and 11.26 ms the next. Every
bench that reports CPU-bound figures prints this reference beside them (at its
start and at its end, as speed drifts within a long run too). To compare two
days' figures, scale them by the ratio of the two days' references. Being
the quickest of a few short runs, it measures the machine, not bursts of
contention during a long run: repeat a bench (``--sweep-rounds``) for those.

The workload is what an attempt's CPU goes to, in miniature and without the
project's code (so a change to the project never moves it): objects with
attributes, dicts, small function calls, JSON encoding and decoding, and an
in-memory SQLite database written and read through its cursor.
"""

from __future__ import annotations

import json
import sqlite3
import time

ROUNDS = 5


class _Row:
    __slots__ = ("amount", "id", "note", "status")

    def __init__(self, id: int, status: str, amount: int, note: str) -> None:
        self.id, self.status, self.amount, self.note = id, status, amount, note

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "status": self.status, "amount": self.amount, "note": self.note}


def _workload() -> int:
    rows = [_Row(i, ("open", "hold", "solved")[i % 3], i * 7, f"note {i}") for i in range(20_000)]
    encoded = [json.dumps(r.as_dict()) for r in rows]
    total = sum(json.loads(text)["amount"] for text in encoded)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT, amount INTEGER, note TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", ((r.id, r.status, r.amount, r.note) for r in rows))
    for i in range(0, 20_000, 10):
        total += db.execute("SELECT amount FROM t WHERE id = ?", (i,)).fetchone()[0]
    db.close()
    return total


def reference_ms(rounds: int = ROUNDS) -> float:
    """The quickest of `rounds` runs of the workload, in milliseconds (noise only ever slows a run down)."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        _workload()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def reference_line(when: str) -> str:
    return f"machine reference {when}: {reference_ms():.0f} ms (bench/machine.py; lower is faster)"


if __name__ == "__main__":
    print(reference_line("now"))
