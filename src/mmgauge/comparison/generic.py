"""Any other benchmark whose records say right or wrong: accuracy overall, McNemar over its answers."""

from __future__ import annotations

from mmgauge.parts.metric_rows import CompareSettings, MetricRow, accuracy_row
from mmgauge.parts.outcomes import Outcomes


def compare_generic(a: Outcomes, b: Outcomes, settings: CompareSettings) -> list[MetricRow]:
    if len(a) == 0:
        return []
    return [accuracy_row(a.benchmark, "accuracy", "overall", a.values["right"], b.values["right"],
                         "answers", settings, headline=True)]
