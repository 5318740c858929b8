"""Per-item outcomes are the scorers' own: MMBench groups as `score_columns` scores them, M3GIA GIA as
the published model gives it; composite intervals never collapse."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmgauge.benchmarks.m3gia.compare import compare_m3gia
from mmgauge.benchmarks.m3gia.gia import QUESTION_TYPE_TO_COLUMN, compute_gia, question_counts
from mmgauge.benchmarks.mmbench.compare import compare_mmbench
from mmgauge.comparison.outcomes import mmbench_outcomes
from mmgauge.parts.metric_rows import CompareSettings
from mmgauge.parts.outcomes import Outcomes
from mmgauge.scoring.mmbench import score_columns


def _objects(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mmbench_groups_are_scored_as_the_scorer_scores_them(seed: int) -> None:
    rng = np.random.default_rng(seed)
    groups = 60
    sizes = rng.integers(1, 5, size=groups)
    group = np.repeat(np.arange(groups, dtype=np.int64) * 7, sizes)
    copy = np.concatenate([rng.permutation(n) for n in sizes]).astype(np.int64)
    n_copies = np.repeat(np.where(rng.random(groups) < 0.2, sizes + 1, sizes), sizes).astype(np.int64)
    rows = len(group)
    correct = rng.random(rows) < 0.8
    has_answer = np.repeat(rng.random(groups) < 0.9, sizes)
    failed = rng.random(rows) < 0.03
    l2 = _objects([str(v) for v in np.repeat(rng.choice(["coarse_perception", "logic_reasoning", ""], groups),
                                                sizes)])
    category = _objects([str(v) for v in np.repeat(rng.choice(["a", "b"], groups), sizes)])
    result = score_columns(group=group, copy=copy, n_copies=n_copies, correct=correct & has_answer,
                           method=["rule-letter"] * rows, has_answer=has_answer, category=category, l2=l2,
                           split=_objects([""] * rows), request_failed=failed)
    outcomes = mmbench_outcomes(group=group, copy=copy, n_copies=n_copies, correct=correct,
                                has_answer=has_answer, request_failed=failed, l2=l2, category=category,
                                answer=_objects(["A"] * rows))
    assert len(outcomes) == result.n_groups
    assert dict(zip(outcomes.keys.tolist(), outcomes.values["circular"].astype(int).tolist(), strict=True)) \
        == result.groups
    assert outcomes.values["circular"].mean() == pytest.approx(result.overall)
    assert outcomes.values["vanilla"].mean() == pytest.approx(result.vanilla)
    for name, value in result.l2.items():
        mask = outcomes.labels["l2"] == name
        assert outcomes.values["circular"][mask].mean() == pytest.approx(value)


def _m3gia(right: np.ndarray, types: list[str]) -> Outcomes:
    n = len(types)
    return Outcomes("m3gia", "question", _objects([f"english/{i}" for i in range(n)]), _objects(["A"] * n),
                    {"language": _objects(["english"] * n), "type": _objects(types)},
                    {"right": right.astype(np.float64)})


def test_gia_difference_is_the_published_models_gia_of_each_run() -> None:
    counts = question_counts("en")
    column_type = {column: kind for kind, column in QUESTION_TYPE_TO_COLUMN.items()}
    types = [column_type[column] for column, n in counts.items() for _ in range(n)]
    assert len(types) == 300
    rng = np.random.default_rng(7)
    a, b = rng.random(300) < 0.7, rng.random(300) < 0.5
    rows = {(r.metric, r.breakdown): r
            for r in compare_m3gia(_m3gia(a, types), _m3gia(b, types), CompareSettings(resamples=400))}
    gia = rows[("GIA", "english")]

    def official(right: np.ndarray) -> float:
        per_column = {column: 0 for column in counts}
        for kind, ok in zip(types, right, strict=True):
            per_column[QUESTION_TYPE_TO_COLUMN[kind]] += int(ok)
        return compute_gia(pd.DataFrame([per_column]), "en").rows[0].gia

    assert gia.a == pytest.approx(official(a), rel=1e-9)
    assert gia.b == pytest.approx(official(b), rel=1e-9)
    assert gia.low < gia.difference < gia.high and gia.significant
    # One question short of the full language: no GIA (the published model needs full counts).
    short = compare_m3gia(_m3gia(a[1:], types[1:]), _m3gia(b[1:], types[1:]), CompareSettings(resamples=200))
    assert all(row.metric != "GIA" for row in short)


def _mmbench(circular: np.ndarray, l2: list[str]) -> Outcomes:
    n = len(l2)
    return Outcomes("mmbench", "question group", _objects([str(i) for i in range(n)]), _objects(["A"] * n),
                    {"l2": _objects(l2), "category": _objects([""] * n)},
                    {"circular": circular.astype(np.float64), "vanilla": circular.astype(np.float64)})


def test_identical_runs_get_an_interval_for_composites_not_a_point() -> None:
    l2 = ["CP"] * 20 + ["LR"] * 20
    same = np.ones(40)
    rows = {(r.metric, r.breakdown): r for r in compare_mmbench(_mmbench(same, l2), _mmbench(same, l2),
                                                                CompareSettings(resamples=300))}
    mean = rows[("circular", "mean of L2 abilities")]
    assert mean.difference == 0 and mean.p_value == 1.0
    assert mean.low < -5 and mean.high > 5  # the floor: 20 + 20 groups cannot pin a difference to 0
    assert mean.mdd is not None


def test_where_outcomes_vary_the_composite_interval_follows_the_bootstrap() -> None:
    rng = np.random.default_rng(3)
    l2 = ["CP"] * 300 + ["LR"] * 300
    a, b = rng.random(600) < 0.6, rng.random(600) < 0.55
    settings = CompareSettings(resamples=2000)
    mean = next(r for r in compare_mmbench(_mmbench(a, l2), _mmbench(b, l2), settings)
                if r.breakdown == "mean of L2 abilities")
    # Normal-theory half-width of the mean of two independent accuracy differences.
    half = 1.96 * np.sqrt(sum(
        (a[m].var() + b[m].var() - 2 * np.cov(a[m], b[m])[0, 1]) / m.sum()
        for m in (np.arange(600) < 300, np.arange(600) >= 300))) / 2 * 100
    assert (mean.high - mean.low) / 2 == pytest.approx(half, rel=0.15)
