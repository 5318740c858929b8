"""The entry points installed packages declare, read once for each state of the import path.

`importlib.metadata.entry_points()` opens the metadata of every installed distribution each time it is
called: about 30 ms for the 430 distributions of a development machine, far more on a cluster whose
site-packages is on a network file system. A run asks for its benchmarks and backends a dozen times (the
built-in sample run, 35), so the scan is kept while the import path stays as it was: the same folders on
`sys.path`, none of them modified since. Installing, upgrading or removing a package adds or removes a
`.dist-info` folder, which modifies its site folder (its modification time, and its link count, which
changes even within one tick of the file system's clock); a folder put on `sys.path` is a new path. Only
an `entry_points.txt` edited in place, inside a folder that stays, goes unseen until the next process.
"""

from __future__ import annotations

import functools
import os
import sys
from importlib.metadata import entry_points

#: Each entry of the import path with its modification time and link count (None where it does not exist).
PathState = tuple[tuple[str, tuple[int, int] | None], ...]


def declared(group: str) -> list[tuple[str, str]]:
    """(name, "module:attribute") of every entry point of `group`, in the order importlib finds them."""
    return list(_all(_path_state()).get(group, ()))  # a copy: the cached scan stays as read


def _path_state() -> PathState:
    state = []
    for entry in sys.path:
        try:
            found = os.stat(entry or ".")  # "" is the current folder
            modified: tuple[int, int] | None = (found.st_mtime_ns, found.st_nlink)
        except (OSError, ValueError):
            modified = None
        state.append((entry, modified))
    return tuple(state)


@functools.lru_cache(maxsize=1)
def _all(state: PathState) -> dict[str, list[tuple[str, str]]]:
    del state  # the cache key: `entry_points()` reads sys.path itself
    found = entry_points()  # one scan, every group (`.groups` and `.select` work alike on Python 3.10-3.14)
    return {group: [(entry.name, entry.value) for entry in found.select(group=group)]
            for group in found.groups}
