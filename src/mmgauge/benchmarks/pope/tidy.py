"""POPE's rows in `export table`: accuracy (the headline), precision, recall, F1 and the yes share, in
percent, overall and per split (the counts are in the result and the summary)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmgauge.benchmarks.pope.result import PopeResult, PopeScores
from mmgauge.parts.tidy import OVERALL, PERCENT, TidyRow, breakdown, metric_row


def _scores(scores: PopeScores, where: str, headline: bool) -> list[TidyRow]:
    rows = [metric_row("accuracy", scores.accuracy.value, PERCENT, where=where, ci=scores.accuracy.ci,
                       scale=100, headline=headline)]
    for name in ("precision", "recall", "f1", "yes_ratio"):
        metric = getattr(scores, name)
        rows.append(metric_row(name, None if metric is None else metric.value, PERCENT, where=where,
                               ci=None if metric is None else metric.ci, scale=100))
    return rows


def pope_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    result = PopeResult.model_validate(data)
    rows: list[TidyRow] = []
    if result.overall is not None:
        rows += _scores(result.overall, OVERALL, headline=True)
    for name, scores in result.splits.items():
        rows += _scores(scores, breakdown(("split", name)), headline=False)
    return rows
