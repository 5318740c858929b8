"""Whole-process measurements: wall time, CPU time (user + sys) and peak memory (max RSS) of one child.

Every command runs in a fresh process started directly from the interpreter (never through a shell or a
pyenv shim, whose own start-up would be counted). CPU time and peak memory are `wait4`'s resource usage of
that one child, so nothing else this bench starts (a test server, an input generator) is counted.

Commands compared with each other run in turns (floor, command, floor, command, ...). Each turn gives one
ratio per figure, and the figure reported is the median of those pair ratios: a slow spell of a shared
machine falls on both halves of a pair, and a single lucky run cannot make a command look fast (the best of
several runs would).
"""

from __future__ import annotations

import os
import statistics
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

KEEP_OUTPUT = 1 << 20


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu: float
    peak_mib: float
    stdout: bytes
    stdout_bytes: int
    started: float = 0.0


@dataclass(frozen=True)
class Figure:
    """Medians over the runs of one command, and the output of its last run (its first MiB, and its size)."""

    seconds: float
    cpu: float
    peak_mib: float
    runs: list[Run] = field(default_factory=list)

    @property
    def stdout(self) -> bytes:
        return self.runs[-1].stdout

    @property
    def stdout_bytes(self) -> int:
        return self.runs[-1].stdout_bytes


def mmgauge_command() -> list[str]:
    """The `mmgauge` console script beside this interpreter (the real entry point), else the same via -c."""
    script = Path(sysconfig.get_path("scripts")) / "mmgauge"
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "from mmgauge.cli.main import main; main()"]


def run_once(argv: list[str], env: dict[str, str] | None = None) -> Run:
    """One run; a failing command stops the bench with its stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env if env is not None else dict(os.environ), file_actions=[
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
        return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read(KEEP_OUTPUT),
                   size, started)


def alternate(commands: dict[str, list[str]], repeat: int) -> dict[str, Figure]:
    """Each command `repeat` times, in turns (in the order given: put the floor first)."""
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(run_once(argv))
    return {name: Figure(statistics.median(r.seconds for r in found), statistics.median(r.cpu for r in found),
                         statistics.median(r.peak_mib for r in found), found)
            for name, found in runs.items()}


@dataclass(frozen=True)
class Ratios:
    """Medians of the per-turn ratios command / floor (of wall time, CPU time and peak memory)."""

    wall: float
    cpu: float
    memory: float


def pair_ratios(command: Figure, floor: Figure) -> Ratios:
    pairs = list(zip(command.runs, floor.runs, strict=True))
    return Ratios(statistics.median(c.seconds / f.seconds for c, f in pairs),
                  statistics.median(c.cpu / max(f.cpu, 1e-6) for c, f in pairs),
                  statistics.median(c.peak_mib / f.peak_mib for c, f in pairs))
