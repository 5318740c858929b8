"""docs/api.md: every result type its examples use is imported there, from where it really lives."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

API = Path(__file__).parents[1] / "docs" / "api.md"


def test_every_result_type_the_api_page_uses_says_where_to_import_it() -> None:
    text = API.read_text(encoding="utf-8")
    used = set(re.findall(r"\b([A-Z][A-Za-z0-9]*Result)\b", text))
    found = re.findall(r"^from (mmgauge[\w.]*) import (\w+)", text, flags=re.MULTILINE)
    where = {name: module for module, name in found}
    assert used and used <= set(where), sorted(used - set(where))
    for name, module in where.items():
        assert hasattr(importlib.import_module(module), name), (module, name)
