"""Reading MMBench-form tables (TSV, or XLSX for prediction files) into checked, column-wise arrays.

Columns: `index, question, hint, A, B, C, D[, E...], answer, category, l2-category, split`, an image in
`image` (base64 text, or a short value of at most 64 characters naming the index of another row whose image
is reused) or a path in `image_path`, and optionally `g_index`. Every cell is read as text and an empty cell
is "" (pandas' NA guessing would turn an option that reads "None" or "NA" into a missing option); only an
option reading exactly "nan", pandas' NaN written out as text (lmms-eval writes absent options so), is empty.
Images stay base64 text until a backend asks for the bytes, so a 1 GB TSV is never held as decoded images.

Rows are named by their line in the file: the header is line 1, so data row r (from 0) is line r + 2. In
parquet and arrow files rows are numbered from 1; in JSON lines data row r is line r + 1 (blank lines aside).

Column names are read as VLMEvalKit reads them: lower case, except the one-letter option columns, so
`L2-category` (lmms-eval) is `l2-category`. Parquet and arrow files (the lmms-lab Hugging Face layout) and
JSON lines (lmms-eval's sample logs) are read by `formats.py`; their images stay bytes (`Table.image_data`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.tsv_diagnostics import (
    bad_utf8_line,
    block_size_for,
    first_bad_row,
    line_block_size,
)
from mmgauge.core.errors import UserError
from mmgauge.datasources.spreadsheets import read_sheet

if TYPE_CHECKING:
    from mmgauge.core.types import ImageRef

#: Option columns are A, B, ... in this order; MMBench-form files use at most 9.
OPTION_LETTERS: Final = "ABCDEFGHI"
#: An `image` cell this short is a reference to another row's index, not base64 text.
REFERENCE_MAX_CHARS: Final = 64
#: Copy k of question i has index i + k * COPY_STRIDE.
COPY_STRIDE: Final = 1_000_000
REQUIRED: Final = ("index", "question", "A", "B", "category")

IntArray = npt.NDArray[np.int64]
ObjArray = npt.NDArray[np.object_]


@dataclass
class Table:
    """A checked MMBench-form table: the original cells in `columns`, and the parsed columns as arrays."""

    source: str
    columns: dict[str, ObjArray]  # every column of the file, as text, in file order
    letters: tuple[str, ...]
    index: IntArray
    options: ObjArray  # (rows, len(letters)); "" where a question has fewer options
    n_options: IntArray
    answer: ObjArray  # the letter, or "" in a test split
    group: IntArray
    copy: IntArray
    line: IntArray
    #: Each row's image bytes, for files that hold images as bytes (parquet, arrow); None for text files.
    image_data: ObjArray | None = None

    def __len__(self) -> int:
        return len(self.index)

    def text(self, column: str) -> ObjArray:
        """A column's cells as text; "" for every row when the file has no such column."""
        found = self.columns.get(column)
        return found if found is not None else np.full(len(self.index), "", dtype=object)

    def fail(self, position: int, message: str, column: str | None) -> UserError:
        return UserError(f"index {self.index[position]}: {message}", file=self.source,
                         line=int(self.line[position]), field=column)


def read_table_columns(path: Path, *, images: bool = True) -> tuple[dict[str, ObjArray], ObjArray | None]:
    """The text columns of any MMBench-form file, names as VLMEvalKit reads them, and image bytes if held."""
    from mmgauge.datasources.tables import is_table_source

    image_data: ObjArray | None = None
    if is_table_source(path):
        from mmgauge.benchmarks.mmbench.formats import read_hf_table

        columns, image_data = read_hf_table(path, images=images)
    elif path.is_file() and path.suffix.lower() == ".jsonl":
        from mmgauge.benchmarks.mmbench.formats import read_jsonl

        columns = read_jsonl(path)
    else:
        columns = _read_text_table(path, images)
    return _vlmevalkit_names(columns, str(path)), image_data


def _vlmevalkit_names(columns: dict[str, ObjArray], source: str) -> dict[str, ObjArray]:
    """Column names lower-cased except one-letter upper-case ones (VLMEvalKit's `evaluate` does the same)."""
    renamed: dict[str, ObjArray] = {}
    for name, values in columns.items():
        key = name if len(name) == 1 and name.isupper() else name.lower()
        if key in renamed:
            raise UserError(f"two columns are both '{key}' when read without letter case", file=source,
                            line=1, field=name)
        renamed[key] = values
    return renamed


#: What MMBench-form tables may be, for the message when a file is none of them.
SUPPORTED_FORMATS: Final = (
    "a TSV (.tsv, VLMEvalKit), an XLSX (.xlsx, VLMEvalKit and lmms-eval predictions), JSON lines (.jsonl, "
    "lmms-eval's --log_samples), or .parquet/.arrow files or a folder of them (lmms-lab)"
)


def _read_text_table(path: Path, images: bool) -> dict[str, ObjArray]:
    if not path.is_file():
        raise UserError("no such file", file=str(path))
    if path.suffix.lower() in (".csv", ".json"):
        raise UserError(f"'{path.suffix}' files are not read; MMBench tables are {SUPPORTED_FORMATS}",
                        file=str(path))
    if path.suffix.lower() in (".xlsx", ".xlsm", ".xls"):
        # No NA guessing: an option or an answer reading "None", "NA", "N/A" or "null" is text.
        frame = read_sheet(path, dtype=str, keep_default_na=False, na_values=[]).fillna("")
        names = [str(column).strip() for column in frame.columns]
        columns = {name: frame.iloc[:, i].to_numpy(dtype=object) for i, name in enumerate(names)}
    else:
        columns = _read_tsv(path, images)
    if not columns:
        raise UserError("the file has no header line", file=str(path))
    return columns


def _read_tsv(path: Path, images: bool) -> dict[str, ObjArray]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle, delimiter="\t"), [])
    except UnicodeDecodeError:
        raise UserError("not valid UTF-8 text", file=str(path), line=bad_utf8_line(path)) from None
    names = [name.strip() for name in header]
    if len(names) == 1 and names[0].count(",") >= 2:
        raise UserError(f"the header has commas but no tab: this is not tab-separated; MMBench tables are "
                        f"{SUPPORTED_FORMATS}", file=str(path), line=1)
    if len(set(names)) != len(names):
        doubled = sorted({name for name in names if names.count(name) > 1})
        raise UserError(f"the header names column(s) twice: {', '.join(doubled)}", file=str(path), line=1)
    kept = [name for name in names if images or name != "image"]

    def parse(block_size: int) -> pa.Table:
        read = pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=block_size)
        return pacsv.read_csv(
            path,
            read_options=read,
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False,
                quoted_strings_can_be_null=False, include_columns=kept),
            parse_options=pacsv.ParseOptions(delimiter="\t", newlines_in_values=True),
        )

    try:
        # pyarrow needs blocks (1 MB by default) that hold a whole row, and a large base64 image makes a long
        # one: blocks that hold the longest line, found first (a failed read costs more than finding it);
        # if a row spans long lines (quoted line breaks), blocks that hold the longest row, unless one cell is
        # beyond what is read at all.
        found: pa.Table | None = None
        quick = line_block_size(path)
        if quick is not None:
            try:
                found = parse(quick)
            except pa.ArrowInvalid as error:
                if "straddl" not in str(error):
                    raise
        table = found if found is not None else parse(block_size_for(path, names))
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        bad = first_bad_row(path, len(names))
        if bad is not None:
            line, problem = bad
            raise UserError(problem, file=str(path), line=line) from None
        raise UserError(f"cannot read the table: {error}", file=str(path)) from None
    columns: dict[str, ObjArray] = {}
    for name in kept:
        values = table.column(name).to_pylist()
        array = np.empty(len(values), dtype=object)
        array[:] = values
        columns[name] = array
    return columns


def _first(mask: npt.NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(mask)[0])


def _integers(values: ObjArray, column: str, source: str, first_line: int = 2) -> IntArray:
    try:
        return np.asarray(values.astype(np.int64), dtype=np.int64)
    except (ValueError, TypeError, OverflowError):
        pass
    numbers = np.zeros(len(values), dtype=np.int64)
    for row, value in enumerate(values.tolist()):
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not number.is_integer() or number < 0:  # spreadsheets may hold whole numbers as 12.0
            raise UserError(f"'{value}' is not a whole number", file=source, line=row + first_line,
                            field=column)
        numbers[row] = int(number)
    return numbers


def parse_table(columns: dict[str, ObjArray], source: str, *, need_image: bool = False,
                need_prediction: bool = False, need_category: bool = True,
                image_data: ObjArray | None = None, first_line: int = 2) -> Table:
    """Check a table and parse its columns; the first problem is one `UserError` naming row and column.

    `first_line` is the line (or row number) of the first data row: 2 below a header line, 1 in parquet.
    """
    required = [c for c in REQUIRED if need_category or c != "category"]
    required += ["prediction"] if need_prediction else []
    missing = [column for column in required if column not in columns]
    if need_image and "image" not in columns and "image_path" not in columns and image_data is None:
        missing.append("image (or image_path)")
    if missing:
        raise UserError(f"missing required column(s): {', '.join(missing)}", file=source)
    rows = len(columns["index"])
    if rows == 0:
        raise UserError("the table has no rows", file=source)
    empty = np.full(rows, "", dtype=object)
    line = np.arange(rows, dtype=np.int64) + first_line
    index = _integers(columns["index"], "index", source, first_line)
    order = np.argsort(index, kind="stable")
    doubled = index[order][1:] == index[order][:-1]
    if doubled.any():
        pairs = np.column_stack([order[:-1][doubled], order[1:][doubled]])
        first, second = (int(value) for value in pairs[np.argmin(pairs[:, 1])])
        raise UserError(f"index {index[first]} occurs twice (lines {line[first]} and {line[second]})",
                        file=source, line=int(line[second]), field="index")

    letters = tuple(OPTION_LETTERS[: next(
        (i for i, letter in enumerate(OPTION_LETTERS) if letter not in columns), len(OPTION_LETTERS))])
    options = np.column_stack([columns[letter] for letter in letters])
    options[options == "nan"] = ""  # pandas' NaN written out as text (lmms-eval's absent options)
    given = options != ""
    n_options = given.sum(axis=1).astype(np.int64)
    gaps = given != (np.arange(len(letters))[None, :] < n_options[:, None])
    if gaps.any():
        row = _first(gaps.any(axis=1))
        gap = letters[int(np.flatnonzero(~given[row])[0])]
        raise UserError(f"index {index[row]}: option {gap} is empty but a later option is given",
                        file=source, line=int(line[row]), field=gap)
    if (n_options < 2).any():
        row = _first(n_options < 2)
        raise UserError(f"index {index[row]}: a question needs at least 2 options",
                        file=source, line=int(line[row]), field="B")

    answer = np.array([value.strip() for value in columns.get("answer", empty).tolist()], dtype=object)
    mapping = {letter: i for i, letter in enumerate(letters)}
    position = np.array([mapping.get(value, 99) for value in answer.tolist()], dtype=np.int64)
    wrong = (answer != "") & (position >= n_options)
    if wrong.any():
        row = _first(wrong)
        choices = f"{letters[0]}-{letters[n_options[row] - 1]}"
        raise UserError(f"index {index[row]}: answer '{answer[row]}' is not one of the options {choices}",
                        file=source, line=int(line[row]), field="answer")

    group = index % COPY_STRIDE
    cells = columns.get("g_index")
    if cells is not None:
        given_group = cells != ""
        if given_group.any():
            group = group.copy()
            group[given_group] = _integers(cells[given_group], "g_index", source, first_line)
    return Table(source=source, columns=columns, letters=letters, index=index, options=options,
                 n_options=n_options, answer=answer, group=group, copy=index // COPY_STRIDE, line=line,
                 image_data=image_data)


def load_table(path: Path, *, need_image: bool = False, need_prediction: bool = False,
               need_category: bool = True) -> Table:
    columns, image_data = read_table_columns(path, images=need_image)
    # TSV and XLSX (whatever the file is called: any other name is read as TSV) have a header line;
    # JSON lines and parquet/arrow rows are numbered from 1.
    headed = path.is_file() and path.suffix.lower() not in (".jsonl", ".parquet", ".arrow")
    first_line = 2 if headed else 1
    return parse_table(columns, str(path), need_image=need_image, need_prediction=need_prediction,
                       need_category=need_category, image_data=image_data, first_line=first_line)


def image_refs(table: Table, base_dir: Path) -> list[ImageRef]:
    """One image per row: base64 text (kept undecoded), a reference to another row's image, or a file path."""
    from mmgauge.core.types import ImagePool, ImageRef

    pool = ImagePool(table.source)
    cells = table.text("image")
    paths = table.text("image_path")
    position_of = {str(value): i for i, value in enumerate(table.index.tolist())}
    images: list[ImageRef] = []
    for row in range(len(table)):
        if table.image_data is not None and table.image_data[row] is not None:
            images.append(pool.embedded(table.image_data[row], int(table.line[row])))
        elif cells[row]:
            target = _follow(table, cells, position_of, row)
            images.append(pool.embedded(str(cells[target]), int(table.line[target])))
        elif paths[row]:
            images.append(ImageRef(path=str(_image_file(table, row, Path(paths[row]), base_dir))))
        else:
            raise table.fail(row, "the row has no image (neither 'image' nor 'image_path')", "image")
    return images


def _image_file(table: Table, row: int, given: Path, base_dir: Path) -> Path:
    """The file an `image_path` cell names: relative to the table's folder and inside it (links included);
    an absolute path outside the folder is the table author's explicit choice and is read as written."""
    from mmgauge.datasources.confine import confined, is_inside

    path = given if given.is_absolute() else base_dir / given
    if not path.is_file():
        raise table.fail(row, f"image file '{path}' does not exist", "image_path")
    if not given.is_absolute() or is_inside(path, base_dir):
        try:
            confined(path, base_dir)
        except UserError as outside:
            raise table.fail(row, outside.render(), "image_path") from None
    return path


def _follow(table: Table, cells: ObjArray, position_of: dict[str, int], row: int) -> int:
    """The row whose cell holds the base64 text for `row`, following short references (without cycles)."""
    seen = {row}
    current = row
    while len(cells[current]) <= REFERENCE_MAX_CHARS:
        reference = str(cells[current]).strip()
        target = position_of.get(reference)
        if target is None:
            message = f"image refers to index '{reference}', which is not in the file"
            raise table.fail(current, message, "image")
        if target in seen:
            raise table.fail(row, "image references go round in a circle", "image")
        if not cells[target]:
            raise table.fail(current, f"image refers to index '{reference}', which has no image", "image")
        seen.add(target)
        current = target
    return current
