"""The statistics behind every interval, test and bound the reports print (formulas in docs/reference.md).

Every figure of a campaign is a mean over tasks of a per-task estimate, so its
uncertainty is clustered by task: the standard error is sd(per-task values) / sqrt(T)
and the 95% interval uses Student's t with T - 1 degrees of freedom. Two runs are
compared by the paired differences of the same tasks (a paired t-test). A
single task's pass rate gets the Jeffreys interval. Everything here is plain
math on floats: the Student t and beta distributions come from the regularized
incomplete beta function, so nothing beyond the standard library is needed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

LEVEL = 0.95  # every interval and bound the reports print is at this level
ALPHA = 1 - LEVEL
POWER = 0.80  # the power at which compare states the smallest detectable difference


# -- distributions -------------------------------------------------------------------------------


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


def beta_ppf(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b), by bisection on `beta_cdf` (which increases in x)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile needs 0 <= q <= 1, got {q}")
    low, high = 0.0, 1.0
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):  # no float between them: done
            break
        if beta_cdf(mid, a, b) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with `df` degrees of freedom.

    For x >= 0, P(T > x) = I_{df / (df + x^2)}(df / 2, 1 / 2) / 2; the rest follows from symmetry.
    """
    if df <= 0:
        raise ValueError(f"Student's t needs df > 0, got {df}")
    tail = beta_cdf(df / (df + x * x), df / 2, 0.5) / 2
    return 1.0 - tail if x >= 0 else tail


@lru_cache(maxsize=1024)  # a campaign asks for the same few quantiles again and again
def t_ppf(q: float, df: float) -> float:
    """The q-quantile of Student's t with `df` degrees of freedom (0 < q < 1), by bisection on `t_cdf`."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"a t quantile needs 0 < q < 1, got {q}")
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    high = 1.0
    while t_cdf(high, df) < q:  # the bracket grows until it holds the quantile (t(1) has heavy tails)
        high *= 2.0
    low = 0.0
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if t_cdf(mid, df) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def t_two_sided_p(t: float, df: float) -> float:
    """The two-sided p-value of a t statistic: P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    return min(1.0, beta_cdf(df / (df + t * t), df / 2, 0.5))


def normal_two_sided_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


# -- one group of tasks --------------------------------------------------------------------------


def jeffreys_interval(successes: float, trials: float, level: float = LEVEL) -> tuple[float, float]:
    """The Jeffreys interval of a binomial rate: the equal-tailed interval of Beta(x + 1/2, n - x + 1/2).

    As Brown, Cai and DasGupta (2001) define it, the lower end is 0 when x = 0 and the upper
    end is 1 when x = n. `successes` may be fractional (see `mean_estimate`).
    """
    if not 0 <= successes <= trials or trials <= 0:
        raise ValueError(f"need 0 <= x <= n and n > 0, got x={successes}, n={trials}")
    a, b = successes + 0.5, trials - successes + 0.5
    tail = (1 - level) / 2
    low = 0.0 if successes == 0 else beta_ppf(tail, a, b)
    high = 1.0 if successes == trials else beta_ppf(1 - tail, a, b)
    return low, high


@dataclass(frozen=True)
class Estimate:
    """A mean over tasks with its task-clustered standard error and 95% interval.

    `se` and `interval` are None with fewer than 2 tasks (`why` says so); `fallback` is set when
    every task had the same value, so the interval is not the t interval (see `mean_estimate`).
    """

    value: float | None
    tasks: int
    se: float | None = None
    interval: tuple[float, float] | None = None
    why: str = ""
    fallback: bool = False


def mean_estimate(values: Sequence[float], level: float = LEVEL) -> Estimate:
    """The mean of per-task figures in [0, 1], its clustered SE and its interval, clamped to [0, 1].

    SE = sd / sqrt(T) (sd with T - 1 in the denominator); the interval is mean +/- t(T - 1) x SE.
    When every task has the same value v the spread across tasks is not observed (a zero-width
    interval would claim certainty no campaign has); the interval is then the Jeffreys interval
    of T * v successes in T trials: the widest spread a figure in [0, 1] with mean v can have,
    v (1 - v), is that of tasks that are each all or nothing.
    """
    t = len(values)
    if not t:
        return Estimate(None, 0, why="no tasks")
    mean = math.fsum(values) / t
    if t < 2:
        return Estimate(mean, 1, why="one task: the spread between tasks is unknown, so there is no interval")
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (t - 1))
    se = sd / math.sqrt(t)
    if sd == 0.0:
        share = min(max(mean, 0.0), 1.0)
        return Estimate(mean, t, se, jeffreys_interval(share * t, t, level), fallback=True)
    half = t_ppf(1 - (1 - level) / 2, t - 1) * se
    return Estimate(mean, t, se, (max(0.0, mean - half), min(1.0, mean + half)))


# -- two runs on the same tasks ------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTest:
    """The paired t-test of per-task differences (b - a) over T tasks.

    `every` is the common difference when all T differences are equal (sd 0): the t statistic is
    then undefined, the interval is None, and `p` is the exact sign-flip p-value 2 / 2^T (1 when
    the difference is 0). `mdd` is the smallest true difference the test would find with 80% power.
    """

    tasks: int
    mean: float | None
    sd: float | None = None
    se: float | None = None
    interval: tuple[float, float] | None = None
    p: float | None = None
    mdd: float | None = None
    every: float | None = None

    @property
    def significant(self) -> bool:
        """Whether the difference is more than noise at the 5% level (two-sided)."""
        return self.p is not None and self.p < ALPHA


def paired_test(diffs: Sequence[float], level: float = LEVEL, power: float = POWER) -> PairedTest:
    """Mean difference, t interval (T - 1 df), two-sided p-value and minimum detectable difference.

    The minimum detectable difference at `power` is (t(1 - alpha / 2) + t(power)) x sd / sqrt(T),
    both quantiles with T - 1 df: the usual approximation of the paired t-test's power.
    """
    t = len(diffs)
    if not t:
        return PairedTest(0, None)
    mean = math.fsum(diffs) / t
    if t < 2:
        return PairedTest(1, mean)
    if all(d == diffs[0] for d in diffs):
        return PairedTest(t, mean, 0.0, 0.0, None, 1.0 if mean == 0 else min(1.0, 2.0 ** (1 - t)), None, mean)
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (t - 1))
    se = sd / math.sqrt(t)
    quantile = t_ppf(1 - (1 - level) / 2, t - 1)
    return PairedTest(
        tasks=t,
        mean=mean,
        sd=sd,
        se=se,
        interval=(mean - quantile * se, mean + quantile * se),
        p=t_two_sided_p(mean / se, t - 1),
        mdd=(quantile + t_ppf(power, t - 1)) * se,
    )


def holm(pvalues: Mapping[str, float | None]) -> dict[str, float | None]:
    """Holm's step-down adjustment of a family of p-values (None stays None and is not in the family).

    Sorted ascending, the i-th of m p-values (from 1) becomes max over j <= i of min(1, (m - j + 1) p_j).
    """
    tested = sorted((p, name) for name, p in pvalues.items() if p is not None)
    m, running = len(tested), 0.0
    adjusted: dict[str, float | None] = dict.fromkeys(pvalues)
    for i, (p, name) in enumerate(tested):
        running = max(running, min(1.0, (m - i) * p))
        adjusted[name] = running
    return adjusted


def two_proportion_p(x1: int, n1: int, x2: int, n2: int) -> float | None:
    """The two-sided p-value that two shares x1 / n1 and x2 / n2 differ (pooled z-test); None without data."""
    if not n1 or not n2:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    if pooled in (0.0, 1.0):
        return 1.0
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return normal_two_sided_p((x1 / n1 - x2 / n2) / se)


# -- a ratio of totals (cost per success) ----------------------------------------------------------


def ratio_estimate(
    numerators: Sequence[float], denominators: Sequence[float], level: float = LEVEL
) -> tuple[float | None, tuple[float, float] | None]:
    """A ratio of totals over tasks, sum(y) / sum(x), and its task-clustered interval (None below 2 tasks).

    The standard error is the linearized one of a ratio estimator with tasks as clusters:
    sqrt(T / (T - 1) x sum((y_i - R x_i)^2)) / sum(x); the interval uses t(T - 1) and is kept >= 0.
    """
    total_x = math.fsum(denominators)
    if not total_x:
        return None, None
    ratio = math.fsum(numerators) / total_x
    t = len(numerators)
    if t < 2:
        return ratio, None
    residual = math.fsum((y - ratio * x) ** 2 for y, x in zip(numerators, denominators, strict=True))
    se = math.sqrt(t / (t - 1) * residual) / total_x
    half = t_ppf(1 - (1 - level) / 2, t - 1) * se
    return ratio, (max(0.0, ratio - half), ratio + half)
