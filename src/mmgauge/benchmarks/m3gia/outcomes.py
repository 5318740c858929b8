"""M3GIA's per-item outcomes, what two runs are paired on (the `outcomes_builder` hook): an item is a question
(key `language/question_id`), its share of right rounds (0 or 1 with one round). Failed requests are never
items."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import Outcomes, objects


def from_answers(answers: Sequence[Answer]) -> Outcomes:
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
