"""M3GIA's GIA of counts files without a model: `mmgauge.m3gia_gia`, and what `mmgauge score m3gia` prints."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

    from mmgauge.benchmarks.m3gia.gia import GiaResult, GiaScores


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

    from mmgauge.benchmarks.m3gia import gia
    from mmgauge.benchmarks.m3gia.counts import (
        counts_from_csv,
        human_stats_from_table,
        name_column,
        read_counts,
        split_names,
    )
    from mmgauge.datasources.text_files import read_csv

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
