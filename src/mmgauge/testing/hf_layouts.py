"""Writers for the Hugging Face file layouts other toolkits keep data in, to build exact fixtures in tests.

- The hub cache: `datasets--ORG--NAME/refs/<branch>` (a file naming the commit), `blobs/<sha256>` (the file
  contents) and `snapshots/<commit>/<path in the repository>` as symbolic links to the blobs, as
  `huggingface_hub` writes them.
- The `datasets` library's arrow cache: `ORG___<snake name>/<config>/0.0.0/<hash>/<snake name>-<split>.arrow`
  (an Arrow stream, as `datasets` writes it) beside `dataset_info.json`.
- Image columns as the `datasets` Image feature stores them: a struct `{bytes: binary, path: string}`.
"""

from __future__ import annotations

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
