"""The one thread on which an in-process model runs torch.

torch's CPU operators run in parallel on an OpenMP team, and each thread that calls them keeps a team of
its own. A model called from whichever worker thread is free (`asyncio.to_thread`) soon has several teams,
more of their threads than cores, and every parallel operator then waits for its team to be woken: on a
2-core CPU a tiny Llava's `generate` ran at half the speed it has in a plain loop. On an H100, with torch
called from several threads, a 1.1B Llava's ran at 522-563 tokens/s against a plain loop's 917-1,028 (the
README's performance section). So a backend that runs a model in-process runs everything that touches torch
on this one thread: 0.895 of the plain loop's throughput on the H100. Making the next batch's inputs on a
second thread while the model generates was measured too (H200): `generate` lost 68% of its speed and the
process took five times the CPU, as the processor's team competed with the launching thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class ModelThread:
    """A single worker thread, started at first use; `close` lets it end after the work it has."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._executor: ThreadPoolExecutor | None = None

    async def run(self, function: Callable[..., T], *args: object) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
