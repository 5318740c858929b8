"""Scoring files produced elsewhere, without a model: General-Level results, as `mmgauge score level`
computes them. A benchmark's own scorers of other toolkits' files come from its `library_functions` hook
(see `mmgauge/__init__.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    from mmgauge.general_level.runs import RunCoverage
    from mmgauge.scoring.general_level import LevelReport, ResultTable, TaskRow


@dataclass
class LevelScore:
    """General-Level's report, with the table it scored and, for run folders, which tasks they covered."""

    report: LevelReport
    table: ResultTable
    specialist: list[TaskRow]
    coverage: RunCoverage | None


def general_level(
    results: str | Path | Sequence[str | Path],
    *,
    mode: Literal["official", "corrected"] = "corrected",
    sota: str | Path | None = None,
    model: str | None = None,
    mapping: str | Path | None = None,
) -> LevelReport:
    """General-Level's Levels 2 to 5 of a results file (the release's xlsx, CSV/JSON rows) or run folders."""
    return score_general_level(results, mode=mode, sota=sota, model=model, mapping=mapping).report


def score_general_level(
    results: str | Path | Sequence[str | Path],
    *,
    mode: Literal["official", "corrected"] = "corrected",
    sota: str | Path | None = None,
    model: str | None = None,
    mapping: str | Path | None = None,
) -> LevelScore:
    from mmgauge.general_level import load_results, load_specialist_table
    from mmgauge.general_level.run_paths import is_run_folder
    from mmgauge.scoring.general_level import score_levels

    sources = [Path(results)] if isinstance(results, str | Path) else [Path(r) for r in results]
    specialist = load_specialist_table(Path(sota) if sota is not None else None)
    for source in sources:
        if source.is_dir() and not is_run_folder(source):
            raise UserError("a folder given as results must be a run folder with scored results",
                            file=str(source))
    runs = [s for s in sources if is_run_folder(s)]
    files = [s for s in sources if not is_run_folder(s)]
    coverage: Any = None
    if not runs and mapping is None and len(files) == 1:
        table = load_results(files[0], specialist, model)
    else:
        from mmgauge.general_level.runs import RunMapping, load_mapping, tables_from_runs

        # Files alone need no run mapping; an explicit one still brings its score files.
        chosen = load_mapping(Path(mapping) if mapping else None) if runs or mapping else RunMapping()
        table, coverage = tables_from_runs(runs, specialist, chosen, files, model)
    return LevelScore(score_levels(table, mode), table, specialist, coverage)
