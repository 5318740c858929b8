"""Reading a user's JSON-lines file: one JSON object per line, every problem one line naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError


def read_json_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a byte-order mark is allowed.

    Lines end at "\\n" only: JSON text may hold a raw U+2028 that other line splitters would cut at.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise UserError(f"cannot read: {error.strerror}", file=str(path)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        where = raw[: error.start].count(b"\n") + 1
        raise UserError("not valid UTF-8 text", file=str(path), line=where) from None
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise UserError(f"not valid JSON: {error.msg}", file=str(path), line=number) from None
        if not isinstance(row, dict):
            raise UserError("each line must be a JSON object", file=str(path), line=number)
        rows.append((number, row))
    return rows
