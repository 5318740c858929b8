"""Per-item outcomes are the scorers' own: M3GIA GIA as the published model gives it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mmgauge.benchmarks.m3gia.compare import compare_m3gia
from mmgauge.benchmarks.m3gia.gia import QUESTION_TYPE_TO_COLUMN, compute_gia, question_counts
from mmgauge.parts.metric_rows import CompareSettings
from mmgauge.parts.outcomes import Outcomes


def _objects(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


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
