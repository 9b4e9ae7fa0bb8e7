"""What a campaign cost, from token usage and per-model prices, and which runs are worth it.

Prices are USD per 1M tokens, per model: ``{MODEL: {input, cached_input, output}}``
(``cached_input`` defaults to ``input``). They come from the run's manifest (the
YAML config the run used); a ``--prices`` file overrides them model by model. A
model the run used without a price is an error, never a silently zero cost.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .metrics import count
from .records import Campaign, ReportError
from .stats import ratio_estimate


@dataclass(frozen=True)
class Prices:
    """USD per 1M tokens by model, and where they came from (named in error messages)."""

    table: Mapping[str, Mapping[str, float]]
    source: str


def parse_prices(data: Any, source: str) -> Prices:
    """Check a ``{MODEL: {input, cached_input, output}}`` mapping (the format of config.parse_prices)."""
    from ..roles.config import parse_prices as check

    try:
        return Prices(check(data, source), source)
    except ValueError as exc:
        raise ReportError(str(exc)) from None


def load_prices(path: Path) -> Prices:
    """A ``--prices`` file: JSON when it ends in ``.json``, YAML otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read the prices file ({getattr(exc, 'strerror', None) or exc})") from None
    if str(path).endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReportError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    else:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            raise ReportError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    return parse_prices(data, f"--prices {path}")


def prices_for(run: Campaign, override: Prices | None) -> Prices | None:
    """The run manifest's prices with the ``--prices`` ones on top; None when neither has any."""
    own = (run.manifest or {}).get("prices") or {}
    if not own and override is None:
        return None
    base = parse_prices(own, f"the manifest of run {run.id} ({run.manifest_at})") if own else None
    if base is None:
        return override
    if override is None:
        return base
    return Prices({**base.table, **override.table}, f"{override.source} (or {base.source})")


def attempt_cost(usage: Mapping[str, Any], prices: Prices, where: str) -> float:
    """USD for one attempt: the sum over the roles (agent, user, judge) that a model served.

    Reasoning tokens are already counted in ``output_tokens`` (OpenAI usage reports them as a
    part of the completion), so they are not added again.
    """
    total = 0.0
    for role, use in usage.items():
        model = use.get("model")
        if model not in prices.table:
            raise ReportError(
                f"{prices.source}: no price for model {model!r}, which served the {role} at {where}; "
                f"add {model}: {{input: ..., cached_input: ..., output: ...}} (USD per 1M tokens) to a --prices file"
            )
        price = prices.table[model]
        tokens_in, cached = use.get("input_tokens") or 0, use.get("cached_tokens") or 0
        if cached > tokens_in:
            raise ReportError(
                f"{where}: {role} usage has more cached tokens ({cached}) than input tokens ({tokens_in})"
            )
        total += (
            (tokens_in - cached) * price["input"]
            + cached * price["cached_input"]
            + (use.get("output_tokens") or 0) * price["output"]
        ) / 1e6
    return total


def run_cost(run: Campaign, override: Prices | None) -> dict[str, Any] | None:
    """The campaign's cost figures (formulas in docs/reference.md); None when no record has usage.

    Cost per success = total cost / total successes, and per dependable task = total cost / tasks
    solved k of k: ratios of totals, whatever each task's attempt count. System errors are paid
    for, so their cost is in the total (and shown apart); they are neither successes nor failures.
    Each ratio has a 95% interval clustered by task (`stats.ratio_estimate`).
    With usage but no prices anywhere the cost is unknown, so None as well; the terminal says why.
    """
    used = [(r, where) for r, where in zip(run.records, run.where, strict=True) if r.get("usage")]
    if not used:
        return None
    prices = prices_for(run, override)
    if prices is None:
        return None
    spent: dict[str, float] = {}
    errors_cost = 0.0
    for r, where in used:
        cost = attempt_cost(r["usage"], prices, where)
        spent[r["task"]] = spent.get(r["task"], 0.0) + cost
        errors_cost += cost if r["outcome"] == "error" else 0.0
    tasks = sorted(count(run.records).values(), key=lambda t: t.task)
    costs = [spent.get(t.task, 0.0) for t in tasks]
    successes = [float(t.passed) for t in tasks]
    dependable = [float(t.graded >= run.k and t.passed == t.graded) for t in tasks]
    total = math.fsum(costs)
    per_success, success_interval = ratio_estimate(costs, successes)
    per_dependable, dependable_interval = ratio_estimate(costs, dependable)
    return {
        "total": total,
        "per_attempt": total / len(run.records),
        "per_success": per_success,
        "per_success_ci95": list(success_interval) if success_interval else None,
        "per_dependable": per_dependable,
        "per_dependable_ci95": list(dependable_interval) if dependable_interval else None,
        "successes": int(sum(successes)),
        "dependable": int(sum(dependable)),
        "errors": errors_cost,
    }


def frontier(points: Mapping[str, tuple[float | None, float | None]]) -> list[str]:
    """The runs no other run beats: none is both no more expensive and at least as accurate, one strictly.

    Args:
        points: run id -> (cost, accuracy); a run with either figure None is left out.

    Returns:
        The frontier's run ids, cheapest first.
    """
    valid = {rid: (c, a) for rid, (c, a) in points.items() if c is not None and a is not None}

    def beaten(cost: float, acc: float) -> bool:
        return any(c <= cost and a >= acc and (c < cost or a > acc) for c, a in valid.values())

    return sorted((rid for rid, (c, a) in valid.items() if not beaten(c, a)), key=lambda rid: valid[rid])
