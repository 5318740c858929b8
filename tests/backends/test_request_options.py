"""A model config's `request` section (issue 13): extra_body, headers, max_completion_tokens, Azure."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.backends.request_options import RequestOptions
from mmgauge.backends.spec import load_backend
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.testing.server import FakeOpenAIServer

FAST = BackendSettings(concurrency=2, timeout_s=2.0, max_retries=1, backoff_base_s=0.01, backoff_max_s=0.05)


def ask(backend: OpenAIBackend) -> ModelResponse:
    async def go() -> ModelResponse:
        try:
            await backend.start()
            request = Request(messages=[Message.user("q")], config=GenerationConfig(max_tokens=9, seed=3))
            return (await backend.generate([request]))[0]
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_extra_body_headers_and_max_completion_tokens_reach_the_server(server: FakeOpenAIServer) -> None:
    options = RequestOptions(
        extra_body={"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}},
        headers={"X-Tenant": "eval"},
        max_completion_tokens=True,
    )
    response = ask(OpenAIBackend(server.base_url, "m", settings=FAST, request=options))
    assert response.ok
    body = server.last_body
    assert body["top_k"] == 20 and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["max_completion_tokens"] == 9 and "max_tokens" not in body and body["seed"] == 3
    assert server.last_headers["x-tenant"] == "eval"
    assert server.last_path == "/v1/chat/completions"


def test_azure_deployment_and_api_version(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMGAUGE_AZURE_KEY", "azure-key-0123456789")
    options = RequestOptions(deployment="gpt-4o eval", api_version="2024-10-21")
    backend = OpenAIBackend(server.root_url, "gpt-4o", api_key_env="MMGAUGE_AZURE_KEY", settings=FAST,
                            request=options)
    assert ask(backend).ok
    assert server.last_path == "/openai/deployments/gpt-4o%20eval/chat/completions?api-version=2024-10-21"
    assert server.last_headers["api-key"] == "azure-key-0123456789"
    assert "authorization" not in server.last_headers
    assert server.models_requests == 0  # Azure's model listing does not show deployments: not asked
    assert backend.describe()["request"] == {"api_version": "2024-10-21", "deployment": "gpt-4o eval"}
    # api_version alone: the usual path with the query.
    plain = OpenAIBackend(server.base_url, "m", settings=FAST, request=RequestOptions(api_version="v1"))
    assert ask(plain).ok and server.last_path == "/v1/chat/completions?api-version=v1"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"extra_bdy": {}}, r"field 'request\.extra_bdy': unknown request option 'extra_bdy'"),
        ({"headers": {"Content-Type": "text/plain"}}, r"request\.headers.*set by mmgauge"),
        ({"extra_body": {"x": float("nan")}}, r"request\.extra_body.*plain JSON"),
        ({"max_completion_tokens": "sometimes"}, r"request\.max_completion_tokens"),
        ([1, 2], r"field 'request': must be a mapping"),
    ],
)
def test_bad_request_sections_name_the_key(raw: object, message: str) -> None:
    with pytest.raises(UserError, match=message):
        RequestOptions.parse(raw, file="model.yaml")


@pytest.mark.parametrize("key", ["messages", "model", "stream", "temperature", "max_tokens", "seed"])
def test_extra_body_cannot_set_what_mmgauge_or_a_flag_owns(key: str) -> None:
    with pytest.raises(UserError, match=rf"request\.extra_body\.{key}"):
        OpenAIBackend("http://x/v1", "m", request=RequestOptions(extra_body={key: 1}))


def test_a_config_file_request_section_builds_the_backend(tmp_path: Path, server: FakeOpenAIServer) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(
        f"backend: openai\nmodel: m\nbase_url: {server.base_url}\n"
        "request:\n  extra_body: {top_k: 5}\n  headers: {X-Tenant: a, X-Auth-Token: secret-value-123}\n"
        "  api_version: 2024-10-21\n"  # unquoted: YAML reads a date, the option keeps the text
        "settings:\n  cache_namespace: run-7\n  accept_empty: true\n"
    )
    spec, backend = load_backend(str(path))
    assert isinstance(backend, OpenAIBackend)
    assert backend.options.api_version == "2024-10-21" and backend.options.extra_body == {"top_k": 5}
    assert backend.settings.cache_namespace == "run-7" and backend.settings.accept_empty
    described = json.dumps(backend.describe())
    assert "secret-value-123" not in described and "X-Auth-Token" in described
    assert spec.options["request"]["headers"]["X-Auth-Token"] == "secret-value-123"  # requests need it
    assert ask(backend).ok and server.last_headers["x-auth-token"] == "secret-value-123"
