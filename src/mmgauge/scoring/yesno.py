"""Scores of a plain yes/no benchmark (POPE-style): accuracy, precision, recall and F1 of "yes", yes-ratio.

Pure: records in, a pydantic result out. A failed request is not scored (counted in `failed`); an answer read
as neither yes nor no is scored wrong (counted in `other`). Accuracy carries an exact (Clopper-Pearson)
interval with its n; per-category scores follow the records' `category` field when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from mmgauge.core.types import SCHEMA_VERSION, SampleRecord
from mmgauge.stats.proportion import Interval, proportion_interval


class YesNoScores(BaseModel):
    n: int
    accuracy: float
    accuracy_ci: Interval
    #: Precision, recall and F1 with "yes" as the positive class (None where undefined: no such answers).
    precision: float | None
    recall: float | None
    f1: float | None
    #: Share of "yes" among answers read as yes or no (None when there is none).
    yes_ratio: float | None
    other: int = 0


class YesNoResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    overall: YesNoScores | None
    failed: int = 0
    categories: dict[str, YesNoScores] = Field(default_factory=dict)


def _scores(records: Sequence[SampleRecord]) -> YesNoScores:
    answers = [r.extraction.answer if r.extraction is not None else None for r in records]
    truths = [str(r.target or "").lower() for r in records]
    right = sum(a == t for a, t in zip(answers, truths, strict=True))
    said_yes = sum(a == "yes" for a in answers)
    said_no = sum(a == "no" for a in answers)
    true_yes = sum(a == "yes" and t == "yes" for a, t in zip(answers, truths, strict=True))
    actual_yes = sum(t == "yes" for t in truths)
    precision = true_yes / said_yes if said_yes else None
    recall = true_yes / actual_yes if actual_yes else None
    f1 = (2 * precision * recall / (precision + recall)
          if precision is not None and recall is not None and precision + recall > 0 else None)
    n = len(records)
    return YesNoScores(
        n=n, accuracy=right / n, accuracy_ci=proportion_interval(right, n, unit="questions"),
        precision=precision, recall=recall, f1=f1,
        yes_ratio=said_yes / (said_yes + said_no) if said_yes + said_no else None,
        other=n - said_yes - said_no,
    )


def score_yes_no(records: Sequence[SampleRecord]) -> YesNoResult:
    answered = [r for r in records if r.response.ok]
    by_category: dict[str, list[SampleRecord]] = {}
    for record in answered:
        category = record.metadata.get("category")
        if category:
            by_category.setdefault(str(category), []).append(record)
    return YesNoResult(
        overall=_scores(answered) if answered else None,
        failed=len(records) - len(answered),
        categories={name: _scores(group) for name, group in sorted(by_category.items())},
    )
