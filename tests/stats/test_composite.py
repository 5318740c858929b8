"""Composite-score machinery: multinomial resampling of outcome types and the MOVER floor."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmgauge.stats.composite import (
    Spread,
    draws_correlation,
    hull_with_floor,
    mover_independent,
    mover_pair,
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
