"""An MMBench predictions file scored row by row with no judge, as VLMEvalKit reads it (pandas' missing-value
texts; groups of the copies present): the oracle of `mmgauge.benchmarks.mmbench.prediction_columns`. The
table comes from `tsv.load_table`; each row's options and prediction are read as Python strings, the rules
run one row at a time (`choice_rows.match_letter`), and `mmbench.scoring.score_columns` scores plain arrays.
"""

from __future__ import annotations

import numpy as np

from mmgauge.benchmarks.mmbench.circular import has_copies
from mmgauge.benchmarks.mmbench.scoring import MMBenchResult, score_columns
from mmgauge.benchmarks.mmbench.tsv import Table
from mmgauge.benchmarks.mmbench.vlmevalkit import LABEL_COLUMNS, PANDAS_NA_TEXTS, group_sizes
from oracles.choice_rows import match_letter

_NA_WORDS = PANDAS_NA_TEXTS - {""}


def score_rows(table: Table, *, literal: bool) -> MMBenchResult:
    rows: list[list[str]] = table.options.tolist()
    counts: list[int] = table.n_options.tolist()
    letters: list[tuple[str, ...]] = []
    texts: list[tuple[str, ...]] = []
    for row, n in zip(rows, counts, strict=True):
        kept = [i for i in range(n) if literal or row[i] not in PANDAS_NA_TEXTS]
        letters.append(tuple(table.letters[i] for i in kept))
        texts.append(tuple(row[i] for i in kept))
    predictions = [str(text) for text in table.text("prediction").tolist()]
    if not literal:
        predictions = ["nan" if text in PANDAS_NA_TEXTS else text for text in predictions]
    labels = {column: table.text(column).copy() for column in LABEL_COLUMNS}
    if not literal:
        for values in labels.values():
            values[np.isin(values, sorted(_NA_WORDS))] = ""
    read = [match_letter(text, shown, named) for text, shown, named in zip(predictions, letters, texts,
                                                                            strict=True)]
    answer = table.answer
    extracted = np.array([letter for letter, _ in read], dtype=object)
    sizes = group_sizes(table.group)
    result = score_columns(
        group=table.group, copy=table.copy, n_copies=sizes, correct=(answer != "") & (extracted == answer),
        method=[method for _, method in read], has_answer=answer != "", category=labels["category"],
        l2=labels["l2-category"], split=labels["split"], not_judged=np.zeros(len(answer), dtype=bool),
    )
    missing_like = np.array([any(cell in _NA_WORDS for cell in row[:n]) for row, n in zip(rows, counts,
                                                                                         strict=True)])
    groups = np.unique(table.group[missing_like])
    result.na_text_questions = len(groups)
    result.na_text_examples = [int(g) for g in groups[:5]]
    result.na_text_dropped = not literal
    if has_copies(table):
        shown = np.array([len(row) for row in letters], dtype=np.int64)
        result.short_groups = int(np.count_nonzero((table.copy == 0) & (sizes < shown)))
    return result
