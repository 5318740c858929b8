"""Row bookkeeping for scoring MME in column form: which rows belong to each subtask, and each image's
number within a subtask, without copying or sorting millions of values when the rows come in order."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Rows = slice | npt.NDArray[np.int64]


def numbered(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each value's rank among the distinct values (`np.unique`'s inverse), without sorting when the
    values come in order already (a results folder's questions do)."""
    steps = np.diff(values)
    if (steps >= 0).all():
        numbered: npt.NDArray[np.int64] = np.concatenate([[0], np.cumsum(steps != 0)]).astype(np.int64)
        return numbered
    _, inverse = np.unique(values, return_inverse=True)
    return np.asarray(inverse, dtype=np.int64)


def rows_by_group(group: npt.NDArray[np.int64], groups: int) -> list[Rows]:
    """The rows of each group number 0..groups-1, in their order: a slice (a view, no copy of millions of
    values) when each group's rows are one run, as a results folder's are (one file per MME subtask); else
    the positions of a stable sort, which hold the same rows in the same order."""
    if not len(group):
        return [slice(0, 0)] * groups
    edges = [0, *(np.flatnonzero(np.diff(group)) + 1).tolist(), len(group)]
    runs = group[edges[:-1]].tolist()
    if len(set(runs)) == len(runs) and all(0 <= number < groups for number in runs):
        by_group: list[Rows] = [slice(0, 0)] * groups
        for number, start, end in zip(runs, edges[:-1], edges[1:], strict=True):
            by_group[number] = slice(start, end)
        return by_group
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(groups + 1))
    return [order[starts[number]:starts[number + 1]] for number in range(groups)]


def row_count(rows: Rows) -> int:
    return rows.stop - rows.start if isinstance(rows, slice) else len(rows)
