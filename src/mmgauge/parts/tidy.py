"""The tidy row, its units, and the generic rows of a result no benchmark-specific function knows.

Units are those the terminal summary shows, one per kind of number and the same for every benchmark:

    percent  accuracies, ratios and shares, 0..100 (MMBench and M3GIA store fractions: they are scaled)
    points   MME scores: a subtask's acc + acc+ (0..200), the perception and cognition totals
    gia      M3GIA's GIA on the release's raw-count scale; `z` its standardised (factor-score) scale
    count    counts (General-Level's supported tasks and wins)
    level    General-Level's highest level reached (2..5)

`breakdown` is `overall` for a headline number, else `kind=name` parts joined by `; ` (e.g.
`subtask=OCR`, `language=english; type=Algebra`), so a table filters with one string comparison.

A plug-in benchmark gives its own rows by a `tidy(result) -> list[TidyRow]` method on its Benchmark class
(`TidyProvider`); without one its result JSON falls back to `generic_rows`: one row per numeric leaf, its
key as the metric and the keys above it, dotted, as the breakdown (`subtasks.OCR`), with the interval of a
sibling `<name>_ci` (an `Interval`, or a map of them beside a map of numbers) attached; unit left empty; the
top-level numbers are its headline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from mmgauge.stats.proportion import Interval

OVERALL: Final = "overall"
PERCENT: Final = "percent"
POINTS: Final = "points"
GIA: Final = "gia"
Z_SCORE: Final = "z"
COUNT: Final = "count"
LEVEL: Final = "level"
#: Keys of a result JSON that are bookkeeping, not metrics, in the generic rows.
_NOT_METRICS: Final = frozenset({"schema_version", "bootstrap_seed", "bootstrap_resamples", "seed"})
_INTERVAL_KEYS: Final = frozenset({"low", "high", "n", "method"})
#: Interval fields (attached to their value's row) and their older tuple twins (left out).
_CI_SUFFIXES: Final = ("_ci", "_ci95")


class TidyRow(BaseModel):
    """One number of one benchmark's result; the table adds run, model, benchmark and status."""

    model_config = ConfigDict(frozen=True)

    metric: str
    breakdown: str = OVERALL
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    #: What the interval rests on (questions, images, question groups), where the result says.
    n: int | None = None
    unit: str = ""
    #: True when this number covers less than it should even though its benchmark is complete (an MME total
    #: missing a subtask, an M3GIA language with questions unscored); the table then says `partial`.
    partial: bool = False
    #: One of the few numbers that sum the benchmark up (what the terminal summary leads with).
    headline: bool = False


@runtime_checkable
class TidyProvider(Protocol):
    """A benchmark that gives its own tidy rows (a plug-in's Benchmark class may implement this)."""

    def tidy(self, result: Any) -> Sequence[TidyRow]: ...


def breakdown(*parts: tuple[str, str]) -> str:
    """`kind=name; kind=name` (`overall` when there are no parts)."""
    return "; ".join(f"{kind}={name}" for kind, name in parts) or OVERALL


def metric_row(
    metric: str,
    value: float | None,
    unit: str,
    *,
    where: str = OVERALL,
    ci: Interval | None = None,
    scale: float = 1.0,
    n: int | None = None,
    partial: bool = False,
    headline: bool = False,
) -> TidyRow:
    """A row with `value` and the ends of `ci` multiplied by `scale` (100 turns fractions into percent)."""
    return TidyRow(
        metric=metric, breakdown=where, value=None if value is None else value * scale,
        ci_low=None if ci is None else ci.low * scale, ci_high=None if ci is None else ci.high * scale,
        n=ci.n if ci is not None else n, unit=unit, partial=partial, headline=headline,
    )


def generic_rows(result: Mapping[str, Any]) -> list[TidyRow]:
    """Every numeric leaf of a result JSON: its key is the metric, the keys above it the breakdown."""
    rows: list[TidyRow] = []
    _walk(result, (), None, rows)
    return rows


def _walk(node: Mapping[str, Any], path: tuple[str, ...], cis: Mapping[str, Any] | None,
          rows: list[TidyRow]) -> None:
    """Rows of `node`; `cis` is the sibling `<name>_ci` map of `node` when its parent had one."""
    where = ".".join(path) or OVERALL
    for key, value in node.items():
        if key in _NOT_METRICS or key.endswith(_CI_SUFFIXES) or _is_interval(value):
            continue
        sibling = node.get(f"{key}_ci")
        if _is_number(value):
            interval = _interval(sibling if sibling is not None else (cis or {}).get(key))
            rows.append(metric_row(key, float(value), "", where=where, ci=interval, headline=not path))
        elif isinstance(value, Mapping):
            _walk(value, (*path, key), sibling if isinstance(sibling, Mapping) else None, rows)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if _is_number(item):
                    rows.append(metric_row(f"{key}[{index}]", float(item), "", where=where))
                elif isinstance(item, Mapping):
                    _walk(item, (*path, f"{key}[{index}]"), None, rows)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_interval(value: Any) -> bool:
    return isinstance(value, Mapping) and set(value) >= _INTERVAL_KEYS


def _interval(value: Any) -> Interval | None:
    if not _is_interval(value):
        return None
    try:
        return Interval.model_validate(value)
    except ValueError:
        return None
