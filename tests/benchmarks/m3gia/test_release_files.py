"""M3GIA's own files: the parquet under the README's name, and the official answer files replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mmgauge.backends.replay import read_predictions
from mmgauge.benchmarks.m3gia.answer_files import ANSWER_FILES
from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark
from mmgauge.benchmarks.m3gia.sample import ITEMS
from mmgauge.core.errors import UserError

IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])


def release_file(path: Path) -> Path:
    """Two questions in the public parquet layout (index, question, hint, A-F, image, QuestionTypes)."""
    rows = [
        {"index": 211, "question": "2, 4, 8, ?", "hint": None, "A": "16", "B": "12", "C": None, "D": None,
         "E": None, "F": None, "image": None, "QuestionTypes": "Number Seres"},
        {"index": 1, "question": "Big means?", "hint": "nan", "A": "large", "B": "small", "C": None,
         "D": None, "E": None, "F": None, "image": None, "QuestionTypes": "Oral Vocabulary"},
    ]
    schema = pa.schema([("index", pa.int64()), ("question", pa.string()), ("hint", pa.string()),
                        *((c, pa.string()) for c in "ABCDEF"), ("image", IMAGE),
                        ("QuestionTypes", pa.string())])
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


@pytest.mark.parametrize(("name", "language"), [
    ("en_final.parquet", "english"), ("zh_final.parquet", "chinese"), ("sp_final.parquet", "spanish"),
    ("english_v1.parquet", "english"), ("korean_v1.parquet", "korean"),
])
def test_either_file_name_needs_no_language_option(tmp_path: Path, name: str, language: str) -> None:
    path = release_file(tmp_path / name)
    assert [s.id for s in M3GIABenchmark().load(path).samples] == [f"{language}/211", f"{language}/1"]
    assert {s.metadata["language"] for s in M3GIABenchmark().load(tmp_path).samples} == {language}


def official_answers(folder: Path, language: str, response: str) -> Path:
    """M3GIA's inference_only.py output, `<answers>/<model>/<language>.jsonl` (fields as in its example)."""
    path = folder / f"{language}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = []
    for item in ITEMS[language]:
        base = {"question_id": str(item.qid), "question_type": "x", "prompt": "p", "response": response,
                "prediction": "A", "options": list(item.options),
                "option_char": list("ABCDEF"[:len(item.options)]),
                "answer_id": "2YVULhhF4avmGwK5Jum2e9", "model_id": "cogvlm2-19B", "metadata": {}}
        lines.append(dict(base, round_id=0))
        lines.append(dict(base, round_id=1, response="C"))  # a later round: not replayed
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_official_answer_files_are_read_by_language(tmp_path: Path) -> None:
    english = official_answers(tmp_path / "cogvlm2-19B", "english", "B")
    answers = read_predictions(english, [ANSWER_FILES])
    assert answers == {f"english/{item.qid}": "B" for item in ITEMS["english"]}
    official_answers(tmp_path / "cogvlm2-19B", "chinese", "(B) something")
    both = read_predictions(tmp_path / "cogvlm2-19B", [ANSWER_FILES])
    assert len(both) == len(ITEMS["english"]) + len(ITEMS["chinese"])
    assert both[f"chinese/{ITEMS['chinese'][0].qid}"] == "(B) something"
    unnamed = tmp_path / "example_output.jsonl"
    unnamed.write_bytes(english.read_bytes())
    with pytest.raises(UserError, match=r"name it <language>\.jsonl"):
        read_predictions(unnamed, [ANSWER_FILES])


def test_replaying_official_answers_scores_like_the_same_answers_live(tmp_path: Path, cli: Any) -> None:
    answers = tmp_path / "answers" / "cogvlm2-19B"
    for language in ("english", "chinese"):
        official_answers(answers, language, "B")
    results = {}
    for name, model in (("replay", f"replay:{answers}"), ("live", "mock:B")):
        out = tmp_path / name
        run = cli("run", "--model", model, "--bench", "m3gia", "--out", out, "--no-cache",
                  "--language", "en,zh")
        assert run.code == 0, run.out + run.err
        results[name] = json.loads((out / "results.json").read_text())["benchmarks"]["m3gia"]["result"]
    for language in ("english", "chinese"):
        replayed = results["replay"]["per_language"][language]
        assert replayed["overall"] == results["live"]["per_language"][language]["overall"]
        assert replayed["questions"] == len(ITEMS[language])
