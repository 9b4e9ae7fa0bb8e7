"""The attempt record: the one type a results file's attempt lines have, from the plugin that writes them
to every report that reads them.

A record stays a JSON object (a `TypedDict`, not a class) because that is what
the file holds and what xdist carries from a worker: reading a campaign of
12,000 attempts builds no objects twice. Its fields are read-only for type
checkers, so a report cannot change a record it was given (it makes a new one).

Only ``task``, ``attempt`` and ``outcome`` are sure to be there: an attempt
whose setup failed, or whose worker died, has no episode fields; files written
by earlier versions lack the newer fields. Readers use ``.get`` for the rest.

`RECORD_VERSION` is written in every manifest line. Version 1 is every file
written before the manifest said (its records read as version 2 ones); version
3 added ``regrade`` (a record of ``thinkingbox regrade``) and the model cache's
``cache_hit*`` usage counts, both absent from older files; a file of a later
version than this code knows is refused by name, not half read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, final

from typing_extensions import ReadOnly, TypedDict

if TYPE_CHECKING:
    from ..attempt import AttemptResult

RECORD_VERSION = 3
VIOLATIONS_KEPT = 50  # a record names every rule broken, and the first rows that broke them

Outcome = Literal["passed", "failed", "error"]


class RecordedError(TypedDict):
    """Why an attempt ended in a system error: the stage (setup, agent, user, judge, worker...), type, message."""

    stage: ReadOnly[str]
    type: ReadOnly[str]
    message: ReadOnly[str]


@final  # no other keys: `"manifest" in line` tells a manifest line from a record
class AttemptRecord(TypedDict):
    """One attempt as a results file keeps it (`plugin/outcomes.py` writes the fields, in this order)."""

    task: ReadOnly[str]
    attempt: ReadOnly[int]
    outcome: ReadOnly[Outcome]
    # Who and what ran it.
    domain: ReadOnly[NotRequired[str | None]]
    nodeid: ReadOnly[NotRequired[str]]
    agent: ReadOnly[NotRequired[str]]
    user: ReadOnly[NotRequired[str]]
    judge: ReadOnly[NotRequired[str]]
    seed: ReadOnly[NotRequired[int]]
    markers: ReadOnly[NotRequired[list[str]]]
    # What the end state and the episode came to.
    wrong: ReadOnly[NotRequired[int]]
    missing: ReadOnly[NotRequired[int]]
    extra: ReadOnly[NotRequired[int]]
    tool_calls: ReadOnly[NotRequired[int]]
    tool_errors: ReadOnly[NotRequired[int]]
    rules_broken: ReadOnly[NotRequired[list[str]]]
    transcript: ReadOnly[NotRequired[list[dict[str, Any]]]]
    usage: ReadOnly[NotRequired[dict[str, dict[str, int]]]]
    timing: ReadOnly[NotRequired[dict[str, float]]]
    start_hash: ReadOnly[NotRequired[str]]
    end_hash: ReadOnly[NotRequired[str]]
    golden_hash: ReadOnly[NotRequired[str | None]]
    end_reason: ReadOnly[NotRequired[str]]
    steps: ReadOnly[NotRequired[int]]
    turns: ReadOnly[NotRequired[int]]
    fault: ReadOnly[NotRequired[str | None]]
    differences: ReadOnly[NotRequired[list[dict[str, Any]]]]  # core.state.Difference.as_dict()
    violations: ReadOnly[NotRequired[list[dict[str, Any]]]]  # core.rules.Violation.as_dict(), the first 50
    rubric: ReadOnly[NotRequired[list[dict[str, Any]]]]  # attempt.RubricAnswer fields
    validation: ReadOnly[NotRequired[dict[str, Any]]]  # --tb-validate's verdict, on first attempts
    error: ReadOnly[NotRequired[RecordedError | None]]
    failure: ReadOnly[NotRequired[str | None]]  # the first lines of the assertion that failed
    # Added by the controller when it writes the record (`plugin.outcomes.finished_record`).
    duration_s: ReadOnly[NotRequired[float]]
    run: ReadOnly[NotRequired[str]]
    bundle: ReadOnly[NotRequired[str]]
    signature: ReadOnly[NotRequired[str | None]]
    # Only in a file written by `thinkingbox regrade` (`serve/regrade.py`).
    regrade: ReadOnly[NotRequired[Regrade]]


class Regrade(TypedDict):
    """How a regrade came to a record: ``regraded`` (replayed and graded by the current checks), ``diverged``
    (a tool result differed from the recorded one: an error record, never graded) or ``kept`` (a system error,
    not replayed); the outcome the original run gave it; and, when diverged, where."""

    status: ReadOnly[Literal["regraded", "diverged", "kept"]]
    was: ReadOnly[Outcome]
    divergence: ReadOnly[NotRequired[str]]


def result_fields(result: AttemptResult) -> dict[str, Any]:
    """The fields of a record that come from what its attempt did, in the order the file keeps them: the
    counts, the transcript and usage, and, once the episode ended, the end state's. `plugin/outcomes.py` writes
    them for a campaign, `serve/regrade.py` for a regrade."""
    differences = result.differences
    fields: dict[str, Any] = {
        "wrong": sum(d.kind == "wrong" for d in differences),
        "missing": sum(d.kind == "missing" for d in differences),
        "extra": sum(d.kind == "extra" for d in differences),
        "tool_calls": result.tool_calls,
        "tool_errors": result.tool_errors,
        "rules_broken": result.rules_broken,
    }
    if result.transcript is not None:
        fields["transcript"] = list(result.transcript)
    if result.usage:
        fields["usage"] = dict(result.usage)
    if result.ended:
        fields.update(
            timing=dict(result.timing),
            start_hash=result.start_hash,
            end_hash=result.end_hash,
            golden_hash=result.golden_hash,
            end_reason=result.end_reason,
            steps=result.steps,
            turns=result.turns,
            fault=result.fault,
            differences=[d.as_dict() for d in differences],
            violations=[v.as_dict() for v in result.violations[:VIOLATIONS_KEPT]],
        )
    if result.rubric:
        fields["rubric"] = [vars(v).copy() for v in result.rubric]
    return fields
