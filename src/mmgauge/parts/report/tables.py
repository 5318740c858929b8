"""Tables of the report: one model rendered to HTML and exported to CSV files and an XLSX workbook.

Cells can hold dataset or model text. Spreadsheet programs run a cell starting with `=`, `+`, `-` or `@`
as a formula, so exported text cells starting that way are prefixed with an apostrophe (numbers are kept),
in the CSV files and the workbook alike, and the workbook stores text cells as text (`mmgauge.core.formulas`).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from mmgauge.core.errors import UserError
from mmgauge.core.formulas import defuse, text_cells_as_text

Cell = str | int | float | bool | None


@dataclass
class Table:
    """`name` names the CSV file and the XLSX sheet; `digits` is how many decimals HTML shows for floats."""

    name: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    digits: int = 2
    sortable: bool = False


def format_cell(value: Cell, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


#: A mark after a cell's value: (symbol, hover text), both escaped when rendered.
Mark = tuple[str, str]


def table_html(
    table: Table, *, caption: str | None = None, limit: int | None = None,
    marks: dict[tuple[int, int], Mark] | None = None,
) -> str:
    """An escaped HTML table; numeric cells carry `data-v` so the page script can sort them as numbers.

    `marks[(row, column)]` puts a symbol after that cell's value, with its hover text as the title.
    """
    cls = ' class="sortable"' if table.sortable else ""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in table.columns)
    body: list[str] = []
    for number, row in enumerate(table.rows[:limit]):
        cells: list[str] = []
        for column, value in enumerate(row):
            text = escape(format_cell(value, table.digits))
            mark = (marks or {}).get((number, column))
            if mark is not None:
                text += f' <span class="tie" title="{escape(mark[1])}">{escape(mark[0])}</span>'
            if isinstance(value, int | float) and not isinstance(value, bool):
                cells.append(f'<td class="num" data-v="{escape(repr(float(value)))}">{text}</td>')
            else:
                cells.append(f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = ""
    if limit is not None and len(table.rows) > limit:
        more = (f'<p class="note">{len(table.rows) - limit} more rows are in the CSV/XLSX export '
                f"(table {escape(table.name)}).</p>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<div class="tablewrap"><table{cls}>{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>{more}")


def collapsed(table: Table, what: str, *, limit: int | None = None) -> str:
    """The table folded away under a summary that counts it (`123 changed samples`): long tables stay one
    line until opened, and the count is read without opening them."""
    return (f"<details><summary>{len(table.rows)} {escape(what)}</summary>{table_html(table, limit=limit)}"
            "</details>")


def _file_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return stem or "table"


def _unique(names: Sequence[str], limit: int) -> list[str]:
    """Distinct names of at most `limit` characters (XLSX sheet names are capped at 31)."""
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        base = name[:limit]
        candidate, n = base, 1
        while candidate.lower() in seen:
            n += 1
            suffix = f"~{n}"
            candidate = base[: limit - len(suffix)] + suffix
        seen.add(candidate.lower())
        out.append(candidate)
    return out


def write_csv(tables: Sequence[Table], directory: Path) -> list[Path]:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"cannot create the CSV folder: {err.strerror}", file=str(directory)) from None
    paths: list[Path] = []
    for table, stem in zip(tables, _unique([_file_stem(t.name) for t in tables], 120), strict=True):
        path = directory / f"{stem}.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([defuse(c) for c in table.columns])
            for row in table.rows:
                writer.writerow(["" if v is None else defuse(v) for v in row])
        paths.append(path)
    return paths


def write_xlsx(tables: Sequence[Table], path: Path) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    # Sheet names may not hold []:*?/\ and are capped at 31 characters.
    names = _unique([re.sub(r"[\[\]:*?/\\]", "_", t.name) or "table" for t in tables], 31)
    for table, name in zip(tables, names, strict=True):
        sheet = book.create_sheet(name)
        sheet.append([defuse(c) for c in table.columns])
        for row in table.rows:
            sheet.append([defuse(v) for v in row])
        text_cells_as_text(sheet)
    if not tables:
        book.create_sheet("empty")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        book.save(path)
    except OSError as err:
        raise UserError(f"cannot write the XLSX file: {err.strerror}", file=str(path)) from None
    return path
