"""Scoring an MMBench predictions file: the one implementation (`score_read`), on columns, whichever reader
read the file: a TSV straight into pyarrow columns here (no Python string per cell), or any file through
`tsv.load_table` (`predictions.predictions_of`), the reader that names the row and column of a problem.

The TSV reader here makes the checks of `tsv.parse_table` and `circular.base_positions` on columns, and only
says yes or no: at the first problem (or a file it does not read, such as a spreadsheet),
`score_prediction_columns` returns None and the caller reads the file with `tsv.load_table`, which says what
is wrong, or reads what this reader leaves to it. Cells are read as `tsv.load_table` reads them (the same
pyarrow CSV options), and each step mirrors one of its steps, named in its comment.

Only the columns scoring reads are parsed. That is safe where the file is ASCII (the reference reader would
reject invalid UTF-8 in any column it reads, and ASCII is valid UTF-8); and where the file holds no quote
character, no cell can hold a line break, so pyarrow need not look for one (its faster reading).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.prediction_keys import Keys, keys_of, letters_of
from mmgauge.benchmarks.mmbench.scoring_columns import Coded
from mmgauge.benchmarks.mmbench.tsv import OPTION_LETTERS, REQUIRED
from mmgauge.benchmarks.mmbench.vlmevalkit import LABEL_COLUMNS, PANDAS_NA_TEXTS
from mmgauge.core.errors import UserError
from mmgauge.datasources.arrow_numpy import (
    byte_lengths,
    compute,
    distinct,
    encode,
    from_numpy,
    in_set,
    reading_meanwhile,
    strings,
    take,
)
from mmgauge.extraction.choice_answers import AnswerFacts, answer_facts
from mmgauge.extraction.choice_columns import OptionColumns, match_codes
from mmgauge.extraction.choice_rules import METHODS

if TYPE_CHECKING:
    import pyarrow as pa

    from mmgauge.benchmarks.mmbench.scoring import CircularGroups, MMBenchResult
    from mmgauge.datasources.arrow_numpy import Column

IntArray = npt.NDArray[np.int64]
CountArray = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

_TEXT_SUFFIXES: Final = (".tsv", ".txt")
_NA_WORDS: Final = sorted(PANDAS_NA_TEXTS - {""})
#: The module of `score_columns`.
_SCORER: Final = "mmgauge.benchmarks.mmbench.scoring"
_NA_BYTES: Final = max(len(text.encode("utf-8")) for text in PANDAS_NA_TEXTS)
#: The columns scoring reads; `question` need only be there.
_SCORED: Final = frozenset({"index", "answer", "g_index", "prediction", *LABEL_COLUMNS, *OPTION_LETTERS})


@dataclass
class Predictions:
    """A predictions file's columns as scoring reads them, from either reader (options stay in pyarrow)."""

    source: str
    letters: tuple[str, ...]
    options: list[Column]
    given: list[BoolArray]  # per letter: a non-empty option other than "nan"
    missing: list[BoolArray]  # per letter: an option pandas reads as missing ("", "None", "NA", ...)
    prediction: Column
    answer: IntArray  # the answer's option index, -1 where there is none (a test split)
    group: IntArray
    copy: IntArray
    labels: dict[str, Column | None]  # LABEL_COLUMNS; None where the file has no such column

    def offered(self, literal: bool) -> list[BoolArray]:
        """Per letter, the rows offering it: with `literal` every given option, else as VLMEvalKit reads the
        file (an option pandas reads as missing is none)."""
        return _offered(self.given, self.missing, literal)


@dataclass(frozen=True)
class _Labels:
    """A label column (`scoring_columns.LabelColumn`) read from pyarrow for the rows asked."""

    column: Column | None
    literal: bool

    def at(self, rows: IntArray) -> tuple[IntArray, list[str]]:
        """The labels of `rows`: "" where the column is absent; VLMEvalKit reads missing-looking labels as
        empty."""
        if self.column is None:
            return np.zeros(len(rows), dtype=np.int64), [""]
        values, codes = distinct(take(self.column, rows))
        if not self.literal:
            values = ["" if value in _NA_WORDS else value for value in values]
        return codes, values


def score_prediction_columns(path: Path, *, literal_options: bool, seed: int) -> MMBenchResult | None:
    """The VLMEvalKit-form score of a TSV predictions file, or None when `tsv.load_table` must read it."""
    from concurrent.futures import ThreadPoolExecutor

    read = _read(path)
    if read is None or not _has_required(*read):
        return None
    columns = read[0]
    # The rows' numbers (index, g_index, answer) are checked, and the question groups CircularEval scores
    # are made of them, in a worker while the options are read and the rules run here: arrow and numpy let
    # go of the GIL for most of both, so on two free cores the checks take little time of their own (on a
    # busy machine the two take as long as one after the other). The rules are read before knowing whether
    # the checks pass; if not, they go unused.
    # What rules 1-3 see in each distinct answer needs no options: the worker reads it first.
    with ThreadPoolExecutor(max_workers=1) as pool:
        answers = pool.submit(_answers_read, columns["prediction"], letters_of(columns), literal_options)
        checked = pool.submit(_keys_and_groups, columns, literal_options)
        options = _options(columns)
        rules = None if options is None else _rules(options, answers.result())
        keys, groups = checked.result()
    if options is None or rules is None or keys is None or (keys.answer >= options.n_options).any():
        return None
    table = _table(str(path), columns, options, keys)
    letter, method = rules
    return score_read(table, letter, Coded(method, METHODS), keys.group_size[keys.group_code],
                      literal=literal_options, seed=seed, short=bool((table.copy > 0).any()), groups=groups)


def _keys_and_groups(columns: dict[str, Column], literal: bool) -> tuple[Keys | None, CircularGroups | None]:
    """`keys_of`, and the question groups CircularEval scores, which need no answers."""
    keys = keys_of(columns)
    if keys is None:
        return None, None
    return keys, _groups(keys.group, keys.copy, keys.group_size[keys.group_code], keys.answer >= 0,
                         {column: columns.get(column) for column in LABEL_COLUMNS}, literal)


def _groups(group: IntArray, copy: IntArray, n_copies: IntArray, has_answer: BoolArray,
            labels: dict[str, Column | None], literal: bool) -> CircularGroups:
    from mmgauge.benchmarks.mmbench.scoring import circular_groups

    read = {column: _Labels(labels[column], literal) for column in LABEL_COLUMNS}
    return circular_groups(group=group, copy=copy, n_copies=n_copies, has_answer=has_answer,
                           category=read["category"], l2=read["l2-category"], split=read["split"])


def read_rules(table: Predictions, *, literal: bool) -> tuple[IntArray, IntArray]:
    """Every row's answer read by the rules: (letter code, method code) as `choice_columns` gives them."""
    return _rules(_Options(table.letters, table.options, table.given, table.missing),
                  _answers_read(table.prediction, table.letters, literal))


@dataclass(frozen=True)
class _Answers:
    """The answers as the rules read them: each distinct text once, each row's number among them, and what
    rules 1-3 see in each text; and whether options pandas reads as missing are kept."""

    texts: pa.Array
    codes: IntArray
    facts: AnswerFacts
    literal: bool


def _answers_read(prediction: Column, letters: tuple[str, ...], literal: bool) -> _Answers:
    texts, codes = encode(prediction)
    if not literal:
        texts = _read_as_nan(texts)
    return _Answers(texts, codes, answer_facts(texts, letters), literal)


def _rules(options: _Options, answers: _Answers) -> tuple[IntArray, IntArray]:
    offered = OptionColumns(options.letters, np.column_stack(options.offered(answers.literal)),
                            options.options)
    return match_codes(answers.texts, answers.codes, offered, answers.facts)


def score_read(table: Predictions, letter: IntArray, method: Coded, n_copies: IntArray, *, literal: bool,
               seed: int, short: bool, judged: bool = False, not_judged: BoolArray | None = None,
               groups: CircularGroups | None = None) -> MMBenchResult:
    """CircularEval of the answers read (`letter` codes, after any judge), groups needing `n_copies`
    (`groups`: those groups, made already); `short` counts groups holding fewer copies than options (files
    read as VLMEvalKit groups them). `seed` changes nothing (the intervals are exact)."""
    from mmgauge.benchmarks.mmbench.scoring import TEST_ANSWERS, score_groups

    has_answer = table.answer >= 0
    if groups is None:
        groups = _groups(table.group, table.copy, n_copies, has_answer, table.labels, literal)
    result = score_groups(
        groups, correct=has_answer & (letter == table.answer), method=method, judged=judged,
        not_judged=np.zeros(len(letter), dtype=bool) if not_judged is None else not_judged,
    )
    if result.overall is None:
        raise UserError(f"the file has no answer key (a test split); {TEST_ANSWERS}", file=table.source,
                        field="answer")
    _notes(result, table, table.offered(literal), n_copies, literal=literal, short=short)
    return result


def _read(path: Path) -> tuple[dict[str, Column], set[str]] | None:
    """`tsv._read_tsv` without the image column, names as `tsv._vlmevalkit_names` gives them: the columns
    read, and the names of all columns."""
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
    ascii_only, quoted = _scan(path)
    kept = [old for old, new in zip(names, renamed, strict=True)
            if old != "image" and (not ascii_only or new in _SCORED)]
    try:
        # The scorer (pydantic and all) is imported while the file is read: it is needed only after.
        table = reading_meanwhile(lambda: pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False,
                quoted_strings_can_be_null=False, include_columns=kept),
            parse_options=pacsv.ParseOptions(delimiter="\t", newlines_in_values=quoted),
        ), _SCORER)
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None
    # Only the columns scoring reads are kept: the others (a question's text, its hint) were read only to
    # find what the reference reader would reject, and their memory goes back at once (a tenth of a GB at a
    # million rows), for what scoring makes next.
    columns = {new: table.column(old) for old, new in zip(names, renamed, strict=True)
               if old in kept and new in _SCORED}
    return columns, set(renamed)


def _scan(path: Path) -> tuple[bool, bool]:
    """Whether the file's bytes are all ASCII, and whether any is a quote character."""
    block = bytearray(1 << 20)
    ascii_only, quoted = True, False
    with path.open("rb", buffering=0) as handle:
        while (ascii_only or not quoted) and (size := handle.readinto(block)):
            read = block if size == len(block) else block[:size]
            ascii_only = ascii_only and read.isascii()
            quoted = quoted or read.find(b'"') >= 0
    return ascii_only, quoted


@dataclass
class _Options:
    """The option columns of a file, and per letter which cells hold an option and which read as missing
    (as in `Predictions`)."""

    letters: tuple[str, ...]
    options: list[Column]
    given: list[BoolArray]
    missing: list[BoolArray]

    @cached_property
    def n_options(self) -> CountArray:
        return _count(self.given)

    def offered(self, literal: bool) -> list[BoolArray]:
        """As `Predictions.offered`."""
        return _offered(self.given, self.missing, literal)


def _offered(given: list[BoolArray], missing: list[BoolArray], literal: bool) -> list[BoolArray]:
    if literal:
        return given
    return [cells & ~absent for cells, absent in zip(given, missing, strict=True)]


# `tsv.parse_table` (need_prediction, not need_category) in three parts, each None where it would raise:
# the columns there (`_has_required`), the options (`_options`), the rows' numbers (`prediction_keys`,
# which also checks what `circular.base_positions` does); then no answer may name a letter its row does not
# offer (`score_prediction_columns`).


def _has_required(columns: dict[str, Column], names: set[str]) -> bool:
    required = [c for c in REQUIRED if c != "category"] + ["prediction"]
    return all(column in names for column in required) and len(columns["index"]) > 0


def _options(columns: dict[str, Column]) -> _Options | None:
    letters = letters_of(columns)
    options = [columns[letter] for letter in letters]
    read = [_option_cells(option) for option in options]
    found = _Options(letters, options, [cells[0] for cells in read], [cells[1] for cells in read])
    n_options = found.n_options
    in_order = all(not (cells != (n_options > j)).any() for j, cells in enumerate(found.given))
    if not in_order or (n_options < 2).any():
        return None
    return found


def _table(source: str, columns: dict[str, Column], options: _Options, keys: Keys) -> Predictions:
    labels = {column: columns.get(column) for column in LABEL_COLUMNS}
    return Predictions(source, options.letters, options.options, options.given, options.missing,
                       columns["prediction"], keys.answer, keys.group, keys.copy, labels)


def _option_cells(option: Column) -> tuple[BoolArray, BoolArray]:
    """Which cells hold an option (not empty, and not "nan": pandas' NaN written out as text, which
    `parse_table` blanks), and which read as missing to pandas (`vlmevalkit.PANDAS_NA_TEXTS`)."""
    size = byte_lengths(option)
    given = size > 0
    short = np.flatnonzero(size <= _NA_BYTES)  # only these can read as missing
    cells = take(option, short)  # one array: the next take is from it, not from the file's chunks
    missing_short = in_set(cells, sorted(PANDAS_NA_TEXTS))
    missing = np.zeros(len(size), dtype=bool)
    missing[short] = missing_short
    among_short = np.flatnonzero(missing_short & given[short])
    suspect = short[among_short]
    values, codes = distinct(take(cells, among_short))
    given[suspect[np.array([value == "nan" for value in values], dtype=bool)[codes]]] = False
    return given, missing


def _read_as_nan(texts: pa.Array) -> pa.Array:
    """Predictions as VLMEvalKit reads them: one pandas reads as missing is the text "nan"."""
    missing = in_set(texts, sorted(PANDAS_NA_TEXTS))
    if not missing.any():
        return texts
    replaced: pa.Array = compute("if_else", from_numpy(missing), strings(["nan"])[0], texts)
    return replaced


def _count(flags: list[BoolArray]) -> CountArray:
    """Per row, how many of the (per-letter) flags are set (at most 9: one byte a row, not eight)."""
    count = np.zeros(len(flags[0]), dtype=np.int8)
    for column in flags:
        count += column
    return count


def _notes(result: MMBenchResult, table: Predictions, offered: list[BoolArray], sizes: IntArray, *,
           literal: bool, short: bool) -> None:
    """What the toolkits read differently: options pandas reads as missing, groups short of copies."""
    missing_like = _count([m & g for m, g in zip(table.missing, table.given, strict=True)]) > 0
    groups = np.sort(table.group[missing_like])
    groups = groups[np.r_[True, groups[1:] != groups[:-1]]] if len(groups) else groups
    result.na_text_questions = len(groups)
    result.na_text_examples = [int(g) for g in groups[:5]]
    result.na_text_dropped = not literal
    if short:
        shown = _count(offered)
        result.short_groups = int(np.count_nonzero((table.copy == 0) & (sizes < shown)))
