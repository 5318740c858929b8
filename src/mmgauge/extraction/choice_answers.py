"""What rules 1-3 of the official MMBench matcher (`choice_columns`) see in an answer, found once
per distinct answer text rather than once per row.

Rules 1-3 depend on the answer's text and on which letters the row offers. For each distinct text this module
finds the part that depends on the text alone (`AnswerFacts`); `choice_columns` then decides every row with a
few integer operations on its offered letters:

- rule 1 (the whole answer is an offered letter) decides exactly what rule 2 decides for it, so it needs no
  fact of its own;
- the failure marker;
- rule 2: which letters are tokens (bit j of `present` for `letters[j]`, `Z_BIT` for "Z"), and for which of
  them the first such token is among the last four (`late`): a row with exactly one offered letter among the
  tokens takes it when that bit is set, a row with none takes "Z" when "Z" is a token;
- rule 3: the letter of the first "answer is X" (the first match only, as `re.search` finds it).

Plain ASCII texts (printable characters, tab, CR, LF) are read with numpy over their bytes (`_Tokens`, where a
character is a byte and Python's white space is the bytes space, tab, CR and LF) and with RE2, whose
`(?:[^A-Za-z]|$)` after the letter accepts exactly what Python's `(?![A-Za-z])` does; any other text, and the
few texts of a record (`python_facts`), are read in Python with the rules' own tokenizer and regex.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import compute, contains, distinct, string_buffers, take, to_numpy
from mmgauge.extraction.choice_rules import ANSWER_IS, FAILURE_MARKER, NO_OPTION, SEPARATORS

if TYPE_CHECKING:
    import pyarrow as pa

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
BitArray = npt.NDArray[np.uint16]

#: Bit of "Z" (none of the options) in `AnswerFacts.present`; bits 0 to 8 are the option letters.
Z_BIT: Final = 1 << 9
MAX_LETTERS: Final = 9
_ANSWER_IS_RE2: Final = r"(?i:answer is)\s+\**(?P<letter>[A-D])\**(?:[^A-Za-z]|$)"


def _byte_table(chars: str) -> BoolArray:
    table = np.zeros(256, dtype=bool)
    table[[ord(ch) for ch in chars]] = True
    return table


#: Bytes that end a token: rule 2's separators and Python's white space within plain ASCII.
_SPLIT: Final = _byte_table(".()[],:;!*#{}" + " \t\n\r")
#: Bytes a plain ASCII answer may hold.
_PLAIN: Final = _byte_table("".join(map(chr, range(0x20, 0x7F))) + "\t\n\r")


@dataclass(frozen=True)
class AnswerFacts:
    """Per distinct answer text: what rules 1-3 decide for any set of offered letters (see the module)."""

    failed: BoolArray
    present: BitArray
    late: BitArray
    #: Position in `letters` of the first "answer is X" match's letter; -1 for no match or another letter.
    regex: IntArray


def answer_facts(texts: pa.Array, letters: tuple[str, ...]) -> AnswerFacts:
    """The facts of each text of `texts` (one contiguous array, no nulls) for option letters `letters`."""
    facts = _empty(contains(texts, FAILURE_MARKER), letters)
    offsets, data = string_buffers(texts)
    plain = rows_with_only(offsets, data, _PLAIN) & ~facts.failed
    _Tokens(offsets, data).read(plain, letters, facts)
    _regex(texts, np.flatnonzero(plain), letters, facts)
    other = np.flatnonzero(~plain & ~facts.failed)
    for row, text in zip(other.tolist(), take(texts, other).to_pylist(), strict=True):
        _python_facts(row, text, letters, facts)
    return facts


def python_facts(texts: Sequence[str], letters: tuple[str, ...]) -> AnswerFacts:
    """`answer_facts` of a few texts given as Python strings, all read in Python (no pyarrow): a record's
    answer, or a judge's reply."""
    facts = _empty(np.array([FAILURE_MARKER in text for text in texts], dtype=bool), letters)
    for row, text in enumerate(texts):
        if not facts.failed[row]:
            _python_facts(row, text, letters, facts)
    return facts


def _empty(failed: BoolArray, letters: tuple[str, ...]) -> AnswerFacts:
    if len(letters) > MAX_LETTERS or NO_OPTION in letters or any(len(letter) != 1 for letter in letters):
        raise ValueError(f"option letters must be at most {MAX_LETTERS} single letters other than Z")
    count = len(failed)
    return AnswerFacts(failed, np.zeros(count, dtype=np.uint16), np.zeros(count, dtype=np.uint16),
                       np.full(count, -1, dtype=np.int64))


def rows_with_only(offsets: IntArray, data: npt.NDArray[np.uint8], allowed: BoolArray) -> BoolArray:
    """Whether each row's bytes all lie in `allowed` (a table of 256 flags)."""
    bad = np.flatnonzero(~allowed[data])
    rows_ok = np.ones(len(offsets) - 1, dtype=bool)
    rows_ok[np.searchsorted(offsets, bad, side="right") - 1] = False
    return rows_ok


def _python_facts(row: int, text: str, letters: tuple[str, ...], facts: AnswerFacts) -> None:
    """The facts of one text, read in Python: its tokens and the first "answer is X"."""
    tokens = text.translate(SEPARATORS).split()
    present = set(tokens)
    present_bits = late_bits = 0
    for j, letter in enumerate(letters):
        if letter in present:
            present_bits |= 1 << j
            if tokens.index(letter) >= len(tokens) - 4:
                late_bits |= 1 << j
    if NO_OPTION in present:
        present_bits |= Z_BIT
    facts.present[row], facts.late[row] = present_bits, late_bits
    hit = ANSWER_IS.search(text)
    if hit is not None and hit.group(1) in letters:
        facts.regex[row] = letters.index(hit.group(1))


class _Tokens:
    """Rule 2's tokens of plain ASCII texts, found in their bytes: where each one-letter token is, and how
    many tokens each text has. `offsets` and `data` are the texts' bytes (`string_buffers`)."""

    def __init__(self, offsets: IntArray, data: npt.NDArray[np.uint8]) -> None:
        splits = _SPLIT[data]
        # split_before[i]: byte i starts its text or follows a split; split_after[i + 1]: byte i ends its
        # text or a split follows it.
        split_before = np.ones(len(data) + 1, dtype=bool)
        split_before[1:] = splits
        split_before[offsets[:-1][offsets[:-1] < len(data)]] = True
        split_after = np.ones(len(data) + 1, dtype=bool)
        split_after[:-1] = splits
        split_after[offsets[1:][offsets[1:] > offsets[:-1]]] = True
        token_start = ~splits & split_before[:-1]
        self.starts = np.flatnonzero(token_start)
        self.alone = np.flatnonzero(token_start & split_after[1:])  # one-byte tokens
        self.alone_byte = data[self.alone]
        self.alone_row = np.searchsorted(offsets, self.alone, side="right") - 1
        self.offsets = offsets

    def read(self, plain: BoolArray, letters: tuple[str, ...], facts: AnswerFacts) -> None:
        """`present` and `late` of the plain texts."""
        count = np.diff(np.searchsorted(self.starts, self.offsets))  # tokens per text
        for j, letter in enumerate(letters):
            mine = np.flatnonzero(self.alone_byte == ord(letter))
            owner = self.alone_row[mine]
            # In byte order, a letter's first token in a text is the first of its run of owners.
            head = np.r_[True, owner[1:] != owner[:-1]] if len(owner) else np.zeros(0, dtype=bool)
            mine, owner = mine[head], owner[head]
            keep = plain[owner]
            mine, owner = mine[keep], owner[keep]
            number = np.searchsorted(self.starts, self.alone[mine]) - np.searchsorted(self.starts,
                                                                                      self.offsets[owner])
            facts.present[owner] |= np.uint16(1 << j)
            facts.late[owner[number >= count[owner] - 4]] |= np.uint16(1 << j)
        with_z = self.alone_row[self.alone_byte == ord(NO_OPTION)]
        facts.present[with_z[plain[with_z]]] |= np.uint16(Z_BIT)


def _regex(texts: pa.Array, rows: IntArray, letters: tuple[str, ...], facts: AnswerFacts) -> None:
    """Rule 3's letter of the plain texts, with RE2."""
    from mmgauge.datasources.arrow_numpy import first_group

    hits = first_group(take(texts, rows), _ANSWER_IS_RE2)
    matched = np.flatnonzero(~to_numpy(compute("is_null", hits)))
    values, codes = distinct(take(hits, matched))
    position = np.array([letters.index(value) if value in letters else -1 for value in values],
                        dtype=np.int64)
    facts.regex[rows[matched]] = position[codes] if len(codes) else -1
