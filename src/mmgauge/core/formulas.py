"""Keeping dataset and model text from running as spreadsheet formulas in the files mmgauge writes.

Spreadsheet programs run a cell starting with ``=``, ``+``, ``-`` or ``@`` (also after a leading tab or
carriage return) as a formula, so a model answer like ``=HYPERLINK(...)`` could act when the file is opened.

- CSV has no cell types: text starting that way gets an apostrophe in front (``defuse``), the usual escape.
- XLSX has them: openpyxl stores any string starting with ``=`` as a formula unless told otherwise, so every
  text cell is written as a string, and one that starts like a formula also carries Excel's quote-prefix
  style (the flag an apostrophe typed in Excel sets), which keeps it text when the cell is edited
  (``text_cells_as_text``). Its value is unchanged, so a file that is read back (a predictions file) still
  holds exactly what the model answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from openpyxl.worksheet.worksheet import Worksheet

FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")
Value = TypeVar("Value")


def starts_like_formula(value: object) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_START)


def defuse(value: Value) -> Value | str:
    """Text that starts like a formula with an apostrophe in front; anything else (numbers too) as it is."""
    if isinstance(value, str) and starts_like_formula(value):
        return "'" + value
    return value


def text_cells_as_text(sheet: Worksheet) -> None:
    """Every text cell of ``sheet`` stored as a string; formula-like ones also quote-prefixed."""
    for row in sheet.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                cell.data_type = "s"
                if starts_like_formula(cell.value):
                    cell.quotePrefix = True
