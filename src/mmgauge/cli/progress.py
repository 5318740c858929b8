"""Progress for long operations: done/total, a rate averaged over a window, ETA, errors, cache hits.

On a terminal it is a rich progress bar. Without one (a batch job's log file, a pipe) it is a plain line at a
steady interval, written and flushed whether or not anything finished since the last line, so a log shows a
run is alive (or stuck) while it runs. Status lines (loading data, starting a model) are printed at once. A
backend's stages of getting ready (converting weights, loading them, the first batch) each get a line of their
own with the time they have taken, so a long first start does not read as a stuck `0/N`. The ETA is the rate
shown beside it applied to what is left, and the last line of a phase says how it ended (done, interrupted,
stopped).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

from mmgauge.backends.base import Stage
from mmgauge.runner.progress import Outcome

#: Seconds the rate is averaged over: long enough to smooth bursts (a batch finishing at once), short
#: enough to follow a changing endpoint.
RATE_WINDOW_S = 30.0
#: Below this much time since the first request went out there is no honest rate yet.
MIN_RATE_SPAN_S = 2.0


class RateWindow:
    """Completions per second over the last `window` seconds."""

    def __init__(self, window: float = RATE_WINDOW_S) -> None:
        self.window = window
        self.started: float | None = None
        self._marks: deque[tuple[float, int]] = deque()

    def start(self) -> None:
        self.started = time.monotonic()
        self._marks.clear()
        self._marks.append((self.started, 0))

    def mark(self, done: int) -> None:
        now = time.monotonic()
        self._marks.append((now, done))
        while len(self._marks) > 2 and now - self._marks[1][0] > self.window:
            self._marks.popleft()

    def rate(self, done: int) -> float | None:
        if self.started is None:
            return None
        now = time.monotonic()
        first_time, first_done = self._marks[0]
        span = now - first_time
        if now - self.started < MIN_RATE_SPAN_S or span <= 0:
            return None
        return (done - first_done) / span


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


class _Counts:
    def __init__(self) -> None:
        self.total: int | None = None
        self.done = 0
        self.errors = 0
        self.cached = 0
        self.rate = RateWindow()
        self.live: Callable[[], int | None] | None = None
        self.attempts: Callable[[], int | None] | None = None

    def extras(self) -> str:
        """Live figures from the backend: concurrency in force, failed attempts so far (retried or not)."""
        parts = []
        live = self.live() if self.live is not None else None
        if live is not None:
            parts.append(f"concurrency {live}")
        failed = self.attempts() if self.attempts is not None else None
        if failed:
            parts.append(f"failed attempts {failed}")
        return ", ".join(parts)

    def reset(self, total: int | None) -> None:
        self.total, self.done, self.errors, self.cached = total, 0, 0, 0
        self.rate.start()

    def advance(self, cached: bool, failed: bool) -> None:
        self.done += 1
        self.errors += failed
        self.cached += cached
        self.rate.mark(self.done)

    def eta(self) -> str | None:
        """What is left at the rate shown (None while there is no rate or no total)."""
        rate = self.rate.rate(self.done)
        if not rate or self.total is None:
            return None
        return _duration((self.total - self.done) / rate)

    def tail(self) -> str:
        parts = [f"errors {self.errors}", f"cache hits {self.cached}"]
        extras = self.extras()
        return ", ".join([*parts, extras] if extras else parts)

    def line(self, description: str) -> str:
        rate = self.rate.rate(self.done)
        parts = [f"{description}: {self.done}" + (f"/{self.total}" if self.total is not None else "")]
        if self.total:
            parts[0] += f" ({100 * self.done / self.total:.1f}%)"
        parts.append("- req/s" if rate is None else f"{rate:.1f} req/s")
        eta = self.eta()
        if eta is not None:
            parts.append(f"ETA {eta}")
        parts.append(self.tail())
        return ", ".join(parts)


class _Column(ProgressColumn):
    """A column of the phase's figures (from the counts, not rich's own estimates, so the ETA and the rate
    agree); a backend's stage shows how long it has taken in its last column and nothing in the others."""

    def __init__(self, counts: _Counts, what: str) -> None:
        super().__init__()
        self.counts = counts
        self.what = what

    def render(self, task: Task) -> Text:
        counts = self.counts
        if task.fields.get("stage"):
            if self.what == "count" and task.total is not None:
                return Text(f"{int(task.completed)}/{int(task.total)}", style="dim")
            return Text(f"{_duration(task.elapsed or 0)} so far" if self.what == "tail" else "", style="dim")
        if self.what == "count":
            return Text(f"{counts.done}" + (f"/{counts.total}" if counts.total is not None else ""))
        if self.what == "rate":
            rate = counts.rate.rate(counts.done)
            return Text("   - req/s" if rate is None else f"{rate:6.1f} req/s", style="cyan")
        if self.what == "eta":
            return Text(f"ETA {counts.eta() or '-'}")
        return Text(counts.tail())


class _Watching:
    """What both displays keep: the counts, and the backend's live figures they show."""

    def __init__(self) -> None:
        self._counts = _Counts()
        #: The backend's stages under way, by name: when each began.
        self._stages: dict[str, float] = {}
        #: How far each stage under way that counts its steps has come: (done, total).
        self._stage_steps: dict[str, tuple[int, int]] = {}

    def watch_concurrency(self, live: Callable[[], int | None]) -> None:
        self._counts.live = live

    def watch_retries(self, failed_attempts: Callable[[], int | None]) -> None:
        self._counts.attempts = failed_attempts

    def _began(self, stage: Stage) -> float | None:
        """When `stage` began (None when it begins now); its start is remembered until it ends."""
        if stage.ended:
            self._stage_steps.pop(stage.name, None)
            return self._stages.pop(stage.name, None)
        if stage.progress:
            self._stage_steps[stage.name] = (stage.done or 0, stage.total or 0)
            return self._stages.get(stage.name)
        self._stages[stage.name] = time.monotonic()
        return None

    def _so_far(self, name: str, began: float) -> str:
        steps = self._stage_steps.get(name)
        counted = f"{steps[0]}/{steps[1]}, " if steps is not None else ""
        return f"{name}: {counted}{_duration(time.monotonic() - began)} so far"

    def _ended_line(self, stage: Stage, began: float | None) -> str:
        took = f" in {_duration(time.monotonic() - began)}" if began is not None else ""
        return f"{stage.name}: done{took}"


class RichProgress(_Watching):
    """The runner's ProgressSink on a terminal: one bar per phase (requests, then the judge pass)."""

    def __init__(self, console: Console, extra: Callable[[], int | None] | None = None) -> None:
        super().__init__()
        self._console = console
        self._counts.live = extra
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._stage_tasks: dict[str, TaskID] = {}
        self._description = ""

    def status(self, text: str) -> None:
        self._console.print(Text(text, style="yellow" if text.startswith("warning:") else "dim"))

    def start(self, total: int | None, description: str) -> None:
        if total == 0:
            return
        self._counts.reset(total)
        counts = self._counts
        self._description = description
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            _Column(counts, "count"),
            _Column(counts, "rate"),
            _Column(counts, "eta"),
            _Column(counts, "tail"),
            console=self._console,
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(description, total=total)
        for name in self._stages:  # a stage that began before this phase goes on inside it
            done, total = self._stage_steps.get(name, (0, None))
            self._stage_tasks[name] = self._progress.add_task(name, total=total, completed=done, stage=True)

    def advance(self, *, cached: bool = False, failed: bool = False) -> None:
        if self._progress is None or self._task is None:
            return
        self._counts.advance(cached, failed)
        self._progress.update(self._task, advance=1)

    def stage(self, stage: Stage) -> None:
        began = self._began(stage)
        progress = self._progress
        if stage.progress:  # shown on the stage's own bar; without one, its end line is enough
            task = self._stage_tasks.get(stage.name)
            if progress is not None and task is not None:
                progress.update(task, completed=stage.done, total=stage.total)
            return
        if not stage.ended:
            if progress is not None:
                self._stage_tasks[stage.name] = progress.add_task(stage.name, total=None, stage=True)
            else:
                self.status(f"{stage.name} ...")
            return
        task = self._stage_tasks.pop(stage.name, None)
        if progress is not None and task is not None:
            progress.remove_task(task)
        self.status(self._ended_line(stage, began))

    def finish(self, outcome: Outcome = "done") -> None:
        if self._progress is not None:
            for task in self._stage_tasks.values():
                self._progress.remove_task(task)
            if outcome != "done" and self._task is not None:
                self._progress.update(self._task, description=f"{self._description} ({outcome})")
            self._progress.stop()
        self._stage_tasks.clear()
        self._progress = None
        self._task = None


class PlainProgress(_Watching):
    """The ProgressSink without a terminal: a flushed line every `interval` seconds and at the end."""

    def __init__(self, stream: IO[str], interval: float = 10.0) -> None:
        super().__init__()
        self._stream = stream
        self._interval = interval
        self._description = ""
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _write(self, text: str) -> None:
        with self._lock:
            self._stream.write(text + "\n")
            self._stream.flush()

    def status(self, text: str) -> None:
        self._write(text)

    def start(self, total: int | None, description: str) -> None:
        if total == 0:
            return
        self.finish()
        self._counts.reset(total)
        self._description = description
        self._write(self._counts.line(description) + " (started)")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, args=(self._stop,), daemon=True,
                                        name="mmgauge-progress")
        self._thread.start()

    def _tick(self, stop: threading.Event) -> None:
        while not stop.wait(self._interval):
            self._write(self._counts.line(self._description))
            for name, began in list(self._stages.items()):
                self._write(self._so_far(name, began))

    def advance(self, *, cached: bool = False, failed: bool = False) -> None:
        self._counts.advance(cached, failed)

    def stage(self, stage: Stage) -> None:
        began = self._began(stage)
        if stage.progress:  # counted into the next periodic line, not a line of its own per step
            return
        self._write(self._ended_line(stage, began) if stage.ended else f"{stage.name} (started)")

    def finish(self, outcome: Outcome = "done") -> None:
        if self._stop is None or self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._stop = self._thread = None
        self._write(self._counts.line(self._description) + f" ({outcome})")


def progress_for(console: Console, interval: float) -> RichProgress | PlainProgress:
    """A bar on a terminal, plain lines at `interval` seconds otherwise."""
    if console.is_terminal:
        return RichProgress(console)
    return PlainProgress(console.file, interval)
