"""Running a coroutine from synchronous code: the library's synchronous calls (`evaluate`, `score_mmbench`,
`audit_judge`) and the readers below them that await a judge (`comparison.sources`)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any


def run_sync(coro: Any) -> Any:
    """Run a coroutine to completion from synchronous code, also where a loop already runs (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    outcome: dict[str, Any] = {}

    def worker() -> None:
        try:
            outcome["value"] = asyncio.run(coro)
        except BaseException as error:  # handed to the caller's thread below
            outcome["error"] = error

    thread = threading.Thread(target=worker, name="mmgauge-evaluate")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
