"""Sampling a benchmarked process with py-spy, where it is installed, and a short summary of what it saw.

py-spy attaches to the running process (`--pid`) and samples it from outside without pausing it
(`--nonblocking`), 100 times a second, every thread, idle ones left out. It is a child of the bench as the
measured process is; the bench reaps the measured process (and reads its CPU time) before it waits for
py-spy, so py-spy's own CPU time is not counted as the process's.

The summary says which threads were busy and where the samples fell: per thread, its share of all samples;
then the frames where most samples ended (each frame's own time) and the functions most samples passed
through (their total time), mmgauge's, transformers' and torch's named by their module.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
from pathlib import Path


def find() -> str | None:
    """The py-spy program: on the PATH, or beside this Python (a `pip install --target` puts it in bin/)."""
    found = shutil.which("py-spy")
    if found:
        return found
    for folder in {*sys.path, os.path.dirname(sys.executable)}:
        candidate = Path(folder) / "bin" / "py-spy"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def attach(pid: int, out: Path) -> subprocess.Popen[bytes] | None:
    """Start sampling process `pid` into `out` (py-spy's raw format); None where py-spy is not installed."""
    program = find()
    if program is None:
        return None
    command = [program, "record", "--pid", str(pid), "--nonblocking", "--threads", "--rate", "100",
               "--format", "raw", "--output", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def finish(sampler: subprocess.Popen[bytes]) -> None:
    """Wait for py-spy to write its samples once its process has ended (stopped after a minute)."""
    try:
        sampler.wait(timeout=60)
    except subprocess.TimeoutExpired:
        sampler.kill()
        sampler.wait()


def summary(raw: Path, top: int = 12) -> list[str]:
    """A few lines on the samples in `raw`: the threads' shares, then (imports apart) the frames where most
    samples ended and the functions of mmgauge, transformers, torch, PIL and asyncio most passed through."""
    threads: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    through: collections.Counter[str] = collections.Counter()
    total = importing = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        frames = stack.split(";")
        total += samples
        threads[frames[0]] += samples
        if any(frame.startswith("<module>") for frame in frames[1:]):  # importing: counted apart
            importing += samples
            continue
        if len(frames) > 1:
            own[_short(frames[-1])] += samples
        for name in {_short(frame, line_number=False) for frame in frames[1:]}:
            through[name] += samples
    if not total:
        return [f"{raw.name}: no samples"]
    share = lambda count: f"{100 * count / total:.1f}%"  # noqa: E731
    lines = [f"{raw.name}: {total} samples, {share(importing)} importing; threads: "
             + ", ".join(f"{name} {share(count)}" for name, count in threads.most_common(6))]
    lines.append("  own time: " + "; ".join(f"{name} {share(count)}" for name, count in own.most_common(top)))
    busiest = [(name, count) for name, count in through.most_common(4 * top)
               if any(part in name for part in ("mmgauge", "transformers", "torch", "PIL", "asyncio"))]
    lines.append("  total time: " + "; ".join(f"{name} {share(count)}" for name, count in busiest[:top]))
    return lines


def _short(frame: str, *, line_number: bool = True) -> str:
    """`function (path/to/module.py:12)` as `function (module.py:12)`, or without the line."""
    function, _, where = frame.partition(" (")
    where = where.rstrip(")")
    path, _, number = where.rpartition(":")
    parts = Path(path).parts
    module = "/".join(parts[-2:]) if parts else where
    return f"{function} ({module}:{number})" if line_number and number else f"{function} ({module})"
