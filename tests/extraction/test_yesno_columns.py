"""The column-wise MME yes/no rule gives exactly what the row-by-row oracle gives, on awkward answers: on
whole columns (a results file) and on a few answers at a time (records)."""

from __future__ import annotations

import random

import pyarrow as pa

from mmgauge.extraction.yesno import parse_yes_no_many
from mmgauge.extraction.yesno_columns import ANSWERS, OFFICIAL, official_column, official_texts
from oracles.yesno_rows import parse_official

PIECES = ["yes", "Yes", "YES", "no", "No", "NO", "n", "o", "y", "e", "s", " ", "  ", "\t", "\n", "\r", ".",
          ",", "!", "t", "not", "none", "know", "İ", "ſ", "Ｙ", "\u00a0", "答案", "ß", "K", "\u212a", ""]


def _answers(count: int) -> list[str]:
    rng = random.Random(5)
    fixed = ["yes", "no", "Yes", "NO", " yes", "  yes", "yes\n", "İyes", "İno", "ſyes", "Ｙes", "noyes",
             "yesno", "", "ye", "n", "nope", "yesterday", "I don't know", "答案: yes", "\u212ano"]
    return fixed + ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 6))) for _ in range(count)]


def test_a_column_of_answers_reads_as_the_oracle() -> None:
    texts = _answers(20000)
    cut = len(texts) // 2
    answer, method = official_column(pa.chunked_array([pa.array(texts[:cut]), pa.array(texts[cut:])]))
    got = [(ANSWERS[a], OFFICIAL[m]) for a, m in zip(answer.tolist(), method.tolist(), strict=True)]
    assert got == [parse_official(text) for text in texts]
    assert set(method.tolist()) == {0, 1, 2}


def test_a_few_answers_at_a_time_read_as_the_oracle() -> None:
    texts = _answers(3000)
    start, size, got = 0, 1, []
    while start < len(texts):
        answer, method = official_texts(texts[start:start + size])
        got += [(ANSWERS[a], OFFICIAL[m]) for a, m in zip(answer.tolist(), method.tolist(), strict=True)]
        start, size = start + size, size % 4 + 1
    assert got == [parse_official(text) for text in texts]
    read = parse_yes_no_many(texts[:200], "official")
    assert [(e.answer, e.method) for e in read] == [parse_official(text) for text in texts[:200]]
