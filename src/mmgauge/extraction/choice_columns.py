"""The official MMBench matcher (`choice.match_letter`, rules 1-4) over whole columns, for prediction files of
a million rows: the same rules, the same letters and methods (a test holds it to `match_letter` row by row).

- Rule 1's common case, a bare option letter: the one-character answers, read once per distinct answer.
- The failure marker: a substring test on the column (exact for any text).
- Rule 2 on answers written in plain ASCII (printable characters, tab, CR, LF): there a character is a byte
  and Python's white space is the bytes space, tab, CR and LF, so `text.translate(...).split()` is a scan of
  the bytes with numpy (`_Tokens`): tokens are runs of bytes that are neither separators nor white space.
- Rule 3, "answer is X", with RE2 on the plain answers; `(?:[^A-Za-z]|$)` after the letter accepts exactly
  what Python's `(?![A-Za-z])` does (a `*` after the letter is not a letter either way).
- Rule 4 (an option's text inside the answer) compares each row with its own options, which compute cannot
  do; it runs in Python for the rows that reach it.
- Answers that are not plain ASCII go through `match_letter` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import (
    compute,
    contains,
    distinct,
    lengths,
    one_chunk,
    string_buffers,
    take,
    to_numpy,
)
from mmgauge.extraction.choice_rules import (
    FAILURE_MARKER,
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
_ANSWER_IS: Final = r"(?i:answer is)\s+\**(?P<letter>[A-D])\**(?:[^A-Za-z]|$)"


def _byte_table(chars: str) -> BoolArray:
    table = np.zeros(256, dtype=bool)
    table[[ord(ch) for ch in chars]] = True
    return table


#: Bytes that end a token: rule 2's separators and Python's white space within plain ASCII.
_SPLIT: Final = _byte_table(".()[],:;!*#{}" + " \t\n\r")
#: Bytes a plain ASCII answer may hold.
_PLAIN: Final = _byte_table("".join(map(chr, range(0x20, 0x7F))) + "\t\n\r")


@dataclass(frozen=True)
class OptionColumns:
    """The options of every row: `offered[r, j]` says whether `letters[j]` is an option of row r, and
    `texts[j]` holds its text ("" where it is not)."""

    letters: tuple[str, ...]
    offered: npt.NDArray[np.bool_]
    texts: list[Column]


@dataclass
class _Matches:
    letter: IntArray  # index into letters, NO_OPTION_CODE, or -1
    method: IntArray  # CODE of the method
    open: BoolArray  # no rule has decided yet

    def decide(self, rows: IntArray, letter: IntArray | int, method: str) -> None:
        self.letter[rows] = letter
        self.method[rows] = CODE[method]
        self.open[rows] = False


def match_columns(predictions: Column, options: OptionColumns) -> tuple[IntArray, IntArray]:
    """Rules 1-4 over every answer: (letter code, method code) per row, as `match_letter` gives them."""
    rows = len(predictions)
    found = _Matches(np.full(rows, -1, dtype=np.int64), np.full(rows, CODE[UNRESOLVED], dtype=np.int64),
                     np.ones(rows, dtype=bool))
    _bare_letters(predictions, options, found)
    todo = np.flatnonzero(found.open)
    answers = one_chunk(take(predictions, todo))
    failed = contains(answers, FAILURE_MARKER)
    found.decide(todo[failed], -1, FAILURE)
    offsets, data = string_buffers(answers)
    plain = ~failed & _rows_with_only(offsets, data, _PLAIN)
    _Tokens(offsets, data, plain).rule_2(todo, options, found)
    _rule_3(answers, todo, options, found, plain)
    left = plain & found.open[todo]
    _rule_4(predictions, todo[left], lengths(answers)[left], options, found)
    _by_match_letter(predictions, options, found, todo[~plain & ~failed])
    return found.letter, found.method


def _letter_codes(values: list[str | None], letters: tuple[str, ...]) -> IntArray:
    code = {letter: i for i, letter in enumerate(letters)} | {NO_OPTION: NO_OPTION_CODE}
    return np.array([code.get(value, -1) if value is not None else -1 for value in values], dtype=np.int64)


def _offered(options: OptionColumns, rows: IntArray, letter: IntArray) -> BoolArray:
    """Whether each row's letter code is one of its options."""
    valid = (letter >= 0) & (letter < len(options.letters))
    result = np.zeros(len(rows), dtype=bool)
    result[valid] = options.offered[rows[valid], letter[valid]]
    return result


def _rows_with_only(offsets: IntArray, data: npt.NDArray[np.uint8], allowed: BoolArray) -> BoolArray:
    """Whether each row's bytes all lie in `allowed`."""
    bad = np.flatnonzero(~allowed[data])
    rows_ok = np.ones(len(offsets) - 1, dtype=bool)
    rows_ok[np.searchsorted(offsets, bad, side="right") - 1] = False
    return rows_ok


def _bare_letters(predictions: Column, options: OptionColumns, found: _Matches) -> None:
    """The first test of `match_letter`: the whole answer is one option letter."""
    single = np.flatnonzero(lengths(predictions) == 1)
    values, codes = distinct(take(predictions, single))
    letter = _letter_codes(values, options.letters)[codes]
    chosen = _offered(options, single, letter)
    found.decide(single[chosen], letter[chosen], RULE_LETTER)


class _Tokens:
    """Rule 2's tokens of plain ASCII answers, found in their bytes: where each one-letter token is, and how
    many tokens each answer has. `offsets` and `data` are the answers' bytes (`string_buffers`)."""

    def __init__(self, offsets: IntArray, data: npt.NDArray[np.uint8], plain: BoolArray) -> None:
        splits = _SPLIT[data]
        # split_before[i]: byte i starts its answer or follows a split; split_after[i + 1]: byte i ends its
        # answer or a split follows it.
        split_before = np.ones(len(data) + 1, dtype=bool)
        split_before[1:] = splits
        split_before[offsets[:-1][offsets[:-1] < len(data)]] = True
        split_after = np.ones(len(data) + 1, dtype=bool)
        split_after[:-1] = splits
        split_after[offsets[1:][offsets[1:] > offsets[:-1]]] = True
        token_start = ~splits & split_before[:-1]
        self.starts = np.flatnonzero(token_start)
        alone = np.flatnonzero(token_start & split_after[1:])  # one-byte tokens
        self.alone = alone
        self.alone_byte = data[alone]
        self.alone_row = np.searchsorted(offsets, alone, side="right") - 1
        self.offsets = offsets
        self.plain = plain

    def count(self) -> IntArray:
        """Tokens per answer."""
        edges = np.searchsorted(self.starts, self.offsets)
        counts: IntArray = np.diff(edges)
        return counts

    def number(self, positions: IntArray, rows: IntArray) -> IntArray:
        """The token number, within its answer, of the tokens starting at byte `positions` of `rows`."""
        numbers: IntArray = np.searchsorted(self.starts, positions) - np.searchsorted(self.starts,
                                                                                        self.offsets[rows])
        return numbers

    def rule_2(self, todo: IntArray, options: OptionColumns, found: _Matches) -> None:
        """Exactly one option letter among the tokens, first seen among the last 4 tokens; else a lone Z."""
        count = self.count()
        answers = len(count)
        letters_found = np.zeros(answers, dtype=np.int64)
        only = np.full(answers, -1, dtype=np.int64)
        first = np.zeros(answers, dtype=np.int64)
        for j, letter in enumerate(options.letters):
            mine = np.flatnonzero(self.alone_byte == ord(letter))
            owner = self.alone_row[mine]
            # In byte order, a letter's first token in an answer is the first of its run of owners.
            head = np.r_[True, owner[1:] != owner[:-1]] if len(owner) else np.zeros(0, dtype=bool)
            mine, owner = mine[head], owner[head]
            keep = options.offered[todo[owner], j] & self.plain[owner]
            mine, owner = mine[keep], owner[keep]
            letters_found[owner] += 1
            only[owner] = j
            first[owner] = self.number(self.alone[mine], owner)
        has_z = np.zeros(answers, dtype=bool)
        has_z[self.alone_row[self.alone_byte == ord(NO_OPTION)]] = True
        one = self.plain & (letters_found == 1) & (first >= count - 4)
        found.decide(todo[one], only[one], RULE_LETTER)
        lone_z = self.plain & (letters_found == 0) & has_z
        found.decide(todo[lone_z], NO_OPTION_CODE, RULE_LETTER)


def _rule_3(answers: pa.Array, todo: IntArray, options: OptionColumns, found: _Matches,
            plain: BoolArray) -> None:
    """"answer is X" (any case), X an option of the row."""
    from pyarrow._compute import ExtractRegexOptions, StructFieldOptions

    rows = np.flatnonzero(plain & found.open[todo])
    found_regex = compute("extract_regex", take(answers, rows), options=ExtractRegexOptions(_ANSWER_IS))
    hits = compute("struct_field", found_regex, options=StructFieldOptions([0]))
    matched = np.flatnonzero(~to_numpy(compute("is_null", hits)))
    values, codes = distinct(take(hits, matched))
    letter = _letter_codes(values, options.letters)[codes]
    where = todo[rows[matched]]
    chosen = _offered(options, where, letter)
    found.decide(where[chosen], letter[chosen], RULE_REGEX)


def _rule_4(predictions: Column, rows: IntArray, length: npt.NDArray[np.int32], options: OptionColumns,
            found: _Matches) -> None:
    """An answer at most twice as long as its options' texts together naming exactly one of them."""
    total = np.zeros(len(rows), dtype=np.int64)
    for j, column in enumerate(options.texts):
        total += np.where(options.offered[rows, j], lengths(take(column, rows)), 0)
    picked = rows[length <= 2 * total]
    texts, columns, offered = _python_rows(predictions, options, picked)
    named_rows: list[int] = []
    named_letters: list[int] = []
    for i, text in enumerate(texts):
        lowered = text.lower()
        named = [j for j, column in enumerate(columns) if offered[i][j] and column[i].lower() in lowered]
        if len(named) == 1:
            named_rows.append(i)
            named_letters.append(named[0])
    found.decide(picked[named_rows], np.array(named_letters, dtype=np.int64), RULE_TEXT)


def _python_rows(
    predictions: Column, options: OptionColumns, rows: IntArray
) -> tuple[list[str], list[list[str]], list[list[bool]]]:
    """The answers, option texts (per letter) and offered flags of some rows, as Python values."""
    columns = [take(column, rows).to_pylist() for column in options.texts]
    return take(predictions, rows).to_pylist(), columns, options.offered[rows].tolist()


def _by_match_letter(predictions: Column, options: OptionColumns, found: _Matches,
                     rows: IntArray) -> None:
    """Answers that are not plain ASCII, read by `match_letter` itself."""
    texts, columns, offered = _python_rows(predictions, options, rows)
    letters: list[str | None] = []
    for i, text in enumerate(texts):
        shown = [j for j in range(len(columns)) if offered[i][j]]
        letter, method = match_letter(text, tuple(options.letters[j] for j in shown),
                                      tuple(columns[j][i] for j in shown))
        letters.append(letter)
        found.method[rows[i]] = CODE[method]
    found.letter[rows] = _letter_codes(letters, options.letters)
    found.open[rows] = False
