"""MMStar's rows in `export table`: accuracy in percent overall (the headline), per core capability and per
detailed axis, as VLMEvalKit reports them (the counts are in the result and the summary)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmgauge.benchmarks.mmstar.result import Accuracy, MMStarResult
from mmgauge.parts.tidy import PERCENT, TidyRow, breakdown, metric_row


def _accuracy(accuracy: Accuracy, where: str, headline: bool = False) -> TidyRow:
    n = accuracy.questions if accuracy.ci is None else None
    return metric_row("accuracy", accuracy.accuracy, PERCENT, where=where, ci=accuracy.ci, scale=100, n=n,
                      headline=headline)


def mmstar_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    result = MMStarResult.model_validate(data)
    rows = [_accuracy(result.overall, breakdown(), headline=True)]
    rows += [_accuracy(acc, breakdown(("capability", name))) for name, acc in result.capability.items()]
    rows += [_accuracy(acc, breakdown(("axis", name))) for name, acc in result.axis.items()]
    return rows
