"""An exclusive lock on a run folder for the one process that writes it.

The lock is an advisory OS lock (`flock` on POSIX, `msvcrt.locking` on Windows) on a small file that also
names its holder (pid, host, command, time). The OS drops the lock when the holder dies, however it dies, so
a lock left behind by a killed process is simply taken over; a live holder makes a second writer stop at once
with one line naming it.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import IO, Any

from mmgauge.core.errors import UserError


class FolderBusy(UserError):
    """Another live process holds the run folder."""


def _try_lock(handle: IO[str]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(handle: IO[str]) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _describe(holder: dict[str, Any]) -> str:
    parts = [f"pid {holder.get('pid', '?')}"]
    if holder.get("host"):
        parts.append(f"on {holder['host']}")
    if holder.get("command"):
        parts.append(f"({' '.join(str(word) for word in holder['command'])})")
    if holder.get("since"):
        parts.append(f"since {holder['since']}")
    return " ".join(parts)


class FolderLock:
    """`with FolderLock(path, command, since):` holds the lock file `path` for the block."""

    def __init__(self, path: Path, command: list[str], since: str) -> None:
        self.path = path
        self.command = command
        self.since = since
        self._handle: IO[str] | None = None
        #: What the lock file said when we took it over from a dead holder (None: it was free or new).
        self.previous: dict[str, Any] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        if not _try_lock(handle):
            holder = _read_holder(handle)
            handle.close()
            raise FolderBusy(
                f"is being written by another mmgauge process, {_describe(holder)}; wait for it to finish "
                "or choose another --out",
                file=str(self.path.parent),
            )
        self.previous = _read_holder(handle) or None
        handle.seek(0)
        handle.truncate()
        record = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                  "since": self.since}
        handle.write(json.dumps(record) + "\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        try:
            handle.seek(0)
            handle.truncate()  # an empty lock file says: nobody holds it
            handle.flush()
            _unlock(handle)
        finally:
            handle.close()

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(handle: IO[str]) -> dict[str, Any]:
    handle.seek(0)
    try:
        data = json.loads(handle.read() or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
