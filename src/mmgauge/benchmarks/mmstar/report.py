"""MMStar in the report: overall accuracy with its interval, and accuracy per core capability and per detailed
axis, as bars with whiskers and the trivial baselines' marks (the capabilities are a profile: a radar across
runs). Each axis is shown under its capability's name, as the paper's table groups them."""

from __future__ import annotations

from typing import Any

from mmgauge.benchmarks.mmstar.result import CAPABILITIES, Accuracy, MMStarResult
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, Point, interval_point, with_n
from mmgauge.parts.report.section import Card, Section, baseline_series, charts, note, pct
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row

WHISKERS = "95% CI (Clopper-Pearson)"
#: The capability each detailed axis belongs to.
CAPABILITY_OF = {axis: capability for capability, axes in CAPABILITIES.items() for axis in axes}


def _result(bench: BenchView) -> MMStarResult:
    return MMStarResult.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    MMStarResult.model_validate(result)


def _category(row: Row) -> str:
    return str(row.metadata.get("category", ""))


def _cards(bench: BenchView) -> list[Card]:
    r = _result(bench)
    overall = r.overall
    if overall.accuracy is None or overall.ci is None:
        return [Card("MMStar overall", "not scored", "no question scored yet", warn=True)]
    ci = f"95% CI {pct(overall.ci.low, 1)}–{pct(overall.ci.high, 1)}, {overall.questions} questions"
    cards = [Card("MMStar overall", pct(overall.accuracy), ci)]
    if r.unresolved:
        cards.append(Card("unresolved answers", str(r.unresolved), "counted wrong", warn=True))
    return cards


def _points(scores: dict[str, Accuracy]) -> dict[str, Point]:
    return {name: interval_point(score.accuracy, score.ci, 100, n=score.questions)
            for name, score in scores.items() if score.accuracy is not None}


def _breakdowns(bench: BenchView) -> list[Breakdown]:
    r = _result(bench)
    if r.overall.accuracy is None:
        return []
    return [
        Breakdown("capability", "MMStar by core capability", "accuracy (%)", 100, _points(r.capability),
                  WHISKERS, radar=True),
        Breakdown("axis", "MMStar by detailed axis", "accuracy (%)", 100, _points(r.axis), WHISKERS),
    ]


def _chart(bench: BenchView, found: Breakdown) -> str:
    names = list(found.points)
    points = [found.points[name] for name in names]
    return plots.hbars(
        [with_n(name, [point.n]) for name, point in zip(names, points, strict=True)],
        {"accuracy": [point.value for point in points]},
        errors={"accuracy": [point.interval for point in points]}, title=found.title,
        xlabel="accuracy (%) (whiskers: 95% CI; n: questions; baselines: accuracy of trivial answerers)",
        xmax=100, baselines=baseline_series(bench, {"accuracy": found.key}, names),
    )


def _row(name: str, score: Accuracy) -> list[Cell]:
    low, high = (None, None) if score.ci is None else (100 * score.ci.low, 100 * score.ci.high)
    return [name, score.pct, low, high, score.correct, score.questions]


def _tables(bench: BenchView) -> list[Table]:
    r = _result(bench)
    columns = ["accuracy %", "CI low %", "CI high %", "correct", "questions"]
    capability = Table("mmstar_capability", ["capability", *columns],
                       [_row(name, score) for name, score in r.capability.items()])
    axis = Table("mmstar_axis", ["axis", "capability", *columns],
                 [[name, CAPABILITY_OF.get(name, ""), *_row(name, score)[1:]]
                  for name, score in r.axis.items()])
    return [capability, axis]


def _body(bench: BenchView) -> str:
    r = _result(bench)
    parts = [note(line, warn=True) for line in r.headline()]
    found = _breakdowns(bench)
    if found and found[0].points:
        parts.append(charts(*(lambda breakdown=breakdown: _chart(bench, breakdown) for breakdown in found)))
    capability, axis = _tables(bench)
    parts.append(table_html(capability, caption="By core capability"))
    parts.append(f"<details><summary>By detailed axis ({len(axis.rows)})</summary>{table_html(axis)}"
                 "</details>")
    return "".join(parts)


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    return {"MMStar overall %": _result(bench).overall.pct}


SECTION = Section(
    title="MMStar", validate=_validate, cards=_cards, body=_body, tables=_tables, leaderboard=_leaderboard,
    category=_category, breakdowns=_breakdowns,
)
