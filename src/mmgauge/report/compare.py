"""Across runs: the leaderboard of headline measures and the samples whose outcome changed between runs.

The first run is the baseline; every other run is compared with it, sample by sample, on the same
(benchmark, sample id, round). Outcomes are right, wrong, not scored (no answer key) and failed.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from mmgauge.parts.report.tables import Cell, Table
from mmgauge.parts.report.views import Row
from mmgauge.report.browser import OUTCOMES, outcome
from mmgauge.report.load import RunView
from mmgauge.report.sections import category_of, checked

#: Characters of an answer kept in the comparison table; the browser's "changed" filter shows all of it.
ANSWER_CHARS: Final = 120


def is_partial(run: RunView) -> bool:
    """A run that answered only part of some benchmark's data (a `--limit` run, failed requests)."""
    return any(bench.partial for bench in run.benchmarks.values())


def leaderboard(runs: list[RunView], name: str = "leaderboard") -> Table:
    """One row per run (in the order given): its headline measures and, per benchmark, the questions it
    answered (n), so a number resting on a few questions is never read as one resting on the whole set."""
    measures: dict[str, None] = {}
    values: list[dict[str, float | None]] = []
    for run in runs:
        got: dict[str, float | None] = {}
        for bench in run.benchmarks.values():
            section, problem = checked(bench)
            if problem is None and bench.result is not None:
                got.update(section.leaderboard(bench))
        measures.update(dict.fromkeys(got))
        values.append(got)
    rows: list[list[Cell]] = [
        [run.model, run.path.name + (f" [{', '.join(run.marks)}]" if run.marks else ""),
         "partial" if is_partial(run) else "complete", _answered(run), *(got.get(name) for name in measures)]
        for run, got in zip(runs, values, strict=True)
    ]
    return Table(name, ["model", "run", "status", "n (answered/expected)", *measures], rows, sortable=True)


def _answered(run: RunView) -> str:
    return ", ".join(f"{bench.name} {bench.coverage or len(bench.rows)}" for bench in run.benchmarks.values())


def _answer(row: Row) -> str:
    if row.failed:
        text = f"[failed] {row.error or ''}"
    else:
        text = f"{row.answer if row.answer is not None else '(unresolved)'} ← {row.text or ''}"
    return text if len(text) <= ANSWER_CHARS else text[: ANSWER_CHARS - 1] + "…"


def compare(base: RunView, other: RunView, number: int) -> tuple[Table, Table]:
    """(summary per benchmark, changed samples) of `other` against the baseline `base`."""
    before = {row.key: row for bench in base.benchmarks.values() for row in bench.rows}
    after = {row.key: row for bench in other.benchmarks.values() for row in bench.rows}
    tally: dict[str, Counter[str]] = {}
    changed: list[list[Cell]] = []
    for key in sorted(before.keys() | after.keys()):
        counts = tally.setdefault(key[0], Counter())
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            counts["only in the baseline" if b is None else f"only in run {number + 1}"] += 1
            continue
        oa, ob = outcome(a), outcome(b)
        if oa == ob:
            counts[f"both {OUTCOMES[oa]}"] += 1
            continue
        counts[f"{OUTCOMES[oa]} → {OUTCOMES[ob]}"] += 1
        changed.append([key[0], key[1], key[2], category_of(a), OUTCOMES[oa], OUTCOMES[ob], _answer(a),
                        _answer(b)])
    columns = sorted({name for counts in tally.values() for name in counts})
    per_bench: list[list[Cell]] = [
        [bench, *(counts.get(c, 0) for c in columns)] for bench, counts in sorted(tally.items())
    ]
    summary = Table(f"compare_1_vs_{number + 1}", ["benchmark", *columns], per_bench)
    detail = Table(f"changed_1_vs_{number + 1}",
                   ["benchmark", "sample", "round", "category", "run 1", f"run {number + 1}",
                    "run 1 answer", f"run {number + 1} answer"], changed)
    return summary, detail
