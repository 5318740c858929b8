"""Every fault the test server knows, at a fifth of all requests: nothing is lost, nothing wrong is answered,
no exception escapes, and re-sending just the failed requests eventually answers them all."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.runner.executor import LocalExecutor
from mmgauge.testing.server import FakeOpenAIServer, FaultSchedule

MATRIX = ("429", "500", "hang", "malformed", "close", "empty_choices", "null_content", "401")
REQUESTS = 200
SETTINGS = BackendSettings(
    concurrency=16, timeout_s=0.5, max_retries=2, backoff_base_s=0.01, backoff_max_s=0.05
)


def expected(text: str) -> str:
    return f"answer to {text}"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency_s=0.002, answer=expected) as running:
        yield running


def send(backend: OpenAIBackend, prompts: list[str]) -> dict[str, ModelResponse]:
    batches = [[Request(messages=[Message.user(p)], config=GenerationConfig(max_tokens=8))] for p in prompts]
    delivered: dict[int, ModelResponse] = {}

    def deliver(number: int, responses: list[ModelResponse]) -> None:
        assert number not in delivered  # each request delivered exactly once
        delivered[number] = responses[0]

    asyncio.run(LocalExecutor(backend).execute(batches, deliver))
    return {prompts[number]: response for number, response in delivered.items()}


def drive(server: FakeOpenAIServer, schedule: FaultSchedule) -> None:
    server.faults = schedule
    backend = OpenAIBackend(server.base_url, "m", settings=SETTINGS)
    prompts = [f"q{i:03d}" for i in range(REQUESTS)]
    answered: dict[str, str] = {}
    pending = prompts
    rounds = 0
    try:
        # The schedule's first request is clean and answered alone: the endpoint is known to accept the
        # credentials, so a later 401 is that request's error (before any answer it would mean a wrong key).
        assert send(backend, ["warm-up"])["warm-up"].ok
        while pending and rounds < 12:
            rounds += 1
            replies = send(backend, pending)
            assert sorted(replies) == sorted(pending)  # none lost
            for prompt, reply in replies.items():
                if reply.error is None:
                    assert reply.text == expected(prompt)  # answered texts are the fault-free answers
                    answered[prompt] = reply.text
                else:
                    assert reply.text is None and reply.error.strip()
            pending = [p for p in pending if p not in answered]
    finally:
        asyncio.run(backend.aclose())
    assert pending == [] and len(answered) == REQUESTS
    served = sum(count for kind, count in schedule.counts.items() if kind != "ok")
    assert served >= 0.1 * REQUESTS, schedule.counts
    assert server.requests >= REQUESTS + 1 + served  # every fault was followed by another try


@pytest.mark.parametrize("fault", MATRIX)
def test_one_fault_at_twenty_percent(server: FakeOpenAIServer, fault: str) -> None:
    drive(server, FaultSchedule({fault: 0.2}, seed=13, skip_first=1))


def test_all_faults_mixed(server: FakeOpenAIServer) -> None:
    drive(server, FaultSchedule({fault: 0.04 for fault in MATRIX}, seed=5, skip_first=1))


def test_the_schedule_is_seeded_and_counts() -> None:
    def draws(seed: int) -> list[str]:
        schedule = FaultSchedule({"500": 0.3, "close": 0.2}, seed=seed, skip_first=2)
        return [getattr(schedule.next(), "kind", "ok") for _ in range(200)]

    first = draws(1)
    assert first == draws(1) and first != draws(2)
    assert first[:2] == ["ok", "ok"]
    assert 40 < first.count("500") < 80 and 20 < first.count("close") < 60
    with pytest.raises(ValueError, match="unknown fault"):
        FaultSchedule({"teapot": 0.1})
    with pytest.raises(ValueError, match="add up to at most 1"):
        FaultSchedule({"500": 0.7, "close": 0.7})
