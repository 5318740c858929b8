"""Reading MME questions: the official release folder (both layouts), the single TSV, and table files.

Release folder: one folder per subtask. Five subtasks (artwork, celebrity, landmark, posters, scene) keep
images in `images/` and question files in `questions_answers_YN/`; the rest keep `<name>.jpg|png` beside
`<name>.txt`.
Either layout is accepted for any subtask. A question file holds two lines `question<TAB>Yes|No`.

Single TSV (as other toolkits ship it): columns index, image, question, answer, category, image_path. `image`
is base64, or a short value naming the `index` of another row whose image it reuses.

The lmms-lab/MME parquet (or arrow) layout is read by `hf_table.py`; `data.py` picks the reader.

Every error names the file and line (for spreadsheets: the row as the spreadsheet shows it).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from mmgauge.benchmarks.mme.scoring import SUBTASKS
from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects
from mmgauge.datasources.spreadsheets import read_sheet

if TYPE_CHECKING:
    # Loaded by the two readers that make images: reading answers (`score mme`) never needs the models.
    from mmgauge.core.types import ImageRef

IMAGE_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp")
SPLIT_LAYOUT: Final = ("images", "questions_answers_YN")
#: An `image` cell this short is a reference to another row's index (base64 of any real image is longer).
_REFERENCE_MAX: Final = 64


@dataclass(frozen=True)
class MMEQuestion:
    subtask: str
    image: str
    index: int
    question: str
    truth: str
    order: int
    image_ref: ImageRef | None = None


@dataclass(frozen=True)
class Row:
    """One data row of a table file: its cells as text, and the line (or spreadsheet row) it starts on."""

    line: int
    cells: dict[str, str | None]


def canonical_subtask(name: str) -> str | None:
    """The subtask's official spelling ("ocr" -> "OCR"), or None if it is not one."""
    for subtask in SUBTASKS:
        if subtask.lower() == name.strip().lower():
            return subtask
    return None


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read: {exc.strerror}", file=str(path)) from exc
    try:
        # utf-8-sig drops a byte-order mark, which would otherwise stick to the first image name.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise UserError("not valid UTF-8 text", file=str(path), line=line) from exc


def read_lines(path: Path) -> list[str]:
    """Lines split the way Python's universal newlines (the official tool's `readlines`) split them.

    CRLF and lone CR end a line; terminators are removed. Empty lines at the very end are dropped (they carry
    nothing); an empty line anywhere else is an error, since it would shift the official tool's pairing.
    """
    lines = read_text(path).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if line.strip() == "":
            raise UserError("empty line inside the file", file=str(path), line=number)
    return lines


def parse_truth(value: str, file: str, line: int) -> str:
    truth = value.strip().lower()
    if truth not in ("yes", "no"):
        raise UserError(f"ground truth must be Yes or No, got {value!r}", file=file, line=line)
    return truth


def check_pair(truths: list[str], file: str, line: int, image: str) -> None:
    if sorted(truths) != ["no", "yes"]:
        found = "/".join(truths) if truths else "none"
        message = f"image '{image}' needs exactly two questions, one Yes and one No (found {found})"
        raise UserError(message, file=file, line=line)


def read_question_file(path: Path) -> list[tuple[str, str]]:
    """The two `(question, truth)` lines of one release question file."""
    lines = read_lines(path)
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if len(fields) != 2:
            raise UserError(f"expected 2 tab-separated fields (question, Yes|No), found {len(fields)}",
                            file=str(path), line=number)
        pairs.append((fields[0], parse_truth(fields[1], str(path), number)))
    check_pair([t for _, t in pairs], str(path), len(lines) or 1, path.stem)
    return pairs


def _subtask_files(folder: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """Images and question files of one subtask folder, by stem, in whichever layout it uses."""
    split = all((folder / part).is_dir() for part in SPLIT_LAYOUT)
    image_dir = folder / SPLIT_LAYOUT[0] if split else folder
    question_dir = folder / SPLIT_LAYOUT[1] if split else folder
    images: dict[str, Path] = {}
    questions: dict[str, Path] = {}
    entries = sorted({*image_dir.iterdir(), *question_dir.iterdir()})
    for entry in entries:
        if entry.name.startswith(".") or (split and entry.parent == folder):
            continue
        suffix = entry.suffix.lower()
        if entry.is_file() and suffix in IMAGE_SUFFIXES and entry.parent == image_dir:
            if entry.stem in images:
                raise UserError(f"two images share the name '{entry.stem}' ({images[entry.stem].name})",
                                file=str(entry))
            images[entry.stem] = entry
        elif entry.is_file() and suffix == ".txt" and entry.parent == question_dir:
            questions[entry.stem] = entry
        else:
            layouts = "images beside <name>.txt, or images/ and questions_answers_YN/"
            raise UserError(f"fits neither MME release layout ({layouts})", file=str(entry))
    if split:
        for entry in sorted(folder.iterdir()):
            if not entry.name.startswith(".") and entry.name not in SPLIT_LAYOUT:
                raise UserError("unexpected beside images/ and questions_answers_YN/", file=str(entry))
    for stem, path in questions.items():
        if stem not in images:
            raise UserError("question file without an image of the same name", file=str(path))
    for stem, path in images.items():
        if stem not in questions:
            raise UserError("image without a question file of the same name", file=str(path))
    return images, questions


def subtask_folders(root: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """The subtask folders of a release root in the official order, and the names of the other entries.

    The official release holds more than subtask folders (an evaluation tool, a readme), so other entries are
    not an error; the caller reports them. Two folders naming one subtask (`existence`, `EXISTENCE`) are.
    """
    folders: dict[str, Path] = {}
    others: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        subtask = canonical_subtask(entry.name) if entry.is_dir() else None
        if subtask is None:
            others.append(entry.name + ("/" if entry.is_dir() else ""))
            continue
        if subtask in folders:
            message = f"two folders for subtask {subtask}: '{folders[subtask].name}' and '{entry.name}'"
            raise UserError(message, file=str(entry))
        folders[subtask] = entry
    return [(name, folders[name]) for name in SUBTASKS if name in folders], others


def load_release_folder(root: Path) -> list[MMEQuestion]:
    from mmgauge.core.types import ImageRef
    from mmgauge.datasources.confine import confined, data_root

    found, _ = subtask_folders(root)
    if not found:
        raise UserError(f"no MME subtask folder (expected some of: {', '.join(SUBTASKS)})", file=str(root))
    within = data_root(root)
    questions: list[MMEQuestion] = []
    for subtask, folder in found:
        images, files = _subtask_files(confined(folder, within))
        for order, stem in enumerate(sorted(images, key=lambda s: images[s].name)):
            image = confined(images[stem], within)
            for index, (question, truth) in enumerate(read_question_file(confined(files[stem], within))):
                questions.append(MMEQuestion(subtask, image.name, index, question, truth, order,
                                             ImageRef(path=str(image))))
    return questions


def read_table(path: Path) -> list[Row]:
    """Rows of a TSV, XLSX or JSONL file as text cells; JSON null stays None (an absent value)."""
    suffix = path.suffix.lower()
    if suffix in (".tsv", ".txt"):
        return _read_tsv(path)
    if suffix in (".xlsx", ".xls"):
        frame = read_sheet(path, dtype=str, keep_default_na=False)
        # Row 1 of the sheet is the header, so data row i is spreadsheet row i + 2.
        return [Row(i + 2, {str(k): str(v) for k, v in rec.items()})
                for i, rec in enumerate(frame.to_dict("records"))]
    if suffix == ".jsonl":
        return [Row(number, {str(k): None if v is None else str(v) for k, v in obj.items()})
                for number, obj in read_json_objects(path)]
    raise UserError("unsupported file type; expected .tsv, .xlsx or .jsonl", file=str(path))


def _read_tsv(path: Path) -> list[Row]:
    text = read_text(path)
    # Base64 images exceed the csv module's default field limit; 2**31-1 is the largest every platform takes.
    csv.field_size_limit(2**31 - 1)
    # newline="" leaves line endings to the csv module, which keeps them inside quoted cells.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t")
    try:
        header = next(reader)
    except StopIteration:
        raise UserError("empty file", file=str(path)) from None
    rows: list[Row] = []
    start = reader.line_num + 1
    try:
        for fields in reader:
            if fields and len(fields) != len(header):
                raise UserError(f"expected {len(header)} tab-separated fields, found {len(fields)}",
                                file=str(path), line=start)
            if fields:
                rows.append(Row(start, dict(zip(header, fields, strict=True))))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise UserError(f"malformed TSV: {exc}", file=str(path), line=start) from exc
    return rows


def require_columns(rows: Iterable[Row], columns: Iterable[str], file: str) -> None:
    for row in rows:
        missing = [c for c in columns if c not in row.cells]
        if missing:
            raise UserError(f"missing column(s): {', '.join(missing)}", file=file, line=row.line)


def _by_index(rows: list[Row], file: str) -> dict[str | None, Row]:
    """Rows by their `index` cell; an index given twice is an error (rows without one are not indexed)."""
    by_index: dict[str | None, Row] = {}
    for row in rows:
        value = (row.cells.get("index") or "").strip()
        if not value:
            continue
        if value in by_index:
            message = f"index {value} occurs twice (lines {by_index[value].line} and {row.line})"
            raise UserError(message, file=file, line=row.line, field="index")
        by_index[value] = row
    return by_index


def image_keys(rows: list[Row], file: str) -> list[str]:
    """The image each row asks about: `image_path`'s file name, else the row whose base64 image it uses."""
    by_index = _by_index(rows, file)
    keys: list[str] = []
    for row in rows:
        path = (row.cells.get("image_path") or "").strip()
        if path:
            keys.append(path.replace("\\", "/").rsplit("/", 1)[-1])
            continue
        if "image" in row.cells:
            keys.append(f"index-{_image_owner(row, by_index, file).cells.get('index')}")
            continue
        name = (row.cells.get("image_name") or "").strip()
        if not name:
            message = "no image_path, image or image_name to pair questions by"
            raise UserError(message, file=file, line=row.line)
        keys.append(name)
    return keys


def _image_owner(row: Row, by_index: dict[str | None, Row], file: str) -> Row:
    seen: set[int] = set()
    while len(value := (row.cells.get("image") or "").strip()) <= _REFERENCE_MAX:
        if row.line in seen or value not in by_index:
            raise UserError(f"image {value!r} is neither base64 nor the index of a row with an image",
                            file=file, line=row.line)
        seen.add(row.line)
        row = by_index[value]
    return row


def group_pairs(rows: list[Row], keys: list[str], file: str) -> list[tuple[str, str, list[Row]]]:
    """Rows as (subtask, image, [two rows]) in first-appearance order; checks one Yes and one No per image."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row, key in zip(rows, keys, strict=True):
        category = row.cells.get("category") or row.cells.get("subtask") or ""
        subtask = canonical_subtask(category)
        if subtask is None:
            raise UserError(f"category {category!r} is not an MME subtask", file=file, line=row.line)
        groups.setdefault((subtask, key), []).append(row)
    result = []
    for (subtask, key), members in groups.items():
        truths = [parse_truth(r.cells.get("answer") or "", file, r.line) for r in members]
        check_pair(truths, file, members[-1].line, key)
        result.append((subtask, key, members))
    return result


def load_tsv(path: Path) -> list[MMEQuestion]:
    from mmgauge.core.types import ImagePool

    rows = _read_tsv(path)
    file = str(path)
    pool = ImagePool(file)
    require_columns(rows, ("index", "image", "question", "answer", "category"), file)
    by_index = _by_index(rows, file)
    orders: dict[str, int] = {}
    questions: list[MMEQuestion] = []
    for subtask, key, members in group_pairs(rows, image_keys(rows, file), file):
        order = orders[subtask] = orders.get(subtask, -1) + 1
        for index, row in enumerate(members):
            owner = _image_owner(row, by_index, file)
            ref = pool.embedded((owner.cells.get("image") or "").strip(), owner.line)
            truth = parse_truth(row.cells.get("answer") or "", file, row.line)
            text = row.cells.get("question") or ""
            questions.append(MMEQuestion(subtask, key, index, text, truth, order, ref))
    return questions
