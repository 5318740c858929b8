"""Charts across runs: per benchmark breakdown, grouped bars (one series per run, with interval whiskers), an
ability radar (one polygon per run) and a scatter of each run against run 1 around the diagonal.

The values come from each section's `breakdowns` (the typed results' own intervals and counts); categories are
lined up by name over runs, in order of first appearance. A category one run lacks has no bar for that run,
never a bar at 0. Every category label carries its n (`OCR (n=40)`, `n=40/38` where runs differ).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Final

from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, Point, with_n
from mmgauge.parts.report.section import figure_row, note
from mmgauge.parts.report.tables import Cell, Table, collapsed
from mmgauge.report.load import RunView
from mmgauge.report.sections import checked

#: Scatters drawn per breakdown: run 2, 3, ... each against run 1, at most this many.
SCATTERS: Final = 4
_EMPTY: Final = Point(None)


@dataclass
class Lined:
    """One breakdown over runs: `per_run[i]` is run i's breakdown (None: that run lacks it)."""

    bench: str
    first: Breakdown
    per_run: list[Breakdown | None]

    @property
    def labels(self) -> list[str]:
        seen: dict[str, None] = {}
        for found in self.per_run:
            if found is not None:
                seen.update(dict.fromkeys(found.points))
        return list(seen)

    def point(self, run: int, label: str) -> Point:
        found = self.per_run[run]
        return _EMPTY if found is None else found.points.get(label, _EMPTY)


def line_up(runs: list[RunView]) -> list[Lined]:
    """Every breakdown some run has, with each run's (benchmarks in order of first appearance)."""
    out: dict[tuple[str, str], Lined] = {}
    for number, run in enumerate(runs):
        for bench in run.benchmarks.values():
            section, problem = checked(bench)
            if problem is not None or bench.result is None:
                continue
            for found in section.breakdowns(bench):
                if not found.points:
                    continue
                lined = out.setdefault((bench.name, found.key), Lined(bench.name, found, [None] * len(runs)))
                lined.per_run[number] = found
    return list(out.values())


def run_name(number: int, run: RunView) -> str:
    return f"run {number + 1}: {run.model}"


def _table(lined: Lined, runs: list[RunView]) -> Table:
    columns = ["category"]
    for number in range(len(runs)):
        name = f"run {number + 1}"
        columns += [name, f"{name} low", f"{name} high", f"{name} n"]
    rows: list[list[Cell]] = []
    for label in lined.labels:
        row: list[Cell] = [label]
        for number in range(len(runs)):
            p = lined.point(number, label)
            low, high = p.interval if p.interval else (None, None)
            row += [p.value, low, high, p.n]
        rows.append(row)
    return Table(f"across_{lined.bench}_{lined.first.key}", columns, rows)


def _bars(lined: Lined, runs: list[RunView]) -> str:
    labels = lined.labels
    present = [number for number, found in enumerate(lined.per_run) if found is not None]
    names = {number: run_name(number, runs[number]) for number in present}
    whiskers = f"whiskers: {lined.first.whiskers}" if lined.first.whiskers else "no interval stored"
    return plots.hbars(
        [with_n(label, [lined.point(number, label).n for number in present]) for label in labels],
        {names[number]: [lined.point(number, label).value for label in labels] for number in present},
        errors={names[number]: [lined.point(number, label).interval for label in labels]
                for number in present},
        title=lined.first.title, xmax=lined.first.top,
        xlabel=f"{lined.first.axis} ({whiskers}; n: {lined.first.unit})",
    )


def _radar(lined: Lined, runs: list[RunView]) -> str:
    labels = lined.labels
    present = [number for number, found in enumerate(lined.per_run) if found is not None]
    return plots.radar(
        [with_n(label, [lined.point(number, label).n for number in present]) for label in labels],
        {run_name(number, runs[number]): [lined.point(number, label).value for label in labels]
         for number in present},
        title=f"{lined.first.title}\nprofile per run", rmax=lined.first.top,
    )


def _scatter(lined: Lined, runs: list[RunView], other: int) -> str:
    labels = lined.labels
    base = [lined.point(0, label) for label in labels]
    them = [lined.point(other, label) for label in labels]
    ns = [with_n(label, [a.n, b.n]) for label, a, b in zip(labels, base, them, strict=True)]
    both = [(a, b) for a, b in zip(base, them, strict=True) if a.value is not None and b.value is not None]
    counts = sorted({p.n for pair in both for p in pair if p.n is not None})
    spread = ""
    if counts:
        spread = f", n={counts[0]} each" if len(counts) == 1 else f", n={counts[0]}–{counts[-1]} each"
    return plots.scatter(
        ns, [p.value for p in base], [p.value for p in them],
        xerr=[p.interval for p in base], yerr=[p.interval for p in them], top=lined.first.top,
        title=f"{lined.first.title}\nrun {other + 1} vs run 1: {len(both)} categories{spread}",
        xlabel=f"{run_name(0, runs[0])}, {lined.first.axis}",
        ylabel=f"{run_name(other, runs[other])}, {lined.first.axis}",
    )


def _charts(lined: Lined, runs: list[RunView]) -> list[str]:
    """Grouped bars; a radar where the breakdown is a profile; each run against run 1."""
    out = [_bars(lined, runs)]
    if lined.first.radar and len(lined.labels) >= 3:
        out.append(_radar(lined, runs))
    if lined.per_run[0] is not None:
        others = [n for n in range(1, len(runs)) if lined.per_run[n] is not None][:SCATTERS]
        out.extend(_scatter(lined, runs, other) for other in others)
    return out


def across_section(runs: list[RunView], tables: list[Table]) -> str:
    """The "Across runs" section of a report over two or more runs; its tables are appended to `tables`."""
    parts = ['<section id="across"><h2>Across runs</h2>', note(
        "Each chart puts every run side by side on the same categories; n after a category counts what its "
        "score rests on (n=40/38: per run, in run order). Whiskers are the intervals stored with the "
        "results. "
        "Scatters: each run against run 1, one point per category; above the diagonal, that run scores "
        "higher.")]
    lined_up = line_up(runs)
    if not lined_up:
        parts.append(note("No benchmark here has per-category scores to compare across runs."))
    bench = None
    for lined in lined_up:
        if lined.bench != bench:
            bench = lined.bench
            parts.append(f'<h3 id="across-{escape(bench)}">{escape(bench)}</h3>')
        table = _table(lined, runs)
        tables.append(table)
        missing = [str(n + 1) for n, found in enumerate(lined.per_run) if found is None]
        parts.append(f'<div class="across" data-breakdown="{escape(lined.first.key)}">'
                     f"<h4>{escape(lined.first.title)}</h4>")
        if missing:
            parts.append(note(f"Not in run(s) {', '.join(missing)}: they have no bars here."))
        parts.append(figure_row(*_charts(lined, runs)) if plots.available() else note(plots.MISSING))
        parts.append(collapsed(table, "categories: the values behind the charts"))
        parts.append("</div>")
    parts.append("</section>")
    return "".join(parts)
