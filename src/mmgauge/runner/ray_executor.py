"""Run a run's batches on a Ray cluster: one actor per worker, each building its own backend from the spec.

Actors, not Ray Data: a backend is expensive to build (an `hf` model loads its weights onto its GPU, an
endpoint client keeps a connection pool) and must live across thousands of batches, which is what an
actor is. Ray Data would want to own the pipeline (reading, batching, writing), but here the runner keeps
planning, caching and writing, so only `generate` moves; plain actors also let us decide exactly what
happens to a dead worker's batches instead of inheriting a pipeline's retry semantics.

Requests and responses cross Ray as JSON text (see `ray_worker` for the wire format and where images
must be readable), never as pickled objects of ours.

A worker that dies (process killed, node lost, out of memory, `ray.kill`) loses only the calls it held:
their batches go back to the queue and a replacement actor is started (at most `max_restarts` times).
Batches it finished earlier were already delivered. A batch whose worker died under it `max_attempts`
times is delivered as failed responses, which the runner logs and the next run retries, so one poisonous
batch cannot stop the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, ModelSpec
from mmgauge.core.version import __version__
from mmgauge.runner.executor import Deliver, Executor
from mmgauge.runner.ray_worker import CallReply, RayWorker, WorkerInfo, encode_call

RAY_HINT = "the ray executor needs Ray: pip install 'mmgauge[ray]'"


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError(RAY_HINT, field="--executor") from None
    return ray


class RayWorkersLost(UserError):
    """The cluster cannot keep any worker alive (or start one)."""


@dataclass
class _Slot:
    handle: Any
    started: float
    info_ref: Any | None
    info: WorkerInfo | None = None
    calls: int = 0
    #: Requests in the calls it holds now.
    requests: int = 0
    #: Its backend's concurrency in force at its last reply (None: fixed; then `requests` stands in).
    live: int | None = None
    #: Its backend's per-endpoint limits at its last reply (multi-endpoint backends only).
    endpoints: list[dict[str, Any]] | None = None
    alive: bool = True


@dataclass
class _Call:
    slot: _Slot
    numbers: list[int]
    requests: int


@dataclass(frozen=True)
class RayOptions:
    cpus_per_worker: float = 1.0
    #: 1 for an `hf` model per GPU; fractions share a GPU between workers.
    gpus_per_worker: float = 0.0
    #: Read image files on the driver and send them as base64 (nodes without the data on a shared disk).
    inline_images: bool = False
    #: Runner batches per actor call (None: a quarter of the backend's concurrency): fewer, larger calls
    #: cut Ray's per-call cost (~0.55 ms of driver time, bench/scale.py) for one-request batches (`openai`).
    batches_per_call: int | None = None
    #: Refuse workers whose backend fingerprint differs (other weights on a node would poison the cache).
    expected_fingerprint: str | None = None
    #: Replacement actors for dead ones over the executor's life (None: twice the workers).
    max_restarts: int | None = None
    #: Worker deaths a batch may suffer before it is delivered as failed (and retried by the next run).
    max_attempts: int = 3
    start_timeout_s: float = 300.0
    poll_s: float = 0.2


@dataclass
class RayStats:
    workers_started: int = 0
    workers_lost: int = 0
    batches_resubmitted: int = 0
    batches_given_up: int = 0
    calls: int = 0


#: How long a cluster address may take to accept a TCP connection before the run gives up on it.
CONNECT_TIMEOUT_S = 5.0


def check_reachable(address: str) -> None:
    """Fail fast on an address nothing listens on: ray.init itself retries for minutes without a timeout."""
    target = address.removeprefix("ray://")
    if target in ("auto", "local") or ":" not in target:
        return
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            return
    except ValueError:
        raise UserError(f"'{address}' is not HOST:PORT", field="--ray-address") from None
    except OSError as error:
        message = f"cannot reach the Ray cluster at {address}: {error}"
        raise UserError(message, field="--ray-address") from None


class RayExecutor(Executor):
    """Sends batches to idle Ray actors and delivers each call's batches as it completes (`ray.wait`)."""

    def __init__(
        self,
        spec: ModelSpec,
        settings: BackendSettings,
        *,
        address: str | None,
        workers: int,
        options: RayOptions | None = None,
    ) -> None:
        if workers < 1:
            raise UserError("needs at least one worker", field="--ray-workers")
        self._ray = import_ray()
        self.spec = spec
        self.settings = settings
        self.address = address
        self.workers = workers
        self.options = options or RayOptions()
        self.max_restarts = 2 * workers if self.options.max_restarts is None else self.options.max_restarts
        self.counters = RayStats()
        self._slots: list[_Slot] = []
        self._owns_ray = False
        self._actor_class: Any = None

    # -- lifecycle

    def _start(self) -> None:
        ray = self._ray
        if not ray.is_initialized():
            if self.address is not None:
                check_reachable(self.address)
                try:
                    ray.init(address=self.address, log_to_driver=False)
                except (ConnectionError, ValueError, RuntimeError) as error:
                    message = f"cannot join the Ray cluster at {self.address}: {error}".splitlines()[0]
                    raise UserError(message, field="--ray-address") from None
            else:
                # A local cluster sized to the workers: Ray would otherwise claim every core of the machine.
                ray.init(
                    num_cpus=max(1, math.ceil(self.workers * self.options.cpus_per_worker)),
                    include_dashboard=False,
                    log_to_driver=False,
                )
            self._owns_ray = True
        resources = ray.remote(num_cpus=self.options.cpus_per_worker, num_gpus=self.options.gpus_per_worker)
        self._actor_class = resources(RayWorker)
        for _ in range(self.workers):
            self._spawn()

    async def start(self) -> None:
        """Connect to (or start) the cluster and wait until every worker has built its backend."""
        if self._actor_class is not None:
            return
        began = time.monotonic()
        await asyncio.to_thread(self._start)
        while starting := [s.info_ref for s in self._slots if s.alive and s.info_ref is not None]:
            if time.monotonic() - began > self.options.start_timeout_s and self._ready():
                break  # go on with the workers that started; the rest join when the cluster has room
            for ref in await asyncio.to_thread(self._wait, starting):
                self._started(ref)
            self._check_start_timeout()
        if not self._ready():
            raise RayWorkersLost(f"no Ray worker could start; all {self.max_restarts} restarts used")

    def _spawn(self) -> None:
        handle = self._actor_class.remote(self.spec.model_dump_json(), self.settings.model_dump_json())
        self._slots.append(_Slot(handle, time.monotonic(), handle.info.remote()))
        self.counters.workers_started += 1

    def worker_pids(self) -> list[int]:
        """Process ids of the live, started workers (tests kill them)."""
        return [s.info.pid for s in self._slots if s.alive and s.info is not None]

    async def aclose(self) -> None:
        if self._actor_class is None:
            return
        await asyncio.to_thread(self._stop)

    def _stop(self) -> None:
        ray = self._ray
        live = [s for s in self._slots if s.alive and s.info is not None]
        # A worker dying while closing has nothing left to release.
        with contextlib.suppress(ray.exceptions.RayError):
            ray.wait([s.handle.close.remote() for s in live], num_returns=len(live), timeout=10)
        for slot in self._slots:
            if slot.alive:
                ray.kill(slot.handle)
                slot.alive = False
        self._slots.clear()
        self._actor_class = None
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def live_concurrency(self) -> int | None:
        """The sum over live workers of their backends' concurrency in force, as of each one's last reply.

        A backend with a fixed concurrency (live_concurrency() None) counts the requests sent to its worker.
        """
        live = [s for s in self._slots if s.alive and s.info is not None]
        return sum(s.requests if s.live is None else s.live for s in live)

    def endpoint_stats(self) -> list[dict[str, Any]]:
        """Per live worker with a multi-endpoint backend: its host, pid and endpoints at its last reply."""
        return [
            {"host": s.info.host, "pid": s.info.pid, "endpoints": s.endpoints}
            for s in self._slots
            if s.alive and s.info is not None and s.endpoints is not None
        ]

    def describe(self) -> dict[str, Any]:
        return {
            "executor": "ray",
            "workers": self.workers,
            "address": self.address,
            "cpus_per_worker": self.options.cpus_per_worker,
            "gpus_per_worker": self.options.gpus_per_worker,
            "inline_images": self.options.inline_images,
            "batches_per_call": self.options.batches_per_call,
            "max_restarts": self.max_restarts,
            "max_attempts": self.options.max_attempts,
        }

    def stats(self) -> dict[str, Any] | None:
        return asdict(self.counters)

    # -- running

    async def execute(self, batches: Sequence[Sequence[Request]], deliver: Deliver) -> None:
        if not batches:
            return
        await self.start()
        queue: deque[int] = deque(range(len(batches)))
        attempts = [0] * len(batches)
        calls: dict[Any, _Call] = {}
        remaining = len(batches)
        try:
            while remaining:
                self._fill(queue, calls, batches)
                starting = [s.info_ref for s in self._slots if s.alive and s.info_ref is not None]
                waiting = list(calls) + starting
                if not waiting:
                    raise RayWorkersLost(f"every Ray worker died; all {self.max_restarts} restarts used")
                for ref in await asyncio.to_thread(self._wait, waiting):
                    call = calls.pop(ref, None)
                    if call is None:
                        self._started(ref)
                        continue
                    remaining -= self._finish(ref, call, batches, queue, attempts, deliver)
                self._check_start_timeout()
        finally:
            # Cancelled or failed: the calls still running are abandoned; aclose() kills their workers.
            for call in calls.values():
                call.slot.calls -= 1
                call.slot.requests -= call.requests

    def _wait(self, refs: list[Any]) -> list[Any]:
        ready, rest = self._ray.wait(refs, num_returns=1, timeout=self.options.poll_s)
        if ready and rest:
            more, _ = self._ray.wait(rest, num_returns=len(rest), timeout=0)
            ready.extend(more)
        return list(ready)

    def _fill(self, queue: deque[int], calls: dict[Any, _Call], batches: Sequence[Sequence[Request]]) -> None:
        for slot in self._slots:
            if not slot.alive or slot.info is None:
                continue
            per_call = self.options.batches_per_call or max(1, slot.info.concurrency // 4)
            # Enough calls to keep the backend busy plus one queued on the worker to hide the round trip.
            capacity = math.ceil(slot.info.concurrency / per_call) + 1
            while queue and slot.calls < capacity:
                numbers = [queue.popleft() for _ in range(min(per_call, len(queue)))]
                payload = encode_call([batches[n] for n in numbers], inline_images=self.options.inline_images)
                call = _Call(slot, numbers, sum(len(batches[n]) for n in numbers))
                calls[slot.handle.generate.remote(payload)] = call
                slot.calls += 1
                slot.requests += call.requests
                self.counters.calls += 1

    def _finish(
        self,
        ref: Any,
        call: _Call,
        batches: Sequence[Sequence[Request]],
        queue: deque[int],
        attempts: list[int],
        deliver: Deliver,
    ) -> int:
        """Deliver a completed call's batches (or requeue them if its worker died); returns batches done."""
        ray = self._ray
        call.slot.calls -= 1
        call.slot.requests -= call.requests
        try:
            text = ray.get(ref)
        except ray.exceptions.RayTaskError:
            raise  # our actor catches everything: this is a bug, not a lost worker
        except ray.exceptions.RayError as error:
            self._lose(call.slot)
            given_up = 0
            for number in reversed(call.numbers):
                attempts[number] += 1
                if attempts[number] >= self.options.max_attempts:
                    reason = f"its Ray worker died {attempts[number]} times ({type(error).__name__})"
                    deliver(number, [ModelResponse(error=reason) for _ in batches[number]])
                    self.counters.batches_given_up += 1
                    given_up += 1
                else:
                    queue.appendleft(number)  # first in line: the oldest work finishes first
                    self.counters.batches_resubmitted += 1
            return given_up
        reply = CallReply.model_validate_json(text)
        call.slot.live, call.slot.endpoints = reply.live_concurrency, reply.endpoints
        if reply.error is not None:
            raise reply.error.exception()
        for number, responses in zip(call.numbers, reply.batches, strict=True):
            deliver(number, responses)
        return len(call.numbers)

    def _lose(self, slot: _Slot) -> None:
        if not slot.alive:
            return  # its other calls already reported the death
        slot.alive = False
        self.counters.workers_lost += 1
        # An unreachable worker must not come back with stale work; a dead one raises here, which is fine.
        with contextlib.suppress(Exception):
            self._ray.kill(slot.handle)
        if self.counters.workers_started - self.workers < self.max_restarts:
            self._spawn()

    def _started(self, ref: Any) -> None:
        slot = next(s for s in self._slots if s.info_ref is not None and s.info_ref == ref)
        slot.info_ref = None
        try:
            info = WorkerInfo.model_validate_json(self._ray.get(ref))
        except self._ray.exceptions.RayError:
            self._lose(slot)
            return
        if info.error is not None:
            raise info.error.exception()
        if info.version != __version__:
            raise UserError(
                f"the Ray worker on {info.host} runs mmgauge {info.version}, "
                f"the driver {__version__}",
                field="--ray-address",
            )
        expected = self.options.expected_fingerprint
        if expected is not None and info.fingerprint != expected:
            # The fingerprint is part of every cache key: a worker with other weights would poison the cache.
            raise UserError(
                f"the Ray worker on {info.host} has model '{info.fingerprint}', the driver "
                f"'{expected}' (different weights or files on that node?)",
                field="--model",
            )
        slot.info = info
        slot.live = info.live_concurrency

    def _ready(self) -> bool:
        return any(s.alive and s.info is not None for s in self._slots)

    def _check_start_timeout(self) -> None:
        if self._ready():
            return
        now = time.monotonic()
        starting = [s for s in self._slots if s.alive and s.info_ref is not None]
        if starting and all(now - s.started > self.options.start_timeout_s for s in starting):
            raise RayWorkersLost(
                f"no Ray worker started within {self.options.start_timeout_s:.0f} s: does the cluster have "
                f"{self.options.cpus_per_worker} CPU and {self.options.gpus_per_worker} GPU free per worker?",
                field="--ray-workers",
            )
