"""The files of one split of a table dataset (parquet, or the `datasets` library's arrow cache), read as one.

Hugging Face datasets come in shards: `test-00000-of-00004-<hash>.parquet` in a hub snapshot,
`mme-test-00000-of-00002.arrow` in the `datasets` cache. A shard stands for its whole split: its siblings
(same folder, same name before the shard number, same shard count) are read with it. A folder stands for the
one split it holds (its own data files, or, when it has none, those anywhere below it); a folder holding
several splits is an error that lists them, since which one to score is the user's choice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.core.errors import UserError
from mmgauge.datasources.limits import check_bytes, check_rows

if TYPE_CHECKING:
    import pyarrow as pa

DATA_SUFFIXES: Final = (".parquet", ".arrow")
#: `<name>-<shard>-of-<total>[-<hash>]`: the hub's and the `datasets` cache's shard names.
_SHARD: Final = re.compile(r"^(?P<name>.+?)-(?P<shard>\d{5})-of-(?P<total>\d{5})(?:-[0-9a-f]{6,})?$")


def is_data_file(path: Path) -> bool:
    return path.suffix.lower() in DATA_SUFFIXES and not path.name.startswith(".")


def split_key(path: Path) -> tuple[str, str]:
    """(folder, name) shared by the shards of one split: `data/test-00001-of-00004-ab12.parquet` ->
    (`data`, `test`)."""
    found = _SHARD.match(path.stem)
    return str(path.parent), found.group("name") if found else path.stem


def _data_files_below(folder: Path) -> list[Path]:
    direct = sorted(p for p in folder.iterdir() if p.is_file() and is_data_file(p))
    if direct:
        return direct
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_data_file(p)
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def is_table_source(path: Path) -> bool:
    """Whether `path` is a data file, or a folder with data files in or below it."""
    if path.is_file():
        return is_data_file(path)
    return path.is_dir() and bool(_data_files_below(path))


def table_files(path: Path) -> list[Path]:
    """The files of the one split `path` stands for, shards in order; a `UserError` if that is unclear.

    Files found in a folder must resolve inside it (see `confine`); a file named directly is the user's
    choice, its sibling shards are found, so they are held to its folder."""
    from mmgauge.datasources.confine import confined, data_root

    if path.is_file():
        within = data_root(path.parent)
        return [file if file == path else confined(file, within) for file in _shards_of(path)]
    return [confined(file, data_root(path)) for file in _folder_files(path)]


def _folder_files(path: Path) -> list[Path]:
    if not path.is_dir():
        raise UserError("no such file or folder", file=str(path))
    files = _data_files_below(path)
    if not files:
        raise UserError("no .parquet or .arrow files in this folder", file=str(path))
    splits: dict[tuple[str, str], list[Path]] = {}
    for file in files:
        splits.setdefault(split_key(file), []).append(file)
    if len(splits) > 1:
        names = ", ".join(str(Path(folder).relative_to(path) / name) for folder, name in sorted(splits))
        raise UserError(f"the folder holds several splits ({names}); pass the folder or a file of one",
                        file=str(path))
    return _shards_of(files[0])


def _shards_of(file: Path) -> list[Path]:
    found = _SHARD.match(file.stem)
    if found is None:
        return [file]
    total = int(found.group("total"))
    shards: dict[int, Path] = {}
    for sibling in sorted(file.parent.iterdir()):
        other = _SHARD.match(sibling.stem)
        if (other is None or sibling.suffix.lower() != file.suffix.lower()
                or other.group("name") != found.group("name") or int(other.group("total")) != total):
            continue
        number = int(other.group("shard"))
        if number in shards:
            raise UserError(f"two files for shard {number} of {total}: {shards[number].name} and "
                            f"{sibling.name}", file=str(file.parent))
        shards[number] = sibling
    missing = [str(n) for n in range(total) if n not in shards]
    if missing:
        raise UserError(f"shard(s) {', '.join(missing)} of {total} missing beside this file", file=str(file))
    return [shards[n] for n in range(total)]


def read_arrow(files: Iterable[Path], columns: list[str] | None = None) -> pa.Table:
    """The rows of all `files` (parquet, or arrow stream/file as the `datasets` cache writes) as one table."""
    import pyarrow as pa

    paths = list(files)
    tables = [_read_one(file, columns) for file in paths]
    try:
        return pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise UserError(f"the shards do not share one schema: {error}", file=str(paths[0])) from None


def _read_one(file: Path, columns: list[str] | None) -> pa.Table:
    import pyarrow as pa

    try:
        table = _read_parquet(file, columns) if file.suffix.lower() == ".parquet" else _read_ipc(file)
    except (OSError, pa.ArrowException) as error:  # not parquet/arrow, damaged, or a column not in the file
        raise UserError(f"cannot read as {file.suffix.lstrip('.')}: {error}", file=str(file)) from None
    return table.select(columns) if columns is not None else table


def _read_parquet(file: Path, columns: list[str] | None) -> pa.Table:
    """The file a row group at a time, held to the caps (`limits`): first by what its metadata says, then
    by what comes out, in case the metadata lies."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(file) as parquet:
        meta = parquet.metadata
        check_rows(file, meta.num_rows)
        check_bytes(file, sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
        groups, rows, size = [], 0, 0
        for index in range(meta.num_row_groups):
            group = parquet.read_row_group(index, columns=columns)
            rows, size = rows + group.num_rows, size + group.nbytes
            check_rows(file, rows)
            check_bytes(file, size)
            groups.append(group)
    return pa.concat_tables(groups) if groups else pq.read_table(file, columns=columns)


def _read_ipc(file: Path) -> pa.Table:
    """An arrow stream or file (as the `datasets` cache writes), a record batch at a time, held to the
    caps."""
    import pyarrow as pa

    with pa.memory_map(str(file)) as source:
        try:
            reader: pa.ipc.RecordBatchStreamReader | pa.ipc.RecordBatchFileReader = pa.ipc.open_stream(source)
            batches = iter(reader)
        except pa.ArrowInvalid:
            source.seek(0)
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        kept, rows, size = [], 0, 0
        for batch in batches:
            rows, size = rows + batch.num_rows, size + batch.nbytes
            check_rows(file, rows)
            check_bytes(file, size)
            kept.append(batch)
        return pa.Table.from_batches(kept, schema=reader.schema)


def column_names(files: list[Path]) -> list[str]:
    """The column names of the first file, read from its schema only (no rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = files[0]
    try:
        if file.suffix.lower() == ".parquet":
            return list(pq.read_schema(file).names)
        with pa.memory_map(str(file)) as source:
            try:
                return list(pa.ipc.open_stream(source).schema.names)
            except pa.ArrowInvalid:
                source.seek(0)
                return list(pa.ipc.open_file(source).schema.names)
    except (OSError, pa.ArrowException) as error:
        raise UserError(f"cannot read as {file.suffix.lstrip('.')}: {error}", file=str(file)) from None


def fingerprint_files(files: Iterable[Path]) -> str:
    """sha256 over each file's name, a NUL and its bytes, in the given order."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def image_bytes(cell: Any) -> bytes | None:
    """The bytes of an image cell as Hugging Face datasets store it (a `{bytes, path}` struct, or the bytes
    alone), or None where there are none."""
    if isinstance(cell, dict):
        cell = cell.get("bytes")
    return bytes(cell) if isinstance(cell, bytes | bytearray) and cell else None
