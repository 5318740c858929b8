"""Answers from an existing predictions file, to score outputs produced elsewhere.

The file is looked up by sample id: a run's `samples.jsonl` (field `sample_id`), or a TSV/XLSX/CSV/JSONL
with columns `index` (or `id`/`sample_id`) and `prediction`, as other toolkits write them; lmms-eval's
`--log_samples` JSONL (MMBench, MME) and M3GIA's answer files (`<language>.jsonl`, or their folder) are
read as `replay_formats` describes. A sample with no prediction in the file comes back as a failed request,
never as an empty answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.replay_formats import (
    is_lmms_eval_line,
    is_m3gia_answer,
    json_lines,
    lmms_eval_answers,
    m3gia_answers,
    m3gia_folder,
)
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, ModelSpec
from mmgauge.datasources.spreadsheets import read_sheet

ID_COLUMNS = ("sample_id", "index", "id")


def read_predictions(path: Path) -> dict[str, str]:
    if path.is_dir():
        return _read_folder(path)
    if not path.is_file():
        raise UserError("predictions file not found", file=str(path))
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _read_jsonl(path)
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


def _read_folder(path: Path) -> dict[str, str]:
    """A run folder (its samples.jsonl) or an M3GIA answers folder (`<language>.jsonl` files)."""
    if (path / "samples.jsonl").is_file():
        return _read_jsonl(path / "samples.jsonl")
    files = m3gia_folder(path)
    if not files:
        raise UserError("neither a run folder (samples.jsonl) nor M3GIA answers (<language>.jsonl)",
                        file=str(path))
    answers: dict[str, str] = {}
    for file in files:
        answers.update(m3gia_answers(json_lines(file), file))
    return answers


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return [path / "samples.jsonl"] if (path / "samples.jsonl").is_file() else m3gia_folder(path)


def _read_jsonl(path: Path) -> dict[str, str]:
    lines = json_lines(path)
    if lines and is_lmms_eval_line(lines[0][1]):
        return lmms_eval_answers(lines, str(path))
    if lines and is_m3gia_answer(lines[0][1]):
        return m3gia_answers(lines, path)
    answers: dict[str, str] = {}
    for number, row in lines:
        if "response" in row and "sample_id" in row:  # a run's own samples.jsonl
            text = (row["response"] or {}).get("text")
            if text is not None and not (row["response"] or {}).get("error"):
                answers[str(row["sample_id"])] = str(text)
            continue
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

    def __init__(self, path: Path) -> None:
        self.path = path
        self.answers = read_predictions(path)
        digest = hashlib.sha256()
        for file in _files(path):  # one file: its bytes alone, as before folders were accepted
            named = file.name.encode() + b"\0" if path.is_dir() else b""
            digest.update(named + file.read_bytes())
        self._fingerprint = "replay:" + digest.hexdigest()

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> ReplayBackend:
        return cls(Path(spec.path or ""))

    def fingerprint(self) -> str:
        return self._fingerprint

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        out = []
        for request in batch:
            text = self.answers.get(request.sample_id or "")
            if text is None:
                out.append(
                    ModelResponse(error=f"no prediction for sample '{request.sample_id}' in {self.path}")
                )
            else:
                out.append(ModelResponse(text=text))
        return out
