"""An interval for one run's GIA (official scale), honest at every n (docs/statistics.md, "GIA").

The published model makes the GIA linear in the counts of right answers per count column t:
GIA = c + sum_t W_t x_t, with W the general factor's row of the regression weights and
c = alpha_g - W nu. Over several rounds the reported GIA is the mean of the rounds' GIAs, which (being linear)
is the same form with each question's share of right rounds.

The interval is the one MME's scores get: a bootstrap over questions, stratified by count column (the
published model fixes how many questions each column has), never narrower than the MOVER sum of the
columns' Clopper-Pearson intervals (so all-right or all-wrong answers still give an interval with width),
clipped to the values the GIA can take.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt

from mmgauge.stats.composite import Spread, hull_with_floor, mover_independent, percentile_bounds
from mmgauge.stats.proportion import Interval, proportion_interval

FloatArray = npt.NDArray[np.float64]

GIA_METHOD: Final = "bootstrap-questions+mover-clopper-pearson"
DEFAULT_RESAMPLES: Final = 1000


def gia_linear_form(language: str) -> tuple[dict[str, float], float]:
    """Per count column, the GIA one right answer adds; and the GIA of all answers wrong."""
    from mmgauge.benchmarks.m3gia.gia import GENERAL_FACTOR, load_published_model

    model = load_published_model(language)
    general = model.factors.index(GENERAL_FACTOR)
    weights = model.weights()[general]
    constant = float(model.alpha[general] - weights @ model.nu)
    return {name: float(w) for name, w in zip(model.indicators, weights.tolist(), strict=True)}, constant


def gia_interval(
    shares: Mapping[str, FloatArray],
    language: str,
    estimate: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """The interval of `estimate` (the run's GIA) from each count column's per-question shares of right
    rounds (0 or 1 with one round); every column of the published model must be given."""
    weights, constant = gia_linear_form(language)
    # One generator per language: a language's interval does not depend on which others were run.
    rng = np.random.default_rng([seed, *language.encode("utf-8")])
    draws = np.full(resamples, constant)
    parts: list[Spread] = []
    low_end = high_end = constant
    questions = 0
    for column, weight in weights.items():
        values = np.asarray(shares[column], dtype=np.float64)
        n = int(values.size)
        questions += n
        low_end += min(0.0, weight * n)
        high_end += max(0.0, weight * n)
        if n == 0:
            continue
        picks = rng.integers(0, n, size=(resamples, n))
        draws += weight * values[picks].sum(axis=1)
        right = float(values.sum())
        # Summing shares over rounds can leave rounding dust around a whole count.
        right = float(round(right)) if abs(right - round(right)) < 1e-9 else min(max(right, 0.0), float(n))
        share = proportion_interval(right, n, level=level)
        ends = sorted((weight * n * share.low, weight * n * share.high))
        parts.append(Spread.around(weight * right, ends[0], ends[1]))
    low, high = hull_with_floor(estimate, percentile_bounds(draws, level), mover_independent(parts),
                                (low_end, high_end))
    return Interval(low=low, high=high, n=questions, method=GIA_METHOD, level=level, unit="questions")
