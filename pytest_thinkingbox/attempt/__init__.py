"""One attempt of one task, made through the `Harness`.

`harness.py` makes attempts; `attempt.py` is the attempt itself (`tb`);
`result.py` what it gives back (`Run`, `AttemptResult`, `TaskBrief`);
`worker.py` what a worker keeps across attempts; `early.py` episodes started
before their test's turn (``--tb-concurrency``).
"""

from .attempt import Attempt, agent_label
from .early import EarlyEpisode, PreparedStart, StartedEarly
from .harness import Harness, Roles
from .result import AttemptResult, Captured, RubricAnswer, Run, TaskBrief
from .worker import ArrangedStart, GoldenEnd, WorkerCache

__all__ = [
    "ArrangedStart",
    "Attempt",
    "AttemptResult",
    "Captured",
    "EarlyEpisode",
    "GoldenEnd",
    "Harness",
    "PreparedStart",
    "Roles",
    "RubricAnswer",
    "Run",
    "StartedEarly",
    "TaskBrief",
    "WorkerCache",
    "agent_label",
]
