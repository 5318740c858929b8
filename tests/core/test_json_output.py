"""`--json` output: non-finite numbers become null wherever they are; large tables of counts pass as they
are."""

from __future__ import annotations

import math

from mmgauge.core.json_output import finite_or_null


def test_non_finite_numbers_become_null_and_counts_pass() -> None:
    counts = {str(i): i % 2 for i in range(1000)}
    value = {"groups": counts, "nested": {"a": math.nan, "b": [1.0, math.inf], "c": {"d": 1, "e": None}},
             "flags": {"x": True, "y": "text"}}
    replaced: list[str] = []
    clean = finite_or_null(value, replaced=replaced)
    assert clean == {"groups": counts, "nested": {"a": None, "b": [1.0, None], "c": {"d": 1, "e": None}},
                     "flags": {"x": True, "y": "text"}}
    assert replaced == ["nested.a", "nested.b[1]"]
    assert clean["groups"] is not counts  # a copy, as before
