"""What the judge decided in a run, from its records: the judge-free bounds of each headline number.

An answer is *rule-unresolved* when no rule of its benchmark could read it: the judge then read it
(method `judge`), left it unread (`unresolved`, MME `words-unknown`; counted wrong), or a seeded random
letter was given (`random`). Every other scored answer was read by rules alone. The headline number is
scored again twice, with every rule-unresolved answer counted right and counted wrong: neither bound
depends on any judge, and the number as scored lies between them. A scoring unit (MMBench question group,
MME image, M3GIA question) is *decided by the judge* when its verdict differs between the two bounds.

MME's `official` parser has no judge step (its "other" answers are wrong by the official tool's
definition), so only the `words` parser's unreadable answers count here.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmgauge.benchmarks.registry import known_class
from mmgauge.parts.answers import Answer, by_benchmark
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, JudgeAudit, ScoreBounds
from mmgauge.store.run_folder import RunFolder


def rule_unresolved(benchmark: str) -> frozenset[str] | None:
    """The extraction methods of the answers no rule of `benchmark` could read; None: no judge step."""
    cls = known_class(benchmark)
    return cls.rule_unresolved if cls is not None and cls.rule_unresolved else None


def number_text(value: float, unit: str) -> str:
    return f"{value:.2f}%" if unit == "%" else f"{value:.1f}"


def range_text(bounds: ScoreBounds) -> str:
    """`low-high`: the judge-free bounds."""
    return f"{number_text(bounds.all_wrong, bounds.unit)} to {number_text(bounds.all_right, bounds.unit)}"


def decided_text(bounds: ScoreBounds) -> str:
    points = "points" if bounds.unit == "points" else "pp"
    return f"{bounds.decided} of {bounds.units} {bounds.unit_name} ({bounds.points_at_stake:.1f} {points})"


def answers_text(entry: BenchmarkJudgeAudit) -> str:
    parts = [f"{entry.judged} judged"] if entry.judged else []
    if entry.unresolved:
        parts.append(f"{entry.unresolved} unread (wrong)")
    if entry.random:
        parts.append(f"{entry.random} random")
    if entry.truncated:
        parts.append(f"{entry.truncated} cut at the token limit")
    return f"{entry.rule_unresolved} of {entry.answers} answers unreadable by rules: " + ", ".join(parts)


def audited_benchmarks(names: set[str]) -> set[str]:
    """Those of `names` whose benchmark has an audit (its `audit_rules` hook)."""
    return {name for name in names if (cls := known_class(name)) is not None and cls.audit_rules is not None}


def judge_audit(answers: Sequence[Answer], judge: str | None) -> JudgeAudit:
    """The audit of a run's final answers (after its judge pass), for the benchmarks that have one."""
    audit = JudgeAudit(judge=judge)
    for benchmark, mine in by_benchmark(answers).items():
        cls = known_class(benchmark)
        build = cls.hook("audit_rules") if cls is not None else None
        if build is not None:
            audit.benchmarks[benchmark] = build(mine)
    return audit


def audit_folder(folder: RunFolder) -> JudgeAudit:
    """The audit of a run folder's final records (read fast, as plain dicts)."""
    manifest = folder.read_manifest() if folder.has_manifest() else None
    judge = manifest.judge.label() if manifest is not None and manifest.judge is not None else None
    dicts, _ = folder.record_dicts() if folder.has_records() else ([], True)
    return judge_audit([Answer.from_dict(data) for data in dicts], judge)
