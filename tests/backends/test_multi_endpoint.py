"""The openai backend over several endpoints: spreading, adaptive limits, failover, throughput."""

from __future__ import annotations

import asyncio
import io
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from rich.console import Console

from mmgauge.backends._endpoints import EndpointPool
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.cli.progress import RichProgress
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, Message, ModelResponse, ModelSpec
from mmgauge.runner.executor import LocalExecutor
from mmgauge.testing.server import Action, FakeOpenAIServer

FAST = BackendSettings(concurrency=8, timeout_s=2.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.5)


@pytest.fixture
def servers() -> Iterator[list[FakeOpenAIServer]]:
    running = [FakeOpenAIServer(latency_s=0.01).start() for _ in range(3)]
    yield running
    stop_all(running)


def stop_all(servers: list[FakeOpenAIServer]) -> None:
    # Each shutdown waits for its serve loop's next poll (up to 0.5 s): wait for them side by side.
    threads = [threading.Thread(target=s.stop) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def dead_url() -> str:
    # A port that was free a moment ago: connecting to it is refused.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run(backend: OpenAIBackend, count: int, *, close: bool = True) -> list[ModelResponse]:
    """`count` requests through the runner's executor, which keeps `backend.concurrency` in flight."""
    batches = [[Request(messages=[Message.user(f"q{i}")], config=GenerationConfig(max_tokens=2))]
               for i in range(count)]
    answers: dict[int, ModelResponse] = {}

    def deliver(number: int, responses: list[ModelResponse]) -> None:
        answers[number] = responses[0]

    async def go() -> None:
        try:
            await LocalExecutor(backend).execute(batches, deliver)
        finally:
            if close:
                await backend.aclose()

    asyncio.run(go())
    return [answers[i] for i in range(count)]


def test_load_spreads_over_all_endpoints(servers: list[FakeOpenAIServer]) -> None:
    backend = OpenAIBackend([s.base_url for s in servers], "m", settings=FAST)
    assert backend.concurrency == 3 * FAST.concurrency  # the adaptive limits hold the runner back
    responses = run(backend, 120)
    assert all(r.ok for r in responses)
    counts = [s.completed for s in servers]
    assert sum(counts) == 120 and min(counts) >= 20, counts
    # The endpoints are part of the model's identity (a new server under the old name is not the old model).
    assert backend.fingerprint().startswith("openai:m@")
    assert backend.describe()["base_urls"] == [s.base_url for s in servers]


def test_spec_with_several_urls_builds_one_backend_over_all(servers: list[FakeOpenAIServer]) -> None:
    from mmgauge.backends.spec import load_backend

    urls = "|".join(s.base_url for s in servers[:2])
    _, backend = load_backend(f"openai:m@{urls}", concurrency=3)
    assert isinstance(backend, OpenAIBackend)
    assert backend.base_urls == [servers[0].base_url, servers[1].base_url] and backend.concurrency == 6
    # The order endpoints are listed in does not change the identity; which endpoints they are does.
    assert backend.fingerprint() == OpenAIBackend(backend.base_urls[::-1], "m").fingerprint()
    assert backend.fingerprint() != OpenAIBackend(servers[2].base_url, "m").fingerprint()
    with pytest.raises(UserError, match="base_urls"):
        OpenAIBackend.from_spec(ModelSpec(backend="openai", model="m", options={"base_urls": "x"}), FAST)
    with pytest.raises(UserError, match="unknown openai option"):
        OpenAIBackend.from_spec(ModelSpec(backend="openai", model="m", base_url="http://a/v1",
                                          options={"replicas": 2}), FAST)


def test_429_with_retry_after_cuts_pauses_and_recovers(servers: list[FakeOpenAIServer]) -> None:
    limited, healthy = servers[0], servers[1]
    limited.script(*[Action("ok")] * 12, *[Action("429", retry_after="0.3")] * 3)
    backend = OpenAIBackend([limited.base_url, healthy.base_url], "m", settings=FAST)
    seen: list[tuple[float, bool]] = []

    async def watch() -> None:
        while True:
            stats = backend.endpoint_stats()[0]
            seen.append((stats["limit"], stats["open"]))
            await asyncio.sleep(0.002)

    async def go() -> list[ModelResponse]:
        watcher = asyncio.create_task(watch())
        try:
            return [
                r for batch in await asyncio.gather(*(
                    backend.generate([Request(messages=[Message.user(f"q{i}")], config=GenerationConfig())])
                    for i in range(150)
                ))
                for r in batch
            ]
        finally:
            watcher.cancel()
            await backend.aclose()

    responses = asyncio.run(go())
    assert all(r.ok for r in responses)  # the rate-limited requests were answered elsewhere or later
    assert any(not is_open for _, is_open in seen), "Retry-After did not pause the endpoint"
    peak = max(limit for limit, _ in seen[: next(i for i, (_, o) in enumerate(seen) if not o)])
    assert min(limit for limit, _ in seen) < peak  # cut on the 429s
    assert limited.completed < healthy.completed  # less traffic while it pushed back
    # Healthy again: the limit grows back to the ceiling.
    run(backend, 150)
    stats = backend.endpoint_stats()[0]
    assert stats["limit"] == FAST.concurrency and stats["open"]


def test_endpoint_down_others_answer_everything(servers: list[FakeOpenAIServer]) -> None:
    down = dead_url()
    backend = OpenAIBackend([down, servers[0].base_url], "m", settings=FAST)
    responses = run(backend, 60)  # no EndpointError although the first endpoint never answers
    assert all(r.ok for r in responses)
    assert servers[0].completed == 60
    stats = backend.endpoint_stats()
    assert stats[0]["answered"] == 0 and stats[0]["failed"] >= 1 and stats[1]["answered"] == 60


def test_all_endpoints_down_names_every_url() -> None:
    urls = [dead_url(), dead_url()]
    backend = OpenAIBackend(urls, "m", settings=FAST)
    with pytest.raises(EndpointError) as caught:
        run(backend, 3)
    assert all(url.split("//")[1] in str(caught.value) for url in urls)


def test_wrong_path_on_one_endpoint_is_disabled_not_fatal(servers: list[FakeOpenAIServer]) -> None:
    wrong = servers[0].base_url.replace("/v1", "/v2")
    backend = OpenAIBackend([wrong, servers[1].base_url], "m", settings=FAST)
    assert all(r.ok for r in run(backend, 20))
    stats = backend.endpoint_stats()[0]
    assert not stats["open"] and "HTTP 404" in str(stats["state"])
    both_wrong = OpenAIBackend([wrong, servers[1].base_url.replace("/v1", "/v2")], "m", settings=FAST)
    with pytest.raises(EndpointError, match="HTTP 404"):
        run(both_wrong, 5)


def test_live_concurrency_reported_in_progress(servers: list[FakeOpenAIServer]) -> None:
    backend = OpenAIBackend([s.base_url for s in servers[:2]], "m", settings=FAST)
    # Both endpoints start at their ceiling.
    assert backend.live_concurrency() == 2 * FAST.concurrency
    assert LocalExecutor(backend).live_concurrency() == backend.live_concurrency()
    run(backend, 80, close=False)
    assert backend.live_concurrency() == 2 * FAST.concurrency  # grown to the ceilings while healthy
    asyncio.run(backend.aclose())
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False)
    progress = RichProgress(console, extra=backend.live_concurrency)
    progress.start(2, "toy")
    progress.advance()
    progress.advance()
    progress.finish()
    assert f"concurrency {2 * FAST.concurrency}" in out.getvalue()


def test_two_endpoints_are_each_filled_to_the_concurrency_at_once() -> None:
    """Twice the endpoints, twice the requests in flight: each replica gets its own `concurrency` (what
    doubles the throughput of a latency-bound run) and about half the requests."""
    settings = BackendSettings(concurrency=8, timeout_s=5.0)
    for replicas in (1, 2):
        servers = [FakeOpenAIServer(latency_s=0.1).start() for _ in range(replicas)]
        try:
            backend = OpenAIBackend([s.base_url for s in servers], "m", settings=settings)
            assert all(r.ok for r in run(backend, 96))
        finally:
            stop_all(servers)
        assert [s.most_in_flight for s in servers] == [8] * replicas
        assert sum(s.completed for s in servers) == 96
        assert all(s.completed >= 96 / replicas / 2 for s in servers), [s.completed for s in servers]


# -- the pool on its own: the limiter rule, without a network ---------------------------------------------


def pool(ceiling: int = 8, urls: int = 1) -> EndpointPool:
    return EndpointPool([f"http://e{i}" for i in range(urls)], ceiling=ceiling, backoff_base_s=0.05,
                        backoff_max_s=1.0)


def test_limit_starts_at_the_ceiling_then_additive_growth_and_one_cut_per_round_trip() -> None:
    p = pool(ceiling=16)
    (e,) = p.endpoints
    assert e.limit == 16  # a server that copes is never held back; one that does not says so
    for _ in range(8):
        p.succeeded(e)
    assert e.limit == 16  # never above the ceiling
    sent = time.monotonic()
    p.failed(e, "overload", sent_at=sent, retry_after=None, reason="HTTP 429")
    p.failed(e, "overload", sent_at=sent, retry_after=None, reason="HTTP 429")
    assert e.limit == 8  # the second failure was already in flight when the first cut happened
    p.failed(e, "overload", sent_at=time.monotonic(), retry_after=None, reason="timed out")
    assert e.limit == 4
    for _ in range(5):
        p.succeeded(e)
    assert e.cap == 5 and e.limit < 5.2  # after a cut: +1/limit per success, i.e. +1 per round trip
    for _ in range(200):
        p.succeeded(e)
    assert e.limit == 16
    for _ in range(10):
        p.failed(e, "overload", sent_at=time.monotonic(), retry_after=None, reason="x")
    assert e.limit == 1 and e.cap == 1


def test_pool_picks_least_loaded_relative_to_limit_and_queues_fairly() -> None:
    async def go() -> None:
        p = pool(ceiling=8, urls=2)
        a, b = p.endpoints
        a.limit, b.limit = 2.0, 4.0
        picks = [await p.acquire() for _ in range(6)]
        assert picks.count(a) == 2 and picks.count(b) == 4 and a.in_flight == 2 and b.in_flight == 4
        waiting = asyncio.ensure_future(p.acquire())
        await asyncio.sleep(0)
        assert not waiting.done()
        p.release(a)
        assert await waiting is a
        # A request that failed on `a` waits for `b` rather than going back to `a`.
        avoid = asyncio.ensure_future(p.acquire(frozenset({a})))
        p.release(a)
        await asyncio.sleep(0)
        assert not avoid.done()
        p.release(b)
        assert await avoid is b
        # A cancelled waiter leaves no slot behind.
        cancelled = asyncio.ensure_future(p.acquire(frozenset({a})))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        assert a.in_flight + b.in_flight == 5

    asyncio.run(go())


def test_retry_after_pauses_the_endpoint_until_then() -> None:
    async def go() -> None:
        p = pool(ceiling=4, urls=1)
        (e,) = p.endpoints
        p.failed(e, "overload", sent_at=time.monotonic(), retry_after=0.2, reason="HTTP 429")
        assert p.live_concurrency() == 0 and not p.snapshot()[0]["open"]
        started = time.monotonic()
        assert await p.acquire() is e
        assert time.monotonic() - started >= 0.19

    asyncio.run(go())


def test_dead_endpoint_cools_down_then_is_probed_with_one_request() -> None:
    async def go() -> None:
        p = pool(ceiling=8, urls=2)
        dead, alive = p.endpoints
        first, second = await p.acquire(), await p.acquire()
        assert first is dead and second is alive
        sent = time.monotonic()
        for _ in range(3):  # a burst of requests that were all on their way: one cooldown, not three
            p.failed(dead, "connect", sent_at=sent, retry_after=None, reason="refused")
        assert dead.connect_failures == 1
        p.release(dead)
        p.release(alive)
        assert dead.cap == 1 and not p.snapshot()[0]["open"] and "down" in str(p.snapshot()[0]["state"])
        assert {await p.acquire() for _ in range(2)} == {alive}  # skipped while cooling down
        await asyncio.sleep(0.06)
        assert await p.acquire() is dead  # probed again, one request at a time
        assert dead.in_flight == 1 and not dead.has_room(time.monotonic())

    asyncio.run(go())
