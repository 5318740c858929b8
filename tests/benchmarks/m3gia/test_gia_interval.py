"""One run's GIA interval: the linear form is the published model's GIA, the interval keeps its coverage, and
all-right or all-wrong answers still give an interval with width."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmgauge.benchmarks.m3gia.data import answer_table, factor_table
from mmgauge.benchmarks.m3gia.gia import compute_gia, question_counts
from mmgauge.benchmarks.m3gia.gia_interval import GIA_METHOD, gia_interval, gia_linear_form
from mmgauge.benchmarks.m3gia.scoring import COUNT_COLUMNS, Item, score_items


@pytest.mark.parametrize("language", ["en", "zh", "fr", "sp", "pt", "ko"])
def test_the_linear_form_is_the_published_models_gia(language: str) -> None:
    weights, constant = gia_linear_form(language)
    sizes = question_counts(language)
    rng = np.random.default_rng(5)
    counts = pd.DataFrame([[float(rng.integers(0, sizes[c] + 1)) for c in COUNT_COLUMNS] for _ in range(20)],
                          columns=list(COUNT_COLUMNS))
    expected = [row.gia for row in compute_gia(counts, language).rows]
    linear = [constant + sum(weights[c] * row[c] for c in COUNT_COLUMNS) for _, row in counts.iterrows()]
    assert linear == pytest.approx(expected, rel=1e-12, abs=1e-9)


def _shares(language: str, p: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {c: (rng.random(n) < p).astype(np.float64) for c, n in question_counts(language).items()}


def _gia(language: str, shares: dict[str, np.ndarray]) -> float:
    weights, constant = gia_linear_form(language)
    return constant + sum(weights[c] * float(v.sum()) for c, v in shares.items())


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_all_wrong_or_all_right_still_has_width_and_stays_in_range(p: float) -> None:
    shares = {c: np.full(n, p) for c, n in question_counts("en").items()}
    estimate = _gia("en", shares)
    interval = gia_interval(shares, "en", estimate)
    weights, constant = gia_linear_form("en")
    sizes = question_counts("en")
    lowest = constant + sum(min(0.0, weights[c] * sizes[c]) for c in sizes)
    highest = constant + sum(max(0.0, weights[c] * sizes[c]) for c in sizes)
    assert interval.high - interval.low > 0.5
    assert lowest <= interval.low <= estimate <= interval.high <= highest
    assert (interval.n, interval.method, interval.unit) == (300, GIA_METHOD, "questions")


@pytest.mark.parametrize("p", [0.05, 0.5, 0.9])
def test_coverage_of_the_true_gia_is_about_95_percent(p: float) -> None:
    # Answers drawn right with probability p per question: the true GIA is the expected linear form.
    weights, constant = gia_linear_form("en")
    truth = constant + sum(weights[c] * n * p for c, n in question_counts("en").items())
    rng = np.random.default_rng(int(p * 100))
    covered = 0
    trials = 300
    for trial in range(trials):
        shares = _shares("en", p, rng)
        interval = gia_interval(shares, "en", _gia("en", shares), resamples=300, seed=trial)
        covered += interval.low <= truth <= interval.high
    assert 0.92 <= covered / trials <= 1.0


def test_the_same_answers_give_the_same_interval_and_seeds_move_only_the_bootstrap() -> None:
    shares = _shares("fr", 0.6, np.random.default_rng(1))
    estimate = _gia("fr", shares)
    first, again = gia_interval(shares, "fr", estimate), gia_interval(shares, "fr", estimate)
    assert first == again
    other = gia_interval(shares, "fr", estimate, seed=9)
    assert abs(other.low - first.low) < 1.0 and abs(other.high - first.high) < 1.0


def test_a_scored_run_carries_the_interval_in_both_scales() -> None:
    truths, factors = answer_table("english"), factor_table("english")
    rounds = [[Item("english", qid, truth.question_type, factors.get(qid, ()), r, int(qid) % (3 + r) != 0)
               for qid, truth in truths.items()] for r in range(2)]
    gia = score_items(rounds[0] + rounds[1]).per_language["english"].gia
    assert gia is not None and gia.gia_ci is not None and gia.gia_normalised_ci is not None
    assert gia.gia_ci.low < gia.gia.mean < gia.gia_ci.high
    assert gia.gia_ci.n == 300
    assert gia.gia_normalised_ci.low == pytest.approx(gia.gia_ci.low / gia.human_gia * 100)
    # Two rounds: each question counts with its share of right rounds, so the estimate is the rounds' mean.
    types = [_type_of(c) for c in COUNT_COLUMNS]
    counts = pd.DataFrame([[sum(1.0 for i in rounds[r] if i.correct and i.question_type == t) for t in types]
                           for r in range(2)], columns=list(COUNT_COLUMNS))
    assert gia.gia.mean == pytest.approx(np.mean([row.gia for row in compute_gia(counts, "english").rows]))


def _type_of(column: str) -> str:
    from mmgauge.benchmarks.m3gia.gia import QUESTION_TYPE_TO_COLUMN

    return next(t for t, c in QUESTION_TYPE_TO_COLUMN.items() if c == column)
