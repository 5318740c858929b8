"""Per-item outcome tables: what two runs are paired on.

An `Outcomes` holds one benchmark's scored items of one run, aligned: a unique key per item, the answer key
it was scored against (paired runs must agree on it), breakdown labels and outcome columns. What an item is
follows the benchmark's own scoring:

- MMBench: a question group (key `g_index`), right under CircularEval (`circular`) and on its first copy
  (`vanilla`), labelled by L2 ability and category. Groups are built exactly as `scoring.mmbench` builds
  them: a group without an answer key or with a failed request is not scored.
- Any other benchmark without an `outcomes_builder` hook (MME's: `benchmarks/mme/outcomes.py`, M3GIA's:
  `benchmarks/m3gia/outcomes.py`): a (sample, round) with the benchmark's own right/wrong verdict.

Failed requests are never items: pairing is on what both runs answered.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import BoolArray, IntArray, ObjArray, Outcomes, objects
from mmgauge.scoring.mmbench import L2_ABBREVIATIONS

# -- MMBench -----------------------------------------------------------------------------------------------


def mmbench_outcomes(
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
    """Question groups from one row per copy, as `scoring.mmbench.score_columns` forms and scores them."""
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


def mmbench_from_answers(answers: Sequence[Answer]) -> Outcomes:
    chosen = [a for a in answers if a.round == 0]
    meta = [a.metadata for a in chosen]
    keys = [str(m.get("answer", "")) for m in meta]
    return mmbench_outcomes(
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
