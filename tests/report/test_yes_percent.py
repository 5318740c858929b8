"""The report shows MME's yes-ratio in percent, as the run summary and the report's cards do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mmgauge.report import build_report


@pytest.fixture(scope="module")
def yes_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    import mmgauge
    from mmgauge.backends.spec import load_backend

    base = tmp_path_factory.mktemp("yes")
    runs = []
    for name in ("yes", "no"):
        _, backend = load_backend(f"mock:{name.capitalize()}")
        mmgauge.evaluate(backend, benchmarks=["mme"], out=base / name, cache=False)
        runs.append(base / name)
    return runs


def test_the_leaderboard_and_subtask_table_show_yes_in_percent(yes_runs: list[Path]) -> None:
    page = build_report(yes_runs, images=False)
    board = next(table for table in page.tables if table.name == "leaderboard")
    column = board.columns.index("MME yes %")
    assert [row[column] for row in board.rows] == [100.0, 0.0]
    subtasks = next(table for table in page.tables if table.name.endswith("mme_subtasks"))
    share = subtasks.columns.index("yes % of yes/no")
    assert {row[share] for row in subtasks.rows} == {100.0}
    assert not re.search(r"MME yes-ratio", page.html)
