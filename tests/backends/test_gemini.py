"""The Gemini backend against the local fake Gemini API: the request it sends, the replies it reads (answers,
cut answers, safety blocks, blocked prompts, empty candidates, Google's errors) and its model card."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.gemini import DEFAULT_URL, GeminiBackend
from mmgauge.backends.request_options import RequestOptions
from mmgauge.backends.spec import load_backend, parse_spec
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.gemini_server import Action, FakeGeminiServer
from mmgauge.testing.toy import tiny_png

KEY = "AIzaSy-test-key-0123456789"
MODEL = "gemini-2.0-flash"
FAST = BackendSettings(concurrency=4, timeout_s=2.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGeminiServer]:
    monkeypatch.setenv("MMGAUGE_GEMINI_KEY", KEY)
    with FakeGeminiServer(api_key=KEY, answer=lambda text: f"A:{text}") as server:
        yield server


def backend(server: FakeGeminiServer, model: str = MODEL, **kwargs: object) -> GeminiBackend:
    made = GeminiBackend(server.root_url, model, api_key_env="MMGAUGE_GEMINI_KEY", settings=FAST,
                         **kwargs)  # type: ignore[arg-type]
    as_if_answered(made)
    return made


def ask(made: GeminiBackend, *messages: Message, config: GenerationConfig | None = None) -> ModelResponse:
    async def go() -> ModelResponse:
        try:
            request = Request(messages=list(messages), config=config or GenerationConfig(max_tokens=7))
            return (await made.generate([request]))[0]
        finally:
            await made.aclose()

    return asyncio.run(go())


def test_an_image_request_with_the_key_as_a_header_reads_text_and_usage(gemini: FakeGeminiServer) -> None:
    config = GenerationConfig(max_tokens=7, system_prompt="be brief", temperature=0.0, seed=3, top_p=0.5)
    response = ask(backend(gemini), Message.system("answer yes or no"),
                   Message.user("is it red?", [ImageRef(data=tiny_png(1))]), config=config)
    assert response.ok and response.text == "A:is it red?" and not response.truncated
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (3, 1)
    assert gemini.last_path == f"/v1beta/models/{MODEL}:generateContent"  # no ?key= in the URL
    assert gemini.last_headers["x-goog-api-key"] == KEY and "authorization" not in gemini.last_headers
    body = gemini.last_body
    assert body["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 7, "seed": 3, "topP": 0.5}
    assert body["systemInstruction"] == {"parts": [{"text": "be brief\n\nanswer yes or no"}]}
    (content,) = body["contents"]
    image, text = content["parts"]
    assert content["role"] == "user" and text == {"text": "is it red?"}
    assert image["inline_data"]["mime_type"] == "image/png"
    assert base64.b64decode(image["inline_data"]["data"]) == tiny_png(1)
    assert gemini.image_types == ["image/png"]


def test_assistant_turns_take_the_model_role_and_no_system_means_none_sent(gemini: FakeGeminiServer) -> None:
    assistant = Message(role="assistant", content=Message.user("B").content)
    assert ask(backend(gemini), Message.user("q1"), assistant, Message.user("q2")).text == "A:q2"
    assert [c["role"] for c in gemini.last_body["contents"]] == ["user", "model", "user"]
    assert "systemInstruction" not in gemini.last_body


def test_an_answer_cut_at_max_tokens_is_kept_and_marked_truncated(gemini: FakeGeminiServer) -> None:
    gemini.script(Action("length"))
    response = ask(backend(gemini), Message.user("q"))
    assert response.ok and response.text == "A:q" and response.truncated and gemini.requests == 1


@pytest.mark.parametrize(("kind", "code"), [
    ("safety", "finishReason SAFETY"),
    ("recitation", "finishReason RECITATION"),
    ("prompt_blocked", "blockReason SAFETY"),
])
def test_a_blocked_request_is_its_own_error_at_once(gemini: FakeGeminiServer, kind: str, code: str) -> None:
    gemini.default = Action(kind)
    response = ask(backend(gemini), Message.user("q"))
    assert not response.ok and response.text is None and response.error_permanent
    assert response.error_code == code and code.split()[1] in (response.error or "")
    assert gemini.requests == 1  # a re-send gets the same refusal


def test_empty_candidates_are_retried_and_stay_an_error_if_they_persist(gemini: FakeGeminiServer) -> None:
    gemini.script(Action("empty_candidates"))
    assert ask(backend(gemini), Message.user("q")).text == "A:q" and gemini.requests == 2
    gemini.default = Action("empty_candidates")
    response = ask(backend(gemini), Message.user("q"))
    assert not response.ok and not response.error_permanent and "no candidates" in (response.error or "")


def test_googles_json_error_is_read_and_not_retried(gemini: FakeGeminiServer) -> None:
    gemini.default = Action("400")
    response = ask(backend(gemini), Message.user("q"))
    assert response.error == "HTTP 400 [INVALID_ARGUMENT]: fault 400"
    assert response.error_code == "HTTP 400 INVALID_ARGUMENT" and response.error_permanent
    assert gemini.requests == 1


def test_429_with_retry_after_is_retried_and_slows_the_endpoint(gemini: FakeGeminiServer) -> None:
    gemini.script(Action("429", retry_after="0"), Action("503", retry_after="0"))
    made = backend(gemini)
    assert ask(made, Message.user("q")).text == "A:q" and gemini.requests == 3
    assert made.endpoint_stats()[0]["limit"] < FAST.concurrency


def test_a_wrong_key_is_refused_without_showing_it(gemini: FakeGeminiServer,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMGAUGE_GEMINI_KEY", "AIzaSy-wrong-key-42")
    response = ask(backend(gemini), Message.user("q"))
    error = response.error or ""
    assert response.error_code == "HTTP 400 INVALID_ARGUMENT" and "API key not valid" in error
    assert "AIzaSy-wrong-key-42" not in error


def test_no_key_at_all_stops_the_run(gemini: FakeGeminiServer) -> None:
    made = GeminiBackend(gemini.root_url, MODEL, settings=FAST)
    with pytest.raises(EndpointError, match="HTTP 403"):
        ask(made, Message.user("q"))


def test_the_model_card_enters_the_fingerprint(gemini: FakeGeminiServer) -> None:
    first = backend(gemini)
    asyncio.run(first.start())
    served = first.describe()["served"][gemini.root_url]["served"]
    assert served == {"id": f"models/{MODEL}", "version": "2.0"}  # stable fields only
    assert first.notices() == [] and first.fingerprint().startswith(f"gemini:{MODEL}@")
    gemini.models[MODEL] = "2.1"
    second = backend(gemini)
    asyncio.run(second.start())
    assert second.fingerprint() != first.fingerprint()


def test_a_model_the_api_does_not_know_is_a_notice(gemini: FakeGeminiServer) -> None:
    made = backend(gemini, "gemini-9")
    asyncio.run(made.start())
    (notice,) = made.notices()
    assert gemini.root_url in notice and "does not know model 'gemini-9'" in notice
    assert made.describe()["notices"] == [notice]


def test_url_and_model_forms() -> None:
    for base in ("https://gw.example", "https://gw.example/", "https://gw.example/v1beta"):
        url = GeminiBackend(base, MODEL).pool.endpoints[0].url
        assert url == f"https://gw.example/v1beta/models/{MODEL}:generateContent"
    tuned = GeminiBackend("https://gw.example", "tunedModels/my-tune")
    assert tuned.pool.endpoints[0].url == "https://gw.example/v1beta/tunedModels/my-tune:generateContent"
    assert tuned.model_card_url("https://gw.example") == "https://gw.example/v1beta/tunedModels/my-tune"


def test_spec_grammar_and_registry() -> None:
    spec, _ = parse_spec(f"gemini:{MODEL}")
    assert (spec.backend, spec.model, spec.base_url) == ("gemini", MODEL, DEFAULT_URL)
    spec, _ = parse_spec("gemini:m@http://a:1|http://b:2")
    assert spec.model == "m" and spec.options["base_urls"] == ["http://a:1", "http://b:2"]
    _, made = load_backend("gemini:m@http://gw:8080", concurrency=3)
    assert isinstance(made, GeminiBackend) and made.concurrency == 3
    with pytest.raises(UserError, match=r"gemini:MODEL\[@URL\]"):
        parse_spec("gemini:")


def test_extra_body_adds_to_generation_config_but_not_what_flags_set(gemini: FakeGeminiServer) -> None:
    thinking = {"thinkingConfig": {"thinkingBudget": 0}}
    options = RequestOptions(extra_body={"generationConfig": thinking, "safetySettings": []})
    made = backend(gemini, request=options)
    assert ask(made, Message.user("q")).ok
    config = gemini.last_body["generationConfig"]
    assert config["thinkingConfig"] == {"thinkingBudget": 0} and config["maxOutputTokens"] == 7
    assert gemini.last_body["safetySettings"] == []
    plain = backend(gemini)
    assert made.describe()["generation_config"] == thinking and made.fingerprint() != plain.fingerprint()
    for given, field in [({"generationConfig": {"temperature": 1}}, "generationConfig.temperature"),
                         ({"generationConfig": "hot"}, "generationConfig"), ({"contents": []}, "contents")]:
        with pytest.raises(UserError) as refused:
            GeminiBackend("http://x", "m", request=RequestOptions(extra_body=given))
        assert refused.value.field == f"request.extra_body.{field}"
