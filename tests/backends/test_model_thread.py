"""A model's work runs on one thread of its own, whichever coroutine asks and however many are waiting."""

from __future__ import annotations

import asyncio
import threading

from mmgauge.backends.model_thread import ModelThread


def test_every_call_runs_on_the_same_thread_which_is_not_the_callers() -> None:
    model_thread = ModelThread("test-model")
    seen: list[tuple[int, str]] = []

    def work(number: int) -> int:
        seen.append((threading.get_ident(), threading.current_thread().name))
        return number * 2

    async def main() -> list[int]:
        # More callers than any default pool would keep on one thread, all waiting at once.
        return list(await asyncio.gather(*(model_thread.run(work, n) for n in range(12))))

    assert asyncio.run(main()) == [n * 2 for n in range(12)]
    assert len({ident for ident, _ in seen}) == 1
    assert seen[0][0] != threading.get_ident()
    assert seen[0][1].startswith("test-model")
    model_thread.close()


def test_a_closed_thread_starts_again_at_the_next_call() -> None:
    model_thread = ModelThread("test-model")
    first = asyncio.run(model_thread.run(threading.get_ident))
    model_thread.close()
    second = asyncio.run(model_thread.run(threading.get_ident))
    model_thread.close()
    assert first != threading.get_ident() and second != threading.get_ident()
