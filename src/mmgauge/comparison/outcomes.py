"""Per-item outcome tables: what two runs are paired on.

An `Outcomes` holds one benchmark's scored items of one run, aligned: a unique key per item, the answer key
it was scored against (paired runs must agree on it), breakdown labels and outcome columns. What an item is
follows the benchmark's own scoring:

- A benchmark with an `outcomes_builder` hook: what the hook builds (`benchmarks/<name>/outcomes.py`).
- Any other benchmark: a (sample, round) with the benchmark's own right/wrong verdict.

Failed requests are never items: pairing is on what both runs answered.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import Outcomes, objects

# -- The rest ------------------------------------------------------------------------------------------


def generic_from_answers(benchmark: str, answers: Sequence[Answer]) -> Outcomes:
    """Any benchmark whose records carry a right/wrong verdict: one item per (sample, round)."""
    chosen = [a for a in answers if not a.failed and a.correct is not None]
    keys = [a.sample_id if a.round == 0 else f"{a.sample_id}@{a.round}" for a in chosen]
    return Outcomes(
        benchmark=benchmark, item="answer", keys=objects(keys),
        truth=objects([str(a.target or "") for a in chosen]),
        values={"right": np.array([a.correct is True for a in chosen], dtype=np.float64)},
    )


def from_answers(benchmark: str, answers: Sequence[Answer]) -> Outcomes:
    from mmgauge.benchmarks.registry import known_class

    cls = known_class(benchmark)
    build = cls.hook("outcomes_builder") if cls is not None else None
    return build(answers) if build is not None else generic_from_answers(benchmark, answers)
