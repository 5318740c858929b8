"""POPE, run A against run B on the same questions: accuracy per split and overall, McNemar's exact test.

Overall, POPE counts a question once per split it is in. Where a question is in several splits (VLMEvalKit's
POPE.tsv stores it once), those entries are one answer, not independent draws: the overall row then takes
each question once and says so in its name ("overall, each question once"), so it is never read as the
result's entry-weighted overall accuracy. F1 is not compared: it is no share of right answers, and a paired
bootstrap of it collapses to 0-0 where two runs agree, with no floor known to widen it (docs/statistics.md).
"""

from __future__ import annotations

import numpy as np

from mmgauge.benchmarks.pope.result import OVERALL, split_order
from mmgauge.parts.metric_rows import CompareSettings, MetricRow, accuracy_row
from mmgauge.parts.outcomes import Outcomes

BENCHMARK = "pope"
ONCE = "overall, each question once"


def compare_pope(a: Outcomes, b: Outcomes, settings: CompareSettings) -> list[MetricRow]:
    if len(a) == 0:
        return []
    split = a.labels["split"].astype(str)
    names = split_order(set(split.tolist()) - {""})
    rows = [accuracy_row(BENCHMARK, "accuracy", name, a.values["right"][split == name],
                         b.values["right"][split == name], "questions", settings, headline=len(names) == 1)
            for name in names]
    if len(names) != 1:
        # One entry per question: its answer, and so its verdict, is the same in every split it is in.
        _, first = np.unique(a.labels["question"].astype(str), return_index=True)
        first = np.sort(first)
        rows.append(accuracy_row(BENCHMARK, "accuracy", OVERALL if len(first) == len(a) else ONCE,
                                 a.values["right"][first], b.values["right"][first], "questions", settings,
                                 headline=True))
    return rows
