"""The quick readings of General-Level inputs give what the plain ones give: the shipped specialist table's
JSON form equals the workbook, and a many-model CSV read column-wise scores a model exactly as csv does."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from mmgauge.general_level import default_sota_path, load_specialist_table
from mmgauge.general_level.rows import read_csv_rows, rows_table
from mmgauge.general_level.tables import _read_specialist_workbook


def test_shipped_json_is_the_workbook() -> None:
    # If this fails after the workbook changed: mmgauge.general_level.tables.write_shipped_tasks()
    assert load_specialist_table() == _read_specialist_workbook(default_sota_path())


def write_rows(path: Path, *, quoted_line_break: bool = False) -> None:
    rng = random.Random(5)
    tasks = load_specialist_table()
    rows = []
    for name in ("alpha", "Beta  Model", "gamma"):
        for task in rng.sample(tasks, 300):
            score = "" if rng.random() < 0.2 else f"{task.sota * rng.uniform(0.3, 1.0):.4f}"
            spelled = name if rng.random() < 0.5 else f" {name.upper()} "  # names match without case/spacing
            rows.append([spelled, task.modality or "NLP", task.paradigm or "", task.task, task.metric, score])
    rows.insert(7, ["", "NLP", "", tasks[0].task, tasks[0].metric, "12.5"])  # a row naming no model
    if quoted_line_break:
        rows[3][3] = rows[3][3] + "\nsecond line"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Model", "modality", "paradigm", "task", "metric", "score"])
        writer.writerows(rows)


def test_one_model_of_a_large_csv_reads_as_the_csv_module_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    write_rows(path)
    specialist = load_specialist_table()
    for model in ("beta model", "GAMMA"):
        fast = read_csv_rows(path, model)
        assert len(fast.rows) < 400  # the other models' rows were left out
        expected = rows_table(read_csv_rows(path), specialist, model, path)
        assert rows_table(fast, specialist, model, path).model_dump() == expected.model_dump()
        assert any(t.score_source is not None and t.score_source.line > 300 for t in expected.tasks)


def test_a_line_break_inside_a_cell_is_read_by_the_csv_module(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    write_rows(path, quoted_line_break=True)
    assert len(read_csv_rows(path, "alpha").rows) == len(read_csv_rows(path).rows)  # no rows left out
