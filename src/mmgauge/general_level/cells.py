"""Cell helpers shared by the General-Level table readers: name matching, numbers, metric checks."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.scoring.general_level.metrics import find_metric, lookup_metric

MISSING_MARKERS = frozenset({"", "∞", "inf", "+inf", "nan", "n/a", "na", "-"})


@lru_cache(maxsize=65536)
def key(text: str) -> str:
    """``text`` as a name to compare: spacing collapsed, case folded. Cached: a results file repeats the same
    field names, modalities and task names on every row."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def number(value: Any, where: str, path: Path, line: int, field: str) -> float | None:
    """A cell or field as a float; None for the markers of an unsupported task."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise UserError(f"{where}: {value!r} is not a number", file=str(path), line=line, field=field)
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str) and value.strip().casefold() in MISSING_MARKERS:
        return None
    else:
        try:
            result = float(str(value).strip())
        except ValueError:
            raise UserError(
                f"{where}: {value!r} is not a number", file=str(path), line=line, field=field
            ) from None
    return None if math.isnan(result) or math.isinf(result) else result


def lookup_metric_message(name: str) -> str:
    """Why the registry does not know ``name`` (the lookup's message)."""
    try:
        lookup_metric(name)
    except UserError as err:
        return err.message
    return f"metric {name!r}"


def same_metric(a: str, b: str) -> bool:
    """Whether two metric names are the same registry metric."""
    return find_metric(a) is not None and find_metric(a) == find_metric(b)
