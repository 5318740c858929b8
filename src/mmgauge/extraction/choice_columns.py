"""The official MMBench matcher (`choice.match_letter`, rules 1-4) over whole columns, for prediction files of
a million rows: the same rules, the same letters and methods (a test holds it to `match_letter` row by row).

- Rules 1-3 depend on the answer's text and the row's offered letters: what the text alone decides is found
  once per distinct answer (`choice_answers.answer_facts`), and each row is decided from those facts and its
  offered letters as bit masks, with a few integer operations over the whole column.
- Rule 4 (an option's text inside the answer) compares each row with its own options. Where the answer and
  the row's offered options are ASCII without NUL bytes, lower case is ASCII's and containment is a byte
  search, done row by row in numpy (`np.char.find`) on fixed-width byte arrays, in batches of bounded size.
  Other rows (non-ASCII text, whose lower case is Unicode's) go through `match_letter` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import (
    byte_lengths,
    compute,
    contains,
    encode,
    fixed_width,
    lengths,
    take,
    to_numpy,
)
from mmgauge.extraction.choice_answers import Z_BIT, answer_facts
from mmgauge.extraction.choice_rules import (
    METHODS,
    NO_OPTION,
    RULE_LETTER,
    RULE_REGEX,
    RULE_TEXT,
    match_letter,
)
from mmgauge.extraction.methods import FAILURE, UNRESOLVED

if TYPE_CHECKING:
    import pyarrow as pa

    from mmgauge.datasources.arrow_numpy import Column

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Method codes: indices into `choice.METHODS`.
CODE: Final = {name: METHODS.index(name) for name in METHODS}
#: Letter code of "none of the options" (Z); -1 is no letter at all.
NO_OPTION_CODE: Final = 99
#: Bytes of fixed-width text held at once by rule 4 (per array: the answers, and each option column).
_BATCH_BYTES: Final = 1 << 24
#: Set bits of each 10-bit mask, and the position of its lowest set bit.
_BIT_COUNT: Final = np.array([bin(mask).count("1") for mask in range(1 << 10)], dtype=np.int64)
_LOWEST_BIT: Final = np.array([(mask & -mask).bit_length() - 1 for mask in range(1 << 10)], dtype=np.int64)


@dataclass(frozen=True)
class OptionColumns:
    """The options of every row: `offered[r, j]` says whether `letters[j]` is an option of row r, and
    `texts[j]` holds its text ("" where it is not)."""

    letters: tuple[str, ...]
    offered: npt.NDArray[np.bool_]
    texts: list[Column]


def match_columns(predictions: Column, options: OptionColumns) -> tuple[IntArray, IntArray]:
    """Rules 1-4 over every answer: (letter code, method code) per row, as `match_letter` gives them."""
    texts, codes = encode(predictions)
    return match_codes(texts, codes, options)


def match_codes(texts: pa.Array, codes: IntArray, options: OptionColumns) -> tuple[IntArray, IntArray]:
    """`match_columns` of the answers `texts[codes]` (each distinct text once in `texts`)."""
    facts = answer_facts(texts, options.letters)
    rows = len(codes)
    offered = options.offered.astype(np.uint16) @ (np.uint16(1) << np.arange(len(options.letters),
                                                                             dtype=np.uint16))
    letter = np.full(rows, -1, dtype=np.int64)
    method = np.full(rows, CODE[UNRESOLVED], dtype=np.int64)
    failed = facts.failed[codes]
    method[failed] = CODE[FAILURE]
    present = facts.present[codes]
    found = present & offered
    count = _BIT_COUNT[found]
    single = (count == 1) & ((facts.late[codes] & found) != 0) & ~failed
    letter[single] = _LOWEST_BIT[found[single]]
    lone_z = (count == 0) & ((present & Z_BIT) != 0) & ~failed
    letter[lone_z] = NO_OPTION_CODE
    method[single | lone_z] = CODE[RULE_LETTER]
    undecided = ~(failed | single | lone_z)
    regex = facts.regex[codes]
    named = undecided & (regex >= 0) & (((offered >> np.maximum(regex, 0).astype(np.uint16)) & 1) == 1)
    letter[named] = regex[named]
    method[named] = CODE[RULE_REGEX]
    _rule_4(texts, codes, np.flatnonzero(undecided & ~named), options, letter, method)
    return letter, method


def _letter_codes(values: list[str | None], letters: tuple[str, ...]) -> IntArray:
    code = {letter: i for i, letter in enumerate(letters)} | {NO_OPTION: NO_OPTION_CODE}
    return np.array([code.get(value, -1) if value is not None else -1 for value in values], dtype=np.int64)


def _simple(column: Column) -> BoolArray:
    """Cells in ASCII without NUL bytes: lower case is ASCII's, and a fixed-width numpy bytes value keeps the
    whole cell (numpy drops trailing NUL bytes)."""
    return to_numpy(compute("string_is_ascii", column)) & ~contains(column, "\x00")


def _rule_4(texts: pa.Array, codes: IntArray, rows: IntArray, options: OptionColumns, letter: IntArray,
            method: IntArray) -> None:
    """An answer at most twice as long as its options' texts together naming exactly one of them."""
    needles = [take(column, rows) for column in options.texts]
    offered = options.offered[rows]
    total = np.zeros(len(rows), dtype=np.int64)
    for j, needle in enumerate(needles):
        total += np.where(offered[:, j], lengths(needle), 0)
    near = np.flatnonzero(lengths(texts)[codes[rows]] <= 2 * total)
    rows, offered = rows[near], offered[near]
    needles = [take(needle, near) for needle in needles]
    simple = _simple(texts)[codes[rows]]
    for j, needle in enumerate(needles):
        simple &= ~offered[:, j] | _simple(needle)
    by_bytes = np.flatnonzero(simple)
    _contained(texts, codes[rows[by_bytes]], [take(needle, by_bytes) for needle in needles],
               offered[by_bytes], rows[by_bytes], letter, method)
    by_python = np.flatnonzero(~simple)
    _by_match_letter(take(texts, codes[rows[by_python]]), [take(needle, by_python) for needle in needles],
                     offered[by_python], options.letters, rows[by_python], letter, method)


def _contained(texts: pa.Array, text_codes: IntArray, needles: list[Column], offered: BoolArray,
               rows: IntArray, letter: IntArray, method: IntArray) -> None:
    """Rule 4's containment test for ASCII rows: `rows[i]` reads text `text_codes[i]` with options
    `needles[j][i]` where `offered[i, j]`."""
    from pyarrow._compute import SliceOptions

    lowered = compute("ascii_lower", texts)
    text_length = byte_lengths(texts)[text_codes]
    needle_lengths = np.column_stack([byte_lengths(needle) for needle in needles])
    # Answers of like length share a width: sorted by the power of two above their length, then cut so
    # that no array holds more than _BATCH_BYTES.
    size_class = np.ceil(np.log2(np.maximum(text_length, 1))).astype(np.int64)
    order = np.argsort(size_class, kind="stable")
    bounds = np.flatnonzero(np.diff(size_class[order])) + 1
    named = np.zeros(len(rows), dtype=np.int64)
    named_letter = np.zeros(len(rows), dtype=np.int64)
    for same in np.split(order, bounds):
        width = max(1, int(text_length[same].max(initial=1)))
        step = max(1, _BATCH_BYTES // width)
        for start in range(0, len(same), step):
            batch = same[start:start + step]
            answers = fixed_width(take(lowered, text_codes[batch]), width)
            for j, needle in enumerate(needles):
                asked = offered[batch, j] & (needle_lengths[batch, j] <= text_length[batch])
                if not asked.any():
                    continue
                options = compute("ascii_lower", take(needle, batch))
                longest = int(needle_lengths[batch, j].max(initial=1))
                if longest > width:  # an option longer than the answer is not in it: cut, never asked
                    options = compute("utf8_slice_codeunits", options, options=SliceOptions(0, width))
                found = np.char.find(answers, fixed_width(options, min(width, longest)))
                hit = asked & (found >= 0)
                named[batch] += hit
                named_letter[batch[hit]] = j
    one = named == 1
    letter[rows[one]] = named_letter[one]
    method[rows[one]] = CODE[RULE_TEXT]


def _by_match_letter(texts: Column, needles: list[Column], offered: BoolArray, letters: tuple[str, ...],
                     rows: IntArray, letter: IntArray, method: IntArray) -> None:
    """Rows `match_letter` reads itself (rule 4 of answers or options that are not plain ASCII)."""
    columns = [needle.to_pylist() for needle in needles]
    shown_rows = offered.tolist()
    found: list[str | None] = []
    for i, text in enumerate(texts.to_pylist()):
        shown = [j for j, given in enumerate(shown_rows[i]) if given]
        row_letter, row_method = match_letter(text, tuple(letters[j] for j in shown),
                                              tuple(columns[j][i] for j in shown))
        found.append(row_letter)
        method[rows[i]] = CODE[row_method]
    letter[rows] = _letter_codes(found, letters)
