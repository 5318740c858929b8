"""How VLMEvalKit reads an MMBench predictions file, for scoring it the way its own toolkit scores it.

VLMEvalKit loads the file with pandas' defaults (`pd.read_csv(sep="\\t")`, `pd.read_excel`), so a cell whose
whole text is one of pandas' missing-value strings becomes NaN: an option reading "None", "NA" or "null" is no
option at all (`build_choices` keeps the letters whose cell is not NaN, gaps allowed), and a prediction
reading "NA" becomes the text "nan" (`data["prediction"].astype(str)`). Scoring reads each row's options and
prediction so (`prediction_columns.Predictions.offered`), or, with `literal`, as written (an option reading
exactly "nan" is empty either way: see `tsv.py`).

Grouping (VLMEvalKit `mcq_circular_eval`, `vlmeval/dataset/utils/multiple_choice.py`): a question group is
every row sharing `g_index` (else `index % 1e6`), keyed by its first copy; it is right when every copy present
is right. A group holding fewer copies than its question has options is judged on the copies present.
"""

from __future__ import annotations

from dataclasses import replace
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


def blank_na(values: ObjArray) -> ObjArray:
    """The cells pandas reads as missing (other than empty) made empty, as VLMEvalKit's labels read."""
    out: ObjArray = values.copy()
    out[np.isin(values, list(_NA_WORDS))] = ""
    return out


def group_sizes(group: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For every row, how many rows share its group."""
    _, codes, counts = np.unique(group, return_inverse=True, return_counts=True)
    return np.asarray(counts[codes], dtype=np.int64)
