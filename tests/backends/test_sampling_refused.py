"""Models that refuse a parameter every request carries (sampling parameters: Anthropic's Claude 5 models and
API version 2026-10-21, OpenAI's reasoning models; `max_tokens`: OpenAI's reasoning models): the first
refusal stops the run with the way out; `request: {sampling: false}` sends no sampling parameters, with a
caveat on every display of the run's numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends._http_io import refuses_sampling
from mmgauge.testing.server import Action, FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data

#: Anthropic's 400 for a Claude 5 model asked with a temperature (on API version 2023-06-01).
DEPRECATED = {"type": "error", "error": {"type": "invalid_request_error",
                                         "message": "`temperature` is deprecated for this model."}}


def model_file(tmp_path: Path, spec: str, *, sampling: bool = True) -> Path:
    path = tmp_path / "model.yaml"
    request = "" if sampling else "request:\n  sampling: false\n"
    path.write_text(f'spec: "{spec}"\nsettings:\n  backoff_base_s: 0.01\n{request}')
    return path


@pytest.mark.parametrize(("message", "refused"), [
    ("`temperature` is deprecated for this model.", True),  # Anthropic, Claude 5 models
    ("temperature: Extra inputs are not permitted", True),  # Anthropic API version 2026-10-21
    ("Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is "
     "supported.", True),  # OpenAI reasoning models
    ("Unsupported parameter: 'top_p' is not supported with this model.", True),
    ("temperature: Input should be less than or equal to 1", False),  # a value out of range: that request's
    ("This model's maximum context length is 4096 tokens.", False),
])
def test_the_refusals_of_sampling_parameters_are_told_from_other_400s(message: str, refused: bool) -> None:
    assert refuses_sampling(message) is refused


def test_a_model_that_refuses_a_temperature_stops_the_run_at_once_with_the_way_out(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    data = write_toy_data(tmp_path / "data", 6)
    with FakeOpenAIServer() as server:
        server.default = Action("body", body=DEPRECATED, status=400)
        done = cli("run", "--model", model_file(tmp_path, f"anthropic:claude-x@{server.root_url}"), "--bench",
                   "toy", "--data", data, "--out", tmp_path / "run", "--no-cache", "--concurrency", "1")
        asked = server.requests
    assert done.code != 0 and asked == 1
    line = done.error_line()
    assert "claude-x refuses the sampling parameters mmgauge sends" in line
    assert "`temperature` is deprecated for this model." in line and "request: {sampling: false}" in line


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_sampling_false_sends_no_temperature_and_every_display_says_so(
    cli: Any, toy: None, tmp_path: Path, provider: str
) -> None:
    data = write_toy_data(tmp_path / "data", 4)
    with FakeOpenAIServer() as server:
        url = server.root_url if provider == "anthropic" else server.base_url
        model = model_file(tmp_path, f"{provider}:m@{url}", sampling=False)
        done = cli("run", "--model", model, "--bench", "toy", "--data", data, "--out", tmp_path / "run",
                   "--no-cache")
        body = server.last_body
    assert done.code == 0, done.out
    assert "temperature" not in body and "top_p" not in body and body["max_tokens"] == 512
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["backend"]["request"] == {"sampling": False}
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert any("no temperature or top_p was sent" in note for note in results["notes"])
    assert results["labels"] == ["own sampling"]  # not "baseline": that tag is the embedded model's
    assert "no temperature or top_p was sent" in " ".join(done.out.split())


def test_sampling_false_leaves_top_p_out_too_and_keeps_everything_else() -> None:
    from mmgauge.backends.anthropic import AnthropicBackend
    from mmgauge.backends.base import Request
    from mmgauge.backends.openai import OpenAIBackend
    from mmgauge.backends.request_options import RequestOptions
    from mmgauge.core.types import GenerationConfig, Message

    config = GenerationConfig(temperature=0.7, top_p=0.5, seed=3, max_tokens=9)
    request = Request(messages=[Message.user("q")], config=config)
    off = RequestOptions(sampling=False)
    assert OpenAIBackend("http://x/v1", "m", request=off).build_body(request).keys() == {
        "model", "messages", "max_tokens", "seed"}
    assert AnthropicBackend("http://x", "m", request=off).build_body(request).keys() == {
        "model", "messages", "max_tokens"}
    sent = OpenAIBackend("http://x/v1", "m").build_body(request)
    assert (sent["temperature"], sent["top_p"]) == (0.7, 0.5)


def test_an_openai_model_that_wants_max_completion_tokens_stops_the_run_naming_the_option(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    message = ("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
               "'max_completion_tokens' instead.")
    refusal = {"error": {"message": message, "type": "invalid_request_error", "param": "max_tokens",
                         "code": "unsupported_parameter"}}
    data = write_toy_data(tmp_path / "data", 4)
    with FakeOpenAIServer() as server:
        server.default = Action("body", body=refusal, status=400)
        done = cli("run", "--model", model_file(tmp_path, f"openai:o-x@{server.base_url}"), "--bench", "toy",
                   "--data", data, "--out", tmp_path / "run", "--no-cache", "--concurrency", "1")
        asked = server.requests
    assert done.code != 0 and asked == 1
    line = done.error_line()
    assert "o-x refuses max_tokens mmgauge sends" in line and "request: {max_completion_tokens: true}" in line
