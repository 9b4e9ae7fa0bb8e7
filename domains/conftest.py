"""What every bundled domain shares in pytest: its `tb_domain` fixture, and markers to select tasks by.

Each task is marked with its domain (``retail``), its family (``RT003``) and
the kinds of ending its golden path has, read from the literal golden calls in
its source: ``write`` (it changes business records), ``refusal`` (a ticket
solved with a reason), ``hold``, ``pending`` and ``escalation`` (a ticket sent
to a queue); a task with two requests can have several. ``pytest domains -m "retail and refusal"``
selects by them.

Tasks also declare what makes their scenario hard with the plugin's trait
markers (``two_requests``, ``distractors``, ``pushback``), which are not
visible in their calls.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
DOMAINS = sorted(p.name for p in HERE.iterdir() if (p / "policy.md").exists())
KINDS = {
    "write": "the golden path changes business records (not only tickets)",
    "refusal": "the golden path refuses something: a ticket solved with a reason",
    "hold": "the golden path puts a ticket on hold",
    "pending": "the golden path leaves a ticket pending",
    "escalation": "the golden path sends a ticket to a team's queue",
}
TICKET_TOOLS = {"create_ticket", "update_ticket", "add_ticket_comment"}
_TASK = re.compile(r"^def (test_case_([A-Z]{2}\d{3})_\d{3})\(", re.M)


@pytest.fixture(scope="module")
def tb_domain(request: pytest.FixtureRequest):
    """The domain of the bundled package a task lives in: its ``DOMAIN`` (models, tools, policy, clock)."""
    return importlib.import_module(request.module.__package__).DOMAIN


def pytest_configure(config: pytest.Config) -> None:
    for name in DOMAINS:
        config.addinivalue_line("markers", f"{name}: a task of the bundled {name} domain")
    for family in sorted({m[2] for path in HERE.glob("*/test_*.py") for m in _TASK.finditer(path.read_text())}):
        config.addinivalue_line("markers", f"{family}: a task of family {family}")
    for kind, what in KINDS.items():
        config.addinivalue_line("markers", f"{kind}: {what}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not isinstance(item, pytest.Function) or not item.name.startswith("test_case_"):
            continue
        domain = item.path.parent.name
        if domain not in DOMAINS:
            continue
        family = item.originalname.split("_")[2]
        for name in (domain, family, *kinds(item.function)):
            item.add_marker(_mark(name))


@cache
def _mark(name: str) -> pytest.MarkDecorator:
    """One decorator per marker name, for every item it marks (20 attempts per task, hundreds of tasks)."""
    return getattr(pytest.mark, name)


def kinds(function: Any) -> tuple[str, ...]:
    """The kinds of ending of a task, from the literal golden calls in its source."""
    return module_kinds(function.__module__).get(function.__name__, ())


@cache
def module_kinds(module_name: str) -> dict[str, tuple[str, ...]]:
    """The kinds of ending of every task of a module, by name: one parse per module, not one per task."""
    module = importlib.import_module(module_name)
    writes = set(importlib.import_module(module_name.rsplit(".", 1)[0]).DOMAIN.tools.writes())
    tree = ast.parse(inspect.getsource(module))
    return {
        node.name: _kinds_of(node, writes)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_case_")
    }


def _kinds_of(task: ast.FunctionDef, writes: set[str]) -> tuple[str, ...]:
    found: set[str] = set()
    business = False
    for node in ast.walk(task):
        if not (isinstance(node, ast.keyword) and node.arg == "golden"):
            continue
        for c in ast.walk(node.value):
            if not (isinstance(c, ast.Call) and getattr(c.func, "id", None) == "call" and c.args):
                continue
            tool = c.args[0].value if isinstance(c.args[0], ast.Constant) else None
            arguments = {k.arg: k.value.value for k in c.keywords if isinstance(k.value, ast.Constant)}
            business |= tool in writes and tool not in TICKET_TOOLS
            status = arguments.get("status")
            if status in ("hold", "pending"):
                found.add(str(status))
            if arguments.get("queue"):
                found.add("escalation")
            if status == "solved" and arguments.get("reason"):
                found.add("refusal")
    if business:
        found.add("write")
    return tuple(sorted(found))
