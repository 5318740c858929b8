"""Audit fixes: plain prediction files, NA-like spreadsheet text, honest vanilla, named bad rows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.predictions import load_predictions, score_predictions
from mmgauge.benchmarks.mmbench.tsv import load_table
from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.testing.scripted import ScriptedBackend

ROW = {"index": "1", "question": "Which one?", "hint": "", "A": "red", "B": "blue", "C": "green",
       "D": "None", "answer": "D", "prediction": "D", "category": "ocr",
       "l2-category": "finegrained_perception (instance-level)", "split": "dev"}


def cli() -> click.Group:
    return mounted_app()


def write(tmp_path: Path, rows: list[dict[str, str]], name: str = "plain.tsv") -> Path:
    path = tmp_path / name
    frame = pd.DataFrame(rows)
    if name.endswith(".xlsx"):
        frame.to_excel(path, index=False)
    else:
        frame.to_csv(path, sep="\t", index=False)
    return path


def test_plain_file_scores_each_question_as_one_copy(tmp_path: Path) -> None:
    rows = [ROW, dict(ROW, index="2", prediction="A")]
    # ROW's answer is option D, whose text is "None": read literally here (see test_prediction_files.py for
    # the default, which drops it as VLMEvalKit does).
    args = ["score", "mmbench", str(write(tmp_path, rows)), "--json", "--literal-options"]
    result = CliRunner().invoke(cli(), args)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["overall"] == 0.5 and payload["vanilla"] == 0.5
    assert "circular accuracy equals vanilla" in result.stderr
    assert "miss copies" not in result.stderr


def test_file_with_some_copies_missing_others_is_still_an_error(tmp_path: Path) -> None:
    copy = dict(ROW, index="1000001", A="blue", B="green", C="None", D="red", answer="C", prediction="C")
    rows = [ROW, copy]
    with pytest.raises(UserError, match="needs 4"):
        load_predictions(write(tmp_path, rows))


def test_xlsx_keeps_none_and_na_as_text(tmp_path: Path) -> None:
    rows = [dict(ROW, prediction="NA"), dict(ROW, index="2", D="null", answer="A", prediction="N/A")]
    table = load_predictions(write(tmp_path, rows, "pred.xlsx"))
    assert table.options[0].tolist() == ["red", "blue", "green", "None"]
    assert table.options[1, 3] == "null" and table.n_options.tolist() == [4, 4]
    assert table.text("prediction").tolist() == ["NA", "N/A"]


def test_wrong_field_count_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, [ROW, dict(ROW, index="2"), dict(ROW, index="3")])
    lines = path.read_text().splitlines()
    lines[2] = lines[2].rsplit("\t", 1)[0]  # line 3 loses its last field
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError) as caught:
        load_predictions(path)
    assert caught.value.line == 3 and "11 tab-separated fields, the header 12" in str(caught.value)


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, [ROW, dict(ROW, index="2")])
    path.write_bytes(path.read_bytes().replace(b"Which one?\t\tred", b"Which \xff?\t\tred", 1))
    with pytest.raises(UserError) as caught:
        load_predictions(path)
    assert caught.value.line == 2 and "UTF-8" in str(caught.value)


def test_category_is_required(tmp_path: Path) -> None:
    rows = [{k: v for k, v in ROW.items() if k != "category"}]
    with pytest.raises(UserError) as caught:
        load_table(write(tmp_path, rows), need_prediction=True)
    assert "category" in str(caught.value)


def test_missing_l2_and_split_are_said(tmp_path: Path) -> None:
    rows = [{k: v for k, v in ROW.items() if k not in ("l2-category", "split")}]
    result = asyncio.run(score_predictions(load_predictions(write(tmp_path, rows))))
    assert result.l2 == {} and result.category == {"ocr": 1.0}
    assert any("no breakdown by L2" in line for line in result.headline())
    assert any("no breakdown by split" in line for line in result.headline())
    partly = [ROW, dict(ROW, index="2", split="")]
    result = asyncio.run(score_predictions(load_predictions(write(tmp_path, partly))))
    assert result.unlabelled == {"split": 1}
    assert any("1 of 2 question groups have no split label" in line for line in result.headline())


def run_group(tmp_path: Path, texts: dict[str, str], reply: str) -> tuple[object, int]:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    group = [sample for sample in dataset.samples if sample.metadata["g_index"] == 1]
    records = []
    for sample in group:
        text = texts.get(sample.id, sample.answer or "")
        extraction = bench.extract(sample, text)
        records.append(SampleRecord(
            benchmark="mmbench", sample_id=sample.id, fingerprint="f", prompt="p",
            response=ModelResponse(text=text), extraction=extraction, target=sample.answer,
            correct=None if extraction.answer is None else extraction.answer == sample.answer,
            metadata=bench.record_metadata(sample)))
    backend = ScriptedBackend(reply)
    resolved = asyncio.run(bench.resolve(records, {s.id: s for s in group}, Judge(backend)))
    return bench.score(resolved), backend.requests


def test_vanilla_reports_first_copies_never_judged(tmp_path: Path) -> None:
    vague = "It could be several of these, hard to say really from this picture alone."
    result, calls = run_group(tmp_path, {"1": vague, "1000001": "A"}, "HARBOR")
    assert calls == 0  # the circular rule: a group already wrong costs no call
    assert result.vanilla_unjudged == 1 and result.unresolved_unjudged == 1  # type: ignore[attr-defined]
    lines = result.headline()  # type: ignore[attr-defined]
    assert not any("after the judge" in line for line in lines)
    assert any("not sent to the judge" in line for line in lines)
    assert any("vanilla counts 1 first copies wrong" in line for line in lines)
    # copy 0 judged and unreadable: that one is "after the judge"; the copy behind it was never sent
    result, calls = run_group(tmp_path, {"1": vague, "3000001": vague}, "no idea")
    assert calls == 3 and result.unresolved == 2  # type: ignore[attr-defined]
    assert result.vanilla_unjudged == 0  # type: ignore[attr-defined]
    lines = result.headline()  # type: ignore[attr-defined]
    assert any(line.startswith("1 answers left unresolved after the judge") for line in lines)
    assert any(line.startswith("1 unresolved answers were not sent") for line in lines)
