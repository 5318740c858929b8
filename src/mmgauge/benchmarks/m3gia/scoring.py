"""M3GIA scores from finished records: accuracy per question type, cluster, factor and language, and the GIA.

Every score is computed per language and per round, then summarised over rounds as mean and sample standard
deviation (the paper averages 5 rounds). Per type, cluster, factor and overall it is plain accuracy over the
questions scored (clusters and overall are instance-weighted: correct answers over questions). Factors are
multi-label, so one question counts towards every factor it is labelled with.

The GIA needs the counts of correct answers of ALL 300 questions of a language: the published CFA model turns
raw counts into a score, so counts from a subset (a `--limit` run, the built-in sample, failed requests) are
not on its scale and no GIA is computed for them; the result says why. The GIA itself comes from
`mmgauge.benchmarks.m3gia.gia`.

Failed requests are not scored (they are counted in `failed`); answers no rule or judge could read count
wrong.

The overall accuracy of a language gets a Clopper-Pearson interval over its questions (docs/statistics.md);
with several rounds each question counts with its share of right rounds (a fractional count, which the
exact interval's beta form takes as it is and which makes it conservative).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel

from mmgauge.benchmarks.m3gia.gia import (
    QUESTION_TYPE_TO_COLUMN,
    compute_gia,
    normalise_language,
    question_counts,
)
from mmgauge.benchmarks.m3gia.gia_interval import gia_interval
from mmgauge.core.errors import UserError
from mmgauge.core.types import SampleRecord
from mmgauge.stats.proportion import Interval, proportion_interval

if TYPE_CHECKING:  # pandas (0.2 s) is imported where records are scored, not where the result type is named
    import pandas as pd

#: The 18 question types as the release spells them ("Number Seres" included), in question-id order.
TYPES: tuple[str, ...] = (
    "Oral Vocabulary", "General Information", "Logo Problem", "Visualization", "Picture Recognition",
    "Real-world Spatial", "Readings-text", "Readings-VL", "Comic Problem", "Algebra", "Geometry",
    "Math Facts", "Applied Problem", "Number Seres", "Concept Formation", "Raven's Matrices",
    "Real-world Reasoning", "Syllogism Problem",
)
CLUSTERS: dict[str, tuple[str, ...]] = {
    "Common Sense": ("Oral Vocabulary", "General Information", "Logo Problem"),
    "Visual-spatial": ("Visualization", "Picture Recognition", "Real-world Spatial"),
    "Comprehension": ("Readings-text", "Readings-VL", "Comic Problem"),
    "Mathematics": ("Algebra", "Geometry", "Math Facts", "Applied Problem"),
    "Reasoning": ("Number Seres", "Concept Formation", "Raven's Matrices", "Real-world Reasoning",
                  "Syllogism Problem"),
}
FACTORS: tuple[str, ...] = ("Gc", "Gv", "Grw", "Gq", "Gf", "I", "RG", "RQ")
#: The per-type count columns in the order of the published CFA data (cfa/<lang>.csv).
COUNT_COLUMNS: tuple[str, ...] = (
    "General_Info", "Oral_Vocab", "Logo", "Visualization", "Pic_Recog", "RW_Spatial", "Readings_text",
    "Readings_VL", "Comic", "Math_Facts", "Algebra", "Geom", "Applied_Problem", "Number_Series", "Concept",
    "Raven", "Syllogism", "RW_Reason",
)
_CLUSTER_OF: dict[str, str] = {t: cluster for cluster, types in CLUSTERS.items() for t in types}
_TYPE_OF_COLUMN: dict[str, str] = {column: t for t, column in QUESTION_TYPE_TO_COLUMN.items()}
FAILED_REQUEST = "failed-request"


def cluster_of(question_type: str) -> str:
    return _CLUSTER_OF[question_type]


@dataclass(frozen=True)
class Item:
    """One scored answer: what scoring needs from a record."""

    language: str
    question_id: str
    question_type: str
    factors: tuple[str, ...]
    round: int
    correct: bool


class Stat(BaseModel):
    """A score over rounds: mean, sample standard deviation (None with one round) and the per-round values."""

    mean: float
    std: float | None
    rounds: list[float]


class Gia(BaseModel):
    """GIA of one language on the official scale, and the standardised scale when it could be computed."""

    gia: Stat
    gia_normalised: Stat
    human_gia: float
    #: 95% interval of `gia.mean` with its n (questions) and method (`gia_interval`); the normalised
    #: scale's is the same interval divided by the human GIA (x100).
    gia_ci: Interval | None = None
    gia_normalised_ci: Interval | None = None
    gia_standardised: Stat | None = None
    human_percentile: Stat | None = None
    standardised_note: str | None = None


class LanguageScores(BaseModel):
    questions: int
    rounds: int
    overall: Stat
    #: The ends of `overall_ci`. Since the statistics rework: Clopper-Pearson over the questions (each
    #: question's correctness averaged over its rounds first), no longer a percentile bootstrap.
    overall_ci95: tuple[float, float] | None = None
    #: 95% interval of the overall accuracy with its n (questions) and method.
    overall_ci: Interval | None = None
    types: dict[str, Stat]
    clusters: dict[str, Stat]
    factors: dict[str, Stat]
    #: Correct answers per type, keyed by the published count columns in their published order.
    counts: dict[str, Stat]
    complete: bool
    gia: Gia | None = None
    gia_note: str | None = None


class MeanScores(BaseModel):
    """Mean over the languages run (per round, then summarised over rounds)."""

    languages: list[str]
    overall: Stat
    types: dict[str, Stat]
    clusters: dict[str, Stat]
    factors: dict[str, Stat]


class M3GIAResult(BaseModel):
    languages: list[str]
    rounds: int
    per_language: dict[str, LanguageScores]
    mean: MeanScores | None
    methods: dict[str, int]
    failed: int
    notes: list[str]


BOOTSTRAP_RESAMPLES = 2000


def bootstrap_ci95(per_question: np.ndarray, seed: int) -> tuple[float, float] | None:
    """Percentile interval of the mean of `per_question` over resampled questions (None without data).

    No longer used by the scorer (it collapses to a point at 0% and 100%); kept for callers.
    """
    n = per_question.size
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))
    means = per_question[draws].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def accuracy_interval(per_question: np.ndarray) -> Interval | None:
    """Clopper-Pearson interval of the mean of per-question scores in [0, 1] (None without questions)."""
    n = int(per_question.size)
    if n == 0:
        return None
    right = float(per_question.sum())
    # One round gives whole counts; summing several rounds' shares can leave rounding dust around them.
    right = float(round(right)) if abs(right - round(right)) < 1e-9 else min(max(right, 0.0), float(n))
    return proportion_interval(right, n, unit="questions")


def stat(values: Sequence[float]) -> Stat:
    data = np.asarray(values, dtype=np.float64)
    std = float(data.std(ddof=1)) if data.size > 1 else None
    return Stat(mean=float(data.mean()), std=std, rounds=[float(v) for v in data])


def items_from_records(records: Iterable[SampleRecord]) -> tuple[list[Item], Counter[str], int]:
    """The scored items, extraction-method counts and the number of failed requests (not scored)."""
    items: list[Item] = []
    methods: Counter[str] = Counter()
    failed = 0
    for record in records:
        if not record.response.ok or record.extraction is None:
            failed += 1
            methods[FAILED_REQUEST] += 1
            continue
        meta = record.metadata
        for key in ("language", "question_id", "question_type", "factors"):
            if key not in meta:
                raise UserError(f"an M3GIA record lacks '{key}' in its metadata", field=record.sample_id)
        methods[record.extraction.method] += 1
        items.append(Item(
            language=str(meta["language"]), question_id=str(meta["question_id"]),
            question_type=str(meta["question_type"]), factors=tuple(str(f) for f in meta["factors"]),
            round=record.round, correct=record.correct is True,
        ))
    return items, methods, failed


def _accuracy(frame: pd.DataFrame, by: str, keys: Iterable[str]) -> dict[str, float]:
    grouped = frame.groupby(by)["correct"].mean()
    return {key: float(grouped[key]) for key in keys if key in grouped.index}


def _round_scores(frame: pd.DataFrame) -> dict[str, float]:
    """Flat `kind/name -> value` scores of one language in one round."""
    scores = {"overall": float(frame["correct"].mean())}
    scores.update({f"type/{k}": v for k, v in _accuracy(frame, "question_type", TYPES).items()})
    scores.update({f"cluster/{k}": v for k, v in _accuracy(frame, "cluster", CLUSTERS).items()})
    by_factor = frame.explode("factors")
    scores.update({f"factor/{k}": v for k, v in _accuracy(by_factor, "factors", FACTORS).items()})
    correct = frame.groupby("question_type")["correct"].sum()
    for column in COUNT_COLUMNS:
        question_type = _TYPE_OF_COLUMN[column]
        scores[f"count/{column}"] = float(correct.get(question_type, 0))
    return scores


def _stats(per_round: list[dict[str, float]], kind: str, names: Iterable[str]) -> dict[str, Stat]:
    out: dict[str, Stat] = {}
    for name in names:
        values = [scores[f"{kind}/{name}"] for scores in per_round if f"{kind}/{name}" in scores]
        if values:
            out[name] = stat(values)
    return out


def _coverage(frame: pd.DataFrame, language: str) -> tuple[bool, str]:
    """Whether every round scored all questions of every type, and a sentence on what is missing."""
    expected = question_counts(language)
    total = sum(expected.values())
    for round_, part in frame.groupby("round"):
        seen = part.groupby("question_type")["question_id"].nunique()
        got = int(seen.sum())
        short = [c for c in COUNT_COLUMNS if int(seen.get(_TYPE_OF_COLUMN[c], 0)) < expected[c]]
        if short:
            return False, (
                f"round {round_} scored {got} of the {total} questions "
                f"({len(short)} question types incomplete)"
            )
    return True, ""


def _gia(language: str, per_round: list[dict[str, float]], frame: pd.DataFrame) -> Gia:
    import pandas as pd

    counts = pd.DataFrame([[scores[f"count/{c}"] for c in COUNT_COLUMNS] for scores in per_round],
                          columns=list(COUNT_COLUMNS))
    official = compute_gia(counts, language)
    gia = Gia(
        gia=stat([row.gia for row in official.rows]),
        gia_normalised=stat([row.gia_normalised for row in official.rows]),
        human_gia=official.human_gia,
    )
    per_question = frame.groupby("question_id").agg(share=("correct", "mean"),
                                                    kind=("question_type", "first"))
    shares = {column: per_question["share"][per_question["kind"] == _TYPE_OF_COLUMN[column]].to_numpy(float)
              for column in COUNT_COLUMNS}
    gia.gia_ci = gia_interval(shares, normalise_language(language), gia.gia.mean)
    if official.human_gia > 0:
        gia.gia_normalised_ci = gia.gia_ci.scaled(100.0 / official.human_gia)
    try:
        standardised = compute_gia(counts, language, scale="standardised")
    except UserError as missing:
        gia.standardised_note = f"standardised scale not computed: {missing.message}"
    else:
        gia.gia_standardised = stat([float(row.gia_standardised or 0.0) for row in standardised.rows])
        gia.human_percentile = stat([float(row.human_percentile or 0.0) for row in standardised.rows])
    return gia


def _language_scores(language: str, frame: pd.DataFrame) -> tuple[LanguageScores, list[dict[str, float]]]:
    rounds = sorted(int(r) for r in frame["round"].unique())
    per_round = [_round_scores(frame[frame["round"] == r]) for r in rounds]
    complete, why = _coverage(frame, language)
    scores = LanguageScores(
        questions=int(frame["question_id"].nunique()), rounds=len(rounds), overall=stat(
            [s["overall"] for s in per_round]),
        overall_ci=accuracy_interval(frame.groupby("question_id")["correct"].mean().to_numpy(dtype=float)),
        types=_stats(per_round, "type", TYPES), clusters=_stats(per_round, "cluster", CLUSTERS),
        factors=_stats(per_round, "factor", FACTORS), counts=_stats(per_round, "count", COUNT_COLUMNS),
        complete=complete,
    )
    scores.overall_ci95 = scores.overall_ci.bounds() if scores.overall_ci else None
    if complete:
        scores.gia = _gia(language, per_round, frame)
    else:
        scores.gia_note = (
            f"GIA not computed: {why}; the published model turns counts of correct answers over all 300 "
            "questions into a score, so counts from a subset are not comparable"
        )
    return scores, per_round


def _mean_over_languages(per_language: dict[str, list[dict[str, float]]]) -> MeanScores:
    n_rounds = min(len(rounds) for rounds in per_language.values())
    per_round: list[dict[str, float]] = []
    for r in range(n_rounds):
        keys = {key for rounds in per_language.values() for key in rounds[r]}
        per_round.append({
            key: float(np.mean([rounds[r][key] for rounds in per_language.values() if key in rounds[r]]))
            for key in keys
        })
    return MeanScores(
        languages=list(per_language), overall=stat([s["overall"] for s in per_round]),
        types=_stats(per_round, "type", TYPES), clusters=_stats(per_round, "cluster", CLUSTERS),
        factors=_stats(per_round, "factor", FACTORS),
    )


def score_items(
    items: Sequence[Item], methods: Counter[str] | None = None, failed: int = 0,
    languages: Sequence[str] | None = None,
) -> M3GIAResult:
    """Scores of scored items; `languages` fixes the report order (default: order of first appearance)."""
    import pandas as pd

    notes: list[str] = []
    frame = pd.DataFrame(
        [(i.language, i.question_id, i.question_type, list(i.factors), i.round, int(i.correct))
         for i in items],
        columns=["language", "question_id", "question_type", "factors", "round", "correct"],
    )
    unknown = sorted(set(frame["question_type"]) - set(TYPES))
    if unknown:
        raise UserError(f"unknown M3GIA question types: {', '.join(unknown)}", field="question_type")
    frame["cluster"] = frame["question_type"].map(_CLUSTER_OF)
    present = set(frame["language"])
    order = [lang for lang in (languages or list(dict.fromkeys(frame["language"]))) if lang in present]
    per_language: dict[str, LanguageScores] = {}
    rounds_of: dict[str, list[dict[str, float]]] = {}
    for language in order:
        per_language[language], rounds_of[language] = _language_scores(
            language, frame[frame["language"] == language])
        if per_language[language].gia_note:
            notes.append(f"{language}: {per_language[language].gia_note}")
    if failed:
        notes.append(f"{failed} failed requests are not scored")
    n_rounds = max((s.rounds for s in per_language.values()), default=0)
    return M3GIAResult(
        languages=order, rounds=n_rounds, per_language=per_language,
        mean=_mean_over_languages(rounds_of) if rounds_of else None,
        methods=dict(sorted((methods or Counter()).items())), failed=failed, notes=notes,
    )


def score_m3gia(records: Sequence[SampleRecord], languages: Sequence[str] | None = None) -> M3GIAResult:
    items, methods, failed = items_from_records(records)
    return score_items(items, methods, failed, languages)
