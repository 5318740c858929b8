"""A run's judge audit in the report: per benchmark, the answers no rule could read and the judge-free bounds
of each headline number; per run, the agreement studies of `mmgauge audit-judge`. Escaped by `table_html`."""

from __future__ import annotations

from mmgauge.comparison.audit import answers_text
from mmgauge.parts.report.section import note
from mmgauge.parts.report.tables import Cell, Table, table_html
from mmgauge.stats.agreement import Kappa
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, JudgeAgreement


def audit_html(prefix: str, judge: str | None, entry: BenchmarkJudgeAudit) -> tuple[str, list[Table]]:
    """The judge audit of one benchmark of one run (nothing when every answer was read by rules)."""
    if not entry.rule_unresolved:
        return "", []
    rows: list[list[Cell]] = [[b.measure, b.unit, b.value, b.all_wrong, b.all_right, b.points_at_stake,
                               b.decided, b.units, b.unit_name] for b in entry.bounds]
    table = Table(f"{prefix}judge_audit_{entry.benchmark}",
                  ["measure", "unit", "as scored", "all unreadable wrong", "all unreadable right",
                   "points at stake", "decided by them", "of", "units"], rows)
    who = f"the judge ({judge})" if judge else "no judge (they count wrong)"
    text = (f"{answers_text(entry)}; read by {who}. The bounds need no judge: every such answer counted "
            "wrong, or right. 'Decided by them': units whose verdict differs between the two bounds.")
    return f"<h4>Answers no rule could read</h4>{note(text)}{table_html(table)}", [table]


def _kappa(kappa: Kappa | None) -> list[Cell]:
    if kappa is None:
        return [None, None, None, None, None, None]
    ci = kappa.agreement_ci
    # A rater that never varied: kappa measures nothing there (its formula's 0 is not shown as a value).
    value = kappa.kappa if kappa.low is not None else None
    return [value, kappa.low, kappa.high, kappa.observed_agreement * 100, ci.low * 100, ci.high * 100]


def agreement_html(prefix: str, agreement: JudgeAgreement | None) -> tuple[str, list[Table]]:
    """Every agreement study kept in the run folder, per study overall and per benchmark."""
    if agreement is None or not agreement.studies:
        return "", []
    kinds = ("judge vs rules", "second judge vs rules", "second judge vs judge")
    rows: list[list[Cell]] = []
    for number, study in enumerate(agreement.studies, start=1):
        for name, part in [("all", study.overall), *study.per_benchmark.items()]:
            for kind, kappa in zip(kinds, (part.judge_vs_rules, part.against_vs_rules, part.against_vs_judge),
                                   strict=True):
                if kappa is None:
                    continue
                rows.append([number, study.judge, study.against, study.seed, name, kind, part.items,
                             *_kappa(kappa)])
    table = Table(f"{prefix}judge_agreement",
                  ["study", "judge", "second judge", "seed", "answers", "comparison", "n", "kappa",
                   "kappa CI low", "kappa CI high", "agreement %", "agreement CI low", "agreement CI high"],
                  rows, digits=3)
    text = ("mmgauge audit-judge: answers the rules read, read again by the judge as the run's judge pass "
            "would ask it. Kappa with its Fleiss-Cohen-Everitt interval; raw agreement with its exact "
            "interval.")
    return (f"<h3>Judge agreement ({len(agreement.studies)} studies)</h3>{note(text)}{table_html(table)}",
            [table])
