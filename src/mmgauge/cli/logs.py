"""Logging at the command line's edge: the library logs to `mmgauge.*` loggers and configures nothing; the
command line gives them handlers here.

- The console handler writes `level: message` lines to stderr: warnings and errors by default, `-v` adds
  info, `-vv` debug; `-q` keeps the level (errors and warnings still show) and silences progress and
  status lines, `-qq` shows errors only. `--log-level LEVEL` names the level outright.
- `mmgauge run` also appends a DEBUG log to its run folder's `mmgauge.log` (or to `--log-file PATH`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmgauge.cli.log_level import LogLevel

if TYPE_CHECKING:  # annotations only: `configure` runs before every command, and these import pydantic
    from mmgauge.backends.base import Stage
    from mmgauge.runner.progress import Outcome, ProgressSink

ROOT = "mmgauge"
#: The run's status lines (loading data, starting a model): the progress display shows them on the console,
#: so the console handler leaves them to it; the log file keeps them.
STATUS = "mmgauge.status"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Records a run makes before its folder exists that a run log holds, at most, until it does.
MAX_HELD = 10_000


class _Console(logging.StreamHandler):  # type: ignore[type-arg]  # typeshed: generic over the stream
    """Writes to the stderr of the moment (tests and callers may replace `sys.stderr`)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _LowerLevel(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {super().format(record)}"


def console_level(verbose: int = 0, quiet: int = 0, level: LogLevel | str | None = None) -> int:
    """The console's level for `-v` x `verbose`, `-q` x `quiet`, or a `--log-level` (which wins)."""
    if level is not None:
        name = level.value if isinstance(level, LogLevel) else str(level)
        return int(logging.getLevelName(name.upper()))
    steps = verbose - quiet
    if steps >= 2:
        return logging.DEBUG
    if steps == 1:
        return logging.INFO
    return logging.WARNING if steps >= -1 else logging.ERROR


def configure(verbose: int = 0, quiet: int = 0, level: LogLevel | str | None = None) -> None:
    """Give the `mmgauge` logger its console handler (replacing one configured before in this process)."""
    root = logging.getLogger(ROOT)
    for handler in [h for h in root.handlers if isinstance(h, _Console)]:
        root.removeHandler(handler)
    console = _Console(sys.stderr)
    console.setLevel(console_level(verbose, quiet, level))
    console.setFormatter(_LowerLevel("%(message)s"))
    console.addFilter(lambda record: record.name != STATUS)
    root.addHandler(console)
    _set_level(root)


def _set_level(root: logging.Logger) -> None:
    # The logger passes what its most verbose handler wants; each handler keeps to its own level.
    root.setLevel(min((handler.level for handler in root.handlers), default=logging.WARNING))


class RunLog(logging.Handler):
    """DEBUG records appended to a file, held in memory until its folder exists: a run refused before it
    starts (a mistyped benchmark) creates no run folder just for its log."""

    def __init__(self, path: Path) -> None:
        super().__init__(logging.DEBUG)
        self.path = path
        self.setFormatter(logging.Formatter(FILE_FORMAT))
        self._file: Any = None
        self._held: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self._file is None:
                if not self.path.parent.is_dir():
                    if len(self._held) < MAX_HELD:
                        self._held.append(record)
                    return
                self._file = self.path.open("a", encoding="utf-8")
                held, self._held = self._held, []
                for earlier in held:
                    self._write(earlier)
            self._write(record)
        except Exception:
            self.handleError(record)

    def _write(self, record: logging.LogRecord) -> None:
        self._file.write(self.format(record) + "\n")
        self._file.flush()  # a run that dies keeps its log up to its last line

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


def attach_run_log(path: Path, *, make_folder: bool = False) -> Callable[[], None]:
    """Log DEBUG records to `path` (`none`: nowhere) until the returned function is called."""
    if str(path).lower() == "none":
        return lambda: None
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger(ROOT)
    handler = RunLog(path)
    root.addHandler(handler)
    _set_level(root)

    def detach() -> None:
        root.removeHandler(handler)
        handler.close()
        _set_level(root)

    return detach


class LoggedProgress:
    """A run's progress sink that also logs its status lines (to `STATUS`, for the log file)."""

    def __init__(self, shown: ProgressSink) -> None:
        self.shown = shown
        self._status = logging.getLogger(STATUS)

    def status(self, text: str) -> None:
        self._status.info(text)
        self.shown.status(text)

    def watch_concurrency(self, live: Callable[[], int | None]) -> None:
        self.shown.watch_concurrency(live)

    def watch_retries(self, failed_attempts: Callable[[], int | None]) -> None:
        self.shown.watch_retries(failed_attempts)

    def start(self, total: int | None, description: str) -> None:
        self._status.info("%s: %s to do", description, "?" if total is None else total)
        self.shown.start(total, description)

    def advance(self, *, cached: bool = False, failed: bool = False) -> None:
        self.shown.advance(cached=cached, failed=failed)

    def finish(self, outcome: Outcome = "done") -> None:
        self._status.info("finished: %s", outcome)
        self.shown.finish(outcome)

    def stage(self, stage: Stage) -> None:
        self.shown.stage(stage)
