"""The Anthropic Messages API backend against the test server's /v1/messages."""

from __future__ import annotations

import asyncio
import base64

import pytest

from mmgauge.backends.anthropic import API_VERSION, AnthropicBackend
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.spec import load_backend, parse_spec
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.server import Action, FakeOpenAIServer
from mmgauge.testing.toy import tiny_png

KEY = "sk-ant-test-0123456789"
FAST = BackendSettings(concurrency=4, timeout_s=2.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)


def ask(
    backend: AnthropicBackend, *messages: Message, config: GenerationConfig | None = None
) -> ModelResponse:
    async def go() -> ModelResponse:
        try:
            request = Request(messages=list(messages), config=config or GenerationConfig(max_tokens=7))
            return (await backend.generate([request]))[0]
        finally:
            await backend.aclose()

    return asyncio.run(go())


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> FakeOpenAIServer:
    monkeypatch.setenv("MMGAUGE_ANTHROPIC_KEY", KEY)
    server = FakeOpenAIServer(api_key=KEY, answer=lambda text: f"A:{text}")
    return server


def test_image_request_with_key_version_system_and_usage(keyed: FakeOpenAIServer) -> None:
    with keyed as server:
        backend = AnthropicBackend(server.root_url, "claude-test", api_key_env="MMGAUGE_ANTHROPIC_KEY",
                                   settings=FAST)
        config = GenerationConfig(max_tokens=7, system_prompt="be brief", temperature=0.0)
        response = ask(backend, Message.system("answer yes or no"),
                       Message.user("is it red?", [ImageRef(data=tiny_png(1))]), config=config)
        assert response.ok and response.text == "A:is it red?"
        assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (3, 1)
        assert server.last_path == "/v1/messages"
        headers = server.last_headers
        assert headers["x-api-key"] == KEY and headers["anthropic-version"] == API_VERSION
        assert "authorization" not in headers
        body = server.last_body
        assert body["model"] == "claude-test" and body["max_tokens"] == 7 and body["temperature"] == 0.0
        assert body["system"] == "be brief\n\nanswer yes or no" and "seed" not in body
        (message,) = body["messages"]
        image, text = message["content"]
        assert message["role"] == "user" and text == {"type": "text", "text": "is it red?"}
        assert image["type"] == "image" and image["source"]["type"] == "base64"
        assert image["source"]["media_type"] == "image/png"
        assert base64.b64decode(image["source"]["data"]) == tiny_png(1)
        assert server.images_seen == 1


def test_wrong_key_stops_the_run_without_showing_the_key(
    keyed: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MMGAUGE_ANTHROPIC_KEY", "sk-ant-wrong-key-42")
    with keyed as server:
        backend = AnthropicBackend(server.root_url, "m", api_key_env="MMGAUGE_ANTHROPIC_KEY", settings=FAST)
        with pytest.raises(EndpointError, match="HTTP 401") as caught:
            ask(backend, Message.user("q"))
        assert "sk-ant-wrong-key-42" not in str(caught.value)


@pytest.mark.parametrize("fault", ["529", "429", "500", "malformed", "close", "empty_choices"])
def test_transient_failures_are_retried(server: FakeOpenAIServer, fault: str) -> None:
    server.script(Action(fault, retry_after="0") if fault in ("429", "529") else Action(fault))
    backend = AnthropicBackend(server.root_url, "m", settings=FAST)
    as_if_answered(backend)
    response = ask(backend, Message.user("q"))
    assert response.ok and response.text == "yes" and server.requests == 2


def test_529_overloaded_halves_the_endpoint_limit(server: FakeOpenAIServer) -> None:
    server.script(Action("529"))
    backend = AnthropicBackend(server.root_url, "m", settings=FAST)
    as_if_answered(backend)
    assert ask(backend, Message.user("q")).ok
    assert backend.endpoint_stats()[0]["limit"] < FAST.concurrency


def test_url_forms_and_the_model_card(server: FakeOpenAIServer) -> None:
    for base in ("https://gw.example", "https://gw.example/", "https://gw.example/v1"):
        assert AnthropicBackend(base, "m").pool.endpoints[0].url == "https://gw.example/v1/messages"
    server.cards = [{"id": "claude-x-20250101", "alias": "claude-x-latest", "display_name": "Claude X",
                     "created_at": "2025-01-01T00:00:00Z"}]
    backend = AnthropicBackend(server.root_url, "claude-x-latest", settings=FAST)
    asyncio.run(backend.start())
    served = backend.describe()["served"][server.root_url]["served"]
    assert served == {"id": "claude-x-20250101", "created_at": "2025-01-01T00:00:00Z"}  # the alias resolved
    assert backend.fingerprint().startswith("anthropic:claude-x-latest@")
    assert backend.describe()["anthropic_version"] == API_VERSION


def test_spec_grammar_and_registry() -> None:
    spec, _ = parse_spec("anthropic:claude-3-5-sonnet-20241022")
    assert (spec.backend, spec.model, spec.base_url) == ("anthropic", "claude-3-5-sonnet-20241022",
                                                          "https://api.anthropic.com")
    spec, _ = parse_spec("anthropic:claude-3-5-sonnet@20240620")  # Vertex-style id with an @
    assert spec.model == "claude-3-5-sonnet@20240620" and spec.base_url == "https://api.anthropic.com"
    spec, _ = parse_spec("anthropic:m@http://a:1|http://b:2")
    assert spec.model == "m" and spec.options["base_urls"] == ["http://a:1", "http://b:2"]
    _, backend = load_backend("anthropic:m@http://gw:8080", concurrency=3)
    assert isinstance(backend, AnthropicBackend) and backend.concurrency == 3
    with pytest.raises(UserError, match="anthropic:MODEL"):
        parse_spec("anthropic:")


def test_openai_only_request_options_are_refused() -> None:
    from mmgauge.backends.request_options import RequestOptions

    with pytest.raises(UserError, match=r"request\.deployment"):
        AnthropicBackend("http://x", "m", request=RequestOptions(deployment="d"))
    with pytest.raises(UserError, match=r"request\.extra_body\.system"):
        AnthropicBackend("http://x", "m", request=RequestOptions(extra_body={"system": "x"}))
    options = RequestOptions(extra_body={"top_k": 5}, headers={"Anthropic-Version": "2099"})
    backend = AnthropicBackend("http://x", "m", request=options)
    assert backend.describe()["anthropic_version"] == "2099"
    assert [v for k, v in backend._headers().items() if k.lower() == "anthropic-version"] == ["2099"]
    body = backend.encode(Request(messages=[Message.user("q")], config=GenerationConfig()))
    assert b'"top_k":5' in bytes(body)
