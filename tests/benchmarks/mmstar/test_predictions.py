"""`score_predictions` reads a VLMEvalKit predictions file as VLMEvalKit's evaluate does and gives its
numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge.benchmarks.mmstar.predictions import score_predictions
from mmgauge.core.errors import UserError


def numbers(result: Any) -> tuple[Any, ...]:
    return ((result.overall.correct, result.overall.questions),
            {k: (v.correct, v.questions) for k, v in result.capability.items()},
            {k: (v.correct, v.questions) for k, v in result.axis.items()})


def test_an_xlsx_scores_as_vlmevalkit_with_exact_matching(predictions: Path, case: Any) -> None:
    want = case.expected()
    result = score_predictions(predictions)
    assert numbers(result) == ((want.correct, want.questions), want.capability, want.axis)
    assert (result.overall.pct, result.unresolved, result.failed, result.judged) == (50.0, 2, 1, False)


def test_a_tsv_with_the_hugging_face_axis_column_scores_the_same(predictions: Path, tmp_path: Path) -> None:
    path = tmp_path / "GPT4o_MMStar.tsv"
    pd.read_excel(predictions).rename(columns={"l2-category": "l2_category"}).to_csv(path, sep="\t",
                                                                                       index=False)
    assert numbers(score_predictions(path)) == numbers(score_predictions(predictions))


def test_a_missing_prediction_is_the_text_nan_and_counts_wrong(predictions: Path, tmp_path: Path) -> None:
    frame = pd.read_excel(predictions)
    frame.loc[0, "prediction"] = None  # was "A", right
    path = tmp_path / "m_MMStar.xlsx"
    frame.to_excel(path, index=False)
    result = score_predictions(path)
    assert (result.overall.correct, result.unresolved) == (5, 3)


def test_a_file_without_predictions_is_a_one_line_error(predictions: Path, tmp_path: Path) -> None:
    path = tmp_path / "x.xlsx"
    pd.read_excel(predictions).drop(columns=["prediction"]).to_excel(path, index=False)
    with pytest.raises(UserError) as caught:
        score_predictions(path)
    assert str(caught.value).startswith(f"{path}, field 'prediction': missing column 'prediction'")
