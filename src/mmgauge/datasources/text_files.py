"""A user's CSV or text file, read with every problem a one-line UserError naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    import pandas as pd


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
