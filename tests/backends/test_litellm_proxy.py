"""LiteLLM's proxy in front of the model, its real replies (litellm 1.108.7) played by the shipped test
server, through `mmgauge run`: an upstream failure the proxy relays in the same words every time is retried
and left for a re-run, the upstream's own message and code are read from behind the proxy's wrapping, the
upstream's Retry-After is honoured, and a model name the proxy does not route stops the run at once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from mmgauge.testing.faults import (
    LITELLM_CONNECTION_500,
    LITELLM_CONTEXT_400,
    LITELLM_UNKNOWN_MODEL_400,
    LLAMA_CPP_500,
    Action,
)
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data


def _relayed(exception: str, upstream: str, status: int) -> dict[str, Any]:
    """LiteLLM's body for an upstream failure it relays (as it wrote them for a 502 and a llama.cpp 500)."""
    message = (f"litellm.{exception}: {exception}: OpenAIException - {upstream}\n\nLiteLLM: model group "
               "'gw-model' failed with the error above and no fallback model group was found for it.")
    error = {"message": message, "type": "internal_server_error", "param": None, "code": str(status)}
    return {"error": error}


def _model(tmp_path: Path, url: str, backoff_max_s: float = 0.02) -> Path:
    path = tmp_path / "model.yaml"
    settings = f"settings:\n  backoff_base_s: 0.01\n  backoff_max_s: {backoff_max_s}\n  max_retries: 2\n"
    path.write_text(f'spec: "openai:gw-model@{url}"\n{settings}')
    return path


def _run(cli: Any, tmp_path: Path, questions: int, *actions: Action, flags: tuple[str, ...] = (),
         backoff_max_s: float = 0.02) -> tuple[Any, int]:
    """`mmgauge run` of `questions` toy questions against the test server answering `actions` in turn (the
    last one for every request after them): the command's result and the requests the server got."""
    data = write_toy_data(tmp_path / "data", questions)
    with FakeOpenAIServer() as server:
        server.script(*actions[:-1])
        server.default = actions[-1]
        done = cli("run", "--model", _model(tmp_path, server.base_url, backoff_max_s), "--bench", "toy",
                   "--data", data, "--out", tmp_path / "run", "--no-cache", *flags)
        return done, server.requests


def _errors(out: Path) -> list[dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text().splitlines()
    return [json.loads(line)["response"] for line in lines]


@pytest.mark.parametrize(("status", "body", "said"), [
    (500, LITELLM_CONNECTION_500, "HTTP 500 [internal_server_error]: (via LiteLLM) Connection error."),
    (502, _relayed("BadGatewayError", "Error code: 502", 502),
     "HTTP 502 [internal_server_error]: (via LiteLLM) Error code: 502"),
    (500, _relayed("InternalServerError", "Error code: 500", 500),
     "HTTP 500 [internal_server_error]: (via LiteLLM) Error code: 500"),
])
def test_an_upstream_failure_relayed_in_the_same_words_every_time_is_retried_and_left_for_a_rerun(
    cli: Any, toy: None, tmp_path: Path, status: int, body: dict[str, Any], said: str
) -> None:
    done, sent = _run(cli, tmp_path, 3, Action("body", body=body, status=status))
    assert done.code == 1
    assert sent == 3 * 3  # a try and both retries each: the proxy's words are not the request's fault
    for response in _errors(tmp_path / "run"):
        assert response["error"] == said and response["error_permanent"] is False
    assert "Run the same command again to retry only the failed ones (3 may succeed)" in done.out


def test_a_failure_of_the_request_itself_relayed_by_the_proxy_is_still_not_retried_again_and_again(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    body = _relayed("InternalServerError", LLAMA_CPP_500["error"]["message"], 500)  # type: ignore[index]
    done, sent = _run(cli, tmp_path, 3, Action("body", body=body, status=500))
    assert done.code == 1 and sent == 2 * 3
    for response in _errors(tmp_path / "run"):
        assert response["error_permanent"] is True
        assert response["error"].startswith("HTTP 500 [internal_server_error]: (via LiteLLM) can only "
                                            "concatenate")


def test_the_relayed_context_length_error_keeps_the_upstreams_code_and_words(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    done, sent = _run(cli, tmp_path, 2, Action("body", body=LITELLM_CONTEXT_400, status=400))
    assert done.code == 1 and sent == 2  # the request's own error: never retried
    assert "2 x HTTP 400 context_length_exceeded" in done.out
    for response in _errors(tmp_path / "run"):
        assert response["error_code"] == "HTTP 400 context_length_exceeded"
        assert response["error"].startswith("HTTP 400 [context_length_exceeded, invalid_request_error]: (via "
                                            "LiteLLM) This model's maximum context length is 4096 tokens.")
        assert "fallback" not in response["error"] and "model=" not in response["error"]


def test_a_model_name_the_proxy_does_not_route_stops_the_run_with_one_line(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    done, sent = _run(cli, tmp_path, 20, Action("body", body=LITELLM_UNKNOWN_MODEL_400, status=400),
                      flags=("--concurrency", "2"))
    assert done.code == 2
    assert "Invalid model name passed in model=gw-nosuch" in done.error_line()
    assert sent <= 2


def test_the_upstreams_retry_after_relayed_by_the_proxy_is_honoured(cli: Any, toy: None,
                                                                   tmp_path: Path) -> None:
    message = "litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429"
    throttled = {"error": {"message": message, "type": "throttling_error", "param": None, "code": "429"}}
    relayed = (("llm_provider-retry-after", "1"),)  # the proxy sends no Retry-After of its own
    started = time.monotonic()
    done, sent = _run(cli, tmp_path, 1, Action("body", body=throttled, status=429, headers=relayed),
                      Action("ok"), backoff_max_s=5)
    took = time.monotonic() - started
    assert done.code == 0 and sent == 2
    assert took >= 1.0  # the backoff alone would have retried within 0.01 s


def _fallback_answer(text: str) -> Action:
    """An answer from the proxy's fallback model, as LiteLLM marks one (a header; `model` names the other)."""
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    reply = {"id": "chatcmpl-1", "object": "chat.completion", "model": "other-model", "choices": [choice],
             "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}}
    return Action("body", body=reply, status=200, headers=(("x-litellm-attempted-fallbacks", "1"),))


def test_an_answer_from_the_proxys_fallback_model_is_never_scored_as_this_models(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    done, sent = _run(cli, tmp_path, 2, _fallback_answer("fallback says yes"))
    assert done.code == 1 and sent == 2 * 3  # retried: the model itself may answer a later try
    for response in _errors(tmp_path / "run"):
        assert response["text"] is None and response["error_permanent"] is False
        assert response["error"] == ("answered by a fallback model, not gw-model (the gateway's "
                                     "x-litellm-attempted-fallbacks)")


def test_the_models_own_answer_on_a_later_try_is_the_one_kept(cli: Any, toy: None, tmp_path: Path) -> None:
    done, sent = _run(cli, tmp_path, 1, _fallback_answer("fallback says yes"), Action("ok"))
    assert done.code == 0 and sent == 2
    [response] = _errors(tmp_path / "run")
    assert response["error"] is None and response["text"] != "fallback says yes"
