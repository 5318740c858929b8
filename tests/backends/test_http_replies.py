"""Anything odd in one reply is that request's problem: an error on it (retried, never an answer), or,
for bookkeeping fields like usage, ignored. Bodies are capped; Retry-After is honoured within reason."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from mmgauge.backends._http_io import retry_after_seconds
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.http import ReplyError
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.server import Action, FakeOpenAIServer

FAST = BackendSettings(concurrency=4, timeout_s=2.0, max_retries=2, backoff_base_s=0.01, backoff_max_s=0.05)


def ask(backend: OpenAIBackend, *texts: str) -> list[ModelResponse]:
    async def go() -> list[ModelResponse]:
        try:
            batches = await asyncio.gather(*(
                backend.generate([Request(messages=[Message.user(t)], config=GenerationConfig(max_tokens=4))])
                for t in texts
            ))
            return [r for batch in batches for r in batch]
        finally:
            await backend.aclose()

    return asyncio.run(go())


def warmed(server: FakeOpenAIServer, settings: BackendSettings = FAST) -> OpenAIBackend:
    backend = OpenAIBackend(server.base_url, "m", settings=settings)
    as_if_answered(backend)  # the endpoint has answered before: failures are per request
    return backend


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        ("empty_choices", "no choices"),
        ("null_content", "the answer is null"),
        ("malformed", "not JSON"),
        ("close", "connection failed"),
    ],
)
def test_a_broken_reply_is_an_error_on_that_request_and_is_retried(
    server: FakeOpenAIServer, fault: str, error: str
) -> None:
    server.default = Action(fault)
    (failed,) = ask(warmed(server), "q")
    assert not failed.ok and failed.text is None and error in (failed.error or "")
    assert server.requests == FAST.max_retries + 1
    server.default = Action("ok")
    server.script(Action(fault))
    (answered,) = ask(warmed(server), "q")  # one broken reply, then a good one
    assert answered.ok and answered.text == "yes"


def test_odd_usage_is_ignored_and_the_answer_kept(server: FakeOpenAIServer) -> None:
    server.default = Action("bad_usage")
    responses = ask(warmed(server), "odd", "even")  # usage "lots", then strings and floats as counts
    assert [r.text for r in responses] == ["yes", "yes"]
    assert all(r.usage.prompt_tokens is None and r.usage.completion_tokens is None for r in responses)
    assert server.requests == 2


def test_empty_answers_count_only_when_accepted(server: FakeOpenAIServer) -> None:
    server.answer = lambda text: ""
    (refused,) = ask(warmed(server), "q")
    assert not refused.ok and "empty" in (refused.error or "") and "accept_empty" in (refused.error or "")
    server.default = Action("null_content")
    (accepted,) = ask(warmed(server, FAST.model_copy(update={"accept_empty": True})), "q")
    assert accepted.ok and accepted.text == ""


def test_reply_parser_rejects_what_holds_no_answer() -> None:
    backend = OpenAIBackend("http://x/v1", "m")
    odd: list[Any] = [[], "text", {"choices": "x"}, {"choices": [1]}, {"choices": [{"message": "hi"}]},
                      {"choices": [{"message": {"content": {"a": 1}}}]}]
    for data in odd:
        with pytest.raises(ReplyError):
            backend.parse_reply(data)
    text_parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    parts = {"choices": [{"message": {"content": text_parts}}]}
    assert backend.parse_reply(parts).text == "ab"


@pytest.mark.parametrize("fault", ["big", "gzip_bomb"])
def test_bodies_over_the_cap_are_errors_not_memory(server: FakeOpenAIServer, fault: str) -> None:
    server.default = Action(fault)
    settings = FAST.model_copy(update={"max_response_bytes": 1024 * 1024})
    (response,) = ask(warmed(server, settings), "q")
    assert not response.ok and "larger than 1048576 bytes" in (response.error or "")
    assert server.requests == 1  # the same oversized body would come again: not retried


def test_compressed_replies_within_the_cap_are_read(server: FakeOpenAIServer) -> None:
    server.bomb_bytes = 1000  # a small gzip body: not a bomb, but zeros are no JSON
    server.script(Action("gzip_bomb"))
    (response,) = ask(warmed(server), "q")
    assert response.ok and server.requests == 2  # the gzip body was inflated, found not JSON, retried


@pytest.mark.parametrize(
    "value",
    ["inf", "nan", "-5", "soon", "1e9", "Fri, 31 Dec 9999 23:59:59 GMT", "Wed, 99 Oct 2015 07:28:00 GMT", ""],
)
def test_nonsense_retry_after_is_ignored(value: str) -> None:
    assert retry_after_seconds(value) is None


def test_retry_after_values() -> None:
    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: now
    soon = retry_after_seconds("Thu, 01 Jan 1970 00:01:40 GMT", now=40.0)
    assert soon == pytest.approx(60.0)


def test_a_long_retry_after_is_capped_at_backoff_max(server: FakeOpenAIServer) -> None:
    server.script(Action("429", retry_after="3600"))
    settings = FAST.model_copy(update={"backoff_max_s": 0.2})
    started = time.monotonic()
    (response,) = ask(warmed(server, settings), "q")
    assert response.ok and server.requests == 2
    assert 0.2 <= time.monotonic() - started < 5  # waited the cap, not an hour


def test_retry_after_on_one_endpoint_does_not_stall_the_other() -> None:
    with FakeOpenAIServer() as limited, FakeOpenAIServer() as healthy:
        limited.default = Action("429", retry_after="30")
        settings = BackendSettings(concurrency=4, timeout_s=5, max_retries=3, backoff_max_s=30)
        backend = OpenAIBackend([limited.base_url, healthy.base_url], "m", settings=settings)
        as_if_answered(backend)
        started = time.monotonic()
        responses = ask(backend, *[f"q{i}" for i in range(20)])
        assert all(r.ok for r in responses)
        # The limited endpoint's 30 s pause kept requests away from it; they went to the healthy one at once.
        assert time.monotonic() - started < 10
        assert limited.requests <= 4 and healthy.completed == 20
