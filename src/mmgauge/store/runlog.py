"""The append-only per-sample record log (JSON lines): one record per finished request, flushed as it lands.

A `kill -9` can leave at most one partial last line. Reading skips it and opening for append cuts it off,
so a resumed run continues a clean file and nothing finished before the kill is lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from mmgauge.core.errors import UserError
from mmgauge.core.types import SampleRecord
from mmgauge.core.writing import naming

#: SampleRecord's serializer: `to_json` gives the UTF-8 bytes model_dump_json() would decode to text.
_SERIALIZER = SampleRecord.__pydantic_serializer__


def _complete_length(path: Path) -> int:
    """Byte length of the file up to and including its last newline."""
    size = path.stat().st_size
    if size == 0:
        return 0
    with path.open("rb") as handle:
        block = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return start + cut + 1
            end = start
    return 0


def complete_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every complete, non-blank line; a torn final line (from a kill) is ignored."""
    if not path.exists():
        return
    complete = _complete_length(path)
    with path.open("rb") as handle:
        data = handle.read(complete)
    # Only "\n" ends a line: JSON text may hold a raw U+2028 or "\r" that other splitters would cut at.
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def is_record_file(path: Path) -> bool:
    """Whether `path` holds records (a run's record log, or a copy of one): its first non-blank line is a
    JSON object with a sample id and a response."""
    with path.open("rb") as handle:
        for line in handle:  # bytes: only "\n" ends a line (JSON text may hold a raw U+2028)
            if line.strip():
                try:
                    first = json.loads(line)
                except ValueError:
                    return False
                return isinstance(first, dict) and "sample_id" in first and "response" in first
    return False


def read_records(path: Path) -> Iterator[SampleRecord]:
    """All complete records in file order; a torn final line (from a kill) is ignored."""
    for number, line in complete_lines(path):
        try:
            yield SampleRecord.model_validate_json(line)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or None
            raise UserError(
                f"not a sample record: {first['msg']}", file=str(path), line=number, field=field
            ) from None


def latest_records(path: Path) -> dict[tuple[str, str, int], SampleRecord]:
    """The last record per (benchmark, sample id, round): a retried request supersedes its failure."""
    return {record.key: record for record in read_records(path)}


def record_line(path: Path, key: tuple[str, str, int]) -> int | None:
    """The line of the last record for `key` (benchmark, sample id, round) in `path`, None if it has none.

    For naming the line of a record found wrong after reading (slow: every line is parsed again)."""
    import json

    found = None
    for number, line in complete_lines(path):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and (data.get("benchmark"), str(data.get("sample_id")),
                                       data.get("round") or 0) == key:
            found = number
    return found


#: Where one record's line is in the log: (byte offset, byte length including its newline).
Span = tuple[int, int]


class RunLog:
    """Appends records to `samples.jsonl`, one line each, flushed to the OS at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            complete = _complete_length(path)
            if complete != path.stat().st_size:
                os.truncate(path, complete)
        # Bytes (the UTF-8 a text handle would write), so each line's place is known without asking the OS;
        # unbuffered, so each line goes to the OS in one write as it is appended, with nothing to flush.
        self._handle: IO[bytes] = path.open("ab", buffering=0)
        self._end = self._handle.tell()

    def append(self, record: SampleRecord) -> Span:
        """Write the record's line at once; where the line is (see `read_spans`)."""
        # The serializer's bytes as they are: model_dump_json() would decode them, and the line encode again.
        line = _SERIALIZER.to_json(record) + b"\n"
        try:
            written = self._handle.write(line) or 0
            while written < len(line):  # a short write (a signal, a nearly full disk): the rest follows
                written += self._handle.write(line[written:]) or 0
        except OSError as error:
            with naming(self.path):
                raise error from None
        span = (self._end, len(line))
        self._end += len(line)
        return span

    def close(self) -> None:
        with naming(self.path):
            self._handle.close()

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_spans(path: Path, spans: list[Span]) -> list[bytes] | None:
    """The lines at `spans` of a closed log, read in one pass; None if the file no longer holds them whole."""
    if not spans:
        return []
    start = min(offset for offset, _ in spans)
    end = max(offset + length for offset, length in spans)
    with path.open("rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    if len(data) != end - start:
        return None
    lines = [data[offset - start : offset - start + length] for offset, length in spans]
    return lines if all(line.endswith(b"\n") for line in lines) else None
