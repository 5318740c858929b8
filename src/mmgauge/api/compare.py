"""`compare(runs)`: is run A really better than run B? Paired tests and intervals on the items both answered.

Runs are run folders from `mmgauge run`, or answer files scored with `mmgauge score` (MME official results
folders and answer tables, MMBench predictions xlsx/TSV); any mix. Methods: docs/statistics.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.comparison.core import Comparison
from mmgauge.parts.metric_rows import CompareSettings

if TYPE_CHECKING:
    from mmgauge.extraction.judge import Judge


def compare(
    runs: Sequence[str | Path],
    *,
    parser: str | None = None,
    judge: str | Judge | None = None,
    literal_options: bool = False,
    level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    resamples: int = 2000,
    seed: int = 0,
) -> Comparison:
    """Compare every pair of `runs` on every benchmark they share, per benchmark and per breakdown.

    - `parser`: how MME answer files are read (`official`, the default, or `words`); run folders keep the
      reading their run made.
    - `judge`: a judge spec or `Judge` for MMBench predictions files (default: the rules only, as
      `mmgauge score mmbench --judge none`); `literal_options` as in `score_mmbench`.
    - `level`: of the intervals; `alpha`: of the tests (after Holm's correction over the pairs of runs
      when there are more than two); `power`: of the minimum detectable difference.
    - `resamples`, `seed`: of the paired bootstraps (each number is seeded on its own from `seed`).
    """
    from pydantic import ValidationError

    from mmgauge.comparison.core import compare_sources
    from mmgauge.comparison.sources import read_source
    from mmgauge.core.errors import UserError
    from mmgauge.core.sync import run_sync
    from mmgauge.extraction.judge_spec import judge_for

    try:
        settings = CompareSettings(level=level, alpha=alpha, power=power, resamples=resamples, seed=seed)
    except ValidationError as error:
        first = error.errors()[0]
        raise UserError(first["msg"], field="--" + ".".join(str(part) for part in first["loc"])) from None
    the_judge = judge_for(judge)
    try:
        sources = [read_source(run, parser=parser, judge=the_judge, literal_options=literal_options)
                   for run in runs]
    finally:
        if the_judge is not None and the_judge is not judge:
            run_sync(the_judge.backend.aclose())
    return compare_sources(sources, settings)
