"""What every bundled domain shares in pytest: markers to select tasks by. (Each task's domain is the
``DOMAIN`` its package exports, which the plugin's own ``tb_domain`` finds.)

Each task is marked with its domain (``retail``) and its family (``RT003``).
When the ``-m`` expression names a kind of ending, each task is also marked
with the kinds its golden path has, read from its golden calls (its arrange
step runs up to ``tb.run``, nothing more, a few milliseconds a task):
``write`` (it changes business records), ``refusal`` (a ticket solved with a
reason), ``hold``, ``pending`` and ``escalation`` (a ticket sent
to a queue); a task with two requests can have several. ``pytest domains -m "retail and refusal"``
selects by them.

Tasks also declare what makes their scenario hard with the plugin's trait
markers (``two_requests``, ``distractors``, ``pushback``), which are not
visible in their calls.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pytest_thinkingbox.core.catalog import domain_of, family_of, load
from pytest_thinkingbox.core.task import Call

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


def pytest_configure(config: pytest.Config) -> None:
    for name in DOMAINS:
        config.addinivalue_line("markers", f"{name}: a task of the bundled {name} domain")
    for kind, what in KINDS.items():
        config.addinivalue_line("markers", f"{kind}: {what}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    by_kind = any(kind in (config.option.markexpr or "") for kind in KINDS)
    families: set[str] = set()
    for item in items:
        if not isinstance(item, pytest.Function) or not item.name.startswith("test_case_"):
            continue
        domain = item.path.parent.name
        if domain not in DOMAINS:
            continue
        family = family_of(item.originalname)
        if family not in families and family is not None:
            families.add(family)
            config.addinivalue_line("markers", f"{family}: a task of family {family}")
        names = [domain, family] if family else [domain]
        if by_kind:
            names += kinds(item.originalname)
        for name in names:
            item.add_marker(_mark(name))


@cache
def _mark(name: str) -> pytest.MarkDecorator:
    """One decorator per marker name, for every item it marks (20 attempts per task, hundreds of tasks)."""
    return getattr(pytest.mark, name)


@cache
def kinds(task_id: str) -> tuple[str, ...]:
    """The kinds of ending of a bundled task, from the golden calls its `tb.run` is given."""
    from pytest_thinkingbox.serve.reward import offline_harness

    entry = load(HERE)[task_id]
    brief = offline_harness(lambda context: None).brief(entry)
    return kinds_of(brief.golden, set(domain_of(entry).tools.writes())) if brief else ()


def kinds_of(golden: tuple[Call, ...], writes: set[str]) -> tuple[str, ...]:
    """The kinds of ending of a golden path, given its domain's write tools."""
    found: set[str] = set()
    for c in golden:
        if c.tool in writes and c.tool not in TICKET_TOOLS:
            found.add("write")
        status = c.arguments.get("status")
        if status in ("hold", "pending"):
            found.add(str(status))
        if c.arguments.get("queue"):
            found.add("escalation")
        if status == "solved" and c.arguments.get("reason"):
            found.add("refusal")
    return tuple(sorted(found))
