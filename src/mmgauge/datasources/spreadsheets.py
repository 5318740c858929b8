"""Reading .xlsx workbooks: every command that takes one goes through here, so a truncated, damaged or
mislabelled file is the same one-line ``UserError`` naming it everywhere (openpyxl and zipfile raise a dozen
unrelated exception types for such files: ``BadZipFile``, ``KeyError``, ``zlib.error``, XML errors...), and
every workbook is held to the caps of `limits` (a zip bomb is refused from its directory).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmgauge.core.errors import UserError
from mmgauge.datasources.limits import check_rows, check_zip, current_limits

if TYPE_CHECKING:
    import pandas as pd
    from openpyxl.workbook.workbook import Workbook


def damaged(path: Path, error: BaseException) -> UserError:
    """The one-line error for a workbook that cannot be read."""
    detail = " ".join(str(error).split()) or type(error).__name__
    return UserError(f"cannot read the workbook (damaged, truncated or not .xlsx): {detail}", file=str(path))


def _check_file(path: Path) -> None:
    """A workbook that is there, not empty, and within the zip limits (before any reader opens it)."""
    if not path.is_file():
        raise UserError("no such file", file=str(path))
    if path.stat().st_size == 0:  # pandas would say to choose an engine, which no user of mmgauge can
        raise UserError("empty file (0 bytes), not a workbook", file=str(path))
    check_zip(path)


def read_sheet(path: Path, **options: Any) -> pd.DataFrame:
    """The first sheet of ``path`` as pandas reads it with ``options`` (``pd.read_excel`` keywords)."""
    import pandas as pd

    _check_file(path)
    cap = current_limits().max_rows
    try:
        # One row past the cap is enough to know the sheet is over it (pandas stops reading there).
        frame: pd.DataFrame = pd.read_excel(path, sheet_name=0, **{"nrows": cap + 1, **options})
    except Exception as error:  # see the module docstring: the types are many and unrelated
        raise damaged(path, error) from None
    check_rows(path, len(frame))
    return frame


def open_workbook(path: Path) -> Workbook:
    """``path`` opened read-only with cached values (the caller closes it)."""
    import openpyxl

    _check_file(path)
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:
        raise damaged(path, error) from None
