"""A finished campaign graded again by the current checks, from its records alone (``thinkingbox regrade``).

Each recorded attempt is replayed on a fresh backend through the one harness
entry (as `reward` replays a trajectory): the task's current code arranges its
rows and states its golden calls, an agent plays the recorded steps (tool
calls and messages) in order, a user plays the recorded user turns, and the
task's checks, the domain's rules and the judge (the phrase judge, or the
run's model judge, through the model cache when one is given) grade the end
state. No model plays the agent or the user, so nothing but an uncached judge
needs an endpoint.

The replay is only the agent's attempt again if the world answered it as it
did then: if a tool result (or the opening message) differs from the recorded
one, the agent might have acted otherwise, so the attempt is `diverged`: its
record becomes a system error of the ``regrade`` stage, counted apart from
graded attempts and never given the replay's verdict. System errors of the
original run are kept as they were (there is no finished episode to replay).
The new file keeps the run's id, bundle and manifest, and says in its manifest
and in every record that it is a regrade (`attempt_record.Regrade`).
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ..attempt import Harness, Roles, WorkerCache
from ..campaign.attempt_record import RECORD_VERSION, AttemptRecord, result_fields
from ..campaign.records import Campaign, ReportError, load
from ..campaign.signatures import signature
from ..campaign.writer import ResultsWriter
from ..core.catalog import TaskEntry, bundled_root, domain_of
from ..core.catalog import load as load_tasks
from ..core.episode import AgentStep, InvalidCall, Limits, UserTurn
from ..core.errors import ThinkingboxError
from ..core.task import Call, User
from ..roles.cache import CacheSettings, attempt_scope, in_attempt
from ..roles.config import PREFIX, Config, ModelConfig, with_cache
from ..roles.endpoint import parse_arguments

#: The fields a regrade gives anew; every other field of a record is the original run's.
VERDICT = ("wrong", "missing", "extra", "tool_calls", "tool_errors", "rules_broken", "start_hash", "end_hash",
           "golden_hash", "differences", "violations", "rubric")  # fmt: skip


@dataclass
class RegradeSummary:
    """What a regrade came to, for the terminal."""

    run: str
    out: Path
    regraded: int = 0
    diverged: int = 0
    kept: int = 0  # system errors of the original run, copied
    flipped: list[tuple[str, int, str, str]] = field(default_factory=list)  # (task, attempt, was, now)
    requests: int = 0  # model requests the judge made (0: cached or offline)

    def lines(self) -> list[str]:
        changed = {(was, now) for _, _, was, now in self.flipped}
        counts = ", ".join(
            f"{sum(1 for f in self.flipped if (f[2], f[3]) == pair)} {pair[0]} -> {pair[1]}" for pair in sorted(changed)
        )
        lines = [
            f"regrade of run {self.run}: {self.regraded} attempts regraded, {len(self.flipped)} of them changed "
            f"their verdict{f' ({counts})' if counts else ''}",
            f"  {self.diverged} diverged (a tool result differs from the recorded one): counted apart as system "
            "errors of the regrade stage, not graded; their tasks need the agent again (a new campaign)",
            f"  {self.kept} system errors of the original run kept as they were",
        ]
        for task, attempt, was, now in self.flipped[:20]:
            lines.append(f"    {task} attempt {attempt}: {was} -> {now}")
        if len(self.flipped) > 20:
            lines.append(f"    ... {len(self.flipped) - 20} more")
        lines.append(f"  judge requests made: {self.requests}; written to {self.out}")
        return lines


def regrade(
    results: Path,
    out: Path,
    *,
    root: Path | None = None,
    models: Config | None = None,
    cache: CacheSettings | None = None,
) -> RegradeSummary:
    """Replay and grade again every attempt of the run in `results`, writing the new records to `out`.

    Args:
        root: where the tasks are (default: `bundled_root`).
        models: a model configuration whose ``judge`` serves the rubric questions (default: the run's).
        cache: the model cache the judge reads (and fills).
    """
    runs = load([results], allow_mixed_bundles=True)
    if len(runs) != 1 or not runs[0].records:
        found = ", ".join(run.id for run in runs) or "none"
        raise ReportError(f"{results}: regrade takes a results file of one run with attempt records, found {found}")
    run = runs[0]
    root = Path(root or bundled_root())
    entries = _entries(run, root)
    worker = WorkerCache()
    make_judge, judge_name = _judge(run, worker, models, cache)
    summary = RegradeSummary(run.id, out)
    manifest = _manifest(run, results, root, judge_name)
    writer = ResultsWriter(out)
    try:
        writer.write({"manifest": manifest})
        for record in run.records:
            writer.write(_regraded(record, entries.get(record["task"]), worker, make_judge, judge_name, summary))
    finally:
        writer.close()
        judge = worker.endpoints.get("judge")
        if judge is not None:
            worker.runner.run(judge.aclose())
        worker.close()
    return summary


def _entries(run: Campaign, root: Path) -> dict[str, TaskEntry]:
    """The tasks of the run's records, from the catalog; a task that no longer exists is named, with its record."""
    try:
        tasks = load_tasks(root.resolve())
    except (LookupError, ImportError, SyntaxError) as exc:
        raise ReportError(f"--root {root}: the tasks cannot be loaded ({type(exc).__name__}: {exc})") from None
    for record, where in zip(run.records, run.where, strict=True):
        if record["outcome"] != "error" and record["task"] not in tasks:
            raise ReportError(
                f"{where}: task {record['task']} no longer exists under {root}; regrade the run where its tasks "
                "are (--root DIR)"
            )
    return tasks


def _judge(
    run: Campaign, worker: WorkerCache, models: Config | None, cache: CacheSettings | None
) -> tuple[Callable[[], Any], str]:
    """How the rubric questions are answered: the run's judge, a model one from `models` or the manifest."""
    name = (run.manifest or {}).get("judge") or run.records[0].get("judge") or "phrases"
    if not name.startswith(PREFIX):
        from ..roles.judge import PhraseJudge

        return PhraseJudge, name
    config = (models.roles.get("judge") if models else None) or _manifest_judge(run)
    worker.models = with_cache(Config(roles={"judge": config}), cache)
    endpoint = worker.endpoint("judge")
    from ..roles.judge import LLMJudge

    return (lambda: LLMJudge(endpoint)), f"{PREFIX}{config.model}"


def _manifest_judge(run: Campaign) -> ModelConfig:
    public = ((run.manifest or {}).get("models") or {}).get("judge")
    if not isinstance(public, dict) or not public.get("model"):
        raise ReportError(
            f"{run.describe()}: the run's judge is a model its manifest does not describe; name it with --config"
        )
    return ModelConfig(**public)


def _manifest(run: Campaign, results: Path, root: Path, judge: str) -> dict[str, Any]:
    from ..core.bundle import bundle_hash, bundle_roots

    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    current = bundle_hash(bundle_roots([str(root)], Path.cwd()))
    regraded = {"of": str(results), "bundle": current, "judge": judge, "at": now}
    return {**(run.manifest or {"run": run.id}), "record_version": RECORD_VERSION, "regrade": regraded}


def _regraded(
    record: AttemptRecord,
    entry: TaskEntry | None,
    worker: WorkerCache,
    make_judge: Callable[[], Any],
    judge: str,
    summary: RegradeSummary,
) -> dict[str, Any]:
    """The record of one attempt regraded (or diverged, or kept)."""
    was = record["outcome"]
    if was == "error" or entry is None:
        summary.kept += 1
        return {**record, "regrade": {"status": "kept", "was": was}}
    recorded = record.get("transcript")
    if not recorded:
        return _diverged(record, "the record has no transcript to replay", summary)
    replay = Replay(recorded)
    seed, number = record.get("seed", 0), record["attempt"]
    roles = Roles(
        agent=lambda context: replay,
        user=replay.user,
        judge=in_attempt(make_judge, attempt_scope(entry.id, number, seed)),
        agent_name=record.get("agent"),
    )
    limits = Limits(max_steps=len(replay.steps) + 1, max_turns=len(replay.turns) + 1, time_limit_s=3600.0)
    harness = Harness(worker, roles, limits, seed=seed)
    outcome, judge_usage = _run(harness, entry, number)
    if replay.divergence is None and outcome.get("transcript") is not None:
        replay.check(outcome["transcript"], ended=True)
    if replay.divergence is not None:
        return _diverged(record, replay.divergence, summary)
    summary.regraded += 1
    summary.requests += sum(u.get("calls", 0) for u in judge_usage.values())
    new: dict[str, Any] = {k: v for k, v in record.items() if k not in (*VERDICT, "regrade")}
    new.update({k: v for k, v in outcome.items() if k in VERDICT})
    usage = {role: u for role, u in (record.get("usage") or {}).items() if role != "judge"} | judge_usage
    if usage:
        new["usage"] = usage
    new.update(judge=judge, outcome=outcome["outcome"], error=outcome["error"], failure=outcome["failure"])
    new["signature"] = signature(new)
    new["regrade"] = {"status": "regraded", "was": was}
    if new["outcome"] != was:
        summary.flipped.append((record["task"], number, was, new["outcome"]))
    return new


def _run(harness: Harness, entry: TaskEntry, number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the task once with `harness`: the record fields of its result and outcome, and its judge's usage."""
    error: dict[str, str] | None = None
    failure: str | None = None
    attempt = None
    try:
        wanted = set(inspect.signature(entry.function).parameters) - {"tb"}
        if wanted:
            raise ThinkingboxError(f"{entry.id} asks for fixtures {sorted(wanted)}; a regrade gives it only tb")
        attempt = harness.attempt(entry.id, number, domain_of(entry), key=f"{entry.path}::{entry.id}")
        entry.function(tb=attempt)
    except AssertionError as exc:
        failure = (str(exc) or "a check failed")[:2000]
    except Exception as exc:
        error = {"stage": getattr(exc, "stage", "task"), "type": type(exc).__name__, "message": str(exc)[:2000]}
    finally:
        if attempt is not None:
            attempt.close()
    fields = json.loads(json.dumps(result_fields(attempt.result), default=str)) if attempt is not None else {}
    outcome = "error" if error else "failed" if failure is not None else "passed"
    fields.update(outcome=outcome, error=error, failure=failure)
    return fields, fields.pop("usage", {})


def _diverged(record: AttemptRecord, why: str, summary: RegradeSummary) -> dict[str, Any]:
    summary.diverged += 1
    error = {"stage": "regrade", "type": "Diverged", "message": f"the replay diverged: {why}"}
    new = {**record, "outcome": "error", "error": error, "failure": None}
    new["signature"] = signature(cast(AttemptRecord, new))
    new["regrade"] = {"status": "diverged", "was": record["outcome"], "divergence": why}
    return new


class Replay:
    """The recorded agent of one attempt, step by step, and its recorded user (`user`), for one replay.

    The agent's steps are read back from the transcript: a tool-call message and
    its results, with the message that follows them when the user did not answer
    it (a word beside the calls); a message on its own. The last step ends the
    conversation, unless the user had it. Before each step the replay's transcript so far is compared with
    the recorded one; at the first difference the agent stops (`divergence`).
    """

    def __init__(self, transcript: list[dict[str, Any]]) -> None:
        self.recorded = transcript
        self.steps = _steps(transcript)
        self.turns = [i for i, m in enumerate(transcript) if m.get("role") == "user" and i > 0]
        self.divergence: str | None = None
        self._checked = 0

    async def step(self, view: Any) -> AgentStep:
        self.check(view.messages)
        if self.divergence is not None or not self.steps:
            return AgentStep(end=True)
        return self.steps.pop(0)

    def user(self, brief: User) -> ReplayedUser:
        return ReplayedUser(brief, self)

    def check(self, messages: list[dict[str, Any]], ended: bool = False) -> None:
        """Compare the replay's messages not yet checked with the recorded ones; note the first difference (at
        the end of the episode, one short of the recorded ones too)."""
        for i in range(self._checked, len(messages)):
            now = json.loads(json.dumps(messages[i], default=str))
            then = self.recorded[i] if i < len(self.recorded) else None
            if now != then and self.divergence is None:
                self.divergence = _difference(i, then, now)
        if ended and len(messages) < len(self.recorded) and self.divergence is None:
            self.divergence = f"the replay ended after {len(messages)} of the {len(self.recorded)} recorded messages"
        self._checked = len(messages)


class ReplayedUser:
    """The recorded user: the task's opening message, then the recorded turns in order."""

    def __init__(self, brief: User, replay: Replay) -> None:
        self._brief, self._replay = brief, replay

    def opening(self) -> str:
        return self._brief.says  # the task's current opening: if it changed, the replay diverges at message 0

    async def reply(self, message: str, acted: bool = True) -> UserTurn:
        turns, recorded = self._replay.turns, self._replay.recorded
        if not turns:
            return UserTurn("", end=True)  # more than was recorded: the transcript shows the difference
        at = turns.pop(0)
        return UserTurn(recorded[at]["content"], end=at == len(recorded) - 1)


def _steps(transcript: list[dict[str, Any]]) -> list[AgentStep]:
    steps: list[AgentStep] = []
    i = 1  # the opening is the user's
    while i < len(transcript):
        m = transcript[i]
        i += 1
        if m.get("role") != "assistant":
            continue
        if not m.get("tool_calls"):
            steps.append(AgentStep(message=m.get("content")))
            continue
        calls = [_call(c) for c in m["tool_calls"]]
        while i < len(transcript) and transcript[i].get("role") == "tool":
            i += 1
        message = None
        after = transcript[i] if i < len(transcript) else None
        answered = i + 1 < len(transcript) and transcript[i + 1].get("role") == "user"
        if after is not None and after.get("role") == "assistant" and not after.get("tool_calls") and not answered:
            message, i = after.get("content"), i + 1  # said beside the calls: the user was not asked
        steps.append(AgentStep(tool_calls=calls, message=message))
    if steps and transcript[-1].get("role") != "user":
        steps[-1].end = True  # the agent had the last word: whatever ended it then (a limit, its own end), it ends
    return steps


def _call(recorded: dict[str, Any]) -> Call | InvalidCall:
    arguments = recorded.get("arguments")
    if isinstance(arguments, str):  # arguments that were not a JSON object: answered with an error, never run
        try:
            parse_arguments(arguments)
            problem = "the arguments are not a JSON object"
        except ValueError as exc:
            problem = str(exc)
        return InvalidCall(recorded["tool"], arguments, problem)
    return Call(recorded["tool"], dict(arguments or {}))


def _difference(index: int, then: dict[str, Any] | None, now: dict[str, Any]) -> str:
    if then is None:
        return f"message {index} ({now.get('role')}) was not in the recorded transcript"
    if now.get("role") == "tool":
        return (
            f"the result of tool call {now.get('call_id')} ({now.get('tool')}) differs: recorded "
            f"{_cut(then.get('error'), then.get('content'))}, now {_cut(now.get('error'), now.get('content'))}"
        )
    if index == 0:
        return f"the task's opening message changed: recorded {_cut(None, then.get('content'))}"
    return f"message {index} ({now.get('role')}) differs from the recorded one"


def _cut(error: Any, text: Any) -> str:
    text = " ".join(str(text).split())
    text = text if len(text) <= 120 else text[:120] + " ..."
    return f"[{error}] {text!r}" if error else repr(text)
