"""Which rows belong to each MME subtask: slices for runs of rows, the stable sort's positions otherwise."""

from __future__ import annotations

import numpy as np

from mmgauge.benchmarks.mme.scoring import SUBTASKS
from mmgauge.benchmarks.mme.scoring_rows import numbered, rows_by_group


def _sorted_rows(subtask: np.ndarray) -> list[list[int]]:
    """Each subtask's rows as a stable sort orders them (the reference the slices must equal)."""
    order = np.argsort(subtask, kind="stable")
    return [[int(row) for row in order if subtask[row] == number] for number in range(len(SUBTASKS))]


def test_rows_by_subtask_are_the_stable_sorts_rows_in_contiguous_or_mixed_order() -> None:
    rng = np.random.default_rng(7)
    layouts = [
        np.array([], dtype=np.int64),
        np.repeat(np.array([3, 0, 13], dtype=np.int64), [4, 2, 6]),  # one run each, not in subtask order
        np.repeat(np.array([5, 5, 1], dtype=np.int64), [2, 2, 2]),
        np.array([2, 2, 7, 2], dtype=np.int64),  # a subtask in two runs
        rng.integers(0, len(SUBTASKS), size=200).astype(np.int64),
        np.sort(rng.integers(0, len(SUBTASKS), size=200)).astype(np.int64),
    ]
    for subtask in layouts:
        rows = rows_by_group(subtask, len(SUBTASKS))
        positions = np.arange(len(subtask))
        assert [positions[r].tolist() for r in rows] == _sorted_rows(subtask)


def test_numbered_is_uniques_inverse_for_sorted_and_unsorted_values() -> None:
    rng = np.random.default_rng(3)
    samples = rng.integers(0, 50, size=300)
    for values in (np.array([4, 4, 9, 12, 12, 12]), samples, np.sort(samples)):
        expected = np.unique(values, return_inverse=True)[1]
        assert numbered(values.astype(np.int64)).tolist() == expected.tolist()
