"""Confidence intervals for a proportion k / n that keep their coverage at 0%, 100% and small n.

Clopper-Pearson (exact) is the default: its coverage is at least the nominal level for every true p and n,
and it never collapses to a point (10 of 10 right gives 69.2%-100%). Wilson is shorter on average and
available too, but its coverage dips below nominal for some p (see docs/statistics.md).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict

from mmgauge.stats.special import betaincinv, binomial_pmf, normal_quantile

ProportionMethod = Literal["clopper-pearson", "wilson"]
CLOPPER_PEARSON: ProportionMethod = "clopper-pearson"
WILSON: ProportionMethod = "wilson"


class Interval(BaseModel):
    """A confidence interval in the units of the value it belongs to, with the n it rests on.

    `n` counts `unit`s (questions, images, question groups): the independent draws the interval assumes.
    """

    # Built on first validation: a command that only reads intervals never pays for pydantic's schema.
    model_config = ConfigDict(frozen=True, defer_build=True)

    low: float
    high: float
    n: int
    method: str
    level: float = 0.95
    unit: str | None = None

    def scaled(self, factor: float) -> Interval:
        """The same interval with both ends multiplied (e.g. 100 for percent)."""
        return self.model_copy(update={"low": self.low * factor, "high": self.high * factor})

    def bounds(self) -> tuple[float, float]:
        return self.low, self.high

    def text(self, scale: float = 1.0, digits: int = 2) -> str:
        """`95% CI low-high, n=N`, the ends multiplied by `scale` (the form every summary prints)."""
        low, high = self.low * scale, self.high * scale
        return f"{100 * self.level:g}% CI {low:.{digits}f}-{high:.{digits}f}, n={self.n}"


def _check(k: float, n: int, level: float) -> None:
    if n <= 0:
        raise ValueError(f"a proportion needs n > 0, got n={n}")
    if not 0 <= k <= n:
        raise ValueError(f"a proportion needs 0 <= k <= n, got k={k}, n={n}")
    if not 0 < level < 1:
        raise ValueError(f"the confidence level must be in (0, 1), got {level}")


def clopper_pearson_bounds(k: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact interval: low = Beta(k, n-k+1) quantile alpha/2, high = Beta(k+1, n-k) quantile 1-alpha/2.

    `k` may be fractional (a mean of [0, 1] scores times n): the beta form is then the natural extension,
    and conservative, since no [0, 1] variable with a given mean varies more than a Bernoulli one.
    """
    _check(k, n, level)
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else betaincinv(k, n - k + 1.0, tail)
    high = 1.0 if k == n else betaincinv(k + 1.0, n - k, 1.0 - tail)
    return low, high


def wilson_bounds(k: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Score interval: (k + z^2/2 +- z sqrt(k (n-k) / n + z^2 / 4)) / (n + z^2)."""
    _check(k, n, level)
    z = normal_quantile(1.0 - (1.0 - level) / 2.0)
    centre = (k + z * z / 2.0) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4.0)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def proportion_interval(
    k: float, n: int, *, level: float = 0.95, method: ProportionMethod = CLOPPER_PEARSON,
    unit: str | None = None,
) -> Interval:
    """Interval for the proportion k / n, in [0, 1]; use `.scaled(100)` for percent."""
    bounds = clopper_pearson_bounds if method == CLOPPER_PEARSON else wilson_bounds
    low, high = bounds(k, n, level)
    if type(n) is int and type(level) is float and type(low) is float and type(high) is float and (
            type(method) is str and (unit is None or type(unit) is str)):
        # Exactly the types validation would keep: nothing to validate (and no schema to build).
        return Interval.model_construct(low=low, high=high, n=n, method=method, level=level, unit=unit)
    return Interval(low=low, high=high, n=n, method=method, level=level, unit=unit)


def exact_coverage(
    p: float, n: int, *, level: float = 0.95, method: ProportionMethod = CLOPPER_PEARSON
) -> float:
    """Probability that the interval of Binomial(n, p) data contains p: a sum over every k, no simulation.

    Terms with probability below 1e-16 are skipped (they cannot move the sum).
    """
    bounds = clopper_pearson_bounds if method == CLOPPER_PEARSON else wilson_bounds
    covered = 0.0
    for k in range(n + 1):
        weight = binomial_pmf(k, n, p)
        if weight < 1e-16:
            continue
        low, high = bounds(k, n, level)
        if low <= p <= high:
            covered += weight
    return covered
