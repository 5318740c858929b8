"""The terminal view of a `Comparison`: one table per pair of runs and benchmark."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mmgauge.benchmarks.registry import known_class
from mmgauge.comparison.core import Comparison, PairComparison
from mmgauge.core.baselines import baseline_labels, baselines_text
from mmgauge.parts.metric_rows import MCNEMAR, MetricRow


def title_of(benchmark: str) -> str:
    """The benchmark's display name (its `title`), or its name when it is not installed."""
    cls = known_class(benchmark)
    return cls.display_name() if cls is not None else benchmark


def value_text(value: float, unit: str) -> str:
    return f"{value:.2f}%" if unit == "%" else f"{value:.1f}"


def signed(value: float, unit: str) -> str:
    digits = 2 if unit == "%" else 1
    return f"{value:+.{digits}f}"


def difference_text(row: MetricRow) -> str:
    digits = 2 if row.unit == "%" else 1
    return f"{signed(row.difference, row.unit)} [{row.low:+.{digits}f}, {row.high:+.{digits}f}]"


def p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def verdict(row: MetricRow) -> str:
    """`differs` when the interval printed beside it excludes 0 (and, with more than two runs, Holm's
    correction rejects), else `≈` (not distinguishable here)."""
    return "differs" if row.significant else "≈"


def verdict_rule(comparison: Comparison) -> str:
    """How the verdicts were decided, in words, for the legend of every view."""
    settings = comparison.settings
    level = f"{100 * settings.level:g}%"
    rule = (f"verdict from the {level} interval: 'differs' when it excludes 0, '≈' when it holds 0 (not "
            "distinguishable here)")
    if comparison.holm is not None:
        rule += f", and 'differs' also needs the Holm-adjusted p <= alpha {settings.alpha:g}"
    if comparison.holm is None and abs(settings.level + settings.alpha - 1.0) > 1e-9:
        rule += f" (--alpha {settings.alpha:g} only matters with more than two runs)"
    return (rule + "; p: exact McNemar (more conservative than the interval: it may exceed alpha beside "
            "'differs'), or the paired bootstrap's, raised to the p at which a floor-widened interval "
            "reaches 0")


SHORT_UNITS = {"questions": "q", "images": "img", "question groups": "grp", "answers": "ans"}


def _test_text(row: MetricRow) -> str:
    if row.test == MCNEMAR:
        return f"McN {row.a_only}/{row.b_only}"
    return "boot"


def number_name(row: MetricRow) -> str:
    return row.metric if row.breakdown == "overall" else f"{row.breakdown} {row.metric}"


def pair_table(comparison: Comparison, pair: PairComparison, *, headline_only: bool = False) -> Table:
    a, b = comparison.runs[pair.a], comparison.runs[pair.b]
    title = (f"{title_of(pair.benchmark)}: run {pair.a + 1} ({a.label}) vs run {pair.b + 1} "
             f"({b.label}), {pair.items} paired {pair.item}s")
    table = Table(title=title, title_justify="left")
    holm = comparison.holm is not None
    columns = ["number", f"run {pair.a + 1}", f"run {pair.b + 1}",
               f"{pair.a + 1} - {pair.b + 1} [{100 * comparison.settings.level:g}% CI]", "n", "test", "p"]
    columns += ["p (Holm)"] if holm else []
    columns += [f"MDD {100 * comparison.settings.power:g}%", ""]
    for column in columns:
        table.add_column(column, justify="left" if column in ("number", "test", "") else "right")
    for row in pair.rows:
        if headline_only and not row.headline:
            continue
        cells = [number_name(row), value_text(row.a, row.unit), value_text(row.b, row.unit),
                 difference_text(row), f"{row.n} {SHORT_UNITS.get(row.n_unit, row.n_unit)}", _test_text(row),
                 p_text(row.p_value)]
        if holm:
            cells.append(p_text(row.p_final))
        cells += ["–" if row.mdd is None else f"{row.mdd:.1f}", verdict(row)]
        table.add_row(*cells, style="bold" if row.headline else None)
    return table


def baseline_lines(comparison: Comparison, benchmark: str) -> list[Text]:
    """What trivial answerers score on the benchmark's headline numbers, under its table."""
    found = comparison.baselines.get(benchmark)
    if not found:
        return []
    run = comparison.baselines_from.get(benchmark, 0) + 1
    lines = [Text(f"baselines (the same scoring on run {run}'s questions; chance: exact expected score):")]
    lines += [Text(f"  {label}: {baselines_text(found, label)}") for label in baseline_labels(found)]
    return lines


def render(comparison: Comparison, *, headline_only: bool = False) -> RenderableType:
    parts: list[RenderableType] = []
    for number, run in enumerate(comparison.runs, start=1):
        parts.append(Text(f"run {number}: {run.label} [{run.kind}] {run.path}"))
    for pair in comparison.pairs:
        parts.append(Text(""))
        parts.append(pair_table(comparison, pair, headline_only=headline_only))
        parts.extend(baseline_lines(comparison, pair.benchmark))
        parts.extend(Text(f"note: {note}") for note in pair.notes)
    settings = comparison.settings
    legend = (f"Differences in percentage points (%) or score points; n in questions (q), images (img) or "
              f"question groups (grp); test: exact McNemar with its discordant counts (McN a/b) or paired "
              f"bootstrap (boot); {verdict_rule(comparison)}; MDD: the smallest difference these items "
              f"detect with {100 * settings.power:g}% power.")
    parts.append(Text(""))
    parts.append(Text(legend))
    if comparison.holm is not None:
        parts.append(Text(f"multiple comparisons: {comparison.holm}."))
    parts.extend(Text(f"note: {note}") for note in comparison.notes)
    return Group(*parts)
