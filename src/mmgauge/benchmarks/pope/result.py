"""The stored POPE result: per split (random, popular, adversarial) and overall, with intervals."""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, Field

from mmgauge.core.types import SCHEMA_VERSION
from mmgauge.stats.proportion import Interval

#: POPE's splits in the paper's order; other names (a custom file's) follow, sorted.
SPLITS: Final = ("random", "popular", "adversarial")
#: The name the scores over every split go by where they are shown beside the splits'.
OVERALL: Final = "overall"


class Metric(BaseModel):
    """A value in [0, 1] and its 95% interval."""

    value: float
    ci: Interval


class PopeScores(BaseModel):
    """One split, or all of them. Counts are of entries: a question listed in two splits (VLMEvalKit's
    POPE.tsv stores such a question once, with category "popular,random") counts once in each."""

    entries: int
    #: Distinct questions behind the entries: the n the intervals rest on.
    questions: int
    #: "yes" is the positive class. An answer read as neither (only the `vlmevalkit` reader has those) is
    #: in `unknown`, not in these four.
    tp: int
    fp: int
    tn: int
    fn: int
    unknown: int = 0
    accuracy: Metric
    #: None where the formula divides by zero (no "yes" answers; no "yes" truths): POPE's script crashes.
    precision: Metric | None
    recall: Metric | None
    #: Its interval is a percentile bootstrap over images (a POPE image carries six questions per split).
    f1: Metric | None
    #: Share of entries answered "yes" (POPE's `pred_list.count(1) / len(pred_list)`).
    yes_ratio: Metric


class PopeResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    #: How answers were read: `official` (POPE's evaluate.py) or `vlmevalkit` (its YOrN_Extraction).
    reader: str
    overall: PopeScores | None
    splits: dict[str, PopeScores] = Field(default_factory=dict)
    #: Failed requests: not scored.
    failed: int = 0
    notes: list[str] = Field(default_factory=list)

    def named(self) -> dict[str, PopeScores]:
        """The splits in their order, then `OVERALL` where there is more than one split (with one, the
        overall scores are that split's)."""
        named = dict(self.splits)
        if self.overall is not None and len(named) != 1:
            named[OVERALL] = self.overall
        return named


def split_order(names: set[str]) -> list[str]:
    known = [name for name in SPLITS if name in names]
    return known + sorted(names - set(SPLITS))
