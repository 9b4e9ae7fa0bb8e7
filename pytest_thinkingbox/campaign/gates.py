"""Quality gates for CI: one threshold on the aggregate, so a pull request fails on a reliability drop.

Grammar: ``[domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER``, spaces allowed around OP, for example
``pass^k>=0.6``, ``pass@1.lcb95>=0.8``, ``k/k >= 40`` or ``domain:retail:pass@1>=0.8``. A gate is judged
on an aggregate figure, never on a single attempt, so one flaky attempt does not fail the build; with
``.lcb95`` (``.ucb95``) it is judged on the lower (upper) end of the figure's 95% interval, so it holds
only when the campaign shows it beyond task-sampling noise.

A gate that cannot be judged fails and says why: a gate is never silently ok. That is an unknown domain;
a figure that is undefined; a rate over fewer tasks than the minimum (`MIN_TASKS`, --tb-gate-min-tasks);
a k figure (pass@k, pass^k, k/k, flaky, gap) over tasks of which some have fewer than k graded attempts,
which are never estimated at n; and a campaign cut short: when an expected attempt has no record
(``--maxfail``, ``-x``, a crashed worker, an interrupt), every gate fails unless the caller allows an
incomplete campaign.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: The fewest tasks a gate on a rate judges. Below 5 tasks Student's t quantile (4 df: 2.78; 2 df: 4.30;
#: 1 df: 12.7) makes any interval nearly [0, 1], and a point figure over so few tasks says little.
MIN_TASKS = 5


@dataclass(frozen=True)
class Metric:
    """What a gate metric reads: the summary key, share or count, and whether it needs k graded attempts."""

    key: str
    kind: str  # "share" (0..1, a mean over tasks with an interval) or "count" (a whole number)
    needs_k: bool  # counted only over tasks with at least k graded attempts
    what: str


#: Gate metric name -> what it reads from a `metrics.summarize` summary.
METRICS = {
    "pass@1": Metric("pass@1", "share", False, "mean per-task pass rate over graded attempts"),
    "pass@k": Metric("pass@k", "share", True, "solved at least once in k attempts"),
    "pass^k": Metric("pass^k", "share", True, "solved in all of k attempts"),
    "k/k": Metric("all_k", "count", True, "tasks solved k of k"),
    "k/k%": Metric("all_k_share", "share", True, "share of the tasks solved k of k"),
    "flaky": Metric("flaky", "count", True, "tasks solved sometimes but not always"),
    "flaky%": Metric("flaky_share", "share", True, "share of the tasks solved sometimes but not always"),
    "gap": Metric("consistency_gap", "share", True, "pass@k - pass^k: the chance that k attempts disagree"),
    "errors": Metric("errors", "count", False, "attempts that ended in a system error"),
}

#: Metrics that are gone, and what to use instead (the parse error says it).
REMOVED = {
    "retention": "retention (k/k% / pass@1) was removed: it mixed accuracy with consistency (a model that solves "
    "every task with chance p has retention p^(k-1)); gate on gap (pass@k - pass^k, the chance that k attempts "
    "disagree) or flaky% (the share of tasks solved sometimes but not always)",
}

#: Suffixes that judge a share's 95% interval instead of its point figure: the index of the end they read.
BOUNDS = {"lcb95": 0, "ucb95": 1}

OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}

#: Figures are means of fractions; this much float noise counts as equal, so 0.75 >= 0.75 holds.
TOLERANCE = 1e-9

_SHAPE = re.compile(r"(?P<metric>[^<>=!\s]*)\s*(?P<op>[<>=!]+)\s*(?P<number>.*)")
_GRAMMAR = "[domain:NAME:]METRIC[.lcb95|.ucb95] OP NUMBER"
_MIN_OPTIONS = "--tb-gate-min-tasks, or --gate-min-tasks for thinkingbox report"


@dataclass(frozen=True)
class GateResult:
    """The verdict of one gate: whether it held, the figure it saw, and a line to print."""

    ok: bool
    value: float | None
    line: str


@dataclass(frozen=True)
class Gate:
    """A parsed gate expression; build it with `parse_gate`."""

    metric: str
    op: str
    threshold: float
    domain: str | None = None
    number: str = ""  # the threshold as written, for messages
    bound: str | None = None  # "lcb95" or "ucb95": judge that end of the 95% interval

    @property
    def text(self) -> str:
        """The expression in canonical form (no spaces)."""
        prefix = f"domain:{self.domain}:" if self.domain else ""
        suffix = f".{self.bound}" if self.bound else ""
        return f"{prefix}{self.metric}{suffix}{self.op}{self.number or _number(self.threshold)}"

    def evaluate(
        self, aggregate: Mapping[str, Any], allow_incomplete: bool = False, min_tasks: int = MIN_TASKS
    ) -> GateResult:
        """Judge the gate on a `metrics.aggregate` document.

        It fails when attempts are missing (unless `allow_incomplete`), when a rate is over fewer than
        `min_tasks` tasks, and when a k figure's tasks include some with fewer than k graded attempts.
        """
        missing = aggregate.get("missing") or {}
        if missing and not allow_incomplete:
            return self._failed(f"the campaign is incomplete: {incomplete_phrase(aggregate)}")
        if self.domain is None:
            summary = aggregate["overall"]
        else:
            domains = aggregate.get("domains") or {}
            if self.domain not in domains:
                known = ", ".join(sorted(domains)) or "none"
                return self._failed(f"no domain {self.domain!r} in the results (domains: {known})")
            summary = domains[self.domain]
        why = self._unjudgeable(aggregate, summary, min_tasks)
        if why:
            return self._failed(why)
        value, why = _figure(summary, self.metric, self.bound)
        if value is None:
            return self._failed(why)
        close = math.isclose(value, self.threshold, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
        if self.op == "==":
            ok = close
        elif close:
            ok = self.op in (">=", "<=")
        else:
            ok = OPS[self.op](value, self.threshold)
        shown = _number(value) if METRICS[self.metric].kind == "count" else f"{value:.3f}"
        if self.bound:
            key = METRICS[self.metric].key
            low, high = summary[f"{key}_ci95"]
            over = _tasks_over(summary, self.metric)
            shown += f" ({self.metric} {summary[key]:.3f}, 95% interval [{low:.3f}, {high:.3f}] over {over} tasks)"
        return GateResult(ok, value, f"gate {self.text}: {shown} -> {'ok' if ok else 'FAILED'}")

    def _unjudgeable(self, aggregate: Mapping[str, Any], summary: Mapping[str, Any], min_tasks: int) -> str:
        """Why the summary cannot judge this gate (too few tasks, tasks short of k), or ''."""
        metric = METRICS[self.metric]
        if not summary.get("tasks"):
            return "no tasks, so no figure"
        short = summary.get("incomplete_tasks") or 0
        if metric.needs_k and short:
            k = aggregate.get("k", "k")
            names = sorted(
                task
                for task in aggregate.get("incomplete") or {}
                if self.domain is None or (aggregate.get("per_task") or {}).get(task, {}).get("domain") == self.domain
            )
            listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            return (
                f"{short} of {summary['tasks']} tasks have fewer than k = {k} graded attempts"
                + (f" ({listed})" if listed else "")
                + f"; {self.metric} is never estimated at fewer than k attempts. Re-run their system errors "
                "(--tb-rerun-errors) or finish the campaign (--tb-resume)"
            )
        over = _tasks_over(summary, self.metric)
        if metric.kind == "share" and 0 < over < min_tasks:  # over no task at all: `_figure` says why
            return (
                f"{self.metric} is over {over} tasks, fewer than the {min_tasks} a gate needs: a rate over so few "
                f"tasks says little about the next ones (the minimum is {_MIN_OPTIONS})"
            )
        return ""

    def _failed(self, why: str) -> GateResult:
        return GateResult(False, None, f"gate {self.text}: {why} -> FAILED")


def incomplete_phrase(aggregate: Mapping[str, Any]) -> str:
    """How much of a campaign is missing, e.g. "51 of 115 expected attempts have no record (12 tasks: ...)"."""
    missing = aggregate.get("missing") or {}
    count = sum(len(attempts) for attempts in missing.values())
    names = sorted(missing)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    expected = aggregate.get("expected")
    of = f" of {expected}" if expected is not None else ""
    return f"{count}{of} expected attempts have no record ({len(names)} tasks: {shown})"


def parse_gate(text: str) -> Gate:
    """Parse a gate expression; a `ValueError` quotes it and lists what is valid (the caller names the option)."""
    rest = text.strip()
    domain = None
    if rest.startswith("domain:"):
        parts = rest.split(":", 2)
        if len(parts) < 3 or not parts[1].strip() or not parts[2]:
            raise _error(text, "a domain gate reads domain:NAME:METRIC OP NUMBER, e.g. domain:retail:pass@1>=0.8")
        domain, rest = parts[1].strip(), parts[2]
    shape = _SHAPE.fullmatch(rest.strip())
    if not shape or not shape["metric"]:
        raise _error(text, f"expected {_GRAMMAR}, e.g. pass^k>=0.6; {_valid()}")
    metric, op, number = shape["metric"], shape["op"], shape["number"].strip()
    name, dot, bound = metric.rpartition(".")
    if dot and bound in BOUNDS:
        metric = name
    else:
        bound = ""
    if metric in REMOVED:
        raise _error(text, REMOVED[metric])
    if metric not in METRICS:
        raise _error(text, f"unknown metric {shape['metric']!r}; {_valid()}")
    if bound and METRICS[metric].kind != "share":
        raise _error(text, f"{metric} is a count, not an estimate: it has no {bound}; bounds apply to {_shares()}")
    if op not in OPS:
        raise _error(text, f"unknown operator {op!r}; {_valid()}")
    try:
        threshold = float(number)
    except ValueError:
        raise _error(text, f"{number!r} is not a number; expected {_GRAMMAR}") from None
    if not math.isfinite(threshold):
        raise _error(text, f"the threshold must be a finite number, got {number!r}")
    kind = METRICS[metric].kind
    if kind == "share" and not 0 <= threshold <= 1:
        # pass@1>=80 would always fail and pass@1<=5 always hold: refuse rather than gate on nothing.
        raise _error(text, f"{metric} is a share between 0 and 1; did you mean {threshold / 100:g}?")
    if kind == "count" and threshold < 0:
        raise _error(text, f"{metric} is a count of {'attempts' if metric == 'errors' else 'tasks'}, never negative")
    return Gate(metric=metric, op=op, threshold=threshold, domain=domain, number=number, bound=bound or None)


def _tasks_over(summary: Mapping[str, Any], metric: str) -> int:
    """How many tasks a metric's figure is a mean over (every task, in summaries older than these counts)."""
    count = "complete_tasks" if METRICS[metric].needs_k else "graded_tasks"
    value = summary.get(count)
    return int(summary.get("tasks") or 0) if value is None else int(value)


def _figure(summary: Mapping[str, Any], metric: str, bound: str | None) -> tuple[float | None, str]:
    """The figure (or interval end) a metric names in one summary, or None and why it has none."""
    key = METRICS[metric].key
    value = summary.get(key)
    if value is None:
        return None, f"no {metric} figure (no task has a graded attempt)"
    if bound is None:
        return float(value), ""
    interval = summary.get(f"{key}_ci95")
    if interval is None:
        return None, f"{metric} has no 95% interval (one task: the spread between tasks is unknown)"
    return float(interval[BOUNDS[bound]]), ""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _shares() -> str:
    return ", ".join(name for name, m in METRICS.items() if m.kind == "share")


def _valid() -> str:
    return (
        f"valid metrics: {', '.join(METRICS)} ({_shares()} also as METRIC.lcb95 and METRIC.ucb95); "
        f"valid operators: {', '.join(OPS)}"
    )


def _error(text: str, message: str) -> ValueError:
    return ValueError(f"bad gate expression {text!r}: {message}")
