"""Rich progress display for long operations: done/total, requests/s, ETA, errors, cache hits."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("   - req/s" if speed is None else f"{speed:6.1f} req/s", style="cyan")


class RichProgress:
    """Implements the runner's ProgressSink: one bar per phase (requests, then the judge pass)."""

    def __init__(self, console: Console, extra: Callable[[], int | None] | None = None) -> None:
        self._console = console
        self._extra = extra
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._errors = 0
        self._cached = 0

    def status(self, text: str) -> None:
        self._console.print(Text(text, style="dim"))

    def watch_concurrency(self, live: Callable[[], int | None]) -> None:
        self._extra = live

    def start(self, total: int | None, description: str) -> None:
        if total == 0:
            return
        self._errors = self._cached = 0
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn() if total is not None else TextColumn("{task.completed}"),
            RateColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn(
                "errors [red]{task.fields[errors]}[/] cache hits [green]{task.fields[cached]}[/]"
                "{task.fields[extra]}"
            ),
            console=self._console,
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(description, total=total, errors=0, cached=0, extra="")

    def advance(self, *, cached: bool = False, failed: bool = False) -> None:
        if self._progress is None or self._task is None:
            return
        self._errors += failed
        self._cached += cached
        live = self._extra() if self._extra is not None else None
        extra = "" if live is None else f" concurrency {live}"
        self._progress.update(self._task, advance=1, errors=self._errors, cached=self._cached, extra=extra)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress = None
        self._task = None
