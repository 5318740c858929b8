"""Errors of writing to a file that say which file.

An error raised by `write` or `flush` on an open file (a full disk, a quota, an I/O error) carries no file
name: the command line could only say `No space left on device`, and the user could not tell which of the
files a run writes (the run folder, the cache, an output) met it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def naming(path: Path | str) -> Iterator[None]:
    """Inside the block, an OSError that names no file is raised again naming `path` (same errno, so the
    same subclass, and the original chained)."""
    try:
        yield
    except OSError as error:
        if error.filename is not None or error.errno is None:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error
