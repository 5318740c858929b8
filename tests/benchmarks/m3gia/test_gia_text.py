"""The column-wise M3GIA output is the reference output, character for character (the JSON made a column
at a time with arrow included); a CSV of counts read with pyarrow gives the same matrix as the pandas
reading."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mmgauge.benchmarks.m3gia import gia_text as text
from mmgauge.benchmarks.m3gia.counts import counts_from_csv, read_counts
from mmgauge.benchmarks.m3gia.gia import (
    SCORE_BLOCK_ROWS,
    GiaResult,
    GiaScores,
    HumanStats,
    counts_matrix,
    gia_scores,
    load_published_model,
    percentile_among,
    question_counts,
)
from mmgauge.benchmarks.m3gia.gia_scores import m3gia_gia_scores
from mmgauge.benchmarks.m3gia.gia_text import CHUNK_ROWS, json_bytes, json_chunks, text_bytes


def counts(rows: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    model = load_published_model("en")
    maxima = question_counts("en")
    return np.array([[rng.randint(0, maxima[c]) for c in model.indicators] for _ in range(rows)], dtype=float)


def reference_text(result: GiaResult) -> list[str]:
    """What `mmgauge score m3gia` printed from a `GiaResult` before the column-wise output."""
    lines = [f"M3GIA {result.language}: human GIA {result.human_gia}"]
    for i, row in enumerate(result.rows, start=1):
        extra = ""
        if row.gia_standardised is not None:
            extra = f"  standardised {row.gia_standardised:.4f}  human percentile {row.human_percentile:.1f}"
        label = f"row {i}" if row.model is None else row.model
        lines.append(f"{label}: GIA {row.gia:.4f}  normalised {row.gia_normalised:.2f}{extra}")
    return lines


@pytest.mark.parametrize("scale", ["official", "standardised"])
def test_output_is_the_reference_output(scale: str) -> None:
    model = load_published_model("en")
    stats = HumanStats(mean=dict.fromkeys(model.indicators, 3.0), sd=dict.fromkeys(model.indicators, 1.5))
    scores = gia_scores(counts(CHUNK_ROWS + 7, 1), "en", scale, stats)  # type: ignore[arg-type]
    result = scores.result()
    assert "".join(json_chunks(scores)) == json.dumps(result.model_dump())
    assert printed(scores) == "".join(line + "\n" for line in reference_text(result))


def test_vectorised_percentiles_are_percentile_among() -> None:
    rng = np.random.default_rng(3)
    reference = rng.normal(0, 1, 300)
    values = np.concatenate([rng.normal(0, 1.5, 500), reference[:20]])  # ties with the humans included
    from mmgauge.benchmarks.m3gia.gia import percentiles_among

    assert percentiles_among(values, reference).tolist() == [percentile_among(v, reference) for v in values]


def test_a_csv_of_counts_reads_as_pandas_reads_it(tmp_path: Path) -> None:
    model = load_published_model("en")
    values = counts(50, 2).astype(int)
    path = tmp_path / "counts.csv"
    order = list(reversed(model.indicators))
    cells = [[str(row[model.indicators.index(c)]) for c in order] for row in values]
    lines = ["subid," + ",".join(order)] + [f"{i}," + ",".join(row) for i, row in enumerate(cells)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fast = counts_from_csv(path, "en", ["subid"])
    assert fast is not None and len(fast) == 50
    matrix = fast.rows(0, len(fast))
    assert np.array_equal(matrix, counts_matrix(read_counts(path, model.indicators, ["subid"])[0], "en"))
    assert np.array_equal(fast.rows(45, 60), matrix[45:])  # a block is cut at the end
    scored = m3gia_gia_scores(path, "en", ignore=["subid"]).result()
    assert scored.rows[3].gia == gia_scores(matrix, "en").result().rows[3].gia


def test_scores_from_row_blocks_are_the_scores_of_the_matrix_bit_for_bit(tmp_path: Path) -> None:
    model = load_published_model("en")
    rows = SCORE_BLOCK_ROWS + 1  # blocks, and a last block of one row
    maxima = question_counts("en")
    values = np.random.default_rng(4).integers(0, [maxima[c] + 1 for c in model.indicators], (rows, 18))
    path = tmp_path / "counts.csv"
    body = "\n".join(",".join(map(str, row)) for row in values.tolist())
    path.write_text(",".join(model.indicators) + "\n" + body + "\n", encoding="utf-8")
    blocks = counts_from_csv(path, "en", [])
    assert blocks is not None
    from_matrix = gia_scores(values.astype(float), "en")
    assert gia_scores(blocks, "en").official.tobytes() == from_matrix.official.tobytes()


def test_a_csv_with_a_problem_is_left_to_the_reference_reading(tmp_path: Path) -> None:
    model = load_published_model("en")
    path = tmp_path / "counts.csv"
    path.write_text(",".join(model.indicators) + "\n" + ",".join(["1"] * 17 + [""]) + "\n", encoding="utf-8")
    assert counts_from_csv(path, "en", []) is None
    from mmgauge.core.errors import UserError

    with pytest.raises(UserError, match="empty cell"):
        m3gia_gia_scores(path, "en")


@pytest.mark.parametrize(("cell", "message"), [("70000", "outside 0"), ("3.0", None), ("-1", "outside 0")])
def test_a_count_the_fast_reading_cannot_take_is_read_and_named_by_the_reference(
    tmp_path: Path, cell: str, message: str | None
) -> None:
    model = load_published_model("en")
    path = tmp_path / "counts.csv"
    cells = ",".join(["1"] * 17 + [cell])
    path.write_text(",".join(model.indicators) + "\n" + cells + "\n", encoding="utf-8")
    assert counts_from_csv(path, "en", []) is None
    if message is None:  # a whole number written with a point is still a count
        assert m3gia_gia_scores(path, "en").result().rows[0].gia == compute_one(model.indicators, 3.0)
        return
    from mmgauge.core.errors import UserError

    with pytest.raises(UserError, match=message):
        m3gia_gia_scores(path, "en")


def compute_one(indicators: tuple[str, ...], last: float) -> float:
    scores = gia_scores(np.array([[1.0] * (len(indicators) - 1) + [last]]), "en")
    return float(scores.official[0, scores.general])


def scores_of(official: np.ndarray, standardised: np.ndarray | None = None) -> GiaScores:
    """Scores with chosen numbers (the factor model never makes most of these, the writer must still)."""
    factors = load_published_model("en").factors
    percentile = None if standardised is None else np.linspace(0.0, 100.0, len(standardised))
    scale = "official" if standardised is None else "standardised"
    return GiaScores("en", 16.01, scale, factors, official, standardised, percentile)  # type: ignore[arg-type]


def awkward(rows: int, seed: int) -> np.ndarray:
    """Ordinary scores with tiny, huge, zero, negative-zero and subnormal numbers mixed in."""
    rng = np.random.default_rng(seed)
    values = rng.normal(5.0, 300.0, (rows, len(load_published_model("en").factors)))
    odd = [0.0, -0.0, 1e-5, -2.5e-7, 1e-4, 9.99e-5, 1e15, 3e16, -1e22, 5e-324, 12.0, 1e-300]
    if values.size:
        cells = rng.integers(0, values.size, len(odd) * 3)
        values.flat[cells] = odd * 3
    return values


def printed(scores: GiaScores) -> str:
    return b"".join(bytes(piece) for piece in text_bytes(scores)).decode("utf-8")


#: Names the writers must spell as `json.dumps` and `%s` do: quotes, backslashes, `%`, letters beyond ASCII
#: and beyond the basic plane (a surrogate pair in JSON), and rows without a name (None).
NAMES = ("GPT-4o", "模型 ✓", 'say "hi" \\ back', None, "50% %r %s", "robot 🤖", "café", "row 1", None)


@pytest.mark.parametrize("rows", [0, 1, 2, 5, 23])
@pytest.mark.parametrize("scale", ["official", "standardised"])
@pytest.mark.parametrize("named", [False, True])
def test_json_and_text_bytes_are_the_reference_outputs(
    rows: int, scale: str, named: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text, "BYTES_CHUNK_ROWS", 4)  # several pieces, the last one short
    official = awkward(rows, rows)
    scores = scores_of(official, awkward(rows, rows + 100) if scale == "standardised" else None)
    if named:
        scores = replace(scores, names=[NAMES[i % len(NAMES)] for i in range(rows)])
    made = b"".join(bytes(piece) for piece in json_bytes(scores)).decode("utf-8")
    assert made == "".join(json_chunks(scores)) == json.dumps(scores.result().model_dump())
    assert printed(scores) == "".join(line + "\n" for line in reference_text(scores.result()))


def test_json_bytes_of_real_scores_is_the_reference_json() -> None:
    scores = gia_scores(counts(text.BYTES_CHUNK_ROWS + 3, 5), "en")
    made = b"".join(bytes(piece) for piece in json_bytes(scores)).decode("utf-8")
    assert made == "".join(json_chunks(scores))


def test_json_bytes_of_non_finite_scores_is_the_reference_json() -> None:
    official = awkward(6, 9)
    official[2, 1], official[4, 0] = np.nan, -np.inf
    scores = scores_of(official)
    made = b"".join(bytes(piece) for piece in json_bytes(scores)).decode("utf-8")
    assert made == json.dumps(scores.result().model_dump())


def test_json_bytes_without_a_trusted_formatter_is_the_reference_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mmgauge.textformat import float_text

    monkeypatch.setattr(float_text, "available", lambda: False)
    scores = scores_of(awkward(9, 4))
    made = b"".join(bytes(piece) for piece in json_bytes(scores)).decode("utf-8")
    assert made == json.dumps(scores.result().model_dump())


def test_text_bytes_of_real_and_non_finite_scores_are_the_reference_lines() -> None:
    model = load_published_model("en")
    stats = HumanStats(mean=dict.fromkeys(model.indicators, 3.0), sd=dict.fromkeys(model.indicators, 1.5))
    real = gia_scores(counts(text.BYTES_CHUNK_ROWS + 3, 6), "en", "standardised", stats)
    assert printed(real) == "".join(line + "\n" for line in reference_text(real.result()))
    official = awkward(6, 9)
    official[2, model.factors.index("Cog")], official[4, 0] = np.nan, -np.inf
    odd = scores_of(official)
    assert printed(odd) == "".join(line + "\n" for line in reference_text(odd.result()))
