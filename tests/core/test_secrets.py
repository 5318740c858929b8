"""API keys never come back out: not in errors, exceptions, descriptions or fingerprints."""

from __future__ import annotations

import asyncio
import json

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core import secrets
from mmgauge.core.errors import EndpointError
from mmgauge.core.types import GenerationConfig, Message, ModelResponse, ModelSpec
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.server import Action, FakeOpenAIServer

KEY = "sk-test-0123456789abcdef"
FAST = BackendSettings(concurrency=2, timeout_s=2.0, max_retries=1, backoff_base_s=0.01, backoff_max_s=0.05)


def test_redact_covers_escaped_and_bare_forms() -> None:
    text = f'key {KEY} json "{json.dumps("a/b+c")[1:-1]}" url a%2Fb%2Bc bearer-less {KEY}'
    out = secrets.redact(text, [KEY, "a/b+c"])
    assert KEY not in out and "a%2Fb%2Bc" not in out and out.count(secrets.REDACTED) == 4
    assert secrets.redact(f"sent {KEY}", [f"Bearer {KEY}"]) == f"sent {secrets.REDACTED}"
    assert secrets.redact("nothing here", ["", KEY]) == "nothing here"


def test_secret_names() -> None:
    for name in ("Authorization", "x-api-key", "api-key", "X-Auth-Token", "client_secret", "Cookie"):
        assert secrets.looks_secret(name), name
    for name in ("X-Tenant", "anthropic-version", "Accept"):
        assert not secrets.looks_secret(name), name


def test_remembered_secrets_are_scrubbed_from_any_text() -> None:
    secrets.remember("short")  # too short to scrub safely from arbitrary text
    secrets.remember("tok-remembered-42")
    assert secrets.scrub("a tok-remembered-42 b short") == f"a {secrets.REDACTED} b short"


def ask(backend: OpenAIBackend) -> ModelResponse:
    async def go() -> ModelResponse:
        try:
            request = Request(messages=[Message.user("q")], config=GenerationConfig(max_tokens=2))
            return (await backend.generate([request]))[0]
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_a_key_echoed_by_the_server_never_reaches_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMGAUGE_TEST_KEY", KEY)
    with FakeOpenAIServer(api_key="the-right-key") as server:
        # Before anything answered: the refusal stops the run, and its message is one safe line.
        backend = OpenAIBackend(server.base_url, "m", api_key_env="MMGAUGE_TEST_KEY", settings=FAST)
        with pytest.raises(EndpointError) as caught:
            ask(backend)
        assert "HTTP 401" in str(caught.value) and KEY not in str(caught.value)
        assert secrets.REDACTED in str(caught.value)  # the server did echo it
        assert all(KEY not in str(s) for s in backend.endpoint_stats())
        # After answers: a 401 on one request is that request's error, redacted as well.
        server.api_key = None
        backend = OpenAIBackend(server.base_url, "m", api_key_env="MMGAUGE_TEST_KEY", settings=FAST)
        as_if_answered(backend)
        server.script(Action("401"))
        failed = ask(backend)
        assert failed.error is not None and "HTTP 401" in failed.error and KEY not in failed.error
        assert KEY not in failed.model_dump_json()
        assert KEY not in json.dumps(backend.describe()) and KEY not in backend.fingerprint()


def test_secret_request_headers_are_named_never_written(monkeypatch: pytest.MonkeyPatch) -> None:
    options = RequestOptions(headers={"X-Api-Key": KEY, "Authorization": f"Bearer {KEY}", "X-Tenant": "eval"})
    backend = OpenAIBackend("http://x/v1", "m", request=options)
    described = json.dumps(backend.describe())
    assert KEY not in described and KEY not in backend.fingerprint()
    assert backend.describe()["request"]["headers"] == {
        "X-Api-Key": secrets.REDACTED, "Authorization": secrets.REDACTED, "X-Tenant": "eval",
    }
    # The manifest's copy of the spec drops them too.
    spec = ModelSpec(backend="openai", model="m", base_url="http://x/v1",
                     options={"request": options.model_dump(exclude_defaults=True)})
    public = secrets.public_spec(spec)
    assert KEY not in public.model_dump_json() and public.options["request"]["headers"]["X-Tenant"] == "eval"
    assert spec.options["request"]["headers"]["X-Api-Key"] == KEY  # the original still carries it


def test_a_password_in_a_url_is_a_secret_too() -> None:
    backend = OpenAIBackend("http://eval:pa55-word-1234@127.0.0.1:9/v1", "m", settings=FAST)
    with pytest.raises(EndpointError) as caught:
        ask(backend)
    shown = [str(caught.value), json.dumps(backend.describe()), json.dumps(backend.endpoint_stats())]
    assert all("pa55-word-1234" not in text for text in shown)
    assert "http://eval:<redacted>@127.0.0.1:9/v1" in str(caught.value)
