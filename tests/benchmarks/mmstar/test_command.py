"""`mmgauge score mmstar FILE`: mounted from the benchmark's `score_command` hook, the same result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmgauge.benchmarks.mmstar.predictions import score_predictions
from mmgauge.cli.main import main


def test_score_mmstar_prints_the_result_of_score_predictions(predictions: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["score", "mmstar", str(predictions), "--json"])
    assert stop.value.code == 0
    assert json.loads(capsys.readouterr().out) == json.loads(score_predictions(predictions).model_dump_json())
