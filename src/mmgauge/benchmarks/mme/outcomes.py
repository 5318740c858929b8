"""MME's per-item outcomes, what two runs are paired on (the `outcomes_builder` hook, and answers files: the
`answers_reader` hook).

An item is a question (key `subtask/image/qK`, as run sample ids are), right or wrong; its image is a label,
since acc+ and the bootstrap work on images. Failed requests are never items.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mmgauge.benchmarks.answer_files import AnswersFile, AnswersRequest
from mmgauge.benchmarks.mme.scoring import MMEItem
from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import Outcomes, objects


def outcomes(rows: Sequence[tuple[str, str, str, str, bool]]) -> Outcomes:
    """From (key, subtask, image, truth, right) per answered question."""
    return Outcomes(
        benchmark="mme", item="question", keys=objects([r[0] for r in rows]),
        truth=objects([r[3] for r in rows]),
        labels={"subtask": objects([r[1] for r in rows]),
                "image": objects([f"{r[1]}/{r[2]}" for r in rows])},
        values={"right": np.array([r[4] for r in rows], dtype=np.float64)},
    )


def from_answers(answers: Sequence[Answer]) -> Outcomes:
    rows = []
    for a in answers:
        if a.failed:
            continue
        subtask, image = str(a.metadata["subtask"]), str(a.metadata["image"])
        truth = str(a.metadata.get("truth") or a.target or "").lower()
        # Extra rounds are further full passes: each round's two answers form their own image pair.
        suffix = "" if a.round == 0 else f"@{a.round}"
        rows.append((a.sample_id + suffix, subtask, image + suffix, truth, a.answer is not None
                     and a.answer == truth))
    return outcomes(rows)


def from_items(items: Sequence[MMEItem]) -> Outcomes:
    """From an MME answers file (official results folder, prediction table): the K of `qK` is the question's
    place within its image, as in the release (and so in a run's sample ids)."""
    seen: dict[tuple[str, str], int] = {}
    rows = []
    for item in items:
        place = seen.get((item.subtask, item.image), 0)
        seen[(item.subtask, item.image)] = place + 1
        if item.failed:
            continue
        key = f"{item.subtask}/{item.image}/q{place}"
        rows.append((key, item.subtask, item.image, item.truth, item.answer == item.truth))
    return outcomes(rows)


def read_answers(path: Path, request: AnswersRequest) -> AnswersFile | None:
    """The `answers_reader` hook: an official results folder (`<subtask>.txt`), or an answers table (TSV/XLSX/
    JSONL with a `prediction` or `answer` column), read with the request's parser as `mmgauge score mme` reads
    them; None for a table of none of those columns, or with option columns (A, B, ...: a choice benchmark's),
    unless MME was named."""
    from mmgauge.benchmarks.mme.answers import load_items

    columns = request.columns
    table = columns is not None and not request.forced
    if table and columns is not None and ({"A", "B"} <= columns or not {"prediction", "answer"} & columns):
        return None
    notes: list[str] = []
    items, label = load_items(path, request.parser, notes)
    kind = "MME results folder" if columns is None else "MME answers table"
    return AnswersFile(from_items(items), kind,
                       [f"{path.name}: read with the {label} parser", *(f"{path.name}: {n}" for n in notes)])
