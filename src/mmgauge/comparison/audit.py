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

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.judge_audit import audit_entry
from mmgauge.benchmarks.registry import known_class
from mmgauge.comparison.outcomes import mmbench_outcomes
from mmgauge.extraction.methods import JUDGE, RANDOM, UNRESOLVED
from mmgauge.parts.answers import Answer, by_benchmark
from mmgauge.parts.outcomes import BoolArray, Outcomes
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, JudgeAudit, ScoreBounds
from mmgauge.store.run_folder import RunFolder

#: The methods of the answers no rule could read, of the benchmarks whose class does not say (its
#: `rule_unresolved`): see `rule_unresolved`.
RULE_UNRESOLVED: dict[str, frozenset[str]] = {
    "mmbench": frozenset({JUDGE, UNRESOLVED, RANDOM}),
    "m3gia": frozenset({JUDGE, UNRESOLVED, RANDOM}),
}


def rule_unresolved(benchmark: str) -> frozenset[str] | None:
    """The extraction methods of the answers no rule of `benchmark` could read; None: no judge step."""
    cls = known_class(benchmark)
    own = cls.rule_unresolved if cls is not None else None
    return own if own is not None else RULE_UNRESOLVED.get(benchmark)


def _entry(benchmark: str, scored: Sequence[Answer], bounds: list[ScoreBounds]) -> BenchmarkJudgeAudit:
    return audit_entry(benchmark, scored, bounds, RULE_UNRESOLVED[benchmark])


def mmbench_audit(answers: Sequence[Answer]) -> BenchmarkJudgeAudit:
    chosen = [a for a in answers if a.round == 0]
    meta = [a.metadata for a in chosen]
    keys = np.array([str(m.get("answer", "")) for m in meta], dtype=object)
    correct = np.array([k != "" and a.answer == k for a, k in zip(chosen, keys, strict=True)], dtype=bool)
    loose = np.array([a.method in RULE_UNRESOLVED["mmbench"] for a in chosen], dtype=bool)

    def groups(right: BoolArray) -> Outcomes:
        return mmbench_outcomes(
            group=np.array([int(m["g_index"]) for m in meta], dtype=np.int64),
            copy=np.array([int(m["copy"]) for m in meta], dtype=np.int64),
            n_copies=np.array([int(m["n_copies"]) for m in meta], dtype=np.int64), correct=right,
            has_answer=keys != "", request_failed=np.array([a.failed for a in chosen], dtype=bool),
            l2=np.full(len(chosen), "", dtype=object), category=np.full(len(chosen), "", dtype=object),
            answer=keys)

    scored, high, low = groups(correct), groups(correct | loose), groups(correct & ~loose)
    bounds = []
    if len(scored):
        for metric, label in (("circular", "MMBench circular"), ("vanilla", "MMBench vanilla")):
            bounds.append(ScoreBounds(
                measure=label, unit="%", value=100 * float(scored.values[metric].mean()),
                all_right=100 * float(high.values[metric].mean()),
                all_wrong=100 * float(low.values[metric].mean()),
                decided=int((high.values[metric] != low.values[metric]).sum()), units=len(scored),
                unit_name="question groups"))
    return _entry("mmbench", [a for a in chosen if not a.failed], bounds)


def _accuracy(values: BoolArray, rounds: npt.NDArray[np.int64]) -> float:
    """Percent right as the M3GIA scorer has it: the mean over rounds of each round's accuracy."""
    return 100 * float(np.mean([values[rounds == r].mean() for r in np.unique(rounds)]))


def m3gia_audit(answers: Sequence[Answer]) -> BenchmarkJudgeAudit:
    scored = [a for a in answers if not a.failed]
    bounds = []
    for language in dict.fromkeys(str(a.metadata.get("language")) for a in scored):
        mine = [a for a in scored if str(a.metadata.get("language")) == language]
        loose = np.array([a.method in RULE_UNRESOLVED["m3gia"] for a in mine], dtype=bool)
        right = np.array([a.correct is True for a in mine], dtype=bool)
        rounds = np.array([a.round for a in mine])
        questions = np.array([str(a.metadata.get("question_id")) for a in mine], dtype=object)
        bounds.append(ScoreBounds(
            measure=f"M3GIA {language} overall", unit="%", value=_accuracy(right, rounds),
            all_right=_accuracy(right | loose, rounds), all_wrong=_accuracy(right & ~loose, rounds),
            decided=len(set(questions[loose].tolist())),
            units=len(set(questions.tolist())), unit_name="questions"))
    return _entry("m3gia", scored, bounds)




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
