"""Paired clustered bootstrap of the difference of a composite score between two runs on the same items.

Both runs are resampled with the SAME draw of clusters (images, question groups), so what the pairing
shares cancels out. Clusters are drawn with replacement, within strata when given (e.g. MME subtasks, whose
sizes are fixed by the benchmark). A statistic sees the outcomes and, per resample, how often each item was
drawn, so one resample costs a few array operations and no copies of the data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from mmgauge.core.ordered_sum import ordered_matmul

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: statistic(outcomes, weights) -> values. `outcomes` has one row per item (any trailing shape);
#: `weights` has shape (resamples, items): how often each item was drawn. One value per resample.
Statistic = Callable[[npt.NDArray[Any], FloatArray], FloatArray]
#: Resamples x items cells per chunk: bounds memory at ~32 MB of weights whatever the data size.
_CHUNK_CELLS = 4_000_000


class PairedBootstrap(BaseModel):
    model_config = ConfigDict(frozen=True)

    a: float
    b: float
    #: statistic(A) - statistic(B) on the items as they are.
    difference: float
    low: float
    high: float
    #: Two-sided bootstrap p-value of "no difference": 2 min(share of draws <= 0, share >= 0), capped at 1.
    p_value: float
    level: float
    resamples: int
    seed: int
    n_items: int
    n_clusters: int
    method: str = "paired-cluster-bootstrap-percentile"


def _codes(values: npt.ArrayLike | None, n: int) -> IntArray:
    if values is None:
        return np.arange(n, dtype=np.int64)
    array = np.asarray(values)
    if array.shape != (n,):
        raise ValueError(f"need one label per item ({n}), got shape {array.shape}")
    _, codes = np.unique(array, return_inverse=True)
    return codes.astype(np.int64).reshape(n)


def _cluster_strata(cluster: IntArray, stratum: IntArray) -> list[IntArray]:
    """The cluster ids of each stratum; a cluster must lie in one stratum."""
    n_clusters = int(cluster.max()) + 1
    owner = np.full(n_clusters, -1, dtype=np.int64)
    owner[cluster] = stratum
    if not np.array_equal(owner[cluster], stratum):
        raise ValueError("a cluster spans several strata")
    return [np.flatnonzero(owner == s).astype(np.int64) for s in range(int(stratum.max()) + 1)]


def cluster_weights(
    cluster: IntArray, groups: list[IntArray], rows: int, rng: np.random.Generator
) -> FloatArray:
    """`rows` resamples of clusters (within each group of cluster ids), as per-item draw counts."""
    n_clusters = int(cluster.max()) + 1
    counts = np.zeros((rows, n_clusters), dtype=np.float64)
    offsets = (np.arange(rows, dtype=np.int64) * n_clusters)[:, None]
    for ids in groups:
        picks = ids[rng.integers(0, len(ids), size=(rows, len(ids)))]
        drawn = np.bincount((picks + offsets).ravel(), minlength=rows * n_clusters)
        counts += drawn.reshape(rows, n_clusters)
    weights: FloatArray = counts[:, cluster]
    return weights


def paired_bootstrap(
    a_outcomes: npt.ArrayLike,
    b_outcomes: npt.ArrayLike,
    statistic: Statistic,
    *,
    clusters: npt.ArrayLike | None = None,
    strata: npt.ArrayLike | None = None,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedBootstrap:
    """Percentile interval of statistic(A) - statistic(B) over paired cluster resamples (seeded).

    `a_outcomes` and `b_outcomes` hold the two runs' outcomes on the same items in the same order;
    `clusters` labels the item's cluster (default: each item its own), `strata` the item's stratum.
    """
    a, b = np.asarray(a_outcomes), np.asarray(b_outcomes)
    if a.shape != b.shape or a.ndim == 0 or a.shape[0] == 0:
        raise ValueError(f"paired outcomes need the same non-empty shape, got {a.shape} and {b.shape}")
    n = a.shape[0]
    cluster = _codes(clusters, n)
    stratum = _codes(strata, n) if strata is not None else np.zeros(n, dtype=np.int64)
    groups = _cluster_strata(cluster, stratum)
    whole = np.ones((1, n))
    a_value, b_value = float(statistic(a, whole)[0]), float(statistic(b, whole)[0])
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_CELLS // n)
    parts: list[FloatArray] = []
    for start in range(0, resamples, rows):
        weights = cluster_weights(cluster, groups, min(rows, resamples - start), rng)
        parts.append(np.asarray(statistic(a, weights) - statistic(b, weights), dtype=np.float64))
    draws = np.concatenate(parts)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(draws, [tail, 100.0 - tail])
    p_value = min(1.0, 2.0 * min(float(np.mean(draws <= 0)), float(np.mean(draws >= 0))))
    return PairedBootstrap(
        a=a_value, b=b_value, difference=a_value - b_value, low=float(low), high=float(high),
        p_value=p_value, level=level, resamples=resamples, seed=seed, n_items=n,
        n_clusters=int(cluster.max()) + 1,
    )


def sum_of_group_means(groups: npt.ArrayLike, scale: float = 1.0) -> Statistic:
    """A statistic: scale x the sum over groups and outcome columns of the weighted mean within the group.

    With outcomes (items, columns): MME perception = sum_of_group_means(subtask, 100) over questions with
    columns [right, both questions of its image right] and clusters = images (acc+ is then the mean of
    the image flag over questions, since both questions of an image carry the same weight). A plain
    accuracy is sum_of_group_means(zeros) over a 1-column 0/1 outcome. A group no item of which was drawn
    counts 0 in that resample.
    """
    codes = _codes(groups, len(np.asarray(groups)))
    members = [np.flatnonzero(codes == g) for g in range(int(codes.max()) + 1)]

    def statistic(outcomes: npt.NDArray[Any], weights: FloatArray) -> FloatArray:
        values = np.asarray(outcomes, dtype=np.float64).reshape(len(codes), -1)
        total = np.zeros(weights.shape[0])
        for items in members:
            # Summed in a fixed order (not by BLAS), so the interval is the same on any thread count.
            drawn = weights[:, items]
            size = drawn.sum(axis=1)
            for column in values[items].T:
                sums = ordered_matmul(drawn, column)
                total += np.divide(sums, size, out=np.zeros_like(sums), where=size > 0)
        result: FloatArray = total * scale
        return result

    return statistic
