"""A pool of endpoints serving one model, each with its own adaptive concurrency limit.

Limit rule per endpoint (AIMD, as in TCP congestion control):

- it starts at the ceiling (`--concurrency`): a server that copes is never held back, and one that does
  not says so with its first 429/503/timeout;
- an overload signal (HTTP 429, 503 or 529, or a timeout) halves it, never below 1. Only a request sent
  after the last cut can cut again: the burst of failures already in flight when the server pushed back
  counts once;
- each success then adds 1/limit (so it grows by one per round trip), never above the ceiling; after an
  endpoint comes back from being down it adds 1 per success (doubling per round trip) until the next cut;
- Retry-After pauses the endpoint, briefly (at most `RETRY_AFTER_PAUSE_MAX_S`): the request that got it
  waits the full (capped) time itself, the others only long enough not to hammer a pushing-back server;
- a refused connection (or one that cannot be opened within 10 s, a name that does not resolve, a TLS
  failure) marks it down for a cooldown that doubles with every failed probe (from `backoff_base_s` to
  `backoff_max_s`, and at most a quarter of `unreachable_timeout_s`); it comes back with limit 1, so a dead
  replica costs one probe per cooldown;
- an endpoint that refuses the credentials or the model (401/403/404) before ever answering is disabled.

When no endpoint can take requests any more the pool raises `EndpointError` to every caller, at once:
every endpoint disabled; or every endpoint refusing connections before any of them ever replied (a wrong
URL, a server not started); or every endpoint silent for `unreachable_timeout_s`: since the send time of a
request that could not connect or timed out, nothing came back from it (a server that died or hung mid-run).

A request goes to the open endpoint with the fewest requests in flight relative to its current limit; if
every endpoint is at its limit, paused or down, the request waits in line (first come, first served).
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from mmgauge.core.errors import EndpointError

#: What went wrong with one attempt, as far as the endpoint's health is concerned.
Failure = Literal["overload", "connect", "fatal", "other"]

#: The longest a Retry-After keeps an endpoint closed to every request (the request that got it waits longer).
RETRY_AFTER_PAUSE_MAX_S = 5.0


class EndpointStats(TypedDict):
    url: str
    limit: float
    ceiling: int
    in_flight: int
    answered: int
    failed: int
    open: bool
    #: Why it takes no requests now (paused by Retry-After, down, disabled); None while open.
    state: str | None


@dataclass(eq=False)
class Endpoint:
    url: str
    ceiling: int
    limit: float
    #: How messages and stats name it: the URL without credentials it may carry.
    label: str = ""
    in_flight: int = 0
    #: Nothing is sent before this time (time.monotonic()): Retry-After or a cooldown after a dead connection.
    open_at: float = 0.0
    disabled: str | None = None
    succeeded: bool = False
    #: Whether any HTTP reply (of any status) ever came back from it.
    reached: bool = False
    #: When the latest HTTP reply came back (time.monotonic()).
    last_reply_at: float = -math.inf
    #: Since when it has given no reply: the send time of the first request that could not connect or timed
    #: out with nothing heard from the endpoint after it was sent. None once anything replies.
    unreachable_since: float | None = None
    #: Whether the latest evidence of that was a refused connection (as opposed to a silent timeout).
    refused: bool = False
    #: Why the latest attempt got no reply, for the error that ends the run.
    silent_reason: str = ""
    #: True after coming back from down, until the next overload: grow by one per success.
    slow_start: bool = False
    last_cut: float = -math.inf
    last_down: float = -math.inf
    connect_failures: int = 0
    answered: int = 0
    failed: int = 0
    #: Why the endpoint is not taking requests now (for the snapshot); None while it is.
    state_reason: str | None = None

    @property
    def cap(self) -> int:
        return max(1, int(self.limit))

    def open(self, now: float) -> bool:
        return self.disabled is None and now >= self.open_at

    def has_room(self, now: float) -> bool:
        return self.open(now) and self.in_flight < self.cap


@dataclass
class _Waiter:
    future: asyncio.Future[Endpoint]
    avoid: frozenset[Endpoint] = field(default_factory=frozenset)


class EndpointPool:
    def __init__(
        self,
        urls: list[str],
        *,
        ceiling: int,
        backoff_base_s: float,
        backoff_max_s: float,
        unreachable_timeout_s: float = 45.0,
        labels: list[str] | None = None,
    ) -> None:
        if not urls:
            raise ValueError("an endpoint pool needs at least one URL")
        self.endpoints = [
            Endpoint(url=url, ceiling=ceiling, limit=float(ceiling), label=label)
            for url, label in zip(urls, labels or urls, strict=True)
        ]
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.unreachable_timeout_s = unreachable_timeout_s
        self._waiters: deque[_Waiter] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_loop: asyncio.AbstractEventLoop | None = None

    # -- choosing an endpoint -------------------------------------------------------------------------------

    def _choose(self, avoid: frozenset[Endpoint], now: float) -> Endpoint | None:
        # A request that failed somewhere goes elsewhere, unless nowhere else is open: then anywhere will do.
        preferred = [e for e in self.endpoints if e not in avoid and e.open(now)]
        candidates = preferred or [e for e in self.endpoints if e.open(now)]
        best: Endpoint | None = None
        for endpoint in candidates:
            if endpoint.in_flight >= endpoint.cap:
                continue
            if best is None or endpoint.in_flight * best.cap < best.in_flight * endpoint.cap:
                best = endpoint
        return best

    def has_alternative(self, avoid: frozenset[Endpoint]) -> bool:
        """Whether an endpoint not in `avoid` is open now (busy or not): a retry there need not back off."""
        now = time.monotonic()
        return any(e not in avoid and e.open(now) for e in self.endpoints)

    async def acquire(self, avoid: frozenset[Endpoint] = frozenset()) -> Endpoint:
        self.raise_if_dead()
        if not self._waiters:
            endpoint = self._choose(avoid, time.monotonic())
            if endpoint is not None:
                endpoint.in_flight += 1
                return endpoint
        waiter = _Waiter(asyncio.get_running_loop().create_future(), avoid)
        self._waiters.append(waiter)
        # The waiters ahead may all be holding out for busy endpoints while another one has room.
        self._dispatch()
        try:
            return await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled() and waiter.future.exception() is None:
                # Granted a slot in the same tick as the cancellation: hand it back.
                self.release(waiter.future.result())
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def release(self, endpoint: Endpoint) -> None:
        endpoint.in_flight -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to waiting requests in arrival order."""
        if not self._waiters:
            return
        error = self.dead_error()
        if error is not None:
            while self._waiters:
                waiter = self._waiters.popleft()
                if not waiter.future.done():
                    waiter.future.set_exception(error)
            return
        now = time.monotonic()
        skipped: list[_Waiter] = []
        while self._waiters and any(e.has_room(now) for e in self.endpoints):
            waiter = self._waiters.popleft()
            if waiter.future.done():
                continue
            endpoint = self._choose(waiter.avoid, now)
            if endpoint is None:
                # Its preferred endpoints are busy; later arrivals without that preference may go first.
                skipped.append(waiter)
                continue
            endpoint.in_flight += 1
            waiter.future.set_result(endpoint)
        self._waiters.extendleft(reversed(skipped))
        self._arm_timer()

    def _arm_timer(self) -> None:
        """Wake the queue when the next paused or cooled-down endpoint opens again."""
        if not self._waiters:
            return
        now = time.monotonic()
        upcoming = [e.open_at for e in self.endpoints if e.disabled is None and e.open_at > now]
        give_up_at = self._give_up_at()
        if give_up_at is not None:
            upcoming.append(give_up_at)
        if not upcoming:
            return
        when = min(upcoming)
        loop = asyncio.get_running_loop()
        if self._timer is not None and self._timer_loop is loop:
            if not self._timer.cancelled() and self._timer.when() <= loop.time() + (when - now) + 2e-3:
                return  # an earlier wake-up is already due; it re-arms for the rest
            self._timer.cancel()
        self._timer_loop = loop
        # loop.time() and time.monotonic() share a clock on every platform asyncio supports, but not by
        # contract; converting through "seconds from now" avoids relying on it.
        self._timer = loop.call_at(loop.time() + (when - now) + 1e-3, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._dispatch()

    # -- feedback ------------------------------------------------------------------------------------------

    def succeeded(self, endpoint: Endpoint) -> None:
        endpoint.succeeded = True
        self._replied(endpoint, time.monotonic())
        endpoint.answered += 1
        endpoint.connect_failures = 0
        endpoint.state_reason = None
        if endpoint.limit < endpoint.ceiling:
            step = 1.0 if endpoint.slow_start else 1.0 / endpoint.limit
            endpoint.limit = min(float(endpoint.ceiling), endpoint.limit + step)
            self._dispatch()

    def failed(
        self,
        endpoint: Endpoint,
        kind: Failure,
        *,
        sent_at: float,
        retry_after: float | None,
        reason: str,
        replied: bool = False,
    ) -> None:
        """Adapt `endpoint` to a failed attempt that was sent at `sent_at` (time.monotonic()).

        `replied`: an HTTP reply came back (any status), so the endpoint is reachable whatever it said.
        """
        endpoint.failed += 1
        now = time.monotonic()
        if replied:
            self._replied(endpoint, now)
        elif kind in ("connect", "overload") and endpoint.last_reply_at < sent_at:
            # Refused, or timed out (an overload without a reply) with nothing heard since it was sent.
            if endpoint.unreachable_since is None:
                endpoint.unreachable_since = sent_at
            endpoint.refused = kind == "connect"
            endpoint.silent_reason = reason
        if kind == "fatal" and not endpoint.succeeded:
            endpoint.disabled = reason
            endpoint.state_reason = f"disabled: {reason}"
        elif kind == "overload" and sent_at >= endpoint.last_cut:
            endpoint.limit = max(1.0, endpoint.limit / 2)
            endpoint.slow_start = False
            endpoint.last_cut = now
        elif kind == "connect" and sent_at >= endpoint.last_down:
            # Requests already on their way when it went down say nothing new: the cooldown grows once.
            endpoint.last_down = now
            # Probe often enough within the give-up window to notice a server that came back.
            longest = min(self.backoff_max_s, self.unreachable_timeout_s / 4)
            cooldown = min(longest, self.backoff_base_s * 2 ** min(endpoint.connect_failures, 30))
            endpoint.connect_failures += 1
            endpoint.open_at = max(endpoint.open_at, now + random.uniform(cooldown / 2, cooldown))
            endpoint.limit = 1.0
            endpoint.slow_start = True
            endpoint.state_reason = f"down: {reason}"
        if retry_after is not None:
            pause = min(retry_after, self.backoff_max_s, RETRY_AFTER_PAUSE_MAX_S)
            endpoint.open_at = max(endpoint.open_at, now + pause)
            endpoint.state_reason = f"paused by Retry-After: {reason}"
        self._dispatch()

    # -- reporting -----------------------------------------------------------------------------------------

    def live_besides(self, endpoint: Endpoint) -> bool:
        """Whether an endpoint other than `endpoint` is usable and not known to be unreachable."""
        return any(e is not endpoint and e.disabled is None and e.unreachable_since is None
                   for e in self.endpoints)

    def ever_reached(self) -> bool:
        return any(e.reached for e in self.endpoints)

    @staticmethod
    def _replied(endpoint: Endpoint, now: float) -> None:
        endpoint.reached = True
        endpoint.last_reply_at = now
        endpoint.unreachable_since = None
        endpoint.refused = False

    def live_concurrency(self) -> int:
        now = time.monotonic()
        return sum(e.cap for e in self.endpoints if e.open(now))

    def snapshot(self) -> list[EndpointStats]:
        now = time.monotonic()
        return [
            EndpointStats(
                url=e.label, limit=round(e.limit, 2), ceiling=e.ceiling, in_flight=e.in_flight,
                answered=e.answered, failed=e.failed, open=e.open(now),
                state=None if e.open(now) else e.state_reason,
            )
            for e in self.endpoints
        ]

    def _all_disabled_error(self) -> EndpointError:
        if len(self.endpoints) == 1:
            return EndpointError(f"{self.endpoints[0].label} answered {self.endpoints[0].disabled}")
        detail = "; ".join(f"{e.label} answered {e.disabled}" for e in self.endpoints)
        return EndpointError(f"no endpoint accepts the requests: {detail}")

    # -- giving up -----------------------------------------------------------------------------------------

    def _give_up_at(self) -> float | None:
        """When the pool gives up if nothing changes: every usable endpoint unreachable, None otherwise."""
        usable = [e for e in self.endpoints if e.disabled is None]
        if not usable or any(e.unreachable_since is None for e in usable):
            return None
        if not self.ever_reached() and all(e.refused for e in usable):
            # Nothing ever replied and every endpoint refused: a wrong URL, a server not started. Retrying
            # only delays the news. (A timeout or a dropped connection is not that clear: the window applies.)
            return max(e.unreachable_since or 0.0 for e in usable)
        return max(e.unreachable_since or 0.0 for e in usable) + self.unreachable_timeout_s

    def dead_error(self) -> EndpointError | None:
        """The error every caller gets once no endpoint can take requests any more; None while one can."""
        if all(e.disabled for e in self.endpoints):
            return self._all_disabled_error()
        give_up_at = self._give_up_at()
        if give_up_at is None or time.monotonic() < give_up_at:
            return None
        down = [e for e in self.endpoints if e.disabled is None]
        reason = max(down, key=lambda e: e.unreachable_since or 0.0).silent_reason or "unreachable"
        if self.ever_reached() or not all(e.refused for e in down):
            return EndpointError(
                f"{', '.join(e.label for e in down)}: unreachable for {self.unreachable_timeout_s:g} s "
                f"(unreachable_timeout_s), stopping: {reason}"
            )
        return EndpointError(f"cannot reach {', '.join(e.label for e in down)}: {reason}")

    def raise_if_dead(self) -> None:
        error = self.dead_error()
        if error is not None:
            self._dispatch()  # hand the same news to every request waiting in line
            raise error

