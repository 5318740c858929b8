"""Answer files written by other toolkits, read as sample id -> the model's raw text, for `replay:`.

- lmms-eval's per-sample log (`--log_samples`, `<date>_samples_<task>.jsonl`): one object per document with
  `doc_id`, `filtered_resps` (the model's text, in a list) and the task's metric entries. MMBench's entries
  (`gpt_eval_score`, `submission`) carry the row's `index`, which is mmgauge's sample id. MME's entry
  (`mme_percetion_score` / `mme_cognition_score`, spelled so by lmms-eval) carries `question_id`
  (`<subtask>/<image>`, shared by an image's two questions) and `category`; taken in `doc_id` order, the n-th
  document of an image is mmgauge's `<subtask>/<image>/q<n>`, as the dataset rows are.
- M3GIA's answer files (`inference_only.py`: `<answers dir>/<model>/<language>.jsonl`), one object per
  question with `question_id`, `question_type`, `prompt`, `response` (the model's text), `prediction` (the
  release's parsed letter, ignored: mmgauge reads the response itself), `answer_id`, `model_id`, and in the
  example output `round_id`. The language comes from the file name; sample ids are `<language>/<question_id>`.
  Only round 0 is read (a replayed run asks each question once per round, with no way to tell rounds apart).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects

#: lmms-eval's MME metric keys (the first one misspelled in lmms-eval itself).
MME_ENTRIES = ("mme_percetion_score", "mme_perception_score", "mme_cognition_score")


def is_lmms_eval_line(row: dict[str, Any]) -> bool:
    return "doc_id" in row and ("filtered_resps" in row or "resps" in row)


def is_m3gia_answer(row: dict[str, Any]) -> bool:
    return "question_id" in row and "response" in row and ("answer_id" in row or "question_type" in row)


def _text(value: Any) -> str | None:
    """The first string inside (possibly nested) lists: lmms-eval logs `filtered_resps` as `["text"]`."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def lmms_eval_answers(rows: Iterable[tuple[int, dict[str, Any]]], file: str) -> dict[str, str]:
    """Sample id -> text for the lines of an lmms-eval sample log (MMBench or MME tasks)."""
    answers: dict[str, str] = {}
    mme: list[tuple[int, int, str, str, str]] = []
    for line, row in rows:
        text = _text(row.get("filtered_resps")) or _text(row.get("resps"))
        entry = next((row[k] for k in ("gpt_eval_score", "submission") if isinstance(row.get(k), dict)), None)
        if entry is not None and "index" in entry:
            if text is None:
                text = entry.get("prediction") if isinstance(entry.get("prediction"), str) else None
            if text is not None:
                answers[str(entry["index"])] = text
            continue
        scored = next((row[k] for k in MME_ENTRIES if isinstance(row.get(k), dict)), None)
        if scored is not None and "question_id" in scored and "category" in scored:
            if text is not None:
                category, question_id = str(scored["category"]), str(scored["question_id"])
                mme.append((int(row["doc_id"]), line, category, question_id, text))
            continue
        raise UserError("an lmms-eval log line without an MMBench (index) or MME (question_id) entry",
                        file=file, line=line)
    seen: dict[tuple[str, str], int] = {}
    for _, _, category, question_id, text in sorted(mme):
        image = question_id.replace("\\", "/").rsplit("/", 1)[-1]
        number = seen.get((category, image), 0)
        seen[(category, image)] = number + 1
        answers[f"{category}/{image}/q{number}"] = text
    return answers


def m3gia_answers(rows: Iterable[tuple[int, dict[str, Any]]], path: Path) -> dict[str, str]:
    """Sample id -> response for one language's M3GIA answer file (the language is the file name)."""
    from mmgauge.benchmarks.m3gia.data import language_name

    try:
        language = language_name(path.stem, field="file name")
    except UserError:
        raise UserError("cannot tell the language of this M3GIA answer file: name it <language>.jsonl "
                        "(english, chinese, ...) as M3GIA's inference_only.py does", file=str(path)) from None
    answers: dict[str, str] = {}
    for line, row in rows:
        if int(row.get("round_id") or 0) != 0:
            continue
        key = f"{language}/{str(row['question_id']).strip()}"
        if key in answers:
            raise UserError(f"question {row['question_id']} is answered twice", file=str(path), line=line)
        if isinstance(row["response"], str):
            answers[key] = row["response"]
    return answers


def m3gia_folder(folder: Path) -> list[Path]:
    """The `<language>.jsonl` answer files of an M3GIA answers folder (one model's)."""
    from mmgauge.benchmarks.m3gia.data import LANGUAGES

    files = [folder / f"{language}.jsonl" for language in LANGUAGES]
    return [file for file in files if file.is_file()]


def json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return read_json_objects(path)
