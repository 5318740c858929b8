"""`mmgauge.score_mmbench`: CircularEval scores of another toolkit's predictions file, without a model (the
library's face of `mmgauge score mmbench`; exported through the benchmark's `library_functions` hook)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.extraction.judge_spec import given_judge, judge_for, no_judge

if TYPE_CHECKING:
    from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
    from mmgauge.extraction.judge import Judge


async def score_mmbench_async(
    source: str | Path, judge: str | Judge | None = None, *, seed: int = 0, random_fallback: bool = False,
    literal_options: bool = False,
) -> MMBenchResult:
    """`score_mmbench` for callers inside a running event loop."""
    from mmgauge.benchmarks.mmbench.predictions import score_prediction_file

    the_judge = judge_for(judge)
    try:
        return await score_prediction_file(Path(source), the_judge, literal_options=literal_options,
                                           random_fallback=random_fallback, seed=seed)
    finally:
        if the_judge is not None and not given_judge(judge):
            await the_judge.backend.aclose()


def score_mmbench(
    source: str | Path, judge: str | Judge | None = None, *, seed: int = 0, random_fallback: bool = False,
    literal_options: bool = False,
) -> MMBenchResult:
    """CircularEval scores of an MMBench predictions file, as VLMEvalKit scores it (VLMEvalKit's and
    lmms-eval's xlsx/TSV, lmms-eval's sample log).

    `judge`: None or "none" (rules only), a judge model spec, or a `Judge`. `literal_options` keeps option
    texts pandas would read as missing (`None`, `NA`, ...), which VLMEvalKit drops.
    """
    if no_judge(judge) and not random_fallback:
        # Rules only: a TSV is scored column-wise, with no event loop and no judge machinery imported.
        from mmgauge.benchmarks.mmbench.prediction_columns import score_prediction_columns

        fast = score_prediction_columns(Path(source), literal_options=literal_options, seed=seed)
        if fast is not None:
            return fast
    from mmgauge.core.sync import run_sync

    result: MMBenchResult = run_sync(score_mmbench_async(
        source, judge, seed=seed, random_fallback=random_fallback, literal_options=literal_options))
    return result
