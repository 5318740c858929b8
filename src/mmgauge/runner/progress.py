"""What a run reports as it goes. The runner and `evaluate` talk to a `ProgressSink`; the command line's
sink draws it (`cli/progress.py`), the Python API's default says nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from mmgauge.backends.base import Stage

#: How a phase ended: all of it, stopped by Ctrl-C or SIGTERM, or stopped by an error.
Outcome = Literal["done", "interrupted", "stopped"]


def outcome_of(error: BaseException) -> Outcome:
    """How a phase that `error` ended went, for its last progress line."""
    import asyncio

    return "interrupted" if isinstance(error, KeyboardInterrupt | asyncio.CancelledError) else "stopped"


class ProgressSink(Protocol):
    """What a run reports as it goes; the command line shows it with rich (or plain lines in a log)."""

    def status(self, text: str) -> None: ...

    def watch_concurrency(self, live: Callable[[], int | None]) -> None: ...

    def watch_retries(self, failed_attempts: Callable[[], int | None]) -> None: ...

    def start(self, total: int | None, description: str) -> None: ...

    def advance(self, *, cached: bool = False, failed: bool = False) -> None: ...

    def finish(self, outcome: Outcome = "done") -> None: ...

    def stage(self, stage: Stage) -> None:
        """A backend began or ended a stage of getting ready (it may call from a worker thread)."""


class NullProgress:
    """Reports nothing (the default of the Python API)."""

    def status(self, text: str) -> None:
        pass

    def watch_concurrency(self, live: Callable[[], int | None]) -> None:
        pass

    def watch_retries(self, failed_attempts: Callable[[], int | None]) -> None:
        pass

    def start(self, total: int | None, description: str) -> None:
        pass

    def advance(self, *, cached: bool = False, failed: bool = False) -> None:
        pass

    def finish(self, outcome: Outcome = "done") -> None:
        pass

    def stage(self, stage: Stage) -> None:
        pass
