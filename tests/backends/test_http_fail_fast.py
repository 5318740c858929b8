"""Unreachable endpoints end the run with one EndpointError, quickly, at any concurrency; nothing hangs."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.errors import EndpointError
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.runner.executor import LocalExecutor
from mmgauge.testing.server import Action, FakeOpenAIServer

#: The defaults a user gets: the fail-fast rule must not depend on short test timings.
DEFAULTS = BackendSettings()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run(backend: OpenAIBackend, count: int, delivered: dict[int, ModelResponse] | None = None) -> float:
    """Send `count` requests through the runner's executor; returns the seconds it took (or raises)."""
    batches = [[Request(messages=[Message.user(f"q{i}")], config=GenerationConfig(max_tokens=2))]
               for i in range(count)]
    seen = delivered if delivered is not None else {}

    async def go() -> None:
        try:
            await LocalExecutor(backend).execute(batches, lambda n, r: seen.__setitem__(n, r[0]))
        finally:
            await backend.aclose()

    started = time.monotonic()
    asyncio.run(go())
    return time.monotonic() - started


@pytest.mark.parametrize("concurrency", [1, 16])
def test_closed_port_raises_endpoint_error_naming_the_url(concurrency: int) -> None:
    url = closed_port_url()
    backend = OpenAIBackend(url, "m", settings=DEFAULTS.model_copy(update={"concurrency": concurrency}))
    started = time.monotonic()
    with pytest.raises(EndpointError) as caught:
        run(backend, 64)
    message = str(caught.value)
    assert url in message and "cannot reach" in message and "\n" not in message
    # Loose: the old behaviour took over 30 minutes at concurrency 16 (every queued request probing the
    # dead port through a growing cooldown); anything near the defaults' backoff would also fail this.
    assert time.monotonic() - started < 10
    assert backend.requests_sent <= concurrency  # no request was retried against a port that refused


def test_unresolvable_name_and_tls_failure_fail_fast(server: FakeOpenAIServer) -> None:
    # A name under .invalid never resolves (RFC 6761); https to a plain-HTTP server fails the handshake.
    for url in ("http://no-such-host.invalid/v1", server.base_url.replace("http://", "https://")):
        backend = OpenAIBackend(url, "m", settings=DEFAULTS.model_copy(update={"concurrency": 16}))
        started = time.monotonic()
        with pytest.raises(EndpointError, match="cannot reach"):
            run(backend, 32)
        assert time.monotonic() - started < 10
    assert server.requests == 0


def test_a_server_killed_mid_run_stops_the_run_after_the_unreachable_timeout() -> None:
    settings = BackendSettings(
        concurrency=8, timeout_s=5, max_retries=50, backoff_base_s=0.01, backoff_max_s=0.2,
        unreachable_timeout_s=0.5,
    )
    server = FakeOpenAIServer(latency_s=0.01).start()
    backend = OpenAIBackend(server.base_url, "m", settings=settings)
    delivered: dict[int, ModelResponse] = {}
    killer_armed = True

    def kill_after_some() -> None:
        nonlocal killer_armed
        if killer_armed and server.completed >= 40:
            killer_armed = False
            server.kill()

    original = backend.pool.succeeded

    def succeeded(endpoint: object) -> None:
        original(endpoint)  # type: ignore[arg-type]
        kill_after_some()

    backend.pool.succeeded = succeeded  # type: ignore[method-assign]
    started = time.monotonic()
    with pytest.raises(EndpointError, match=r"unreachable for 0\.5 s") as caught:
        run(backend, 400, delivered)
    assert server.base_url in str(caught.value)
    # Everything answered before the crash was delivered; nothing after it was made up.
    answered = [r for r in delivered.values() if r.ok]
    assert 40 <= len(answered) <= server.completed
    # Stopped within the bounded time, not after 50 retries per request (50 x 400 probes).
    assert time.monotonic() - started < 10
    assert backend.requests_sent < server.completed + 8 * 10


def test_one_dead_endpoint_of_two_is_not_a_reason_to_stop(server: FakeOpenAIServer) -> None:
    # A cooldown of seconds: the dead endpoint is still down when the stats are read, on any machine.
    settings = DEFAULTS.model_copy(update={"concurrency": 4, "backoff_base_s": 5.0, "backoff_max_s": 10.0})
    backend = OpenAIBackend([closed_port_url(), server.base_url], "m", settings=settings)
    delivered: dict[int, ModelResponse] = {}
    run(backend, 40, delivered)
    assert len(delivered) == 40 and all(r.ok for r in delivered.values())
    dead, alive = backend.endpoint_stats()
    assert dead["answered"] == 0 and not dead["open"] and "down" in str(dead["state"])
    assert alive["answered"] == 40


def test_endpoint_that_comes_back_within_the_window_is_used_again() -> None:
    # The pool gives up only after every endpoint stayed unreachable for the whole window.
    from mmgauge.backends._endpoints import EndpointPool

    async def go() -> None:
        pool = EndpointPool(["http://a", "http://b"], ceiling=2, backoff_base_s=0.01, backoff_max_s=0.05,
                            unreachable_timeout_s=0.3)
        a, b = pool.endpoints
        pool.succeeded(a)  # something answered once: from now on, the window applies
        now = time.monotonic()
        pool.failed(a, "connect", sent_at=now, retry_after=None, reason="refused")
        assert pool.dead_error() is None  # b was never unreachable
        pool.failed(b, "connect", sent_at=now, retry_after=None, reason="refused")
        assert pool.dead_error() is None  # both down, but not for 0.3 s yet
        await asyncio.sleep(0.1)
        pool.succeeded(b)  # b is back
        await asyncio.sleep(0.3)
        assert pool.dead_error() is None
        down_again = time.monotonic()
        pool.failed(b, "connect", sent_at=down_again, retry_after=None, reason="refused")
        # Both down again: probes go out after each cooldown until the window has passed.
        probes = 0
        with pytest.raises(EndpointError, match=r"http://a, http://b: unreachable for 0\.3 s"):
            while True:
                endpoint = await asyncio.wait_for(pool.acquire(), 5)
                probes += 1
                pool.failed(endpoint, "connect", sent_at=time.monotonic(), retry_after=None, reason="refused")
                pool.release(endpoint)
        assert probes >= 2 and time.monotonic() - down_again >= 0.3

    asyncio.run(go())


def test_a_server_that_hangs_mid_run_stops_the_run_after_the_unreachable_timeout() -> None:
    # Accepts connections and never answers (a wedged engine): timeouts with nothing heard in between.
    settings = BackendSettings(concurrency=4, timeout_s=0.3, max_retries=50, backoff_base_s=0.01,
                               backoff_max_s=0.05, unreachable_timeout_s=1.0)
    with FakeOpenAIServer() as server:
        server.script(*[Action("ok")] * 20)
        server.default = Action("hang")
        backend = OpenAIBackend(server.base_url, "m", settings=settings)
        delivered: dict[int, ModelResponse] = {}
        started = time.monotonic()
        with pytest.raises(EndpointError, match=r"unreachable for 1 s.*timed out after 0\.3 s"):
            run(backend, 200, delivered)
        assert len([r for r in delivered.values() if r.ok]) == 20
        assert time.monotonic() - started < 10  # not 200 requests x 51 tries x 0.3 s


def test_timeouts_or_drops_before_any_answer_get_the_window_not_an_instant_stop() -> None:
    # A hung request and a dropped connection while the server is still warming up are no reason to give up
    # (only refused connections before any answer are).
    settings = BackendSettings(concurrency=2, timeout_s=0.3, max_retries=3, backoff_base_s=0.01,
                               backoff_max_s=0.05, unreachable_timeout_s=5.0)
    with FakeOpenAIServer() as server:
        server.script(Action("hang"), Action("close"))
        backend = OpenAIBackend(server.base_url, "m", settings=settings)
        delivered: dict[int, ModelResponse] = {}
        run(backend, 6, delivered)
        assert len(delivered) == 6 and all(r.ok for r in delivered.values())
        assert server.requests == 8
