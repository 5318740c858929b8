"""Paired tests: McNemar, the paired difference interval, Holm and the detectable difference, checked
against statsmodels / scipy and published values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmgauge.stats.paired import (
    PairedTable,
    holm,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_difference,
)
from mmgauge.stats.special import binomial_pmf

# Cavo et al. (2012), the worked example of Fagerland, Lydersen & Laake (2017), ch. 8: 59 both, 6 before
# only, 16 after only, 80 neither.
CAVO = PairedTable(both=59, a_only=6, b_only=16, neither=80)


def test_published_values_of_the_cavo_example() -> None:
    result = mcnemar_exact(CAVO)
    assert round(result.p_value, 6) == 0.052479  # "McNemar exact conditional test: P = 0.052479"
    assert round(result.mid_p_value, 6) == 0.034690  # "McNemar mid-P test: P = 0.034690"
    diff = paired_difference(CAVO)
    # "Newcombe square-and-add CI: estimate = -0.0621 (95% CI -0.1186 to -0.0046)"
    assert [round(x, 4) for x in (diff.difference, diff.low, diff.high)] == [-0.0621, -0.1186, -0.0046]


def test_mcnemar_matches_statsmodels_and_scipy() -> None:
    contingency = pytest.importorskip(
        "statsmodels.stats.contingency_tables", reason="statsmodels (dev extra) is the independent reference")
    stats = pytest.importorskip("scipy.stats", reason="scipy (dev extra) is the independent reference")
    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(1, 3000))
        a = rng.random(n) < rng.uniform(0.05, 0.95)
        b = np.where(rng.random(n) < rng.uniform(0.3, 1.0), a, rng.random(n) < 0.5)
        table = PairedTable.from_outcomes(a, b)
        ours = mcnemar_exact(table)
        theirs = contingency.mcnemar([[table.both, table.a_only], [table.b_only, table.neither]], exact=True)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)
        if table.discordant:
            binom = stats.binomtest(table.a_only, table.discordant, 0.5).pvalue
            assert ours.p_value == pytest.approx(binom, rel=1e-9, abs=1e-300)


def test_mcnemar_without_discordant_pairs_finds_nothing() -> None:
    result = mcnemar_exact(PairedTable(both=10, a_only=0, b_only=0, neither=5))
    assert (result.p_value, result.mid_p_value) == (1.0, 1.0)


def test_paired_difference_of_identical_runs_is_not_a_point() -> None:
    # Two runs that agree on all 20 items: difference 0, but 20 items cannot rule out a real gap.
    diff = paired_difference(PairedTable(both=12, a_only=0, b_only=0, neither=8))
    assert diff.difference == 0.0 and diff.low < -0.05 and diff.high > 0.05


def test_paired_difference_holds_its_estimate() -> None:
    rng = np.random.default_rng(9)
    for _ in range(200):
        counts = rng.integers(0, 40, size=4)
        if counts.sum() == 0:
            continue
        table = PairedTable(both=int(counts[0]), a_only=int(counts[1]), b_only=int(counts[2]),
                            neither=int(counts[3]))
        diff = paired_difference(table)
        assert -1 <= diff.low <= diff.difference <= diff.high <= 1
        assert diff.difference == pytest.approx((table.a_only - table.b_only) / table.n)


def test_holm_matches_statsmodels() -> None:
    multitest = pytest.importorskip(
        "statsmodels.stats.multitest", reason="statsmodels (dev extra) is the independent reference")
    rng = np.random.default_rng(2)
    for _ in range(40):  # statsmodels' multipletests takes ~30 ms a call
        p = list(rng.uniform(0, 0.2, size=int(rng.integers(1, 12))))
        ours = holm(p, alpha=0.05)
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
        assert ours.adjusted == pytest.approx(list(adjusted), rel=1e-12)
        assert ours.reject == list(reject)


def _exact_mcnemar_power(n: int, discordance: float, difference: float) -> float:
    """Power of the two-sided exact McNemar test at 5%, by summing over every outcome (no simulation)."""
    share_a = (discordance + difference) / 2 / discordance  # of the discordant pairs, A's share
    power = 0.0
    for m in range(n + 1):
        weight = binomial_pmf(m, n, discordance)
        if weight < 1e-12 or m == 0:
            continue
        k = np.arange(m + 1)
        cdf = np.cumsum([binomial_pmf(int(j), m, 0.5) for j in k])
        low = np.minimum(k, m - k)
        p_values = np.minimum(1.0, 2 * cdf[low])
        chance = np.array([binomial_pmf(int(j), m, share_a) for j in k])
        power += weight * float(chance[p_values <= 0.05].sum())
    return power


def test_minimum_detectable_difference_has_about_80_percent_power() -> None:
    n, discordance = 300, 0.2
    mdd = minimum_detectable_difference(n, discordance)
    assert mdd is not None and 0.05 < mdd < 0.08
    # Connor's approximation against the exact test's power computed by enumeration.
    assert _exact_mcnemar_power(n, discordance, mdd) == pytest.approx(0.8, abs=0.03)
    # Closed-form check of the equation it solves.
    z_a, z_b = 1.959963984540054, 0.8416212335729143
    assert n == pytest.approx((z_a * math.sqrt(discordance) + z_b * math.sqrt(discordance - mdd**2)) ** 2
                              / mdd**2, rel=1e-9)


def test_minimum_detectable_difference_shrinks_with_n_and_can_be_out_of_reach() -> None:
    first, second = minimum_detectable_difference(500, 0.1), minimum_detectable_difference(2000, 0.1)
    assert first is not None and second is not None and second < first
    assert minimum_detectable_difference(10, 0.1) is None  # even all discordant pairs one way is too few
    assert minimum_detectable_difference(100, 0.0) is None
