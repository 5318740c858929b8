"""Reading MMStar's two published layouts into `Question`s.

- VLMEvalKit's `MMStar.tsv` (open-compass/VLMEvalKit, `ImageMCQDataset.DATASET_URL['MMStar']`): one row
  per question with the columns index, question, A, B, C, D, answer, category, l2-category and image (base64).
  As in every VLMEvalKit TSV, an image cell of at most 64 characters is not an image but the index of the row
  that holds it (`ImageBaseDataset`), and an option cell pandas reads as missing is no option (`build_prompt`
  keeps the letters that are not `pd.isna`). A hint column, if a file has one, is kept the same way.
- The Hugging Face dataset `Lin-Chen/MMStar` (`mmstar.parquet`, split val): the columns index, question, image
  (the datasets library's image struct of bytes and path), answer, category, l2_category and meta_info. Its
  question holds the options, as `<stem>\\nOptions: A: <text>, B: <text>, ...`; they are parsed out here, so
  that both layouts give the same stem and options (what VLMEvalKit's TSV holds in separate columns).

Sample ids are the index, which both layouts share (0 to 1499).
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from mmgauge.benchmarks.presets import PANDAS_DEFAULT_NA
from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePool, ImageRef
from mmgauge.datasources.tables import image_bytes

TSV_COLUMNS: Final = ("index", "question", "answer", "category", "l2-category", "image")
PARQUET_COLUMNS: Final = ("index", "question", "image", "answer", "category", "l2_category")
#: VLMEvalKit's rule: an image cell this short names the row holding the image.
IMAGE_REF_MAX: Final = 64
#: The file names a downloaded dataset folder holds, in the order they are looked for.
FOLDER_FILES: Final = ("MMStar.tsv", "mmstar.parquet")
PARQUET_MAGIC: Final = b"PAR1"
_OPTIONS_HEADER: Final = re.compile(r"\n?\s*Options:\s*")


@dataclass(frozen=True)
class Question:
    """One MMStar question in either layout. `line` is the TSV line (header = 1) or the parquet row (from 1).
    `source_question` is the question as the Hugging Face parquet writes it (options inline), rebuilt in that
    form for TSV rows."""

    index: int
    question: str
    options: dict[str, str]
    answer: str | None
    category: str
    l2_category: str
    image: ImageRef
    line: int
    hint: str = ""
    source_question: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


def data_file(path: Path) -> Path:
    """The data file of `path`: the path itself, or in a folder MMStar.tsv, mmstar.parquet, or its one
    .tsv/.parquet file."""
    if path.is_file():
        return path
    if not path.is_dir():
        raise UserError("no such file or folder", file=str(path), field="--data")
    for name in FOLDER_FILES:
        if (path / name).is_file():
            return path / name
    found = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".tsv", ".parquet"))
    if len(found) != 1:
        raise UserError(f"expected MMStar.tsv or mmstar.parquet in the folder, found {len(found)} data files",
                        file=str(path), field="--data")
    return found[0]


def load_questions(path: Path) -> tuple[Path, list[Question]]:
    """The questions of a VLMEvalKit TSV or a Hugging Face parquet, checked, and the file read.

    Told apart by content (parquet's magic bytes), not by name: a file may be saved under any name."""
    file = data_file(path)
    with file.open("rb") as handle:
        magic = handle.read(4)
    questions = read_parquet(file) if magic == PARQUET_MAGIC else read_tsv(file)
    if not questions:
        raise UserError("the file holds no questions", file=str(file))
    seen: dict[int, int] = {}
    for q in questions:
        if q.index in seen:
            raise UserError(f"index {q.index} already used on line {seen[q.index]}", file=str(file),
                            line=q.line, field="index")
        seen[q.index] = q.line
    return file, questions


def read_tsv(path: Path) -> list[Question]:
    import pandas as pd

    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except Exception as error:  # pandas raises many unrelated types for unreadable files
        raise UserError(f"cannot read the TSV: {error}".splitlines()[0], file=str(path)) from None
    _require(path, list(frame.columns), TSV_COLUMNS)
    letters = [c for c in string.ascii_uppercase if c in frame.columns]
    rows = frame.to_dict("records")
    indexes = [_index(path, i + 2, row["index"]) for i, row in enumerate(rows)]
    cells = {index: str(row["image"]) for index, row in zip(indexes, rows, strict=True)}
    pool = ImagePool(str(path))
    questions = []
    for i, (index, row) in enumerate(zip(indexes, rows, strict=True)):
        line = i + 2
        # VLMEvalKit reads with pandas: a cell pandas reads as missing is no option (and no hint).
        options = {c: str(row[c]) for c in letters if str(row[c]) not in PANDAS_DEFAULT_NA}
        hint = str(row.get("hint", ""))
        questions.append(Question(
            index=index, question=str(row["question"]), options=options,
            answer=_answer(path, line, str(row["answer"]).strip(), options),
            category=str(row["category"]), l2_category=str(row["l2-category"]),
            image=pool.embedded(_image_text(path, line, index, cells), line), line=line,
            hint="" if hint in PANDAS_DEFAULT_NA else hint,
            source_question=inline_question(str(row["question"]), options),
        ))
    return questions


def _image_text(path: Path, line: int, index: int, cells: dict[int, str]) -> str:
    text = cells[index]
    if len(text) > IMAGE_REF_MAX:
        return text
    try:
        target = cells[int(text.strip())]
    except (ValueError, KeyError):
        target = ""
    if len(target) <= IMAGE_REF_MAX:
        raise UserError(f"the image cell '{text}' is neither base64 nor the index of a row holding an image",
                        file=str(path), line=line, field="image")
    return target


def read_parquet(path: Path) -> list[Question]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow's errors for a damaged file vary
        raise UserError(f"cannot read the parquet file: {error}".splitlines()[0], file=str(path)) from None
    _require(path, table.column_names, PARQUET_COLUMNS)
    pool = ImagePool(str(path))
    questions = []
    for i, row in enumerate(table.to_pylist()):
        line = i + 1
        text = str(row["question"] or "")
        stem, options = split_options(text, path, line)
        data = image_bytes(row["image"])
        if data is None:
            raise UserError("no image bytes", file=str(path), line=line, field="image")
        meta = row.get("meta_info")
        questions.append(Question(
            index=_index(path, line, row["index"]), question=stem, options=options,
            answer=_answer(path, line, str(row["answer"] or "").strip(), options),
            category=str(row["category"]), l2_category=str(row["l2_category"]),
            image=pool.embedded(data, line), line=line, source_question=text,
            meta=dict(meta) if isinstance(meta, dict) else {},
        ))
    return questions


def split_options(text: str, path: Path, line: int) -> tuple[str, dict[str, str]]:
    """The stem and the options of a question that holds them inline: `<stem>\\nOptions: A: x, B: y, ...`.

    Each letter's text runs to the next letter's marker (`, B:` or a line break and `B:`), in letter order, so
    a comma inside an option's text is kept."""
    header = list(_OPTIONS_HEADER.finditer(text))
    rest_at = header[-1].end() if header else -1
    if rest_at < 0 or not text[rest_at:].startswith("A:"):
        raise UserError("no 'Options: A: ..., B: ...' in the question", file=str(path), line=line,
                        field="question")
    stem = text[: header[-1].start()].strip()
    starts: list[tuple[str, int, int]] = [("A", rest_at, rest_at + 2)]
    for letter in string.ascii_uppercase[1:]:
        marker = re.compile(rf"(?:,|\n)\s*{letter}:")
        found = marker.search(text, starts[-1][2])
        if found is None:
            break
        starts.append((letter, found.start(), found.end()))
    if len(starts) < 2:
        raise UserError("fewer than two options after 'Options:'", file=str(path), line=line,
                        field="question")
    ends = [begin for _, begin, _ in starts[1:]] + [len(text)]
    options = {letter: text[after:end].strip() for (letter, _, after), end in zip(starts, ends, strict=True)}
    return stem, options


def inline_question(stem: str, options: dict[str, str]) -> str:
    """The question in the Hugging Face parquet's form, options inline."""
    listed = ", ".join(f"{letter}: {text}" for letter, text in options.items())
    return f"{stem}\nOptions: {listed}"


def fingerprint(file: Path) -> str:
    """sha256 over the data file's name and bytes."""
    digest = hashlib.sha256(file.name.encode() + b"\0")
    with file.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _require(path: Path, columns: list[str], needed: tuple[str, ...]) -> None:
    missing = [c for c in needed if c not in columns]
    if missing:
        raise UserError(f"missing column '{missing[0]}' (an MMStar file has {', '.join(needed)})",
                        file=str(path), field=missing[0])


def _index(path: Path, line: int, value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise UserError(f"index '{value}' is not a whole number", file=str(path), line=line,
                        field="index") from None


def _answer(path: Path, line: int, answer: str, options: dict[str, str]) -> str | None:
    if answer in PANDAS_DEFAULT_NA:
        return None
    if answer not in options:
        raise UserError(f"answer '{answer}' is not one of the options {', '.join(options)}", file=str(path),
                        line=line, field="answer")
    return answer
