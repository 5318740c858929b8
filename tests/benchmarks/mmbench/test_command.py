"""`mmgauge score mmbench` and `mmgauge export mmbench` through the command line (Click)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord


def apps() -> click.Group:
    return mounted_app()


def predictions(tmp_path: Path, wrong_group: int = 2) -> Path:
    frame = pd.read_csv(MMBenchBenchmark().sample_data(tmp_path), sep="\t", dtype=str, keep_default_na=False)
    frame["prediction"] = frame["answer"]
    frame.loc[frame["g_index"] == str(wrong_group), "prediction"] = "I am not sure which one of these it is."
    path = tmp_path / "pred.xlsx"
    frame.drop(columns=["image"]).to_excel(path, index=False)
    return path


def test_score_json_shape(tmp_path: Path) -> None:
    result = CliRunner().invoke(apps(), ["score", "mmbench", str(predictions(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert list(payload) == ["overall", "l2", "category", "vanilla", "groups", "extraction"]
    assert payload["overall"] == 0.9 and payload["vanilla"] == 0.9
    assert payload["groups"]["2"] == 0 and payload["groups"]["1"] == 1
    assert payload["l2"]["CP"] == 0.5 and payload["category"]["image_topic"] == 0.0
    assert payload["extraction"]["unresolved"] == 4
    assert "answers left unresolved with no judge" in result.stderr


def test_score_text(tmp_path: Path) -> None:
    result = CliRunner().invoke(apps(), ["score", "mmbench", str(predictions(tmp_path)), "--judge", "none"])
    assert result.exit_code == 0 and "overall" in result.stdout and "FP-S" in result.stdout


def test_bad_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    pd.DataFrame({"index": [1], "question": ["q"], "A": ["x"], "B": ["y"], "answer": ["A"]}).to_csv(
        path, sep="\t", index=False
    )
    result = CliRunner().invoke(apps(), ["score", "mmbench", str(path), "--json"])
    assert isinstance(result.exception, UserError) and result.exception.field is None
    assert "prediction" in str(result.exception)


def test_test_split_cannot_be_scored_here(tmp_path: Path) -> None:
    path = predictions(tmp_path)
    frame = pd.read_excel(path, dtype=str).fillna("")
    frame["answer"] = ""
    frame.to_excel(path, index=False)
    result = CliRunner().invoke(apps(), ["score", "mmbench", str(path), "--json"])
    assert isinstance(result.exception, UserError) and "evaluation server" in str(result.exception)


def test_export_submission(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    data = bench.sample_data(tmp_path)
    samples = bench.load(data).samples
    lines = [
        SampleRecord(
            benchmark="mmbench",
            sample_id=s.id,
            fingerprint="f",
            prompt="p",
            response=ModelResponse(text="B"),
            metadata=bench.record_metadata(s),
        ).model_dump_json()
        for s in samples
    ]
    (tmp_path / "samples.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "sub.xlsx"
    result = CliRunner().invoke(apps(), ["export", "mmbench", str(data), str(tmp_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(pd.read_excel(out)) == len(samples)


@pytest.mark.parametrize("judge_spec", ["none", "NONE"])
def test_judge_none_spelling(tmp_path: Path, judge_spec: str) -> None:
    args = ["score", "mmbench", str(predictions(tmp_path)), "--judge", judge_spec, "--json"]
    assert CliRunner().invoke(apps(), args).exit_code == 0
