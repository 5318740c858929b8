"""What the fast TSV reader cannot say by itself: the block size a file with very long rows needs, and the
line of the first row that breaks the format (not UTF-8, a different field count). Run only when pyarrow has
failed or asked for more, with the csv module's quoting rules (a quoted cell may hold tabs and line breaks).
"""

from __future__ import annotations

import csv
from pathlib import Path

from mmgauge.core.errors import UserError

#: The largest cell a table may hold (a base64 image of about 48 MB); a larger one is refused, naming it.
MAX_CELL_BYTES = 64 * 2**20


def line_block_size(path: Path) -> int | None:
    """A pyarrow block size that holds the file's longest line, or None where that block would be larger
    than the largest cell read (`block_size_for` then decides, and names a cell that is too large).

    A quick bound: the file is read in blocks into one buffer, lines found in C (0.01 s for a 70 MB file of
    1 MB images; iterating over the lines made a bytes object of each, 0.07 s), where `block_size_for` parses
    every cell with the csv module (0.5 s). It holds every row without a quoted line break; pyarrow says so
    when a row is longer, and the caller asks `block_size_for` then.
    """
    buffer = bytearray(1 << 20)
    longest = length = 0  # `length`: of the line read so far, up to the end of the previous block
    with path.open("rb", buffering=0) as handle:
        while got := handle.readinto(buffer):
            start = 0
            end = buffer.find(b"\n", 0, got)
            while end >= 0:
                longest = max(longest, length + end + 1 - start)
                length, start = 0, end + 1
                end = buffer.find(b"\n", start, got)
            length += got - start
    longest = max(longest, length)
    size = max(1 << 20, 2 * longest + 4096)
    return size if size <= MAX_CELL_BYTES else None


def block_size_for(path: Path, names: list[str]) -> int:
    """A pyarrow block size that holds the file's longest row; a cell over MAX_CELL_BYTES is a UserError."""
    csv.field_size_limit(2**31 - 1)
    longest_row = 0
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader, None)
        start = reader.line_num + 1
        for fields in reader:
            sizes = [len(cell.encode("utf-8")) for cell in fields]
            for size, name in zip(sizes, names, strict=False):
                if size > MAX_CELL_BYTES:
                    limit = MAX_CELL_BYTES // 2**20
                    message = f"a cell of {size / 2**20:.0f} MB; cells over {limit} MB are not read (broken?)"
                    raise UserError(message, file=str(path), line=start, field=name)
            longest_row = max(longest_row, sum(sizes) + len(sizes))
            start = reader.line_num + 1
    return min(2**31 - 1, max(1 << 20, 2 * longest_row + 4096))


def first_bad_row(path: Path, width: int) -> tuple[int, str] | None:
    """The line of the first row that is not UTF-8 or whose field count differs from the header's, and why.

    Only run after the fast reader failed, to name the line its message leaves out; the csv module follows the
    same quoting rules (a quoted cell may hold tabs and line breaks).
    """
    csv.field_size_limit(2**31 - 1)  # base64 images exceed the default limit
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t")
            next(reader, None)
            start = reader.line_num + 1
            for fields in reader:
                if len(fields) != width and fields:
                    return start, f"the row has {len(fields)} tab-separated fields, the header {width}"
                start = reader.line_num + 1
    except UnicodeDecodeError:
        line = bad_utf8_line(path)
        return None if line is None else (line, "not valid UTF-8 text")
    except csv.Error:
        return None
    return None


def bad_utf8_line(path: Path) -> int | None:
    with path.open("rb") as raw:
        for number, line in enumerate(raw, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return None
