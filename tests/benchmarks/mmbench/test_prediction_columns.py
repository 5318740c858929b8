"""The column-wise scorer of TSV prediction files gives exactly the reference path's result, every field."""

from __future__ import annotations

import asyncio
import csv
import random
from pathlib import Path

import pytest

from mmgauge.benchmarks.mmbench.prediction_columns import score_prediction_columns
from mmgauge.benchmarks.mmbench.predictions import load_predictions, score_prediction_file, score_predictions
from mmgauge.core.errors import UserError
from mmgauge.extraction.choice import FAILURE_MARKER

WORDS = ["red", "blue", "cat", "dog", "kite", "None", "NA", "null", "tree", "boat", "İstanbul", "猫"]
LABELS = ["ocr", "scene", "NA", "", "celebrity"]


def _answer(rng: random.Random, letters: str, texts: list[str]) -> str:
    letter = rng.choice(letters + "EZ")
    word, text = rng.choice(WORDS), rng.choice(texts)
    return rng.choice([
        letter, letter, f"{letter}. {text}", f"The answer is {letter} because of the {word}", text,
        text.upper(), f"A or B, hard to say; {word}", "", "N/A", "None", "nan", FAILURE_MARKER,
        f"答案是 {letter}", f"{letter}\t(tab)", "I cannot tell from this picture at all",
    ])


def write_predictions(path: Path, seed: int, *, g_index: bool, category: bool) -> None:
    rng = random.Random(seed)
    header = ["index", "question", "hint", *"ABCDE", "answer", "l2-category", "split", "prediction"]
    header += ["g_index"] if g_index else []
    header += ["category"] if category else []
    rows = []
    for question in range(300):
        n = rng.choice([2, 3, 4, 4, 5])
        options = [f"{rng.choice(WORDS)} {k}" if rng.random() < 0.8 else rng.choice(WORDS) for k in range(n)]
        if n > 2 and rng.random() < 0.05:
            options[-1] = "nan"  # an option pandas wrote as NaN: the question has one option fewer
        shown_n = n - (options[-1] == "nan")
        truth = rng.randrange(shown_n)
        copies = list(range(shown_n))
        if rng.random() < 0.1:
            copies = copies[: rng.randrange(1, shown_n + 1)]  # a group short of copies
        test_split = rng.random() < 0.05
        labels = [rng.choice(LABELS) for _ in range(3)]
        for k in copies:
            rotated = options[:shown_n][k:] + options[:shown_n][:k] + options[shown_n:]
            cells = rotated + [""] * (5 - len(rotated))
            answer = "" if test_split else "ABCDE"[(truth - k) % shown_n]
            row = [str(question + 1 + k * 1_000_000), f"question {question}?", "", *cells, answer,
                   labels[0], labels[1], _answer(rng, "ABCDE"[:shown_n], options[:shown_n])]
            row += [str(question + 1) if rng.random() < 0.7 else ""] if g_index else []
            row += [labels[2]] if category else []
            rows.append(row)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(header)
        writer.writerows(rows)


def reference(path: Path, literal: bool) -> dict[str, object]:
    table = load_predictions(path, vlmevalkit_groups=True)
    result = asyncio.run(score_predictions(table, None, literal_options=literal, vlmevalkit_groups=True))
    return result.model_dump()


@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize(
    ("seed", "g_index", "category"), [(1, False, True), (2, True, True), (3, True, False)],
    ids=["plain", "g_index", "no-category"])
def test_column_scorer_gives_the_reference_result(
    tmp_path: Path, literal: bool, seed: int, g_index: bool, category: bool
) -> None:
    path = tmp_path / "predictions.tsv"
    write_predictions(path, seed, g_index=g_index, category=category)
    fast = score_prediction_columns(path, literal_options=literal, seed=0)
    assert fast is not None
    expected = reference(path, literal)
    assert fast.model_dump() == expected
    assert expected["failed"] and expected["unresolved"] and expected["short_groups"]  # the cases were there
    assert expected["na_text_questions"] and expected["unanswered_groups"]


def test_a_file_the_column_scorer_refuses_gets_the_reference_error(tmp_path: Path) -> None:
    path = tmp_path / "predictions.tsv"
    write_predictions(path, 4, g_index=False, category=True)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join([*lines, lines[1]]), encoding="utf-8")  # the first row's index again
    assert score_prediction_columns(path, literal_options=False, seed=0) is None
    with pytest.raises(UserError, match="occurs twice"):
        asyncio.run(score_prediction_file(path))
