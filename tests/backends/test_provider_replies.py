"""Replies built with the providers' own SDK types (openai, anthropic, google-genai), read by the backends:
every stop reason the SDK declares is an answer, an answer marked cut, or the request's own error; refusals
and content filters are the request's own error at once, never retried as a malformed reply. And a request
body checked by the one SDK whose types refuse unknown fields (google-genai)."""

from __future__ import annotations

import asyncio
import json
import typing
from typing import Any

import pytest

from mmgauge.backends.anthropic import AnthropicBackend
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.gemini import GeminiBackend
from mmgauge.backends.http import HTTPBackend, ReplyError
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.testing.endpoints import as_if_answered
from mmgauge.testing.server import Action, FakeOpenAIServer

openai_chat = pytest.importorskip("openai.types.chat")
anthropic_types = pytest.importorskip("anthropic.types")
genai_types = pytest.importorskip("google.genai.types")

FAST = BackendSettings(concurrency=2, timeout_s=2.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.02)


def openai_reply(finish: str, content: str | None = "B", refusal: str | None = None) -> dict[str, Any]:
    message = openai_chat.ChatCompletionMessage(role="assistant", content=content, refusal=refusal)
    choice = openai_chat.chat_completion.Choice(index=0, finish_reason=finish, message=message)
    usage = {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}
    reply = openai_chat.ChatCompletion(id="chatcmpl-1", object="chat.completion", created=0, model="gpt-x",
                                       choices=[choice], usage=usage)
    return dict(reply.model_dump(mode="json"))


def anthropic_reply(stop: str, blocks: list[Any] | None = None, details: Any = None) -> dict[str, Any]:
    reply = anthropic_types.Message(
        id="msg_1", type="message", role="assistant", model="claude-x", stop_reason=stop,
        stop_details=details,
        content=[anthropic_types.TextBlock(type="text", text="B")] if blocks is None else blocks,
        usage=anthropic_types.Usage(input_tokens=12, output_tokens=1))
    return dict(reply.model_dump(mode="json"))


def gemini_reply(finish: str | None, text: str = "B", blocked: str | None = None) -> dict[str, Any]:
    if blocked is not None:
        feedback = genai_types.GenerateContentResponsePromptFeedback(block_reason=blocked)
        reply = genai_types.GenerateContentResponse(candidates=[], prompt_feedback=feedback)
    else:
        content = genai_types.Content(role="model", parts=[
            genai_types.Part(text="Let me think.", thought=True), genai_types.Part(text=text)])
        reply = genai_types.GenerateContentResponse(
            candidates=[genai_types.Candidate(content=content, finish_reason=finish)],
            usage_metadata=genai_types.GenerateContentResponseUsageMetadata(prompt_token_count=12,
                                                                            candidates_token_count=1))
    # As the API writes it: camelCase names, nothing unset.
    return dict(reply.model_dump(mode="json", by_alias=True, exclude_none=True))


def served(backend: HTTPBackend, server: FakeOpenAIServer, body: dict[str, Any]) -> ModelResponse:
    server.default = Action("body", body=body)
    as_if_answered(backend)

    async def go() -> ModelResponse:
        try:
            request = Request(messages=[Message.user("q")], config=GenerationConfig(max_tokens=4))
            return (await backend.generate([request]))[0]
        finally:
            await backend.aclose()

    return asyncio.run(go())


def read(backend: HTTPBackend, body: dict[str, Any]) -> tuple[str | None, bool, str | None]:
    """(text, cut, None) for an answer, (None, False, code) for a permanent error; a retried error fails."""
    try:
        reply = backend.parse_reply(body)
    except ReplyError as error:
        assert error.permanent, f"{error} would be retried as a malformed reply"
        return None, False, error.code
    return reply.text, reply.truncated, None


def test_an_openai_refusal_is_the_requests_own_error_at_once(server: FakeOpenAIServer) -> None:
    body = openai_reply("stop", content=None, refusal="I can't help with that request.")
    response = served(OpenAIBackend(server.base_url, "gpt-x", settings=FAST), server, body)
    assert server.requests == 1  # not retried: the same refusal on every try
    assert response.error == "the model refused: I can't help with that request."
    assert response.error_code == "refusal" and response.error_permanent


def test_an_anthropic_refusal_names_its_category_and_is_not_retried(server: FakeOpenAIServer) -> None:
    details = anthropic_types.RefusalStopDetails(type="refusal", category="cyber",
                                                 explanation="The request could enable cyber harm.")
    body = anthropic_reply("refusal", blocks=[], details=details)
    backend = AnthropicBackend(server.root_url, "claude-x", settings=FAST)
    response = served(backend, server, body)
    assert server.requests == 1
    assert response.error == ("the model refused (stop_reason refusal, category cyber): The request could "
                              "enable cyber harm.")
    assert response.error_code == "stop_reason refusal" and response.error_permanent


@pytest.mark.parametrize("finish", typing.get_args(
    openai_chat.chat_completion.Choice.model_fields["finish_reason"].annotation))
def test_every_openai_finish_reason_is_an_answer_a_cut_answer_or_a_refusal(finish: str) -> None:
    expected = {"length": ("B", True, None), "content_filter": (None, False, "finish_reason content_filter")}
    assert read(OpenAIBackend("http://x/v1", "gpt-x"), openai_reply(finish)) == expected.get(
        finish, ("B", False, None))


@pytest.mark.parametrize("stop", typing.get_args(anthropic_types.StopReason))
def test_every_anthropic_stop_reason_is_an_answer_a_cut_answer_or_a_refusal(stop: str) -> None:
    expected = {"max_tokens": ("B", True, None), "model_context_window_exceeded": ("B", True, None),
                "refusal": (None, False, "stop_reason refusal")}
    assert read(AnthropicBackend("http://x", "claude-x"), anthropic_reply(stop)) == expected.get(
        stop, ("B", False, None))


def test_an_anthropic_answer_after_a_thinking_block_is_the_text_alone() -> None:
    blocks = [anthropic_types.ThinkingBlock(type="thinking", thinking="The sign says B.", signature="sig"),
              anthropic_types.TextBlock(type="text", text="B")]
    assert read(AnthropicBackend("http://x", "claude-x"), anthropic_reply("end_turn", blocks)) == ("B", False,
                                                                                                  None)


@pytest.mark.parametrize("finish", [reason.value for reason in genai_types.FinishReason])
def test_every_gemini_finish_reason_is_an_answer_a_cut_answer_or_a_block(finish: str) -> None:
    text, cut, code = read(GeminiBackend("http://x", "gemini-x"), gemini_reply(finish))
    if finish in ("STOP", "FINISH_REASON_UNSPECIFIED"):
        assert (text, cut, code) == ("B", False, None)  # the thought summary is not the answer
    elif finish == "MAX_TOKENS":
        assert (text, cut, code) == ("B", True, None)
    else:
        assert (text, code) == (None, f"finishReason {finish}")


@pytest.mark.parametrize("reason", [reason.value for reason in genai_types.BlockedReason])
def test_every_gemini_prompt_block_is_the_requests_own_error(reason: str) -> None:
    assert read(GeminiBackend("http://x", "gemini-x"), gemini_reply(None, blocked=reason)) == (
        None, False, f"blockReason {reason}")


def test_a_gemini_reply_reads_usage_by_the_apis_own_field_names() -> None:
    reply = GeminiBackend("http://x", "gemini-x").parse_reply(gemini_reply("STOP"))
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 1)


def test_a_gemini_request_body_is_what_the_sdks_strict_types_accept() -> None:
    """google-genai's models refuse unknown fields: the parts, generation config and system instruction
    mmgauge writes all validate, names and values, with a thinking budget added through extra_body."""
    from mmgauge.backends.request_options import RequestOptions
    from mmgauge.core.types import ImageRef
    from mmgauge.testing.toy import tiny_png

    options = RequestOptions(extra_body={"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}})
    backend = GeminiBackend("http://x", "gemini-x", request=options)
    config = GenerationConfig(max_tokens=7, temperature=0.5, top_p=0.9, seed=3, system_prompt="be brief")
    request = Request(messages=[Message.user("is it red?", [ImageRef(data=tiny_png(1))])], config=config)
    body = json.loads(bytes(backend.encode(request)))
    assert set(body) == {"contents", "generationConfig", "systemInstruction"}
    (content,) = [genai_types.Content.model_validate(item) for item in body["contents"]]
    assert content.parts is not None and content.parts[0].inline_data is not None
    assert content.parts[0].inline_data.mime_type == "image/png" and content.parts[1].text == "is it red?"
    generation = genai_types.GenerationConfig.model_validate(body["generationConfig"])
    assert (generation.max_output_tokens, generation.temperature, generation.top_p, generation.seed) == (
        7, 0.5, 0.9, 3)
    assert generation.thinking_config is not None and generation.thinking_config.thinking_budget == 0
    system = genai_types.Content.model_validate(body["systemInstruction"])
    assert system.parts is not None and system.parts[0].text == "be brief"
