from __future__ import annotations

import asyncio
import time

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend, retry_after_seconds, to_openai_messages
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.server import Action, FakeOpenAIServer
from mmgauge.testing.toy import tiny_png

FAST = BackendSettings(concurrency=4, timeout_s=1.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)


def ask(backend: OpenAIBackend, text: str = "hello", images: list[ImageRef] | None = None) -> ModelResponse:
    request = Request(messages=[Message.user(text, images)], config=GenerationConfig(max_tokens=5))
    return asyncio.run(_one(backend, request))


async def _one(backend: OpenAIBackend, request: Request) -> ModelResponse:
    try:
        (response,) = await backend.generate([request])
        return response
    finally:
        await backend.aclose()


def test_normal_answer_with_image_as_data_url(server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(server.base_url, "m", settings=FAST)
    response = ask(backend, "is it red?", [ImageRef(data=tiny_png(1))])
    assert response.ok and response.text == "yes"
    assert response.usage.completion_tokens == 1
    assert server.images_seen == 1 and server.prompts["is it red?"] == 1


def test_messages_format() -> None:
    messages = [Message.user("q", [ImageRef(data=tiny_png(0))])]
    out = to_openai_messages(messages, "be brief")
    assert out[0] == {"role": "system", "content": "be brief"}
    assert out[1]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert out[1]["content"][1] == {"type": "text", "text": "q"}
    assert to_openai_messages([Message.user("plain")], None) == [{"role": "user", "content": "plain"}]


@pytest.mark.parametrize(
    "failure",
    [Action("429", retry_after="0"), Action("500"), Action("malformed"), Action("hang"), Action("close")],
    ids=["429", "500", "malformed", "timeout", "dropped-connection"],
)
def test_transient_failures_are_retried(server: FakeOpenAIServer, failure: Action) -> None:
    server.script(Action("ok"), failure, failure)
    backend = OpenAIBackend(server.base_url, "m", settings=FAST)
    assert ask(backend).ok  # first request succeeds, so the endpoint is known to be alive
    backend = OpenAIBackend(server.base_url, "m", settings=FAST)
    as_if_answered(backend)
    response = ask(backend)
    assert response.ok and response.text == "yes"
    assert server.requests == 4


def test_retry_after_is_honoured(server: FakeOpenAIServer) -> None:
    server.script(Action("429", retry_after="0.3"))
    backend = OpenAIBackend(server.base_url, "m", settings=BackendSettings(backoff_base_s=0.0, max_retries=2))
    started = time.perf_counter()
    assert ask(backend).ok
    assert time.perf_counter() - started >= 0.3
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("2") == 2.0


def test_exhausted_retries_give_an_error_response_not_text(server: FakeOpenAIServer) -> None:
    server.default = Action("500")
    backend = OpenAIBackend(server.base_url, "m", settings=FAST)
    as_if_answered(backend)
    response = ask(backend)
    assert not response.ok and response.text is None and "HTTP 500" in (response.error or "")
    assert server.requests == FAST.max_retries + 1


def test_endpoint_down_names_the_url() -> None:
    backend = OpenAIBackend("http://127.0.0.1:9/v1", "m", settings=FAST)
    with pytest.raises(EndpointError, match=r"127\.0\.0\.1:9/v1"):
        ask(backend)


def test_wrong_model_or_credentials_stop_the_run(server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(server.base_url.replace("/v1", "/v2"), "m", settings=FAST)
    with pytest.raises(EndpointError, match="HTTP 404"):
        ask(backend)


def test_api_key_read_from_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMGAUGE_TEST_KEY", "sk-secret")
    backend = OpenAIBackend("http://x/v1", "m", api_key_env="MMGAUGE_TEST_KEY")
    assert backend._headers()["Authorization"] == "Bearer sk-secret"
    assert "sk-secret" not in repr(backend.describe())
    monkeypatch.delenv("MMGAUGE_TEST_KEY")
    with pytest.raises(UserError, match="MMGAUGE_TEST_KEY"):
        backend._headers()
