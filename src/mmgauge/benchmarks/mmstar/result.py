"""MMStar scores as VLMEvalKit reports them: accuracy overall, per core capability and per detailed axis.

VLMEvalKit scores MMStar with `mcq_vanilla_eval` (no CircularEval: each question once) and `report_acc`: the
share of questions hit, overall, per `category` (the 6 core capabilities) and per `l2-category` (the 18
detailed axes). An answer that nothing read (no rule, no judge, or `--judge none`) is a miss there, as is one
carrying the failure marker; here each is counted and said. Every accuracy gets an exact Clopper-Pearson
interval over its questions (docs/statistics.md). A request that failed in this toolkit's own run is left out
until a re-run retries it (`pending`), and a question without an answer key is not scored (`unanswered`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from pydantic import BaseModel, Field

from mmgauge.core.types import Extraction
from mmgauge.extraction.methods import FAILURE, JUDGE, JUDGE_FAILED, RANDOM, UNRESOLVED
from mmgauge.stats.proportion import Interval, proportion_interval

#: The 6 core capabilities and their 3 detailed axes each, spelled as the data spells them (the Hugging Face
#: `category` / `l2_category` values, the same in VLMEvalKit's TSV); the order of the paper's table.
CAPABILITIES: Final[dict[str, tuple[str, str, str]]] = {
    "coarse perception": ("image scene and topic", "image style & quality", "image emotion"),
    "fine-grained perception": ("object counting", "recognition", "localization"),
    "instance reasoning": ("single-instance reasoning", "cross-instance attribute reasoning",
                           "cross-instance relation reasoning"),
    "logical reasoning": ("code & sequence reasoning", "diagram reasoning", "common reasoning"),
    "science & technology": ("biology & chemistry & physics", "electronics & energy & mechanical eng.",
                             "geography & earth science & agriculture"),
    "math": ("geometry", "numeric commonsense and calculation", "statistical reasoning"),
}
AXES: Final[tuple[str, ...]] = tuple(axis for axes in CAPABILITIES.values() for axis in axes)


class Accuracy(BaseModel):
    """`correct` of `questions` right; `accuracy` in [0, 1], `pct` the same in percent (2 decimals), `ci` the
    Clopper-Pearson 95% interval in [0, 1]. None when no question was scored."""

    correct: int = 0
    questions: int = 0
    accuracy: float | None = None
    pct: float | None = None
    ci: Interval | None = None

    def text(self) -> str:
        if self.accuracy is None or self.ci is None:
            return "no questions scored"
        return f"{self.pct:.2f}% ({self.ci.text(100)})"


class MMStarResult(BaseModel):
    overall: Accuracy = Field(default_factory=Accuracy)
    #: Per core capability (the data's `category`), in the paper's order, then any other label sorted.
    capability: dict[str, Accuracy] = Field(default_factory=dict)
    #: Per detailed axis (the data's `l2-category` / `l2_category`), likewise.
    axis: dict[str, Accuracy] = Field(default_factory=dict)
    #: Scored answers by how they were read (rule-letter, rule-regex, rule-text, judge, random, failure,
    #: unresolved).
    extraction: dict[str, int] = Field(default_factory=dict)
    #: Answers nothing read; each counts wrong, as VLMEvalKit's exact matching counts them.
    unresolved: int = 0
    #: Answers carrying the failure marker (files from other toolkits); each counts wrong.
    failed: int = 0
    #: Unread answers given a seeded random letter (`random_fallback`).
    random: int = 0
    #: Whether a judge read any answer.
    judged: bool = False
    #: Questions whose request failed in this run (or whose judge failed): not scored until retried.
    pending: int = 0
    #: Questions without an answer key: not scored.
    unanswered: int = 0

    def headline(self) -> list[str]:
        lines = []
        if self.unresolved:
            how = "neither the rules nor the judge" if self.judged else "no rule (and no judge, --judge none)"
            lines.append(f"{self.unresolved} answers {how} could read count wrong")
        if self.random:
            lines.append(f"{self.random} unread answers got a seeded random letter (random_fallback)")
        if self.failed:
            lines.append(f"{self.failed} answers carry the failure marker and count wrong")
        if self.pending:
            # Whether a re-run can help depends on the errors, which the run's failure lines say.
            lines.append(f"{self.pending} questions have failed requests and are not scored yet (partial "
                         "result): they are scored once their requests succeed")
        if self.unanswered:
            lines.append(f"{self.unanswered} questions have no answer key and are not scored")
        return lines


@dataclass(frozen=True)
class Outcome:
    """One question's scoring input: its labels, its answer key and how its answer was read (None: the
    request failed, to retry)."""

    category: str
    l2_category: str
    answer: str | None
    extraction: Extraction | None


def accuracy(correct: int, questions: int) -> Accuracy:
    if questions == 0:
        return Accuracy()
    share = correct / questions
    return Accuracy(correct=correct, questions=questions, accuracy=share, pct=round(100 * share, 2),
                    ci=proportion_interval(correct, questions, unit="questions"))


def score_outcomes(outcomes: Iterable[Outcome]) -> MMStarResult:
    """The result of the outcomes (pure): see the module docstring for what counts and what is left out."""
    result = MMStarResult()
    hits: list[tuple[str, str, bool]] = []
    methods: Counter[str] = Counter()
    for item in outcomes:
        found = item.extraction
        if found is None or found.method == JUDGE_FAILED:
            result.pending += 1
            continue
        if not item.answer:
            result.unanswered += 1
            continue
        methods[found.method] += 1
        result.judged = result.judged or found.method == JUDGE or found.judge_reply is not None
        hits.append((item.category, item.l2_category, found.answer == item.answer))
    result.extraction = dict(sorted(methods.items()))
    result.unresolved = methods[UNRESOLVED]
    result.failed = methods[FAILURE]
    result.random = methods[RANDOM]
    result.overall = accuracy(sum(hit for *_, hit in hits), len(hits))
    result.capability = _by(hits, 0, CAPABILITIES)
    result.axis = _by(hits, 1, AXES)
    return result


def _by(hits: Sequence[tuple[str, str, bool]], column: int, known: Iterable[str]) -> dict[str, Accuracy]:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for category, axis, hit in hits:
        label = (category, axis)[column]
        total[label] += 1
        right[label] += hit
    order = [label for label in known if label in total]
    order += sorted(label for label in total if label not in order)
    return {label: accuracy(right[label], total[label]) for label in order}
