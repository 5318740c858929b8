"""MME's judge audit (the `audit_rules` hook): the judge-free bounds of the perception and cognition totals;
and the judge asked about one stored answer (the `record_judge` hook, for `audit-judge`).

Only the `words` parser's unreadable answers count: the `official` parser has no judge step (its "other"
answers are wrong by the official tool's definition). A unit is an image (its two questions make acc+).
What the bounds mean: `comparison/audit.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmgauge.benchmarks.judge_audit import audit_entry
from mmgauge.benchmarks.mme.bench import RULE_UNRESOLVED, ask_judge
from mmgauge.benchmarks.mme.scoring import COGNITION, MMEItem, score_mme
from mmgauge.core.types import SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.parts.answers import Answer
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, ScoreBounds


def audit(answers: Sequence[Answer]) -> BenchmarkJudgeAudit:
    scored = [a for a in answers if not a.failed]
    loose = [a.method in RULE_UNRESOLVED for a in scored]

    def items(mode: str) -> list[MMEItem]:
        out = []
        for a, free in zip(scored, loose, strict=True):
            truth = str(a.metadata.get("truth") or a.target or "").lower()
            answer = a.answer
            if free and mode != "scored":
                answer = truth if mode == "right" else ("no" if truth == "yes" else "yes")
            image = str(a.metadata["image"]) + ("" if a.round == 0 else f"@{a.round}")
            out.append(MMEItem(str(a.metadata["subtask"]), image, truth, answer, a.method or ""))
        return out

    results = {mode: score_mme(items(mode), parser="audit", resamples=0)
               for mode in ("scored", "right", "wrong")}
    decided: dict[str, set[str]] = {"perception": set(), "cognition": set()}
    images: dict[str, set[str]] = {"perception": set(), "cognition": set()}
    for item, free in zip(items("scored"), loose, strict=True):
        total = "cognition" if item.subtask in COGNITION else "perception"
        images[total].add(f"{item.subtask}/{item.image}")
        if free:
            decided[total].add(f"{item.subtask}/{item.image}")
    bounds = []
    for total in ("perception", "cognition"):
        if not images[total]:
            continue
        bounds.append(ScoreBounds(
            measure=f"MME {total}", unit="points", value=getattr(results["scored"], total).score,
            all_right=getattr(results["right"], total).score,
            all_wrong=getattr(results["wrong"], total).score,
            decided=len(decided[total]), units=len(images[total]), unit_name="images"))
    return audit_entry("mme", scored, bounds, RULE_UNRESOLVED)


async def judge_record(judge: Judge, record: SampleRecord, text: str) -> str | None:
    """The run's own judge procedure, on the question the record keeps (no dataset needed)."""
    question = str(record.metadata.get("question", record.prompt))
    return (await ask_judge(judge, question, text)).answer
