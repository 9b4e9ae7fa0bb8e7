"""Difficulty probing for training: which tasks are worth training a policy on.

Probe runs of a base policy give each task n attempts with k successes. Its
success probability gets the Jeffreys posterior Beta(k + 1/2, n - k + 1/2);
the unit interval is cut into bins, and a task goes to the bin holding the
largest posterior mass. A GRPO-style trainer learns only from groups whose
rewards are mixed (neither all 0 nor all 1), so the expected share of mixed
groups of size G tells how many rollouts a pool would waste. Pure math and
plain data: no pytest, no database.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

EDGES = (0.08, 0.40, 0.60, 0.90)
NAMES = ("rarely", "hard", "medium", "often", "almost_always")
KEEP = ("hard", "medium", "often")


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b): P(p <= x) for p ~ Beta(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(1.0 - x, b, a) / b


def _continued_fraction(x: float, a: float, b: float, steps: int = 300, eps: float = 1e-15) -> float:
    """Lentz's evaluation of the continued fraction of the incomplete beta function."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, steps + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < eps:
            break
    return value


def posterior(k: int, n: int) -> tuple[float, float]:
    """The Jeffreys posterior Beta(a, b) after k successes in n attempts."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    return k + 0.5, n - k + 0.5


def bin_mass(k: int, n: int, edges: Sequence[float] = EDGES, names: Sequence[str] = NAMES) -> dict[str, float]:
    """The posterior mass of each bin (the intervals between 0, the edges and 1)."""
    a, b = posterior(k, n)
    cuts = [0.0, *edges, 1.0]
    cdf = [beta_cdf(x, a, b) for x in cuts]
    return {name: cdf[i + 1] - cdf[i] for i, name in enumerate(names)}


def mixed_share(k: int, n: int, group: int) -> float:
    """Expected share of groups of `group` rollouts with mixed rewards: 1 - E[p^G] - E[(1 - p)^G]."""
    a, b = posterior(k, n)

    def moment(a: float, b: float) -> float:  # E[p^G] for p ~ Beta(a, b)
        return math.exp(math.lgamma(a + group) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(a + b + group))

    return 1.0 - moment(a, b) - moment(b, a)


@dataclass(frozen=True)
class Probe:
    """One task's probe: its domain, successes and attempts."""

    domain: str
    successes: int
    attempts: int


def select_pool(
    probes: Mapping[str, Probe],
    keep: Iterable[str] = KEEP,
    edges: Sequence[float] = EDGES,
    excluded: Iterable[str] = (),
    group: int = 8,
) -> dict:
    """The pool: each task's bin and bin masses, the tasks kept, and the group statistics."""
    if len(edges) != len(NAMES) - 1 or list(edges) != sorted(edges) or not 0 < edges[0] <= edges[-1] < 1:
        raise ValueError(f"need {len(NAMES) - 1} increasing edges strictly between 0 and 1, got {list(edges)}")
    keep, excluded = set(keep), set(excluded)
    unknown = keep - set(NAMES)
    if unknown:
        raise ValueError(f"unknown bins {sorted(unknown)}; the bins are {', '.join(NAMES)}")
    mass, bins, mixed = {}, {}, {}
    for task, p in sorted(probes.items()):
        mass[task] = {name: round(m, 6) for name, m in bin_mass(p.successes, p.attempts, edges).items()}
        bins[task] = max(NAMES, key=lambda name: mass[task][name])
        mixed[task] = round(mixed_share(p.successes, p.attempts, group), 6)
    candidates = [t for t in bins if t not in excluded]
    selected = [t for t in candidates if bins[t] in keep]
    return {
        "selected": selected,
        "bins": bins,
        "mass": mass,
        "excluded": sorted(excluded & set(bins)),
        "edges": list(edges),
        "keep": [name for name in NAMES if name in keep],
        "histogram": {name: sum(bins[t] == name for t in candidates) for name in NAMES},
        "group_size": group,
        "mixed_share": mixed,
        "pool_mixed_share": round(sum(mixed[t] for t in selected) / len(selected), 6) if selected else None,
    }
