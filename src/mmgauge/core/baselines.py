"""What trivial answerers score: the stored form of a benchmark's baselines, and how they read as text.

A benchmark states its numbers as `Numbers` (its `headline_numbers` hook): the headline measures, keyed by
the label its summary shows them under, and the per-category breakdowns its report charts draw. Each
baseline of a run (`always-yes`, `always-A`, `chance`, ...) is the same `Numbers` computed over synthetic
answers by the benchmark's own scoring (`benchmarks/baseline_scores.py`), so the definitions are identical.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from pydantic import BaseModel, Field

#: The unit of a percentage; a number without a unit is in points (MME scores).
PERCENT = "%"


class Numbers(BaseModel):
    """A result's numbers as its summary shows them (percent for accuracies, points for MME scores)."""

    #: Summary label -> value (e.g. "MME perception" -> 450.0, "MMBench circular" -> 71.3).
    headline: dict[str, float] = Field(default_factory=dict)
    #: Label -> unit ("%"); a label without one is in points.
    units: dict[str, str] = Field(default_factory=dict)
    #: Breakdown name -> category -> value (e.g. "acc_plus" -> {"OCR": 25.0}), in the breakdown's unit.
    breakdowns: dict[str, dict[str, float]] = Field(default_factory=dict)
    #: Labels and breakdown names whose numbers are not averages over scoring units (F1, a ratio of counts
    #: that both vary): the expectation of such a number is not the average of its values over equally
    #: likely answer sets, so a chance baseline leaves them out rather than state a wrong expectation.
    nonlinear: list[str] = Field(default_factory=list)

    def text(self, label: str) -> str:
        return number_text(self.headline[label], self.units.get(label, ""))


class BaselineScores(Numbers):
    """What one trivial answerer scores, in the same measures as the model's result."""

    #: What it answers, in words ("'yes' to every question", "a letter drawn uniformly (expected value)").
    description: str = ""
    #: An expected value over random answers (computed exactly), not one answer set's score.
    expected: bool = False


def number_text(value: float, unit: str) -> str:
    return f"{value:.2f}%" if unit == PERCENT else f"{value:.2f}"


def baselines_text(baselines: Mapping[str, BaselineScores], label: str) -> str:
    """`always-yes 500.00 · chance 750.00`: every baseline's value of one headline measure ("" if none)."""
    return " · ".join(f"{name} {scores.text(label)}" for name, scores in baselines.items()
                      if label in scores.headline)


def baseline_labels(baselines: Mapping[str, BaselineScores]) -> list[str]:
    """The headline labels any baseline has a value for, in first-seen order."""
    seen: dict[str, None] = {}
    for scores in baselines.values():
        seen.update(dict.fromkeys(scores.headline))
    return list(seen)


def belonging(baselines: Mapping[str, BaselineScores], label: str, shown: Collection[str]) -> list[str]:
    """The measures with baselines that belong to the row or card of `label` and have none of their own (in
    `shown`): those named `label` and a word more ("POPE random F1" under "POPE random", whose text gives
    the split's F1 beside its accuracy), in first-seen order. Each is shown with that row, not apart."""
    return [other for other in baseline_labels(baselines)
            if other.startswith(label + " ") and other not in shown]


def belonging_text(baselines: Mapping[str, BaselineScores], label: str, shown: Collection[str]) -> str:
    """`F1: always-yes 66.67%`, one part per measure `belonging` to `label`, joined by "; " ("" if none)."""
    return "; ".join(f"{other.removeprefix(label).strip()}: {baselines_text(baselines, other)}"
                     for other in belonging(baselines, label, shown))
