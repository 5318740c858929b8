"""M3GIA's own answer files, which `replay:` reads (the benchmark's `answer_files` hook).

`inference_only.py` writes `<answers dir>/<model>/<language>.jsonl`, one object per question with
`question_id`, `question_type`, `prompt`, `response` (the model's text), `prediction` (the release's parsed
letter, ignored: mmgauge reads the response itself), `answer_id`, `model_id`, and in the example output
`round_id`. The language comes from the file name; sample ids are `<language>/<question_id>`. Only round 0 is
read (a replayed run asks each question once per round, with no way to tell rounds apart).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from mmgauge.backends.replay_formats import whole_number
from mmgauge.benchmarks.m3gia.languages import LANGUAGES, language_name
from mmgauge.core.errors import UserError


class M3GIAAnswerFiles:
    """The `AnswerFiles` (`backends/replay_formats.py`) of M3GIA's inference script."""

    description = "M3GIA answers (<language>.jsonl)"

    def is_line(self, row: dict[str, Any]) -> bool:
        return "question_id" in row and "response" in row and ("answer_id" in row or "question_type" in row)

    def answers(self, rows: Iterable[tuple[int, dict[str, Any]]], path: Path) -> dict[str, str]:
        """Sample id -> response for one language's M3GIA answer file (the language is the file name)."""
        try:
            language = language_name(path.stem, field="file name")
        except UserError:
            raise UserError("cannot tell the language of this M3GIA answer file: name it <language>.jsonl "
                            "(english, chinese, ...) as M3GIA's inference_only.py does",
                            file=str(path)) from None
        answers: dict[str, str] = {}
        file = str(path)
        for line, row in rows:
            if whole_number(row.get("round_id") or 0, file, line, "round_id") != 0:
                continue
            question = row.get("question_id")
            if question is None or not str(question).strip():
                raise UserError("missing (the question this line answers)", file=file, line=line,
                                field="question_id")
            key = f"{language}/{str(question).strip()}"
            if key in answers:
                raise UserError(f"question {question} is answered twice", file=file, line=line)
            if isinstance(row.get("response"), str):
                answers[key] = row["response"]
        return answers

    def folder_files(self, folder: Path) -> list[Path]:
        """The `<language>.jsonl` answer files of an M3GIA answers folder (one model's)."""
        files = [folder / f"{language}.jsonl" for language in LANGUAGES]
        return [file for file in files if file.is_file()]


#: The hook's object.
ANSWER_FILES: Final = M3GIAAnswerFiles()
