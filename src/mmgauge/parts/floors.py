"""Floors for the intervals of composite differences, so that they never collapse to a point.

A paired bootstrap of two runs that agree on every item draws the same difference every time: its interval
is 0-0, a certainty no finite number of items gives. As the scorers do for a single run's composite scores
(docs/statistics.md), the reported interval is the hull of the bootstrap interval and a MOVER floor: the
composite difference is a sum of accuracy differences, each with its Newcombe paired interval (which does
not collapse), combined by MOVER (Zou & Donner 2008) with the correlation of the parts.

- Two correlated parts (an MME subtask score: `benchmarks/mme/compare.py`): MOVER with their correlation
  (`correlation`: 1, the widest case, when it cannot be estimated).
- Sums over disjoint parts (MME totals, means over abilities or languages, GIA over question types): the
  parts are independent, distances add in quadrature.

A floor is a function of the confidence level, so that the p-value reported beside a widened interval can
be the one that interval implies (`floor_p_value`): the verdict, the p-value and the interval then agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from mmgauge.stats.composite import Spread, mover_independent
from mmgauge.stats.paired import PairedTable, paired_difference

#: The floor's spread at a confidence level.
Floor = Callable[[float], Spread]
#: The smallest p-value `floor_p_value` tells apart; below it, it answers this.
SMALLEST_P = 1e-12


def newcombe_spread(a_right: npt.ArrayLike, b_right: npt.ArrayLike, level: float, scale: float) -> Spread:
    """Distances from the accuracy difference to its Newcombe interval's ends, times `scale`.

    A negative `scale` (a part that counts against the composite) swaps the two distances.
    """
    table = PairedTable.from_outcomes(np.asarray(a_right) > 0.5, np.asarray(b_right) > 0.5)
    interval = paired_difference(table, level)
    spread = Spread.around(interval.difference, interval.low, interval.high)
    size = abs(scale)
    if scale < 0:
        return Spread(down=spread.up * size, up=spread.down * size)
    return Spread(down=spread.down * size, up=spread.up * size)


def correlation(first_values: npt.ArrayLike, second_values: npt.ArrayLike) -> float:
    first = np.asarray(first_values, dtype=np.float64)
    second = np.asarray(second_values, dtype=np.float64)
    if first.size < 2 or np.ptp(first) == 0 or np.ptp(second) == 0:
        return 1.0
    return float(np.corrcoef(first, second)[0, 1])


def independent(parts: Sequence[Floor]) -> Floor:
    """Floor of a sum of independent parts."""
    return lambda level: mover_independent([part(level) for part in parts])


def newcombe_sum(parts: Sequence[tuple[npt.ArrayLike, npt.ArrayLike, float]]) -> Floor:
    """Floor of a sum of independent accuracy differences, each (A right, B right, scale)."""
    return independent([_newcombe_floor(a, b, scale) for a, b, scale in parts])


def _newcombe_floor(a_right: npt.ArrayLike, b_right: npt.ArrayLike, scale: float) -> Floor:
    return lambda level: newcombe_spread(a_right, b_right, level, scale)


def floor_p_value(difference: float, floor: Floor) -> float:
    """The p-value of "no difference" the floor implies: 1 - the confidence level at which its interval
    around `difference` first reaches 0 (its spreads grow with the level). 1 when the difference is 0."""
    if difference == 0 or not math.isfinite(difference):
        return 1.0

    def reaches(p: float) -> bool:
        spread = floor(1.0 - p)
        return (spread.down if difference > 0 else spread.up) >= abs(difference)

    if not reaches(SMALLEST_P):
        return SMALLEST_P
    # Bisection on log p: the p-values of interest span many orders of magnitude.
    low, high = math.log(SMALLEST_P), 0.0  # reaches at exp(low); not at exp(high) (the interval is a point)
    for _ in range(60):
        middle = 0.5 * (low + high)
        if reaches(math.exp(middle)):
            low = middle
        else:
            high = middle
    return math.exp(high)
