"""CircularEval copies: find and verify the copies a file already holds, or make them from a plain table.

Copy k of question i has index i + k * 1,000,000; its options are the question's options rotated k places
(copy k's option A is the original option k: copy 1 of A B C D is B C D A) and the answer letter moves with
its text. A question with n options has n copies, one per rotation. Files written by other tools may rotate
the other way (copy 1 = D A B C); that is accepted when all copies of a question agree on the direction.
Everything is column-wise numpy, since prediction files have 100,000 rows and scoring must be fast.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.tsv import COPY_STRIDE, IntArray, ObjArray, Table
from mmgauge.benchmarks.mmbench.vlmevalkit import drop_missing_like

BoolArray = npt.NDArray[np.bool_]


def has_copies(table: Table) -> bool:
    return bool((table.copy > 0).any())


def base_positions(table: Table) -> IntArray:
    """For every row, the row of its group's first copy (k = 0); a `UserError` if missing or doubled."""
    rows = np.flatnonzero(table.copy == 0)
    order = np.argsort(table.group[rows], kind="stable")
    rows = rows[order]
    keys = table.group[rows]
    doubled = np.flatnonzero(keys[1:] == keys[:-1])
    if len(doubled):
        row = int(rows[1:][doubled].min())
        raise table.fail(row, f"question group {table.group[row]} has two first copies", "g_index")
    slot = np.minimum(np.searchsorted(keys, table.group), len(keys) - 1)
    found = (keys[slot] == table.group) if len(keys) else np.zeros(len(table), dtype=bool)
    if not found.all():
        row = _first(~found)
        raise table.fail(row, f"copy {table.copy[row]} of question group {table.group[row]} has no "
                              f"first copy (index {table.group[row]})", "index")
    return np.asarray(rows[slot], dtype=np.int64)


def _letter_positions(table: Table, answers: ObjArray) -> npt.NDArray[np.float64]:
    mapping = {letter: float(i) for i, letter in enumerate(table.letters)}
    return np.array([mapping.get(answer, np.nan) for answer in answers.tolist()], dtype=np.float64)


def _rotation_ok(table: Table, base: IntArray, sign: int) -> tuple[BoolArray, npt.NDArray[np.int64]]:
    """Whether each row is its base rotated by sign * k, and the first differing option column (-1: none)."""
    n = table.n_options
    columns = np.arange(len(table.letters))[None, :]
    source = (columns + sign * table.copy[:, None]) % n[:, None]
    expected = table.options[base[:, None], source]
    used = columns < n[:, None]
    differ = (expected != table.options) & used
    first_column = np.where(differ.any(axis=1), differ.argmax(axis=1), -1)
    answer = _letter_positions(table, table.answer)
    base_answer = answer[base]
    moved = (base_answer - sign * table.copy) % n
    answer_ok = np.where(np.isnan(base_answer), np.isnan(answer), moved == answer)
    return (first_column < 0) & answer_ok, first_column


def check_copies(table: Table, *, complete: bool = True) -> None:
    """Check that every row is a rotation of its group's first copy; with `complete`, that all n are there."""
    base = base_positions(table)
    n = table.n_options
    bad = n != n[base]
    if bad.any():
        row = _first(bad)
        message = f"copy has {n[row]} options, its first copy (index {table.index[base[row]]}) {n[base[row]]}"
        raise table.fail(row, message, table.letters[min(n[row], n[base[row]])])
    bad = table.copy >= n
    if bad.any():
        row = _first(bad)
        raise table.fail(row, f"copy {table.copy[row]} of a question with {n[row]} options "
                              f"(copies are 0 to {n[row] - 1})", "index")
    key = table.group * 16 + table.copy  # copy < n <= 9 here
    order = np.argsort(key, kind="stable")
    bad = key[order][1:] == key[order][:-1]
    if bad.any():
        row = int(order[1:][bad].min())
        message = f"question group {table.group[row]} has copy {table.copy[row]} twice"
        raise table.fail(row, message, "g_index")
    for column in ("question", "hint"):
        text = table.text(column)
        bad = text != text[base]
        if bad.any():
            row = _first(bad)
            message = f"{column} differs from its first copy (index {table.index[base[row]]})"
            raise table.fail(row, message, column)
    _, codes = np.unique(table.group, return_inverse=True)
    if complete:
        counts = np.bincount(codes)
        bad = counts[codes] != n
        if bad.any():
            row = int(base[_first(bad)])
            message = (f"question group {table.group[row]} has {counts[codes[row]]} copies, but a question "
                       f"with {n[row]} options needs {n[row]} (one per rotation)")
            raise table.fail(row, message, "index")
    left_ok, left_column = _rotation_ok(table, base, +1)
    right_ok, _ = _rotation_ok(table, base, -1)
    groups = int(codes.max()) + 1
    left_all = np.bincount(codes, weights=~left_ok, minlength=groups) == 0
    right_all = np.bincount(codes, weights=~right_ok, minlength=groups) == 0
    bad = ~(left_all[codes] | right_all[codes]) & ~left_ok
    if bad.any():
        row = _first(bad)
        column = table.letters[left_column[row]] if left_column[row] >= 0 else "answer"
        message = (f"copy {table.copy[row]} is not its first copy (index {table.index[base[row]]}) "
                   f"rotated {table.copy[row]} places")
        raise table.fail(row, message, column)


def make_copies(table: Table) -> Table:
    """All n rotations of every question of a plain table (copy 0 is the question as given).

    The texts rotate through the letters the question offers: a question with an option left out (see
    `drop_missing_like`: A, B and D offered) keeps those letters in every copy, as copy 0 is the row as
    VLMEvalKit sends it. A question offering no option at all keeps its one row.
    """
    given = table.options != ""
    n = table.n_options
    count = np.maximum(n, 1)
    source_row = np.repeat(np.arange(len(table)), count)
    starts = np.repeat(np.cumsum(count) - count, count)
    copy = np.arange(len(source_row), dtype=np.int64) - starts
    n_rows = n[source_row]
    modulus = np.maximum(n_rows, 1)[:, None]
    # slots[r, j]: the column of the j-th offered option; the first n columns when none is left out
    slots = np.argsort(~given, axis=1, kind="stable")[source_row]
    ranks = np.arange(len(table.letters))[None, :]
    used = ranks < n_rows[:, None]
    from_column = np.take_along_axis(slots, (ranks + copy[:, None]) % modulus, axis=1)
    moved = table.options[source_row[:, None], from_column]
    options = np.full(moved.shape, "", dtype=object)
    options[np.broadcast_to(np.arange(len(source_row))[:, None], used.shape)[used], slots[used]] = moved[used]
    old_answer = _letter_positions(table, table.answer)
    old_column = np.nan_to_num(old_answer, nan=0).astype(np.int64)
    offered = ~np.isnan(old_answer) & given[np.arange(len(table)), old_column]
    old_rank = (np.cumsum(given, axis=1) - 1)[np.arange(len(table)), old_column][source_row]
    new_rank = (old_rank - copy) % modulus[:, 0]
    letters = np.array(table.letters, dtype=object)
    rotated = letters[np.take_along_axis(slots, new_rank[:, None], axis=1)[:, 0]]
    # An answer that names an option left out stays as it is: no copy offers it, so none can be right.
    answer = np.where(offered[source_row], rotated, table.answer[source_row]).astype(object)
    index = table.index[source_row] + copy * COPY_STRIDE

    cells = {name: values[source_row] for name, values in table.columns.items()}
    cells["index"] = index.astype(str).astype(object)
    for i, letter in enumerate(table.letters):
        cells[letter] = options[:, i]
    if "answer" in cells:
        cells["answer"] = answer
    if "g_index" in cells:
        cells["g_index"] = table.group[source_row].astype(str).astype(object)
    image_data = None if table.image_data is None else table.image_data[source_row]
    return Table(source=table.source, columns=cells, letters=table.letters, index=index, options=options,
                 n_options=n_rows, answer=answer, group=table.group[source_row], copy=copy,
                 line=table.line[source_row], image_data=image_data)


def circular_table(table: Table, *, complete: bool = True, drop_missing: bool = False) -> Table:
    """The table with all circular copies: verified when the file holds them, made when it does not.

    `complete=False` accepts a group holding fewer copies than options (the legacy MMBench-dev 20230712 file
    has 53 four-option questions with 3), each copy still a rotation of its first. `drop_missing` leaves out
    options pandas reads as missing (`drop_missing_like`) after the copies a file holds are verified on the
    text they were made from, and before copies are made: one such option of 4 gives 3 copies.
    """
    # A plain file: still catches doubled groups (two rows with one g_index).
    check_copies(table, complete=complete and has_copies(table))
    if drop_missing:
        table = drop_missing_like(table)
    return table if has_copies(table) else make_copies(table)


def _first(mask: BoolArray) -> int:
    return int(np.flatnonzero(mask)[0])
