"""The hand-written special functions against scipy.special / scipy.stats on random arguments."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.stats.special import betainc, betaincinv, binomial_cdf, binomial_pmf

scipy_special = pytest.importorskip("scipy.special", reason="scipy (dev extra) is the independent reference")
scipy_stats = pytest.importorskip("scipy.stats", reason="scipy (dev extra) is the independent reference")


@pytest.mark.parametrize("largest", [10, 1_000, 100_000])
def test_incomplete_beta_and_its_inverse_match_scipy(largest: int) -> None:
    rng = np.random.default_rng(largest)
    for _ in range(300):
        a, b = float(rng.integers(1, largest + 1)), float(rng.integers(1, largest + 1))
        if rng.random() < 0.3:  # non-integer shapes too (fractional counts, Beta(0.5, ...))
            a, b = a * rng.uniform(0.05, 1.0), b * rng.uniform(0.05, 1.0)
        x = float(scipy_stats.beta.ppf(rng.uniform(0.001, 0.999), a, b))
        assert betainc(a, b, x) == pytest.approx(scipy_special.betainc(a, b, x), rel=1e-8, abs=1e-15)
        q = float(rng.uniform(1e-6, 1 - 1e-6))
        assert betaincinv(a, b, q) == pytest.approx(scipy_special.betaincinv(a, b, q), rel=1e-9)


def test_binomial_tails_match_scipy() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(1, 5000))
        k = int(rng.integers(0, n + 1))
        p = float(rng.uniform(0.001, 0.999))
        assert binomial_cdf(k, n, p) == pytest.approx(scipy_stats.binom.cdf(k, n, p), rel=1e-9, abs=1e-300)
        assert binomial_pmf(k, n, p) == pytest.approx(scipy_stats.binom.pmf(k, n, p), rel=1e-9, abs=1e-300)


def test_edges() -> None:
    assert (betainc(2.0, 3.0, 0.0), betainc(2.0, 3.0, 1.0)) == (0.0, 1.0)
    assert (betaincinv(2.0, 3.0, 0.0), betaincinv(2.0, 3.0, 1.0)) == (0.0, 1.0)
    assert binomial_cdf(-1, 10, 0.3) == 0.0 and binomial_cdf(10, 10, 0.3) == 1.0
    with pytest.raises(ValueError, match="a > 0"):
        betainc(0.0, 1.0, 0.5)
