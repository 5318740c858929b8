"""Levels computed from runs on the built-in sample data say so wherever they are shown: the terminal, the
JSON, and the report (its General-Level section and the leaderboard's run name)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.report import build_report


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A constant "Yes" model on the 58-question MME sample: Level-3 with three "wins" over specialists."""
    import mmgauge
    from mmgauge.backends.spec import load_backend

    out = tmp_path_factory.mktemp("level-labels") / "run"
    _, backend = load_backend("mock:Yes")
    mmgauge.evaluate(backend, benchmarks=["mme"], out=out, cache=False)
    return out


def test_the_terminal_marks_levels_from_sample_data(sample_run: Path, cli: Any) -> None:
    done = cli("score", "level", sample_run)
    assert done.code == 0, done.err
    text = " ".join(done.out.split())
    assert "highest level reached: Level-3 [sample data]" in text
    assert "(corrected mode) [sample data]" in text
    assert "built-in synthetic sample data" in text and "these levels and wins inherit that" in text


def test_the_json_carries_the_labels_and_caveats(sample_run: Path, cli: Any) -> None:
    done = cli("score", "level", sample_run, "--json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["highest_level"] == 3 and data["labels"] == ["sample data"]
    assert len(data["caveats"]) == 1 and "built-in synthetic sample data" in data["caveats"][0]
    assert data["coverage"]["labels"] == ["sample data"]


def test_the_report_of_the_level_json_marks_it(sample_run: Path, cli: Any, tmp_path: Path) -> None:
    data = json.loads(cli("score", "level", sample_run, "--json").out)
    saved, plain = tmp_path / "level.json", tmp_path / "plain.json"
    saved.write_text(json.dumps(data), encoding="utf-8")
    plain.write_text(json.dumps({**data, "labels": [], "caveats": []}), encoding="utf-8")
    html = build_report([saved, plain], images=False).html
    board = html[html.index('id="leaderboard"'):]
    board = board[:board.index("</table>")]
    assert "level.json [sample data]" in board and "plain.json [" not in board
    assert "Level-3 [sample data]" in html and "these levels and wins inherit that" in html
