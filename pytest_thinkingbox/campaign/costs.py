"""What a campaign cost, from token usage and per-model prices, and which runs are worth it.

Prices are USD per 1M tokens, per model: ``{MODEL: {input, cached_input, output}}``
(``cached_input`` defaults to ``input``). They come from the run's manifest (the
YAML config the run used); a ``--prices`` file overrides them model by model. A
model the run used without a price is an error, never a silently zero cost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .records import ReportError, Run


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


def prices_for(run: Run, override: Prices | None) -> Prices | None:
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


def run_cost(run: Run, overall: Mapping[str, Any], override: Prices | None) -> dict[str, float | None] | None:
    """The campaign's cost figures (formulas in docs/reporting.md); None when no record has usage.

    With usage but no prices anywhere the cost is unknown, so None as well; the terminal says why.
    """
    used = [(r["usage"], where) for r, where in zip(run.records, run.where, strict=True) if r.get("usage")]
    if not used:
        return None
    prices = prices_for(run, override)
    if prices is None:
        return None
    total = sum(attempt_cost(usage, prices, where) for usage, where in used)
    attempts = len(run.records)
    per_attempt = total / attempts
    pass1, all_k = overall["pass@1"], overall["all_k"]
    # cost of one attempt per task / (tasks x pass@1) = (total / attempts) * tasks / (tasks * pass@1)
    return {
        "total": total,
        "per_attempt": per_attempt,
        "per_success": per_attempt / pass1 if pass1 else None,
        "per_dependable": total / all_k if all_k else None,
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
