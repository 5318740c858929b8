"""Writers for the Hugging Face file layouts other toolkits keep data in, to build exact fixtures in tests.

- The hub cache: `datasets--ORG--NAME/refs/<branch>` (a file naming the commit), `blobs/<sha256>` (the file
  contents) and `snapshots/<commit>/<path in the repository>` as symbolic links to the blobs, as
  `huggingface_hub` writes them.
- The `datasets` library's arrow cache: `ORG___<snake name>/<config>/0.0.0/<hash>/<snake name>-<split>.arrow`
  (an Arrow stream, as `datasets` writes it) beside `dataset_info.json`.
- Image columns as the `datasets` Image feature stores them: a struct `{bytes: binary, path: string}`.
- `lmms-lab/MMBench` itself: the built-in MMBench sample in that dataset's columns, in a hub cache.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mmgauge.datasources.hf_cache import snake_case

IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])


def image_column(images: Sequence[bytes | None], names: Sequence[str | None] | None = None) -> pa.Array:
    paths = list(names) if names is not None else [None] * len(images)
    return pa.array([None if data is None else {"bytes": data, "path": path}
                     for data, path in zip(images, paths, strict=True)], type=IMAGE_TYPE)


def parquet_bytes(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def write_hub_dataset(hub: Path, repo: str, files: Mapping[str, bytes], *, commit: str = "0" * 40,
                      branch: str = "main") -> Path:
    """Write `files` (repository path -> bytes) as one cached snapshot of dataset `repo`; return it."""
    org, name = repo.split("/")
    root = hub / f"datasets--{org}--{name}"
    snapshot = root / "snapshots" / commit
    for relative, data in files.items():
        blob = root / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = snapshot / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(Path("../" * (len(Path(relative).parts) + 1)) / "blobs" / blob.name)
    (root / "refs").mkdir(parents=True, exist_ok=True)
    (root / "refs" / branch).write_text(commit, encoding="utf-8")  # huggingface_hub writes no newline
    return snapshot


def write_arrow_cache(cache: Path, repo: str, config: str, splits: Mapping[str, pa.Table], *,
                      build: str = "a1b2c3d4e5f60718", shards: int = 1) -> Path:
    """Write each split as the `datasets` library caches it; return the build folder."""
    org, name = repo.split("/")
    builder = snake_case(name)
    folder = cache / f"{org}___{builder}" / config / "0.0.0" / build
    folder.mkdir(parents=True, exist_ok=True)
    info: dict[str, Any] = {"builder_name": "parquet", "config_name": config, "dataset_name": builder,
                            "splits": {}}
    for split, table in splits.items():
        size = -(-table.num_rows // shards)
        for shard in range(shards):
            part = table.slice(shard * size, size)
            suffix = f"-{shard:05d}-of-{shards:05d}" if shards > 1 else ""
            with pa.OSFile(str(folder / f"{builder}-{split}{suffix}.arrow"), "wb") as sink, \
                    pa.ipc.new_stream(sink, part.schema) as writer:
                writer.write_table(part)
        info["splits"][split] = {"name": split, "num_examples": table.num_rows, "dataset_name": builder}
    (folder / "dataset_info.json").write_text(json.dumps(info), encoding="utf-8")
    return folder


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
