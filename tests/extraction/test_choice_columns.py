"""The column-wise MMBench matcher gives exactly what the row-by-row oracle gives, on awkward answers: on
whole columns (`match_columns`) and on the few rows of records and judge replies (`match_rows`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from mmgauge.extraction import choice_columns
from mmgauge.extraction.choice import FAILURE_MARKER, METHODS, NO_OPTION
from mmgauge.extraction.choice_columns import NO_OPTION_CODE, OptionColumns, match_columns, match_rows
from oracles.choice_rows import match_letter

LETTERS = ("A", "B", "C", "D", "E")
WORDS = ["cat", "dog", "red car", "kite", "Tree", "blue sky", "None", "nan", "İstanbul", "straße", "ſun",
         "猫", "a", "b", "answer", "is"]
FIXED = [
    "", " ", "A", "B", "E", "Z", "a", "AB", "A.", "(B)", "[C]", "**D**", "{E}", "A B", "A or B", "Z!",
    "The answer is C.", "answer is   *B*", "ANSWER IS Bx", "answer is E", "Answer is A*B", "answer is\tD",
    "answer isC", "The answer is C because the picture shows a cat in the garden", "A\u3000", "\u00a0A",
    "答案是 A", "答案 B", "A\x0b", "A\x1c", "\tC\r\n", "I pick A\nreally", "Z and A", "None", "nan",
    f"xx {FAILURE_MARKER} yy", "cat", "CAT", "red car", "a red car and a kite", "İ", "ſun", "I think A but "
    "maybe B, hard to say", "answer is A answer is B", "it is D, surely it is D right now today", "kite!",
]


def _prediction(rng: random.Random, texts: list[str]) -> str:
    kind = rng.random()
    if kind < 0.4:
        return rng.choice(FIXED)
    if kind < 0.6:
        return rng.choice(texts) if rng.random() < 0.7 else rng.choice(texts).upper()
    parts = [rng.choice([*LETTERS, "Z", "answer is", "The answer is", *WORDS, *texts, ".", ",", "(", "*"])
             for _ in range(rng.randrange(1, 12))]
    return rng.choice([" ", "", "\t", "  "]).join(parts)


def _chunked(values: list[str]) -> pa.ChunkedArray:
    """Three chunks, as pyarrow's CSV reader gives a large column."""
    cut = len(values) // 3
    return pa.chunked_array([pa.array(part, type=pa.string()) for part in (values[:cut], values[cut:2 * cut],
                                                                          values[2 * cut:])])


def _generated(rows: int) -> tuple[np.ndarray, list[list[str]], list[str]]:
    """Offered letters (gaps included), option texts per letter, and an awkward answer per row."""
    rng = random.Random(7)
    offered = np.zeros((rows, len(LETTERS)), dtype=bool)
    texts: list[list[str]] = [[] for _ in LETTERS]
    predictions: list[str] = []
    for r in range(rows):
        row_texts = [rng.choice(WORDS) + rng.choice(["", " 1", " 2"]) for _ in LETTERS]
        if rng.random() < 0.3:
            row_texts[1] = row_texts[0] + " and more"  # one option text inside another
        n = rng.randrange(2, len(LETTERS) + 1)
        mask = [j < n and (j < 2 or rng.random() < 0.8) for j in range(len(LETTERS))]  # gaps, as VLMEvalKit
        offered[r] = mask
        for j, column in enumerate(texts):
            column.append(row_texts[j] if mask[j] else "")
        predictions.append(_prediction(rng, [t for t, m in zip(row_texts, mask, strict=True) if m]))
    return offered, texts, predictions


def _check_against_oracle(letter: np.ndarray, method: np.ndarray, offered: np.ndarray, texts: list[list[str]],
                          predictions: list[str]) -> None:
    for r, text in enumerate(predictions):
        shown = [j for j in range(len(LETTERS)) if offered[r, j]]
        expected = match_letter(text, tuple(LETTERS[j] for j in shown), tuple(texts[j][r] for j in shown))
        got = None if letter[r] == -1 else NO_OPTION if letter[r] == NO_OPTION_CODE else LETTERS[letter[r]]
        assert (got, METHODS[method[r]]) == expected, (r, text, shown)
    assert len(set(method.tolist())) >= 5  # every rule was exercised


def test_column_matcher_agrees_with_match_letter_on_every_row() -> None:
    offered, texts, predictions = _generated(6000)
    options = OptionColumns(LETTERS, offered, [_chunked(column) for column in texts])
    letter, method = match_columns(_chunked(predictions), options)
    _check_against_oracle(letter, method, offered, texts, predictions)


def test_short_columns_of_records_agree_with_match_letter() -> None:
    """The same rows read a few at a time, as records and judge replies are (no pyarrow)."""
    offered, texts, predictions = _generated(3000)
    rows = [list(row) for row in zip(*texts, strict=True)]
    letter, method = np.zeros(len(predictions), dtype=np.int64), np.zeros(len(predictions), dtype=np.int64)
    start, size = 0, 1
    while start < len(predictions):
        part = slice(start, start + size)
        letter[part], method[part] = match_rows(predictions[part], LETTERS, offered[part], rows[part])
        start, size = start + size, size % 5 + 1
    _check_against_oracle(letter, method, offered, texts, predictions)


ASCII_WORDS = ["cat", "Dog", "red car", "a", "A", "b c", "answer is", "x" * 40, "car", "Red", "e\x00", "\x00",
               "tab\there", "z", "Z", "B.", "(C)"]


def test_rule_4_in_small_batches_agrees_with_match_letter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The byte search of rule 4 in batches of a few rows, with options longer than the answer (cut),
    options inside each other, NUL bytes (left to `match_letter`), and upper case."""
    monkeypatch.setattr(choice_columns, "_BATCH_BYTES", 64)
    rng = random.Random(11)
    rows = 3000
    letters = ("A", "B", "C", "D")
    offered = np.zeros((rows, len(letters)), dtype=bool)
    texts: list[list[str]] = [[] for _ in letters]
    predictions: list[str] = []
    for r in range(rows):
        row_texts = [rng.choice(ASCII_WORDS) + rng.choice(["", " 1", "s"]) for _ in letters]
        if rng.random() < 0.3:
            row_texts[2] = row_texts[3][: rng.randrange(1, len(row_texts[3]) + 1)]
        mask = [j < 2 or rng.random() < 0.8 for j in range(len(letters))]
        offered[r] = mask
        for j, column in enumerate(texts):
            column.append(row_texts[j] if mask[j] else "")
        shown = [t for t, m in zip(row_texts, mask, strict=True) if m]
        parts = [rng.choice([*shown, *ASCII_WORDS, "and", "or"]) for _ in range(rng.randrange(1, 5))]
        text = " ".join(parts)
        predictions.append(rng.choice([text, text.upper(), text.lower(), rng.choice(shown).upper()]))
    options = OptionColumns(letters, offered, [_chunked(column) for column in texts])
    letter, method = match_columns(_chunked(predictions), options)
    for r, text in enumerate(predictions):
        shown = [j for j in range(len(letters)) if offered[r, j]]
        expected = match_letter(text, tuple(letters[j] for j in shown), tuple(texts[j][r] for j in shown))
        got = None if letter[r] == -1 else NO_OPTION if letter[r] == NO_OPTION_CODE else letters[letter[r]]
        assert (got, METHODS[method[r]]) == expected, (r, text, shown)
    assert np.count_nonzero(method == METHODS.index("rule-text")) > 300


UNICODE_WORDS = ["猫", "红色", "café", "CAFÉ", "straße", "σοφια", "ǅemal", "ﬁsh", "ＡＢＣ", "Å", "ΐ", "ᾈ",
                 "i\u0307", "cat", "Dog"]
#: Characters pyarrow may lower otherwise than Python (or, "Σ", Python depending on the neighbours), and NUL.
DOUBTFUL_WORDS = ["İstanbul", "ΣΟΦΙΑ", "\u212aelvin", "\u212b", "ẞ", "\u2126", "e\x00"]


def test_rule_4_on_unicode_text_agrees_with_match_letter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule 4 with lower case beyond ASCII: characters pyarrow lowers as Python does (CJK, accented Latin,
    fullwidth) go the byte search; those it may not ("İ", the Kelvin sign, "Σ" whose lower case depends on
    its place, "ẞ") and NUL bytes are left to Python."""
    monkeypatch.setattr(choice_columns, "_BATCH_BYTES", 256)
    python_rows: list[int] = []
    by_python = choice_columns._rule_4_python

    def counted(texts: list[str], *args: Any) -> None:
        python_rows.append(len(texts))
        by_python(texts, *args)

    monkeypatch.setattr(choice_columns, "_rule_4_python", counted)
    rng = random.Random(5)
    rows, letters = 4000, ("A", "B", "C", "D")
    offered = np.ones((rows, len(letters)), dtype=bool)
    texts: list[list[str]] = [[] for _ in letters]
    predictions: list[str] = []
    for _ in range(rows):
        row_texts = [rng.choice(DOUBTFUL_WORDS if rng.random() < 0.03 else UNICODE_WORDS)
                     + rng.choice(["", " 1", "s"]) for _ in letters]
        for j, column in enumerate(texts):
            column.append(row_texts[j])
        pick = rng.choice(row_texts)
        other = rng.choice(UNICODE_WORDS + DOUBTFUL_WORDS)
        predictions.append(rng.choice([pick, pick.upper(), pick.lower(), f"it is {pick}!",
                                       f"{pick} or {rng.choice(row_texts)}", other.upper()]))
    letter, method = match_columns(_chunked(predictions), OptionColumns(letters, offered,
                                                                         [_chunked(c) for c in texts]))
    for r, text in enumerate(predictions):
        expected = match_letter(text, letters, tuple(column[r] for column in texts))
        got = None if letter[r] == -1 else letters[letter[r]]
        assert (got, METHODS[method[r]]) == expected, (r, text)
    assert np.count_nonzero(method == METHODS.index("rule-text")) > 1000
    assert 0 < sum(python_rows) < rows // 2  # the byte search took most rows, Python the doubtful ones


def test_characters_whose_lower_case_pyarrow_and_python_share() -> None:
    chars = "aZ猫éÉßＡ\u0130\u212a\u03a3\u03c3\u1e9e"
    same = choice_columns._same_lower_case([ord(char) for char in chars])
    assert dict(zip(chars, same.tolist(), strict=True)) == {
        "a": True, "Z": True, "猫": True, "é": True, "É": True, "ß": True, "Ａ": True,
        "\u0130": False, "\u212a": False, "\u03a3": False, "\u03c3": True, "\u1e9e": False}


def test_code_points_read_from_utf8_bytes() -> None:
    rng = random.Random(3)
    chars = "aé猫Ａ\u0080\u07ff\u0800\uffff\U00010000\U0010ffff" + "".join(
        chr(rng.choice([rng.randrange(0x80, 0xD800), rng.randrange(0xE000, 0x110000)])) for _ in range(5000))
    data = np.frombuffer(chars.encode("utf-8"), dtype=np.uint8)
    points = choice_columns._code_points(data, np.flatnonzero(data >= 0xC0))
    assert points.tolist() == [ord(char) for char in chars if ord(char) >= 0x80]
