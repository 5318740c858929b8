"""The per-item outcome table two runs are paired on: a unique key per item, the answer key it was scored
against (paired runs must agree on it), breakdown labels and outcome columns.

Below the benchmarks, so that a benchmark package builds its own outcomes (its `outcomes_builder` hook);
the comparison pairs and compares them. Failed requests are never items: pairing is on what both runs
answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

ObjArray = npt.NDArray[np.object_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def objects(values: Sequence[object]) -> ObjArray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


@dataclass(frozen=True)
class Outcomes:
    benchmark: str
    #: What one item is, for messages ("question", "question group").
    item: str
    keys: ObjArray
    truth: ObjArray
    labels: dict[str, ObjArray] = field(default_factory=dict)
    values: dict[str, FloatArray] = field(default_factory=dict)
    #: Rounds per item (M3GIA with --rounds); 1 means every value is 0 or 1.
    rounds: int = 1

    def __len__(self) -> int:
        return len(self.keys)

    def take(self, index: IntArray | BoolArray) -> Outcomes:
        return Outcomes(
            benchmark=self.benchmark, item=self.item, keys=self.keys[index], truth=self.truth[index],
            labels={name: values[index] for name, values in self.labels.items()},
            values={name: values[index] for name, values in self.values.items()}, rounds=self.rounds,
        )
