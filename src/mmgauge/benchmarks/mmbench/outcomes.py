"""MMBench's per-item outcomes, what two runs are paired on (the `outcomes_builder` hook, the judge audit and
predictions files).

An item is a question group (key `g_index`), right under CircularEval (`circular`) and on its first copy
(`vanilla`), labelled by L2 ability and category. Groups are built exactly as `scoring.score_columns` builds
them: a group without an answer key or with a failed request is not scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mmgauge.benchmarks.answer_files import AnswersFile, AnswersRequest
from mmgauge.benchmarks.mmbench.scoring import L2_ABBREVIATIONS
from mmgauge.core.errors import UserError
from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import BoolArray, IntArray, ObjArray, Outcomes, objects

if TYPE_CHECKING:
    pass


def outcomes(
    *,
    group: IntArray,
    copy: IntArray,
    n_copies: IntArray,
    correct: BoolArray,
    has_answer: BoolArray,
    request_failed: BoolArray,
    l2: ObjArray,
    category: ObjArray,
    answer: ObjArray,
) -> Outcomes:
    """Question groups from one row per copy, as `scoring.score_columns` forms and scores them."""
    if len(group) == 0:
        return Outcomes("mmbench", "question group", objects([]), objects([]),
                        {"l2": objects([]), "category": objects([])},
                        {"circular": np.zeros(0), "vanilla": np.zeros(0)})
    uniques, codes = np.unique(group, return_inverse=True)
    total = len(uniques)
    unanswered = np.bincount(codes, weights=~has_answer, minlength=total) > 0
    pending = np.bincount(codes, weights=request_failed, minlength=total) > 0
    size = np.bincount(codes, minlength=total)
    right_copies = np.bincount(codes, weights=correct & has_answer, minlength=total)
    order = np.lexsort((copy, codes))
    first = order[np.r_[True, codes[order][1:] != codes[order][:-1]]]  # lowest copy of each group
    complete = size >= n_copies[first]
    circular = (right_copies == size) & complete
    vanilla = np.where(copy[first] == 0, correct[first], False)
    keep = ~unanswered & ~pending
    abbreviated = objects([L2_ABBREVIATIONS.get(str(name), str(name)) for name in l2[first]])
    return Outcomes(
        benchmark="mmbench", item="question group", keys=objects([str(g) for g in uniques[keep]]),
        truth=objects([str(a) for a in answer[first][keep]]),
        labels={"l2": abbreviated[keep], "category": objects([str(c) for c in category[first][keep]])},
        values={"circular": circular[keep].astype(np.float64), "vanilla": vanilla[keep].astype(np.float64)},
    )


def from_answers(answers: Sequence[Answer]) -> Outcomes:
    chosen = [a for a in answers if a.round == 0]
    meta = [a.metadata for a in chosen]
    keys = [str(m.get("answer", "")) for m in meta]
    return outcomes(
        group=np.array([int(m["g_index"]) for m in meta], dtype=np.int64),
        copy=np.array([int(m["copy"]) for m in meta], dtype=np.int64),
        n_copies=np.array([int(m["n_copies"]) for m in meta], dtype=np.int64),
        correct=np.array([k != "" and a.answer == k for a, k in zip(chosen, keys, strict=True)], dtype=bool),
        has_answer=np.array([k != "" for k in keys], dtype=bool),
        request_failed=np.array([a.failed for a in chosen], dtype=bool),
        l2=objects([str(m.get("l2-category", "")) for m in meta]),
        category=objects([str(m.get("category", "")) for m in meta]),
        answer=objects(keys),
    )


def from_predictions_file(path: Path, request: AnswersRequest) -> AnswersFile | None:
    """The `answers_reader` hook (`compare`): a predictions file (VLMEvalKit's or lmms-eval's xlsx/TSV,
    lmms-eval's sample log) read as `mmgauge score mmbench` reads it, rules then the judge if one is given;
    None for a folder, or a table without option columns (A, B, ...) unless MMBench was named."""
    from mmgauge.benchmarks.mmbench.predictions import load_predictions, read_predictions
    from mmgauge.core.sync import run_sync

    columns = request.columns
    if columns is None or (not request.forced and not {"A", "B"} <= columns):
        return None
    judge = request.judge
    table = load_predictions(path, vlmevalkit_groups=True)
    read = run_sync(read_predictions(table, judge, literal_options=request.literal_options,
                                     vlmevalkit_groups=True))
    answer = table.answer
    found = outcomes(
        group=table.group, copy=table.copy, n_copies=read.n_copies, correct=read.correct,
        has_answer=answer != "", request_failed=np.zeros(len(answer), dtype=bool),
        l2=read.labels("l2-category"), category=read.labels("category"), answer=answer,
    )
    if len(found) == 0:
        raise UserError("the file has no answer key (a test split): nothing to compare", file=str(path),
                        field="answer")
    how = "the rules and the judge" if judge is not None else "the rules only (no judge)"
    return AnswersFile(found, "MMBench predictions",
                       [f"{path.name}: answers read by {how}, as `mmgauge score mmbench` reads them"])
