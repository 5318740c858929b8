"""GIA against the release's own lavPredict outputs, for every language."""

from __future__ import annotations

from importlib import resources
from io import StringIO

import numpy as np
import pandas as pd
import pytest

from mmgauge.benchmarks.m3gia.gia import (
    SCORE_BLOCK_ROWS,
    HumanStats,
    compute_gia,
    human_gia,
    load_published_model,
    normalise_language,
    percentile_among,
    question_counts,
)
from mmgauge.core.errors import UserError
from mmgauge.core.ordered_sum import ordered_matmul

LANGUAGES = [("en", "En"), ("zh", "Zh"), ("fr", "Fr"), ("sp", "Sp"), ("pt", "Pt"), ("ko", "Ko")]


def cfa_csv(name: str) -> pd.DataFrame:
    text = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa").joinpath(name)
    return pd.read_csv(StringIO(text.read_text(encoding="utf-8")))


def example_counts(code: str) -> pd.DataFrame:
    model = load_published_model(code)
    rows = cfa_csv(f"{code}.csv")
    # Reversed on purpose: columns are matched by name, not position.
    return rows[list(reversed(model.indicators))]


@pytest.mark.parametrize(("code", "prefix"), LANGUAGES)
def test_gia_matches_published_lavpredict(code: str, prefix: str) -> None:
    expected = cfa_csv(f"{prefix}_mllm_scores.csv")
    result = compute_gia(example_counts(code), code)
    assert len(result.rows) == len(expected) == 15
    got = np.array([[row.factors[f] for f in expected.columns] for row in result.rows])
    assert np.max(np.abs(got - expected.to_numpy())) < 1e-6
    gia = np.array([row.gia for row in result.rows])
    assert np.max(np.abs(gia - expected["Cog"].to_numpy())) < 1e-6


def test_first_english_row_and_normalised_gia() -> None:
    row = compute_gia(example_counts("en"), "english").rows[0]
    assert row.gia == pytest.approx(14.8479993764033, abs=1e-6)
    assert row.gia_normalised == pytest.approx(row.gia / 16.01 * 100, rel=1e-12)
    # The paper's example: GPT-4o English GIA 13.85 -> 86.5.
    assert 13.85 / human_gia("en") * 100 == pytest.approx(86.5, abs=0.05)


def test_human_gia_per_language() -> None:
    assert [human_gia(c) for c, _ in LANGUAGES] == [16.01, 16.69, 19.52, 16.22, 16.00, 18.05]


def test_language_names_and_aliases() -> None:
    assert normalise_language("English") == "en"
    assert normalise_language("es") == "sp"
    assert normalise_language("spanish") == "sp"
    assert normalise_language("KO") == "ko"
    with pytest.raises(UserError, match=r"valid: .*chinese.*en.*es"):
        normalise_language("klingon")


def test_question_counts_from_answer_dict() -> None:
    counts = question_counts("fr")
    assert sum(counts.values()) == 300
    # Math Facts spans ids 176-185 and 196-210.
    assert counts["Math_Facts"] == 25
    assert counts["Number_Series"] == 20
    assert counts["Readings_VL"] == 10


def test_missing_and_extra_columns_are_named() -> None:
    counts = example_counts("en")
    with pytest.raises(UserError, match="Raven"):
        compute_gia(counts.drop(columns=["Raven"]), "en")
    with pytest.raises(UserError, match="total_acc"):
        compute_gia(counts.assign(total_acc=1.0), "en")


def test_count_above_number_of_questions_names_row_and_column() -> None:
    counts = example_counts("en").head(3).copy()
    counts.loc[:, "Math_Facts"] = [25.0, 26.0, 3.0]
    with pytest.raises(UserError) as caught:
        compute_gia(counts, "en")
    message = str(caught.value)
    assert "row 2" in message and "Math_Facts" in message and "0..25" in message


def test_standardised_scale_reproduces_human_factor_scores() -> None:
    model = load_published_model("fr")
    human_z = cfa_csv("Fr_human_z.csv")[list(model.indicators)]
    maxima = question_counts("fr")
    mean = {c: maxima[c] / 2 for c in model.indicators}
    sd = {c: maxima[c] / 6 for c in model.indicators}
    keep = (human_z.abs() <= 3).all(axis=1).to_numpy()
    # Counts that, standardised with these statistics, give back the humans' own z-scores.
    counts = pd.DataFrame({c: mean[c] + human_z[c] * sd[c] for c in model.indicators})[keep]
    result = compute_gia(counts, "fr", scale="standardised", human_stats=HumanStats(mean=mean, sd=sd))
    published = cfa_csv("Fr_human_scores.csv")["Cog"].to_numpy()
    got = np.array([row.gia_standardised for row in result.rows])
    assert np.max(np.abs(got - published[keep])) < 1e-9
    first = result.rows[0]
    assert first.human_percentile == pytest.approx(100 * np.mean(published < got[0]))
    assert 0 < first.human_percentile < 100


def test_standardised_scale_without_human_statistics_refuses() -> None:
    with pytest.raises(UserError, match="z-scored"):
        compute_gia(example_counts("en"), "en", scale="standardised")


def test_percentile_is_share_strictly_below() -> None:
    reference = np.array([0.0, 1.0, 2.0, 3.0])
    assert percentile_among(1.5, reference) == pytest.approx(50.0)
    assert percentile_among(-1.0, reference) == 0.0
    assert percentile_among(10.0, reference) == 100.0


def test_blank_count_is_an_empty_cell_not_nan() -> None:
    counts = example_counts("en").head(2).astype(object)
    counts.loc[1, "Logo"] = np.nan
    with pytest.raises(UserError) as caught:
        compute_gia(counts, "en")
    assert (caught.value.message, caught.value.line, caught.value.field) == ("empty cell", 2, "Logo")
    counts.loc[1, "Logo"] = "many"
    with pytest.raises(UserError, match="not a number: 'many'"):
        compute_gia(counts, "en")


@pytest.mark.parametrize("rows", [1, 2, 3, SCORE_BLOCK_ROWS, SCORE_BLOCK_ROWS + 1, 2 * SCORE_BLOCK_ROWS + 2])
def test_factor_scores_are_the_same_bits_in_blocks_of_any_size(rows: int) -> None:
    model = load_published_model("en")
    rng = np.random.default_rng(rows)
    counts = rng.integers(0, 12, (rows, len(model.indicators))).astype(np.float64)
    blocked = model.factor_scores(counts)
    one_product = ordered_matmul(counts - model.nu, model.weights().T) + model.alpha
    row_by_row = np.vstack([model.factor_scores(counts[i : i + 1]) for i in range(min(rows, 40))])
    assert blocked.shape == one_product.shape
    assert blocked.tobytes() == one_product.tobytes()
    assert row_by_row.tobytes() == blocked[:40].tobytes()
    by_blas = (counts - model.nu) @ model.weights().T + model.alpha
    np.testing.assert_allclose(blocked, by_blas, rtol=0, atol=1e-12)
