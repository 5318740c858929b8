"""Reading .xlsx workbooks: every command that takes one goes through here, so a truncated, damaged or
mislabelled file is the same one-line ``UserError`` naming it everywhere (openpyxl and zipfile raise a dozen
unrelated exception types for such files: ``BadZipFile``, ``KeyError``, ``zlib.error``, XML errors...).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import pandas as pd
    from openpyxl.workbook.workbook import Workbook


def damaged(path: Path, error: BaseException) -> UserError:
    """The one-line error for a workbook that cannot be read."""
    detail = " ".join(str(error).split()) or type(error).__name__
    return UserError(f"cannot read the workbook (damaged, truncated or not .xlsx): {detail}", file=str(path))


def read_sheet(path: Path, **options: Any) -> pd.DataFrame:
    """The first sheet of ``path`` as pandas reads it with ``options`` (``pd.read_excel`` keywords)."""
    import pandas as pd

    if not path.is_file():
        raise UserError("no such file", file=str(path))
    try:
        frame: pd.DataFrame = pd.read_excel(path, sheet_name=0, **options)
    except Exception as error:  # see the module docstring: the types are many and unrelated
        raise damaged(path, error) from None
    return frame


def open_workbook(path: Path) -> Workbook:
    """``path`` opened read-only with cached values (the caller closes it)."""
    import openpyxl

    if not path.is_file():
        raise UserError("no such file", file=str(path))
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:
        raise damaged(path, error) from None
