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

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

    from mmgauge.scoring.m3gia_gia import FloatArray
    from mmgauge.scoring.m3gia_gia_models import HumanStats


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


@dataclass(frozen=True)
class CountColumns:
    """Checked counts of a CSV, one contiguous 16-bit array per type in the published order. `rows` hands out
    a block of rows as floats (`m3gia_gia.RowBlocks`): a million rows never make a 144 MB matrix, whose
    fresh memory cost more than the scores made from it."""

    columns: tuple[npt.NDArray[np.int16], ...]

    def __len__(self) -> int:
        return len(self.columns[0])

    def rows(self, start: int, stop: int) -> FloatArray:
        import numpy as np

        block = np.empty((min(stop, len(self)) - start, len(self.columns)), dtype=np.float64)
        for j, column in enumerate(self.columns):
            block[:, j] = column[start:stop]
        return block


def counts_from_csv(path: Path, language: str, ignore: list[str]) -> CountColumns | None:
    """The counts of a plain CSV in the published column order, read with pyarrow (no pandas), when they
    need no message: exactly the 18 count columns once `ignore`d ones are dropped, whole numbers in every
    cell, each within 0 and its number of questions. None otherwise (or for a workbook): `read_counts` and
    `counts_matrix` then read the file and name its problem."""
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
    return CountColumns(tuple(columns))


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
    from mmgauge.scoring.m3gia_gia import check_statistics
    from mmgauge.scoring.m3gia_gia_models import HumanStats

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
