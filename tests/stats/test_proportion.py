"""Proportion intervals: against statsmodels, exact coverage, and the cases that used to collapse."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.stats.proportion import ProportionMethod, exact_coverage, proportion_interval

#: Our method name and statsmodels' name for it.
PAIRS: list[tuple[ProportionMethod, str]] = [("clopper-pearson", "beta"), ("wilson", "wilson")]


def test_clopper_pearson_and_wilson_match_statsmodels() -> None:
    proportion = pytest.importorskip(
        "statsmodels.stats.proportion", reason="statsmodels (dev extra) is the independent reference")
    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.choice([rng.integers(1, 30), rng.integers(30, 3000), rng.integers(3000, 2_000_000)]))
        k = int(rng.integers(0, n + 1)) if rng.random() < 0.8 else int(rng.choice([0, n]))
        level = float(rng.choice([0.9, 0.95, 0.99]))
        for ours, theirs in PAIRS:
            interval = proportion_interval(k, n, level=level, method=ours)
            low, high = proportion.proportion_confint(k, n, alpha=1 - level, method=theirs)
            assert interval.low == pytest.approx(low, rel=1e-8, abs=1e-12), (ours, k, n, level)
            assert interval.high == pytest.approx(high, rel=1e-8, abs=1e-12), (ours, k, n, level)


def test_published_clopper_pearson_values() -> None:
    # Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables (2017), ch. 2: 13 of 16
    # -> 0.5435 to 0.9595; 10 of 10 -> 0.6915 to 1; 0 of 10 -> 0 to 0.3085.
    assert [round(x, 4) for x in proportion_interval(13, 16).bounds()] == [0.5435, 0.9595]
    assert [round(x, 4) for x in proportion_interval(10, 10).bounds()] == [0.6915, 1.0]
    assert [round(x, 4) for x in proportion_interval(0, 10).bounds()] == [0.0, 0.3085]


@pytest.mark.parametrize("n", [10, 100, 1000])
@pytest.mark.parametrize("p", [0.0, 0.05, 0.5])
def test_clopper_pearson_keeps_95_percent_coverage(n: int, p: float) -> None:
    """Coverage summed exactly over every k: the exact interval never drops below its level."""
    assert exact_coverage(p, n) >= 0.95 - 1e-9


@pytest.mark.parametrize(("n", "p", "expected"), [
    (10, 0.0, 1.0), (10, 0.05, 0.9139), (10, 0.5, 0.9785),
    (100, 0.05, 0.9659), (100, 0.5, 0.9431), (1000, 0.05, 0.9504), (1000, 0.5, 0.9463),
])
def test_wilson_coverage_is_close_to_but_not_always_above_95(n: int, p: float, expected: float) -> None:
    # The reason Clopper-Pearson is the default: Wilson's coverage dips to 91% at n = 10, p = 0.05.
    assert exact_coverage(p, n, method="wilson") == pytest.approx(expected, abs=1e-4)


def test_all_right_or_all_wrong_no_longer_collapses() -> None:
    all_right = proportion_interval(10, 10).scaled(100)
    assert all_right.high == 100.0 and 60 < all_right.low < 75 and all_right.n == 10
    all_wrong = proportion_interval(0, 10).scaled(100)
    assert all_wrong.low == 0.0 and 25 < all_wrong.high < 35
    assert all_wrong.text() == "95% CI 0.00-30.85, n=10"


def test_fractional_counts_sit_between_their_whole_neighbours() -> None:
    low, high = proportion_interval(7.5, 10).bounds()
    assert proportion_interval(7, 10).low < low < proportion_interval(8, 10).low
    assert proportion_interval(7, 10).high < high < proportion_interval(8, 10).high


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="n > 0"):
        proportion_interval(0, 0)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        proportion_interval(11, 10)
