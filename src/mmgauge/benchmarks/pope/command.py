"""`mmgauge score pope FILE`: POPE scores of another toolkit's predictions file, without a model (the
benchmark's `score_command` hook; the command line mounts it under `score`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mmgauge.core.params import Arg, Opt


def score_command(path: Annotated[Path, Arg()],
                  json: Annotated[bool, Opt("--json/--no-json")] = False) -> None:
    """Score POPE predictions (VLMEvalKit's file, or lmms-eval's samples) without a model."""
    from mmgauge.benchmarks.pope.bench import PopeBenchmark
    from mmgauge.benchmarks.pope.predictions import score_predictions
    from mmgauge.benchmarks.score_output import print_scores

    print_scores(PopeBenchmark(), score_predictions(path), json=json)
