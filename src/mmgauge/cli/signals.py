"""SIGTERM (sent by `timeout`, SLURM, Kubernetes, `kill`) stops a command the way Ctrl-C does.

Python's default for SIGTERM ends the process at once: no `finally` runs, so the response cache's buffered
entries and the manifest's "interrupted" are lost, and nothing is said. Here it is turned into the same stop
as a Ctrl-C (finished work is kept, one line says how to resume), and the command exits 143 as a process
killed by SIGTERM would. Installed by `main` only: process-wide state belongs to the command line's edge.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

#: What a shell reports for a process ended by SIGTERM (128 + 15): schedulers read it as "terminated".
TERMINATED_STATUS = 128 + signal.SIGTERM


class TerminateAsInterrupt:
    """Inside the block, SIGTERM acts as Ctrl-C; `received` says whether one came."""

    def __init__(self) -> None:
        self.received = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> TerminateAsInterrupt:
        # Handlers can only be set from the main thread (a caller may run `main` in another one).
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._on_terminate)
            self._installed = True
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._installed:
            signal.signal(signal.SIGTERM, self._previous)
            self._installed = False

    def _on_terminate(self, signum: int, frame: FrameType | None) -> None:
        self.received = True
        on_interrupt = signal.getsignal(signal.SIGINT)
        if callable(on_interrupt):
            # Whatever Ctrl-C would do now: inside `asyncio.run`, its handler cancels the running task, so
            # every `finally` of the run (cache flush, manifest, closing the backends) runs before the stop.
            on_interrupt(signal.SIGINT, frame)
            return
        # Ctrl-C is ignored (a job started in the background): stop as Python's own Ctrl-C would.
        raise KeyboardInterrupt
