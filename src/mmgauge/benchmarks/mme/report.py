"""MME: perception and cognition totals with bootstrap CIs, per-subtask acc / acc+ and the yes-ratio.

Every MME image has one "yes" and one "no" question, so an unbiased model answers "yes" half the time. A
model that says "yes" to nearly everything scores acc near 50 and acc+ near 0: the yes-ratio chart puts the
bias beside the scores, and a callout names it when the overall ratio is far from one half.

The yes-ratio is yes / (yes + no) over the answers read as yes or no; answers read as neither ("other",
unreadable) are left out of it and counted apart, so a model answering "A" to everything has no yes-ratio
and is never described as answering "no".
"""

from __future__ import annotations

from typing import Any

from mmgauge.benchmarks.mme.scoring import (
    COGNITION,
    SUBTASKS,
    MMEResult,
    Total,
    answer_bias,
    overall_yes_ratio,
)
from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import Breakdown, interval_point, with_n
from mmgauge.parts.report.section import Card, Section, baseline_series, charts, note
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.parts.report.views import BenchView, Row

#: Overall yes-ratio outside [1 - BIAS, BIAS] is called out as a bias.


def _result(bench: BenchView) -> MMEResult:
    return MMEResult.model_validate(bench.result)


def _validate(result: dict[str, Any]) -> None:
    MMEResult.model_validate(result)


def _ci(total: Total) -> str | None:
    if total.ci_low is None or total.ci_high is None:
        return None
    return f"95% CI {total.ci_low:.1f}–{total.ci_high:.1f}"


def _read(questions: int, other: int) -> int:
    """Answers read as yes or no."""
    return max(0, questions - other)


yes_ratio = overall_yes_ratio


def _unreadable(r: MMEResult) -> str:
    return f"{r.other} of {r.questions} answers were read as neither yes nor no (counted wrong)"


def _cards(bench: BenchView) -> list[Card]:
    r = _result(bench)
    cards = []
    for name, total in (("perception", r.perception), ("cognition", r.cognition)):
        if not total.scored:
            cards.append(Card(f"MME {name}", "nothing scored yet", f"none of its subtasks answered (of "
                                                                   f"{total.max:.0f})", warn=True))
            continue
        value = f"{total.score:.1f} / {total.max:.0f}" + (" (partial)" if total.partial else "")
        cards.append(Card(f"MME {name}", value, _ci(total), warn=total.partial))
    ratio = yes_ratio(r)
    if ratio is not None:
        biased = answer_bias(ratio)
        read = _read(r.questions, r.other)
        cards.append(Card("yes among yes/no answers", f"{100 * ratio:.1f}%",
                          f"of {read} answers read as yes or no; truth: 50%", warn=biased))
    if r.other:
        cards.append(Card("unreadable answers", f"{r.other} of {r.questions}",
                          "neither yes nor no: counted wrong, not in the yes share", warn=True))
    return cards


def _ordered(r: MMEResult) -> list[str]:
    return [name for name in SUBTASKS if name in r.subtasks]


def _body(bench: BenchView) -> str:
    r = _result(bench)
    names = _ordered(r)
    parts: list[str] = []
    ratio = yes_ratio(r)
    if ratio is not None and answer_bias(ratio):
        word = "yes" if ratio > 0.5 else "no"
        unread = f" {_unreadable(r)} and are not in this share." if r.other else ""
        parts.append(note(
            f"Answer bias: of the answers read as yes or no, {100 * max(ratio, 1 - ratio):.0f}% were "
            f"'{word}', while exactly half of MME's answers are 'yes'.{unread} acc+ (both questions of an "
            "image right) exposes the bias.",
            warn=True))
    if r.other and (ratio is None or r.other * 2 > r.questions):
        read = "none" if ratio is None else f"only {_read(r.questions, r.other)}"
        parts.append(note(f"{_unreadable(r)}; {read} were read as yes or no. The parser found no yes/no "
                          "in the other answers: check the prompt or the model's answer format.", warn=True))
    for label, total in (("Perception", r.perception), ("Cognition", r.cognition)):
        if total.partial:
            missing = ", ".join(total.missing) or "none"
            incomplete = ", ".join(total.incomplete) or "none"
            text = f"{label} total is partial: missing subtasks {missing}; incomplete {incomplete}."
            parts.append(note(text, warn=True))
    if names:
        parts.append(charts(lambda: _scores_chart(bench, r, names), lambda: _bias_chart(r, names)))
    parts.append(table_html(_tables(bench)[0], caption="Per subtask"))
    return "".join(parts)


def _scores_chart(bench: BenchView, r: MMEResult, names: list[str]) -> str:
    acc, plus = _breakdowns(r)
    return plots.hbars(
        # acc rests on questions, acc+ on images: both counts, named (a "/" would read as two runs).
        [f"{n} (n={acc.points[n].n} q, {plus.points[n].n} img)" for n in names],
        {"acc": [acc.points[n].value for n in names], "acc+": [plus.points[n].value for n in names]},
        errors={"acc": [acc.points[n].interval for n in names],
                "acc+": [plus.points[n].interval for n in names]},
        title="MME subtasks: acc and acc+",
        xlabel="percent (whiskers: 95% CI; n: questions (q), images (img); baselines: what trivial answerers "
               "score)",
        xmax=100,
        baselines=baseline_series(bench, {"acc": "acc", "acc+": "acc_plus"}, names),
    )


def _bias_chart(r: MMEResult, names: list[str]) -> str:
    # A subtask with no answer read as yes or no has no ratio: no bar, rather than a bar at 0 ("all no").
    ratios = [r.subtasks[n].yes_ratio if _read(r.subtasks[n].questions, r.subtasks[n].other) else None
              for n in names]
    colors = [plots.WARN if answer_bias(v) else plots.PALETTE[4] for v in ratios]
    return plots.hbars(
        [with_n(n, [_read(r.subtasks[n].questions, r.subtasks[n].other)]) for n in names],
        {"yes %": [_percent(v) for v in ratios]}, title="Share of 'yes' among yes/no answers",
        xlabel="yes % of yes/no answers (n: answers read as yes or no)", xmax=100.0,
        reference=(50.0, "truth (50%)"), colors=colors,
    )


def _percent(ratio: float | None) -> float | None:
    """The yes-ratio as people read it everywhere (percent); results JSON keeps the 0..1 fraction."""
    return None if ratio is None else 100.0 * ratio


def _breakdowns(r: MMEResult) -> list[Breakdown]:
    """acc per subtask (n = answered questions) and acc+ (n = images with both questions answered)."""
    names = _ordered(r)
    whiskers = "95% CI (Clopper-Pearson)"
    acc = Breakdown("acc", "MME acc per subtask", "acc (%)", 100, {
        n: interval_point(r.subtasks[n].acc, r.subtasks[n].acc_ci, n=None if r.subtasks[n].acc_ci
                          else r.subtasks[n].questions) for n in names}, whiskers)
    plus = Breakdown("acc_plus", "MME acc+ per subtask", "acc+ (%)", 100, {
        n: interval_point(r.subtasks[n].acc_plus, r.subtasks[n].acc_plus_ci,
                          n=None if r.subtasks[n].acc_plus_ci else r.subtasks[n].images) for n in names},
        whiskers, unit="images")
    return [acc, plus]


def _tables(bench: BenchView) -> list[Table]:
    r = _result(bench)
    rows: list[list[Cell]] = []
    for name in _ordered(r):
        s = r.subtasks[name]
        rows.append([
            name, "cognition" if name in COGNITION else "perception", s.acc, s.acc_plus, s.score,
            _percent(s.yes_ratio) if _read(s.questions, s.other) else None, s.questions, s.images, s.other,
            s.failed, s.complete,
        ])
    subtasks = Table("mme_subtasks", ["subtask", "part", "acc", "acc+", "score", "yes % of yes/no",
                                      "questions", "images", "unreadable", "failed", "complete"], rows)
    totals = Table("mme_totals", ["part", "score", "max", "ci_low", "ci_high", "partial"], [
        [name, t.score if t.scored else None, t.max, t.ci_low, t.ci_high, t.partial]
        for name, t in (("perception", r.perception), ("cognition", r.cognition))
    ])
    return [subtasks, totals]


def _leaderboard(bench: BenchView) -> dict[str, float | None]:
    r = _result(bench)
    return {"MME perception": r.perception.score, "MME cognition": r.cognition.score,
            "MME yes %": _percent(yes_ratio(r))}


def _category(row: Row) -> str:
    return str(row.metadata.get("subtask", ""))


SECTION = Section(
    title="MME", validate=_validate, cards=_cards, body=_body, tables=_tables, leaderboard=_leaderboard,
    category=_category, breakdowns=lambda bench: _breakdowns(_result(bench)),
)
