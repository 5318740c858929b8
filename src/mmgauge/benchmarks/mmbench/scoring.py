"""MMBench scores with CircularEval: pure, column-wise functions over per-copy outcomes.

A question group (all circular copies of one question, keyed by g_index) is right only when every copy's
extracted letter equals that copy's answer and no copy is missing. Accuracy is the share of right groups:
overall, by L2 ability (abbreviated CP, FP-S, FP-C, AR, RR, LR), by L3 category and by split. Vanilla accuracy
uses the first copy (k = 0) of each group only. Unresolved answers and answers carrying the failure marker
(predictions files from other tools) count wrong, and the result says how many there were, so a judge-less
run never hides what exact matching could not read. A group with a request that failed in this toolkit's
own run is not scored at all (`pending_groups`): the next run retries it.

Every accuracy (circular, vanilla, per L2 ability, category and split) gets a Clopper-Pearson interval over
its question groups (docs/statistics.md): exact, and never a point at 0% or 100%.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from mmgauge.benchmarks.mmbench.scoring_columns import Coded, LabelColumn, group_codes, lowest_copy_rows
from mmgauge.stats.proportion import Interval, proportion_interval

L2_ABBREVIATIONS: Final[dict[str, str]] = {
    "coarse_perception": "CP",
    "finegrained_perception (instance-level)": "FP-S",
    "finegrained_perception (cross-instance)": "FP-C",
    "attribute_reasoning": "AR",
    "relation_reasoning": "RR",
    "logic_reasoning": "LR",
}
UNRESOLVED: Final = "unresolved"
FAILURE: Final = "failure"
BOOTSTRAP_RESAMPLES: Final = 2000
#: What to do about a test split now (the evaluation server was retired on 2026-03-31; see
#: github.com/open-compass/MMBench/issues/61 and /62).
TEST_ANSWERS: Final = (
    "the MMBench evaluation server was retired on 2026-03-31 and the test answers are released "
    "(open-compass/MMBench issue 61): run or score against VLMEvalKit's MMBench_TEST_EN_V11 / "
    "MMBench_TEST_CN_V11 TSVs, which carry the answer column"
)
#: The label columns that give a breakdown, and the name of that breakdown.
BREAKDOWNS: Final[dict[str, str]] = {"l2-category": "L2", "category": "category", "split": "split"}


class MMBenchResult(BaseModel):
    """Accuracies are in [0, 1]; the `_pct` twins are the same numbers in percent, rounded to 2 decimals.

    Intervals are in [0, 1] too. `overall_ci95` / `vanilla_ci95` are the ends of `overall_ci` / `vanilla_ci`
    (since the statistics rework: Clopper-Pearson, no longer a percentile bootstrap).
    """

    # Built on first validation or dump: `score mmbench` reads the fields and never pays for the schema.
    model_config = ConfigDict(defer_build=True)

    overall: float | None = None
    overall_pct: float | None = None
    overall_ci95: tuple[float, float] | None = None
    overall_ci: Interval | None = None
    vanilla: float | None = None
    vanilla_pct: float | None = None
    vanilla_ci95: tuple[float, float] | None = None
    vanilla_ci: Interval | None = None
    #: Clopper-Pearson intervals per L2 ability, category and split (n = question groups with that label).
    l2_ci: dict[str, Interval] = Field(default_factory=dict)
    category_ci: dict[str, Interval] = Field(default_factory=dict)
    split_ci: dict[str, Interval] = Field(default_factory=dict)
    l2: dict[str, float] = Field(default_factory=dict)
    l2_pct: dict[str, float] = Field(default_factory=dict)
    category: dict[str, float] = Field(default_factory=dict)
    category_pct: dict[str, float] = Field(default_factory=dict)
    split: dict[str, float] = Field(default_factory=dict)
    split_pct: dict[str, float] = Field(default_factory=dict)
    groups: dict[str, int] = Field(default_factory=dict)
    extraction: dict[str, int] = Field(default_factory=dict)
    rows: int = 0
    n_groups: int = 0
    #: Answers no rule (and no judge) could read; each counts wrong.
    unresolved: int = 0
    #: Of `unresolved`: answers never sent to the judge, because their group was already wrong (CircularEval).
    unresolved_unjudged: int = 0
    #: Groups whose first copy counts wrong in vanilla only because it was never sent to the judge.
    vanilla_unjudged: int = 0
    #: Wrong groups in which no copy was read as wrong: only unresolved answers made them wrong.
    unresolved_groups: int = 0
    judged: bool = False
    #: Failed requests (failure marker or backend error); each counts wrong.
    failed: int = 0
    #: Groups with copies missing from the records; each counts wrong.
    incomplete_groups: int = 0
    #: Groups without an answer key (test split): not scored here.
    unanswered_groups: int = 0
    #: Groups with a failed request in this run: left out of every accuracy until a re-run retries them.
    pending_groups: int = 0
    circular: bool = True
    #: Per label column (category, l2-category, split): scored groups without a label, left out of that view.
    unlabelled: dict[str, int] = Field(default_factory=dict)
    #: Predictions files: questions with an option whose whole text pandas reads as missing ("None", "NA",
    # ...).
    na_text_questions: int = 0
    #: A few of their question groups (g_index), for the note.
    na_text_examples: list[int] = Field(default_factory=list)
    #: Whether those options were left out, as VLMEvalKit reads the file (else kept as text).
    na_text_dropped: bool = False
    #: Predictions files: groups holding fewer circular copies than options, judged on the copies present.
    short_groups: int = 0

    def headline(self) -> list[str]:
        lines: list[str] = []
        if self.overall is None:
            # Nothing scored: say why, from what the groups were (a test split, failed requests, or none).
            if self.unanswered_groups:
                lines.append(f"no answer key for {self.unanswered_groups} question groups (test split); "
                             f"{TEST_ANSWERS}")
            if self.pending_groups:
                lines.append(f"no question group scored: the {self.pending_groups} with an answer key all "
                             "have failed requests (scored once their requests succeed)")
            if not lines:
                lines.append("no question group to score")
            return lines
        if self.unanswered_groups:
            lines.append(f"{self.unanswered_groups} question groups have no answer key (test split) and are "
                         f"not scored here; {TEST_ANSWERS}")
        if self.unresolved:
            lines.extend(self._unresolved_lines())
        if self.pending_groups:
            # Whether a re-run can help depends on the errors, which the run's failure lines say.
            lines.append(f"{self.pending_groups} question groups have failed requests and are not scored yet "
                         "(partial result): they are scored once their requests succeed")
        if self.failed:
            lines.append(f"{self.failed} answers carry the failure marker and count wrong")
        if self.incomplete_groups:
            lines.append(f"{self.incomplete_groups} question groups miss copies and count wrong")
        if not self.circular:
            lines.append("the file holds one copy per question: circular accuracy equals vanilla")
        if self.na_text_questions:
            lines.append(self._na_text_line())
        if self.short_groups:
            lines.append(f"{self.short_groups} question groups hold fewer circular copies than options; each "
                         "is judged on the copies present, as VLMEvalKit does")
        for column, count in self.unlabelled.items():
            view = BREAKDOWNS[column]
            if count >= self.n_groups:
                lines.append(f"no {column} labels in the file: no breakdown by {view}")
            else:
                lines.append(f"{count} of {self.n_groups} question groups have no {column} label and are "
                             f"left out of the breakdown by {view}")
        return lines

    def _na_text_line(self) -> str:
        examples = ", ".join(str(g) for g in self.na_text_examples)
        what = (f"{self.na_text_questions} questions have an option whose text pandas reads as missing "
                f"(None, NA, null, ...; e.g. index {examples})")
        if self.na_text_dropped:
            return f"{what}: left out, as VLMEvalKit reads the file; --literal-options keeps them as text"
        return f"{what}: kept as text (--literal-options); VLMEvalKit leaves them out"

    def _unresolved_lines(self) -> list[str]:
        decided = f"they decided {self.unresolved_groups} of {self.n_groups} question groups"
        if not self.judged:
            return [f"{self.unresolved} answers left unresolved with no judge (exact matching), counted "
                    f"wrong; {decided}"]
        lines: list[str] = []
        asked = self.unresolved - self.unresolved_unjudged
        if asked:
            lines.append(f"{asked} answers left unresolved after the judge, counted wrong; {decided}")
        if self.unresolved_unjudged:
            lines.append(f"{self.unresolved_unjudged} unresolved answers were not sent to the judge because "
                         "another copy had already made their question group wrong; they count wrong")
        if self.vanilla_unjudged:
            lines.append(f"vanilla counts {self.vanilla_unjudged} first copies wrong that were never sent to "
                         "the judge (their group was already wrong): vanilla may be that many questions low")
        return lines


def _pct(values: dict[str, float]) -> dict[str, float]:
    return {key: round(100 * value, 2) for key, value in values.items()}


@dataclass(frozen=True)
class _Labels:
    """One label per question group, as the sorted distinct labels and each group's number among them."""

    names: list[str]
    codes: npt.NDArray[np.int64]

    @classmethod
    def of(cls, labels: npt.NDArray[np.object_], rename: Callable[[str], str] = str) -> _Labels:
        """`np.unique` of the (renamed) labels as text, with a dictionary instead of sorting every group."""
        coded = Coded.of(labels)
        return cls.from_codes(coded.codes, coded.names, rename)

    @classmethod
    def read(cls, column: npt.NDArray[np.object_] | LabelColumn, rows: npt.NDArray[np.int64],
             rename: Callable[[str], str] = str) -> _Labels:
        """`of` the labels of `rows`, from an array or from a column that reads only those rows."""
        if isinstance(column, np.ndarray):
            return cls.of(column[rows], rename)
        codes, values = column.at(rows)
        return cls.from_codes(codes, values, rename)

    @classmethod
    def from_codes(cls, codes: npt.NDArray[np.int64], values: Sequence[str],
                   rename: Callable[[str], str] = str) -> _Labels:
        """The labels `values[codes]`, renamed; values no row uses are left out of `names`."""
        used = np.flatnonzero(np.bincount(codes, minlength=len(values))).tolist()
        renamed = [rename(str(values[code])) for code in used]
        names = sorted(set(renamed))
        number = {name: i for i, name in enumerate(names)}
        to_sorted = np.zeros(len(values), dtype=np.int64)
        to_sorted[used] = [number[name] for name in renamed]
        return cls(names, to_sorted[codes])

    def unlabelled(self) -> int:
        return int(np.count_nonzero(self.codes == self.names.index(""))) if "" in self.names else 0


def _int_texts(numbers: list[int]) -> list[str]:
    """`[str(n) for n in numbers]`, cut from the list's own text (a third faster at 250,000 groups)."""
    return str(numbers)[1:-1].split(", ") if numbers else []


def _by_label(right: npt.NDArray[np.float64], labels: _Labels) -> dict[str, float]:
    """Mean of `right` per label, labels sorted; groups without a label ("") are left out of this view."""
    sums = np.bincount(labels.codes, weights=right, minlength=len(labels.names))
    sizes = np.bincount(labels.codes, minlength=len(labels.names))
    means = zip(labels.names, (sums / np.maximum(sizes, 1)).tolist(), strict=True)
    return {name: float(mean) for name, mean in means if name}


def _ci_by_label(right: npt.NDArray[np.float64], labels: _Labels) -> dict[str, Interval]:
    """Clopper-Pearson interval of the share of right groups per label (unlabelled groups left out)."""
    sums = np.bincount(labels.codes, weights=right, minlength=len(labels.names))
    sizes = np.bincount(labels.codes, minlength=len(labels.names))
    return {name: proportion_interval(int(k), int(n), unit="question groups")
            for name, k, n in zip(labels.names, sums.tolist(), sizes.tolist(), strict=True) if name}


def _count_in(codes: npt.NDArray[np.int64], rows: npt.NDArray[np.bool_], groups: int,
              ) -> npt.NDArray[np.int64]:
    """How many of the rows `rows` marks each group holds (row r is in group `codes[r]`)."""
    counts: npt.NDArray[np.int64] = np.bincount(codes[np.asarray(rows, dtype=bool)], minlength=groups)
    return counts


def bootstrap_ci(right: int, total: int, seed: int,
                 resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """95% percentile bootstrap interval of a share of right groups.

    No longer used by the scorer (it collapses to a point at 0% and 100%; the scorer uses Clopper-Pearson);
    kept for callers of this function.

    Resampling n outcomes that are 0 or 1 with replacement gives a Binomial(n, right / n) count of ones, so
    resamples are drawn from that binomial directly: the same distribution, without an n x resamples matrix.
    """
    rng = np.random.default_rng(seed)
    means = rng.binomial(total, right / total, size=resamples) / total
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


@dataclass(frozen=True)
class CircularGroups:
    """What CircularEval needs of the rows that the data alone decides, not the answers: which rows are
    scored, their question groups, each group's size and lowest copy, whether it is complete, and its labels.
    Made once (`circular_groups`), it scores any answers of those rows (`score_groups`): each answer set of
    a baseline, or a large file's answers while its rules are still reading them."""

    rows: int
    circular: bool
    unanswered_groups: int
    pending_groups: int
    #: The rows scored; None when every row is.
    keep: npt.NDArray[np.bool_] | None
    #: Each scored row's group number, and per group: its rows, its lowest copy's row (among the scored
    #: rows), whether that copy is copy 0, and whether every copy is there.
    codes: npt.NDArray[np.int64]
    size: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]
    first_is_copy_0: npt.NDArray[np.bool_]
    complete: npt.NDArray[np.bool_]
    labels: dict[str, _Labels]
    #: Each group's key as text (`MMBenchResult.groups`).
    keys: list[str]

    @property
    def total(self) -> int:
        return len(self.size)


def circular_groups(
    *,
    group: npt.NDArray[np.int64],
    copy: npt.NDArray[np.int64],
    n_copies: npt.NDArray[np.int64],
    has_answer: npt.NDArray[np.bool_],
    category: npt.NDArray[np.object_] | LabelColumn,
    l2: npt.NDArray[np.object_] | LabelColumn,
    split: npt.NDArray[np.object_] | LabelColumn,
    request_failed: npt.NDArray[np.bool_] | None = None,
) -> CircularGroups:
    """The groups of one row per copy (see `score_columns`), for `score_groups`."""
    uniques_all, codes_all, _ = group_codes(group)
    # Counts of the rows a mask picks, as `np.bincount(codes, weights=mask)` gives them but without a float
    # copy of each mask (fresh memory is most of what these cost at a million rows).
    unanswered = _count_in(codes_all, ~has_answer, len(uniques_all)) > 0
    pending = np.zeros_like(unanswered)
    if request_failed is not None:
        failed_in_group = _count_in(codes_all, request_failed, len(unanswered))
        pending = (failed_in_group > 0) & ~unanswered
    keep = has_answer & ~unanswered[codes_all] & ~pending[codes_all]
    circular = bool((copy > 0).any())  # of every row, scored or not
    kept = np.flatnonzero(keep)
    if len(kept) == len(keep):  # the common case: the groups found above are the scored ones
        uniques, codes, selected = uniques_all, codes_all, None
    else:
        group, copy, n_copies, selected = group[keep], copy[keep], n_copies[keep], keep
        uniques, codes, _ = group_codes(group)
    total = len(uniques)
    size = np.bincount(codes, minlength=total)
    first = lowest_copy_rows(codes, copy, total)
    label_rows = kept[first]  # the rows of the files' columns
    labels = {"l2-category": _Labels.read(l2, label_rows, lambda name: L2_ABBREVIATIONS.get(name, name)),
              "category": _Labels.read(category, label_rows), "split": _Labels.read(split, label_rows)}
    keys = _int_texts(uniques.tolist()) if uniques.dtype.kind in "iu" else uniques.astype(str).tolist()
    return CircularGroups(
        rows=len(keep), circular=circular, unanswered_groups=int(unanswered.sum()),
        pending_groups=int(pending.sum()), keep=selected, codes=codes, size=size, first=first,
        first_is_copy_0=copy[first] == 0, complete=size >= n_copies[first], labels=labels, keys=keys)


def score_columns(
    *,
    group: npt.NDArray[np.int64],
    copy: npt.NDArray[np.int64],
    n_copies: npt.NDArray[np.int64],
    correct: npt.NDArray[np.bool_],
    method: Sequence[str] | npt.NDArray[np.object_] | Coded,
    has_answer: npt.NDArray[np.bool_],
    category: npt.NDArray[np.object_] | LabelColumn,
    l2: npt.NDArray[np.object_] | LabelColumn,
    split: npt.NDArray[np.object_] | LabelColumn,
    judged: bool = False,
    seed: int = 0,
    request_failed: npt.NDArray[np.bool_] | None = None,
    not_judged: npt.NDArray[np.bool_] | None = None,
) -> MMBenchResult:
    """Score one row per copy. `correct` is True only for a copy whose extracted letter equals its answer.

    `request_failed` marks copies whose request failed in this toolkit's run: their groups are not scored.
    `not_judged` marks unresolved copies the judge was never asked about (their group was already wrong).
    `seed` no longer changes anything here (the intervals are exact); it stays for existing callers.
    Large inputs may give the methods as codes (`Coded`) and the labels as columns read only for the rows
    that need them (`LabelColumn`).
    """
    groups = circular_groups(group=group, copy=copy, n_copies=n_copies, has_answer=has_answer,
                             category=category, l2=l2, split=split, request_failed=request_failed)
    return score_groups(groups, correct=correct, method=method, judged=judged, not_judged=not_judged)


def score_groups(
    groups: CircularGroups,
    *,
    correct: npt.NDArray[np.bool_],
    method: Sequence[str] | npt.NDArray[np.object_] | Coded,
    judged: bool = False,
    not_judged: npt.NDArray[np.bool_] | None = None,
) -> MMBenchResult:
    """`score_columns` of the rows `groups` was made of, answered as `correct` and `method` say."""
    methods = method if isinstance(method, Coded) else Coded.of(method)
    # Every value has its field's exact type: construction without validation gives the same model.
    result = MMBenchResult.model_construct(
        rows=groups.rows, extraction=methods.most_common(), judged=bool(judged),
        unanswered_groups=groups.unanswered_groups, pending_groups=groups.pending_groups,
        circular=groups.circular)
    if not groups.total:
        return result

    skipped = np.zeros(groups.rows, dtype=bool) if not_judged is None else not_judged
    if groups.keep is not None:
        correct, methods, skipped = correct[groups.keep], methods.select(groups.keep), skipped[groups.keep]
    codes, total, first = groups.codes, groups.total, groups.first
    right_copies = _count_in(codes, correct, total)
    right = (right_copies == groups.size) & groups.complete
    right_f = right.astype(np.float64)

    unresolved = methods.equals(UNRESOLVED)
    failed = methods.equals(FAILURE)
    decided_wrong = ~correct & ~unresolved
    has_decided_wrong = _count_in(codes, decided_wrong, total) > 0
    has_unresolved = _count_in(codes, unresolved, total) > 0
    vanilla = np.where(groups.first_is_copy_0, correct[first], False)

    overall = float(right_f.mean())
    result.overall = overall
    result.overall_pct = round(100 * overall, 2)
    result.overall_ci = proportion_interval(int(right.sum()), total, unit="question groups")
    result.overall_ci95 = result.overall_ci.bounds()
    result.vanilla = float(vanilla.mean())
    result.vanilla_pct = round(100 * result.vanilla, 2)
    result.vanilla_ci = proportion_interval(int(vanilla.sum()), total, unit="question groups")
    result.vanilla_ci95 = result.vanilla_ci.bounds()
    labels = groups.labels
    result.l2 = _by_label(right_f, labels["l2-category"])
    result.category = _by_label(right_f, labels["category"])
    result.split = _by_label(right_f, labels["split"])
    result.l2_ci = _ci_by_label(right_f, labels["l2-category"])
    result.category_ci = _ci_by_label(right_f, labels["category"])
    result.split_ci = _ci_by_label(right_f, labels["split"])
    result.unlabelled = {column: count for column, values in labels.items() if (count := values.unlabelled())}
    result.l2_pct, result.category_pct, result.split_pct = _pct(result.l2), _pct(result.category), _pct(
        result.split)
    result.groups = dict(zip(groups.keys, right.astype(int).tolist(), strict=True))
    result.n_groups = total
    result.unresolved = int(unresolved.sum())
    result.unresolved_unjudged = int((unresolved & skipped).sum())
    result.vanilla_unjudged = int((groups.first_is_copy_0 & unresolved[first] & skipped[first]).sum())
    result.unresolved_groups = int((has_unresolved & ~has_decided_wrong & groups.complete).sum())
    result.failed = int(failed.sum())
    result.incomplete_groups = int((~groups.complete).sum())
    return result
