"""POPE in the report: accuracy and F1 per split and overall with their intervals, beside the trivial
baselines, and the share of "yes" answers against the truth's (POPE's own hallucination signal: a model that
says "yes" too often scores F1 near always-"yes"'s 66.7 and precision near the truth's share)."""

from __future__ import annotations

from typing import Any

from mmgauge.benchmarks.pope.result import OVERALL, Metric, PopeResult, PopeScores
from mmgauge.benchmarks.pope.scoring import PopeItem, entries, overall_entries
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, Point, interval_point, with_n
from mmgauge.parts.report.section import Card, Section, baseline_series, charts, note, pct
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row

WHISKERS = "95% CI (accuracy: Clopper-Pearson; F1: bootstrap over images)"


def _result(bench: BenchView) -> PopeResult:
    return PopeResult.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    PopeResult.model_validate(result)


def _category(row: Row) -> str:
    return ",".join(str(split) for split in row.metadata.get("splits") or [])


def _cards(bench: BenchView) -> list[Card]:
    r = _result(bench)
    if not r.splits:
        return [Card("POPE", "not scored", "no question scored yet", warn=True)]
    cards = []
    for name, scores in r.named().items():
        ci, f1 = scores.accuracy.ci, scores.f1
        f1_text = "F1 –" if f1 is None else (f"F1 {100 * f1.value:.2f} (95% CI {100 * f1.ci.low:.1f}–"
                                              f"{100 * f1.ci.high:.1f})")
        cards.append(Card(f"POPE {name}", pct(scores.accuracy.value),
                          f"95% CI {pct(ci.low, 1)}–{pct(ci.high, 1)}, n={ci.n}; {f1_text}; "
                          f"yes {100 * scores.yes_ratio.value:.1f}%"))
    return cards


def _metric_point(metric: Metric | None, n: int) -> Point:
    return Point(None, None, n) if metric is None else interval_point(metric.value, metric.ci, 100, n=n)


def _breakdowns(bench: BenchView) -> list[Breakdown]:
    r = _result(bench)
    named = r.named()
    if not named:
        return []
    return [
        Breakdown("accuracy", "POPE accuracy per split", "accuracy (%)", 100,
                  {name: _metric_point(s.accuracy, s.questions) for name, s in named.items()}, WHISKERS),
        Breakdown("f1", "POPE F1 per split", "F1 (x 100)", 100,
                  {name: _metric_point(s.f1, s.questions) for name, s in named.items()}, WHISKERS),
    ]


def _chart(bench: BenchView, accuracy: Breakdown, f1: Breakdown) -> str:
    names = list(accuracy.points)
    acc = [accuracy.points[name] for name in names]
    f1s = [f1.points.get(name, Point(None)) for name in names]
    return plots.hbars(
        [with_n(name, [point.n]) for name, point in zip(names, acc, strict=True)],
        {"accuracy": [p.value for p in acc], "F1": [p.value for p in f1s]},
        errors={"accuracy": [p.interval for p in acc], "F1": [p.interval for p in f1s]},
        title="POPE accuracy and F1 per split", xmax=100,
        xlabel="accuracy (%) and F1 (x 100) (whiskers: 95% CI; n: questions; baselines: what trivial "
               "answerers score)",
        baselines=baseline_series(bench, {"accuracy": accuracy.key, "F1": f1.key}, names),
    )


def _key_yes_share(rows: list[Row]) -> dict[str, float]:
    """Per split and overall, the share of "yes" in the answer key over the entries scored (grouped as the
    scores group them). Not TP + FN: an answer read as neither (`vlmevalkit` reader) is in neither."""
    items = [PopeItem(sample_id=row.sample_id, splits=tuple(map(str, row.metadata.get("splits") or [])),
                      truth=str(row.target).lower(), answer=row.answer, image="")
             for row in rows if not row.failed and row.target]
    groups = entries(items)
    groups[OVERALL] = overall_entries(items, groups)
    return {name: sum(item.truth == "yes" for item in group) / len(group) for name, group in groups.items()
            if group}


def _yes_chart(named: dict[str, PopeScores], key_yes: dict[str, float]) -> str:
    names = list(named)
    return plots.hbars(
        [with_n(name, [named[name].entries]) for name in names],
        {"yes %": [100 * named[name].yes_ratio.value for name in names],
         "truth": [None if name not in key_yes else 100 * key_yes[name] for name in names]},
        title="Share of 'yes' answers per split", xmax=100,
        xlabel="yes % of the answers and of the answer key (n: entries)",
    )


def _tables(bench: BenchView) -> list[Table]:
    rows: list[list[Cell]] = []
    for name, s in _result(bench).named().items():
        shares = [None if metric is None else 100 * metric.value
                  for metric in (s.accuracy, s.precision, s.recall, s.f1, s.yes_ratio)]
        rows.append([name, s.entries, s.questions, s.tp, s.fp, s.tn, s.fn, s.unknown, *shares])
    columns = ["split", "entries", "questions", "TP", "FP", "TN", "FN", "unknown", "accuracy %",
               "precision %", "recall %", "F1", "yes %"]
    return [Table("pope_splits", columns, rows)]


def _body(bench: BenchView) -> str:
    r = _result(bench)
    parts = [note(line, warn=True) for line in r.notes]
    if r.failed:
        parts.append(note(f"{r.failed} failed requests are not scored yet: a re-run asks them again",
                          warn=True))
    found = _breakdowns(bench)
    if found:
        accuracy, f1 = found
        parts.append(charts(lambda: _chart(bench, accuracy, f1),
                            lambda: _yes_chart(r.named(), _key_yes_share(bench.rows))))
    parts.append(table_html(_tables(bench)[0], caption="Per split"))
    return "".join(parts)


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    overall = _result(bench).overall
    if overall is None:
        return {"POPE accuracy %": None, "POPE F1": None}
    return {"POPE accuracy %": 100 * overall.accuracy.value,
            "POPE F1": None if overall.f1 is None else 100 * overall.f1.value}


SECTION = Section(
    title="POPE", validate=_validate, cards=_cards, body=_body, tables=_tables, leaderboard=_leaderboard,
    category=_category, breakdowns=_breakdowns,
)
