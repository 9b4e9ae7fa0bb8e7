"""Difficulty probing for training: which tasks are worth training a policy on.

Probe runs of a base policy give each task n graded attempts with k successes
(system errors are left out: they say nothing about the policy). Its success
probability gets the Jeffreys posterior Beta(k + 1/2, n - k + 1/2); the unit
interval is cut into bins, and a task joins the bin holding the largest
posterior mass only when that mass reaches a threshold (`MIN_MASS`); the other
tasks are undecided, each with the number of further attempts that would
likely decide it (`more_attempts`). A GRPO-style trainer learns only from
groups whose rewards are mixed (neither all 0 nor all 1), so the expected share
of mixed groups of size G tells how many rollouts a pool would waste. Pure math
and plain data: no pytest, no database.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .stats import beta_cdf

EDGES = (0.08, 0.40, 0.60, 0.90)
NAMES = ("rarely", "hard", "medium", "often", "almost_always")
KEEP = ("hard", "medium", "often")
MIN_MASS = 0.6  # the posterior mass a task needs in one bin to join it
MOST_ATTEMPTS = 10_000  # more_attempts looks no further: beyond, a task sits on a bin edge


def posterior(k: int, n: int) -> tuple[float, float]:
    """The Jeffreys posterior Beta(a, b) after k successes in n attempts."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    return k + 0.5, n - k + 0.5


def bin_mass(k: int, n: int, edges: Sequence[float] = EDGES, names: Sequence[str] = NAMES) -> dict[str, float]:
    """The posterior mass of each bin (the intervals between 0, the edges and 1)."""
    return _mass(*posterior(k, n), edges, names)


def _mass(a: float, b: float, edges: Sequence[float], names: Sequence[str] = NAMES) -> dict[str, float]:
    cuts = [0.0, *edges, 1.0]
    cdf = [beta_cdf(x, a, b) for x in cuts]
    return {name: cdf[i + 1] - cdf[i] for i, name in enumerate(names)}


def more_attempts(k: int, n: int, edges: Sequence[float] = EDGES, min_mass: float = MIN_MASS) -> int | None:
    """The fewest further attempts m that would likely decide an undecided task's bin; None beyond `MOST_ATTEMPTS`.

    "Likely" is at the current posterior mean p = (k + 1/2) / (n + 1): if the m attempts succeed at
    that rate, the posterior becomes Beta(k + 1/2 + p m, n - k + 1/2 + (1 - p) m), and m is the
    smallest number for which that posterior puts `min_mass` in one bin. The mass grows with m (the
    posterior narrows around p), so m is found by doubling, then bisection. A task whose p sits on a
    bin edge is never decided this way: None.
    """
    a, b = posterior(k, n)
    mean = a / (a + b)

    def decided(m: int) -> bool:
        return max(_mass(a + mean * m, b + (1 - mean) * m, edges).values()) >= min_mass

    if decided(0):
        return 0
    high = 1
    while not decided(high):
        if high >= MOST_ATTEMPTS:
            return None
        high = min(2 * high, MOST_ATTEMPTS)
    low = high // 2  # not decided (or 0)
    while high - low > 1:
        mid = (low + high) // 2
        if decided(mid):
            high = mid
        else:
            low = mid
    return high


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
    min_mass: float = MIN_MASS,
) -> dict:
    """The pool: each decided task's bin, every task's bin masses, the undecided tasks, the tasks kept.

    A task is decided when one bin holds at least `min_mass` of its posterior; only decided tasks are
    binned and selected. Each undecided task gets its likeliest bin, that bin's mass and `more_attempts`.
    """
    if len(edges) != len(NAMES) - 1 or list(edges) != sorted(edges) or not 0 < edges[0] <= edges[-1] < 1:
        raise ValueError(f"need {len(NAMES) - 1} increasing edges strictly between 0 and 1, got {list(edges)}")
    if not 0 < min_mass <= 1:
        raise ValueError(f"the minimum posterior mass is a share in (0, 1], got {min_mass}")
    keep, excluded = set(keep), set(excluded)
    unknown = keep - set(NAMES)
    if unknown:
        raise ValueError(f"unknown bins {sorted(unknown)}; the bins are {', '.join(NAMES)}")
    mass, bins, mixed, undecided = {}, {}, {}, {}
    for task, p in sorted(probes.items()):
        mass[task] = {name: round(m, 6) for name, m in bin_mass(p.successes, p.attempts, edges).items()}
        likely = max(NAMES, key=lambda name: mass[task][name])
        if mass[task][likely] >= min_mass:
            bins[task] = likely
        else:
            more = more_attempts(p.successes, p.attempts, edges, min_mass)
            undecided[task] = {"likely": likely, "mass": mass[task][likely], "more_attempts": more}
        mixed[task] = round(mixed_share(p.successes, p.attempts, group), 6)
    candidates = [t for t in mass if t not in excluded]
    selected = [t for t in candidates if bins.get(t) in keep]
    return {
        "selected": selected,
        "bins": bins,
        "undecided": {t: undecided[t] for t in candidates if t in undecided},
        "mass": mass,
        "min_mass": min_mass,
        "excluded": sorted(excluded & set(mass)),
        "edges": list(edges),
        "keep": [name for name in NAMES if name in keep],
        "histogram": {name: sum(bins.get(t) == name for t in candidates) for name in NAMES},
        "group_size": group,
        "mixed_share": mixed,
        "pool_mixed_share": round(sum(mixed[t] for t in selected) / len(selected), 6) if selected else None,
    }
