"""M3GIA counts files for `mmgauge score m3gia` and `m3gia_gia`, every problem a one-line UserError naming the
file.

M3GIA counts (`read_counts`), a CSV or one of the release's count workbooks: the workbooks,
`GIA_calculation/MLLMs_score/MLLMs_acc_<lang>_score.xlsx`, hold one row per model: `subid`, the 18 count
columns (General_Info ... RW_Reason), `total_acc`, then an unnamed column with the model's name (pandas reads
its header as `Unnamed: N`). The release's `GIA_<Lang>.R` feeds columns 2 to 19 (the 18 counts) to
`lavPredict`. A workbook in that layout is read the same way: the 18 count columns are kept, the others
(`subid`, `total_acc`, the unnamed ones) set aside, and rows without any count (blank template rows) dropped.
Any other workbook or CSV must hold exactly the 18 count columns once `--ignore` has dropped the rest.

Model names: the one column headed `model` or `name` (any case), beside the counts in any layout, or, in the
release layout without one, its last column when it has no header and holds text, names each row's model
(`row_names`: text as written, without surrounding spaces; an empty cell leaves its row unnamed). Two
columns headed model/name are refused; other columns stay refused or set aside as above.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from mmgauge.core.errors import UserError
from mmgauge.datasources.text_files import read_csv

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
    import pyarrow as pa

    from mmgauge.benchmarks.m3gia.gia import FloatArray
    from mmgauge.benchmarks.m3gia.gia_models import HumanStats


WORKBOOK_SUFFIXES: Final = (".xlsx", ".xlsm", ".xls")
#: The release workbook's columns besides the 18 counts (`Unnamed: N` columns are matched by prefix).
RELEASE_EXTRAS: Final = ("subid", "total_acc")
#: Headers of a column of model names (compared in lower case).
NAME_HEADERS: Final = ("model", "name")
_ZIP_MAGIC: Final = b"PK\x03\x04"


def is_workbook(path: Path) -> bool:
    if path.suffix.lower() in WORKBOOK_SUFFIXES:
        return True
    try:
        with path.open("rb") as handle:
            return handle.read(4) == _ZIP_MAGIC  # an xlsx saved under another name
    except OSError:
        return False


def read_workbook(path: Path) -> pd.DataFrame:
    from mmgauge.datasources.spreadsheets import read_sheet

    return read_sheet(path)


def read_counts(
    path: Path, indicators: tuple[str, ...], ignore: list[str]
) -> tuple[pd.DataFrame, list[str | None] | None]:
    """The counts table of `path` with `ignore`d columns dropped, and its rows' model names when it has a
    column of them (see the module docstring)."""
    table = read_workbook(path) if is_workbook(path) else read_csv(path)
    columns = [str(c) for c in table.columns]
    for column in ignore:
        if column not in columns:
            raise UserError("--ignore names a column the file does not have", file=str(path), field=column)
    kept: pd.DataFrame = table.drop(columns=list(ignore))
    label = name_column(kept, str(path))
    if is_workbook(path) and _release_layout([str(c) for c in kept.columns], indicators):
        last = kept.columns[-1] if len(kept.columns) else None
        if label is None and str(last).startswith("Unnamed:") and _holds_text(kept[last]):
            label = last
        # The index keeps each row's place in the sheet (row i is sheet row i + 2), for errors to name.
        counted = kept[list(indicators)].dropna(how="all").index
        kept = kept.loc[counted, [*indicators, *([label] if label is not None else [])]]
    cells: Iterable[object] | None = None
    if label is not None and not is_workbook(path):
        cells = _csv_name_cells(path, str(label), len(kept))  # as the column reader reads them
    lines = [int(row) + 2 for row in kept.index]  # the header is line 1 (sheet row 1)
    return split_names(kept, label, lines, str(path), cells)


def name_column(table: pd.DataFrame, source: str) -> object | None:
    """The column headed model or name (any case), None without one; two are a UserError."""
    found = [column for column in table.columns if str(column).lower() in NAME_HEADERS]
    if len(found) > 1:
        raise UserError(f"two columns of model names ({', '.join(map(str, found))}); --ignore one",
                        file=source, field=str(found[1]))
    return found[0] if found else None


def _holds_text(column: pd.Series) -> bool:
    return any(isinstance(cell, str) and cell.strip() for cell in column)


def split_names(
    table: pd.DataFrame, label: object | None, lines: Sequence[int], source: str,
    cells: Iterable[object] | None = None,
) -> tuple[pd.DataFrame, list[str | None] | None]:
    """The table without its column of names `label` (when not None), and those names (`row_names` of
    `cells`, the column's own cells by default)."""
    if label is None:
        return table, None
    if cells is None:
        column = table[label]
        cells = column.astype(object).where(column.notna(), None).tolist()  # missing cells as None
    names = row_names(cells, lines, file=source, field=str(label))
    return table.drop(columns=[label]), names


#: What would break the text output's one line per row.
_LINE_BREAKING: Final = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def row_names(cells: Iterable[object], lines: Sequence[int], *, file: str, field: str) -> list[str | None]:
    """Each cell as its row's model name: text without surrounding spaces, a number as its text, None for
    an empty cell (the row keeps its `row N`); a line break or other control character is a UserError."""
    names: list[str | None] = []
    for cell, line in zip(cells, lines, strict=True):
        if cell is None:
            names.append(None)
            continue
        if isinstance(cell, float) and cell.is_integer():
            cell = int(cell)  # a spreadsheet's number 7 is the name 7, not 7.0
        text = str(cell).strip()
        if _LINE_BREAKING.search(text):
            raise UserError("a model name holds a line break or control character", file=file, line=line,
                            field=field)
        names.append(text or None)
    return names


def _csv_name_cells(path: Path, column: str, rows: int) -> list[object] | None:
    """The cells of `column` of a CSV as text, exactly as written (pyarrow's reading: pandas would read
    `NA` or `007` as something else), so both readers of a CSV name its rows alike; None where pyarrow
    cannot read the file or sees another number of rows."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    text = pacsv.ConvertOptions(include_columns=[column], column_types={column: pa.string()})
    try:
        cells: list[object] = pacsv.read_csv(path, convert_options=text).column(0).to_pylist()
    except (pa.ArrowInvalid, OSError):
        return None
    return cells if len(cells) == rows else None


def _release_layout(columns: list[str], indicators: tuple[str, ...]) -> bool:
    """Whether the columns are the release template's: the 18 counts, plus only subid/total_acc/unnamed
    (and a column of model names)."""
    if not set(indicators) <= set(columns):
        return False
    extras = [c for c in columns if c not in indicators]
    return all(c.lower() in RELEASE_EXTRAS + NAME_HEADERS or c.startswith("Unnamed:") for c in extras)


@dataclass(frozen=True)
class CountColumns:
    """Checked counts of a CSV, one contiguous 16-bit array per type in the published order. `rows` hands out
    a block of rows as floats (`m3gia_gia.RowBlocks`): a million rows never make a 144 MB matrix, whose
    fresh memory cost more than the scores made from it."""

    columns: tuple[npt.NDArray[np.int16], ...]
    #: Each row's model name (`row_names`), None when the file has no column of names.
    names: list[str | None] | None = None

    def __len__(self) -> int:
        return len(self.columns[0])

    def rows(self, start: int, stop: int) -> FloatArray:
        """Rows start to stop, laid out a column at a time (Fortran order): each type's counts are copied
        whole, and `ordered_matmul` reads them so without transposing the block."""
        import numpy as np

        block = np.empty((len(self.columns), min(stop, len(self)) - start), dtype=np.float64)
        for j, column in enumerate(self.columns):
            block[j] = column[start:stop]
        rows: FloatArray = block.T
        return rows


def counts_from_csv(path: Path, language: str, ignore: list[str]) -> CountColumns | None:
    """The counts of a plain CSV in the published column order, read with pyarrow (no pandas), when they
    need no message: exactly the 18 count columns once `ignore`d ones are dropped (and at most one column of
    names), whole numbers in every cell, each within 0 and its number of questions. None otherwise (or for a
    workbook): `read_counts` and `counts_matrix` then read the file and name its problem."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from mmgauge.benchmarks.m3gia.gia import load_published_model, question_counts
    from mmgauge.datasources.arrow_numpy import reading_meanwhile, to_numpy

    if not path.is_file() or is_workbook(path):
        return None
    indicators = load_published_model(language).indicators
    # Counts are small whole numbers: 16-bit columns take a quarter of the memory of the 64-bit ones pyarrow
    # would infer (a cell that is not a whole number in range fails the read, and the plain path names it).
    small = pacsv.ConvertOptions(column_types=dict.fromkeys(indicators, pa.int16()))
    try:
        table = reading_meanwhile(lambda: pacsv.read_csv(path, convert_options=small))
    except (pa.ArrowInvalid, OSError):
        return None
    names = table.column_names
    kept = [name for name in names if name not in ignore]
    labels = [name for name in kept if name.lower() in NAME_HEADERS]
    counted = [name for name in kept if name not in labels[:1]]
    if (len(set(names)) != len(names) or any(name not in names for name in ignore) or len(labels) > 1
            or sorted(counted) != sorted(indicators) or table.num_rows == 0):
        return None
    named = _read_names(table, labels[0], path) if labels else None
    if labels and named is None:
        return None
    columns = []
    for name in indicators:
        column = table.column(name)
        if not pa.types.is_integer(column.type) or column.null_count:
            return None
        numbers = to_numpy(column)  # one contiguous array (a copy of the chunks the reader made)
        if numbers.min() < 0 or numbers.max() > question_counts(language)[name]:
            return None
        columns.append(numbers)
    del table
    pa.default_memory_pool().release_unused()  # the table's memory goes back before the scores are made
    return CountColumns(tuple(columns), named)


def _read_names(table: pa.Table, label: str, path: Path) -> list[str | None] | None:
    """`row_names` of the column `label` of a CSV read by `counts_from_csv`, None where they need a message
    (or pyarrow cannot read the column as text)."""
    import pyarrow as pa

    column = table.column(label)
    cells = (column.to_pylist() if pa.types.is_string(column.type)  # else numbers: read again as text
             else _csv_name_cells(path, label, table.num_rows))
    try:
        return None if cells is None else row_names(cells, range(2, table.num_rows + 2), file=str(path),
                                                    field=label)
    except UserError:
        return None


def _number(cell: object, *, file: str, line: int, field: str) -> float:
    try:
        return float(str(cell).strip())
    except ValueError:
        raise UserError(f"not a number: {cell!r}", file=file, line=line, field=field) from None


def human_stats_from_table(table: pd.DataFrame, source: str) -> HumanStats:
    """Read human statistics from a table with columns ``column``, ``mean``, ``sd`` (one row per type;
    a CSV with its header on line 1, so row i is line i + 2)."""
    for needed in ("column", "mean", "sd"):
        if needed not in table.columns:
            raise UserError(
                "human statistics table needs columns column, mean, sd", file=source, field=needed
            )
    from mmgauge.benchmarks.m3gia.gia import check_statistics
    from mmgauge.benchmarks.m3gia.gia_models import HumanStats

    means: dict[str, float] = {}
    sds: dict[str, float] = {}
    cells = zip(table["column"], table["mean"], table["sd"], strict=True)
    for i, (name, mean_cell, sd_cell) in enumerate(cells):
        line = i + 2
        mean = _number(mean_cell, file=source, line=line, field="mean")
        sd = _number(sd_cell, file=source, line=line, field="sd")
        check_statistics(mean, sd, field=str(name), file=source, line=line)
        means[str(name)] = mean
        sds[str(name)] = sd
    return HumanStats(mean=means, sd=sds)
