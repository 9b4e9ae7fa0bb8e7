"""Pass, fail or error: how an attempt's exception becomes its outcome.

An attempt passes when the test returns; an `AssertionError` is the agent's
failure; a `ThinkingboxError` (harness, endpoint or task definition) and any
other exception raised by the task's own code are errors, never counted as the
agent's failure in diagnostics.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..core.errors import ThinkingboxError
from .options import agent_name, role_name

#: The per-attempt record, kept on the item until the report carries it.
RECORD = pytest.StashKey[dict[str, Any]]()

PASSED, FAILED, ERROR = "passed", "failed", "error"


def classify(excinfo: pytest.ExceptionInfo[BaseException] | None, stage: str = "task") -> dict[str, Any]:
    """The outcome fields of a record for an attempt phase that raised `excinfo` (or not)."""
    if excinfo is None:
        return {"outcome": PASSED, "error": None, "failure": None}
    exc = excinfo.value
    if isinstance(exc, AssertionError):
        return {"outcome": FAILED, "error": None, "failure": _first_lines(str(exc))}
    kind = type(exc).__name__
    if isinstance(exc, ThinkingboxError):
        stage = getattr(exc, "stage", stage)
        if exc.__cause__ is not None:  # the endpoint's or the harness part's own error says more
            kind = type(exc.__cause__).__name__
    return {
        "outcome": ERROR,
        "error": {"stage": stage, "type": kind, "message": _first_lines(str(exc))},
        "failure": None,
    }


def _first_lines(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


def item_key(item: pytest.Item) -> tuple[str, int]:
    """The (task, attempt) an item runs: the key of its record."""
    callspec = getattr(item, "callspec", None)
    return getattr(item, "originalname", item.name), callspec.params.get("_tb_attempt", 1) if callspec else 1


def new_record(item: pytest.Item, domain: str | None = None) -> dict[str, Any]:
    """The record of one attempt before it runs: which task and attempt, and zero counts.

    The `tb` fixture makes it at setup (with the domain); an attempt whose setup
    failed before that gets one from the report hook, so no attempt goes unrecorded.
    """
    task, attempt = item_key(item)
    return {
        "task": task,
        "domain": domain,
        "attempt": attempt,
        "nodeid": item.nodeid,
        "agent": agent_name(item.config),
        "user": role_name(item.config, "user"),
        "judge": role_name(item.config, "judge"),
        "seed": item.config.getoption("tb_seed"),
        "markers": sorted({m.name for m in item.iter_markers()} - {"parametrize"}),
        "wrong": 0,
        "missing": 0,
        "extra": 0,
        "tool_calls": 0,
        "tool_errors": 0,
    }
