"""One root for every error the harness raises, split by who has to act.

* `TaskDefinitionError`: the task itself is wrong (a bad golden call, `tb.run`
  twice). The author of the test fixes it; the attempt is reported as an error.
* `HarnessError`: the harness or a model endpoint failed (backend, tools,
  simulated user). Kept apart from agent failures and re-runnable.
  `EndpointError` is the endpoint's kind: its message says all, so reports
  show no traceback.
* Bad input elsewhere has its own subclass, named where it is raised:
  `ReportError` (results files), `CliError` (the command line), `PostgresError`
  (a server that cannot serve the run), `MalformedResponse` (an endpoint's
  unusable answer, retried and then raised as a `HarnessError`).

A failed check is never one of these: it is a plain `AssertionError`.
"""

from __future__ import annotations


class ThinkingboxError(Exception):
    """Base class of all pytest-thinkingbox errors."""


class TaskDefinitionError(ThinkingboxError):
    """A task is written wrongly; the message names the task and what to fix."""

    stage = "task"


class HarnessError(ThinkingboxError):
    """The harness or an endpoint failed; not the agent's fault.

    Args:
        stage: where it happened: ``backend``, ``tools``, ``agent``, ``user`` or ``judge``.
        message: what happened, naming the option or call that fixes it when one does.
    """

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(message)
        self.stage = stage


class EndpointError(HarnessError):
    """A model endpoint failed after its retries, or is down. The message names the role, model,
    endpoint, retries and cause; the traceback (through the HTTP client) adds nothing, so reports omit it."""
