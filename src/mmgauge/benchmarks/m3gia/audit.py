"""M3GIA's judge audit (the `audit_rules` hook): per language, the judge-free bounds of the accuracy (a unit
is a question); and the judge asked again about a stored answer with its sample at hand (the `sample_judge`
hook, for `audit-judge`). What the bounds mean: `comparison/audit.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.judge_audit import audit_entry
from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark
from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import BoolArray
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, ScoreBounds

if TYPE_CHECKING:  # the judge (sqlite, asyncio, ssl) is loaded by whoever asks it
    from mmgauge.core.types import Sample, SampleRecord
    from mmgauge.extraction.judge import Judge

#: The methods of the answers no rule could read: the judge's, unread (counted wrong) and a random letter.
RULE_UNRESOLVED: Final = M3GIABenchmark.rule_unresolved


def _accuracy(values: BoolArray, rounds: npt.NDArray[np.int64]) -> float:
    """Percent right as the M3GIA scorer has it: the mean over rounds of each round's accuracy."""
    return 100 * float(np.mean([values[rounds == r].mean() for r in np.unique(rounds)]))


def audit(answers: Sequence[Answer]) -> BenchmarkJudgeAudit:
    scored = [a for a in answers if not a.failed]
    bounds = []
    for language in dict.fromkeys(str(a.metadata.get("language")) for a in scored):
        mine = [a for a in scored if str(a.metadata.get("language")) == language]
        loose = np.array([a.method in RULE_UNRESOLVED for a in mine], dtype=bool)
        right = np.array([a.correct is True for a in mine], dtype=bool)
        rounds = np.array([a.round for a in mine])
        questions = np.array([str(a.metadata.get("question_id")) for a in mine], dtype=object)
        bounds.append(ScoreBounds(
            measure=f"M3GIA {language} overall", unit="%", value=_accuracy(right, rounds),
            all_right=_accuracy(right | loose, rounds), all_wrong=_accuracy(right & ~loose, rounds),
            decided=len(set(questions[loose].tolist())),
            units=len(set(questions.tolist())), unit_name="questions"))
    return audit_entry("m3gia", scored, bounds, RULE_UNRESOLVED)


async def judge_sample(bench: M3GIABenchmark, judge: Judge, sample: Sample, record: SampleRecord, text: str
                       ) -> str | None:
    """The judge's reading of a stored answer, against the options in the order that round showed them and
    mapped back to the original letter, as the run's judge pass reads it."""
    from mmgauge.benchmarks.m3gia.prompts import question_text
    from mmgauge.extraction.choice import judge_choice
    from mmgauge.extraction.options import LETTERS

    order = bench.option_order(sample, record.round)
    shown = {LETTERS[i]: sample.options[letter] for i, letter in enumerate(order)}
    hint = str(sample.metadata.get("hint", ""))
    found = (await judge_choice(judge, question_text(sample.question, hint), shown, text)).answer
    if found is None:
        return None
    return order[LETTERS.index(found)] if found in LETTERS[: len(order)] else found
