"""Executors decide where requests run. The runner stays the one writer of the run folder whatever runs them.

An executor receives batches of requests and hands each batch's responses back to the runner (in the
runner's process and event loop) as soon as they are ready, in any order. It must deliver every batch
exactly once: a batch whose worker died is run again elsewhere, never dropped and never delivered twice.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from mmgauge.backends.base import Backend, Request
from mmgauge.core.types import ModelResponse

Deliver = Callable[[int, list[ModelResponse]], None]


class Executor(ABC):
    @abstractmethod
    async def execute(self, batches: Sequence[Sequence[Request]], deliver: Deliver) -> None:
        """Generate every batch; call `deliver(batch_number, responses)` once per batch as it completes."""

    def live_concurrency(self) -> int | None:
        return None

    def failed_attempts(self) -> int | None:
        """Failed attempts so far (retries included), where the executor can tell."""
        return None

    def describe(self) -> dict[str, Any]:
        """What the manifest records about where requests ran."""
        return {"executor": "local"}

    def stats(self) -> dict[str, Any] | None:
        """Counters results.json keeps after the run (e.g. workers lost, batches resubmitted)."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release workers."""


class LocalExecutor(Executor):
    """Runs batches on one in-process backend, keeping `backend.concurrency` batches in flight."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def execute(self, batches: Sequence[Sequence[Request]], deliver: Deliver) -> None:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for number in range(len(batches)):
            queue.put_nowait(number)

        async def worker() -> None:
            while True:
                try:
                    number = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                deliver(number, await self.backend.generate(batches[number]))

        workers = [asyncio.create_task(worker()) for _ in range(min(self.backend.concurrency, len(batches)))]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise

    def live_concurrency(self) -> int | None:
        return self.backend.live_concurrency()

    def failed_attempts(self) -> int | None:
        return self.backend.failed_attempts()
