"""Reading a user's input files for the commands, with every problem a one-line UserError naming the file.

M3GIA counts (`read_counts`), a CSV or one of the release's count workbooks: the workbooks,
`GIA_calculation/MLLMs_score/MLLMs_acc_<lang>_score.xlsx`, hold one row per model: `subid`, the 18 count
columns (General_Info ... RW_Reason), `total_acc`, then an unnamed column with the model's name (pandas reads
its header as `Unnamed: N`). The release's `GIA_<Lang>.R` feeds columns 2 to 19 (the 18 counts) to
`lavPredict`. A workbook in that layout is read the same way: the 18 count columns are kept, the others
(`subid`, `total_acc`, the unnamed ones) set aside, and rows without any count (blank template rows) dropped.
Any other workbook or CSV must hold exactly the 18 count columns once `--ignore` has dropped the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

    from mmgauge.scoring.m3gia_gia import FloatArray


def read_csv(path: Path) -> pd.DataFrame:
    """``path`` as a pandas table; a missing, empty, malformed or non-UTF-8 file is a UserError."""
    import pandas as pd

    if not path.is_file():
        raise UserError("no such file", file=str(path))
    try:
        return pd.read_csv(path)
    except (ValueError, UnicodeDecodeError) as problem:  # pandas' EmptyDataError and ParserError included
        detail = " ".join(str(problem).split())  # pandas' messages may end in a newline: keep one line
        raise UserError(f"cannot read CSV: {detail}", file=str(path)) from None


def read_text(path: Path) -> str:
    """``path`` as UTF-8 text; a missing, unreadable or non-UTF-8 file is a UserError naming it."""
    if not path.is_file():
        raise UserError("no such file", file=str(path))
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as problem:
        line = path.read_bytes()[: problem.start].count(b"\n") + 1
        byte = problem.object[problem.start]
        message = f"not UTF-8 text (byte 0x{byte:02x}); save it as UTF-8"
        raise UserError(message, file=str(path), line=line) from None


WORKBOOK_SUFFIXES: Final = (".xlsx", ".xlsm", ".xls")
#: The release workbook's columns besides the 18 counts (`Unnamed: N` columns are matched by prefix).
RELEASE_EXTRAS: Final = ("subid", "total_acc")
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


def read_counts(path: Path, indicators: tuple[str, ...], ignore: list[str]) -> pd.DataFrame:
    """The counts table of `path` with `ignore`d columns dropped (see the module docstring)."""
    table = read_workbook(path) if is_workbook(path) else read_csv(path)
    columns = [str(c) for c in table.columns]
    for column in ignore:
        if column not in columns:
            raise UserError("--ignore names a column the file does not have", file=str(path), field=column)
    kept: pd.DataFrame = table.drop(columns=list(ignore))
    if is_workbook(path) and _release_layout([str(c) for c in kept.columns], indicators):
        # The index keeps each row's place in the sheet (row i is sheet row i + 2), for errors to name.
        counts: pd.DataFrame = kept[list(indicators)].dropna(how="all")
        return counts
    return kept


def _release_layout(columns: list[str], indicators: tuple[str, ...]) -> bool:
    """Whether the columns are the release template's: the 18 counts, plus only subid/total_acc/unnamed."""
    if not set(indicators) <= set(columns):
        return False
    extras = [c for c in columns if c not in indicators]
    return all(c.lower() in RELEASE_EXTRAS or c.startswith("Unnamed:") for c in extras)


def counts_from_csv(path: Path, language: str, ignore: list[str]) -> FloatArray | None:
    """The counts of a plain CSV in the published column order, read with pyarrow (no pandas), when they
    need no message: exactly the 18 count columns once `ignore`d ones are dropped, whole numbers in every
    cell, each within 0 and its number of questions. None otherwise (or for a workbook): `read_counts` and
    `counts_matrix` then read the file and name its problem."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from mmgauge.datasources.arrow_numpy import to_numpy
    from mmgauge.scoring.m3gia_gia import load_published_model, question_counts

    if not path.is_file() or is_workbook(path):
        return None
    indicators = load_published_model(language).indicators
    # Counts are small whole numbers: 16-bit columns take a quarter of the memory of the 64-bit ones pyarrow
    # would infer (a cell that is not a whole number in range fails the read, and the plain path names it).
    small = pacsv.ConvertOptions(column_types=dict.fromkeys(indicators, pa.int16()))
    try:
        table = pacsv.read_csv(path, convert_options=small)
    except (pa.ArrowInvalid, OSError):
        return None
    names = table.column_names
    kept = [name for name in names if name not in ignore]
    if (len(set(names)) != len(names) or any(name not in names for name in ignore)
            or sorted(kept) != sorted(indicators) or table.num_rows == 0):
        return None
    for name in indicators:
        column = table.column(name)
        if not pa.types.is_integer(column.type) or column.null_count:
            return None
    maxima = [question_counts(language)[name] for name in indicators]
    places = [names.index(name) for name in indicators]
    values = np.empty((table.num_rows, len(indicators)), dtype=np.float64)
    start = 0
    # Batch by batch (the blocks the reader parsed), so that a block of the rows-by-types matrix is filled
    # while it is in the cache: column by column over the whole matrix costs more than reading the file.
    for batch in table.to_batches():
        block = values[start:start + batch.num_rows]
        start += batch.num_rows
        for j, (place, most) in enumerate(zip(places, maxima, strict=True)):
            numbers = to_numpy(batch.column(place))
            if len(numbers) and (numbers.min() < 0 or numbers.max() > most):
                return None
            block[:, j] = numbers
    del table
    pa.default_memory_pool().release_unused()  # the table's memory goes back before the scores are made
    return values
