"""``mmgauge level``: General-Level's five-level score of a model's results file.

With ``--json`` it prints one object: ``level2`` .. ``level5`` and per-modality ``level2``, ``level3``,
``level4`` in percent (0..100, unrounded), per-modality ``supported``/``total``/``wins``, and ``nlp`` with
``supported``, ``wins`` and ``weight`` (w_L = S_L / 100, a fraction). Extra keys: ``model``, ``mode``,
``highest_level``, ``nlp.total``, ``nlp.score`` (S_L in percent) and ``disagreements`` (every task the two
modes score differently, whichever mode was asked for). When the scores come from run folders (through a
mapping) or from several files, ``coverage`` says which tasks got a score from where (``runs``, ``total``,
``covered``, ``skipped`` mapping entries). ``labels`` (``sample data``, ``baseline``) and ``caveats`` (one
sentence each, naming its run) say when the runs scored built-in sample data or a baseline model: such
levels are marked wherever they are shown (empty lists otherwise).

RESULTS may be a results file, a run folder written by ``mmgauge run`` (its benchmark results are mapped to
General-Level tasks by ``--mapping``, by default the shipped ``run_mapping.yaml``), or several of these for
one model; a task scored by two of them is an error. ``--plot FILE.png`` writes the level and task charts.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mmgauge.core.json_output import print_json
from mmgauge.core.params import Arg, Opt

if TYPE_CHECKING:
    from mmgauge.general_level.runs import RunCoverage
    from mmgauge.scoring.general_level import Disagreement, LevelReport, TaskRow

class LevelMode(str, Enum):
    official = "official"
    corrected = "corrected"


def report_json(
    report: LevelReport, found: list[Disagreement], coverage: RunCoverage | None = None
) -> dict[str, Any]:
    """The ``--json`` object (see the module docstring)."""
    return {
        "level2": report.level2,
        "level3": report.level3,
        "level4": report.level4,
        "level5": report.level5,
        "modalities": {
            name: {
                "level2": m.level2,
                "level3": m.level3,
                "level4": m.level4,
                "supported": m.supported,
                "total": m.total,
                "wins": m.wins,
            }
            for name, m in report.modalities.items()
        },
        "nlp": {
            "supported": report.nlp.supported,
            "wins": report.nlp.wins,
            "weight": report.nlp.weight,
            "total": report.nlp.total,
            "score": report.nlp.score,
        },
        "model": report.model,
        "mode": report.mode,
        "highest_level": report.highest_level,
        "labels": coverage.labels if coverage is not None else [],
        "caveats": coverage.caveats if coverage is not None else [],
        "disagreements": [d.model_dump() for d in found],
    }


def marked(text: str, labels: list[str]) -> str:
    """`text [sample data, baseline]`: the tags a level computed from such runs carries wherever shown."""
    return f"{text} [{', '.join(labels)}]" if labels else text


def _paradigm_counts(report: LevelReport, modality: str) -> tuple[str, str]:
    """'supported/total' of the comprehension and the generation sheet of one modality."""
    cells: list[str] = []
    for paradigm in ("Comprehension", "Generation"):
        tasks = [o for o in report.tasks if o.sheet == f"{modality}-{paradigm}"]
        cells.append(f"{sum(o.supported for o in tasks)}/{len(tasks)}")
    return cells[0], cells[1]


def _print_levels(report: LevelReport, labels: list[str], caveats: list[str]) -> None:
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    # A light box keeps the nine columns inside an 80-column terminal without truncated headers.
    title = marked(f"General-Level of {report.model} ({report.mode} mode)", labels)
    table = Table(title=escape(title), box=box.SIMPLE_HEAD)
    for column in ("Modality", "Level-2", "Level-3", "Level-4", "S_C", "S_G", "Comp.", "Gen.", "Wins"):
        table.add_column(column, justify="left" if column == "Modality" else "right", no_wrap=True)
    for name, m in report.modalities.items():
        comp, gen = _paradigm_counts(report, name)
        table.add_row(
            name,
            f"{m.level2:.2f}",
            f"{m.level3:.2f}",
            f"{m.level4:.2f}",
            f"{m.level3_comprehension:.2f}",
            f"{m.level3_generation:.2f}",
            comp,
            gen,
            str(m.wins),
        )
    nlp = report.nlp
    table.add_row(
        "NLP (S_L)", "", f"{nlp.score:.2f}", "", "", "", f"{nlp.supported}/{nlp.total}", "", str(nlp.wins)
    )
    table.add_section()
    table.add_row(
        "Overall", f"{report.level2:.2f}", f"{report.level3:.2f}", f"{report.level4:.2f}", "", "", "", "", ""
    )
    console.print(table)
    highest = "none (no level above 0)" if report.highest_level is None else f"Level-{report.highest_level}"
    console.print(f"Level-5: {report.level5:.4f} (w_L = {nlp.weight:.4f}); highest level reached: "
                  f"{marked(highest, labels)}", markup=False)
    console.print(
        "Comp., Gen.: tasks with a score / tasks of the comprehension and generation sheets; "
        "Wins: tasks at or above the specialist."
    )
    for caveat in caveats:
        # Levels, wins and the highest level of such runs say nothing about the model on the real tasks.
        console.print(f"note: {caveat}; these levels and wins inherit that", markup=False)


def _print_disagreements(found: list[Disagreement]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not found:
        console.print("The official and corrected modes agree on every task.")
        return
    diff = Table(title=f"{len(found)} tasks scored differently by the official and corrected modes")
    for column in ("Sheet", "Row", "Task", "Metric", "Official -> corrected", "Why"):
        diff.add_column(column)
    for d in found:
        changes = "; ".join(f"{f.field}: {_cell(f.official)} -> {_cell(f.corrected)}" for f in d.differences)
        diff.add_row(d.sheet, str(d.row), d.task, d.metric, changes, "\n".join(d.reasons))
    console.print(diff)


def _cell(value: float | bool | None) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _print_coverage(report: LevelReport, coverage: RunCoverage, specialist: list[TaskRow]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console()
    scored = [c for c in coverage.covered if c.score is not None]
    sheets = ", ".join(f"{name} {hit}/{of}" for name, (hit, of) in coverage.per_sheet(specialist).items())
    console.print(
        f"Coverage: {len(scored)} of {coverage.total} tasks have a score"
        + (f" from {', '.join(coverage.runs)}" if coverage.runs else "")
        + (f" ({sheets})" if sheets else "")
        + ". Every other task is unsupported and scores 0, so levels from a few benchmarks stay near 0."
    )
    if coverage.covered:
        outcomes = {(o.sheet, o.row): o for o in report.tasks}
        single = coverage.runs[0] if len(coverage.runs) == 1 else None
        table = Table(title="Tasks with a score, and where it came from", box=box.SIMPLE_HEAD)
        for column in ("Task", "Score", "SoTA", "Win", "From"):
            # Fold rather than truncate: the measure path is what a reader needs to trace the score.
            table.add_column(
                column, justify="right" if column in ("Score", "SoTA") else "left", overflow="fold"
            )
        for c in coverage.covered:
            outcome = outcomes[(c.sheet, c.row)]
            source = c.source.removeprefix(f"{single}: ") if single else c.source
            table.add_row(
                f"{c.task} [{c.sheet}]",
                _cell(outcome.score),
                _cell(outcome.sota),
                "yes" if outcome.win else "no",
                source,
            )
        console.print(table)
    for skipped in coverage.skipped:
        console.print(f"not scored: {skipped.measure} -> {skipped.task} ({skipped.reason})")


def _plot(report: LevelReport, path: Path) -> None:
    from mmgauge.general_level.charts import level_figure

    figure = level_figure(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)


def level_command(
    results: Annotated[
        list[Path],
        Arg(help="Results: the release's .xlsx form, CSV/JSON rows, or run folders of `mmgauge run`.",
            show_default=False, metavar="RESULTS"),
    ],
    model: Annotated[
        str | None,
        Opt("--model", help="Model column (xlsx) or model field (rows) to score; with run folders, the "
            "report's name."),
    ] = None,
    sota: Annotated[
        Path | None, Opt("--sota", help="Specialist table (default: the release's, shipped).")
    ] = None,
    mode: Annotated[
        LevelMode, Opt("--mode", help="official: the release's numbers; corrected: defects fixed.")
    ] = LevelMode.corrected,
    mapping: Annotated[
        Path | None,
        Opt("--mapping", help="Run measures to General-Level tasks (YAML; default: the shipped one)."),
    ] = None,
    plot: Annotated[
        Path | None, Opt("--plot", help="Write the level and per-task charts to this PNG file.")
    ] = None,
    as_json: Annotated[bool, Opt("--json", help="Print one JSON object.")] = False,
) -> None:
    """Score RESULTS against the specialist table: Levels 2 to 5, per modality, and the NLP weight."""
    from mmgauge.api.scores import score_general_level
    from mmgauge.core.errors import UserError
    from mmgauge.scoring.general_level import disagreements

    scored = score_general_level(results, mode=mode.value, sota=sota, model=model, mapping=mapping)
    report, table, coverage, specialist = scored.report, scored.table, scored.coverage, scored.specialist
    try:
        found = disagreements(table)
    except UserError as err:
        # The other mode cannot score this file (a value outside its domain); the asked-for mode could.
        sys.stderr.write(f"note: no mode comparison: {err}\n")
        found = []
    if plot is not None:
        _plot(report, plot)
    if as_json:
        data = report_json(report, found, coverage)
        if coverage is not None:
            data["coverage"] = coverage.model_dump(mode="json")
        print_json(data, ensure_ascii=False)
    else:
        _print_levels(report, coverage.labels if coverage else [], coverage.caveats if coverage else [])
        if coverage is not None:
            _print_coverage(report, coverage, specialist)
        _print_disagreements(found)
        if plot is not None:
            sys.stdout.write(f"chart: {plot}\n")
