"""One benchmark's entry of the judge audit, from its answers and bounds: shared by the `audit_rules` hooks
(the audit itself, what it means and its text: `comparison/audit.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mmgauge.extraction.methods import JUDGE, RANDOM, UNRESOLVED
from mmgauge.parts.answers import Answer
from mmgauge.store.judge_audit import BenchmarkJudgeAudit, ScoreBounds

#: The yes/no reader's answer that says neither (`extraction/yesno.py`): left unread, like `unresolved`.
YESNO_UNREADABLE: Final = "words-unknown"
UNREAD: Final = frozenset({UNRESOLVED, YESNO_UNREADABLE})


def audit_entry(benchmark: str, scored: Sequence[Answer], bounds: list[ScoreBounds],
                rule_unresolved: frozenset[str]) -> BenchmarkJudgeAudit:
    """`rule_unresolved`: the extraction methods of the answers no rule of the benchmark could read."""
    methods = [a.method for a in scored]
    return BenchmarkJudgeAudit(
        benchmark=benchmark, answers=len(scored),
        rule_unresolved=sum(m in rule_unresolved for m in methods),
        judged=sum(m == JUDGE for m in methods), unresolved=sum(m in UNREAD for m in methods),
        random=sum(m == RANDOM for m in methods), bounds=bounds,
        truncated=sum(a.truncated and a.method in rule_unresolved for a in scored),
    )
