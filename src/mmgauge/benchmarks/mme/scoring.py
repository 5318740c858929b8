"""MME scores as the official tool computes them, plus what it leaves out (CIs, partial totals, failures).

Pure: plain records in, pydantic results out; numpy only. Both the run path (records of a run) and the file
path (official results folders, prediction files) build `MMEItem`s and call `score_mme`, so they cannot
disagree.

Per subtask: acc = share of questions right, acc+ = share of images with both questions right (both x100),
score = acc + acc+; perception = sum of 10 subtask scores (max 2000), cognition = sum of 4 (max 800).
A question whose request failed is not scored: it is counted in `failed`, its subtask is `complete=False`, acc
is over the answered questions and acc+ over the images whose two questions were both answered. Totals are
marked `partial` and name the subtasks missing (nothing scorable) or incomplete (some requests failed).

Intervals (docs/statistics.md): acc and acc+ get Clopper-Pearson intervals (n = answered questions, fully
answered images); a subtask score and the totals get a bootstrap over images, widened where needed to the
MOVER combination of those proportion intervals, so that all-right or all-wrong subtasks never give a
zero-width interval. The bootstrap draws multinomial counts of the five per-image outcome types, so it
costs the same for 30 images or a million.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from mmgauge.benchmarks.mme.scoring_rows import Rows, numbered, row_count, rows_by_group
from mmgauge.core.schema_version import SCHEMA_VERSION
from mmgauge.stats.composite import (
    Spread,
    draws_correlation,
    hull_with_floor,
    mover_independent,
    mover_pair,
    percentile_bounds,
    resample_type_counts,
)
from mmgauge.stats.proportion import Interval, proportion_interval

PERCEPTION: Final[tuple[str, ...]] = (
    "existence", "count", "position", "color", "posters", "celebrity", "scene", "landmark", "artwork", "OCR",
)
COGNITION: Final[tuple[str, ...]] = (
    "commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning",
)
SUBTASKS: Final[tuple[str, ...]] = PERCEPTION + COGNITION
#: Questions per subtask in the full public release (1187 images, 2374 questions).
RELEASE_QUESTIONS: Final[dict[str, int]] = {
    "existence": 60, "count": 60, "position": 60, "color": 60, "posters": 294, "celebrity": 340, "scene": 400,
    "landmark": 400, "artwork": 400, "OCR": 40, "commonsense_reasoning": 140, "numerical_calculation": 40,
    "text_translation": 40, "code_reasoning": 40,
}
DEFAULT_RESAMPLES: Final = 1000
#: A yes-ratio (or no-ratio) above this is shown as an answer bias.
BIAS_WARNING: Final = 0.7
DEFAULT_SEED: Final = 0
#: Method name of the composite intervals (subtask score, totals).
COMPOSITE_METHOD: Final = "bootstrap-images+mover-clopper-pearson"
# The five outcome types of an image with at least one answered question: (answered, right) =
# (1, 0), (1, 1), (2, 0), (2, 1), (2, 2). Per type: answered and right questions, fully answered, both right.
_TYPE_ANSWERED: Final = np.array([1, 1, 2, 2, 2], dtype=np.int64)
_TYPE_RIGHT: Final = np.array([0, 1, 0, 1, 2], dtype=np.int64)
_TYPE_FULL: Final = np.array([0, 0, 1, 1, 1], dtype=np.int64)
_TYPE_BOTH: Final = np.array([0, 0, 0, 0, 1], dtype=np.int64)


@dataclass(frozen=True)
class MMEItem:
    """One question. `answer` is "yes", "no" or None (the parser's "other"/unknown: wrong, and counted)."""

    subtask: str
    image: str
    truth: str
    answer: str | None
    method: str = "official"
    failed: bool = False


class SubtaskScore(BaseModel):
    acc: float
    acc_plus: float
    score: float
    other: int
    #: Share of "yes" among the answers read as yes or no ("other" answers are counted in `other`, not
    #: here), so a model that answers neither is never mistaken for one that always says no. 0 when none.
    yes_ratio: float | None
    questions: int
    images: int
    failed: int = 0
    complete: bool = True
    methods: dict[str, int] = Field(default_factory=dict)
    #: Clopper-Pearson interval of acc in percent; n = answered questions.
    acc_ci: Interval | None = None
    #: Clopper-Pearson interval of acc+ in percent; n = images with both questions answered.
    acc_plus_ci: Interval | None = None
    #: Interval of the score (0-200): image bootstrap widened to the MOVER floor; n = scored images.
    score_ci: Interval | None = None


class Total(BaseModel):
    score: float
    max: float
    #: The ends of `ci` (kept for readers of older results; since the statistics rework they are the
    #: image bootstrap widened to the MOVER floor, not the bare percentile bootstrap).
    ci_low: float | None = None
    ci_high: float | None = None
    #: The interval with its n (scored images) and method.
    ci: Interval | None = None
    partial: bool = False
    missing: list[str] = Field(default_factory=list)
    incomplete: list[str] = Field(default_factory=list)

    @property
    def scored(self) -> bool:
        """Whether any of its subtasks has a scored question (each subtask counts 200 of `max`)."""
        return 200 * len(self.missing) < self.max

    def text(self, gap: str = " ") -> str:
        """`score / max (interval) partial`, or that nothing is scored yet: as the summary and `score mme`
        show it."""
        if not self.scored:
            return f"nothing scored yet (of {self.max:.0f})"
        ci = "" if self.ci is None else f"{gap}({self.ci.text()})"
        return f"{self.score:.2f} / {self.max:.0f}{ci}{' partial' if self.partial else ''}"


class MMEResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    benchmark: str = "mme"
    parser: str
    perception: Total
    cognition: Total
    subtasks: dict[str, SubtaskScore]
    questions: int
    failed: int
    other: int
    bootstrap_resamples: int
    bootstrap_seed: int
    ci_level: float = 0.95

    def official_json(self) -> dict[str, object]:
        """The shape `mmgauge score mme --json` prints (issue 3), unrounded, acc in percent."""
        return {
            "perception": self.perception.score,
            "cognition": self.cognition.score,
            "subtasks": {
                name: {
                    "acc": s.acc, "acc_plus": s.acc_plus, "score": s.score, "other": s.other,
                    "yes_ratio": s.yes_ratio,
                }
                for name, s in self.subtasks.items()
            },
        }


@dataclass(frozen=True)
class MMEColumns:
    """Questions in column form, one entry per question: what `score_mme_columns` scores.

    `image` numbers the images (each number within one subtask; the two questions of an image share it),
    `answer` is 1 for yes, 0 for no and -1 for neither (the parser's "other"/unknown: wrong, and counted),
    and `method` indexes `method_names`. Readers of large files build these arrays directly.
    """

    subtask: npt.NDArray[np.int64]  # index into SUBTASKS
    image: npt.NDArray[np.int64]
    truth_yes: npt.NDArray[np.bool_]
    answer: npt.NDArray[np.int8]
    failed: npt.NDArray[np.bool_]
    method: npt.NDArray[np.int64]
    method_names: tuple[str, ...]


def columns_of(items: Sequence[MMEItem]) -> MMEColumns:
    """The column form of questions grouped by (subtask, image); checks subtasks, truths and pairs."""
    image_ids: dict[tuple[str, str], int] = {}
    sizes: list[int] = []
    methods: dict[str, int] = {}
    image, subtask, method = [], [], []
    for item in items:
        if item.subtask not in SUBTASKS:
            raise ValueError(f"'{item.subtask}' is not an MME subtask; known: {', '.join(SUBTASKS)}")
        if item.truth not in ("yes", "no"):
            where = f"{item.subtask}/{item.image}"
            raise ValueError(f"ground truth must be 'yes' or 'no', not {item.truth!r} ({where})")
        if item.answer not in ("yes", "no", None):
            raise ValueError(f"answer must be 'yes', 'no' or None, not {item.answer!r}")
        number = image_ids.setdefault((item.subtask, item.image), len(image_ids))
        if number == len(sizes):
            sizes.append(0)
        sizes[number] += 1
        if sizes[number] > 2:
            raise ValueError(f"image {item.subtask}/{item.image} has more than two questions")
        image.append(number)
        subtask.append(SUBTASKS.index(item.subtask))
        method.append(methods.setdefault(item.method, len(methods)))
    return MMEColumns(
        subtask=np.array(subtask, dtype=np.int64),
        image=np.array(image, dtype=np.int64),
        truth_yes=np.array([item.truth == "yes" for item in items], dtype=bool),
        answer=np.array([_ANSWER_CODES[item.answer] for item in items], dtype=np.int8),
        failed=np.array([item.failed for item in items], dtype=bool),
        method=np.array(method, dtype=np.int64),
        method_names=tuple(methods),
    )


_ANSWER_CODES: Final[dict[str | None, int]] = {"yes": 1, "no": 0, None: -1}


@dataclass
class _Images:
    """Per image of one subtask: answered questions, right answers, and whether both were answered/right."""

    answered: np.ndarray
    right: np.ndarray

    @property
    def full(self) -> np.ndarray:
        full: np.ndarray = self.answered == 2
        return full

    @property
    def both(self) -> np.ndarray:
        both: np.ndarray = (self.right == 2) & (self.answered == 2)
        return both

    def type_counts(self) -> npt.NDArray[np.int64]:
        """How many images fall into each of the five outcome types (`_TYPE_*` order)."""
        codes = np.bincount(self.answered * 3 + self.right, minlength=9)
        counts: npt.NDArray[np.int64] = codes[[3, 4, 6, 7, 8]].astype(np.int64)
        return counts


def _score_subtask(columns: MMEColumns, rows: Rows) -> tuple[SubtaskScore, _Images] | None:
    """One subtask's score from its questions (`rows` of `columns`); None when no image is fully answered."""
    image = numbered(columns.image[rows])
    n_images = int(image.max()) + 1
    scored = ~columns.failed[rows]
    answer = columns.answer[rows]
    right = scored & (answer == columns.truth_yes[rows])
    answered_per_image = np.bincount(image[scored], minlength=n_images)
    right_per_image = np.bincount(image[right], minlength=n_images)
    seen = answered_per_image > 0
    images = _Images(answered=answered_per_image[seen], right=right_per_image[seen])
    n_questions = int(images.answered.sum())
    n_full = int(images.full.sum())
    if n_full == 0:
        return None
    failed = len(scored) - int(scored.sum())
    counts = np.bincount(columns.method[rows][scored], minlength=len(columns.method_names))
    methods = {name: int(n) for name, n in zip(columns.method_names, counts.tolist(), strict=True) if n}
    acc = float(images.right.sum()) / n_questions * 100
    acc_plus = float(images.both.sum()) / n_full * 100
    yes, no = int(np.count_nonzero(scored & (answer == 1))), int(np.count_nonzero(scored & (answer == 0)))
    score = SubtaskScore(
        acc=acc,
        acc_plus=acc_plus,
        score=acc + acc_plus,
        other=int(np.count_nonzero(scored & (answer == -1))),
        yes_ratio=yes / (yes + no) if yes + no else None,
        questions=n_questions,
        images=n_images,
        failed=failed,
        complete=failed == 0 and n_full == n_images,
        methods=dict(sorted(methods.items())),
    )
    return score, images


def read_yes_or_no(score: SubtaskScore) -> int:
    """Answers of a subtask read as yes or no (the yes-ratio's denominator)."""
    return max(0, score.questions - score.other)


def overall_yes_ratio(result: MMEResult) -> float | None:
    """yes / (yes + no) over every subtask's answers read as yes or no; None if none was."""
    read = sum(read_yes_or_no(s) for s in result.subtasks.values())
    if not read:
        return None
    return sum((s.yes_ratio or 0.0) * read_yes_or_no(s) for s in result.subtasks.values()) / read


def answer_bias(ratio: float | None) -> bool:
    """Whether a yes-ratio is far enough from MME's true 50% to warn about (both MME answers per image
    differ, so an always-yes model gets acc 50 and acc+ 0 on every subtask)."""
    return ratio is not None and abs(ratio - 0.5) > BIAS_WARNING - 0.5


def _with_proportion_intervals(score: SubtaskScore, images: _Images, level: float) -> SubtaskScore:
    right, answered = int(images.right.sum()), int(images.answered.sum())
    both, full = int(images.both.sum()), int(images.full.sum())
    return score.model_copy(update={
        "acc_ci": proportion_interval(right, answered, level=level, unit="questions").scaled(100),
        "acc_plus_ci": proportion_interval(both, full, level=level, unit="images").scaled(100),
    })


def _resample(images: _Images, rng: np.random.Generator, resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """acc and acc+ (percent) of one subtask over `resamples` bootstrap draws of its images."""
    counts = resample_type_counts(images.type_counts(), resamples, rng)
    answered, right = counts @ _TYPE_ANSWERED, counts @ _TYPE_RIGHT
    full, both = counts @ _TYPE_FULL, counts @ _TYPE_BOTH
    # An incomplete subtask may draw no fully answered image; its acc+ then counts as 0 for that draw.
    acc_plus = np.divide(both, full, out=np.zeros(resamples), where=full > 0) * 100
    acc = np.divide(right, answered, out=np.zeros(resamples), where=answered > 0) * 100
    return acc, acc_plus


@dataclass
class _Draws:
    """One subtask's bootstrap score draws and the MOVER floor of its score."""

    scores: np.ndarray
    floor: Spread
    images: int


def _subtask_draws(
    name: str, score: SubtaskScore, images: _Images, resamples: int, seed: int
) -> _Draws:
    # One generator per subtask, keyed by its place in the fixed list: a subtask's draws do not depend on
    # which other subtasks happen to be present.
    rng = np.random.default_rng([seed, SUBTASKS.index(name)])
    acc, acc_plus = _resample(images, rng, resamples)
    assert score.acc_ci is not None and score.acc_plus_ci is not None
    floor = mover_pair(
        Spread.around(score.acc, *score.acc_ci.bounds()),
        Spread.around(score.acc_plus, *score.acc_plus_ci.bounds()),
        draws_correlation(acc, acc_plus),
    )
    return _Draws(scores=acc + acc_plus, floor=floor, images=len(images.answered))


def _composite(
    estimate: float, draws: np.ndarray, floor: Spread, top: float, n: int, level: float
) -> Interval:
    low, high = hull_with_floor(estimate, percentile_bounds(draws, level), floor, (0.0, top))
    return Interval(low=low, high=high, n=n, method=COMPOSITE_METHOD, level=level, unit="images")


def _total(
    names: tuple[str, ...], scores: dict[str, SubtaskScore], draws: dict[str, _Draws], level: float
) -> Total:
    present = [n for n in names if n in scores]
    missing = [n for n in names if n not in scores]
    incomplete = [n for n in present if not scores[n].complete]
    total = Total(
        score=sum(scores[n].score for n in present),
        max=200.0 * len(names),
        partial=bool(missing or incomplete),
        missing=missing,
        incomplete=incomplete,
    )
    if present and all(n in draws for n in present):
        summed = np.sum([draws[n].scores for n in present], axis=0)
        floor = mover_independent([draws[n].floor for n in present])
        images = sum(draws[n].images for n in present)
        total.ci = _composite(total.score, summed, floor, 200.0 * len(present), images, level)
        total.ci_low, total.ci_high = total.ci.bounds()
    return total


def score_mme(
    items: Sequence[MMEItem],
    *,
    parser: str,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> MMEResult:
    """Score questions grouped by (subtask, image); `parser` is recorded so every number names its parser."""
    return score_mme_columns(columns_of(items), parser=parser, resamples=resamples, seed=seed, level=level)


def score_mme_columns(
    columns: MMEColumns,
    *,
    parser: str,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> MMEResult:
    """`score_mme` of questions in column form."""
    scores: dict[str, SubtaskScore] = {}
    images: dict[str, _Images] = {}
    for name, rows in zip(SUBTASKS, rows_by_group(columns.subtask, len(SUBTASKS)), strict=True):
        scored = _score_subtask(columns, rows) if row_count(rows) else None
        if scored is not None:
            scores[name] = _with_proportion_intervals(scored[0], scored[1], level)
            images[name] = scored[1]
    draws: dict[str, _Draws] = {}
    if resamples > 0:
        for name, score in scores.items():
            draws[name] = _subtask_draws(name, score, images[name], resamples, seed)
            scores[name].score_ci = _composite(
                score.score, draws[name].scores, draws[name].floor, 200.0, draws[name].images, level)
    return MMEResult(
        parser=parser,
        perception=_total(PERCEPTION, scores, draws, level),
        cognition=_total(COGNITION, scores, draws, level),
        subtasks=scores,
        questions=sum(s.questions for s in scores.values()),
        failed=int(columns.failed.sum()),
        other=sum(s.other for s in scores.values()),
        bootstrap_resamples=resamples,
        bootstrap_seed=seed,
        ci_level=level,
    )
