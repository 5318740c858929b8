"""What every ``--json`` option prints: strict JSON on stdout, one object per line.

JSON has no NaN or Infinity (Python's ``json`` writes bare ``NaN``/``Infinity`` by default, which strict
parsers such as ``jq`` and JavaScript's ``JSON.parse`` reject). A non-finite number becomes ``null`` and a
note on stderr names where, so a script still gets valid JSON and a person still sees that a value is
undefined rather than zero.

The text is `json.dumps`'s (default separators) to the byte. A large table of whole numbers under plain
keys (MMBench's per-group outcomes: 250,000 at a million rows) is written by orjson, which spells such a
table as `json.dumps` does but for the spaces after colons and commas, in a twentieth of the time.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from typing import Final

#: Values that are never a non-finite number and hold none.
_PLAIN_TYPES = frozenset({int, str, bool, type(None)})
#: Tables at least this long are worth checking for the fast writer (`_table_text`).
_TABLE_ROWS: Final = 1000
#: A key character that either writer might escape (or spell differently): anything but printable ASCII,
#: the quote and the backslash.
_ESCAPED: Final = re.compile(r'[^ !#-\[\]-~]')


def finite_or_null(value: object, path: str = "", replaced: list[str] | None = None) -> object:
    """``value`` with every non-finite float replaced by None; the JSON paths replaced go to ``replaced``."""
    if isinstance(value, float) and not math.isfinite(value):
        if replaced is not None:
            replaced.append(path or "(the value)")
        return None
    if isinstance(value, Mapping):
        if set(map(type, value.values())) <= _PLAIN_TYPES:  # a large table of counts, checked in C
            return dict(value)
        return {key: finite_or_null(item, f"{path}.{key}" if path else str(key), replaced)
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_null(item, f"{path}[{i}]", replaced) for i, item in enumerate(value)]
    return value


def json_text(value: object, *, ensure_ascii: bool = True) -> str:
    """`json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=False)`, with large tables of whole numbers
    (in `value` or in a dict of it) written by orjson."""
    if type(value) is dict:
        table = _table_text(value)
        if table is not None:
            return table
        if (len(value) < _TABLE_ROWS and all(type(key) is str for key in value)
                and any(type(item) is dict and len(item) >= _TABLE_ROWS for item in value.values())):
            return "{" + ", ".join(json.dumps(key, ensure_ascii=ensure_ascii) + ": "
                                   + json_text(item, ensure_ascii=ensure_ascii)
                                   for key, item in value.items()) + "}"
    return json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=False)


def _table_text(table: dict[object, object]) -> str | None:
    """`json.dumps` of a dict of at least `_TABLE_ROWS` ints under keys of plain printable ASCII (no quote,
    backslash or control character: both writers spell them alike, and since no key holds a quote the only
    `":` and `,"` in orjson's text are its separators), else None."""
    if len(table) < _TABLE_ROWS or set(map(type, table)) != {str} or set(map(type, table.values())) != {int}:
        return None
    if _ESCAPED.search("".join(table)):  # type: ignore[arg-type]  # every key is a str (checked above)
        return None
    import orjson

    try:
        text = orjson.dumps(table).decode("ascii")
    except orjson.JSONEncodeError:  # an int beyond 64 bits, which json.dumps writes and orjson does not
        return None
    return text.replace('":', '": ').replace(',"', ', "')


def print_json(value: object, *, ensure_ascii: bool = True) -> None:
    replaced: list[str] = []
    clean = finite_or_null(value, replaced=replaced)
    sys.stdout.write(json_text(clean, ensure_ascii=ensure_ascii) + "\n")
    if replaced:
        shown = ", ".join(replaced[:5]) + (f" and {len(replaced) - 5} more" if len(replaced) > 5 else "")
        sys.stderr.write(f"note: not a finite number, written as null: {shown}\n")
