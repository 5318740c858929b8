"""MMBench, run A against run B on the same question groups.

Circular (CircularEval) and vanilla accuracy overall are the headline: McNemar over question groups. The
same per L2 ability and per L3 category (circular). The mean of the L2 abilities' accuracies (a macro
average, weighting each ability alike) is a composite: paired bootstrap over groups within abilities,
never narrower than the MOVER floor of the abilities' Newcombe intervals (`floors.py`).
"""

from __future__ import annotations

from mmgauge.parts.floors import newcombe_sum
from mmgauge.parts.metric_rows import CompareSettings, MetricRow, accuracy_row, bootstrap_row
from mmgauge.parts.outcomes import Outcomes
from mmgauge.stats.bootstrap import sum_of_group_means

BENCHMARK = "mmbench"
UNIT = "question groups"
ABILITY_MEAN = "mean of L2 abilities"


def compare_mmbench(a: Outcomes, b: Outcomes, settings: CompareSettings) -> list[MetricRow]:
    if len(a) == 0:
        return []
    rows = [
        accuracy_row(BENCHMARK, "circular", "overall", a.values["circular"], b.values["circular"], UNIT,
                     settings, headline=True),
        accuracy_row(BENCHMARK, "vanilla", "overall", a.values["vanilla"], b.values["vanilla"], UNIT,
                     settings, headline=True),
    ]
    l2 = a.labels["l2"].astype(str)
    abilities = sorted(set(l2.tolist()) - {""})
    for name in abilities:
        mask = l2 == name
        rows.append(accuracy_row(BENCHMARK, "circular", f"L2 {name}", a.values["circular"][mask],
                                 b.values["circular"][mask], UNIT, settings))
    if len(abilities) > 1:
        mask = l2 != ""
        share = 100.0 / len(abilities)
        circular_a, circular_b = a.values["circular"], b.values["circular"]
        floor = newcombe_sum([(circular_a[l2 == name], circular_b[l2 == name], share) for name in abilities])
        rows.append(bootstrap_row(
            BENCHMARK, "circular", ABILITY_MEAN, a.values["circular"][mask], b.values["circular"][mask],
            sum_of_group_means(l2[mask], share), UNIT, settings, unit="%", strata=l2[mask], floor=floor,
            bounds=(-100.0, 100.0)))
    category = a.labels["category"].astype(str)
    for name in sorted(set(category.tolist()) - {""}):
        mask = category == name
        rows.append(accuracy_row(BENCHMARK, "circular", f"category {name}", a.values["circular"][mask],
                                 b.values["circular"][mask], UNIT, settings))
    return rows
