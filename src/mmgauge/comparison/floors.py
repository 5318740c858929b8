"""Floors for the intervals of composite differences, so that they never collapse to a point.

A paired bootstrap of two runs that agree on every item draws the same difference every time: its interval
is 0-0, a certainty no finite number of items gives. As the scorers do for a single run's composite scores
(docs/statistics.md), the reported interval is the hull of the bootstrap interval and a MOVER floor: the
composite difference is a sum of accuracy differences, each with its Newcombe paired interval (which does
not collapse), combined by MOVER (Zou & Donner 2008) with the correlation of the parts.

- MME subtask score: acc difference (over questions) + acc+ difference (over images), correlated through
  the images they share; rho is the correlation of the per-image differences (the correlation of their
  means under resampling of images), clipped to [0, 1], and 1 (the widest case) when it cannot be estimated.
- Sums over disjoint parts (MME totals, means over abilities or languages, GIA over question types): the
  parts are independent, distances add in quadrature.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mmgauge.stats.composite import Spread, mover_independent, mover_pair
from mmgauge.stats.paired import PairedTable, paired_difference


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


def _correlation(first_values: npt.ArrayLike, second_values: npt.ArrayLike) -> float:
    first = np.asarray(first_values, dtype=np.float64)
    second = np.asarray(second_values, dtype=np.float64)
    if first.size < 2 or np.ptp(first) == 0 or np.ptp(second) == 0:
        return 1.0
    return float(np.corrcoef(first, second)[0, 1])


def mme_subtask_floor(
    a_cols: npt.NDArray[np.float64], b_cols: npt.NDArray[np.float64], image: npt.NDArray[np.str_],
    level: float,
) -> Spread:
    """Floor of one subtask's score difference (points): columns are [right, both right] per question."""
    _, first, codes = np.unique(image, return_index=True, return_inverse=True)
    codes = codes.reshape(-1)
    acc = newcombe_spread(a_cols[:, 0], b_cols[:, 0], level, 100.0)
    plus = newcombe_spread(a_cols[first, 1], b_cols[first, 1], level, 100.0)
    per_image_acc = np.bincount(codes, weights=a_cols[:, 0] - b_cols[:, 0])
    per_image_plus = a_cols[first, 1] - b_cols[first, 1]
    return mover_pair(acc, plus, _correlation(per_image_acc, per_image_plus))


def independent(parts: list[Spread]) -> Spread:
    return mover_independent(parts)
