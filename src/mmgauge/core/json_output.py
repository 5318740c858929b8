"""What every ``--json`` option prints: strict JSON on stdout, one object per line.

JSON has no NaN or Infinity (Python's ``json`` writes bare ``NaN``/``Infinity`` by default, which strict
parsers such as ``jq`` and JavaScript's ``JSON.parse`` reject). A non-finite number becomes ``null`` and a
note on stderr names where, so a script still gets valid JSON and a person still sees that a value is
undefined rather than zero.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping

#: Values that are never a non-finite number and hold none.
_PLAIN_TYPES = frozenset({int, str, bool, type(None)})


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


def print_json(value: object, *, ensure_ascii: bool = True) -> None:
    replaced: list[str] = []
    clean = finite_or_null(value, replaced=replaced)
    sys.stdout.write(json.dumps(clean, ensure_ascii=ensure_ascii, allow_nan=False) + "\n")
    if replaced:
        shown = ", ".join(replaced[:5]) + (f" and {len(replaced) - 5} more" if len(replaced) > 5 else "")
        sys.stderr.write(f"note: not a finite number, written as null: {shown}\n")
