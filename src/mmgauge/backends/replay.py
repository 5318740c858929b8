"""Answers from an existing predictions file, to score outputs produced elsewhere.

The file is looked up by sample id: another run (its folder, or a file of its records), or a TSV/XLSX/CSV/
JSONL with columns `index` (or `id`/`sample_id`) and `prediction`, as other toolkits write them; lmms-eval's
`--log_samples` JSONL (MMBench, MME) and a benchmark's own answer files (its `answer_files` hook: a file, or
their folder) are read as `replay_formats` describes. A sample with no prediction in the file comes back as a
failed request (a permanent one: the same file never answers it), never as an empty answer.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.replay_formats import AnswerFiles, is_lmms_eval_line, json_lines, lmms_eval_answers
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, ModelSpec, SampleRecord
from mmgauge.datasources.spreadsheets import read_sheet
from mmgauge.store.run_folder import RunFolder
from mmgauge.store.runlog import read_records

ID_COLUMNS = ("sample_id", "index", "id")


def answer_files(hooks: Sequence[str]) -> list[AnswerFiles]:
    """The objects the benchmarks' `answer_files` hooks name ("module:attribute"), imported now."""
    found = []
    for hook in hooks:
        module, _, name = hook.partition(":")
        found.append(getattr(importlib.import_module(module), name))
    return found


def read_predictions(path: Path, formats: Sequence[AnswerFiles] = ()) -> dict[str, str]:
    """Sample id -> answer text of a predictions file or folder (`formats`: benchmarks' own answer files)."""
    if path.is_dir():
        return _read_folder(path, formats)
    if not path.is_file():
        raise UserError("predictions file not found", file=str(path))
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(path, formats)
    import pandas as pd

    if suffix in (".xlsx", ".xls"):
        frame = read_sheet(path, dtype=str, keep_default_na=False)
    else:
        try:
            frame = pd.read_csv(path, sep="," if suffix == ".csv" else "\t", dtype=str, keep_default_na=False)
        except Exception as error:  # pandas raises many types for unreadable files
            raise UserError(f"cannot read predictions: {error}".splitlines()[0], file=str(path)) from None
    id_column = next((c for c in ID_COLUMNS if c in frame.columns), None)
    if id_column is None or "prediction" not in frame.columns:
        raise UserError("needs an 'index' (or 'id'/'sample_id') and a 'prediction' column", file=str(path))
    return dict(zip(frame[id_column].astype(str), frame["prediction"].astype(str), strict=True))


def _read_folder(path: Path, formats: Sequence[AnswerFiles]) -> dict[str, str]:
    """A run folder (its logged answers) or a folder of a benchmark's own answer files."""
    folder = RunFolder(path)
    if folder.has_records():
        return _answers(folder.raw_records().values())
    for kind in formats:
        files = kind.folder_files(path)
        if files:
            answers: dict[str, str] = {}
            for file in files:
                answers.update(kind.answers(json_lines(file), file))
            return answers
    raise UserError(" nor ".join(["neither a run folder", *(kind.description for kind in formats)])
                    if formats else "not a run folder", file=str(path))


def _folder_files(path: Path, formats: Sequence[AnswerFiles]) -> list[Path]:
    return next((files for kind in formats if (files := kind.folder_files(path))), [])


def _answers(records: Iterable[SampleRecord]) -> dict[str, str]:
    """Each sample's answer in a run's records (failed requests have none: asked again, they fail again)."""
    return {r.sample_id: r.response.text for r in records if r.response.ok and r.response.text is not None}


def _fingerprint(path: Path, answers: dict[str, str], formats: Sequence[AnswerFiles]) -> str:
    digest = hashlib.sha256()
    if path.is_dir() and RunFolder(path).has_records():
        # Another run: what it answered (its log also holds timings and failures that change nothing).
        digest.update(json.dumps(sorted(answers.items()), ensure_ascii=False).encode("utf-8"))
        return digest.hexdigest()
    files = [path] if path.is_file() else _folder_files(path, formats)
    for file in files:  # one file: its bytes alone, as before folders were accepted
        named = file.name.encode() + b"\0" if path.is_dir() else b""
        digest.update(named + file.read_bytes())
    return digest.hexdigest()


def _is_record_file(path: Path) -> bool:
    with path.open("rb") as handle:
        first = handle.readline()
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and "response" in row and "sample_id" in row


def _read_jsonl(path: Path, formats: Sequence[AnswerFiles]) -> dict[str, str]:
    if _is_record_file(path):  # another run's record log: read as the run folder reads it
        return _answers(read_records(path))
    lines = json_lines(path)
    if lines and is_lmms_eval_line(lines[0][1]):
        return lmms_eval_answers(lines, str(path))
    for kind in formats:
        if lines and kind.is_line(lines[0][1]):
            return kind.answers(lines, path)
    answers: dict[str, str] = {}
    for number, row in lines:
        key = next((c for c in ID_COLUMNS if c in row), None)
        if key is None or "prediction" not in row:
            raise UserError(
                "a row needs 'index' (or 'id'/'sample_id') and 'prediction'", file=str(path), line=number
            )
        answers[str(row[key])] = str(row["prediction"])
    return answers


class ReplayBackend(Backend):
    batch_size = 1024
    cacheable = False

    def __init__(self, path: Path, formats: Sequence[AnswerFiles] = ()) -> None:
        self.path = path
        self.answers = read_predictions(path, formats)
        self._fingerprint = "replay:" + _fingerprint(path, self.answers, formats)

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        return cls.path_spec(name, rest, "FILE")

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> ReplayBackend:
        return cls(Path(spec.path or ""), answer_files(settings.answer_files))

    def fingerprint(self) -> str:
        return self._fingerprint

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        out = []
        for request in batch:
            text = self.answers.get(request.sample_id or "")
            if text is None:
                # The same on every run of this file: a re-run cannot answer it (a new file is a new model).
                out.append(ModelResponse(
                    error=f"no prediction for sample '{request.sample_id}' in {self.path}",
                    error_code="no prediction in the file", error_permanent=True))
            else:
                out.append(ModelResponse(text=text))
        return out
