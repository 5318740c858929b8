"""Whole-process measurements: wall time and peak memory (max RSS) of a command, medians of alternating runs.

Every command runs in a fresh process started directly from the interpreter (never through a shell or a
pyenv shim, whose own start-up would be counted). Peak memory is `wait4`'s resource usage of that one child.
Commands compared with each other run in turns (a, b, a, b, ...), so a slow spell of a shared machine falls
on all of them.
"""

from __future__ import annotations

import os
import statistics
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

KEEP_OUTPUT = 1 << 20


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mib: float
    stdout: bytes
    stdout_bytes: int


@dataclass(frozen=True)
class Figure:
    """Medians over the runs of one command, and the output of its last run (its first MiB, and its size)."""

    seconds: float
    peak_mib: float
    runs: int
    stdout: bytes = b""
    stdout_bytes: int = 0


def mmgauge_command() -> list[str]:
    """The `mmgauge` console script beside this interpreter (the real entry point), else the same via -c."""
    script = Path(sysconfig.get_path("scripts")) / "mmgauge"
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "from mmgauge.cli.main import main; main()"]


def run_once(argv: list[str]) -> Run:
    """One run; a failing command stops the bench with its stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
        seconds = time.perf_counter() - started
        if status != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(argv)}\n{err.read().decode(errors='replace')[-2000:]}")
        size = os.fstat(out.fileno()).st_size
        out.seek(0)
        # At most 1 MiB of output is kept: a child's peak memory starts at its parent's peak, so this
        # process must never hold a large output.
        return Run(seconds, usage.ru_maxrss / 1024, out.read(KEEP_OUTPUT), size)


def alternate(commands: dict[str, list[str]], repeat: int) -> dict[str, Figure]:
    """Each command `repeat` times, in turns; the median time and the median peak of each."""
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(run_once(argv))
    return {name: _median(found) for name, found in runs.items()}


def _median(runs: list[Run]) -> Figure:
    seconds = statistics.median(run.seconds for run in runs)
    return Figure(seconds, statistics.median(run.peak_mib for run in runs), len(runs), runs[-1].stdout,
                  runs[-1].stdout_bytes)
