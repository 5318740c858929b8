"""How VLMEvalKit reads an MMBench predictions file, for scoring it the way its own toolkit scores it.

VLMEvalKit loads the file with pandas' defaults (`pd.read_csv(sep="\\t")`, `pd.read_excel`), so a cell whose
whole text is one of pandas' missing-value strings becomes NaN: an option reading "None", "NA" or "null" is no
option at all (`build_choices` keeps the letters whose cell is not NaN, gaps allowed), and a prediction
reading "NA" becomes the text "nan" (`data["prediction"].astype(str)`). This module gives each row its options
and its prediction as VLMEvalKit sees them, or, with `literal`, as written (an option reading exactly "nan" is
empty either way: see `tsv.py`).

Grouping (VLMEvalKit `mcq_circular_eval`, `vlmeval/dataset/utils/multiple_choice.py`): a question group is
every row sharing `g_index` (else `index % 1e6`), keyed by its first copy; it is right when every copy present
is right. A group holding fewer copies than its question has options is judged on the copies present.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.tsv import ObjArray, Table

#: pandas' default missing-value strings (`pandas.read_csv`, parameter `na_values`; `read_excel` uses the
# same).
PANDAS_NA_TEXTS: Final = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
    "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
_NA_WORDS: Final = PANDAS_NA_TEXTS - {""}
LABEL_COLUMNS: Final = ("category", "l2-category", "split")


@dataclass
class Choices:
    """Per row: the option letters and texts a matcher sees, the prediction text, and the label columns."""

    letters: list[tuple[str, ...]]
    texts: list[tuple[str, ...]]
    predictions: list[str]
    labels: dict[str, ObjArray]
    hints: ObjArray
    questions: ObjArray
    #: Rows with an option whose text pandas reads as missing (dropped unless literal).
    missing_like: npt.NDArray[np.bool_]


def choices(table: Table, *, literal: bool) -> Choices:
    options: list[list[str]] = table.options.tolist()
    counts: list[int] = table.n_options.tolist()
    rows = list(zip(options, counts, strict=True))
    missing_like = np.array([any(cell in _NA_WORDS for cell in row[:n]) for row, n in rows], dtype=bool)
    predictions: list[str] = table.text("prediction").tolist()
    labels = {column: table.text(column) for column in LABEL_COLUMNS}
    hints, questions = table.text("hint"), table.text("question")
    if literal:
        prefixes = [tuple(table.letters[:n]) for n in range(len(table.letters) + 1)]
        shown = [tuple(row[:n]) for row, n in rows]
        letters = [prefixes[n] for n in counts]
        return Choices(letters, shown, predictions, labels, hints, questions, missing_like)
    letters = []
    texts: list[tuple[str, ...]] = []
    for row in options:
        kept = [i for i, cell in enumerate(row) if cell not in PANDAS_NA_TEXTS]
        letters.append(tuple(table.letters[i] for i in kept))
        texts.append(tuple(row[i] for i in kept))
    predictions = ["nan" if text in PANDAS_NA_TEXTS else text for text in predictions]
    labels = {column: _blank_na(values) for column, values in labels.items()}
    return Choices(letters, texts, predictions, labels, _blank_na(hints), _blank_na(questions), missing_like)


def drop_missing_like(table: Table) -> Table:
    """The table with every option pandas reads as missing left out (its cell ""), as VLMEvalKit's
    `build_prompt` leaves it out (`not pd.isna(line[cand])`); the other options keep their letters, so a row
    may offer A, B and D. Check circular copies on the table as written, before this."""
    missing = np.isin(table.options, list(_NA_WORDS))
    if not missing.any():
        return table
    options: ObjArray = table.options.copy()
    options[missing] = ""
    columns = dict(table.columns)
    for i, letter in enumerate(table.letters):
        columns[letter] = options[:, i]
    n_options = (options != "").sum(axis=1).astype(np.int64)
    return replace(table, columns=columns, options=options, n_options=n_options)


def _blank_na(values: ObjArray) -> ObjArray:
    out: ObjArray = values.copy()
    out[np.isin(values, list(_NA_WORDS))] = ""
    return out


def group_sizes(group: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For every row, how many rows share its group."""
    _, codes, counts = np.unique(group, return_inverse=True, return_counts=True)
    return np.asarray(counts[codes], dtype=np.int64)
