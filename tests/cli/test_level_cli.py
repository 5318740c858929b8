"""``mmgauge level``: the JSON contract, the readable tables, and user errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from mmgauge.cli.level import level_command
from mmgauge.cli.params import command_for
from mmgauge.core.errors import UserError

app = command_for("level", level_command)

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "general_level" / "Qwen2.5-7B-Instruct_result.xlsx"
)
MODALITY_KEYS = {"level2", "level3", "level4", "supported", "total", "wins"}


def run(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(app, [str(FIXTURE), "--json", *args])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_json_shape_and_corrected_numbers() -> None:
    data = run()
    for key in ("level2", "level3", "level4", "level5"):
        assert isinstance(data[key], float) and data[key] == 0.0
    modalities = data["modalities"]
    assert isinstance(modalities, dict) and list(modalities) == ["Image", "Video", "Audio", "3D"]
    for entry in modalities.values():
        assert set(entry) >= MODALITY_KEYS
        assert all(isinstance(entry[k], int) for k in ("supported", "total", "wins"))
    assert data["nlp"] == {
        "supported": 5, "wins": 1, "weight": pytest.approx(0.745 / 115), "total": 115,
        "score": pytest.approx(74.5 / 115),
    }  # fmt: skip
    assert data["mode"] == "corrected" and data["highest_level"] is None
    assert isinstance(data["disagreements"], list) and len(data["disagreements"]) == 17


def test_official_mode_and_model_option() -> None:
    data = run("--mode", "official", "--model", "qwen2.5-7b-instruct")
    assert data["mode"] == "official"
    assert data["modalities"]["Audio"]["wins"] == 5  # type: ignore[index]
    assert data["nlp"]["wins"] == 0 and data["nlp"]["weight"] == 0.0  # type: ignore[index]


def test_readable_output() -> None:
    result = CliRunner().invoke(app, [str(FIXTURE)])
    assert result.exit_code == 0
    for text in ("General-Level of Qwen2.5-7B-Instruct", "Image", "3D", "NLP", "17 tasks scored differently"):
        assert text in result.stdout


def test_user_errors_propagate_for_the_main_cli(tmp_path: Path) -> None:
    # The main CLI catches UserError and exits 2; this app leaves it uncaught so that can happen.
    result = CliRunner().invoke(app, [str(tmp_path / "absent.csv"), "--json"])
    assert isinstance(result.exception, UserError) and "no such file" in str(result.exception)
    result = CliRunner().invoke(app, [str(FIXTURE), "--model", "other"])
    assert isinstance(result.exception, UserError) and "no column for model 'other'" in str(result.exception)
    bad = tmp_path / "rows.csv"
    bad.write_text("modality,paradigm,task,metric,score\nNLP,,Commonsense Reasoning,ACC,high\n")
    result = CliRunner().invoke(app, [str(bad)])
    assert isinstance(result.exception, UserError) and "rows.csv:2" in str(result.exception)


def test_csv_rows_end_to_end(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "modality,paradigm,task,metric,score\n"
        "NLP,,Commonsense Reasoning,ACC,90\n"  # SoTA 83.33: a win worth 90 / 115 in S_L
        "Image,Comprehension,Crowd Counting,MAE,5.95\n"  # equal to the SoTA: a win
    )
    result = CliRunner().invoke(app, [str(rows), "--json"])
    data = json.loads(result.stdout)
    assert data["nlp"]["score"] == pytest.approx(90 / 115)
    assert data["modalities"]["Image"]["wins"] == 1
    # Image-Comprehension has 271 tasks: L2 = S3 = (mapped MAE 5.95 / 271 + 0) / 2; L4 = 0 (no generation).
    assert data["modalities"]["Image"]["level4"] == 0.0 and data["level5"] == 0.0
    assert data["level2"] == pytest.approx(data["modalities"]["Image"]["level2"] / 4)


SCORE_150 = "modality,paradigm,task,metric,score\nImage,Comprehension,Human Action Recognition,ACC,150\n"


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("empty.csv", "", "empty.csv: empty file"),
        ("wrong.csv", "foo,bar\n", "wrong.csv:1: header lacks the fields"),
        ("empty.json", "[]", "empty.json: no rows"),
    ],
)
def test_results_without_rows_exit_2(cli: Any, tmp_path: Path, name: str, text: str, needle: str) -> None:
    # These were scored as an all-zero model with exit status 0.
    path = tmp_path / name
    path.write_text(text)
    assert needle in cli("score", "level", path, "--json").error_line()


def test_out_of_range_csv_score_names_the_file_line_and_field(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "over2.csv"
    path.write_text(SCORE_150)
    err = cli("score", "level", path, "--json").error_line()
    assert "over2.csv:2, field 'score': line 2: task 'Human Action Recognition': Accuracy is a 0..100" in err
    assert "sheet" not in err and "row 3" not in err and "column 'over2'" not in err
    fields = ("modality", "paradigm", "task", "metric", "score")
    rows = [
        dict(zip(fields, ("NLP", "", "Commonsense Reasoning", "ACC", 50), strict=True)),
        dict(zip(fields, ("Image", "Comprehension", "Human Action Recognition", "Acc", -3), strict=True)),
    ]
    path = tmp_path / "over2.json"
    path.write_text(json.dumps(rows))
    err = cli("score", "level", path, "--json").error_line()
    assert "over2.json:2, field 'score': row 2: task 'Human Action Recognition': Accuracy is a 0..100" in err


def test_out_of_range_xlsx_score_keeps_sheet_row_and_model_column(cli: Any, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(FIXTURE)
    sheet = book["Image-Comprehension"]
    column = next(c.column for c in sheet[1] if c.value == "Qwen2.5-7B-Instruct")
    sheet.cell(row=3, column=column, value=150)
    path = tmp_path / "results.xlsx"
    book.save(path)
    err = cli("score", "level", path, "--json").error_line()
    assert (
        "results.xlsx: sheet 'Image-Comprehension', row 3, column 'Qwen2.5-7B-Instruct': Accuracy is a 0..100"
        in err
    )
