"""`mmgauge score pope FILE`: mounted from the benchmark's `score_command` hook, the same result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmgauge.benchmarks.pope.predictions import score_predictions
from mmgauge.cli.main import main

from .test_score_predictions import lmms_eval_log


def test_score_pope_prints_the_result_of_score_predictions(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = lmms_eval_log(tmp_path / "samples_pope.jsonl")
    with pytest.raises(SystemExit) as stop:
        main(["score", "pope", str(path), "--json"])
    assert stop.value.code == 0
    assert json.loads(capsys.readouterr().out) == json.loads(score_predictions(path).model_dump_json())
    with pytest.raises(SystemExit):
        main(["score", "pope", str(path)])
    assert "POPE" in capsys.readouterr().out
