"""M3GIA's rows in `export table` (the `tidy_rows` hook): per language accuracy overall, per type, cluster
and factor (percent; stored as fractions), and the GIA; then the mean over languages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmgauge.benchmarks.m3gia.scoring import M3GIAResult, Stat
from mmgauge.parts.tidy import GIA, OVERALL, PERCENT, Z_SCORE, TidyRow, breakdown, metric_row
from mmgauge.stats.proportion import Interval


def m3gia_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Per language: accuracy overall, per type, cluster and factor (percent), and the GIA; then the mean
    over languages when there are several. Several rounds add `<metric>_sd` rows (sample SD over rounds).

    A language's `complete` (all 300 questions scored, which the GIA needs) is not a row status: accuracy
    over a smaller dataset answered in full is complete; the GIA rows are simply absent then."""
    result = M3GIAResult.model_validate(data)
    rows: list[TidyRow] = []
    for language, scores in result.per_language.items():
        lang = ("language", language)
        rows += _stat_rows("acc", scores.overall, PERCENT, breakdown(lang), 100.0, scores.overall_ci, True)
        for kind, stats in (("type", scores.types), ("cluster", scores.clusters), ("factor", scores.factors)):
            for name, value in stats.items():
                rows += _stat_rows("acc", value, PERCENT, breakdown(lang, (kind, name)), 100.0)
        gia = scores.gia
        if gia is not None:
            where = breakdown(lang)
            rows += _stat_rows("gia", gia.gia, GIA, where, ci=gia.gia_ci, headline=True)
            rows += _stat_rows("gia_normalised", gia.gia_normalised, PERCENT, where, ci=gia.gia_normalised_ci,
                               headline=True)
            rows.append(metric_row("human_gia", gia.human_gia, GIA, where=where))
            if gia.gia_standardised is not None:
                rows += _stat_rows("gia_standardised", gia.gia_standardised, Z_SCORE, where)
            if gia.human_percentile is not None:
                rows += _stat_rows("human_percentile", gia.human_percentile, PERCENT, where)
    mean = result.mean
    if mean is not None and len(mean.languages) > 1:
        rows += _stat_rows("acc", mean.overall, PERCENT, OVERALL, 100.0, headline=True)
        for kind, stats in (("type", mean.types), ("cluster", mean.clusters), ("factor", mean.factors)):
            for name, value in stats.items():
                rows += _stat_rows("acc", value, PERCENT, breakdown((kind, name)), 100.0)
    return rows


def _stat_rows(metric: str, stat: Stat, unit: str, where: str, scale: float = 1.0,
               ci: Interval | None = None, headline: bool = False) -> list[TidyRow]:
    """The mean over rounds (with `ci` if given), and its SD over rounds when there were several."""
    rows = [metric_row(metric, stat.mean, unit, where=where, ci=ci, scale=scale, headline=headline)]
    if stat.std is not None:
        rows.append(metric_row(f"{metric}_sd", stat.std, unit, where=where, scale=scale))
    return rows
