"""Scoring files produced elsewhere, without a model: MMBench predictions, M3GIA counts,
General-Level results. Each is what the matching `mmgauge score ...` command computes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

    from mmgauge.extraction.judge import Judge
    from mmgauge.general_level.runs import RunCoverage
    from mmgauge.scoring.general_level import LevelReport, ResultTable, TaskRow
    from mmgauge.scoring.m3gia_gia import GiaResult, GiaScores
    from mmgauge.scoring.mmbench import MMBenchResult


async def score_mmbench_async(
    source: str | Path, judge: str | Judge | None = None, *, seed: int = 0, random_fallback: bool = False,
    literal_options: bool = False,
) -> MMBenchResult:
    """`score_mmbench` for callers inside a running event loop."""
    from mmgauge.benchmarks.mmbench.predictions import score_prediction_file

    the_judge = judge_for(judge)
    try:
        return await score_prediction_file(Path(source), the_judge, literal_options=literal_options,
                                           random_fallback=random_fallback, seed=seed)
    finally:
        if the_judge is not None and not _given_judge(judge):
            await the_judge.backend.aclose()


def score_mmbench(
    source: str | Path, judge: str | Judge | None = None, *, seed: int = 0, random_fallback: bool = False,
    literal_options: bool = False,
) -> MMBenchResult:
    """CircularEval scores of an MMBench predictions file, as VLMEvalKit scores it (VLMEvalKit's and
    lmms-eval's xlsx/TSV, lmms-eval's sample log).

    `judge`: None or "none" (rules only), a judge model spec, or a `Judge`. `literal_options` keeps option
    texts pandas would read as missing (`None`, `NA`, ...), which VLMEvalKit drops.
    """
    if _no_judge(judge) and not random_fallback:
        # Rules only: a TSV is scored column-wise, with no event loop and no judge machinery imported.
        from mmgauge.benchmarks.mmbench.prediction_columns import score_prediction_columns

        fast = score_prediction_columns(Path(source), literal_options=literal_options, seed=seed)
        if fast is not None:
            return fast
    from mmgauge.core.sync import run_sync

    result: MMBenchResult = run_sync(score_mmbench_async(
        source, judge, seed=seed, random_fallback=random_fallback, literal_options=literal_options))
    return result


def _no_judge(judge: str | Judge | None) -> bool:
    return judge is None or (isinstance(judge, str) and judge.strip().lower() == "none")


def judge_for(judge: str | Judge | None) -> Judge | None:
    if _no_judge(judge):
        return None
    from mmgauge.extraction.judge import Judge

    if judge is None or isinstance(judge, Judge):
        return judge
    from mmgauge.backends.registry import load_backend

    _, backend = load_backend(judge)
    return Judge(backend)


def _given_judge(judge: object) -> bool:
    from mmgauge.extraction.judge import Judge

    return isinstance(judge, Judge)


def m3gia_gia(
    counts: str | Path | pd.DataFrame,
    language: str,
    *,
    scale: Literal["official", "standardised"] = "official",
    human_stats: str | Path | None = None,
    ignore: Sequence[str] = (),
) -> GiaResult:
    """M3GIA's GIA for each row of per-type counts of right answers: a CSV, the release's count workbook
    (`MLLMs_acc_<lang>_score.xlsx`, read as its `GIA_<Lang>.R` reads it) or a DataFrame."""
    return m3gia_gia_scores(counts, language, scale=scale, human_stats=human_stats, ignore=ignore).result()


def m3gia_gia_scores(
    counts: str | Path | pd.DataFrame,
    language: str,
    *,
    scale: Literal["official", "standardised"] = "official",
    human_stats: str | Path | None = None,
    ignore: Sequence[str] = (),
) -> GiaScores:
    """`m3gia_gia` in column form (for large tables: no object per row)."""
    from dataclasses import replace

    from mmgauge.api.inputs import (
        counts_from_csv,
        human_stats_from_table,
        name_column,
        read_counts,
        read_csv,
        split_names,
    )
    from mmgauge.scoring import m3gia_gia as gia

    code = gia.normalise_language(language)
    source = str(counts) if isinstance(counts, str | Path) else "counts"
    matrix: gia.FloatArray | gia.RowBlocks | None = None
    names: list[str | None] | None = None
    if isinstance(counts, str | Path):
        read = counts_from_csv(Path(counts), code, list(ignore))
        matrix, names = read, None if read is None else read.names
    table = None
    lines: list[int] | None = None
    if matrix is None:
        if isinstance(counts, str | Path):
            table, names = read_counts(Path(counts), gia.load_published_model(code).indicators, list(ignore))
            lines = [int(label) + 2 for label in table.index]  # the header is line 1 (sheet row 1)
        else:
            missing = [column for column in ignore if column not in counts.columns]
            if missing:
                raise UserError("--ignore names a column the table does not have", file=source,
                                field=missing[0])
            table = counts.drop(columns=list(ignore))
            positions = range(1, len(table) + 1)  # as `counts_matrix` names a DataFrame's rows
            table, names = split_names(table, name_column(table, source), positions, source)
        if table.empty:
            raise UserError("no rows: expected one row of counts per model", file=source)
    stats = None
    if human_stats is not None:
        stats = human_stats_from_table(read_csv(Path(human_stats)), str(human_stats))
        for column in gia.load_published_model(code).indicators:
            if column not in stats.mean:
                raise UserError("human statistics lack this column", file=str(human_stats), field=column)
    try:
        if matrix is None:
            assert table is not None
            matrix = gia.counts_matrix(table, code, lines)
        scores = gia.gia_scores(matrix, code, scale=scale, human_stats=stats)
    except UserError as problem:
        raise UserError(problem.message, file=source, line=problem.line, field=problem.field) from problem
    return scores if names is None else replace(scores, names=names)


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
