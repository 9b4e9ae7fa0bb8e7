"""pytest-thinkingbox: test tool-using agents by the records they leave behind.

Task authors use `User`, `call` and `derived`. Domain authors use `Domain`,
`volatile`, `ToolSet`, `ToolFailure` and its error codes, `Factory`,
`current_session` and the row helpers `get_or_fail`, `rows_where`, `next_id`, `row_dict`; they write their
policy's rules with `Rules`, `Evidence` and `Violation`.
Agent authors use `AgentView` and `AgentStep`; judge authors `Verdict`; trainers use `reward`.
`Attempt` is the `tb` fixture's type and `Run` what `tb.run` returns. Errors: `ThinkingboxError` is the root;
`TaskDefinitionError` (a task or domain is wrong) and `HarnessError` (the harness or an endpoint failed, never
the agent's fault) are what callers catch.
Heavy modules load on first use, so importing this package (as the pytest
plugin does) costs nothing.

The package is layered (see docs/architecture.md): `core` (tasks, domains,
tools, state, episodes; no pytest), `roles` (agents, users, judges, model
endpoints), `attempt` (one attempt of one task), `campaign` (results files and
their figures), `serve` (reward, environment and model servers), `plugin`
(pytest hooks and fixtures) and `cli`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .core.bundle import __version__
from .core.task import Call, User, call, derived

__all__ = [
    "CONFLICT",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "PRECONDITION_FAILED",
    "AgentStep",
    "AgentView",
    "Attempt",
    "Call",
    "Domain",
    "Evidence",
    "Factory",
    "HarnessError",
    "Rules",
    "Run",
    "TaskDefinitionError",
    "ThinkingboxError",
    "ToolFailure",
    "ToolSet",
    "User",
    "Verdict",
    "Violation",
    "__version__",
    "call",
    "current_session",
    "derived",
    "get_or_fail",
    "next_id",
    "reward",
    "row_dict",
    "rows_where",
    "volatile",
]

_LAZY = {
    "Domain": "core.domain",
    "volatile": "core.domain",
    "get_or_fail": "core.domain",
    "next_id": "core.domain",
    "row_dict": "core.domain",
    "rows_where": "core.domain",
    "Rules": "core.rules",
    "Evidence": "core.rules",
    "Violation": "core.rules",
    "ToolSet": "core.tools",
    "ToolFailure": "core.tools",
    "NOT_FOUND": "core.tools",
    "INVALID_ARGUMENT": "core.tools",
    "PRECONDITION_FAILED": "core.tools",
    "CONFLICT": "core.tools",
    "Factory": "core.factories",
    "current_session": "core.backends.base",
    "AgentStep": "core.episode",
    "AgentView": "core.episode",
    "reward": "serve.reward",
    "Verdict": "roles.judge",
    "Attempt": "attempt",
    "Run": "attempt",
    "ThinkingboxError": "core.errors",
    "TaskDefinitionError": "core.errors",
    "HarnessError": "core.errors",
}

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .attempt import Attempt, Run
    from .core.backends.base import current_session
    from .core.domain import Domain, get_or_fail, next_id, row_dict, rows_where, volatile
    from .core.episode import AgentStep, AgentView
    from .core.errors import HarnessError, TaskDefinitionError, ThinkingboxError
    from .core.factories import Factory
    from .core.rules import Evidence, Rules, Violation
    from .core.tools import CONFLICT, INVALID_ARGUMENT, NOT_FOUND, PRECONDITION_FAILED, ToolFailure, ToolSet
    from .roles.judge import Verdict
    from .serve.reward import reward


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
