"""MMBench's per-item outcomes are its scorer's own: groups as `score_columns` scores them; composite
intervals never collapse."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.benchmarks.mmbench.compare import compare_mmbench
from mmgauge.benchmarks.mmbench.outcomes import outcomes as mmbench_outcomes
from mmgauge.benchmarks.mmbench.scoring import score_columns
from mmgauge.parts.metric_rows import CompareSettings
from mmgauge.parts.outcomes import Outcomes


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
