"""Loading both layouts (sample ids, splits, shared images), one-line errors, and the built-in sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

import mmgauge
from mmgauge.benchmarks.pope.bench import PopeBenchmark
from mmgauge.benchmarks.pope.result import PopeResult


def test_the_parquet_ids_are_split_and_question_id(lmms_lab_parquet: Path) -> None:
    dataset = PopeBenchmark().load(lmms_lab_parquet)
    assert len(dataset.samples) == 24
    first = dataset.samples[0]
    assert first.id == "adversarial/1" and first.answer == "yes"
    assert first.metadata["splits"] == ["adversarial"]
    assert first.metadata["image"] == "COCO_val2014_000000310196"
    assert first.images[0].load().startswith(b"\x89PNG")


def test_the_tsv_keeps_one_row_per_question_and_follows_image_references(vlmevalkit_tsv: Path) -> None:
    dataset = PopeBenchmark().load(vlmevalkit_tsv)
    shared = dataset.samples[0]
    assert shared.metadata["splits"] == ["adversarial", "popular", "random"] and shared.answer == "yes"
    later = dataset.samples[1]
    assert later.images[0].load() == shared.images[0].load()  # a reference to row 0's image
    assert later.metadata["image"] == shared.metadata["image"]


def test_a_bad_answer_is_one_line_naming_file_line_and_field(cli: Any, vlmevalkit_tsv: Path,
                                                              tmp_path: Path) -> None:
    frame = pd.read_csv(vlmevalkit_tsv, sep="\t", dtype=str, keep_default_na=False)
    frame.loc[2, "answer"] = "Maybe"
    frame.to_csv(vlmevalkit_tsv, sep="\t", index=False)
    result = cli("run", "--bench", "pope", "--data", vlmevalkit_tsv, "--model", "mock:Yes",
                 "--out", tmp_path / "r", "--no-cache")
    assert result.error_line() == (f"error: {vlmevalkit_tsv}:4, field 'answer': answer must be yes or no, "
                                   "not 'Maybe'")


def test_a_parquet_missing_a_column_says_which(cli: Any, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(pa.table({"question_id": ["1"], "question": ["Is there a cat?"], "answer": ["yes"]}), path)
    line = cli("run", "--bench", "pope", "--data", path, "--model", "mock:Yes", "--out", tmp_path / "r",
               "--no-cache").error_line()
    assert line.startswith(f"error: {path}: missing column(s) image, category of the lmms-lab/POPE layout")


def test_the_builtin_sample_runs_offline_with_three_splits(cli: Any, tmp_path: Path) -> None:
    result = cli("run", "--bench", "pope", "--model", "mock:No", "--out", tmp_path / "r", "--no-cache")
    assert result.code == 0, result.err
    assert "built-in synthetic sample" in result.out + result.err
    scores = mmgauge.load_run(tmp_path / "r").result("pope")
    assert isinstance(scores, PopeResult) and scores.overall is not None
    assert list(scores.splits) == ["random", "popular", "adversarial"]
    assert scores.overall.accuracy.value == 0.5 and scores.overall.precision is None
    assert scores.overall.f1 is None and scores.overall.yes_ratio.value == 0.0


def test_the_builtin_sample_is_the_same_bytes_every_time(tmp_path: Path) -> None:
    first = PopeBenchmark().sample_data(tmp_path / "a")
    second = PopeBenchmark().sample_data(tmp_path / "b")
    files = sorted(p.name for p in first.iterdir())
    assert files == sorted(p.name for p in second.iterdir())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    dataset = PopeBenchmark().load(first)
    assert len(dataset.samples) == 36 and {s.answer for s in dataset.samples} == {"yes", "no"}
