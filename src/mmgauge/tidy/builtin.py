"""Tidy rows of General-Level reports (a benchmark's own come from its `tidy_rows` hook or `tidy` method).

Each function reads the stored result JSON back as its result model and returns one `TidyRow` per number
the terminal summary and the report show, in the units they show it (see `parts/tidy.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from mmgauge.parts.tidy import (
    COUNT,
    LEVEL,
    PERCENT,
    TidyRow,
    breakdown,
    metric_row,
)

#: The benchmark name General-Level reports are exported under (as in the HTML report).
GENERAL_LEVEL: Final = "general_level"


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
