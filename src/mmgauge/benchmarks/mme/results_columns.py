"""The official tool's results folders read straight into columns (`MMEColumns`), for folders of millions of
lines: pyarrow reads each `<subtask>.txt`, and the checks and the yes/no parsers run column-wise.

This is the one reader that scores a results folder. At the first irregularity (a line without exactly 4
fields, an empty line, an odd number of lines, a pair of two images, a truth that is not one Yes and one No,
text that is not UTF-8) `read_results_columns` returns None; the caller then has the line reader
(`official.read_results_folder`) name the file and line of the problem, and where there is none (a
byte-order mark, CR line ends, empty lines at the end) reads the files again here, as lines (`as_lines`).
The questions are never read.

Answers are read by `extraction.yesno`'s parsers: `official` on each file's answer column
(`yesno_columns.official_column`), `words` once per distinct answer.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mme.scoring import SUBTASKS, MMEColumns
from mmgauge.datasources.arrow_numpy import compute, distinct, to_numpy
from mmgauge.extraction.yesno_columns import OFFICIAL, official_column

if TYPE_CHECKING:
    import pyarrow as pa

_FIELDS: Final = ("image", "question", "truth", "answer")
_ANSWER_CODES: Final[dict[str | None, int]] = {"yes": 1, "no": 0, None: -1}
#: Files read at once (more threads than cores only add switching; pyarrow has its own pool too).
_MAX_READERS: Final = 4


class _Part(NamedTuple):
    """One results file's questions: truth, answer code and method code per line."""

    truth_yes: npt.NDArray[np.bool_]
    answer: npt.NDArray[np.int8]
    method: npt.NDArray[np.int64]


class _Methods:
    """Method names met so far, numbered in order of appearance."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def code(self, name: str) -> int:
        return self.numbers.setdefault(name, len(self.numbers))


def read_results_columns(files: list[tuple[Path, str]], parser: str, *, as_lines: bool = False
                         ) -> MMEColumns | None:
    """Questions of `(file, subtask)` results files in column form, or None if any file is irregular.
    `as_lines` reads each file's lines as `release.read_lines` gives them (a byte-order mark, CR line ends
    and empty lines at the end are then no irregularity; it raises the error of a file it cannot read).

    Files are read and parsed on a few threads (pyarrow releases the GIL while it reads and computes), each
    numbering its own methods; the numbers are then made those of reading the files in order, so the
    result does not depend on which thread finished first.
    """
    from concurrent.futures import ThreadPoolExecutor

    def read(path: Path) -> tuple[_Part, _Methods] | None:
        own = _Methods()
        found = _read_file(path, parser, own, as_lines)
        return None if found is None else (found, own)

    workers = max(1, min(len(files), os.cpu_count() or 1, _MAX_READERS))
    # Largest first, so that no thread is left alone with a big file at the end.
    order = sorted(range(len(files)), key=lambda number: -files[number][0].stat().st_size)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        by_number = dict(zip(order, pool.map(read, [files[number][0] for number in order]), strict=True))
    read_parts = [by_number[number] for number in range(len(files))]
    methods = _Methods()
    parts: list[_Part] = []
    for found in read_parts:
        if found is None:
            return None
        part, own = found
        renumber = np.array([methods.code(name) for name in own.numbers], dtype=np.int64)
        parts.append(part._replace(method=renumber[part.method]))
    sizes = [len(part.answer) for part in parts]
    subtasks = [SUBTASKS.index(subtask) for _, subtask in files]
    return MMEColumns(
        subtask=np.repeat(np.array(subtasks, dtype=np.int64), sizes),
        # The official tool pairs lines by position: lines 2i and 2i+1 of the folder are one image.
        image=np.arange(sum(sizes), dtype=np.int64) // 2,
        truth_yes=np.concatenate([part.truth_yes for part in parts]),
        answer=np.concatenate([part.answer for part in parts]),
        failed=np.zeros(sum(sizes), dtype=bool),
        method=np.concatenate([part.method for part in parts]),
        method_names=tuple(methods.numbers),
    )


def _read_table(path: Path, as_lines: bool) -> pa.Table | None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    source: Path | pa.BufferReader = path
    if as_lines:
        from mmgauge.benchmarks.mme.release import read_lines

        source = pa.BufferReader("".join(f"{line}\n" for line in read_lines(path)).encode("utf-8"))
    try:
        return pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=list(_FIELDS)),
            # No quoting: the official tool splits each line on tabs and nothing else.
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(_FIELDS, pa.string()),
                                                 include_columns=["image", "truth", "answer"]),
        )
    except (pa.ArrowInvalid, OSError):
        return None


def _read_file(path: Path, parser: str, methods: _Methods, as_lines: bool = False) -> _Part | None:
    table = _read_table(path, as_lines)
    if table is None or table.num_rows == 0 or table.num_rows % 2:
        return None
    image = table.column("image")
    # Each line against the next (zero-copy slices): lines 2i and 2i+1 must name the same image.
    same_as_next = to_numpy(compute("equal", image.slice(0, table.num_rows - 1), image.slice(1)))
    if not same_as_next[0::2].all():
        return None
    truth_yes = _truths(table.column("truth"))
    if truth_yes is None or (truth_yes[0::2] == truth_yes[1::2]).any():
        return None
    if parser == "official":
        answer, kind = official_column(table.column("answer"))
        return _Part(truth_yes, answer, np.array([methods.code(name) for name in OFFICIAL])[kind])
    return _Part(truth_yes, *_per_distinct_answer(table.column("answer"), parser, methods))


def _truths(column: pa.ChunkedArray) -> npt.NDArray[np.bool_] | None:
    """Whether each truth is Yes (as `release.parse_truth` reads it); None if one is neither Yes nor No."""
    values, codes = distinct(column)
    read = [str(value).strip().lower() for value in values]
    if any(value not in ("yes", "no") for value in read):
        return None
    is_yes = np.array([value == "yes" for value in read], dtype=bool)
    return np.asarray(is_yes[codes], dtype=bool)


def _per_distinct_answer(
    column: pa.ChunkedArray, parser: str, methods: _Methods
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    from mmgauge.extraction.yesno import parse_yes_no

    values, indices = distinct(column)
    found = [parse_yes_no(text, parser) for text in values]
    answers = np.array([_ANSWER_CODES[f.answer] for f in found], dtype=np.int8)
    codes = np.array([methods.code(f.method) for f in found], dtype=np.int64)
    return answers[indices], codes[indices]
