"""Reading MMStar's layouts: the parquet's inline options parsed out, TSV image references followed, and bad
rows reported as one line naming file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge.benchmarks.mmstar.data import load_questions, split_options
from mmgauge.core.errors import UserError


def test_inline_options_are_split_at_each_letter_keeping_commas_in_the_text() -> None:
    text = "Which is warmer?\nOptions: A: 12 °C, dry, B: −3 °C, C: 20 °C, D: 5 °C"
    stem, options = split_options(text, Path("m.parquet"), 1)
    assert stem == "Which is warmer?"
    assert options == {"A": "12 °C, dry", "B": "−3 °C", "C": "20 °C", "D": "5 °C"}


def test_a_question_without_options_is_a_one_line_error() -> None:
    with pytest.raises(UserError) as caught:
        split_options("How many?", Path("m.parquet"), 4)
    assert str(caught.value) == "m.parquet:4, field 'question': no 'Options: A: ..., B: ...' in the question"


def test_both_layouts_give_the_same_questions(tsv: Path, parquet: Path, case: Any) -> None:
    _, from_tsv = load_questions(tsv)
    _, from_parquet = load_questions(parquet)
    for a, b, item in zip(from_tsv, from_parquet, case.items, strict=True):
        assert (a.index, a.question, a.options, a.answer, a.category, a.l2_category) == (
            b.index, b.question, b.options, b.answer, b.category, b.l2_category)
        assert a.options == case.options(item) and a.image.load() == b.image.load()
    assert from_parquet[0].meta == {"source": "MMBench", "split": "val", "image_path": "images/0.jpg"}


def test_a_tsv_image_cell_naming_a_row_shares_that_rows_image(tsv: Path) -> None:
    _, questions = load_questions(tsv)
    assert questions[1].image is questions[0].image  # row 1's image cell is "0"


def test_a_broken_image_reference_names_its_line(tsv: Path) -> None:
    frame = pd.read_csv(tsv, sep="\t", dtype=str, keep_default_na=False)
    frame.loc[3, "image"] = "99"
    frame.to_csv(tsv, sep="\t", index=False)
    with pytest.raises(UserError) as caught:
        load_questions(tsv)
    assert str(caught.value).startswith(f"{tsv}:5, field 'image': the image cell '99'")


def test_a_wrong_answer_letter_is_a_cli_error_line(cli: Any, tsv: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(tsv, sep="\t", dtype=str, keep_default_na=False)
    frame.loc[0, "answer"] = "E"
    frame.to_csv(tsv, sep="\t", index=False)
    line = cli("run", "--bench", "mmstar", "--data", tsv, "--model", "mock:A", "--out",
               tmp_path / "r").error_line()
    assert line == f"error: {tsv}:2, field 'answer': answer 'E' is not one of the options A, B, C, D"


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "MMStar.tsv"
    pd.DataFrame([{"index": 0, "question": "Q", "A": "x", "B": "y", "answer": "A"}]).to_csv(
        path, sep="\t", index=False)
    with pytest.raises(UserError, match="field 'category': missing column 'category'"):
        load_questions(path)


def test_a_dataset_folder_is_read_through_its_file(tmp_path: Path, parquet: Path) -> None:
    file, questions = load_questions(parquet.parent)
    assert file == parquet and len(questions) == 12
