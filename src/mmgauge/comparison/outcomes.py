"""Per-item outcome tables: what two runs are paired on.

An `Outcomes` holds one benchmark's scored items of one run, aligned: a unique key per item, the answer key
it was scored against (paired runs must agree on it), breakdown labels and outcome columns. What an item is
follows the benchmark's own scoring:

- M3GIA: a question (key `language/question_id`), its share of right rounds (0 or 1 with one round).
- A benchmark with an `outcomes_builder` hook: what the hook builds (`benchmarks/<name>/outcomes.py`).
- Any other benchmark: a (sample, round) with the benchmark's own right/wrong verdict.

Failed requests are never items: pairing is on what both runs answered.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import Outcomes, objects

# -- M3GIA and the rest ------------------------------------------------------------------------------------


def m3gia_from_answers(answers: Sequence[Answer]) -> Outcomes:
    """Per question: its share of right rounds over the rounds answered."""
    right: dict[str, list[float]] = {}
    info: dict[str, tuple[str, str, str]] = {}
    for a in answers:
        if a.failed:
            continue
        key = f"{a.metadata['language']}/{a.metadata['question_id']}"
        right.setdefault(key, []).append(1.0 if a.correct is True else 0.0)
        info[key] = (str(a.metadata["language"]), str(a.metadata["question_type"]), str(a.target or ""))
    keys = list(right)
    return Outcomes(
        benchmark="m3gia", item="question", keys=objects(keys), truth=objects([info[k][2] for k in keys]),
        labels={"language": objects([info[k][0] for k in keys]),
                "type": objects([info[k][1] for k in keys])},
        values={"right": np.array([float(np.mean(right[k])) for k in keys], dtype=np.float64)},
        rounds=max((len(v) for v in right.values()), default=1),
    )


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
