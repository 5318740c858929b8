"""MMBench's tidy rows for `export table` (the `tidy_rows` hook): accuracies, stored as fractions, in percent
as the terminal summary and the report show them (see `parts/tidy.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.parts.tidy import PERCENT, TidyRow, breakdown, metric_row
from mmgauge.stats.proportion import Interval


def rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Circular and vanilla accuracy, and circular accuracy per L2 ability, category and split (percent)."""
    result = MMBenchResult.model_validate(data)
    if result.overall is None:
        return []  # no answer key (test split): nothing was scored
    # Groups with a failed request are left out until a re-run retries them: the numbers are partial.
    partial = result.pending_groups > 0
    out = [metric_row("circular_acc", result.overall, PERCENT, ci=result.overall_ci, scale=100.0,
                      n=result.n_groups, partial=partial, headline=True)]
    if result.vanilla is not None:
        out.append(metric_row("vanilla_acc", result.vanilla, PERCENT, ci=result.vanilla_ci, scale=100.0,
                              n=result.n_groups, partial=partial, headline=True))
    views: tuple[tuple[str, dict[str, float], dict[str, Interval]], ...] = (
        ("l2", result.l2, result.l2_ci), ("category", result.category, result.category_ci),
        ("split", result.split, result.split_ci),
    )
    for kind, values, intervals in views:
        out.extend(
            metric_row("circular_acc", value, PERCENT, where=breakdown((kind, name)), ci=intervals.get(name),
                       scale=100.0, partial=partial)
            for name, value in values.items()
        )
    return out
