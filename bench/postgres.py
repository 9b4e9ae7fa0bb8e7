"""Per-attempt provisioning on PostgreSQL: the backend's restore beside a template clone, measured.

    python bench/postgres.py [--tb-db URL] [--domain retail] [--attempts N] [--repeat K]

0. Real tasks: every task of the domain, ``--repeat`` golden attempts each,
   run by pytest in this process on PostgreSQL (``--tb-db``), with the
   backend's ``restore`` (before the task's arrange step) and ``release``
   (after its grading) timed around every attempt: what provisioning costs an
   attempt whatever its task writes, beside the whole attempt's duration.
   CPU time is this process's (the server's own CPU is not in it).
1. Restore and release, as `PostgresBackend` does them per attempt, around an
   attempt's writes (two rows updated, as the tools would): the
   release undoes the writes in place, and the next restore only ends other
   connections.
2. The same, with the database's image forgotten before each restore, so the
   restore copies the whole image in: end other connections, delete every
   row, copy the image's rows back, reset sequences, commit (what every
   restore did before undo).
3. The alternative both were chosen over: ``CREATE DATABASE ... TEMPLATE``
   from a template holding the domain's image, a first connection, and the
   ``DROP`` at the end of the attempt.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_thinkingbox.core.backends.postgres import PostgresBackend, server_url
from pytest_thinkingbox.core.backends.tracking import text_key


def show(label: str, seconds: list[float]) -> None:
    ms = sorted(x * 1000 for x in seconds)
    print(f"  {label:<52} median {statistics.median(ms):7.2f} ms   p90 {ms[int(len(ms) * 0.9)]:7.2f} ms")


def real_tasks(url: str, domain: str, repeat: int) -> None:
    """Provisioning timed around every attempt of every task of `domain`, run by pytest in this process."""
    import json
    import tempfile

    import pytest

    timed: dict[str, list[tuple[float, float]]] = {"restore": [], "release": []}
    originals = {name: getattr(PostgresBackend, name) for name in timed}

    def timer(name: str) -> Callable[..., Any]:  # a bench-only wrapper around the backend's own method
        original = originals[name]

        def wrapper(self: PostgresBackend, *args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return original(self, *args, **kwargs)
            finally:
                timed[name].append((time.perf_counter() - wall, time.process_time() - cpu))

        return wrapper

    for name in timed:
        setattr(PostgresBackend, name, timer(name))
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.jsonl"
        args = [str(root / "domains" / domain), "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--tb-db", url,
                "--tb-repeat", str(repeat), "--tb-results", str(results)]  # fmt: skip
        started, cpu = time.perf_counter(), time.process_time()
        code = pytest.main(args)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        if code != 0:
            raise SystemExit(f"pytest {' '.join(args)} exited {code}")
        records = [json.loads(line) for line in results.read_text().splitlines() if "duration_s" in line]
    for name, original in originals.items():
        setattr(PostgresBackend, name, original)
    attempts = len(records)
    print(f"{domain}: {attempts} golden attempts of real tasks on PostgreSQL ({repeat} a task), "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU in this process")  # fmt: skip
    for name, pairs in timed.items():
        show(f"{name} (wall)", [w for w, _ in pairs])
        show(f"{name} (CPU of this process)", [c for _, c in pairs])
    both = [a[0] + b[0] for a, b in zip(timed["restore"], timed["release"], strict=False)]
    show("restore + release, per attempt (wall)", both)
    show("whole attempt (duration_s)", [r["duration_s"] for r in records])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tb-db", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--domain", default="retail")
    parser.add_argument("--attempts", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3, help="golden attempts per real task (default 3)")
    args = parser.parse_args()
    real_tasks(args.tb_db, args.domain, args.repeat)
    print("the backend alone, two rows written per attempt:")
    domain = importlib.import_module(f"domains.{args.domain}").DOMAIN

    databases = PostgresBackend(args.tb_db)
    try:
        image = databases.build_image(domain.metadata, domain.seed)
        seeded = {name for name, rows in image.tables if rows}  # a table with rows and one text key
        table = next(t for t in domain.metadata.sorted_tables if t.name in seeded and text_key(t) is not None)
        key = text_key(table)

        def attempt(forget_image: bool) -> float:
            started = time.perf_counter()
            if forget_image:
                databases._restored_from.clear()  # as for a database that held another image
            session = databases.restore(image)
            for row in session.execute(select(table).limit(2)).mappings():  # written back as they were: tracked
                session.execute(table.update().where(key == row[key.name]).values(dict(row)))
            session.commit()
            databases.release(session)
            return time.perf_counter() - started

        undone = [attempt(forget_image=False) for _ in range(args.attempts)]
        copied = [attempt(forget_image=True) for _ in range(args.attempts)]

        template = databases.restore(image)  # one of the backend's databases, holding the image
        template.commit()
        name = str(template.get_bind().url.database)
        template.get_bind().dispose()  # a template must have no connections
        url = server_url(args.tb_db)
        admin = create_engine(url, isolation_level="AUTOCOMMIT").connect()
        clones = []
        for i in range(args.attempts):
            clone = f"{name}_clone{i}"
            started = time.perf_counter()
            admin.execute(text(f"CREATE DATABASE {clone} TEMPLATE {name}"))
            engine = create_engine(url.set(database=clone))
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            engine.dispose()
            admin.execute(text(f"DROP DATABASE {clone}"))
            clones.append(time.perf_counter() - started)
        admin.close()
    finally:
        databases.close()

    print(f"{args.domain}: {len(domain.metadata.tables)} tables, {args.attempts} attempts each, on {url.host}")
    show("restore + 2 rows written + release, undone in place", undone)
    show("restore + 2 rows written + release, image copied in", copied)
    show("CREATE DATABASE ... TEMPLATE + connect + DROP", clones)


if __name__ == "__main__":
    main()
