"""The paired clustered bootstrap: pairing, clustering, strata, and agreement with the MME scorer."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.benchmarks.mme.scoring import PERCEPTION, MMEItem, score_mme
from mmgauge.stats.bootstrap import cluster_weights, paired_bootstrap, sum_of_group_means


def test_identical_runs_differ_by_exactly_nothing() -> None:
    outcomes = np.random.default_rng(0).random(200) < 0.7
    statistic = sum_of_group_means(np.zeros(200))
    result = paired_bootstrap(outcomes, outcomes, statistic, resamples=300)
    assert (result.difference, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_seeded_and_brackets_a_clear_difference() -> None:
    rng = np.random.default_rng(1)
    a = rng.random(1000) < 0.8
    b = a & (rng.random(1000) < 0.9)  # B loses about 8 points, always on items A got right
    statistic = sum_of_group_means(np.zeros(1000))
    first = paired_bootstrap(a, b, statistic, resamples=500, seed=3)
    assert first == paired_bootstrap(a, b, statistic, resamples=500, seed=3)
    assert first.difference == pytest.approx(a.mean() - b.mean())
    assert 0 < first.low < first.difference < first.high and first.p_value == 0.0
    # The paired bootstrap's spread matches the normal theory of the discordant counts:
    # var(d) = (psi - d^2) / n with psi the discordant share.
    psi = float((a != b).mean())
    half = 1.96 * np.sqrt((psi - first.difference**2) / 1000)
    assert (first.high - first.low) / 2 == pytest.approx(half, rel=0.15)


def test_clusters_and_strata_keep_their_sizes() -> None:
    cluster = np.repeat(np.arange(6), 2)  # 6 clusters of 2 items
    groups = [np.array([0, 1, 2]), np.array([3, 4, 5])]  # two strata of 3 clusters
    weights = cluster_weights(cluster, groups, 50, np.random.default_rng(0))
    assert weights.shape == (50, 12)
    assert np.all(weights[:, 0] == weights[:, 1])  # an image's questions are drawn together
    assert np.all(weights[:, :6].sum(axis=1) == 6) and np.all(weights[:, 6:].sum(axis=1) == 6)


def test_a_cluster_may_not_span_strata() -> None:
    with pytest.raises(ValueError, match="spans several strata"):
        paired_bootstrap(np.ones(2), np.ones(2), sum_of_group_means(np.zeros(2)), clusters=[0, 0],
                         strata=[0, 1])


def test_sum_of_group_means_is_the_mme_total() -> None:
    rng = np.random.default_rng(2)
    items: list[MMEItem] = []
    for subtask in PERCEPTION[:4]:
        for image in range(15):
            for truth in ("yes", "no"):
                answer = truth if rng.random() < 0.75 else ("no" if truth == "yes" else "yes")
                items.append(MMEItem(subtask, f"{image}", truth, answer))
    right = np.array([item.answer == item.truth for item in items], dtype=float)
    image_both = np.repeat(right.reshape(-1, 2).min(axis=1), 2)
    subtask = np.array([item.subtask for item in items])
    statistic = sum_of_group_means(subtask, scale=100.0)
    value = statistic(np.c_[right, image_both], np.ones((1, len(items))))[0]
    assert value == pytest.approx(score_mme(items, parser="official").perception.score, rel=1e-12)
