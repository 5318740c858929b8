"""POPE's per-item outcomes, what two runs are paired on (the `outcomes_builder` hook): an item is an entry, a
question once per split it is in (as POPE's own scores count it; VLMEvalKit's POPE.tsv stores a question of
two splits once), with its split, its question and whether it was answered right. Failed requests are never
items."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import Outcomes, objects


def from_answers(answers: Sequence[Answer]) -> Outcomes:
    entries = []
    for a in answers:
        if a.failed or not a.target:
            continue
        question = a.sample_id if a.round == 0 else f"{a.sample_id}@{a.round}"
        for split in [str(split) for split in a.metadata.get("splits") or []] or [""]:
            entries.append((f"{split}/{question}" if split else question, split, question, a))
    return Outcomes(
        benchmark="pope", item="per-split answer", keys=objects([key for key, *_ in entries]),
        truth=objects([str(a.target).lower() for *_, a in entries]),
        labels={"split": objects([split for _, split, _, _ in entries]),
                "question": objects([question for _, _, question, _ in entries])},
        values={"right": np.array([a.correct is True for *_, a in entries], dtype=np.float64)},
    )
