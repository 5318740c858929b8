"""Tidy rows of the built-in benchmarks' results and of General-Level reports, by benchmark name.

Each function reads the stored result JSON back as its result model and returns one `TidyRow` per number
the terminal summary and the report show, in the units they show it (see `parts/tidy.py`): MMBench and M3GIA
accuracies, stored as fractions, in percent. A benchmark's `tidy_rows` hook names its function here (until it
moves into its package).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mmgauge.parts.tidy import (
    COUNT,
    GIA,
    LEVEL,
    OVERALL,
    PERCENT,
    Z_SCORE,
    TidyRow,
    breakdown,
    metric_row,
)
from mmgauge.stats.proportion import Interval

if TYPE_CHECKING:
    from mmgauge.scoring.m3gia import Stat

#: The benchmark name General-Level reports are exported under (as in the HTML report).
GENERAL_LEVEL: Final = "general_level"


def mmbench_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Circular and vanilla accuracy, and circular accuracy per L2 ability, category and split (percent)."""
    from mmgauge.scoring.mmbench import MMBenchResult

    result = MMBenchResult.model_validate(data)
    if result.overall is None:
        return []  # no answer key (test split): nothing was scored
    # Groups with a failed request are left out until a re-run retries them: the numbers are partial.
    partial = result.pending_groups > 0
    rows = [metric_row("circular_acc", result.overall, PERCENT, ci=result.overall_ci, scale=100.0,
                       n=result.n_groups, partial=partial, headline=True)]
    if result.vanilla is not None:
        rows.append(metric_row("vanilla_acc", result.vanilla, PERCENT, ci=result.vanilla_ci, scale=100.0,
                               n=result.n_groups, partial=partial, headline=True))
    views: tuple[tuple[str, dict[str, float], dict[str, Interval]], ...] = (
        ("l2", result.l2, result.l2_ci), ("category", result.category, result.category_ci),
        ("split", result.split, result.split_ci),
    )
    for kind, values, intervals in views:
        rows.extend(
            metric_row("circular_acc", value, PERCENT, where=breakdown((kind, name)), ci=intervals.get(name),
                       scale=100.0, partial=partial)
            for name, value in values.items()
        )
    return rows


def m3gia_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Per language: accuracy overall, per type, cluster and factor (percent), and the GIA; then the mean
    over languages when there are several. Several rounds add `<metric>_sd` rows (sample SD over rounds).

    A language's `complete` (all 300 questions scored, which the GIA needs) is not a row status: accuracy
    over a smaller dataset answered in full is complete; the GIA rows are simply absent then."""
    from mmgauge.scoring.m3gia import M3GIAResult

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


def general_level_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Levels 2 to 5 (percent), the highest level, per modality and NLP; per task where the report has them.

    Reads both a dumped `LevelReport` and the smaller `mmgauge score level --json` object.
    """
    from mmgauge.general_level.level_view import LevelView

    view = LevelView.model_validate(data)
    rows = [metric_row(f"level{k}", getattr(view, f"level{k}"), PERCENT, headline=True) for k in (2, 3, 4, 5)]
    if view.highest_level is not None:
        rows.append(metric_row("highest_level", float(view.highest_level), LEVEL, headline=True))
    raw_modalities = data.get("modalities") or {}
    for name, modality in view.modalities.items():
        where = breakdown(("modality", name))
        raw = raw_modalities.get(name) or {}
        for metric in ("level2", "level3", "level4", "level2_comprehension", "level2_generation",
                       "level3_comprehension", "level3_generation"):
            value = raw.get(metric)
            if isinstance(value, int | float):
                rows.append(metric_row(metric, float(value), PERCENT, where=where))
        rows += [metric_row(metric, float(getattr(modality, metric)), COUNT, where=where)
                 for metric in ("supported", "total", "wins")]
    nlp, where = view.nlp, breakdown(("modality", "NLP"))
    if nlp.score is not None:
        rows.append(metric_row("nlp_score", nlp.score, PERCENT))
    rows += [metric_row(metric, float(value), COUNT, where=where)
             for metric, value in (("supported", nlp.supported), ("total", nlp.total), ("wins", nlp.wins))
             if value is not None]
    rows += _task_rows(data.get("tasks"), PERCENT if view.mode == "corrected" else "")
    return rows


def _task_rows(tasks: Any, unit: str) -> list[TidyRow]:
    """Each task's normalised score and specialist (SoTA) value, as compared (corrected mode: percent)."""
    if not isinstance(tasks, list):
        return []
    rows: list[TidyRow] = []
    for task in tasks:
        if not isinstance(task, Mapping) or not isinstance(task.get("sota"), int | float):
            continue
        where = breakdown(("sheet", str(task.get("sheet", ""))), ("task", str(task.get("task", ""))),
                          ("measure", str(task.get("metric", ""))))
        score = task.get("score")
        rows.append(metric_row("task_score", float(score) if isinstance(score, int | float) else None, unit,
                               where=where))
        rows.append(metric_row("task_sota", float(task["sota"]), unit, where=where))
    return rows


#: Rows of what is not a benchmark: name -> its rows from the stored result JSON.
TIDY_ROWS: dict[str, Callable[[Mapping[str, Any]], list[TidyRow]]] = {GENERAL_LEVEL: general_level_rows}
