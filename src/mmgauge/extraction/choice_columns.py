"""The official MMBench matcher (rules 1-4, described in `choice.py`): the one implementation, on columns.
A prediction file of a million rows is one call; a batch of records, or a judge's reply, a short column
(`match_rows`, through `choice.match_choices`). Tests hold it to a plain row-by-row copy of the rules
(`tests/oracles/choice_rows.py`).

- Rules 1-3 depend on the answer's text and the row's offered letters: what the text alone decides is found
  once per distinct answer (`choice_answers`: a byte scan of large columns, Python for the rest and for a few
  rows), and each row is decided from those facts and its offered letters as bit masks, with a few integer
  operations over the whole column (`_decide`).
- Rule 4 (an option's text inside the answer) compares each row with its own options. Where the answer and
  the row's offered options hold no NUL byte and only characters whose lower case pyarrow's `utf8_lower`
  gives exactly as Python's `str.lower` does, in as many bytes (ASCII, CJK, accented Latin, ...: checked for
  each character the column holds, `_Cells`), lowering is pyarrow's and containment is a byte search (UTF-8
  finds a character only where it starts), done row by row in numpy (`np.char.find`) on fixed-width byte
  arrays, in batches of bounded size. Other rows (where Python and pyarrow could disagree, such as "İ", or
  "Σ", whose lower case depends on its neighbours), and the rows of `match_rows`, are compared in Python
  (`_rule_4_python`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import (
    compute,
    encode,
    fixed_width,
    lengths,
    string_buffers,
    strings,
    take,
)
from mmgauge.extraction.choice_answers import Z_BIT, AnswerFacts, answer_facts, python_facts
from mmgauge.extraction.choice_rules import METHODS, RULE_LETTER, RULE_REGEX, RULE_TEXT
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
_BIT_COUNT: Final = np.array([bin(mask).count("1") for mask in range(1 << 10)], dtype=np.uint8)
_LOWEST_BIT: Final = np.array([(mask & -mask).bit_length() - 1 for mask in range(1 << 10)], dtype=np.int64)
#: Python's one lower case that depends on the text around the character (final sigma).
_SIGMA: Final = 0x3A3


@dataclass(frozen=True)
class OptionColumns:
    """The options of every row: `offered[r, j]` says whether `letters[j]` is an option of row r, and
    `texts[j]` holds its text ("" where it is not)."""

    letters: tuple[str, ...]
    offered: npt.NDArray[np.bool_]
    texts: list[Column]


def match_columns(predictions: Column, options: OptionColumns) -> tuple[IntArray, IntArray]:
    """Rules 1-4 over every answer: (letter code, method code) per row."""
    texts, codes = encode(predictions)
    return match_codes(texts, codes, options)


def match_codes(texts: pa.Array, codes: IntArray, options: OptionColumns, facts: AnswerFacts | None = None,
                ) -> tuple[IntArray, IntArray]:
    """`match_columns` of the answers `texts[codes]` (each distinct text once in `texts`); `facts`:
    `answer_facts(texts, options.letters)`, where the caller has read them already (they need no options)."""
    read = answer_facts(texts, options.letters) if facts is None else facts
    letter, method = _decide(read, codes, options.offered)
    undecided = method == CODE[UNRESOLVED]
    _rule_4(texts, codes, np.flatnonzero(undecided), options, letter, method)
    return letter, method


def match_rows(texts: Sequence[str], letters: tuple[str, ...], offered: BoolArray,
               option_rows: Sequence[Sequence[str]]) -> tuple[IntArray, IntArray]:
    """`match_columns` of a few rows given as Python strings (no pyarrow): row r offers `letters[j]` where
    `offered[r, j]`, with text `option_rows[r][j]`."""
    first_seen: dict[str, int] = {}
    codes = np.array([first_seen.setdefault(text, len(first_seen)) for text in texts], dtype=np.int64)
    letter, method = _decide(python_facts(list(first_seen), letters), codes, offered)
    rows = np.flatnonzero(method == CODE[UNRESOLVED])
    listed = rows.tolist()
    _rule_4_python([texts[r] for r in listed], [option_rows[r] for r in listed], offered[rows], rows, letter,
                   method)
    return letter, method


def _decide(facts: AnswerFacts, codes: IntArray, offered: BoolArray) -> tuple[IntArray, IntArray]:
    """Rules 1-3 of every row from its answer's facts (`facts` row `codes[r]`) and its offered letters:
    (letter code, method code), the method `UNRESOLVED` where rule 4 is left to decide."""
    bits = _bits(offered)
    if not len(bits):
        return _decide_bits(facts, codes, bits)
    # Most rows offer the same letters (all of them): for those the answer alone decides, so each distinct
    # answer is decided once and spread over its rows; the other rows are decided one by one.
    usual = np.uint16(np.bincount(bits).argmax())
    count = len(facts.failed)
    letter_of, method_of = _decide_bits(facts, np.arange(count), np.full(count, usual, dtype=np.uint16))
    letter, method = letter_of[codes], method_of[codes]
    other = np.flatnonzero(bits != usual)
    letter[other], method[other] = _decide_bits(facts, codes[other], bits[other])
    return letter, method


def _decide_bits(facts: AnswerFacts, codes: IntArray, bits: npt.NDArray[np.uint16],
                 ) -> tuple[IntArray, IntArray]:
    """`_decide` of rows reading answer `codes[i]` and offering the letters of mask `bits[i]`."""
    failed = facts.failed[codes]
    present = facts.present[codes]
    found = present & bits
    count = _BIT_COUNT[found]
    single = (count == 1) & ((facts.late[codes] & found) != 0) & ~failed
    lone_z = (count == 0) & ((present & Z_BIT) != 0) & ~failed
    regex = facts.regex[codes]
    named = ~(failed | single | lone_z) & (regex >= 0) & (
        ((bits >> np.maximum(regex, 0).astype(np.uint16)) & 1) == 1)
    letter = np.where(single, _LOWEST_BIT[found],
                      np.where(lone_z, NO_OPTION_CODE, np.where(named, regex, -1)))
    method = np.where(failed, CODE[FAILURE], np.where(
        single | lone_z, CODE[RULE_LETTER], np.where(named, CODE[RULE_REGEX], CODE[UNRESOLVED])))
    return letter, method


def _bits(offered: BoolArray) -> npt.NDArray[np.uint16]:
    """Each row's offered letters as a mask: bit j for letter j."""
    bits = np.zeros(len(offered), dtype=np.uint16)
    for j in range(offered.shape[1]):
        bits |= offered[:, j].astype(np.uint16) << np.uint16(j)
    return bits


@dataclass(frozen=True)
class _Cells:
    """What rule 4 needs of a text column: characters (code points) and bytes per cell, and which cells are
    `simple`: no NUL byte (a fixed-width numpy bytes value keeps the whole cell; numpy drops trailing NUL
    bytes), and every character one whose lower case pyarrow gives as Python does, in as many bytes."""

    length: IntArray
    size: IntArray
    simple: BoolArray

    @classmethod
    def of(cls, column: Column) -> _Cells:
        offsets, data = string_buffers(column)
        size = np.diff(offsets)
        if not data.size or (data.min() > 0 and data.max() < 0x80):  # the common case, two passes
            return cls(size, size, np.ones(len(size), dtype=bool))
        if data.max() < 0x80:
            return cls(size, size, rows_without(offsets, np.flatnonzero(data == 0)))
        # Each distinct character beyond ASCII is checked once (a table over all code points, no sort).
        starts = np.flatnonzero(data >= 0xC0)  # the first byte of each character beyond ASCII
        points = _code_points(data, starts)
        seen = np.zeros(0x110000, dtype=bool)
        seen[points] = True
        found = np.flatnonzero(seen)
        doubtful = np.zeros(0x110000, dtype=bool)
        doubtful[found[~_same_lower_case(found.tolist())]] = True
        odd = np.concatenate([np.flatnonzero(data == 0), starts[doubtful[points]]])
        return cls(lengths(column).astype(np.int64), size, rows_without(offsets, odd))


def rows_without(offsets: IntArray, positions: IntArray) -> BoolArray:
    """Whether each row (bytes offsets[r]:offsets[r + 1]) holds none of the byte `positions`."""
    rows_ok = np.ones(len(offsets) - 1, dtype=bool)
    rows_ok[np.searchsorted(offsets, positions, side="right") - 1] = False
    return rows_ok


def _code_points(data: npt.NDArray[np.uint8], starts: IntArray) -> npt.NDArray[np.int32]:
    """The code points of the UTF-8 characters starting at `starts` (valid UTF-8: arrow checked it, so each
    character's bytes are all there); the bytes of longer characters are read only for those."""
    lead = data[starts].astype(np.int32)
    second = (data[starts + 1] & 0x3F).astype(np.int32)
    points = ((lead & 0x1F) << 6) | second
    for size in (3, 4):
        longer = np.flatnonzero(lead >= (0xE0 if size == 3 else 0xF0))
        if not len(longer):
            break
        # The bits read so far (at 3 bytes, less the lead's bit that marks 2-byte leads apart) then the
        # next continuation byte's 6 bits.
        held = points[longer] & 0x3FF if size == 3 else points[longer]
        points[longer] = (held << 6) | (data[starts[longer] + size - 1] & 0x3F)
    return points


def _same_lower_case(points: list[int]) -> BoolArray:
    """Per code point: whether pyarrow's `utf8_lower` (one character at a time) gives Python's lower case of
    the character, in as many bytes (byte positions stay those of the text as written), and Python's lower
    case does not depend on the neighbours."""
    chars = [chr(point) for point in points]
    pyarrow_lower = compute("utf8_lower", strings(chars)).to_pylist()
    return np.array([point != _SIGMA and lower == char.lower() and len(lower.encode()) == len(char.encode())
                     for point, char, lower in zip(points, chars, pyarrow_lower, strict=True)], dtype=bool)


def _rule_4(texts: pa.Array, codes: IntArray, rows: IntArray, options: OptionColumns, letter: IntArray,
            method: IntArray) -> None:
    """An answer at most twice as long as its options' texts together naming exactly one of them."""
    answers = _Cells.of(texts)
    needles = [take(column, rows) for column in options.texts]
    cells = [_Cells.of(needle) for needle in needles]
    offered = options.offered[rows]
    total = np.zeros(len(rows), dtype=np.int64)
    simple = answers.simple[codes[rows]]
    for j, cell in enumerate(cells):
        total += np.where(offered[:, j], cell.length, 0)
        simple &= ~offered[:, j] | cell.simple
    near = answers.length[codes[rows]] <= 2 * total
    by_bytes = np.flatnonzero(near & simple)
    named, named_letter = _contained(texts, answers.size, codes[rows], needles, cells, offered, by_bytes)
    one = by_bytes[named == 1]
    letter[rows[one]] = named_letter[named == 1]
    method[rows[one]] = CODE[RULE_TEXT]
    by_python = np.flatnonzero(near & ~simple)
    columns = [take(needle, by_python).to_pylist() for needle in needles]
    _rule_4_python(take(texts, codes[rows[by_python]]).to_pylist(), list(zip(*columns, strict=True)),
                   offered[by_python], rows[by_python], letter, method)


def _contained(texts: pa.Array, text_size: IntArray, text_codes: IntArray, needles: list[Column],
               cells: list[_Cells], offered: BoolArray, asked_rows: IntArray) -> tuple[IntArray, IntArray]:
    """Rule 4's containment test for the simple rows `asked_rows` (row i reads text `text_codes[i]`, options
    `needles[j][i]` where `offered[i, j]`): how many options each names, and the last one it names."""
    lowered = compute("utf8_lower", texts)
    text_length = text_size[text_codes[asked_rows]]
    # Answers of like length share a width: sorted by the power of two above their length, then cut so
    # that no array holds more than _BATCH_BYTES.
    size_class = np.ceil(np.log2(np.maximum(text_length, 1))).astype(np.int64)
    order = np.argsort(size_class, kind="stable")
    bounds = np.flatnonzero(np.diff(size_class[order])) + 1
    named = np.zeros(len(asked_rows), dtype=np.int64)
    named_letter = np.zeros(len(asked_rows), dtype=np.int64)
    for same in np.split(order, bounds):
        width = max(1, int(text_length[same].max(initial=1)))
        step = max(1, _BATCH_BYTES // width)
        for start in range(0, len(same), step):
            batch = same[start:start + step]
            rows = asked_rows[batch]
            # Each distinct answer made fixed-width once, then spread over its rows.
            distinct_codes, where = np.unique(text_codes[rows], return_inverse=True)
            answers = fixed_width(take(lowered, distinct_codes), width)[where.reshape(-1)]
            for j, (needle, cell) in enumerate(zip(needles, cells, strict=True)):
                # Only options no longer than the answer can be in it; the others search for "" (masked).
                asked = offered[rows, j] & (cell.size[rows] <= text_length[batch])
                if not asked.any():
                    continue
                part = fixed_width(compute("utf8_lower", take(needle, rows[asked])),
                                   max(1, int(cell.size[rows[asked]].max())))
                options = np.zeros(len(rows), dtype=part.dtype)
                options[asked] = part
                hit = asked & (np.char.find(answers, options) >= 0)
                named[batch] += hit
                named_letter[batch[hit]] = j
    return named, named_letter


def _rule_4_python(texts: list[str], option_rows: Sequence[Sequence[str]], offered: BoolArray, rows: IntArray,
                   letter: IntArray, method: IntArray) -> None:
    """Rule 4 with Python's lower case: row `rows[i]` reads `texts[i]`, options `option_rows[i][j]` where
    `offered[i, j]`."""
    for i, (text, options, shown) in enumerate(zip(texts, option_rows, offered.tolist(), strict=True)):
        given = [j for j, on in enumerate(shown) if on]
        if len(text) > 2 * sum(len(options[j]) for j in given):
            continue
        lowered = text.lower()
        named = [j for j in given if options[j].lower() in lowered]
        if len(named) == 1:
            letter[rows[i]] = named[0]
            method[rows[i]] = CODE[RULE_TEXT]
