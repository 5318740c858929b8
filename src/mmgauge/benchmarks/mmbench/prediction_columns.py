"""Scoring a TSV predictions file column-wise, with no judge: what `predictions.score_prediction_file`
computes, with the table kept in pyarrow (no Python string per cell) and the matcher run on whole columns.

The checks are those of `tsv.parse_table` and `circular.base_positions`, done on columns. This path only
says yes or no: at the first problem (or a file it does not read, such as a spreadsheet),
`score_prediction_columns` returns None and the caller reads the file with `tsv.load_table`, which names the
row and column of the problem. Cells are read as the reference reader reads them (the same pyarrow CSV
options), and each step mirrors a reference step, named in its comment.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.tsv import COPY_STRIDE, OPTION_LETTERS, REQUIRED
from mmgauge.benchmarks.mmbench.vlmevalkit import LABEL_COLUMNS, PANDAS_NA_TEXTS, group_sizes
from mmgauge.core.errors import UserError
from mmgauge.datasources.arrow_numpy import (
    compute,
    distinct,
    from_numpy,
    in_set,
    lengths,
    strings,
    take,
    to_numpy,
)
from mmgauge.extraction.choice_columns import OptionColumns, match_columns
from mmgauge.extraction.choice_rules import METHODS
from mmgauge.scoring.mmbench import TEST_ANSWERS, MMBenchResult, score_columns

if TYPE_CHECKING:
    import pyarrow as pa

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
ObjArray = npt.NDArray[np.object_]

_TEXT_SUFFIXES: Final = (".tsv", ".txt")
_NA_WORDS: Final = sorted(PANDAS_NA_TEXTS - {""})


@dataclass
class _Table:
    """The parsed columns `tsv.parse_table` would give, as arrays (options stay in pyarrow)."""

    columns: dict[str, pa.Array]
    letters: tuple[str, ...]
    options: list[pa.Array]
    given: BoolArray  # (rows, letters): a non-empty option other than "nan"
    n_options: IntArray
    answer: IntArray  # the answer's option index, -1 where there is none (a test split)
    group: IntArray
    copy: IntArray


def score_prediction_columns(path: Path, *, literal_options: bool, seed: int) -> MMBenchResult | None:
    """The VLMEvalKit-form score of a TSV predictions file, or None when the reference path must read it."""
    columns = _read(path)
    table = None if columns is None else _parse(columns)
    if table is None or not _first_copies_ok(table.group, table.copy):
        return None
    options, missing_like = _options(table, literal=literal_options)
    predictions = table.columns["prediction"]
    if not literal_options:
        predictions = _read_as_nan(predictions)
    letter, method = match_columns(predictions, options)
    has_answer = table.answer >= 0
    labels = {column: _labels(table.columns.get(column), len(letter), literal=literal_options)
              for column in LABEL_COLUMNS}
    result = score_columns(
        group=table.group, copy=table.copy, n_copies=group_sizes(table.group),
        correct=has_answer & (letter == table.answer), method=np.array(METHODS, dtype=object)[method],
        has_answer=has_answer, category=labels["category"], l2=labels["l2-category"], split=labels["split"],
        judged=False, seed=seed, not_judged=np.zeros(len(letter), dtype=bool),
    )
    if result.overall is None:
        raise UserError(f"the file has no answer key (a test split); {TEST_ANSWERS}", file=str(path),
                        field="answer")
    _notes(result, table, options, missing_like, literal=literal_options)
    return result


def _read(path: Path) -> dict[str, pa.Array] | None:
    """`tsv._read_tsv` without the image column, names as `tsv._vlmevalkit_names` gives them."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if not path.is_file() or path.suffix.lower() not in _TEXT_SUFFIXES:
        return None
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle, delimiter="\t"), [])
    except UnicodeDecodeError:
        return None
    names = [name.strip() for name in header]
    renamed = [name if len(name) == 1 and name.isupper() else name.lower() for name in names]
    if not names or len(set(names)) != len(names) or len(set(renamed)) != len(renamed):
        return None
    kept = [name for name in names if name != "image"]
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False,
                quoted_strings_can_be_null=False, include_columns=kept),
            parse_options=pacsv.ParseOptions(delimiter="\t", newlines_in_values=True),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None
    return {new: table.column(old) for old, new in zip(names, renamed, strict=True) if old in kept}


def _parse(columns: dict[str, pa.Array]) -> _Table | None:
    """`tsv.parse_table` (need_prediction, not need_category); None where it would raise."""
    required = [c for c in REQUIRED if c != "category"] + ["prediction"]
    if any(column not in columns for column in required) or len(columns["index"]) == 0:
        return None
    index = _integers(columns["index"])
    if index is None or _has_repeats(index):
        return None
    letters = tuple(OPTION_LETTERS[: next(
        (i for i, letter in enumerate(OPTION_LETTERS) if letter not in columns), len(OPTION_LETTERS))])
    options = [columns[letter] for letter in letters]
    given = np.column_stack([_given(option) for option in options])
    n_options = given.sum(axis=1).astype(np.int64)
    in_order = np.arange(len(letters))[None, :] < n_options[:, None]
    if (given != in_order).any() or (n_options < 2).any():
        return None
    answer = _answers(columns.get("answer"), letters, len(index))
    if answer is None or (answer >= n_options).any():
        return None
    group = index % COPY_STRIDE
    cells = columns.get("g_index")
    if cells is not None:
        named = lengths(cells) > 0
        if named.any():
            numbers = _integers(compute("filter", cells, from_numpy(named)))
            if numbers is None:
                return None
            group = group.copy()
            group[named] = numbers
    return _Table(columns, letters, options, given, n_options, answer, group, index // COPY_STRIDE)


def _given(option: pa.ChunkedArray) -> BoolArray:
    """Cells holding an option: not empty, and not "nan" (pandas' NaN written out as text, which
    `parse_table` blanks)."""
    length = lengths(option)
    three = np.flatnonzero(length == 3)
    values, codes = distinct(take(option, three))
    given = length > 0
    given[three[np.array([value == "nan" for value in values], dtype=bool)[codes]]] = False
    return given


def _integers(column: pa.Array) -> IntArray | None:
    import pyarrow as pa
    from pyarrow._compute import CastOptions

    try:
        numbers = to_numpy(compute("cast", column, options=CastOptions.safe(pa.int64())))
    except (pa.ArrowInvalid, ValueError):
        return None  # the reference reader also takes 12.0 and names what is not a whole number
    return np.asarray(numbers, dtype=np.int64)


def _answers(column: pa.Array | None, letters: tuple[str, ...], rows: int) -> IntArray | None:
    """Each answer's option index (-1 for none); None when an answer is not an option letter."""
    if column is None:
        return np.full(rows, -1, dtype=np.int64)
    values, codes = distinct(column)
    position = {letter: i for i, letter in enumerate(letters)} | {"": -1}
    read = [position.get(str(value).strip(), 99) for value in values]
    if 99 in read:
        return None
    return np.array(read, dtype=np.int64)[codes]


def _has_repeats(values: IntArray) -> bool:
    ordered = np.sort(values)
    return bool((ordered[1:] == ordered[:-1]).any())


def _first_copies_ok(group: IntArray, copy: IntArray) -> bool:
    """`circular.base_positions` finds no problem: one first copy per group, and one for every group."""
    firsts = np.sort(group[copy == 0])
    if (firsts[1:] == firsts[:-1]).any() or not len(firsts):
        return False
    slot = np.minimum(np.searchsorted(firsts, group), len(firsts) - 1)
    return bool((firsts[slot] == group).all())


def _options(table: _Table, *, literal: bool) -> tuple[OptionColumns, BoolArray]:
    """Each row's options as `vlmevalkit.choices` gives them: all given ones (literal), or those whose text
    pandas would not read as missing; and which rows have an option pandas reads as missing."""
    missing = np.column_stack([in_set(option, sorted(PANDAS_NA_TEXTS)) for option in table.options])
    missing_like = np.asarray((missing & table.given).any(axis=1), dtype=bool)
    offered = table.given if literal else table.given & ~missing
    return OptionColumns(table.letters, offered, table.options), missing_like


def _read_as_nan(predictions: pa.ChunkedArray) -> pa.ChunkedArray:
    """Predictions as VLMEvalKit reads them: one pandas reads as missing is the text "nan"."""
    missing = in_set(predictions, sorted(PANDAS_NA_TEXTS))
    if not missing.any():
        return predictions
    replaced: pa.ChunkedArray = compute("if_else", from_numpy(missing), strings(["nan"])[0], predictions)
    return replaced


def _labels(column: pa.Array | None, rows: int, *, literal: bool) -> ObjArray:
    """A label column as text ("" where absent); VLMEvalKit reads missing-looking labels as empty."""
    if column is None:
        return np.full(rows, "", dtype=object)
    values, codes = distinct(column)
    if not literal:
        values = ["" if value in _NA_WORDS else value for value in values]
    labels: ObjArray = np.array(values, dtype=object)[codes]
    return labels


def _notes(result: MMBenchResult, table: _Table, options: OptionColumns, missing_like: BoolArray, *,
           literal: bool) -> None:
    """`predictions._notes`: options pandas reads as missing, groups short of copies."""
    groups = np.sort(table.group[missing_like])
    groups = groups[np.r_[True, groups[1:] != groups[:-1]]] if len(groups) else groups
    result.na_text_questions = len(groups)
    result.na_text_examples = [int(g) for g in groups[:5]]
    result.na_text_dropped = not literal
    if (table.copy > 0).any():
        sizes = group_sizes(table.group)
        result.short_groups = int(np.count_nonzero((table.copy == 0) & (sizes < options.offered.sum(axis=1))))
