"""MME's rows in `export table` (the `tidy_rows` hook): perception and cognition totals in points, and per
subtask acc, acc+ and the share of yes in percent, and the subtask score in points, as the summary and the
report show them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mmgauge.benchmarks.mme.scoring import MMEResult
from mmgauge.parts.tidy import PERCENT, POINTS, TidyRow, breakdown, metric_row


def mme_rows(data: Mapping[str, Any]) -> list[TidyRow]:
    """Perception and cognition totals (points), and per subtask acc, acc+, score and the share of yes."""
    result = MMEResult.model_validate(data)
    # A total none of whose subtasks was answered has no value (its score field holds 0).
    rows = [metric_row(name, total.score if total.scored else None, POINTS, ci=total.ci,
                       partial=total.partial, headline=True)
            for name, total in (("perception", result.perception), ("cognition", result.cognition))]
    for name, score in result.subtasks.items():
        where, partial = breakdown(("subtask", name)), not score.complete
        rows += [
            metric_row("acc", score.acc, PERCENT, where=where, ci=score.acc_ci, n=score.questions,
                       partial=partial),
            metric_row("acc_plus", score.acc_plus, PERCENT, where=where, ci=score.acc_plus_ci,
                       partial=partial),
            metric_row("score", score.score, POINTS, where=where, ci=score.score_ci, partial=partial),
            # Share of "yes" among the answers read as yes or no: n is those answers.
            metric_row("yes_ratio", score.yes_ratio, PERCENT, where=where, scale=100.0,
                       n=score.questions - score.other, partial=partial),
        ]
    return rows
