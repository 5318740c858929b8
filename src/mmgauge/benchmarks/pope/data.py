"""POPE questions from the two layouts it is shared in.

- lmms-eval's `lmms-lab/POPE` (Hugging Face, parquet shards or the `datasets` arrow cache), split `test`, 9000
  rows: `id`, `question_id` (1..3000 again in each split), `question`, `answer` (yes/no), `image_source` (the
  COCO image name), `image` (a struct `{bytes, path}`) and `category` (the split). Sample ids are
  `<category>/<question_id>`, unique because question ids restart per split.
- VLMEvalKit's `POPE.tsv`: `index`, `question`, `answer` (Yes/No), `category` and `image` (base64 text, or a
  short reference to the `index` of the row that holds the same image's text), optionally `image_path`. A
  question that is in several splits is one row whose category lists them ("popular,random"). Sample ids
  are the `index`.

Lines in messages are the row's number in the split (parquet, from 1) or in the file (TSV, header = 1).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePool, ImageRef
from mmgauge.datasources.tables import (
    column_names,
    fingerprint_files,
    image_bytes,
    is_table_source,
    read_arrow,
    table_files,
)

PARQUET_COLUMNS: Final = ("question_id", "question", "answer", "image", "category")
TSV_COLUMNS: Final = ("index", "question", "answer", "category")
#: An `image` cell this short is a reference to another row's `index`, not base64 text.
REFERENCE_MAX_CHARS: Final = 64


@dataclass(frozen=True)
class PopeQuestion:
    sample_id: str
    question: str
    truth: str
    splits: tuple[str, ...]
    image: ImageRef
    #: Names the image, for grouping its questions (the COCO name, or where its bytes first appear).
    image_key: str


def parse_truth(value: str, file: str, line: int) -> str:
    truth = value.strip().lower()
    if truth not in ("yes", "no"):
        raise UserError(f"answer must be yes or no, not {value!r}", file=file, line=line, field="answer")
    return truth


def parse_splits(value: str, file: str, line: int) -> tuple[str, ...]:
    splits = tuple(dict.fromkeys(part.strip().lower() for part in value.split(",") if part.strip()))
    if not splits:
        raise UserError("empty category (the POPE split)", file=file, line=line, field="category")
    return splits


def fingerprint(path: Path) -> str:
    """sha256 of the data's file names and bytes (a shard stands for its whole split)."""
    return fingerprint_files(table_files(path) if is_table_source(path) else [path])


def load_questions(path: Path) -> list[PopeQuestion]:
    if is_table_source(path):
        questions = load_parquet(path)
    elif path.is_file() and path.suffix.lower() == ".tsv":
        questions = load_tsv(path)
    elif not path.exists():
        raise UserError("no such file or folder", file=str(path))
    else:
        raise UserError("expected .parquet/.arrow files (lmms-lab/POPE) or a .tsv file (VLMEvalKit's "
                        "POPE.tsv)", file=str(path))
    if not questions:
        raise UserError("no POPE questions in this file", file=str(path))
    return questions



def load_parquet(path: Path) -> list[PopeQuestion]:
    files = table_files(path)
    file = str(files[0] if len(files) == 1 else path)
    present = column_names(files)
    missing = [column for column in PARQUET_COLUMNS if column not in present]
    if missing:
        raise UserError(f"missing column(s) {', '.join(missing)} of the lmms-lab/POPE layout "
                        f"(has: {', '.join(present)})", file=file)
    wanted = [*PARQUET_COLUMNS, *(["image_source"] if "image_source" in present else [])]
    table = read_arrow(files, wanted)
    cells = {name: table.column(name).to_pylist() for name in wanted if name != "image"}
    images = table.column("image").to_pylist()
    pool = ImagePool(file)
    seen: dict[str, int] = {}
    questions = []
    for row in range(table.num_rows):
        line = row + 1
        text = {name: "" if values[row] is None else str(values[row]) for name, values in cells.items()}
        question_id = text["question_id"].strip()
        if not question_id:
            raise UserError("empty question_id", file=file, line=line, field="question_id")
        splits = parse_splits(text["category"], file, line)
        sample_id = f"{','.join(splits)}/{question_id}"
        if sample_id in seen:
            raise UserError(f"question {sample_id} again (first on row {seen[sample_id]})", file=file,
                            line=line, field="question_id")
        seen[sample_id] = line
        data = image_bytes(images[row])
        if data is None:
            raise UserError("the row has no image bytes", file=file, line=line, field="image")
        ref = pool.embedded(data, line)
        key = text.get("image_source", "").strip() or f"{file}:{ref.origin_line}"
        questions.append(PopeQuestion(sample_id, text["question"], parse_truth(text["answer"], file, line),
                                      splits, ref, key))
    return questions


def load_tsv(path: Path) -> list[PopeQuestion]:
    import pandas as pd

    file = str(path)
    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, encoding="utf-8")
    except (ValueError, OSError) as error:  # pandas' parser and decoding errors are ValueErrors
        raise UserError(f"cannot read as TSV: {error}".splitlines()[0], file=file) from None
    missing = [column for column in TSV_COLUMNS if column not in frame.columns]
    if missing:
        raise UserError(f"missing column(s) {', '.join(missing)} of VLMEvalKit's POPE.tsv "
                        f"(has: {', '.join(map(str, frame.columns))})", file=file)
    if "image" not in frame.columns and "image_path" not in frame.columns:
        raise UserError("needs an 'image' (base64) or 'image_path' column", file=file)
    rows: list[dict[str, Any]] = [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]
    line_of: dict[str, int] = {}
    for number, row in enumerate(rows):
        index = str(row["index"]).strip()
        if not index:
            raise UserError("empty index", file=file, line=number + 2, field="index")
        if index in line_of:
            raise UserError(f"index {index} again (first on line {line_of[index]})", file=file,
                            line=number + 2, field="index")
        line_of[index] = number + 2
    pool = ImagePool(file)
    questions = []
    for number, row in enumerate(rows):
        line = number + 2
        ref, key = _tsv_image(rows, number, line_of, pool, path)
        questions.append(PopeQuestion(str(row["index"]).strip(), str(row["question"]),
                                      parse_truth(str(row["answer"]), file, line),
                                      parse_splits(str(row["category"]), file, line), ref, key))
    return questions


def _tsv_image(rows: list[dict[str, Any]], number: int, line_of: dict[str, int], pool: ImagePool,
               path: Path) -> tuple[ImageRef, str]:
    """The row's image: base64 text, a reference to the row holding it (followed once), or a file path."""
    file, line = str(path), number + 2
    cell = str(rows[number].get("image", "")).strip()
    if len(cell) <= REFERENCE_MAX_CHARS and cell in line_of:
        owner = line_of[cell]
        cell = str(rows[owner - 2].get("image", "")).strip()
        if len(cell) <= REFERENCE_MAX_CHARS:
            raise UserError("image refers to a row that holds no base64 image", file=file, line=line,
                            field="image")
        line = owner
    if cell:
        ref = pool.embedded(cell, line)
        return ref, f"{file}:{ref.origin_line}"
    image_path = str(rows[number].get("image_path", "")).strip()
    if not image_path:
        raise UserError("no image (neither base64 text nor image_path)", file=file, line=line, field="image")
    resolved = path.parent / image_path
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    return ImageRef(path=str(resolved), origin_file=file, origin_line=line, origin_field="image_path"), digest
