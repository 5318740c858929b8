"""The rows' numbers of an MMBench predictions file read in columns (`prediction_columns`): the index,
g_index and answer columns checked as `tsv.parse_table` and `circular.base_positions` check them, None at
the first problem (the caller then reads the file with `tsv.load_table`, which names it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.scoring_columns import group_codes, has_repeats, is_dense
from mmgauge.benchmarks.mmbench.tsv import COPY_STRIDE, OPTION_LETTERS
from mmgauge.datasources.arrow_numpy import (
    byte_lengths,
    compute,
    distinct,
    from_numpy,
    string_buffers,
    take,
    to_numpy,
)

if TYPE_CHECKING:
    from mmgauge.datasources.arrow_numpy import Column

IntArray = npt.NDArray[np.int64]
#: Up to this many copies, repeated indexes are counted per question and copy.
_COUNTED_COPIES: Final = 16


@dataclass(frozen=True)
class Keys:
    """What a file's index, g_index and answer columns give: each row's answer (option index, -1 for none),
    question group and copy, and the groups numbered (`group_codes`)."""

    answer: IntArray
    group: IntArray
    copy: IntArray
    group_code: IntArray
    group_size: IntArray


def letters_of(columns: dict[str, Column]) -> tuple[str, ...]:
    return tuple(OPTION_LETTERS[: next(
        (i for i, letter in enumerate(OPTION_LETTERS) if letter not in columns), len(OPTION_LETTERS))])


def keys_of(columns: dict[str, Column]) -> Keys | None:
    index = _integers(columns["index"])
    if index is None or _repeats(index):
        return None
    answer = _answers(columns.get("answer"), letters_of(columns), len(index))
    if answer is None:
        return None
    group = index % COPY_STRIDE
    cells = columns.get("g_index")
    if cells is not None:
        named = byte_lengths(cells) > 0
        if named.any():
            numbers = _integers(compute("filter", cells, from_numpy(named)))
            if numbers is None:
                return None
            group = group.copy()
            group[named] = numbers
    copy = index // COPY_STRIDE
    _, group_code, group_size = group_codes(group)
    if not _first_copies_ok(group_code, copy, len(group_size)):
        return None
    return Keys(answer, group, copy, group_code, group_size)


def _repeats(index: IntArray) -> bool:
    """Whether an index occurs twice: a question number (index mod 1,000,000) twice with the same copy
    number: `has_repeats` of the indexes where they are few enough to be marked in an array as long as the
    largest, else counted per question and copy where copies are few."""
    if len(index) and index.min() >= 0 and not is_dense(index):
        _, question, _ = group_codes(index % COPY_STRIDE)
        copy = index // COPY_STRIDE
        copies = int(copy.max()) + 1
        if copies <= _COUNTED_COPIES:
            return has_repeats(question * copies + copy)
    return has_repeats(index)


def _integers(column: Column) -> IntArray | None:
    import pyarrow as pa

    from mmgauge.datasources.arrow_numpy import as_integers

    try:
        numbers = to_numpy(as_integers(column))
    except (pa.ArrowInvalid, ValueError):
        return None  # the reference reader also takes 12.0 and names what is not a whole number
    return np.asarray(numbers, dtype=np.int64)


def _answers(column: Column | None, letters: tuple[str, ...], rows: int) -> IntArray | None:
    """Each answer's option index (-1 for none); None when an answer is not an option letter."""
    if column is None:
        return np.full(rows, -1, dtype=np.int64)
    # The common answer, one option letter, straight from the bytes; any other through its text.
    # (Option indexes in a byte a row until the end: the arrays of a million rows are most of the cost.)
    offsets, data = string_buffers(column)
    by_byte = np.full(256, -1, dtype=np.int8)
    by_byte[[ord(letter) for letter in letters]] = np.arange(len(letters))
    single = np.diff(offsets) == 1
    found = np.full(rows, -1, dtype=np.int8)
    found[single] = by_byte[data[offsets[:-1][single]]]
    answer = found.astype(np.int64)
    other = np.flatnonzero(found < 0)
    values, codes = distinct(take(column, other))
    position = {letter: i for i, letter in enumerate(letters)} | {"": -1}
    read = [position.get(str(value).strip(), 99) for value in values]
    if 99 in read:
        return None
    answer[other] = np.array(read, dtype=np.int64)[codes] if len(codes) else -1
    return answer


def _first_copies_ok(group_code: IntArray, copy: IntArray, groups: int) -> bool:
    """`circular.base_positions` finds no problem: every group has exactly one first copy."""
    firsts = np.bincount(group_code[copy == 0], minlength=groups)
    return bool((firsts == 1).all())
