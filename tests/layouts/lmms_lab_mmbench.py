"""`lmms-lab/MMBench` in a hub cache: the built-in MMBench sample in that dataset's columns."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from mmgauge.testing.hf_layouts import image_column, parquet_bytes, write_hub_dataset

#: A commit hash as the hub names snapshot folders (40 hex digits).
MMBENCH_COMMIT = "2f8b1d4c6a9e0b3f5d7c1a2e4b6d8f0a1c3e5b7d"


def lmms_lab_mmbench_table(tsv_rows: Sequence[Mapping[str, str]]) -> pa.Table:
    """MMBench TSV rows (VLMEvalKit's columns) in lmms-lab/MMBench's columns: `index` (int64), `question`,
    `hint`, `A`..`D`, `answer`, `category`, `image` ({bytes, path}), `source`, `L2-category`, `comment`,
    `split`. A missing option or hint is null on even rows and the text "nan" on odd ones (the dataset has
    both); every row, circular copies included, carries its image bytes (a TSV copy names its original)."""
    by_index = {row["index"]: row for row in tsv_rows}

    def image(row: Mapping[str, str]) -> bytes:
        cell = row["image"]
        return base64.b64decode(cell if len(cell) > 64 else by_index[cell]["image"])

    def missing(value: str, number: int) -> str | None:
        return value if value else (None if number % 2 == 0 else "nan")

    columns: dict[str, list[object]] = {"index": [int(row["index"]) for row in tsv_rows]}
    for name in ("question", "hint", "A", "B", "C", "D", "answer", "category"):
        columns[name] = [missing(row[name], n) if name in ("hint", "A", "B", "C", "D") else row[name]
                         for n, row in enumerate(tsv_rows)]
    count = len(tsv_rows)
    table = pa.table({
        **columns, "image": image_column([image(row) for row in tsv_rows]),
        "source": ["sample"] * count, "L2-category": [row["l2-category"] for row in tsv_rows],
        "comment": pa.array([None] * count, type=pa.string()), "split": [row["split"] for row in tsv_rows],
    })
    return table.cast(table.schema.set(0, pa.field("index", pa.int64())))


def write_lmms_lab_mmbench(hub: Path, *, commit: str = MMBENCH_COMMIT) -> Path:
    """The built-in MMBench sample as `lmms-lab/MMBench` in the hub cache `hub`, as `huggingface_hub`
    downloads it: configs en and cn, `<config>/dev-00000-of-00001.parquet` (all rows) and
    `<config>/test-00000-of-00001.parquet` (the first question's copies); return the snapshot folder."""
    from mmgauge.benchmarks.mmbench.sample import sample_frame

    rows = [{str(key): str(value) for key, value in row.items()} for row in sample_frame().to_dict("records")]
    table = lmms_lab_mmbench_table(rows)
    first = sum(1 for row in rows if row["g_index"] == rows[0]["g_index"])
    files = {f"{config}/{split}-00000-of-00001.parquet": parquet_bytes(part)
             for config in ("en", "cn") for split, part in (("dev", table), ("test", table.slice(0, first)))}
    files["README.md"] = b"---\nconfigs:\n- config_name: en\n---\n"
    return write_hub_dataset(hub, "lmms-lab/MMBench", files, commit=commit)
