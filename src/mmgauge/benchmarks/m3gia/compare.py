"""M3GIA, run A against run B on the same questions.

Per language (the headline) and per question type within it: accuracy. With one round an item is right or
wrong and McNemar applies; with several rounds an item is its share of right rounds and the paired
bootstrap over questions is used instead. Across several languages, the mean of their accuracies (the
report's leaderboard number): paired bootstrap over questions within languages.

GIA, when both runs answered all questions of a language: it is linear in the per-type counts of right
answers, GIA = alpha + W (x - nu) with W the published model's regression weights (row Cog), so each
question adds the weight of its type; paired bootstrap over questions within types (the published model
needs every type's full count, so type sizes stay fixed). With one round, composite intervals are never
narrower than the MOVER floor of their parts' Newcombe intervals (`floors.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.m3gia.scoring import TYPES
from mmgauge.core.errors import UserError
from mmgauge.core.ordered_sum import ordered_matmul
from mmgauge.parts.floors import newcombe_sum
from mmgauge.parts.metric_rows import CompareSettings, MetricRow, accuracy_row, bootstrap_row
from mmgauge.parts.outcomes import FloatArray, Outcomes
from mmgauge.stats.bootstrap import Statistic, sum_of_group_means

BENCHMARK = "m3gia"
UNIT = "questions"
LANGUAGE_MEAN = "mean of languages"


def _accuracy(
    breakdown: str, a: FloatArray, b: FloatArray, rounds: int, settings: CompareSettings, *, headline: bool
) -> MetricRow:
    if rounds == 1:
        return accuracy_row(BENCHMARK, "accuracy", breakdown, a, b, UNIT, settings, headline=headline)
    return bootstrap_row(BENCHMARK, "accuracy", breakdown, a, b, sum_of_group_means(np.zeros(len(a)), 100.0),
                         UNIT, settings, unit="%", headline=headline)


def gia_weights(language: str, types: npt.ArrayLike) -> tuple[FloatArray, float] | None:
    """Per question, the weight its right answer adds to the GIA, and the GIA of all answers wrong; None when
    the questions are not every question of the language once (the published model scores full counts
    only) or the language has no published model."""
    from mmgauge.benchmarks.m3gia.gia import QUESTION_TYPE_TO_COLUMN, normalise_language, question_counts
    from mmgauge.benchmarks.m3gia.gia_interval import gia_linear_form

    try:
        code = normalise_language(language)
    except UserError:
        return None
    columns = [QUESTION_TYPE_TO_COLUMN.get(str(t), "") for t in np.asarray(types).tolist()]
    if Counter(columns) != Counter(question_counts(code)):
        return None
    weights, constant = gia_linear_form(code)
    per_item: FloatArray = np.array([weights[c] for c in columns], dtype=np.float64)
    return per_item, constant


def linear_statistic(per_item: FloatArray, constant: float) -> Statistic:
    """constant + sum of weight x outcome over the drawn items."""

    def statistic(outcomes: npt.NDArray[np.float64], weights: FloatArray) -> FloatArray:
        drawn = per_item * np.asarray(outcomes, dtype=np.float64)
        values: FloatArray = constant + ordered_matmul(weights, drawn)
        return values

    return statistic


def _gia_row(name: str, a: FloatArray, b: FloatArray, types: npt.NDArray[np.str_], rounds: int,
             settings: CompareSettings) -> MetricRow | None:
    found = gia_weights(name, types)
    if found is None:
        return None
    per_item, constant = found
    floor = None
    if rounds == 1:
        # GIA difference = sum over types of weight x (count difference); count difference = n x accuracy one.
        floor = newcombe_sum([
            (a[types == kind], b[types == kind],
             float(per_item[types == kind][0]) * int((types == kind).sum()))
            for kind in sorted(set(types.tolist()))])
    return bootstrap_row(BENCHMARK, "GIA", name, a, b, linear_statistic(per_item, constant), UNIT, settings,
                         unit="points", strata=types, headline=True, floor=floor)


def compare_m3gia(a: Outcomes, b: Outcomes, settings: CompareSettings) -> list[MetricRow]:
    if len(a) == 0:
        return []
    rounds = max(a.rounds, b.rounds)
    language = a.labels["language"].astype(str)
    types = a.labels["type"]
    ar, br = a.values["right"], b.values["right"]
    languages = list(dict.fromkeys(language.tolist()))
    rows: list[MetricRow] = []
    if len(languages) > 1:
        share = 100.0 / len(languages)
        floor = None if rounds > 1 else newcombe_sum(
            [(ar[language == n], br[language == n], share) for n in languages])
        rows.append(bootstrap_row(
            BENCHMARK, "accuracy", LANGUAGE_MEAN, ar, br, sum_of_group_means(language, share), UNIT, settings,
            unit="%", strata=language, headline=True, floor=floor, bounds=(-100.0, 100.0)))
    for name in languages:
        mask = language == name
        rows.append(_accuracy(name, ar[mask], br[mask], rounds, settings, headline=True))
        gia = _gia_row(name, ar[mask], br[mask], types[mask].astype(str), rounds, settings)
        if gia is not None:
            rows.append(gia)
        for kind in TYPES:
            sub = mask & (types == kind)
            if sub.any():
                rows.append(_accuracy(f"{name} · {kind}", ar[sub], br[sub], rounds, settings, headline=False))
    return rows


def significance_row(measure: str, rows: Sequence[MetricRow]) -> MetricRow | None:
    """The report leaderboard's GIA columns (`M3GIA GIA <language>`), and its accuracy column with one
    language (that language's accuracy is the mean), among two runs' compared rows."""
    if measure.startswith("M3GIA GIA "):
        language = measure.removeprefix("M3GIA GIA ")
        return next((row for row in rows if row.metric == "GIA" and row.breakdown == language), None)
    if measure == "M3GIA accuracy %":
        single = [row for row in rows if row.metric == "accuracy" and row.headline]
        return single[0] if len(single) == 1 else None
    return None
