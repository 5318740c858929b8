"""Agreement between two raters on the same items (judge vs rule, judge vs judge): Cohen's kappa.

kappa = (p_o - p_e) / (1 - p_e), p_o the share of items both raters put in one category, p_e the share
expected by chance from their marginal frequencies. Its interval is kappa +- z SE with the large-sample
standard error of Fleiss, Cohen & Everitt (1969), clipped to [-1, 1]. That Wald interval collapses when
the raters agree on everything, so the raw agreement p_o is reported beside it with its exact
(Clopper-Pearson) interval, which does not.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from mmgauge.stats.proportion import Interval, proportion_interval
from mmgauge.stats.special import normal_quantile


class Kappa(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: None when chance agreement is 1 (both raters always gave the same single category): undefined.
    #: When one rater alone never varies the formula gives 0 (as statsmodels does) but measures nothing:
    #: `single_category` says so, the interval is None and displays call kappa undefined.
    kappa: float | None
    low: float | None
    high: float | None
    standard_error: float | None
    n: int
    observed_agreement: float
    expected_agreement: float
    #: Exact interval of the observed agreement p_o (n = items).
    agreement_ci: Interval
    categories: list[str]
    level: float
    method: str = "cohen-kappa-fleiss-se"
    #: Per rater (first, second): the one category it gave to every item, or None when it varied.
    single_category: list[str | None] = [None, None]


def cohen_kappa(
    first: Sequence[Hashable], second: Sequence[Hashable], *, level: float = 0.95
) -> Kappa:
    """Cohen's kappa of two raters' labels for the same items, in the same order (labels of any type)."""
    if len(first) != len(second) or not first:
        raise ValueError(f"kappa needs two non-empty label lists of one length, got {len(first)} and "
                         f"{len(second)}")
    names = sorted({str(x) for x in first} | {str(x) for x in second})
    index = {name: i for i, name in enumerate(names)}
    table = np.zeros((len(names), len(names)))
    np.add.at(table, ([index[str(x)] for x in first], [index[str(x)] for x in second]), 1.0)
    n = len(first)
    share = table / n
    rows, cols = share.sum(axis=1), share.sum(axis=0)
    observed = float(np.trace(share))
    expected = float(rows @ cols)
    agreement = proportion_interval(int(np.trace(table).round()), n, level=level, unit="items")
    single = [_single(first), _single(second)]
    if expected >= 1.0:
        return Kappa(kappa=None, low=None, high=None, standard_error=None, n=n, observed_agreement=observed,
                     expected_agreement=expected, agreement_ci=agreement, categories=names, level=level,
                     single_category=single)
    kappa = (observed - expected) / (1.0 - expected)
    if single != [None, None]:  # kappa is 0 whatever the other rater does; its Wald interval is 0 to 0
        return Kappa(kappa=kappa, low=None, high=None, standard_error=None, n=n, observed_agreement=observed,
                     expected_agreement=expected, agreement_ci=agreement, categories=names, level=level,
                     single_category=single)
    se = _fleiss_standard_error(share, rows, cols, kappa, expected, n)
    z = normal_quantile(1.0 - (1.0 - level) / 2.0)
    return Kappa(kappa=kappa, low=max(-1.0, kappa - z * se), high=min(1.0, kappa + z * se), standard_error=se,
                 n=n, observed_agreement=observed, expected_agreement=expected, agreement_ci=agreement,
                 categories=names, level=level)


def _single(labels: Sequence[Hashable]) -> str | None:
    """The one category a rater gave to every item (it then agrees with the other exactly as chance does)."""
    found = {str(x) for x in labels}
    return next(iter(found)) if len(found) == 1 else None


def _fleiss_standard_error(
    share: np.ndarray, rows: np.ndarray, cols: np.ndarray, kappa: float, expected: float, n: int
) -> float:
    """Var = [sum_i p_ii (1 - (p_i. + p_.i)(1 - k))^2 + (1 - k)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
    - (k - p_e (1 - k))^2] / (n (1 - p_e)^2)."""
    diagonal = np.diag(share)
    on = float(np.sum(diagonal * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2))
    spread = (cols[:, None] + rows[None, :]) ** 2
    off_share = share.copy()
    np.fill_diagonal(off_share, 0.0)
    off = (1.0 - kappa) ** 2 * float(np.sum(off_share * spread))
    variance = (on + off - (kappa - expected * (1.0 - kappa)) ** 2) / ((1.0 - expected) ** 2 * n)
    return math.sqrt(max(variance, 0.0))
