"""Scoring a predictions file gives exactly the row-by-row oracle's result, every field, whichever reader
read it: the TSV column reader, or `tsv.load_table` (any file, and the files the column reader leaves)."""

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
from oracles.mmbench_rows import score_rows

WORDS = ["red", "blue", "cat", "dog", "kite", "None", "NA", "null", "tree", "boat", "İstanbul", "猫"]
ASCII_WORDS = [word for word in WORDS if word.isascii()] + ["Red Car", "a", "b c", "answer is"]
LABELS = ["ocr", "scene", "NA", "", "celebrity"]


def _answer(rng: random.Random, letters: str, texts: list[str], *, ascii_only: bool, quotes: bool) -> str:
    letter = rng.choice(letters + "EZ")
    word, text = rng.choice(ASCII_WORDS if ascii_only else WORDS), rng.choice(texts)
    answers = [
        letter, letter, f"{letter}. {text}", f"The answer is {letter} because of the {word}", text,
        text.upper(), f"A or B, hard to say; {word}", "", "N/A", "None", "nan", FAILURE_MARKER,
        "I cannot tell from this picture at all", f"{text} or {rng.choice(texts)}", f"({letter}) {word}",
        f"answer is **{letter}**", f"{letter}\x0b", f"{text}\x1c", f"it is {word} {text} {word} {word}",
    ]
    answers += [] if ascii_only else [f"答案是 {letter}", f"{text} İ"]
    if quotes:
        answers += [f"{letter}\t(tab)", f'"{letter}" said the model', f"{letter}\nbecause {word}"]
    return rng.choice(answers)


def write_predictions(path: Path, seed: int, *, g_index: bool, category: bool, ascii_only: bool = False,
                      quotes: bool = True) -> None:
    """A predictions file with the awkward cases; `ascii_only` keeps every byte ASCII (the reader then parses
    only the scored columns), `quotes=False` leaves out every cell csv would quote."""
    rng = random.Random(seed)
    words = ASCII_WORDS if ascii_only else WORDS
    header = ["index", "question", "hint", *"ABCDE", "answer", "l2-category", "split", "prediction"]
    header += ["g_index"] if g_index else []
    header += ["category"] if category else []
    rows = []
    for question in range(300):
        n = rng.choice([2, 3, 4, 4, 5])
        options = [f"{rng.choice(words)} {k}" if rng.random() < 0.8 else rng.choice(words) for k in range(n)]
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
            prediction = _answer(rng, "ABCDE"[:shown_n], options[:shown_n], ascii_only=ascii_only,
                                 quotes=quotes)
            row = [str(question + 1 + k * 1_000_000), f"question {question}?", "", *cells, answer,
                   labels[0], labels[1], prediction]
            row += [str(question + 1) if rng.random() < 0.7 else ""] if g_index else []
            row += [labels[2]] if category else []
            rows.append(row)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_MINIMAL if quotes else csv.QUOTE_NONE)
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
def test_both_readers_score_as_the_row_by_row_oracle(
    tmp_path: Path, literal: bool, seed: int, g_index: bool, category: bool
) -> None:
    path = tmp_path / "predictions.tsv"
    write_predictions(path, seed, g_index=g_index, category=category)
    fast = score_prediction_columns(path, literal_options=literal, seed=0)
    assert fast is not None
    expected = score_rows(load_predictions(path, vlmevalkit_groups=True), literal=literal).model_dump()
    assert fast.model_dump() == expected
    assert reference(path, literal) == expected
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


def reference_json(path: Path, literal: bool) -> str:
    table = load_predictions(path, vlmevalkit_groups=True)
    result = asyncio.run(score_predictions(table, None, literal_options=literal, vlmevalkit_groups=True))
    return result.model_dump_json()


@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize(("seed", "quotes"), [(5, True), (6, False)], ids=["quoted-cells", "no-quotes"])
def test_an_ascii_file_read_in_part_gives_the_reference_result(
    tmp_path: Path, literal: bool, seed: int, quotes: bool
) -> None:
    """ASCII files are parsed only in the scored columns, and without quotes with no line-break search; the
    result is still the reference's, to the order of every table in the JSON."""
    path = tmp_path / "predictions.tsv"
    write_predictions(path, seed, g_index=seed == 5, category=True, ascii_only=True, quotes=quotes)
    data = path.read_bytes()
    assert data.isascii() and (b'"' in data) == quotes
    fast = score_prediction_columns(path, literal_options=literal, seed=0)
    assert fast is not None
    assert fast.model_dump_json() == reference_json(path, literal)
    assert fast.failed and fast.unresolved and fast.extraction.get("rule-text")


def test_unread_columns_still_must_be_utf8(tmp_path: Path) -> None:
    """A byte that is not UTF-8 in a column scoring never reads still stops the file, as the reference
    reader stops it (the column scorer leaves the file to the reference reader)."""
    path = tmp_path / "predictions.tsv"
    write_predictions(path, 7, g_index=False, category=True, ascii_only=True, quotes=False)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"question 3?", b"question \xff?", 1))
    assert score_prediction_columns(path, literal_options=False, seed=0) is None
    with pytest.raises(UserError, match="UTF-8"):
        asyncio.run(score_prediction_file(path))


def test_group_numbers_beyond_counting_range_give_the_reference_result(tmp_path: Path) -> None:
    """g_index values too large to count in an array (the sorted path of `group_codes`)."""
    path = tmp_path / "predictions.tsv"
    write_predictions(path, 8, g_index=True, category=True, ascii_only=True, quotes=False)
    lines = path.read_bytes().decode("utf-8").split("\r\n")[:-1]  # csv's line ends; cells hold \x0b, \x1c
    column = lines[0].split("\t").index("g_index")
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split("\t")
        cells[column] = str((int(cells[0]) % 1_000_000) * 10**12 + 7)
        out.append("\t".join(cells))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    fast = score_prediction_columns(path, literal_options=False, seed=0)
    assert fast is not None
    assert fast.model_dump_json() == reference_json(path, False)
