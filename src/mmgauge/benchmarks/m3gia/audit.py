"""M3GIA's judge audit (the `audit_rules` hook): per language, the judge-free bounds of the accuracy (a unit
is a question); and the judge asked again about a stored answer with its sample at hand (the `sample_judge`
hook, for `audit-judge`). What the bounds mean: `comparison/audit.py`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.judge_audit import audit_entry
from mmgauge.extraction.methods import JUDGE, RANDOM, UNRESOLVED
from mmgauge.parts.answers import Answer
from mmgauge.parts.outcomes import BoolArray
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, ScoreBounds

#: The methods of the answers no rule could read: the judge's, unread (counted wrong) and a random letter.
RULE_UNRESOLVED: Final = frozenset({JUDGE, UNRESOLVED, RANDOM})


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
