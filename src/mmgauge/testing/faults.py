"""What the test server does with one request, and a seeded schedule of faults over many requests."""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass, field

#: Every kind of reply the test server can give (besides "ok"):
#:   429 / 500 / 503 / 529 (Anthropic's "overloaded") / 401 (its body echoes the key that was sent);
#:   malformed (truncated JSON), hang (never answers), close (drops the connection);
#:   empty_choices (no choice / no content block), null_content (content null), bad_usage (answer kept,
#:   usage not numbers), gzip_bomb (a small gzip body that inflates past any sane cap), big (a chunked body
#:   of `big_bytes` without Content-Length).
FAULT_KINDS = (
    "429", "500", "503", "529", "401", "malformed", "hang", "close", "empty_choices", "null_content",
    "bad_usage", "gzip_bomb", "big",
)  # fmt: skip


@dataclass(frozen=True)
class Action:
    kind: str  # "ok" or one of FAULT_KINDS
    delay_s: float = 0.0
    retry_after: str | None = None


OK = Action("ok")


@dataclass
class FaultSchedule:
    """Each request draws one fault (or none) with the given probabilities, from a seeded generator.

    The draws are a fixed sequence for a seed, taken in the order requests arrive. `skip_first` requests
    are never faulted (so an endpoint has answered once before any 401, which would otherwise read as
    "wrong credentials" and disable it). `counts` says how many of each fault were served.
    """

    probabilities: dict[str, float]
    seed: int = 0
    skip_first: int = 0
    #: Retry-After sent with scheduled 429/503/529 replies (None: no header).
    retry_after: str | None = "0"
    counts: Counter[str] = field(default_factory=Counter)
    drawn: int = 0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.probabilities) - set(FAULT_KINDS))
        if unknown:
            raise ValueError(f"unknown fault kind(s): {', '.join(unknown)}")
        if sum(self.probabilities.values()) > 1.0 + 1e-9 or min(self.probabilities.values(), default=0) < 0:
            raise ValueError("fault probabilities must be >= 0 and add up to at most 1")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def next(self) -> Action | None:
        """The fault for the next request, or None for a normal answer."""
        with self._lock:
            self.drawn += 1
            draw = self._rng.random()
            if self.drawn <= self.skip_first:
                return None
            total = 0.0
            for kind, probability in self.probabilities.items():
                total += probability
                if draw < total:
                    self.counts[kind] += 1
                    retry_after = self.retry_after if kind in ("429", "503", "529") else None
                    return Action(kind, retry_after=retry_after)
            self.counts["ok"] += 1
            return None
