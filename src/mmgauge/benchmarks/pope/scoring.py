"""POPE's numbers from answered questions: pure, items in, a `PopeResult` out.

Point values are POPE's `evaluate.py` formulas: accuracy (TP+TN)/all, precision TP/(TP+FP), recall
TP/(TP+FN), F1 2PR/(P+R), yes-ratio yes/all, with "yes" the positive class. The official script has no
"unknown" answer; with the `vlmevalkit` reader an unknown is wrong and not a "yes" (so it lowers recall when
the truth is yes), as VLMEvalKit's `POPE_rating` counts it.

Intervals: Clopper-Pearson for accuracy, precision, recall and yes-ratio (each is a share of questions), on
the distinct questions behind the entries (`k = value x n`, possibly fractional, which the exact interval
allows); F1 is no share, so it gets a seeded percentile bootstrap that resamples images, since an image's
questions share what the model saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.pope.result import Metric, PopeResult, PopeScores, split_order
from mmgauge.stats.bootstrap import cluster_weights
from mmgauge.stats.proportion import Interval, proportion_interval

RESAMPLES: Final = 2000
#: Resamples x entries per bootstrap chunk (bounds memory near 32 MB).
_CHUNK_CELLS: Final = 4_000_000


@dataclass(frozen=True)
class PopeItem:
    """One answered question: its id, the splits it belongs to, the truth, the answer read, its image."""

    sample_id: str
    splits: tuple[str, ...]
    truth: str
    answer: str | None
    image: str


def _share(part: int, whole: int, distinct: int) -> Metric | None:
    """part / whole, with an exact interval on the `distinct` questions behind `whole` entries."""
    if whole == 0:
        return None
    value = part / whole
    return Metric(value=value, ci=proportion_interval(value * distinct, distinct, unit="questions"))


def _f1(tp: int, fp: int, fn: int) -> float | None:
    """2PR / (P + R) = 2TP / (2TP + FP + FN); None without a true positive (P + R is then 0 or undefined)."""
    return 2 * tp / (2 * tp + fp + fn) if tp > 0 else None


def _f1_interval(items: Sequence[PopeItem], value: float, seed: int) -> Metric:
    images = {image: code for code, image in enumerate(dict.fromkeys(item.image for item in items))}
    cluster = np.array([images[item.image] for item in items], dtype=np.int64)
    tp = np.array([i.truth == "yes" and i.answer == "yes" for i in items], dtype=np.float64)
    fp = np.array([i.truth == "no" and i.answer == "yes" for i in items], dtype=np.float64)
    fn = np.array([i.truth == "yes" and i.answer != "yes" for i in items], dtype=np.float64)
    rng = np.random.default_rng(seed)
    groups = [np.arange(len(images), dtype=np.int64)]
    rows = max(1, _CHUNK_CELLS // len(items))
    draws: list[npt.NDArray[np.float64]] = []
    for start in range(0, RESAMPLES, rows):
        weights = cluster_weights(cluster, groups, min(rows, RESAMPLES - start), rng)
        w_tp, w_fp, w_fn = weights @ tp, weights @ fp, weights @ fn
        denominator = 2 * w_tp + w_fp + w_fn
        draws.append(np.divide(2 * w_tp, denominator, out=np.full_like(w_tp, np.nan), where=denominator > 0))
    values = np.concatenate(draws)
    values = values[~np.isnan(values)]
    low, high = np.percentile(values, [2.5, 97.5]) if values.size else (value, value)
    distinct = len({item.sample_id for item in items})
    ci = Interval(low=float(low), high=float(high), n=distinct, method="image-bootstrap-percentile",
                  unit="questions")
    return Metric(value=value, ci=ci)


def score_items(items: Sequence[PopeItem], seed: int = 0) -> PopeScores:
    """The scores of one group of entries (non-empty)."""
    tp = sum(i.truth == "yes" and i.answer == "yes" for i in items)
    fp = sum(i.truth == "no" and i.answer == "yes" for i in items)
    tn = sum(i.truth == "no" and i.answer == "no" for i in items)
    fn = sum(i.truth == "yes" and i.answer == "no" for i in items)
    unknown = sum(i.answer is None for i in items)

    def distinct(chosen: Sequence[PopeItem]) -> int:
        return len({item.sample_id for item in chosen})

    said_yes = [i for i in items if i.answer == "yes"]
    true_yes = [i for i in items if i.truth == "yes"]
    accuracy = _share(tp + tn, len(items), distinct(items))
    yes_ratio = _share(len(said_yes), len(items), distinct(items))
    assert accuracy is not None and yes_ratio is not None
    f1 = _f1(tp, fp, len(true_yes) - tp)
    return PopeScores(
        entries=len(items), questions=distinct(items), tp=tp, fp=fp, tn=tn, fn=fn, unknown=unknown,
        accuracy=accuracy,
        precision=_share(tp, len(said_yes), distinct(said_yes)),
        recall=_share(tp, len(true_yes), distinct(true_yes)),
        f1=None if f1 is None else _f1_interval(items, f1, seed),
        yes_ratio=yes_ratio,
    )


def entries(items: Sequence[PopeItem]) -> dict[str, list[PopeItem]]:
    """Split name -> its entries (a question in several splits is an entry of each)."""
    by_split: dict[str, list[PopeItem]] = {}
    for item in items:
        for split in item.splits:
            by_split.setdefault(split, []).append(item)
    return {name: by_split[name] for name in split_order(set(by_split))}


def overall_entries(items: Sequence[PopeItem], by_split: dict[str, list[PopeItem]]) -> list[PopeItem]:
    """Every entry of `by_split` (`entries(items)`), as POPE's three files together (and VLMEvalKit's
    `Overall`, over its exploded categories) count them; a question in no split counts once."""
    grouped = [entry for group in by_split.values() for entry in group]
    return grouped + [item for item in items if not item.splits]


def score_pope(items: Sequence[PopeItem], *, reader: str, failed: int = 0, seed: int = 0,
               notes: Sequence[str] = ()) -> PopeResult:
    """Per split and overall (`overall_entries`)."""
    by_split = entries(items)
    overall = overall_entries(items, by_split)
    return PopeResult(
        reader=reader,
        overall=score_items(overall, seed) if overall else None,
        splits={name: score_items(group, seed) for name, group in by_split.items()},
        failed=failed,
        notes=list(notes),
    )
