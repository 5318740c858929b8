"""The leaderboard never ranks a few questions against a whole dataset, and a report finds its images
wherever it is built."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.report import build_report


def test_partial_runs_are_ranked_apart_with_their_n(tmp_path: Path) -> None:
    full = tmp_path / "full"
    few = tmp_path / "few"
    mmgauge.evaluate(model="mock:No", benchmarks=["mme"], out=full, cache=False)
    mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=few, cache=False, limit=6)
    tables = {t.name: t for t in build_report([few, full], images=False).tables}
    board, apart = tables["leaderboard"], tables["leaderboard_partial"]
    assert [row[0] for row in board.rows] == ["mock:No"] and board.rows[0][2] == "complete"
    assert [row[0] for row in apart.rows] == ["mock:Yes"] and apart.rows[0][2] == "partial"
    expected = mmgauge.load_run(full).results.benchmarks["mme"].expected  # type: ignore[union-attr]
    assert apart.rows[0][3] == f"mme 6/{expected}" and board.rows[0][3] == f"mme {expected}/{expected}"


def test_a_report_built_elsewhere_keeps_every_image(tmp_path: Path, cli: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert cli("sample", "mme", "--out", "mme-data").code == 0
    assert cli("run", "--bench", "mme", "--data", "mme-data", "--model", "mock:Yes", "--out", "run",
               "--no-cache").code == 0
    here = build_report([work / "run"]).html.count('id="mmg-img-')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    assert build_report([work / "run"]).html.count('id="mmg-img-') == here > 0
