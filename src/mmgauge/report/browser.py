"""Data of the per-sample browser, embedded as JSON blocks the page script reads on demand.

Built to open fast with 100,000+ samples:
- `mmg-index`: small integer columns (run, benchmark, category, outcome, extraction, image, changed) that
  filtering needs, with the distinct names listed once; a row's image is -1 (none), one thumbnail number,
  or a list of them for a sample with several images (all are shown);
- `mmg-rows-<k>`: the texts (prompt, raw answer, extracted answer, how) of rows k*CHUNK .. (k+1)*CHUNK-1,
  parsed only when a page shows one of those rows;
- `mmg-img-<i>`: one thumbnail data URL per distinct image, read only when a shown row needs it.
Every block is JSON in `<script type="application/json">` with `<`, `>` and `&` written as \\u escapes, so no
text can close the element or open a tag; the page script shows texts with textContent only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from mmgauge.parts.report.views import Row
from mmgauge.report.images import ImageIndex
from mmgauge.report.load import RunView
from mmgauge.report.provenance import CLASSES, provenance
from mmgauge.report.sections import section_for

CHUNK: Final = 500
PAGE: Final = 50
OUTCOMES: Final = ("right", "wrong", "not scored", "failed")


def json_block(element_id: str, data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def outcome(row: Row) -> int:
    """Index into OUTCOMES."""
    if row.failed:
        return 3
    if row.correct is None:
        return 2
    return 0 if row.correct else 1


class _Names:
    """Distinct strings numbered in order of first appearance."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        return self.ids.setdefault(name, len(self.ids))

    @property
    def names(self) -> list[str]:
        return list(self.ids)


@dataclass
class BrowserData:
    rows: int = 0
    blocks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _ordered(runs: list[RunView]) -> Iterator[tuple[int, Row]]:
    for number, run in enumerate(runs):
        for bench in run.benchmarks.values():
            for row in bench.rows:
                yield number, row


def _texts(row: Row) -> list[Any]:
    raw = row.text if row.error is None else f"[request failed] {row.error}"
    return [row.sample_id, row.round, row.prompt, raw, row.answer, row.method, row.detail, row.target]


def build_browser(runs: list[RunView], images: ImageIndex | None) -> BrowserData:
    run_col: list[int] = []
    bench_col: list[int] = []
    cat_col: list[int] = []
    out_col: list[int] = []
    prov_col: list[int] = []
    img_col: list[int | list[int]] = []
    benches, cats = _Names(), _Names()
    # Outcomes of the first run, to flag the samples another run answered differently (none with one run).
    baseline = {} if len(runs) < 2 else {
        row.key: outcome(row) for bench in runs[0].benchmarks.values() for row in bench.rows}
    changed_keys: set[tuple[str, str, int]] = set()
    chg_col: list[int] = []
    chunk: list[list[Any]] = []
    blocks: list[str] = []
    prov_index = {name: i for i, name in enumerate(CLASSES)}
    sections = {name: section_for(name) for run in runs for name in run.benchmarks}
    for number, row in _ordered(runs):
        run_col.append(number)
        bench_col.append(benches(row.benchmark))
        cats_name = sections[row.benchmark].category(row)
        cat_col.append(cats(f"{row.benchmark}: {cats_name}" if cats_name else row.benchmark))
        code = outcome(row)
        out_col.append(code)
        prov_col.append(prov_index[provenance(row)])
        ids = images.image_ids(number, row.benchmark, row.sample_id) if images is not None else []
        img_col.append(-1 if not ids else ids[0] if len(ids) == 1 else ids)
        before = baseline.get(row.key) if number > 0 else None
        changed = before is not None and before != code
        if changed:
            changed_keys.add(row.key)
        chg_col.append(int(changed))
        chunk.append(_texts(row))
        if len(chunk) == CHUNK:
            blocks.append(json_block(f"mmg-rows-{len(blocks)}", chunk))
            chunk = []
    if chunk:
        blocks.append(json_block(f"mmg-rows-{len(blocks)}", chunk))
    # The first run's side of a changed pair is flagged too, so the filter shows both answers.
    for i, (number, row) in enumerate(_ordered(runs) if changed_keys else ()):
        if number == 0 and row.key in changed_keys:
            chg_col[i] = 1
        elif number > 0:
            break
    index = {
        "page": PAGE, "chunk": CHUNK, "runs": [run.label for run in runs], "benches": benches.names,
        "cats": cats.names, "outcomes": list(OUTCOMES), "provs": list(CLASSES),
        "run": run_col, "bench": bench_col, "cat": cat_col, "out": out_col, "prov": prov_col, "img": img_col,
        "chg": chg_col,
    }
    data = BrowserData(rows=len(run_col))
    data.blocks.append(json_block("mmg-index", index))
    data.blocks.extend(blocks)
    if images is not None:
        images.finish()
        data.blocks.extend(json_block(f"mmg-img-{i}", url) for i, url in enumerate(images.urls))
        data.notes.extend(images.notes)
    return data
