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


def test_large_tables_of_whole_numbers_are_written_as_json_dumps_writes_them() -> None:
    import json
    import random

    from mmgauge.core import json_output
    from mmgauge.core.json_output import json_text

    rng = random.Random(0)
    groups = {str(i): rng.choice([0, 1]) for i in range(5000)}
    assert json_output._table_text(groups) is not None  # the fast writer takes it
    plain = {"overall": 0.25, "l2": {"AR": 0.5}, "groups": groups, "extraction": {"rule 1": 3},
             "x": [1, None]}
    ends = ["", "é", '"', "\\", "\n", "\x7f", ", ", ": "]  # what a writer may escape, and separators
    odd_keys = {f"k{i}{rng.choice(ends)}": i for i in range(2000)}
    for value in (groups, plain, odd_keys, {"groups": odd_keys}, {str(i): True for i in range(2000)},
                  {str(i): 2**64 + i for i in range(2000)}, {"a": {str(i): -i for i in range(999)}}, {}):
        for ensure_ascii in (True, False):
            assert json_text(value, ensure_ascii=ensure_ascii) == json.dumps(value, ensure_ascii=ensure_ascii)
