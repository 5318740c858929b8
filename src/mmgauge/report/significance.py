"""The report's answer to "is run A really better than run B?": the paired comparison of `mmgauge compare`
over the report's run folders, and the leaderboard's marks on neighbours that cannot be told apart.

Every text here (labels, breakdown names, notes) goes through `html.escape` or `table_html`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from itertools import pairwise
from typing import Any

from mmgauge.benchmarks.registry import known_class
from mmgauge.comparison.core import Comparison
from mmgauge.comparison.text import number_name, p_text, title_of, verdict, verdict_rule
from mmgauge.parts.metric_rows import MetricRow
from mmgauge.parts.report.section import note
from mmgauge.parts.report.tables import Cell, Mark, Table, table_html
from mmgauge.report.load import RunView, answers_of
from mmgauge.store.run_folder import RunFolder

TIE = "≈"
COLUMNS = ["number", "run A", "run B", "A - B", "CI low", "CI high", "n", "unit", "test", "p", "p (Holm)",
           "MDD", "verdict"]


@dataclass
class Compared:
    """The comparison of the report's run folders; `index[k]` is the report's run number of compared run k."""

    comparison: Comparison | None
    index: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def compare_runs(runs: list[RunView]) -> Compared:
    from mmgauge.comparison.core import compare_sources
    from mmgauge.comparison.sources import run_source

    out = Compared(None)
    sources = []
    for number, run in enumerate(runs):
        rows = [row for bench in run.benchmarks.values() for row in bench.rows]
        if not (run.path.is_dir() and RunFolder(run.path).exists() and rows):
            out.notes.append(f"run {number + 1} has no answers to compare (not a run folder, or no records)")
            continue
        try:
            source = run_source(run.path, run.model, answers_of(rows), run.manifest)
        except (KeyError, ValueError, TypeError) as problem:
            out.notes.append(f"run {number + 1} not compared: its records lack what pairing needs "
                             f"({type(problem).__name__})")
            continue
        source.label = f"run {number + 1}"
        sources.append(source)
        out.index.append(number)
    if len(sources) >= 2:
        out.comparison = compare_sources(sources, strict=False)
    return out


def _row_cells(row: MetricRow) -> list[Cell]:
    return [number_name(row), row.a, row.b, row.difference, row.low, row.high, row.n, row.n_unit,
            "McNemar exact" if row.test == "mcnemar-exact" else "paired bootstrap", row.p_value,
            row.p_final, row.mdd, verdict(row)]


def significance_section(runs: list[RunView], compared: Compared, tables: list[Table]) -> str:
    parts = ['<section id="significance"><h2>Is the difference real?</h2>']
    comparison = compared.comparison
    if comparison is None:
        parts.append(note("Fewer than two run folders with answers: nothing to compare."))
    else:
        settings = comparison.settings
        parts.append(note(
            f"Every pair of runs on the items both answered (as `mmgauge compare`): the difference A - B "
            f"with its {100 * settings.level:g}% interval, exact McNemar for accuracies, a paired bootstrap "
            f"for composite scores, and MDD, the smallest difference these items detect with "
            f"{100 * settings.power:g}% power. {_sentence(verdict_rule(comparison))}."))
        if comparison.holm is not None:
            parts.append(note(f"Multiple comparisons: {comparison.holm}."))
        for pair in comparison.pairs:
            a, b = compared.index[pair.a], compared.index[pair.b]
            name = title_of(pair.benchmark)
            parts.append(f"<h3>Run {a + 1} ({escape(runs[a].label)}) vs run {b + 1} "
                         f"({escape(runs[b].label)}): {escape(name)}, {pair.items} paired "
                         f"{escape(pair.item)}s</h3>")
            columns = [COLUMNS[0], f"run {a + 1}", f"run {b + 1}", f"run {a + 1} - run {b + 1}", *COLUMNS[4:]]
            stem = f"significance_{a + 1}_vs_{b + 1}_{pair.benchmark}"
            head = Table(stem, columns, [_row_cells(r) for r in pair.rows if r.headline], digits=3)
            rest = Table(f"{stem}_breakdowns", columns, [_row_cells(r) for r in pair.rows if not r.headline],
                         digits=3)
            parts.append(table_html(head))
            if rest.rows:
                parts.append(f"<details><summary>By breakdown ({len(rest.rows)} numbers)</summary>"
                             f"{table_html(rest)}</details>")
            parts.extend(note(text) for text in pair.notes)
            tables.extend([head, rest])
        parts.extend(note(text, warn=True) for text in comparison.notes if "not compared" in text)
    parts.extend(note(text, warn=True) for text in compared.notes)
    parts.append("</section>")
    return "".join(parts)


@dataclass
class _Measures:
    """What the compared benchmarks' hooks say of the leaderboard's columns, gathered once per leaderboard."""

    #: Column -> (benchmark, metric, breakdown) of the compared numbers it shows (`significance_measures`).
    paths: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    #: Benchmark -> its `significance_row` hook, where it has one.
    rows: dict[str, Any] = field(default_factory=dict)


def _measures(comparison: Comparison) -> _Measures:
    found = _Measures()
    for benchmark in dict.fromkeys(pair.benchmark for pair in comparison.pairs):
        cls = known_class(benchmark)
        if cls is None:
            continue
        for label, paths in cls.significance_measures:
            found.paths[label] = (*found.paths.get(label, ()), *((benchmark, *path) for path in paths))
        lookup = cls.hook("significance_row")
        if lookup is not None:
            found.rows[benchmark] = lookup
    return found


def _lookup(comparison: Comparison, measure: str, first: int, second: int,
            measures: _Measures) -> MetricRow | None:
    for benchmark, metric, breakdown in measures.paths.get(measure, ()):
        row = comparison.row(benchmark, metric, breakdown, first, second)
        if row is not None:
            return row
    for pair in comparison.pairs:
        lookup = measures.rows.get(pair.benchmark)
        if lookup is None or {pair.a, pair.b} != {first, second}:
            continue
        found: MetricRow | None = lookup(measure, pair.rows)
        if found is not None:
            return found
    return None


def _tie_text(row: MetricRow, higher: int, lower: int, runs: list[RunView]) -> str:
    return (f"not distinguishable from run {higher + 1} ({runs[higher].label}): difference "
            f"{row.difference:+.2f} ({100 * row.level:g}% CI {row.low:+.2f} to {row.high:+.2f}) on {row.n} "
            f"{row.n_unit}, p = {p_text(row.p_value)}"
            + (f", Holm-adjusted {p_text(row.p_final)}" if row.family_size > 1 else ""))


def leaderboard_marks(
    board: Table, runs: list[RunView], compared: Compared, run_of_row: list[int] | None = None
) -> tuple[dict[tuple[int, int], Mark], Table]:
    """'≈' on each run whose number cannot be told apart from its neighbour above (sorted by that number),
    the p-value in its hover text; and every neighbouring pair's test as a table for the exports.

    `run_of_row[i]` is the index in `runs` of the board's row i (default: the same index)."""
    rows_runs = run_of_row if run_of_row is not None else list(range(len(board.rows)))
    marks: dict[tuple[int, int], Mark] = {}
    ties = Table("leaderboard_neighbours", ["measure", "higher run", "lower run", "difference (stored order)",
                                            "CI low", "CI high", "p", "p (Holm)", "distinguishable"])
    comparison = compared.comparison
    if comparison is None:
        return marks, ties
    position = {report: k for k, report in enumerate(compared.index)}
    measures = _measures(comparison)
    for column, measure in enumerate(board.columns):
        values = [(rows_runs[i], row[column]) for i, row in enumerate(board.rows)
                  if isinstance(row[column], int | float) and not isinstance(row[column], bool)
                  and rows_runs[i] in position]
        ordered = sorted(values, key=lambda item: -float(item[1] or 0.0))
        for (higher, _), (lower, _) in pairwise(ordered):
            row = _lookup(comparison, measure, position[higher], position[lower], measures)
            if row is None:
                continue
            ties.rows.append([measure, f"run {higher + 1}", f"run {lower + 1}", row.difference, row.low,
                              row.high, row.p_value, row.p_final, row.significant])
            if not row.significant:
                marks[(rows_runs.index(lower), column)] = (TIE, _tie_text(row, higher, lower, runs))
    return marks, ties


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
