"""`score mme` and `export mme`, mounted on throwaway apps the way the main CLI mounts them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord
from mmgauge.extraction.yesno import parse_official

TEMPLATE = Path(__file__).resolve().parents[2] / "fixtures" / "mme" / "official_template"


@pytest.fixture
def app() -> click.Group:
    return mounted_app()


def always_yes(folder: Path) -> Path:
    folder.mkdir()
    for source in TEMPLATE.glob("*.txt"):
        lines = source.read_text(encoding="utf-8").splitlines()
        (folder / source.name).write_text("".join(f"{line}\tYes\n" for line in lines), encoding="utf-8")
    return folder


def test_score_json_shape(app: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", "mme", str(always_yes(tmp_path / "res")), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"perception", "cognition", "subtasks"}
    assert (data["perception"], data["cognition"]) == (500.0, 200.0)
    assert len(data["subtasks"]) == 14
    assert data["subtasks"]["existence"] == {"acc": 50.0, "acc_plus": 0.0, "score": 50.0, "other": 0,
                                             "yes_ratio": 1.0}


def test_score_json_is_unrounded_and_partial_notes_go_to_stderr(app: click.Group, tmp_path: Path) -> None:
    # count: a both right, b both right, c only the Yes question right -> acc 5/6, acc+ 2/3
    folder = tmp_path / "res"
    folder.mkdir()
    rows = [("a", "Yes", "yes"), ("a", "No", "no"), ("b", "Yes", "yes"), ("b", "No", "no"),
            ("c", "Yes", "yes"), ("c", "No", "yes")]
    (folder / "count.txt").write_text("".join(f"{i}\tQ\t{g}\t{p}\n" for i, g, p in rows))
    result = CliRunner().invoke(app, ["score", "mme", str(folder), "--json"])
    data = json.loads(result.stdout)
    count = data["subtasks"]["count"]
    assert math.isclose(count["acc"], 500 / 6) and count["acc"] != 83.33
    assert math.isclose(data["perception"], 500 / 6 + 200 / 3)
    assert "perception is partial: missing existence" in result.stderr


def test_score_table_and_words_parser(app: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", "mme", str(always_yes(tmp_path / "res")), "--parser", "words"])
    assert result.exit_code == 0 and "MME (parser: words)" in result.stdout and "perception" in result.stdout


def test_bad_parser_and_bad_file_raise_user_errors(app: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", "mme", str(tmp_path), "--parser", "fuzzy"])
    assert isinstance(result.exception, UserError) and result.exception.field == "--parser"
    (tmp_path / "OCR.txt").write_text("a\tQ\tYes\tyes\n")
    result = CliRunner().invoke(app, ["score", "mme", str(tmp_path), "--json"])
    assert isinstance(result.exception, UserError) and "odd number of lines" in str(result.exception)


def make_run(run: Path) -> None:
    run.mkdir()
    records = []
    for image, answers in (("a.png", ("Yes", "No")), ("b.png", ("Yes\tindeed", "no\n"))):
        for index, text in enumerate(answers):
            truth = "yes" if index == 0 else "no"
            records.append(SampleRecord(
                benchmark="mme", sample_id=f"OCR/{image}/q{index}", fingerprint="m", prompt="Q",
                response=ModelResponse(text=text), extraction=parse_official(text), target=truth,
                metadata={"subtask": "OCR", "image": image, "index": index, "order": image == "b.png",
                          "truth": truth, "question": f"Q{index}? Please answer yes or no."}))
    records.append(SampleRecord(
        benchmark="mme", sample_id="color/c.png/q0", fingerprint="m", prompt="Q",
        response=ModelResponse(error="timeout"), target="yes",
        metadata={"subtask": "color", "image": "c.png", "index": 0, "order": 0, "truth": "yes"}))
    (run / "samples.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))


def test_export_then_score_matches_scoring_the_run(app: click.Group, tmp_path: Path) -> None:
    make_run(tmp_path / "run")
    out = tmp_path / "official"
    result = CliRunner().invoke(app, ["export", "mme", str(tmp_path / "run"), "--official", str(out)])
    assert result.exit_code == 0, result.output
    assert "skipped color: 1 failed request(s)" in result.stderr
    assert (out / "OCR.txt").read_text().splitlines() == [
        "a.png\tQ0? Please answer yes or no.\tYes\tYes", "a.png\tQ1? Please answer yes or no.\tNo\tNo",
        "b.png\tQ0? Please answer yes or no.\tYes\tYes indeed",
        "b.png\tQ1? Please answer yes or no.\tNo\tno "]
    from_files = json.loads(CliRunner().invoke(app, ["score", "mme", str(out), "--json"]).stdout)
    from_run = json.loads(CliRunner().invoke(app, ["score", "mme", str(tmp_path / "run"), "--json"]).stdout)
    assert from_files["subtasks"]["OCR"] == from_run["subtasks"]["OCR"]
    assert from_files["subtasks"]["OCR"]["score"] == 200.0


def test_export_without_records(app: click.Group, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["export", "mme", str(tmp_path), "--official", str(tmp_path / "o")])
    assert isinstance(result.exception, UserError) and "samples.jsonl" in str(result.exception)


def lmms_eval_mme_log(results: Path, log: Path) -> None:
    """The answers of an official results folder as lmms-eval's `--log_samples` file of its `mme` task:
    documents in the dataset's order (doc_id), lines gathered out of order, keys as lmms-eval writes them."""
    import random

    lines = []
    for source in sorted(results.glob("*.txt")):
        subtask = source.stem
        key = "mme_cognition_score" if subtask in COGNITION else "mme_percetion_score"
        for row in source.read_text(encoding="utf-8").splitlines():
            image, question, truth, answer = row.split("\t")
            doc = {"question_id": f"{subtask}/{image}", "question": question, "answer": truth,
                   "category": subtask}
            lines.append({"doc_id": len(lines), "doc": doc, "target": truth,
                          "arguments": [[question, {"max_new_tokens": 16}, None, len(lines), "mme", "test"]],
                          "resps": [[answer]], "filtered_resps": [answer],
                          key: {"question_id": doc["question_id"], "category": subtask, "score": 0.0},
                          "doc_hash": "0" * 64, "prompt_hash": "1" * 64, "target_hash": "2" * 64,
                          "input": question})
    random.Random(5).shuffle(lines)
    log.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")


COGNITION = ("commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning")
ANSWERS = ("Yes", "No", "yes, it is.", "No.", "I cannot tell", "Noo", "YES", "nope")


def test_score_mme_reads_lmms_eval_sample_log_as_the_official_tool_reads_its_results(
    cli: Any, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    number = 0
    for source in TEMPLATE.glob("*.txt"):
        rows = []
        for line in source.read_text(encoding="utf-8").splitlines():
            truth = line.split("\t")[2]  # every third answer is the truth as written
            rows.append(f"{line}\t{ANSWERS[number % len(ANSWERS)] if number % 3 else truth}\n")
            number += 1
        (results / source.name).write_text("".join(rows), encoding="utf-8")
    log = tmp_path / "20250101_samples_mme.jsonl"
    lmms_eval_mme_log(results, log)
    official = cli("score", "mme", results, "--json")
    from_log = cli("score", "mme", log, "--json")
    assert official.code == 0 and from_log.code == 0, from_log.err
    assert json.loads(from_log.out) == json.loads(official.out)
    assert 0 < json.loads(from_log.out)["perception"] < 2000


def test_the_score_table_shows_the_yes_ratio_in_percent_as_every_other_view(
    app: click.Group, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, ["score", "mme", str(always_yes(tmp_path / "res"))],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "yes %" in result.stdout
    existence = next(line for line in result.stdout.splitlines() if "existence" in line)
    assert "100.0%" in existence and "1.00" not in existence
