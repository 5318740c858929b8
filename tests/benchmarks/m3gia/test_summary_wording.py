"""The M3GIA summary a run prints counts its rounds in proper English."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmgauge.benchmarks.m3gia.scoring import M3GIAResult
from mmgauge.benchmarks.registry import get_benchmark


def test_one_round_is_one_round(cli: Any, tmp_path: Path) -> None:
    done = cli("run", "--model", "mock:A", "--bench", "m3gia", "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.err
    stored = json.loads((tmp_path / "run" / "results.json").read_text())["benchmarks"]["m3gia"]["result"]
    summary = get_benchmark("m3gia").summary(M3GIAResult.model_validate(stored))
    overall = [value for name, value in summary if name.endswith(" overall")]
    assert overall and all(value.endswith(", 1 round") for value in overall), overall
