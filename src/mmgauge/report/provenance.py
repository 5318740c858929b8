"""How each answer was read (rules, judge, random fallback, unresolved) and which requests failed.

Classes are derived from the record, not from method names alone: a failed request is `failed` whatever its
method says, and an extraction without an answer is `unresolved` whether the rule that gave up is called
"unresolved", "official-other" or "words-unknown".
"""

from __future__ import annotations

from collections import Counter
from typing import Final, Literal

from mmgauge.parts.report.tables import Cell, Table
from mmgauge.parts.report.views import BenchView, Row

Provenance = Literal["rules", "judge", "random", "unresolved", "failed"]
CLASSES: Final[tuple[Provenance, ...]] = ("rules", "judge", "random", "unresolved", "failed")
#: Failed requests listed in the page (all of them go to the export).
ERRORS_SHOWN: Final = 200


def provenance(row: Row) -> Provenance:
    if row.failed or row.method == "failure":
        return "failed"
    if row.answer is None:
        return "unresolved"
    method = (row.method or "").lower()
    if method.startswith("judge"):
        return "judge"
    if method == "random":
        return "random"
    return "rules"


def provenance_table(bench: BenchView) -> Table:
    """One row per class with the methods in it ("rules 57: official-exact 55, official-prefix 2")."""
    classes: Counter[str] = Counter()
    methods: dict[str, Counter[str]] = {name: Counter() for name in CLASSES}
    for row in bench.rows:
        kind = provenance(row)
        classes[kind] += 1
        methods[kind][row.method or ("request failed" if row.failed else "none")] += 1
    total = sum(classes.values())
    rows: list[list[Cell]] = []
    for kind in CLASSES:
        if classes[kind]:
            detail = ", ".join(f"{name} {count}" for name, count in methods[kind].most_common())
            rows.append([kind, classes[kind], 100 * classes[kind] / total, detail])
    return Table(f"{bench.name}_provenance", ["extraction", "answers", "share %", "methods"], rows, digits=1)


def errors_table(bench: BenchView) -> Table:
    rows: list[list[Cell]] = [
        [row.sample_id, row.round, row.error or "no text in the response"] for row in bench.rows if row.failed
    ]
    return Table(f"{bench.name}_errors", ["sample", "round", "error"], rows)
