"""MMBench: CircularEval accuracy with its CI, by L2 ability and L3 category, against vanilla accuracy.

The stored result has vanilla accuracy overall only; per ability it is recomputed here from the records: the
first copy (copy 0) of each question, right or wrong, leaving out copies whose request failed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from mmgauge.benchmarks.mmbench.scoring import L2_ABBREVIATIONS, MMBenchResult
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, Point, interval_point, with_n
from mmgauge.parts.report.section import Card, Section, baseline_series, charts, note, pct
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row
from mmgauge.stats.proportion import proportion_interval


def _result(bench: BenchView) -> MMBenchResult:
    return MMBenchResult.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    MMBenchResult.model_validate(result)


def _l2(row: Row) -> str:
    name = str(row.metadata.get("l2-category", ""))
    return L2_ABBREVIATIONS.get(name, name)


def _category(row: Row) -> str:
    return str(row.metadata.get("category", ""))


def vanilla_by(rows: list[Row], label: str) -> dict[str, tuple[float, int]]:
    """(accuracy, questions) of copy 0 per L2 ability (`label="l2"`) or L3 category (`"l3"`)."""
    key = _l2 if label == "l2" else _category
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if int(row.metadata.get("copy", 0)) != 0 or row.correct is None or row.failed:
            continue
        cell = tally[key(row)]
        cell[0] += int(row.correct)
        cell[1] += 1
    return {name: (right / total, total) for name, (right, total) in sorted(tally.items()) if name}


def _cards(bench: BenchView) -> list[Card]:
    r = _result(bench)
    if r.overall is None:
        return [Card("MMBench", "not scored", "no answer key (test split)", warn=True)]
    ci = f"95% CI {pct(r.overall_ci95[0], 1)}–{pct(r.overall_ci95[1], 1)}" if r.overall_ci95 else None
    vanilla_ci = (f"95% CI {pct(r.vanilla_ci95[0], 1)}–{pct(r.vanilla_ci95[1], 1)}, " if r.vanilla_ci95
                  else "")
    cards = [Card("MMBench circular", pct(r.overall), ci),
             Card("MMBench vanilla", pct(r.vanilla), f"{vanilla_ci}{r.n_groups} questions")]
    if r.unresolved:
        cards.append(Card("unresolved answers", str(r.unresolved), "counted wrong", warn=True))
    return cards


def _tables(bench: BenchView) -> list[Table]:
    r = _result(bench)
    l2_vanilla = vanilla_by(bench.rows, "l2")
    l3_vanilla = vanilla_by(bench.rows, "l3")
    parent = {_category(row): _l2(row) for row in bench.rows}
    l2_rows: list[list[Cell]] = []
    for name in sorted(set(r.l2) | set(l2_vanilla)):
        van = l2_vanilla.get(name)
        l2_rows.append([name, _pct_or_none(r.l2.get(name)), _pct_or_none(van[0] if van else None),
                        van[1] if van else None])
    l3_rows: list[list[Cell]] = []
    for name in sorted(set(r.category) | set(l3_vanilla)):
        van = l3_vanilla.get(name)
        l3_rows.append([name, parent.get(name, ""), _pct_or_none(r.category.get(name)),
                        _pct_or_none(van[0] if van else None), van[1] if van else None])
    overall = Table("mmbench_overall", ["measure", "value"], [
        ["circular %", _pct_or_none(r.overall)], ["vanilla %", _pct_or_none(r.vanilla)],
        ["circular CI low %", _pct_or_none(r.overall_ci95[0] if r.overall_ci95 else None)],
        ["circular CI high %", _pct_or_none(r.overall_ci95[1] if r.overall_ci95 else None)],
        ["questions", r.n_groups], ["rows", r.rows], ["unresolved", r.unresolved],
        ["pending groups", r.pending_groups], ["incomplete groups", r.incomplete_groups],
        ["unanswered groups", r.unanswered_groups],
    ])
    return [
        overall,
        Table("mmbench_l2", ["ability (L2)", "circular %", "vanilla %", "questions"], l2_rows),
        Table("mmbench_l3", ["category (L3)", "ability (L2)", "circular %", "vanilla %", "questions"],
              l3_rows),
    ]


def _pct_or_none(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _chart(bench: BenchView, circular: Breakdown, vanilla: Breakdown, title: str) -> str:
    names = [*circular.points, *(name for name in vanilla.points if name not in circular.points)]
    empty = Point(None)
    circ = [circular.points.get(name, empty) for name in names]
    van = [vanilla.points.get(name, empty) for name in names]
    return plots.hbars(
        [with_n(name, [v.n if c.n is None else c.n]) for name, c, v in zip(names, circ, van, strict=True)],
        {"circular": [c.value for c in circ], "vanilla": [v.value for v in van]},
        errors={"circular": [c.interval for c in circ], "vanilla": [v.interval for v in van]},
        title=title, xlabel="accuracy (%) (whiskers: 95% CI; n: questions; baselines: circular accuracy of "
                            "trivial answerers)", xmax=100,
        baselines=baseline_series(bench, {"circular": circular.key}, names),
    )


def _vanilla(rows: list[Row], label: str) -> Breakdown:
    """Vanilla accuracy per label with its Clopper-Pearson interval (copy 0 of each question)."""
    points = {name: interval_point(share, proportion_interval(round(share * n), n, unit="questions"), 100)
              for name, (share, n) in vanilla_by(rows, label).items()}
    return Breakdown(f"{label}_vanilla", f"MMBench vanilla by {label.upper()}", "accuracy (%)", 100, points,
                     "95% CI (Clopper-Pearson)")


def _breakdowns(bench: BenchView) -> list[Breakdown]:
    """Circular accuracy by L2 ability (a radar too) and by L3 category, n = question groups."""
    r = _result(bench)
    if r.overall is None:
        return []
    whiskers = "95% CI (Clopper-Pearson)"
    l2 = Breakdown("l2", "MMBench circular by L2 ability", "accuracy (%)", 100, {
        name: interval_point(value, r.l2_ci.get(name), 100) for name, value in sorted(r.l2.items())
    }, whiskers, radar=True, unit="question groups")
    l3 = Breakdown("l3", "MMBench circular by L3 category", "accuracy (%)", 100, {
        name: interval_point(value, r.category_ci.get(name), 100)
        for name, value in sorted(r.category.items())
    }, whiskers, unit="question groups")
    return [l2, l3]


def _body(bench: BenchView) -> str:
    r = _result(bench)
    parts = [note(line, warn=True) for line in r.headline()]
    _, l2, l3 = _tables(bench)
    found = _breakdowns(bench)
    if found and found[0].points:
        circ_l2, circ_l3 = found
        van_l2, van_l3 = _vanilla(bench.rows, "l2"), _vanilla(bench.rows, "l3")
        parts.append(charts(lambda: _chart(bench, circ_l2, van_l2, "MMBench by L2 ability"),
                            lambda: _chart(bench, circ_l3, van_l3, "MMBench by L3 category")))
    parts.append(note("Circular: a question counts right only if every rotation of its options is answered "
                      "right. Vanilla: the first copy alone. A wide gap: answers depend on option order."))
    parts.append(table_html(l2, caption="By L2 ability"))
    parts.append(f"<details><summary>By L3 category ({len(l3.rows)})</summary>{table_html(l3)}</details>")
    return "".join(parts)


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    r = _result(bench)
    return {"MMBench circular %": _pct_or_none(r.overall), "MMBench vanilla %": _pct_or_none(r.vanilla)}


SECTION = Section(
    title="MMBench", validate=_validate, cards=_cards, body=_body, tables=_tables, leaderboard=_leaderboard,
    category=_category, breakdowns=_breakdowns,
)
