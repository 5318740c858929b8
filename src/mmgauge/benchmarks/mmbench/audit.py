"""MMBench's judge audit (the `audit_rules` hook): the judge-free bounds of circular and vanilla accuracy.

A unit is a question group: it is decided by the judge when its CircularEval verdict differs between every
rule-unresolved answer counted right and counted wrong. What the bounds mean: `comparison/audit.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from mmgauge.benchmarks.judge_audit import audit_entry
from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.outcomes import outcomes
from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import BoolArray, Outcomes
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, ScoreBounds

if TYPE_CHECKING:
    from mmgauge.core.types import Sample, SampleRecord
    from mmgauge.extraction.judge import Judge

RULE_UNRESOLVED: Final = MMBenchBenchmark.rule_unresolved


def audit(answers: Sequence[Answer]) -> BenchmarkJudgeAudit:
    chosen = [a for a in answers if a.round == 0]
    meta = [a.metadata for a in chosen]
    keys = np.array([str(m.get("answer", "")) for m in meta], dtype=object)
    correct = np.array([k != "" and a.answer == k for a, k in zip(chosen, keys, strict=True)], dtype=bool)
    loose = np.array([a.method in RULE_UNRESOLVED for a in chosen], dtype=bool)

    # The columns that do not depend on the verdicts, made once for the three scorings.
    columns = {
        "group": np.array([int(m["g_index"]) for m in meta], dtype=np.int64),
        "copy": np.array([int(m["copy"]) for m in meta], dtype=np.int64),
        "n_copies": np.array([int(m["n_copies"]) for m in meta], dtype=np.int64),
        "has_answer": keys != "", "request_failed": np.array([a.failed for a in chosen], dtype=bool),
        "l2": np.full(len(chosen), "", dtype=object), "category": np.full(len(chosen), "", dtype=object),
        "answer": keys,
    }

    def groups(right: BoolArray) -> Outcomes:
        return outcomes(correct=right, **columns)

    scored = groups(correct)
    # With every answer read by rules (no judge step was needed), both bounds are the number as scored.
    high, low = (groups(correct | loose), groups(correct & ~loose)) if loose.any() else (scored, scored)
    bounds = []
    if len(scored):
        for metric, label in (("circular", "MMBench circular"), ("vanilla", "MMBench vanilla")):
            bounds.append(ScoreBounds(
                measure=label, unit="%", value=100 * float(scored.values[metric].mean()),
                all_right=100 * float(high.values[metric].mean()),
                all_wrong=100 * float(low.values[metric].mean()),
                decided=int((high.values[metric] != low.values[metric]).sum()), units=len(scored),
                unit_name="question groups"))
    return audit_entry("mmbench", [a for a in chosen if not a.failed], bounds, RULE_UNRESOLVED)


async def judge_sample(bench: MMBenchBenchmark, judge: Judge, sample: Sample, record: SampleRecord, text: str
                       ) -> str | None:
    """The judge's reading of a stored answer (the `sample_judge` hook: `audit-judge`), asked with the
    question after its hint and the options as shown, as the run's judge pass asks it."""
    from mmgauge.extraction.choice import judge_choice

    hint = str(sample.metadata.get("hint", ""))
    question = f"{hint}\n{sample.question}" if hint else sample.question
    return (await judge_choice(judge, question, dict(sample.options), text)).answer
