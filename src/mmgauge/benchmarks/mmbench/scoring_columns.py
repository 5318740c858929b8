"""Column forms `scoring.score_columns` takes besides plain arrays, and the grouping it does, at the
cost of a million-row predictions file: text columns as codes into their distinct values (no Python string
per row), labels read only for the rows that carry them, and groups found by counting rather than sorting
where their numbers allow it. Each gives exactly what its plain form gives (`np.unique`, `Counter`, a sort).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: Group numbers below this many per row (plus a constant) are counted in an array that long.
_DENSE_PER_ROW: Final = 4
_DENSE_EXTRA: Final = 1 << 20


@dataclass(frozen=True)
class Coded:
    """A text column as codes into its distinct values: row r reads `names[codes[r]]`."""

    codes: IntArray
    names: Sequence[str]

    @classmethod
    def of(cls, values: Sequence[str] | npt.NDArray[np.object_]) -> Coded:
        """The codes of a column of texts, names in the order they first occur."""
        first_seen: dict[str, int] = {}
        listed = values.tolist() if isinstance(values, np.ndarray) else values
        codes = np.fromiter((first_seen.setdefault(value, len(first_seen)) for value in listed),
                            dtype=np.int64, count=len(listed))
        return cls(codes, list(first_seen))

    def most_common(self) -> dict[str, int]:
        """`dict(Counter(texts).most_common())`: counts, largest first, ties in the order texts first
        occur."""
        counts = np.bincount(self.codes, minlength=len(self.names))
        present = np.flatnonzero(counts).tolist()
        first_row = {code: int(np.argmax(self.codes == code)) for code in present}
        totals: dict[str, int] = {}
        for code in sorted(present, key=first_row.__getitem__):
            totals[self.names[code]] = totals.get(self.names[code], 0) + int(counts[code])
        return dict(sorted(totals.items(), key=lambda item: -item[1]))

    def equals(self, name: str) -> BoolArray:
        """Which rows read `name`."""
        mine = np.array([known == name for known in self.names], dtype=bool)
        found: BoolArray = mine[self.codes] if len(mine) else np.zeros(len(self.codes), dtype=bool)
        return found

    def select(self, rows: BoolArray) -> Coded:
        return Coded(self.codes[rows], self.names)

    def at(self, rows: IntArray) -> tuple[IntArray, list[str]]:
        """As a `LabelColumn`: the codes of `rows`, into every name."""
        return self.codes[rows], list(self.names)


class LabelColumn(Protocol):
    """A label column read only where needed: for some rows, codes into the texts they hold."""

    def at(self, rows: IntArray) -> tuple[IntArray, list[str]]: ...


def group_codes(group: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """`np.unique(group, return_inverse=True, return_counts=True)`, counted in an array as long as the largest
    group number when that is small (non-negative numbers below a few per row), else sorted."""
    if is_dense(group):
        counts = np.bincount(group)
        present = counts > 0
        uniques = np.flatnonzero(present).astype(group.dtype)
        rank = np.cumsum(present) - 1
        return uniques, rank[group], counts[present]
    uniques, codes, counts = np.unique(group, return_inverse=True, return_counts=True)
    return uniques, codes.reshape(-1).astype(np.int64), counts.astype(np.int64)


def has_repeats(values: IntArray) -> bool:
    """Whether a value occurs twice."""
    if is_dense(values):
        # Marks, not counts: a byte per possible value rather than eight (fresh memory is what this costs).
        seen = np.zeros(int(values.max()) + 1, dtype=np.bool_)
        seen[values] = True
        return int(np.count_nonzero(seen)) < len(values)
    ordered = np.sort(values)
    return bool((ordered[1:] == ordered[:-1]).any())


def is_dense(values: IntArray) -> bool:
    """Whether counting `values` in an array as long as the largest of them is cheap."""
    return bool(values.dtype.kind in "iu" and len(values) and values.min() >= 0
                and values.max() < _DENSE_PER_ROW * len(values) + _DENSE_EXTRA)


def lowest_copy_rows(codes: IntArray, copy: IntArray, groups: int) -> IntArray:
    """For each group, the row of its lowest copy (the earliest row among equals): what the first row of
    each group is after `np.lexsort((copy, codes))`."""
    lowest = np.full(groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(lowest, codes, copy)
    rows = np.flatnonzero(copy == lowest[codes])
    first = np.full(groups, len(codes), dtype=np.int64)
    np.minimum.at(first, codes[rows], rows)
    return first
