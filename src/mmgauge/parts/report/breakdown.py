"""Per-category scores a benchmark section hands to the charts: value, interval and n of each category.

A section returns its `Breakdown`s for one run; the cross-run charts (`across.py`) line up the breakdowns of
the same key over several runs, and the per-run charts read the same values. Every point carries the n it
rests on, so a chart can say `OCR (n=40)` and a 100% bar over one question never passes for a sure one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mmgauge.stats.proportion import Interval


@dataclass(frozen=True)
class Point:
    """One category's score in the breakdown's unit; `interval` in the same unit; `n`: what it rests on."""

    value: float | None
    interval: tuple[float, float] | None = None
    n: int | None = None


@dataclass(frozen=True)
class Breakdown:
    """A score per category (subtask, ability, language) of one benchmark of one run.

    `key` names the breakdown within its benchmark (runs are matched on it); `top` is the axis maximum;
    `whiskers` says what the intervals are (None: the breakdown has none); `radar` asks for a radar too
    (abilities, factors: a profile rather than a list).
    """

    key: str
    title: str
    axis: str
    top: float
    points: dict[str, Point] = field(default_factory=dict)
    whiskers: str | None = None
    radar: bool = False
    #: What n counts (questions, question groups, images).
    unit: str = "questions"


def interval_point(value: float | None, interval: Interval | None, scale: float = 1.0,
                   n: int | None = None) -> Point:
    """A point from a stored value and its `Interval` (both multiplied by `scale`); n from the interval."""
    if value is None:
        return Point(None, None, n if n is not None else (interval.n if interval else None))
    bounds = None if interval is None else (interval.low * scale, interval.high * scale)
    return Point(value * scale, bounds, interval.n if interval is not None and n is None else n)


def with_n(label: str, ns: Sequence[int | None]) -> str:
    """`label (n=40)`; `label (n=40/38)` when runs differ (in run order); the label alone without any n."""
    known = [n for n in ns if n is not None]
    if not known:
        return label
    if len(set(known)) == 1:
        return f"{label} (n={known[0]})"
    return f"{label} (n={'/'.join('–' if n is None else str(n) for n in ns)})"
