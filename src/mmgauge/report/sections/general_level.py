"""General-Level: Levels 2 to 5, per-modality bars and the highest level reached.

Reads both a dumped `LevelReport` and the object `mmgauge level --json` prints (a subset of its fields), so a
level report from either path can sit beside a run or be given to `mmgauge report` on its own.
"""

from __future__ import annotations

from typing import Any

from mmgauge.general_level.level_view import LevelView
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import with_n
from mmgauge.parts.report.section import Card, Section, charts, note
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView


def _view(bench: BenchView) -> LevelView:
    return LevelView.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    LevelView.model_validate(result)


def _reached(view: LevelView) -> str:
    reached = "none (no level above 0)" if view.highest_level is None else f"Level-{view.highest_level}"
    return f"{reached} [{', '.join(view.labels)}]" if view.labels else reached


def _cards(bench: BenchView) -> list[Card]:
    v = _view(bench)
    return [
        Card("highest level reached", _reached(v), f"{v.mode} mode" if v.mode else None),
        Card("Level-2", f"{v.level2:.2f}"), Card("Level-3", f"{v.level3:.2f}"),
        Card("Level-4", f"{v.level4:.2f}"), Card("Level-5", f"{v.level5:.4f}", f"w_L = {v.nlp.weight:.4f}"),
    ]


def _tables(bench: BenchView) -> list[Table]:
    v = _view(bench)
    rows: list[list[Cell]] = [
        [name, m.level2, m.level3, m.level4, m.supported, m.total, m.wins] for name, m in v.modalities.items()
    ]
    rows.append(["NLP", None, v.nlp.score, None, v.nlp.supported, v.nlp.total, v.nlp.wins])
    rows.append(["Overall", v.level2, v.level3, v.level4, None, None, None])
    return [
        Table("general_level_modalities",
              ["modality", "Level-2", "Level-3", "Level-4", "supported", "total", "wins"], rows),
        Table("general_level_levels", ["level", "score"],
              [["Level-2", v.level2], ["Level-3", v.level3], ["Level-4", v.level4], ["Level-5", v.level5],
               ["highest", v.highest_level]], digits=4),
    ]


def _body(bench: BenchView) -> str:
    v = _view(bench)
    parts: list[str] = [note(f"{text}: these levels and wins inherit that.", warn=True) for text in v.caveats]
    names = list(v.modalities)
    supported = sum(m.supported for m in v.modalities.values())
    total = sum(m.total for m in v.modalities.values())
    if total and supported / total < 0.05:
        parts.append(note(f"Only {supported} of {total} tasks have a score; every other task counts as "
                          "unsupported and scores 0, so the levels stay near 0.", warn=True))
    if names:
        parts.append(charts(
            lambda: plots.hbars(
                [with_n(n, [v.modalities[n].total]) for n in names],
                {"Level-2": [v.modalities[n].level2 for n in names],
                 "Level-3": [v.modalities[n].level3 for n in names],
                 "Level-4": [v.modalities[n].level4 for n in names]},
                title="General-Level per modality", xlabel="score (n: tasks)",
            ),
            lambda: plots.vbars(["L2", "L3", "L4", "L5 x100"], [v.level2, v.level3, v.level4, 100 * v.level5],
                                title=f"Levels (highest reached: {_reached(v)})",
                                ylabel=f"score (n={total} tasks, {supported} scored)"),
        ))
    parts.append(table_html(_tables(bench)[0], caption="Per modality"))
    return "".join(parts)


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    v = _view(bench)
    return {"General-Level highest": None if v.highest_level is None else float(v.highest_level),
            "General-Level L2": v.level2, "General-Level L3": v.level3}


SECTION = Section(
    title="General-Level", validate=_validate, cards=_cards, body=_body, tables=_tables,
    leaderboard=_leaderboard,
)
