"""Pausing Python's cyclic garbage collector while a large set of acyclic objects is built.

Reading 100,000 records makes millions of dicts, lists and strings. Each allocation counts towards the
collector's thresholds, and every collection of the oldest generation walks every live object: on a report of
100,000 samples that is a third of the time spent, for nothing, since parsed JSON and the rows made from it
hold no reference cycles. Reference counting still frees everything as usual while the collector waits.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic collection inside the block (it resumes, if it was on, when the block ends).

    With `freeze`, what the block made is moved out of the collector's sight (`gc.freeze()`) before it
    resumes, for objects that live on (a run's datasets and plan): otherwise its first pass walks all of
    them, as they are all young. The caller owns the matching `gc.unfreeze()`.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if enabled:
            gc.enable()


class YoungObjectFreezer:
    """Keeps a long loop that accumulates objects (a run's records) from ever-longer collector pauses.

    Each full collection walks every tracked object outside the permanent generation; while a run gathers
    records, those passes grow with it and stall the event loop for a tenth of a second and more, with
    requests waiting. Every `every` calls to `tick()` this collects what is not frozen yet (a short pass:
    only what was made since the last freeze), then freezes the survivors. Cyclic garbage is collected
    before it could be frozen; what becomes garbage after its freeze waits for `gc.unfreeze()`, which
    the caller owns (the evaluation session unfreezes when the run ends).
    """

    def __init__(self, every: int = 1000) -> None:
        self.every = every
        self._count = 0

    def tick(self) -> None:
        self._count += 1
        if self._count >= self.every:
            self._count = 0
            freeze_survivors()


def freeze_survivors() -> None:
    """Collect what is not frozen yet, then freeze what survived (see `YoungObjectFreezer`)."""
    if gc.isenabled():
        gc.collect()
        gc.freeze()
