"""Other toolkits' answer logs and run records with a field of the wrong kind or none: each ends in one line
naming the file, the line and the field, with exit status 2 (each was a traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def lmms_eval_line(doc_id: Any, text: str) -> str:
    """An MME line of lmms-eval's `--log_samples` file, keys in the order lmms-eval writes them."""
    doc = {"question_id": "existence/1.png", "question": "Is there a dog? Please answer yes or no.",
           "answer": "Yes", "category": "existence"}
    line = {"doc_id": doc_id, "doc": doc, "target": "Yes",
            "arguments": [[doc["question"], {"max_new_tokens": 16}, None, 0, "mme", "test"]],
            "resps": [[text]], "filtered_resps": [text],
            "mme_percetion_score": {"question_id": doc["question_id"], "category": "existence", "score": 1.0},
            "doc_hash": "0" * 64, "prompt_hash": "1" * 64, "target_hash": "2" * 64, "input": doc["question"]}
    return json.dumps(line) + "\n"


def test_lmms_eval_doc_id_that_is_not_a_number(cli: Any, tmp_path: Path) -> None:
    log = tmp_path / "20250101_samples_mme.jsonl"
    log.write_text(lmms_eval_line(0, "Yes") + lmms_eval_line("zz", "No"), encoding="utf-8")
    run = cli("run", "--model", f"replay:{log}", "--bench", "mme", "--limit", "2", "--out", tmp_path / "run")
    assert f"{log}:2, field 'doc_id': not a whole number: 'zz'" in run.error_line()


def m3gia_line(**fields: Any) -> str:
    """A line of M3GIA's inference_only.py answers (fields as in its example output)."""
    line = {"question_id": "1", "round_id": 0, "question_type": "x", "prompt": "p", "response": "B",
            "prediction": "B", "answer_id": "2YVULhhF4avmGwK5Jum2e9", "model_id": "cogvlm2-19B",
            "metadata": {}}
    line.update(fields)
    return json.dumps({k: v for k, v in line.items() if v is not None}) + "\n"


def test_m3gia_round_id_that_is_not_a_number(cli: Any, tmp_path: Path) -> None:
    answers = tmp_path / "english.jsonl"
    answers.write_text(m3gia_line() + m3gia_line(question_id="2", round_id="x"), encoding="utf-8")
    run = cli("run", "--model", f"replay:{answers}", "--bench", "m3gia", "--language", "en",
              "--out", tmp_path / "run")
    assert f"{answers}:2, field 'round_id': not a whole number: 'x'" in run.error_line()


def test_m3gia_line_without_question_id(cli: Any, tmp_path: Path) -> None:
    answers = tmp_path / "english.jsonl"
    answers.write_text(m3gia_line() + m3gia_line(question_id=None), encoding="utf-8")
    run = cli("run", "--model", f"replay:{answers}", "--bench", "m3gia", "--language", "en",
              "--out", tmp_path / "run")
    assert f"{answers}:2, field 'question_id': missing" in run.error_line()


def test_score_mme_on_records_without_metadata(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert cli("run", "--model", "mock:yes", "--bench", "mme", "--limit", "4", "--out", out).code == 0
    for name in ("samples.jsonl", "scored.jsonl"):
        lines = (out / name).read_text(encoding="utf-8").splitlines()
        stripped = [json.loads(line) for line in lines]
        for record in stripped[2:]:
            record.pop("metadata")
        (out / name).write_text("".join(json.dumps(r) + "\n" for r in stripped), encoding="utf-8")
    line = cli("score", "mme", out).error_line()
    assert f"{out / 'scored.jsonl'}:3, field 'metadata.subtask': missing" in line
    line = cli("score", "mme", out / "samples.jsonl").error_line()
    assert f"{out / 'samples.jsonl'}:3, field 'metadata.subtask': missing" in line
