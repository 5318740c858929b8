"""Error replies are read as the servers write them, before anything is shortened: the code and type stay,
only a long message is cut."""

from __future__ import annotations

import json

import pytest

from mmgauge.backends._http_io import error_reply
from mmgauge.testing.faults import (
    CONTEXT_LENGTH_400,
    LITELLM_CONNECTION_500,
    LITELLM_CONTEXT_400,
    LITELLM_UNKNOWN_MODEL_400,
    LLAMA_CPP_500,
)


@pytest.mark.parametrize(
    ("status", "body", "line", "label"),
    [
        (400, CONTEXT_LENGTH_400, "HTTP 400 [context_length_exceeded, invalid_request_error]: This model's",
         "HTTP 400 context_length_exceeded"),
        (500, LLAMA_CPP_500, "HTTP 500 [internal_server_error]: can only concatenate str",
         "HTTP 500 internal_server_error"),
        (400, {"object": "error", "message": "bad image", "type": "BadRequestError", "code": 400},
         "HTTP 400 [BadRequestError]: bad image", "HTTP 400 BadRequestError"),  # vLLM before 0.10
        (400, {"error": {"message": "bad image", "type": "BadRequestError", "param": None, "code": 400}},
         "HTTP 400 [BadRequestError]: bad image", "HTTP 400 BadRequestError"),  # vLLM 0.33
        (400, {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too big"}},
         "HTTP 400 [invalid_request_error]: max_tokens", "HTTP 400 invalid_request_error"),  # Anthropic
        (400, {"error": {"code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}},
         "HTTP 400 [INVALID_ARGUMENT]: API key not valid", "HTTP 400 INVALID_ARGUMENT"),  # Google (Gemini)
        (422, {"detail": "Field required"}, "HTTP 422: Field required", "HTTP 422"),  # FastAPI
        (502, "<html>Bad Gateway</html>", "HTTP 502: <html>Bad Gateway</html>", "HTTP 502"),
        # LiteLLM's proxy: its code the status again, as a string; the upstream's words behind its wrapping.
        (500, LITELLM_CONNECTION_500, "HTTP 500 [internal_server_error]: (via LiteLLM) Connection error.",
         "HTTP 500 internal_server_error"),
        (400, LITELLM_CONTEXT_400, "HTTP 400 [context_length_exceeded, invalid_request_error]: (via LiteLLM) "
         "This model's maximum context length", "HTTP 400 context_length_exceeded"),
        (400, LITELLM_UNKNOWN_MODEL_400, "HTTP 400 [invalid_request_error]: /chat/completions: Invalid model",
         "HTTP 400 invalid_request_error"),
    ],
)
def test_error_bodies_are_read_as_each_server_writes_them(status: int, body: object, line: str,
                                                          label: str) -> None:
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    text, code = error_reply(status, raw)
    assert text.startswith(line) and code == label


def test_a_long_message_is_cut_but_its_code_kept() -> None:
    error = {"message": "x" * 5000, "type": "invalid_request_error", "code": "context_length_exceeded"}
    body = {"error": error}
    text, _ = error_reply(400, json.dumps(body).encode())
    assert "context_length_exceeded" in text and len(text) < 300 and text.endswith("...")


def test_vllms_own_error_responses_are_read_by_kind() -> None:
    """The bodies the installed vLLM's OpenAI server makes of its own exceptions (skipped without vLLM)."""
    pytest.importorskip("vllm")
    handling = pytest.importorskip("vllm.entrypoints.serve.exception_handling.error_response")
    from vllm.exceptions import VLLMValidationError

    refused = handling.create_error_response(VLLMValidationError("too many images", parameter="messages"))
    text, code = error_reply(400, refused.model_dump_json().encode())
    assert code == "HTTP 400 BadRequestError"
    assert text == "HTTP 400 [BadRequestError]: too many images (parameter=messages)"
    broken = handling.create_error_response(RuntimeError("CUDA error: an illegal memory access"))
    status = broken.error.code
    text, code = error_reply(status, broken.model_dump_json().encode())
    assert status == 500 and code == "HTTP 500 InternalServerError" and "illegal memory access" in text
