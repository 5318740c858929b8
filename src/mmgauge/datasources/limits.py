"""Caps on what a packed input may unpack to: workbooks (.xlsx, a zip), parquet and arrow files.

A 458 KB workbook can hold a sheet of a million repeated rows (deflate packs a repeated run about a thousand
to one): read whole, it took half a minute and half a gigabyte. Every such file is held to three caps, each
checked from the file's own directory or metadata before anything is unpacked:

- `max_bytes`: the most a file may unpack to (default 4 GiB; real MMBench workbooks with their images are a
  few hundred MB);
- `max_ratio`: the most one zip member may unpack to per byte it is packed in (default 100, as Apache POI
  holds workbooks to; sheet XML packs about 5-20 to one, base64 images about 1.3);
- `max_rows`: the most rows a table may have (default 20 million; MMBench has about 10 thousand).

A directory may lie about sizes. zipfile never inflates a member past the size its directory gives (a
directory that lies small ends in a CRC error at that size), and tables are read a row group or record batch
at a time, stopping once more than a cap has come out.

Raise the caps on the command line (`mmgauge --max-input-size 16G ...`, `--max-input-rows`,
`--max-input-ratio`) or around API calls (`with mmgauge.input_limits(max_bytes=16 * 2**30): ...`). They
live in a context variable so that the readers deep below a command need no extra parameter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from mmgauge.core.errors import UserError

#: Option -> (InputLimits field, what it caps), for the command line and for error messages.
OPTIONS: Final = {
    "--max-input-size": ("max_bytes", "unpacked size"),
    "--max-input-rows": ("max_rows", "rows"),
    "--max-input-ratio": ("max_ratio", "unpacking ratio"),
}
_SIZE: Final = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?", re.IGNORECASE)
_UNITS: Final = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


@dataclass(frozen=True)
class InputLimits:
    max_bytes: int = 4 * 2**30
    max_rows: int = 20_000_000
    max_ratio: int = 100


DEFAULT_LIMITS: Final = InputLimits()
_current: ContextVar[InputLimits | None] = ContextVar("mmgauge_input_limits", default=None)


def current_limits() -> InputLimits:
    return _current.get() or DEFAULT_LIMITS


@contextmanager
def input_limits(*, max_bytes: int | None = None, max_rows: int | None = None,
                 max_ratio: int | None = None) -> Iterator[InputLimits]:
    """Within the block, packed inputs are held to these caps (None keeps the one in force)."""
    given = {"max_bytes": max_bytes, "max_rows": max_rows, "max_ratio": max_ratio}
    for name, value in given.items():
        if value is not None and value < 1:
            raise UserError(f"{name} must be a positive whole number, not {value}")
    limits = replace(current_limits(), **{k: v for k, v in given.items() if v is not None})
    token = _current.set(limits)
    try:
        yield limits
    finally:
        _current.reset(token)


def parse_limit(option: str, text: str) -> int:
    """One of `OPTIONS` as typed: a whole number, for sizes with K, M, G or T (powers of 1024)."""
    found = _SIZE.fullmatch(text.strip())
    if found is None or (found.group(2) and option != "--max-input-size"):
        kind = "a size such as 8G or 500M" if option == "--max-input-size" else "a whole number"
        raise UserError(f"expected {kind}, not {text!r}", field=option)
    value = float(found.group(1)) * _UNITS[found.group(2).lower()]
    if value < 1 or (option != "--max-input-size" and not value.is_integer()):
        raise UserError(f"expected a positive whole number, not {text!r}", field=option)
    return int(value)


def over_cap(file: Path | str, what: str, option: str, cap: int) -> UserError:
    """The one-line error for a file over a cap, naming the cap and how to raise it."""
    shown = _size(cap) if option == "--max-input-size" else f"{cap:,}"
    field = OPTIONS[option][0]
    return UserError(f"{what}: over the {OPTIONS[option][1]} cap of {shown}; if the file is trusted, raise "
                     f"it with `mmgauge {option} ...` (API: input_limits({field}=...))", file=str(file))


def _size(count: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024:
            return f"{count:g} {unit}"
        count /= 1024
    return f"{count:g} TiB"


def check_zip(path: Path) -> None:
    """Hold a zip file (a workbook) to the caps from its directory, before a member is inflated.

    An unreadable directory is left to the reader, which names the file as damaged."""
    import zipfile

    limits = current_limits()
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return
    total = 0
    for member in members:
        total += member.file_size
        if total > limits.max_bytes:
            raise over_cap(path, f"unpacks to more than {_size(limits.max_bytes)}", "--max-input-size",
                           limits.max_bytes)
        # Tiny members (a few KB of XML) pack far better than 100 to 1 and cannot hurt: ratio checks start
        # at 1 MiB.
        if member.file_size > 2**20 and member.file_size > limits.max_ratio * max(member.compress_size, 1):
            ratio = member.file_size // max(member.compress_size, 1)
            raise over_cap(path, f"member {member.filename} unpacks {ratio} to 1 ({_size(member.file_size)} "
                           f"from {_size(member.compress_size)})", "--max-input-ratio", limits.max_ratio)


def check_rows(path: Path | str, rows: int) -> None:
    limits = current_limits()
    if rows > limits.max_rows:
        raise over_cap(path, f"more than {limits.max_rows:,} rows", "--max-input-rows", limits.max_rows)


def check_bytes(path: Path | str, size: int) -> None:
    limits = current_limits()
    if size > limits.max_bytes:
        raise over_cap(path, f"unpacks to more than {_size(limits.max_bytes)}", "--max-input-size",
                       limits.max_bytes)
