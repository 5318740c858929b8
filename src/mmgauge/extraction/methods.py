"""Extraction method names shared by every answer reader, so reports can group them across benchmarks."""

from __future__ import annotations

from typing import Final

JUDGE: Final = "judge"
RANDOM: Final = "random"
FAILURE: Final = "failure"
UNRESOLVED: Final = "unresolved"
#: Every judge call for the answer failed (after retries): the answer waits for the judge, like a failed
#: request, and is never scored as wrong; the next run asks again.
JUDGE_FAILED: Final = "judge-failed"
