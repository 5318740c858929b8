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
#: How the detail of a judge-failed answer begins when the judge's server refused every try the same way (a
#: context-length 400, an identical 500): the next run asks again, but the same command gets the same refusal,
#: so the run does not advise it (`judge_refused`).
JUDGE_REFUSED: Final = "the judge's server refused every try: "


def judge_refused(method: str, detail: str | None) -> bool:
    """Whether an answer's judge calls all failed with refusals that asking again would meet again."""
    return method == JUDGE_FAILED and detail is not None and detail.startswith(JUDGE_REFUSED)
