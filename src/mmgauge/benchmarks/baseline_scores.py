"""Score a benchmark's baselines through its own `score`, so their numbers mean what the model's numbers mean.

Each baseline answers every record (a baseline never fails a request); those answers go into copies of the
records, and the benchmark scores them as it scores a model. A fixed answerer is one such answer set.

Chance is an expectation, computed exactly, without random draws. Answers are drawn independently per record,
but the numbers combine records in *units* (MME's two questions of an image, MMBench's circular copies of a
question; `Benchmark.baseline_unit`), so each unit's joint outcomes are listed with their probabilities. A
number that is an average over units (accuracy, acc+, the MME score, CircularEval accuracy, per category
too) has as expectation the average of its unit values under each unit's own distribution, which needs only
each unit's distribution to be right, not the joint one across units. So units are coupled on one line:
every unit lays its outcomes on [0, 1) by probability, and between consecutive ends of any unit's outcomes
lies one answer set for the whole benchmark, weighted by that gap. Averaging the scores of these few answer
sets (a handful for MME and MMBench) gives each such number's expectation exactly. Numbers that are not such
averages (F1) are left out of chance (`Numbers.nonlinear`).
"""

from __future__ import annotations

import bisect
import itertools
import logging
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Final

import numpy as np

from mmgauge.benchmarks.baseline_answers import Baseline, Distribution
from mmgauge.core.baselines import BaselineScores, Numbers
from mmgauge.core.types import Extraction, ModelResponse, SampleRecord

if TYPE_CHECKING:
    from mmgauge.benchmarks.base import AnyBenchmark

#: The extraction method of a baseline's answers.
METHOD: Final = "baseline"
#: Joint outcomes one unit may have before chance is not computed (a unit of 4 copies has 16).
MAX_OUTCOMES: Final = 4096

_log = logging.getLogger(__name__)


def score_baselines(bench: AnyBenchmark, records: Sequence[SampleRecord]) -> dict[str, BaselineScores]:
    """name -> numbers of every baseline `bench` declares over `records` (none without records)."""
    if not records:
        return {}
    laid: list[tuple[Baseline, list[tuple[Fraction, list[str]]]]] = []
    for baseline in bench.baselines(records):
        sets = answer_sets(bench, records, baseline)
        if sets is None:
            _log.info("%s: baseline %s not computed (a unit has too many outcomes)", bench.name,
                      baseline.name)
        else:
            laid.append((baseline, sets))
    # Every baseline's answer sets in one call, so that a benchmark reads its columns once for all of them.
    scored = iter(bench.baseline_numbers(records, [answers for _, sets in laid for _, answers in sets]))
    found: dict[str, BaselineScores] = {}
    for baseline, sets in laid:
        numbers = average([(weight, next(scored)) for weight, _ in sets])
        if baseline.expected:
            numbers = _without_nonlinear(numbers)
        found[baseline.name] = BaselineScores(description=baseline.description, expected=baseline.expected,
                                              **numbers.model_dump())
    return found


def answer_sets(
    bench: AnyBenchmark, records: Sequence[SampleRecord], baseline: Baseline
) -> list[tuple[Fraction, list[str]]] | None:
    """(weight, an answer per record) whose weighted scores average to the expectation (see the module)."""
    given = [baseline.answers(record) for record in records]
    if all(len(distribution) == 1 for distribution in given):
        # A fixed answerer (always "A"): its one answer set, with no units to lay out.
        return [(Fraction(1), [distribution[0][0] for distribution in given])]
    units: dict[Hashable, list[int]] = {}
    for i, record in enumerate(records):
        units.setdefault(bench.baseline_unit(record), []).append(i)
    # Units share their distributions (every MMBench question of four options, say): each distinct one is laid
    # out once, and each cut finds its outcome in it once (exact fractions are slow to multiply and compare).
    layouts: dict[tuple[tuple[tuple[str, int, int], ...], ...], int] = {}
    laid: list[tuple[list[tuple[str, ...]], list[Fraction]]] = []
    # Each record reads its answer at one position of one layout's outcomes: one column per such place.
    columns: dict[tuple[int, int], int] = {}
    column_of = [0] * len(records)
    ends: set[Fraction] = set()
    for members in units.values():
        distributions = [given[i] for i in members]
        # Keyed by the fractions' integers: a Fraction hashes in Python (a modular inverse), an int in C.
        key = tuple(tuple((answer, p.numerator, p.denominator) for answer, p in distribution)
                    for distribution in distributions)
        layout = layouts.get(key)
        if layout is None:
            outcomes = _joint([list(distribution) for distribution in distributions])
            if outcomes is None:
                return None
            cumulative = list(itertools.accumulate(p for _, p in outcomes))
            layout = layouts[key] = len(laid)
            laid.append(([answer for answer, _ in outcomes], cumulative))
            ends.update(cumulative[:-1])
        for position, i in enumerate(members):
            column_of[i] = columns.setdefault((layout, position), len(columns))
    records_columns = np.array(column_of, dtype=np.int64)
    cuts = [Fraction(0), *sorted(ends), Fraction(1)]
    sets: list[tuple[Fraction, list[str]]] = []
    for low, high in itertools.pairwise(cuts):
        middle = (low + high) / 2
        outcome_of = [answers[bisect.bisect_right(cumulative, middle)] for answers, cumulative in laid]
        answer_of = np.empty(len(columns), dtype=object)
        for (layout, position), column in columns.items():
            answer_of[column] = outcome_of[layout][position]
        sets.append((high - low, answer_of[records_columns].tolist()))
    return sets


def _joint(distributions: list[Distribution]) -> list[tuple[tuple[str, ...], Fraction]] | None:
    size = 1
    for distribution in distributions:
        size *= len(distribution)
    if size > MAX_OUTCOMES:
        return None
    joint: list[tuple[tuple[str, ...], Fraction]] = []
    for combination in itertools.product(*distributions):
        probability = Fraction(1)
        for _, p in combination:
            probability *= p
        if probability:
            joint.append((tuple(answer for answer, _ in combination), probability))
    return joint


class AnsweredRecords:
    """Copies of the records answered by a baseline, made once per record and answer (the response is the
    answer itself, extracted by the method `METHOD`)."""

    def __init__(self, records: Sequence[SampleRecord]) -> None:
        self.records = records
        self.made: dict[tuple[int, str], SampleRecord] = {}
        #: The response and extraction of each answer, shared by the records given it (never modified).
        self.parts: dict[str, tuple[ModelResponse, Extraction]] = {}

    def answered(self, answers: Sequence[str]) -> list[SampleRecord]:
        return [self._one(i, answer) for i, answer in enumerate(answers)]

    def _one(self, i: int, answer: str) -> SampleRecord:
        known = self.made.get((i, answer))
        if known is None:
            record = self.records[i]
            target = str(record.target or "")
            parts = self.parts.get(answer)
            if parts is None:
                parts = (ModelResponse(text=answer), Extraction(answer=answer, method=METHOD))
                self.parts[answer] = parts
            known = self.made[(i, answer)] = record.model_copy(update={
                "response": parts[0],
                "extraction": parts[1],
                "correct": bool(target) and answer.lower() == target.lower(),
            })
        return known


def average(scored: Sequence[tuple[Fraction, Numbers]]) -> Numbers:
    """The weighted mean of each number every answer set has (one missing somewhere is left out)."""
    first = scored[0][1]
    total = sum((weight for weight, _ in scored), Fraction(0))
    headline = {label: _mean([(w, n.headline.get(label)) for w, n in scored], total)
                for label in first.headline}
    breakdowns = {
        name: {key: _mean([(w, n.breakdowns.get(name, {}).get(key)) for w, n in scored], total)
               for key in values}
        for name, values in first.breakdowns.items()
    }
    return Numbers(
        headline={k: v for k, v in headline.items() if v is not None},
        units=dict(first.units),
        breakdowns={name: {k: v for k, v in values.items() if v is not None}
                    for name, values in breakdowns.items()},
        nonlinear=list(first.nonlinear),
    )


def _mean(values: list[tuple[Fraction, float | None]], total: Fraction) -> float | None:
    if any(value is None for _, value in values):
        return None
    return float(sum((float(w) * float(v) for w, v in values if v is not None), 0.0) / float(total))


def _without_nonlinear(numbers: Numbers) -> Numbers:
    drop = set(numbers.nonlinear)
    return numbers.model_copy(update={
        "headline": {k: v for k, v in numbers.headline.items() if k not in drop},
        "breakdowns": {k: v for k, v in numbers.breakdowns.items() if k not in drop},
    })
