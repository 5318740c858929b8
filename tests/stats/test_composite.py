"""Composite-score machinery: multinomial resampling of outcome types and the MOVER floor."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmgauge.stats.composite import (
    Spread,
    draws_correlation,
    hull_with_floor,
    linear_percentiles,
    mover_independent,
    mover_pair,
    percentile_bounds,
    resample_type_counts,
)


def test_type_counts_resample_like_drawing_clusters_with_replacement() -> None:
    counts = np.array([5, 0, 30, 15], dtype=np.int64)
    draws = resample_type_counts(counts, 20000, np.random.default_rng(0))
    assert draws.shape == (20000, 4) and np.all(draws.sum(axis=1) == 50) and np.all(draws[:, 1] == 0)
    share = counts / 50
    # Multinomial(50, share): mean 50 p, variance 50 p (1 - p), the moments of resampling 50 clusters.
    assert draws.mean(axis=0) == pytest.approx(50 * share, abs=0.1)
    assert draws.var(axis=0) == pytest.approx(50 * share * (1 - share), rel=0.05, abs=1e-9)
    again = resample_type_counts(counts, 20000, np.random.default_rng(0))
    assert np.array_equal(draws, again)


def test_mover_adds_in_quadrature_when_independent_and_linearly_when_fully_correlated() -> None:
    first, second = Spread(down=3.0, up=1.0), Spread(down=4.0, up=2.0)
    assert mover_independent([first, second]) == Spread(down=5.0, up=math.sqrt(5.0))
    assert mover_pair(first, second, 1.0) == Spread(down=7.0, up=3.0)
    assert mover_pair(first, second, 0.0) == mover_independent([first, second])
    assert mover_pair(first, second, -0.5) == mover_pair(first, second, 0.0)  # clipped: never narrower


def test_correlation_of_draws_that_never_vary_is_the_widest_case() -> None:
    assert draws_correlation(np.ones(10), np.arange(10.0)) == 1.0
    assert draws_correlation(np.arange(10.0), 2 * np.arange(10.0)) == pytest.approx(1.0)


def test_hull_widens_a_collapsed_bootstrap_and_clips_to_the_score_range() -> None:
    assert hull_with_floor(200.0, (200.0, 200.0), Spread(down=30.0, up=0.0), (0.0, 200.0)) == (170.0, 200.0)
    assert hull_with_floor(10.0, (2.0, 30.0), Spread(down=5.0, up=5.0), (0.0, 200.0)) == (2.0, 30.0)
    assert hull_with_floor(3.0, (3.0, 3.0), Spread(down=5.0, up=5.0), (0.0, 200.0)) == (0.0, 8.0)


@pytest.mark.parametrize("size", [1, 2, 3, 7, 40, 999, 1000, 1001])
def test_linear_percentiles_are_numpys_to_the_bit(size: int) -> None:
    rng = np.random.default_rng(size)
    samples = [
        rng.normal(size=size) * 100,
        rng.integers(0, 4, size=size).astype(np.float64) * 33.3,  # ties
        np.where(rng.random(size) < 0.5, 0.0, -0.0),  # signed zeros
        np.sort(rng.random(size) * 200),
        np.full(size, 150.0),
    ]
    levels = (0.0, 0.5, 0.6827, 0.9, 0.95, 0.99, 0.999, 1.0)
    for values in samples:
        for level in levels:
            tail = (1.0 - level) / 2.0 * 100.0
            percents = [tail, 100.0 - tail]
            expected = np.percentile(values, percents)
            assert linear_percentiles(values, percents).tobytes() == expected.tobytes()
            assert percentile_bounds(values, level) == (float(expected[0]), float(expected[1]))


def test_linear_percentiles_leave_what_they_do_not_cover_to_numpy() -> None:
    with_nan = np.array([1.0, np.nan, 3.0])
    assert np.isnan(linear_percentiles(with_nan, [50.0])).all()
    integers = np.array([1, 2, 3, 4])
    expected = np.percentile(integers, [25.0, 75.0])
    assert linear_percentiles(integers, [25.0, 75.0]).tolist() == expected.tolist()
    with pytest.raises(ValueError):
        linear_percentiles(np.array([1.0, 2.0]), [101.0])
