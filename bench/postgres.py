"""Per-attempt provisioning on PostgreSQL: the backend's restore beside a template clone, measured.

    python bench/postgres.py [--tb-db URL] [--domain retail] [--attempts N]

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
from pathlib import Path

from sqlalchemy import create_engine, select, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_thinkingbox.core.backends.postgres import PostgresBackend, server_url
from pytest_thinkingbox.core.backends.tracking import text_key


def show(label: str, seconds: list[float]) -> None:
    ms = sorted(x * 1000 for x in seconds)
    print(f"  {label:<52} median {statistics.median(ms):7.2f} ms   p90 {ms[int(len(ms) * 0.9)]:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tb-db", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--domain", default="retail")
    parser.add_argument("--attempts", type=int, default=30)
    args = parser.parse_args()
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
