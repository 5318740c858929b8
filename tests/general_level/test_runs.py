"""General-Level from run folders: the mapping applied to hand-made results.json, levels computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml

from mmgauge.core.errors import UserError
from mmgauge.general_level import load_specialist_table
from mmgauge.general_level.runs import (
    RunMapping,
    check_mapping,
    is_run_folder,
    load_mapping,
    tables_from_runs,
)
from mmgauge.scoring.general_level import TaskRow, score_levels

HEADER = ["No", "Task Name", "Task Short Name", "Metrics", "SoTA Performance"]
# (task, metric, sota) per sheet; Image-Comprehension has five tasks, every other sheet one.
TASKS: dict[str, list[tuple[str, str, float]]] = {
    "NLP": [("Commonsense Reasoning", "ACC", 83.33)],
    "Image-Comprehension": [
        ("Object Hallucination Detection", "Acc", 60.8),
        ("Art Image Visual Question Answering", "Acc", 31.0),
        ("Crowd Counting", "MAE", 5.95),
        ("Geometry Visual Question Answering", "Acc", 78.3),
        ("Image Style Classification", "Acc", 23.5),
    ],
    "Image-Generation": [("Text-to-Image", "CLIP score", 30.0)],
    "Video-Comprehension": [("Action Recognition", "Acc", 70.0)],
    "Video-Generation": [("Text-to-Video", "CLIP score", 30.0)],
    "Audio-Comprehension": [("Speech Recognition", "Acc", 90.0)],
    "Audio-Generation": [("Text-to-Audio", "CLAP", 40.0)],
    "3D-Comprehension": [("3D Classification", "Acc", 80.0)],
    "3D-Generation": [("Text-to-3D", "CLIP score", 30.0)],
}
ENTRIES: list[dict[str, Any]] = [
    {"measure": "mme.result.subtasks.existence.acc", "sheet": "Image-Comprehension",
     "task": "Object Hallucination Detection", "metric": "Acc", "note": "yes/no existence"},
    {"measure": "mme.result.subtasks.artwork.acc", "sheet": "Image-Comprehension",
     "task": "art image visual question  answering", "metric": "acc"},
    {"measure": "mmbench.result.category.image_style", "scale": 100, "sheet": "Image-Comprehension",
     "task": "Image Style Classification", "metric": "Acc"},
    {"measure": "m3gia.result.per_language.english.types.Geometry.mean", "scale": 100,
     "sheet": "Image-Comprehension", "task": "Geometry Visual Question Answering", "metric": "Acc"},
]  # fmt: skip


@pytest.fixture
def specialist(tmp_path: Path) -> list[TaskRow]:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in TASKS.items():
        sheet = book.create_sheet(name)
        sheet.append(HEADER)
        for i, (task, metric, sota) in enumerate(rows, start=1):
            sheet.append([i, task, task[:10], metric, sota])
    book.save(tmp_path / "sota.xlsx")
    return load_specialist_table(tmp_path / "sota.xlsx")


def write_run(folder: Path, benchmarks: dict[str, Any], model: str = "mock:Yes") -> Path:
    folder.mkdir(parents=True)
    document = {"schema_version": 1, "manifest": "manifest.json", "model": model, "benchmarks": benchmarks}
    (folder / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


def mme(existence: float | None = 70.0, artwork: float = 20.0, failed: int = 0) -> dict[str, Any]:
    subtasks = {"existence": {"acc": existence, "acc_plus": 40.0}, "artwork": {"acc": artwork}}
    return {"benchmark": "mme", "failed": failed, "result": {"subtasks": subtasks}}


def mmbench(style: float = 0.5) -> dict[str, Any]:
    return {
        "benchmark": "mmbench",
        "failed": 0,
        "result": {"overall": 0.3, "category": {"image_style": style}},
    }


def write_mapping(path: Path, entries: list[dict[str, Any]], **extra: Any) -> RunMapping:
    path.write_text(yaml.safe_dump({"schema_version": 1, "entries": entries, **extra}), encoding="utf-8")
    return load_mapping(path)


def test_runs_only_levels_by_hand(tmp_path: Path, specialist: list[TaskRow]) -> None:
    run = write_run(tmp_path / "run", {"mme": mme(), "mmbench": mmbench()})
    mapping = write_mapping(tmp_path / "map.yaml", ENTRIES)
    table, coverage = tables_from_runs([run], specialist, mapping)
    assert table.model == "mock:Yes"
    assert [(c.task, c.score) for c in coverage.covered] == [
        ("Object Hallucination Detection", 70.0),
        ("Art Image Visual Question Answering", 20.0),
        ("Image Style Classification", 50.0),
    ]
    assert coverage.covered[0].note == "yes/no existence"
    assert coverage.covered[2].source == f"{run}: mmbench.result.category.image_style x 100"
    assert [(s.task, s.reason) for s in coverage.skipped] == [
        ("Geometry Visual Question Answering", "benchmark 'm3gia' not in these runs")
    ]
    assert coverage.total == 13 and coverage.per_sheet(specialist) == {"Image-Comprehension": (3, 5)}
    for mode in ("corrected", "official"):
        report = score_levels(table, mode)  # type: ignore[arg-type]
        image = report.modalities["Image"]
        # L2_C = (70 + 20 + 50) / 5 = 28, no generation score: L2 = 14; S_C = (70 + 50) / 5 = 24, S3 = 12.
        assert image.level2 == pytest.approx(14.0) and image.level3 == pytest.approx(12.0)
        assert image.level4 == 0.0 and (image.supported, image.total, image.wins) == (3, 6, 2)
        assert report.level2 == pytest.approx(3.5) and report.level3 == pytest.approx(3.0)
        assert report.level4 == 0.0 and report.level5 == 0.0 and report.highest_level == 3


def test_score_files_complete_the_levels(tmp_path: Path, specialist: list[TaskRow]) -> None:
    run = write_run(tmp_path / "run", {"mme": mme(), "mmbench": mmbench()})
    (tmp_path / "extra.csv").write_text(
        "modality,paradigm,task,metric,score\n"
        "Image,Generation,Text-to-Image,CLIP score,40\n"
        "NLP,,Commonsense Reasoning,ACC,90\n",
        encoding="utf-8",
    )
    mapping = write_mapping(tmp_path / "map.yaml", ENTRIES, score_files=["extra.csv"])
    table, coverage = tables_from_runs([run], specialist, mapping)
    assert coverage.covered[-1].source == str(tmp_path / "extra.csv")
    report = score_levels(table)
    # Image: L2 = (28 + 40) / 2 = 34; S_C = 24, S_G = 40: S3 = 32, S4 = 2 * 24 * 40 / 64 = 30.
    image = report.modalities["Image"]
    assert (image.level2, image.level3, image.level4) == pytest.approx((34.0, 32.0, 30.0))
    # Over four modalities: 8.5, 8, 7.5; S_L = 90 (one NLP task, a win), w_L = 0.9, S5 = 6.75.
    assert (report.level2, report.level3, report.level4) == pytest.approx((8.5, 8.0, 7.5))
    assert report.nlp.weight == pytest.approx(0.9) and report.level5 == pytest.approx(6.75)
    assert report.highest_level == 5


def test_null_measure_is_unsupported_and_failures_are_noted(
    tmp_path: Path, specialist: list[TaskRow]
) -> None:
    run = write_run(tmp_path / "run", {"mme": mme(existence=None, failed=3)})
    mapping = write_mapping(tmp_path / "map.yaml", ENTRIES[:2])
    table, coverage = tables_from_runs([run], specialist, mapping)
    assert coverage.covered[0].score is None and "3 failed requests" in coverage.covered[0].note
    assert coverage.per_sheet(specialist) == {"Image-Comprehension": (1, 5)}
    assert score_levels(table).modalities["Image"].supported == 1


def test_absent_measure_is_skipped(tmp_path: Path, specialist: list[TaskRow]) -> None:
    run = write_run(tmp_path / "run", {"mmbench": mmbench()})
    entry = {**ENTRIES[2], "measure": "mmbench.result.category.image_emotion"}
    _, coverage = tables_from_runs([run], specialist, write_mapping(tmp_path / "m.yaml", [entry]))
    assert coverage.covered == [] and coverage.skipped[0].reason == "measure not in the results"


def test_measure_as_key_list(tmp_path: Path, specialist: list[TaskRow]) -> None:
    run = write_run(tmp_path / "run", {"mme": {"result": {"subtasks": {"a.b": {"acc": 61.0}}}}})
    entry = {**ENTRIES[0], "measure": ["mme", "result", "subtasks", "a.b", "acc"]}
    table, _ = tables_from_runs([run], specialist, write_mapping(tmp_path / "m.yaml", [entry]))
    assert score_levels(table).modalities["Image"].wins == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"task": "Nope"}, "task 'Nope' is not in sheet 'Image-Comprehension'"),
        ({"sheet": "Image"}, "sheet 'Image' is not one of"),
        ({"metric": "F1"}, "metric 'F1' differs from the specialist table's 'Acc'"),
        ({"task": "Crowd Counting", "metric": "MAE"}, "uses MAE, not a 0..100 higher-is-better metric"),
    ],
)
def test_bad_entries(tmp_path: Path, specialist: list[TaskRow], change: dict[str, str], message: str) -> None:
    mapping = write_mapping(tmp_path / "map.yaml", [{**ENTRIES[0], **change}])
    with pytest.raises(UserError, match=message) as err:
        check_mapping(mapping, specialist)
    assert err.value.field == "entries[0]" and err.value.file == str(tmp_path / "map.yaml")


def test_a_task_mapped_twice(tmp_path: Path, specialist: list[TaskRow]) -> None:
    mapping = write_mapping(tmp_path / "map.yaml", [ENTRIES[0], {**ENTRIES[1], "task": ENTRIES[0]["task"]}])
    with pytest.raises(UserError, match=r"already mapped by entries\[0\]"):
        check_mapping(mapping, specialist)


def test_bad_mapping_files(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such mapping file"):
        load_mapping(tmp_path / "absent.yaml")
    (tmp_path / "list.yaml").write_text("- a\n")
    with pytest.raises(UserError, match="must be a YAML mapping"):
        load_mapping(tmp_path / "list.yaml")
    (tmp_path / "typo.yaml").write_text(
        "entries:\n  - {measure: x.y, sheet: NLP, task: t, metric: ACC, scal: 2}\n"
    )
    with pytest.raises(UserError) as err:
        load_mapping(tmp_path / "typo.yaml")
    assert err.value.field == "entries.0.scal"
    (tmp_path / "v2.yaml").write_text("schema_version: 2\nentries: []\n")
    with pytest.raises(UserError, match="unsupported schema_version 2"):
        load_mapping(tmp_path / "v2.yaml")


def test_bad_values(tmp_path: Path, specialist: list[TaskRow]) -> None:
    run = write_run(tmp_path / "run", {"mme": mme()})
    scaled = write_mapping(tmp_path / "scaled.yaml", [{**ENTRIES[0], "scale": 100}])
    with pytest.raises(UserError, match=r"gives 7000, outside 0..100 \(check 'scale'\)"):
        tables_from_runs([run], specialist, scaled)
    branch = write_mapping(tmp_path / "branch.yaml", [{**ENTRIES[0], "measure": "mme.result.subtasks"}])
    with pytest.raises(UserError, match="is dict, not a number"):
        tables_from_runs([run], specialist, branch)


def test_conflicts_between_sources(tmp_path: Path, specialist: list[TaskRow]) -> None:
    mapping = write_mapping(tmp_path / "map.yaml", ENTRIES[:1])
    one = write_run(tmp_path / "one", {"mme": mme()})
    two = write_run(tmp_path / "two", {"mme": mme()})
    with pytest.raises(UserError, match="two scores for Image-Comprehension / 'Object Hallucination"):
        tables_from_runs([one, two], specialist, mapping)
    other = write_run(tmp_path / "other", {"mmbench": mmbench()}, model="openai:gpt@http://x")
    with pytest.raises(UserError, match="different models"):
        tables_from_runs([one, other], specialist, mapping)
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "modality,paradigm,task,metric,score\nImage,Comprehension,Object Hallucination Detection,Acc,1\n"
    )
    with pytest.raises(UserError, match=f"from {one}: mme.*and from {rows}"):
        tables_from_runs([one], specialist, mapping, [rows])


def test_run_folder_detection(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {})
    assert is_run_folder(run) and is_run_folder(run / "results.json")
    assert not is_run_folder(tmp_path) and not is_run_folder(tmp_path / "absent")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.json").write_text("[1]")
    with pytest.raises(UserError, match="no 'benchmarks' object"):
        tables_from_runs([tmp_path / "bad"], [], RunMapping())


def test_shipped_mapping_resolves_against_the_shipped_table() -> None:
    specialist = load_specialist_table()
    mapping = load_mapping()
    targets = check_mapping(mapping, specialist)
    assert len(targets) == len(mapping.entries) >= 10
    assert all(entry.note for entry in mapping.entries) and all(n.note for n in mapping.not_mapped)
    assert {t.sheet for t in targets.values()} == {"Image-Comprehension"}
    assert mapping.score_files == []
