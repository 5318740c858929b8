"""Intervals for composite scores (sums of proportions): a clustered bootstrap that is never narrower than
the interval the component proportion intervals imply.

The floor is MOVER (method of variance estimates recovery; Zou & Donner 2008): for a sum of estimates
theta_j with intervals [l_j, u_j], the lower distance is sqrt(sum_j (theta_j - l_j)^2 + 2 sum_{j<k} rho_jk
(theta_j - l_j)(theta_k - l_k)) and the upper one the same with u_j - theta_j. Components resampled from
disjoint clusters are independent (rho = 0); components computed on the same clusters get their
correlation, taken as 1 (the widest case) when it cannot be estimated. The reported interval is the hull
of the bootstrap percentile interval and that floor, clipped to the range the score can take.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Spread:
    """Distances from an estimate down to its interval's low end and up to its high end (both >= 0)."""

    down: float
    up: float

    @classmethod
    def around(cls, estimate: float, low: float, high: float) -> Spread:
        return cls(down=max(estimate - low, 0.0), up=max(high - estimate, 0.0))


def mover_pair(first: Spread, second: Spread, correlation: float) -> Spread:
    """Spread of the sum of two estimates with correlation `correlation` (clipped to [0, 1])."""
    rho = min(max(correlation, 0.0), 1.0)
    down = math.sqrt(first.down**2 + second.down**2 + 2 * rho * first.down * second.down)
    up = math.sqrt(first.up**2 + second.up**2 + 2 * rho * first.up * second.up)
    return Spread(down=down, up=up)


def mover_independent(parts: Sequence[Spread]) -> Spread:
    """Spread of the sum of independent estimates: distances add in quadrature."""
    return Spread(down=math.sqrt(sum(p.down**2 for p in parts)), up=math.sqrt(sum(p.up**2 for p in parts)))


def draws_correlation(first: FloatArray, second: FloatArray) -> float:
    """Pearson correlation of two sets of bootstrap draws; 1 (the widest case) if either never varies."""
    if first.size < 2 or np.ptp(first) == 0 or np.ptp(second) == 0:
        return 1.0
    return float(np.corrcoef(first, second)[0, 1])


def percentile_bounds(draws: FloatArray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = linear_percentiles(draws, [tail, 100.0 - tail])
    return float(low), float(high)


def linear_percentiles(values: FloatArray, percents: Sequence[float]) -> FloatArray:
    """`np.percentile(values, percents)` (its default `linear` method) to the bit, for 1-d float data.

    The steps are numpy's own: virtual index (n - 1) q, its floor and the next index (both the last one at
    or above n - 1), a partition at those indexes, and numpy's two-sided interpolation (from below when the
    weight is under 0.5, from above otherwise). Done here because `np.percentile` finds its partition points
    with `np.unique`, which imports all of `numpy.ma`: the slowest import left in `mmgauge score mme`.
    Anything else (NaN, other shapes or types, percents outside 0..100) goes to `np.percentile` itself.
    """
    data = np.asarray(values)
    if data.ndim != 1 or data.size == 0 or data.dtype != np.float64 or bool(np.isnan(data).any()) \
            or not all(0.0 <= p <= 100.0 for p in percents):
        found: FloatArray = np.percentile(values, list(percents))
        return found
    last = data.size - 1
    virtual = last * np.true_divide(np.asarray(percents, dtype=np.float64), 100)
    below = np.floor(virtual)
    above = below + 1
    below[virtual >= last] = above[virtual >= last] = -1
    below_at, above_at = below.astype(np.intp), above.astype(np.intp)
    parted = np.partition(data, sorted({0, -1, *below_at.tolist(), *above_at.tolist()}))
    low, high = parted[below_at], parted[above_at]
    weight = virtual - below_at
    step = high - low
    result: FloatArray = np.add(low, step * weight)
    np.subtract(high, step * (1 - weight), out=result, where=weight >= 0.5)
    return result


def hull_with_floor(
    estimate: float, bootstrap: tuple[float, float], floor: Spread, bounds: tuple[float, float]
) -> tuple[float, float]:
    """The smallest interval holding both the bootstrap interval and estimate -floor.down/+floor.up,
    clipped to the values the score can take."""
    low = min(bootstrap[0], estimate - floor.down)
    high = max(bootstrap[1], estimate + floor.up)
    return max(low, bounds[0]), min(high, bounds[1])


def resample_type_counts(
    type_counts: IntArray, resamples: int, rng: np.random.Generator
) -> IntArray:
    """Bootstrap of clusters that fall into a few outcome types: counts of each type per resample.

    Drawing n clusters with replacement and counting their types is a Multinomial(n, counts / n) draw, so
    this costs O(resamples x types) instead of O(resamples x clusters) and gives the same distribution.
    """
    total = int(type_counts.sum())
    if total == 0:
        return np.zeros((resamples, len(type_counts)), dtype=np.int64)
    shares = type_counts.astype(np.float64) / total
    draws: IntArray = rng.multinomial(total, shares, size=resamples).astype(np.int64)
    return draws
