"""Quality gates for CI: one threshold on the aggregate, so a pull request fails on a reliability drop.

Grammar: ``[domain:NAME:]METRIC OP NUMBER``, spaces allowed around OP, for example ``pass^k>=0.6``,
``k/k >= 40`` or ``domain:retail:pass@1>=0.8``. A gate is judged on an aggregate figure, never on a single
attempt, so one flaky attempt does not fail the build. A gate that cannot be judged (an unknown domain, a
figure that is undefined because there are no tasks) fails and says why: a gate is never silently ok. Nor
is a gate judged on a campaign cut short: when an expected attempt has no record (``--maxfail``, ``-x``, a
crashed worker, an interrupt), every gate fails unless the caller allows an incomplete campaign.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: Metric name -> what it is; shares lie in 0..1, counts are whole numbers.
METRICS = {
    "pass@1": "share",
    "pass@k": "share",
    "pass^k": "share",
    "k/k": "count",  # tasks solved in all their attempts
    "k/k%": "share",  # that count as a share of the tasks
    "retention": "share",
    "errors": "count",  # attempts that ended in a system error
}

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
_GRAMMAR = "[domain:NAME:]METRIC OP NUMBER"


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

    @property
    def text(self) -> str:
        """The expression in canonical form (no spaces)."""
        prefix = f"domain:{self.domain}:" if self.domain else ""
        return f"{prefix}{self.metric}{self.op}{self.number or _number(self.threshold)}"

    def evaluate(self, aggregate: Mapping[str, Any], allow_incomplete: bool = False) -> GateResult:
        """Judge the gate on a `metrics.aggregate` document (failed when attempts are missing, unless allowed)."""
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
        value, why = _figure(summary, self.metric)
        if value is None:
            return self._failed(why)
        close = math.isclose(value, self.threshold, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
        if self.op == "==":
            ok = close
        elif close:
            ok = self.op in (">=", "<=")
        else:
            ok = OPS[self.op](value, self.threshold)
        shown = _number(value) if METRICS[self.metric] == "count" else f"{value:.3f}"
        return GateResult(ok, value, f"gate {self.text}: {shown} -> {'ok' if ok else 'FAILED'}")

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
    if metric not in METRICS:
        raise _error(text, f"unknown metric {metric!r}; {_valid()}")
    if op not in OPS:
        raise _error(text, f"unknown operator {op!r}; {_valid()}")
    try:
        threshold = float(number)
    except ValueError:
        raise _error(text, f"{number!r} is not a number; expected {_GRAMMAR}") from None
    if not math.isfinite(threshold):
        raise _error(text, f"the threshold must be a finite number, got {number!r}")
    if METRICS[metric] == "share" and not 0 <= threshold <= 1:
        # pass@1>=80 would always fail and pass@1<=5 always hold: refuse rather than gate on nothing.
        raise _error(text, f"{metric} is a share between 0 and 1; did you mean {threshold / 100:g}?")
    if METRICS[metric] == "count" and threshold < 0:
        raise _error(text, f"{metric} is a count of {'tasks' if metric == 'k/k' else 'attempts'}, never negative")
    return Gate(metric=metric, op=op, threshold=threshold, domain=domain, number=number)


def _figure(summary: Mapping[str, Any], metric: str) -> tuple[float | None, str]:
    """The figure a metric names in one summary, or None and why it has none."""
    tasks = summary.get("tasks") or 0
    if not tasks:
        return None, "no tasks, so no figure"
    if metric == "k/k":
        value = summary.get("all_k")
    elif metric == "k/k%":
        value = summary.get("all_k_share")
    else:
        value = summary.get(metric)
    if value is None:
        why = "retention is undefined when pass@1 is 0" if metric == "retention" else f"no {metric} figure"
        return None, why
    return float(value), ""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _valid() -> str:
    return f"valid metrics: {', '.join(METRICS)}; valid operators: {', '.join(OPS)}"


def _error(text: str, message: str) -> ValueError:
    return ValueError(f"bad gate expression {text!r}: {message}")
