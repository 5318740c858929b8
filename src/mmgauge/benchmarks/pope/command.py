"""`mmgauge score pope FILE`: POPE scores of another toolkit's predictions file, without a model (the
benchmark's `score_command` hook; the command line mounts it under `score`)."""

from __future__ import annotations

import sys
from pathlib import Path


def score_command(path: Path, json: bool = False) -> None:
    """Score POPE predictions (VLMEvalKit's file; for POPE also lmms-eval's samples) without a model."""
    from mmgauge.benchmarks.pope.bench import PopeBenchmark
    from mmgauge.benchmarks.pope.predictions import score_predictions

    result = score_predictions(path)
    if json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    for label, value in PopeBenchmark().summary(result):
        sys.stdout.write(f"{label}: {value}\n")
