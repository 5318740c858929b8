"""One compared number of two runs on the same items: its difference, interval, test and detectable size.

- Per-item right/wrong metrics (accuracies): exact McNemar on the discordant items, Newcombe's paired score
  interval of the difference, and the smallest difference a McNemar test on these items detects with the
  asked power at the observed discordance.
- Composite scores (MME score and totals, means over abilities or languages, GIA, M3GIA with several
  rounds): the paired clustered bootstrap, its percentile interval (widened to a MOVER floor where one
  applies, see `floors.py`) and bootstrap p-value, raised to the floor's own p-value where the interval
  is widened (so that a p-value never claims more than the interval beside it); the detectable difference
  from its standard error, (z_{1-alpha/2} + z_power) x SE, SE read off the interval's width.

The verdict (`significant`) is read off the interval printed beside it: a difference is told apart from 0
when its interval excludes 0. With more than two runs, Holm's correction must also reject (`core.py`).
Exact McNemar is more conservative than Newcombe's interval: it may not reject where the interval excludes
0, never the other way round.

Differences are A minus B, in the metric's own unit (percentage points, or score points).
"""

from __future__ import annotations

import math
import zlib
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from mmgauge.parts.floors import Floor, floor_p_value
from mmgauge.stats.bootstrap import Statistic, paired_bootstrap
from mmgauge.stats.composite import hull_with_floor
from mmgauge.stats.paired import PairedTable, mcnemar_exact, minimum_detectable_difference, paired_difference
from mmgauge.stats.special import normal_quantile

MCNEMAR: Final = "mcnemar-exact"
BOOTSTRAP: Final = "paired-bootstrap"
#: How `significant` was decided (`MetricRow.verdict_from`).
BY_INTERVAL: Final = "interval"
BY_INTERVAL_AND_HOLM: Final = "interval and Holm"


class CompareSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: Confidence level of the intervals.
    level: float = Field(default=0.95, gt=0.0, lt=1.0)
    #: Significance level of the tests (after Holm's correction with more than two runs).
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    #: Power at which the minimum detectable difference is given.
    power: float = Field(default=0.8, gt=0.0, lt=1.0)
    resamples: int = Field(default=2000, ge=100)
    seed: int = 0


class MetricRow(BaseModel):
    """Run A against run B on one number of one benchmark."""

    benchmark: str
    #: What is measured: acc, acc+, score, circular, vanilla, accuracy, GIA, ...
    metric: str
    #: Over what: overall, a subtask, an L2 ability, a language, ...
    breakdown: str
    #: A headline number (shown in the short table and marked in the report's leaderboard).
    headline: bool = False
    #: "%" (percentage points for the difference) or "points".
    unit: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    level: float
    #: Paired items the comparison rests on, and what one is.
    n: int
    n_unit: str
    test: Literal["mcnemar-exact", "paired-bootstrap"]
    interval_method: str
    #: The test's p-value; for an interval widened to a floor, the larger of the bootstrap's and the floor's.
    p_value: float
    #: The bootstrap's own p-value where `p_value` was raised to the floor's (None otherwise).
    p_bootstrap: float | None = None
    #: McNemar's discordant counts: A right and B wrong, B right and A wrong.
    a_only: int | None = None
    b_only: int | None = None
    #: Smallest |difference| detectable at the asked power on these items (None: none is, or no spread).
    mdd: float | None = None
    #: Holm-adjusted p over the pairs of runs compared on this number (= p_value with two runs).
    p_adjusted: float | None = None
    family_size: int = 1
    #: The verdict: the interval excludes 0 (and, with more than two runs, p_adjusted <= alpha).
    significant: bool = False
    #: What decided `significant`: "interval", or "interval and Holm" with more than two runs.
    verdict_from: str = BY_INTERVAL

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0.0 or self.high < 0.0

    @property
    def p_final(self) -> float:
        return self.p_adjusted if self.p_adjusted is not None else self.p_value


def accuracy_row(
    benchmark: str, metric: str, breakdown: str, a_right: npt.ArrayLike, b_right: npt.ArrayLike,
    n_unit: str, settings: CompareSettings, *, headline: bool = False,
) -> MetricRow:
    """Paired accuracies (percent) of 0/1 outcomes: McNemar, Newcombe, minimum detectable difference."""
    table = PairedTable.from_outcomes(np.asarray(a_right) > 0.5, np.asarray(b_right) > 0.5)
    test = mcnemar_exact(table)
    interval = paired_difference(table, settings.level)
    n = table.n
    mdd = minimum_detectable_difference(n, table.discordant / n, alpha=settings.alpha, power=settings.power)
    return MetricRow(
        benchmark=benchmark, metric=metric, breakdown=breakdown, headline=headline, unit="%",
        a=100.0 * (table.both + table.a_only) / n, b=100.0 * (table.both + table.b_only) / n,
        difference=100.0 * interval.difference, low=100.0 * interval.low, high=100.0 * interval.high,
        level=settings.level, n=n, n_unit=n_unit, test=MCNEMAR, interval_method=interval.method,
        p_value=test.p_value, a_only=table.a_only, b_only=table.b_only,
        mdd=None if mdd is None else 100.0 * mdd, p_adjusted=test.p_value,
        significant=interval.low > 0.0 or interval.high < 0.0,
    )


def bootstrap_row(
    benchmark: str, metric: str, breakdown: str, a_outcomes: npt.ArrayLike, b_outcomes: npt.ArrayLike,
    statistic: Statistic, n_unit: str, settings: CompareSettings, *, unit: str,
    clusters: npt.ArrayLike | None = None, strata: npt.ArrayLike | None = None, headline: bool = False,
    floor: Floor | None = None, bounds: tuple[float, float] = (-math.inf, math.inf),
) -> MetricRow:
    """The paired clustered bootstrap of statistic(A) - statistic(B); n counts the clusters.

    With a `floor` (see `floors.py`) the interval is the hull of the bootstrap's and the floor's, clipped
    to `bounds` (the values a difference can take), and the p-value the larger of the bootstrap's and the
    floor's: the hull excludes 0 only when both intervals do, so p and interval tell one story.
    """
    # Seeded per number, so a row's draws do not depend on which other rows are compared.
    seed = zlib.crc32(f"{settings.seed}:{benchmark}:{metric}:{breakdown}".encode())
    result = paired_bootstrap(a_outcomes, b_outcomes, statistic, clusters=clusters, strata=strata,
                              resamples=settings.resamples, seed=seed, level=settings.level)
    low, high = result.low, result.high
    method = result.method
    p_value, p_bootstrap = result.p_value, None
    if floor is not None:
        low, high = hull_with_floor(result.difference, (low, high), floor(settings.level), bounds)
        method += "+mover-newcombe"
        p_value, p_bootstrap = max(result.p_value, floor_p_value(result.difference, floor)), result.p_value
    z_level = normal_quantile(0.5 + settings.level / 2.0)
    spread = (high - low) / (2.0 * z_level)
    z_sum = normal_quantile(1.0 - settings.alpha / 2.0) + normal_quantile(settings.power)
    return MetricRow(
        benchmark=benchmark, metric=metric, breakdown=breakdown, headline=headline, unit=unit, a=result.a,
        b=result.b, difference=result.difference, low=low, high=high, level=settings.level,
        n=result.n_clusters, n_unit=n_unit, test=BOOTSTRAP, interval_method=method,
        p_value=p_value, p_bootstrap=p_bootstrap, mdd=z_sum * spread if spread > 0 else None,
        p_adjusted=p_value, significant=low > 0.0 or high < 0.0,
    )
