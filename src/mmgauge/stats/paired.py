"""Paired comparisons of two runs on the same items: exact McNemar, a paired difference interval, Holm's
correction and the smallest difference n paired items can detect. Formulas in docs/statistics.md.

Convention: run A minus run B. A 2x2 table of paired right/wrong outcomes is `both` (both right), `a_only`
(A right, B wrong), `b_only` (B right, A wrong), `neither`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from mmgauge.stats.proportion import wilson_bounds
from mmgauge.stats.special import binomial_cdf, binomial_pmf, normal_quantile

BoolArray = npt.NDArray[np.bool_]
NEWCOMBE: str = "newcombe-paired-score"


class PairedTable(BaseModel):
    """Counts of the paired outcomes of two runs on the same n items."""

    model_config = ConfigDict(frozen=True)

    both: int
    a_only: int
    b_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither

    @property
    def discordant(self) -> int:
        return self.a_only + self.b_only

    @classmethod
    def from_outcomes(
        cls, a_right: Sequence[bool] | BoolArray, b_right: Sequence[bool] | BoolArray
    ) -> PairedTable:
        """The table of two runs' right/wrong outcomes on the same items, in the same order."""
        a, b = np.asarray(a_right, dtype=bool), np.asarray(b_right, dtype=bool)
        if a.shape != b.shape or a.ndim != 1:
            raise ValueError(f"paired outcomes need two 1-d arrays of one length, got {a.shape}, {b.shape}")
        return cls(both=int((a & b).sum()), a_only=int((a & ~b).sum()), b_only=int((~a & b).sum()),
                   neither=int((~a & ~b).sum()))


class McNemarResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    table: PairedTable
    #: Two-sided exact p: min(1, 2 P(X <= min(a_only, b_only))), X ~ Binomial(a_only + b_only, 1/2).
    p_value: float
    #: The mid-p variant: the exact p less the probability of the observed split (less conservative).
    mid_p_value: float
    method: str = "mcnemar-exact"


def mcnemar_exact(table: PairedTable) -> McNemarResult:
    """Exact (conditional) McNemar test of 'both runs are equally often right' on the discordant pairs."""
    m, low = table.discordant, min(table.a_only, table.b_only)
    if m == 0:
        return McNemarResult(table=table, p_value=1.0, mid_p_value=1.0)
    p_value = min(1.0, 2.0 * binomial_cdf(low, m, 0.5))
    point = binomial_pmf(low, m, 0.5)
    mid_p = 1.0 - 0.5 * point if table.a_only == table.b_only else p_value - point
    return McNemarResult(table=table, p_value=p_value, mid_p_value=mid_p)


class PairedDifference(BaseModel):
    """Accuracy of A minus accuracy of B on the same items, in [-1, 1], with its interval."""

    model_config = ConfigDict(frozen=True)

    difference: float
    low: float
    high: float
    n: int
    level: float
    method: str = NEWCOMBE


def paired_difference(table: PairedTable, level: float = 0.95) -> PairedDifference:
    """Newcombe's (1998) score interval for a difference of paired proportions (his method 10).

    Square-and-add of the two Wilson intervals, with the correlation of the paired outcomes (phi, with
    Newcombe's continuity adjustment) taking out the part of their variance the pairing shares.
    """
    n = table.n
    if n == 0:
        raise ValueError("a paired difference needs at least one item")
    p1, p2 = (table.both + table.a_only) / n, (table.both + table.b_only) / n
    l1, u1 = wilson_bounds(table.both + table.a_only, n, level)
    l2, u2 = wilson_bounds(table.both + table.b_only, n, level)
    phi = _newcombe_phi(table)
    difference = p1 - p2
    down = math.sqrt(max((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2), 0.0))
    up = math.sqrt(max((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1), 0.0))
    return PairedDifference(difference=difference, low=max(difference - down, -1.0),
                            high=min(difference + up, 1.0), n=n, level=level)


def _newcombe_phi(table: PairedTable) -> float:
    a_right, a_wrong = table.both + table.a_only, table.b_only + table.neither
    b_right, b_wrong = table.both + table.b_only, table.a_only + table.neither
    if 0 in (a_right, a_wrong, b_right, b_wrong):
        return 0.0
    cross = float(table.both * table.neither - table.a_only * table.b_only)
    # Newcombe's adjustment: a positive cross term is reduced by n/2 (not below 0) before normalising.
    if cross > 0:
        cross = max(cross - table.n / 2, 0.0)
    return cross / math.sqrt(float(a_right) * a_wrong * b_right * b_wrong)


class HolmResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    p_values: list[float]
    #: Holm-adjusted p-values, in the order given: reject comparison i at `alpha` iff adjusted[i] <= alpha.
    adjusted: list[float]
    reject: list[bool]
    alpha: float


def holm(p_values: Sequence[float], alpha: float = 0.05) -> HolmResult:
    """Holm's step-down correction: family-wise error <= alpha for any dependence between the tests."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return HolmResult(p_values=list(p_values), adjusted=adjusted, reject=[p <= alpha for p in adjusted],
                      alpha=alpha)


def minimum_detectable_difference(
    n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest |accuracy difference| a two-sided McNemar test on n paired items detects with `power`.

    Assumes the share of discordant items (one run right, the other wrong) is `discordance` (e.g. the
    observed one) and uses Connor's (1987) normal approximation,
    n = (z_{1-alpha/2} sqrt(psi) + z_power sqrt(psi - d^2))^2 / d^2, solved for d. None when no difference
    reaches that power at this n (even d = psi, all discordant items going one way) or psi is 0.
    """
    if n <= 0 or not 0.0 < discordance <= 1.0:
        return None
    z_alpha, z_power = normal_quantile(1.0 - alpha / 2.0), normal_quantile(power)

    def margin(d: float) -> float:  # grows with d; its root is the detectable difference
        return math.sqrt(n) * d - z_alpha * math.sqrt(discordance) - z_power * math.sqrt(
            max(discordance - d * d, 0.0))

    if margin(discordance) < 0.0:
        return None
    low, high = 0.0, discordance
    for _ in range(200):
        middle = 0.5 * (low + high)
        if margin(middle) < 0.0:
            low = middle
        else:
            high = middle
    return high
