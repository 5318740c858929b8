"""Answer files written by other toolkits, read as sample id -> the model's raw text, for `replay:`.

- lmms-eval's per-sample log (`--log_samples`, `<date>_samples_<task>.jsonl`): one object per document with
  `doc_id`, `filtered_resps` (the model's text, in a list) and the task's metric entries. MMBench's entries
  (`gpt_eval_score`, `submission`) carry the row's `index`, which is mmgauge's sample id. MME's entry
  (`mme_percetion_score` / `mme_cognition_score`, spelled so by lmms-eval) carries `question_id`
  (`<subtask>/<image>`, shared by an image's two questions) and `category`; taken in `doc_id` order, the n-th
  document of an image is mmgauge's `<subtask>/<image>/q<n>`, as the dataset rows are.
- a benchmark's own answer files (its `answer_files` hook, an `AnswerFiles`): JSONL files whose first line
  it recognises, or a folder of them; a run hands the hooks of its benchmarks to the backend's settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects

#: lmms-eval's MME metric keys (the first one misspelled in lmms-eval itself).
MME_ENTRIES = ("mme_percetion_score", "mme_perception_score", "mme_cognition_score")


def is_lmms_eval_line(row: dict[str, Any]) -> bool:
    return "doc_id" in row and ("filtered_resps" in row or "resps" in row)


class AnswerFiles(Protocol):
    """A benchmark's own answer files, as `replay:` reads them (the benchmark's `answer_files` hook)."""

    #: What they are, for messages.
    description: str

    def is_line(self, row: dict[str, Any]) -> bool:
        """Whether the first line of a JSONL file is one of theirs."""

    def answers(self, rows: Iterable[tuple[int, dict[str, Any]]], path: Path) -> dict[str, str]:
        """Sample id -> the model's text, for the lines of one file."""

    def folder_files(self, folder: Path) -> list[Path]:
        """The answer files in a folder of them (none: not such a folder)."""


def _text(value: Any) -> str | None:
    """The first string inside (possibly nested) lists: lmms-eval logs `filtered_resps` as `["text"]`."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class MMEDocument:
    """One MME document of an lmms-eval log: where it is, its subtask and image, the truth and the answer."""

    doc_id: int
    line: int
    subtask: str
    question_id: str
    #: lmms-eval's `target` (the document's `answer`, "Yes"/"No"); None when the line has neither.
    target: str | None
    #: The model's text; None when the line holds none (a failed request).
    text: str | None


def whole_number(value: Any, file: str, line: int, field: str) -> int:
    """`value` as an int: a JSON integer, or a string of digits as some writers store ids."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise UserError(f"not a whole number: {value!r}", file=file, line=line, field=field)


def lmms_eval_documents(rows: Iterable[tuple[int, dict[str, Any]]], file: str,
                        ) -> tuple[dict[str, str], list[MMEDocument]]:
    """The lines of an lmms-eval sample log: MMBench answers by the row's `index`, and MME documents in
    `doc_id` order (the order lmms-eval read the dataset in, which pairs an image's two questions)."""
    answers: dict[str, str] = {}
    documents: list[MMEDocument] = []
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
            doc_id = whole_number(row.get("doc_id"), file, line, "doc_id")
            documents.append(MMEDocument(doc_id, line, str(scored["category"]), str(scored["question_id"]),
                                   _target(row), text))
            continue
        raise UserError("an lmms-eval log line without an MMBench (index) or MME (question_id) entry",
                        file=file, line=line)
    return answers, sorted(documents, key=lambda doc: (doc.doc_id, doc.line))


def _target(row: dict[str, Any]) -> str | None:
    """The truth lmms-eval logged: `target` (MME's `doc_to_target` is the document's `answer`)."""
    doc = row.get("doc")
    for value in (row.get("target"), doc.get("answer") if isinstance(doc, dict) else None):
        found = _text(value)
        if found is not None:
            return found
    return None


def image_of(question_id: str) -> str:
    """The image file name in lmms-eval's MME `question_id` (`<subtask>/<image>`)."""
    return question_id.replace("\\", "/").rsplit("/", 1)[-1]


def lmms_eval_answers(rows: Iterable[tuple[int, dict[str, Any]]], file: str) -> dict[str, str]:
    """Sample id -> text for the lines of an lmms-eval sample log (MMBench or MME tasks)."""
    answers, documents = lmms_eval_documents(rows, file)
    seen: dict[tuple[str, str], int] = {}
    for doc in documents:
        image = image_of(doc.question_id)
        number = seen.get((doc.subtask, image), 0)
        seen[(doc.subtask, image)] = number + 1
        if doc.text is not None:
            answers[f"{doc.subtask}/{image}/q{number}"] = doc.text
    return answers


def json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return read_json_objects(path)
