"""The bundled domains' tools find rows through indexes, so an attempt's time does not grow with the tables.

A tool that reads one customer's orders scans every order when
``orders.customer_id`` has no index: on a start state of 100,000 rows that
made retail's episodes four times slower (bench/large_tables.py). Two
checks: every foreign key leads an index (the schema), and the statements
the tools issue in real attempts are searches, not scans (SQLite's query
plans), except for the listings that return a whole catalogue by design.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.orm import DeclarativeBase

from pytest_thinkingbox.attempt import WorkerCache
from pytest_thinkingbox.roles.agents import make_agent
from pytest_thinkingbox.serve.reward import offline_harness

DOMAINS_DIR = Path(__file__).resolve().parent.parent / "domains"
DOMAINS = sorted(p.name for p in DOMAINS_DIR.iterdir() if (p / "policy.md").exists())
TOOL_FILES = {str(p) for p in (*DOMAINS_DIR.glob("*/tools.py"), *(DOMAINS_DIR / "shared").glob("*.py"))}

#: (table, tool) pairs that read a whole table on purpose: catalogue listings and a substring search.
WHOLE_TABLE = {
    ("internal_systems", "list_systems"),
    ("hardware_models", "list_hardware_catalogue"),
    ("software", "list_software"),
    ("resources", "list_resources"),  # with no kind given it lists every resource
    ("employees", "search_employees"),  # a name fragment anywhere in the name: no index serves it
}


def _models(domain: str) -> type[DeclarativeBase]:
    return importlib.import_module(f"domains.{domain}.models").Base


def _leading_columns(table: Any) -> set[tuple[str, ...]]:
    """Every column list an index, the primary key or a unique constraint of `table` starts with."""
    led: set[tuple[str, ...]] = set()
    sequences = [list(table.primary_key.columns)]
    sequences += [list(index.columns) for index in table.indexes]
    sequences += [list(c.columns) for c in table.constraints if c.__class__.__name__ == "UniqueConstraint"]
    sequences += [[column] for column in table.columns if column.unique]
    for columns in sequences:
        names = tuple(str(c.name) for c in columns)
        led.update(names[:n] for n in range(1, len(names) + 1))
    return led


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_foreign_key_of_a_bundled_domain_leads_an_index(domain):
    unindexed = []
    for table in _models(domain).metadata.sorted_tables:
        led = _leading_columns(table)
        for key in table.foreign_key_constraints:
            columns = tuple(str(c.name) for c in key.columns)
            if columns not in led:
                unindexed.append(f"{table.name}.{', '.join(columns)}")
    assert not unindexed, f"add index=True to these foreign keys of domains/{domain}/models.py: {unindexed}"


def _tool_frame(frame: FrameType | None) -> FrameType | None:
    while frame is not None and frame.f_code.co_filename not in TOOL_FILES:
        frame = frame.f_back
    return frame


@pytest.fixture
def scans() -> Iterator[list[tuple[str, str, str]]]:
    """(table, tool, statement) of every full scan in the query plans of statements the domain tools issue."""
    found: list[tuple[str, str, str]] = []

    def explain(connection: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        tool = _tool_frame(sys._getframe(1))
        if many or tool is None or connection.dialect.name != "sqlite":
            return
        plan = connection.connection.driver_connection.execute(f"EXPLAIN QUERY PLAN {statement}", parameters or ())
        for *_, detail in plan:
            scanned = re.match(r"SCAN (\w+)", detail)
            if scanned and not scanned[1].startswith("_tb_"):  # the change tracking's own tables
                found.append((scanned[1], tool.f_code.co_name, statement))

    event.listen(Engine, "before_cursor_execute", explain)
    try:
        yield found
    finally:
        event.remove(Engine, "before_cursor_execute", explain)


def _first_task_of_each_module(domain: str) -> Iterator[tuple[str, Any]]:
    for path in sorted((DOMAINS_DIR / domain).glob("test_*.py")):
        module = importlib.import_module(f"domains.{domain}.{path.stem}")
        tasks = sorted((n, f) for n, f in inspect.getmembers(module, inspect.isfunction) if n.startswith("test_case_"))
        yield tasks[0]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_tools_search_tables_rather_than_scan_them(domain, scans):
    cache = WorkerCache()
    package = importlib.import_module(f"domains.{domain}")
    ran = 0
    try:
        for name, task in _first_task_of_each_module(domain):
            harness = offline_harness(lambda context: make_agent("golden", context), cache=cache)
            attempt = harness.attempt(name, 1, package.DOMAIN)
            try:
                task(attempt)
            finally:
                attempt.close()
            ran += 1
    finally:
        cache.close()
    assert ran >= 5
    unexpected = sorted({(table, tool, sql) for table, tool, sql in scans if (table, tool) not in WHOLE_TABLE})
    assert not unexpected, "index the columns these statements filter or join on:\n" + "\n".join(
        f"{tool} scans {table}: {' '.join(sql.split())[:300]}" for table, tool, sql in unexpected
    )
