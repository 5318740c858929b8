"""Every pair of runs, per benchmark they share, on the items both answered; Holm's correction over pairs.

Pairing: the same dataset fingerprint where both runs know it (run folders), then the same item keys (MME
`subtask/image/qK`, MMBench `g_index`, M3GIA `language/question_id`) with the same answer key. Anything
else is a one-line error naming the two runs and what differs.

Multiple comparisons: with k > 2 runs each number (benchmark, metric, breakdown) is compared for k(k-1)/2
pairs of runs; Holm's step-down correction is applied over those pairs, number by number. Breakdowns are
not corrected among themselves: a subtask's p-value answers "does this subtask differ?", not "does any?".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
from pydantic import BaseModel, Field

from mmgauge.benchmarks.registry import known_class
from mmgauge.comparison.generic import compare_generic
from mmgauge.comparison.sources import Source
from mmgauge.core.baselines import BaselineScores
from mmgauge.core.errors import UserError
from mmgauge.parts.metric_rows import BY_INTERVAL, BY_INTERVAL_AND_HOLM, CompareSettings, MetricRow
from mmgauge.parts.outcomes import Outcomes
from mmgauge.stats.paired import holm

#: 2: verdicts from the interval (`verdict_from`), floor-widened rows' p-values raised to the floor's.
COMPARISON_SCHEMA_VERSION = 2
Comparer = Callable[[Outcomes, Outcomes, CompareSettings], list[MetricRow]]


class ComparedRun(BaseModel):
    label: str
    path: str
    #: run folder, MME results folder, MME answers table, MMBench predictions, record file.
    kind: str
    model: str | None = None


class PairComparison(BaseModel):
    """Run `a` against run `b` (indices into `Comparison.runs`) on one benchmark."""

    a: int
    b: int
    benchmark: str
    #: Items paired on, what one is, and the items only one of the runs answered (left out).
    items: int
    item: str
    only_a: int
    only_b: int
    rows: list[MetricRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class Comparison(BaseModel):
    schema_version: int = COMPARISON_SCHEMA_VERSION
    runs: list[ComparedRun]
    settings: CompareSettings
    #: Which family Holm's correction runs over (None with two runs: nothing to correct).
    holm: str | None = None
    pairs: list[PairComparison] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: What trivial answerers score, per benchmark compared and baseline: from the first run that has them
    #: (run folders), on that run's questions. Added without a new version: optional.
    baselines: dict[str, dict[str, BaselineScores]] = Field(default_factory=dict)
    #: The run (index into `runs`) each benchmark's baselines come from.
    baselines_from: dict[str, int] = Field(default_factory=dict)

    def row(self, benchmark: str, metric: str, breakdown: str, a: int, b: int) -> MetricRow | None:
        """The comparison of runs a and b on one number, either way round (signs follow the stored order)."""
        for pair in self.pairs:
            if pair.benchmark == benchmark and {pair.a, pair.b} == {a, b}:
                for row in pair.rows:
                    if row.metric == metric and row.breakdown == breakdown:
                        return row
        return None


def _ordered(names: set[str]) -> list[str]:
    """By the benchmarks' `display_order` (not installed: last), then by name."""
    def key(name: str) -> tuple[int, str]:
        cls = known_class(name)
        return (cls.display_order if cls is not None else 1000, name)

    return sorted(names, key=key)


def comparer_for(benchmark: str) -> Comparer:
    """The benchmark's own comparison (its `comparer` hook), else the generic one."""
    cls = known_class(benchmark)
    found: Comparer | None = cls.hook("comparer") if cls is not None else None
    return found if found is not None else compare_generic


def pair_outcomes(a: Source, b: Source, benchmark: str) -> tuple[Outcomes, Outcomes, int, int]:
    """Both runs' outcomes on the items both answered, in A's order; and how many only A / only B has."""
    first, second = a.fingerprints.get(benchmark), b.fingerprints.get(benchmark)
    if first and second and first != second:
        raise UserError(
            f"{a.label} and {b.label} ran {benchmark} on different data (dataset fingerprint {first[:12]} vs "
            f"{second[:12]}: {a.data.get(benchmark, '?')} vs {b.data.get(benchmark, '?')})")
    oa, ob = a.outcomes[benchmark], b.outcomes[benchmark]
    where = {str(key): i for i, key in enumerate(ob.keys.tolist())}
    ia = [i for i, key in enumerate(oa.keys.tolist()) if str(key) in where]
    if not ia:
        empty = [source.label for source, found in ((a, oa), (b, ob)) if not len(found)]
        if empty:
            # Nothing to pair because a run answered nothing (every request failed, say): no data mismatch.
            raise UserError(f"{' and '.join(empty)} {'has' if len(empty) == 1 else 'have'} no answered "
                            f"{benchmark} {oa.item}s to compare")
        example_a, example_b = str(oa.keys[0]), str(ob.keys[0])
        raise UserError(
            f"{a.label} and {b.label} share no answered {benchmark} {oa.item}s (different data? e.g. "
            f"'{example_a}' vs '{example_b}')")
    ib = [where[str(oa.keys[i])] for i in ia]
    pa, pb = oa.take(np.array(ia, dtype=np.int64)), ob.take(np.array(ib, dtype=np.int64))
    differ = np.flatnonzero(pa.truth.astype(str) != pb.truth.astype(str))
    if len(differ):
        i = int(differ[0])
        raise UserError(
            f"{a.label} and {b.label} have different answer keys for {benchmark} ({len(differ)} {oa.item}s, "
            f"e.g. {pa.keys[i]}: {pa.truth[i]!r} vs {pb.truth[i]!r}): not the same data")
    return pa, pb, len(oa) - len(ia), len(ob) - len(ia)


def _compare_pair(i: int, j: int, a: Source, b: Source, benchmark: str,
                  settings: CompareSettings) -> PairComparison:
    pa, pb, only_a, only_b = pair_outcomes(a, b, benchmark)
    cls = known_class(benchmark)
    left_out = cls.hook("comparison_notes") if cls is not None else None
    notes: list[str] = list(left_out(pa, pb)) if left_out is not None else []
    comparer = comparer_for(benchmark)
    rows = comparer(pa, pb, settings)
    if only_a or only_b:
        notes.append(f"{benchmark}: paired on {len(pa)} {pa.item}s; {only_a} answered only by {a.label}, "
                     f"{only_b} only by {b.label} (left out)")
    return PairComparison(a=i, b=j, benchmark=benchmark, items=len(pa), item=pa.item, only_a=only_a,
                          only_b=only_b, rows=rows, notes=notes)


def _apply_holm(pairs: list[PairComparison], alpha: float, runs: int) -> None:
    """Holm-adjusted p-values; with more than two runs a verdict also needs Holm's rejection, since the
    intervals printed are each pair's own (not corrected). With two runs the interval alone decides."""
    families: dict[tuple[str, str, str], list[MetricRow]] = {}
    for pair in pairs:
        for row in pair.rows:
            families.setdefault((row.benchmark, row.metric, row.breakdown), []).append(row)
    for rows in families.values():
        adjusted = holm([row.p_value for row in rows], alpha)
        for row, p in zip(rows, adjusted.adjusted, strict=True):
            row.p_adjusted = p
            row.family_size = len(rows)
            row.significant = row.excludes_zero and (runs <= 2 or p <= alpha)
            row.verdict_from = BY_INTERVAL if runs <= 2 else BY_INTERVAL_AND_HOLM


def compare_sources(
    sources: Sequence[Source], settings: CompareSettings | None = None, *, strict: bool = True
) -> Comparison:
    """Every pair of `sources` on each benchmark they share. `strict=False` (the report) notes a pair that
    cannot be compared (different data, nothing shared) and goes on, instead of stopping with the error."""
    settings = settings or CompareSettings()
    if len(sources) < 2:
        raise UserError("compare needs at least two runs or answer files")
    _unique_labels(sources)
    runs = [ComparedRun(label=s.label, path=str(s.path), kind=s.kind, model=s.model) for s in sources]
    pairs: list[PairComparison] = []
    skipped: list[str] = []
    for i, j in combinations(range(len(sources)), 2):
        a, b = sources[i], sources[j]
        shared = set(a.outcomes) & set(b.outcomes)
        if not shared:
            problem = UserError(f"{a.label} ({', '.join(sorted(a.outcomes)) or 'nothing'}) and {b.label} "
                                f"({', '.join(sorted(b.outcomes)) or 'nothing'}) have no benchmark in common")
            if strict:
                raise problem
            skipped.append(f"{a.label} vs {b.label}: not compared: {problem.message}")
        for benchmark in _ordered(shared):
            try:
                pairs.append(_compare_pair(i, j, a, b, benchmark, settings))
            except UserError as problem:
                if strict:
                    raise
                skipped.append(f"{a.label} vs {b.label}, {benchmark}: not compared: {problem.message}")
    _apply_holm(pairs, settings.alpha, len(sources))
    family = None
    if len(sources) > 2:
        sizes = sorted({row.family_size for pair in pairs for row in pair.rows})
        counted = "-".join(str(n) for n in sizes[:: max(len(sizes) - 1, 1)]) if sizes else "0"
        family = (f"Holm over the pairs of runs compared on each number ({counted} of "
                  f"{len(sources) * (len(sources) - 1) // 2} pairs), separately for each number (benchmark, "
                  "metric, breakdown); breakdowns are not corrected among themselves")
    notes = [note for source in sources for note in source.notes] + skipped
    compared = {pair.benchmark for pair in pairs}
    baselines: dict[str, dict[str, BaselineScores]] = {}
    baselines_from: dict[str, int] = {}
    for number, source in enumerate(sources):
        for benchmark, found in source.baselines.items():
            if benchmark in compared and benchmark not in baselines:
                baselines[benchmark], baselines_from[benchmark] = found, number
    return Comparison(runs=runs, settings=settings, holm=family, pairs=pairs, notes=notes,
                      baselines=baselines, baselines_from=baselines_from)


def _unique_labels(sources: Sequence[Source]) -> None:
    seen: dict[str, int] = {}
    for source in sources:
        seen[source.label] = seen.get(source.label, 0) + 1
    for number, source in enumerate(sources, start=1):
        if seen[source.label] > 1:
            source.label = f"{source.label} #{number}"
