"""``mmgauge level`` on run folders (through the shipped or a given mapping), merged files, and ``--plot``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mmgauge.cli.level import level_command
from mmgauge.cli.params import command_for
from mmgauge.core.errors import UserError

app = command_for("level", level_command)

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "general_level" / "Qwen2.5-7B-Instruct_result.xlsx"
)
CONTRACT = {"level2", "level3", "level4", "level5", "modalities", "nlp"}
# MME accuracies (percent) of the five subtasks the shipped mapping uses, and their specialist values:
# existence 70 vs 60.8 (win), color 30 vs 41.6, text_translation 80 vs 78 (win), artwork 50 vs 31 (win),
# commonsense_reasoning 20 vs 36.4.
MME_ACC = {"existence": 70.0, "color": 30.0, "text_translation": 80.0, "artwork": 50.0,
           "commonsense_reasoning": 20.0, "OCR": 90.0}  # fmt: skip


def write_run(folder: Path) -> Path:
    folder.mkdir()
    subtasks = {name: {"acc": acc, "acc_plus": 0.0} for name, acc in MME_ACC.items()}
    benchmarks: dict[str, Any] = {"mme": {"benchmark": "mme", "failed": 0, "result": {"subtasks": subtasks}}}
    document = {"schema_version": 1, "model": "mock:Yes", "benchmarks": benchmarks}
    (folder / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})  # no wrapping inside table cells
    assert result.exit_code == 0, result.output
    return result


def test_run_folder_with_the_shipped_mapping(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    data = json.loads(invoke(str(run), "--json").stdout)
    assert set(data) >= CONTRACT and data["model"] == "mock:Yes"
    image = data["modalities"]["Image"]
    assert (image["supported"], image["total"], image["wins"]) == (5, 316, 3)
    # 271 comprehension tasks: L2 = (250 / 271 + 0) / 2; S_C = (70 + 80 + 50) / 271, S3 = S_C / 2.
    assert image["level2"] == pytest.approx(125 / 271) and image["level3"] == pytest.approx(100 / 271)
    assert image["level4"] == 0.0 and data["level5"] == 0.0
    assert data["level2"] == pytest.approx(125 / 271 / 4)
    coverage = data["coverage"]
    assert coverage["runs"] == [str(run)] and coverage["total"] == 699
    assert len(coverage["covered"]) == 5  # OCR is deliberately not mapped
    assert {s["reason"] for s in coverage["skipped"]} == {
        "benchmark 'mmbench' not in these runs",
        "benchmark 'm3gia' not in these runs",
    }


def test_readable_output_says_what_was_covered(tmp_path: Path) -> None:
    out = invoke(str(write_run(tmp_path / "run"))).stdout
    for text in (
        "General-Level of mock:Yes",
        "Comp.",
        "5/271",
        "Coverage: 5 of 699 tasks have a score from",
        "(Image-Comprehension 5/271)",
        "Object Hallucination Detection [Image-Comprehension]",
        "mme.result.subtasks.existence.acc",
        "not scored: m3gia.result.per_language.english.types.Geometry.mean x 100",
    ):
        assert text in out


def test_custom_mapping_and_merged_scores(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    mapping = tmp_path / "mine.yaml"
    mapping.write_text(
        "entries:\n"
        "  - measure: mme.result.subtasks.OCR.acc\n"
        "    sheet: Image-Comprehension\n"
        "    task: Handwriting OCR\n"
        "    metric: ANLS\n"
        "    note: my own call\n"
    )
    rows = tmp_path / "nlp.csv"
    rows.write_text("modality,paradigm,task,metric,score\nNLP,,Commonsense Reasoning,ACC,90\n")
    data = json.loads(invoke(str(run), str(rows), "--mapping", str(mapping), "--json").stdout)
    assert data["modalities"]["Image"]["supported"] == 1 and data["modalities"]["Image"]["wins"] == 1
    assert data["nlp"]["supported"] == 1 and data["nlp"]["score"] == pytest.approx(90 / 115)
    assert [c["source"] for c in data["coverage"]["covered"]] == [
        f"{run}: mme.result.subtasks.OCR.acc",
        str(rows),
    ]


def test_a_single_file_keeps_the_old_output() -> None:
    data = json.loads(invoke(str(FIXTURE), "--json").stdout)
    assert "coverage" not in data and data["model"] == "Qwen2.5-7B-Instruct"


def test_plot_with_json_and_with_tables(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = write_run(tmp_path / "run")
    png = tmp_path / "charts" / "levels.png"
    data = json.loads(invoke(str(run), "--json", "--plot", str(png)).stdout)
    assert set(data) >= CONTRACT
    assert png.read_bytes().startswith(b"\x89PNG")
    png.unlink()
    out = invoke(str(FIXTURE), "--mode", "official", "--plot", str(png)).stdout
    assert f"chart: {png}" in out and png.is_file()


def test_a_folder_without_results_is_a_user_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [str(tmp_path), "--json"])
    assert isinstance(result.exception, UserError) and "must be a run folder" in str(result.exception)
