"""General-Level (General-Bench, 2025): the specialist table and model results, as the release writes them.

The tables' readers are imported on first use: the report and the tidy table import only `level_view` from
here, and importing the readers with it (through this package's `__init__`) would cost them 40 ms.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mmgauge.general_level.tables import default_sota_path, load_results, load_specialist_table

__all__ = ["default_sota_path", "load_results", "load_specialist_table"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'mmgauge.general_level' has no attribute {name!r}")
    value = getattr(importlib.import_module("mmgauge.general_level.tables"), name)
    globals()[name] = value
    return value
