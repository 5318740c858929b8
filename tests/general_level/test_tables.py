"""Reading General-Level tables: the specialist table, results workbooks, CSV and JSON rows, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from mmgauge.core.errors import UserError
from mmgauge.general_level import load_results, load_specialist_table
from mmgauge.scoring.general_level import SHEETS, TaskRow

HEADER = ["No", "Task Name", "Task Short Name", "Metrics"]
# One task per sheet, two in Image-Comprehension; (task, metric, sota).
TASKS: dict[str, list[tuple[str, str, float]]] = {
    "NLP": [("Commonsense Reasoning", "ACC", 83.33)],
    "Image-Comprehension": [("Crowd Counting", "MAE", 5.95), ("Image Captioning", "Acc", 50.0)],
    "Image-Generation": [("Image Deraining", "PSNR", 34.56)],
    "Video-Comprehension": [("Action Recognition", "Acc", 70.0)],
    "Video-Generation": [("Human T2V", "FVD", 72.74)],
    "Audio-Comprehension": [("Speech Recognition", "Acc", 90.0)],
    "Audio-Generation": [("TTS", "WER", 5.6)],
    "3D-Comprehension": [("3D Odometry", "RTE ( Relative Translation Error)", 0.55)],
    "3D-Generation": [("3D PC Comp", "CD (Chamfer Distance)", 0.217)],
}


def write_book(path: Path, sheets: dict[str, list[list[Any]]]) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


@pytest.fixture
def specialist(tmp_path: Path) -> list[TaskRow]:
    sheets = {
        name: [[*HEADER, "SoTA Performance"]] + [[i + 1, t, t[:8], m, s] for i, (t, m, s) in enumerate(rows)]
        for name, rows in TASKS.items()
    }
    return load_specialist_table(write_book(tmp_path / "sota.xlsx", sheets))


def results_book(
    tmp_path: Path, columns: list[str], scores: dict[str, list[Any]], skip: str | None = None
) -> Path:
    """A results workbook with ``columns`` after the template's; ``scores[sheet]`` gives each row's cells."""
    sheets: dict[str, list[list[Any]]] = {}
    for name, rows in TASKS.items():
        if name == skip:
            continue
        cells = scores.get(name, [[None] * len(columns)] * len(rows))
        sheets[name] = [[*HEADER, *columns]] + [
            [i + 1, t, t[:8], m, *cells[i]] for i, (t, m, _) in enumerate(rows)
        ]
    return write_book(tmp_path / "results.xlsx", sheets)


def test_specialist_table_default_is_the_release() -> None:
    tasks = load_specialist_table()
    assert len(tasks) == 699
    assert [s for s in SHEETS if not any(t.sheet == s for t in tasks)] == []
    first = tasks[0]
    assert (first.sheet, first.row, first.task, first.metric, first.sota) == (
        "NLP", 2, "Commonsense Reasoning", "ACC", 83.33,
    )  # fmt: skip


def test_results_workbook_with_the_only_model_column(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(
        tmp_path,
        ["my-model"],
        {"Image-Comprehension": [[4.0], ["∞"]], "NLP": [["61.5"]], "Audio-Generation": [[0.05]]},
    )
    table = load_results(path, specialist)
    assert table.model == "my-model"
    got = {t.task: t.score for t in table.tasks}
    # The release's ∞ marker means unsupported.
    assert got["Crowd Counting"] == 4.0 and got["Image Captioning"] is None
    assert got["Commonsense Reasoning"] == 61.5 and got["TTS"] == 0.05 and got["Human T2V"] is None


def test_model_column_by_name_and_ambiguity(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(tmp_path, ["A", "B"], {"NLP": [[10.0, 20.0]]})
    with pytest.raises(UserError, match=r"several model columns \['A', 'B'\]; choose one with --model"):
        load_results(path, specialist)
    by_name = load_results(path, specialist, model="b")  # case-insensitive, as the release matches
    assert by_name.model == "B" and by_name.tasks[0].score == 20.0


def test_two_columns_for_one_model(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(tmp_path, ["M", "m"], {})
    with pytest.raises(UserError, match=r"sheet 'NLP' has two columns for model 'M' \(columns E and F\)"):
        load_results(path, specialist, model="M")
    with pytest.raises(UserError, match="two columns for model"):
        load_results(path, specialist)  # one model name, twice: ambiguous without --model too


def test_non_numeric_score_names_sheet_row_and_column(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(tmp_path, ["M"], {"Image-Comprehension": [[1.0], ["n.a. yet"]]})
    with pytest.raises(UserError) as err:
        load_results(path, specialist)
    message = str(err.value)
    assert "results.xlsx:3" in message and "sheet 'Image-Comprehension'" in message
    assert "M (column E)" in message and "'n.a. yet' is not a number" in message


def test_sheets_that_do_not_match(tmp_path: Path, specialist: list[TaskRow]) -> None:
    with pytest.raises(UserError, match=r"missing \['3D-Generation'\]"):
        load_results(results_book(tmp_path, ["M"], {}, skip="3D-Generation"), specialist)
    path = results_book(tmp_path, ["M"], {})
    book = openpyxl.load_workbook(path)
    book.create_sheet("Extra")
    book.save(path)
    with pytest.raises(UserError, match=r"not in the specialist table \['Extra'\]"):
        load_results(path, specialist)


def test_tasks_that_do_not_match(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(tmp_path, ["M"], {})
    book = openpyxl.load_workbook(path)
    book["Video-Comprehension"]["B2"] = "Action Recognitoin"
    book.save(path)
    with pytest.raises(
        UserError, match=r":2, field 'Task Name': sheet 'Video-Comprehension': task 'Action Recog"
    ):
        load_results(path, specialist)
    book["Video-Comprehension"].delete_rows(2)
    book.save(path)
    with pytest.raises(UserError, match=r"sheet 'Video-Comprehension' lacks tasks .*Action Recognition"):
        load_results(path, specialist)


def test_metric_that_differs_or_is_unknown(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = results_book(tmp_path, ["M"], {})
    book = openpyxl.load_workbook(path)
    book["3D-Generation"]["D2"] = "cd"  # the same metric, spelt differently: accepted
    book.save(path)
    load_results(path, specialist)
    book["3D-Generation"]["D2"] = "FID"
    book.save(path)
    with pytest.raises(UserError, match=r"field 'Metrics'.*'FID' differs from the specialist table's 'CD"):
        load_results(path, specialist)
    sota = write_book(tmp_path / "bad_sota.xlsx", {
        name: [[*HEADER, "SoTA Performance"], [1, "t", "t", "Perplexity" if name == "NLP" else "Acc", 1.0]]
        for name in SHEETS
    })  # fmt: skip
    with pytest.raises(UserError, match=r"bad_sota.xlsx:2, field 'Metrics': sheet 'NLP': unknown metric"):
        load_specialist_table(sota)


def test_csv_rows(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        "modality,paradigm,task,metric,score\n"
        "image,comprehension,crowd counting,mae,4\n"
        "NLP,,Commonsense Reasoning,Acc,0.9\n"
        "3D,Generation,3D PC Comp,Chamfer Distance,\n"
    )
    table = load_results(path, specialist)
    got = {t.task: t.score for t in table.tasks}
    assert got["Crowd Counting"] == 4.0 and got["Commonsense Reasoning"] == 0.9 and got["3D PC Comp"] is None
    assert table.model == "rows"


@pytest.mark.parametrize(
    ("line", "pattern"),
    [
        ("Image,Comprehension,Crowd Counting,MAE,many", r"rows.csv:2, field 'score'.*'many' is not a number"),
        ("Image,Comprehension,Crowd Counting,Perplexity,3", r"rows.csv:2, field 'metric'.*unknown metric"),
        (
            "Image,Comprehension,Crowd Counting,FID,3",
            r"field 'metric'.*differs from the specialist table's 'MAE'",
        ),
        ("Image,Comprehension,Unknown Task,MAE,3", r"field 'task'.*not in sheet 'Image-Comprehension'"),
        ("Smell,Comprehension,Crowd Counting,MAE,3", r"field 'modality'"),
        ("Image,Understanding,Crowd Counting,MAE,3", r"field 'paradigm'"),
    ],
)
def test_bad_csv_rows(tmp_path: Path, specialist: list[TaskRow], line: str, pattern: str) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(f"modality,paradigm,task,metric,score\n{line}\n")
    with pytest.raises(UserError, match=pattern):
        load_results(path, specialist)


def test_json_rows_and_models(tmp_path: Path, specialist: list[TaskRow]) -> None:
    rows = [
        {
            "model": "a",
            "modality": "Audio",
            "paradigm": "Generation",
            "task": "TTS",
            "metric": "WER",
            "score": 3,
        },
        {
            "model": "b",
            "modality": "Audio",
            "paradigm": "Generation",
            "task": "TTS",
            "metric": "WER",
            "score": 9,
        },
    ]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(UserError, match=r"several models \['a', 'b'\]"):
        load_results(path, specialist)
    table = load_results(path, specialist, model="b")
    assert table.model == "b" and [t.score for t in table.tasks if t.task == "TTS"] == [9.0]
    path.write_text(json.dumps([rows[0], rows[0]]))
    with pytest.raises(UserError, match=r"rows.json:2, field 'task'.*a second score"):
        load_results(path, specialist)


def test_unsupported_format_and_missing_file(tmp_path: Path, specialist: list[TaskRow]) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_results(tmp_path / "absent.xlsx", specialist)
    (tmp_path / "r.txt").write_text("x")
    with pytest.raises(UserError, match="unsupported results format"):
        load_results(tmp_path / "r.txt", specialist)


HEADER_LINE = "modality,paradigm,task,metric,score\n"


@pytest.mark.parametrize(
    ("name", "text", "pattern"),
    [
        ("rows.csv", "", r"rows.csv: empty file: expected a header with the fields \['modality'"),
        ("rows.csv", "foo,bar\n", r"rows.csv:1: header lacks the fields \['modality', .*'score'\]"),
        ("rows.csv", "modality,paradigm,task,metric\n", r"rows.csv:1: header lacks the fields \['score'\]"),
        ("rows.csv", HEADER_LINE, r"rows.csv: no rows"),
        ("rows.json", "[]", r"rows.json: no rows"),
        ("rows.json", '{"model": "m", "rows": []}', r"rows.json: no rows"),
    ],
)
def test_rows_file_without_rows_or_fields_is_an_error(
    tmp_path: Path, specialist: list[TaskRow], name: str, text: str, pattern: str
) -> None:
    # These used to score as a valid all-zero model: the fields were checked only on each row.
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError, match=pattern):
        load_results(path, specialist)


def test_unreadable_csv_names_the_file(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(HEADER_LINE.encode() + b"Image,Comprehension,Crowd Counting,MAE,\xff\n")
    with pytest.raises(UserError, match=r"rows.csv: not UTF-8 text"):
        load_results(path, specialist)


def test_scores_remember_where_they_were_read(tmp_path: Path, specialist: list[TaskRow]) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        HEADER_LINE + "NLP,,Commonsense Reasoning,ACC,50\nImage,Comprehension,Image Captioning,Acc,9\n"
    )
    sources = {t.task: t.score_source for t in load_results(path, specialist).tasks}
    captioning = sources["Image Captioning"]
    assert captioning is not None
    assert (captioning.file, captioning.sheet, captioning.line, captioning.unit, captioning.field) == (
        str(path), None, 3, "line", "score",
    )  # fmt: skip
    assert sources["Crowd Counting"] is None  # no row for it
    book = results_book(tmp_path, ["M"], {"Image-Comprehension": [[1.0], [2.0]]})
    tasks = load_results(book, specialist).tasks
    source = next(t.score_source for t in tasks if t.task == "Image Captioning")
    assert source is not None
    assert (source.file, source.sheet, source.line, source.unit, source.field) == (
        str(book), "Image-Comprehension", 3, "row", "M",
    )  # fmt: skip
