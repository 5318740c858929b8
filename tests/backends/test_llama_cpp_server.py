"""The `openai` backend and the judge against a real llama-cpp-python server (its OpenAI-compatible
`llama_cpp.server`) running the SmolLM2 GGUF that the embedded default ships: the errors, answers and
retries of the real thing, and that the shipped test server's llama.cpp faults are the bodies it sends.

Skipped where llama-cpp-python is not installed (it builds llama.cpp from source: not in the dev extra, so
not in CI); run with it installed (`pip install "llama-cpp-python[server]"`) to check the backends against it.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, Message, ModelResponse
from mmgauge.testing.faults import CONTEXT_LENGTH_400, LLAMA_CPP_500
from mmgauge.testing.toy import tiny_png, write_toy_data

#: The server's context window: the judge's prompts fit, a 600-word prompt does not.
CONTEXT = 512
FAST = BackendSettings(concurrency=2, timeout_s=60.0, max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)


@dataclass
class LlamaServer:
    url: str
    log: Path

    def posts(self) -> int:
        """Chat requests the server has answered so far (uvicorn's access log: one line each)."""
        return self.log.read_text(errors="replace").count('"POST /v1/chat/completions HTTP/1.1"')


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
        pytest.skip("llama-cpp-python's server is not installed (pip install 'llama-cpp-python[server]')")
    from mmgauge.backends._embedded_engine import gguf_path

    try:
        model = gguf_path()
    except UserError as error:
        pytest.skip(str(error))
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(CONTEXT), "--model_alias", "smollm2", "--verbose", "false"]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start in 120 s")
                time.sleep(0.25)
        yield LlamaServer(url, log)
    finally:
        process.terminate()
        process.wait(timeout=30)


def post_raw(server: LlamaServer, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{server.url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def ask(server: LlamaServer, text: str) -> ModelResponse:
    backend = OpenAIBackend(server.url, "smollm2", settings=FAST)
    request = Request(messages=[Message.user(text)], config=GenerationConfig(max_tokens=8))

    async def one() -> ModelResponse:
        try:
            (response,) = await backend.generate([request])
            return response
        finally:
            await backend.aclose()

    return asyncio.run(one())


def records(out: Path, name: str = "samples.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / name).read_text().splitlines()]


def test_the_test_servers_llama_cpp_faults_are_the_bodies_the_real_server_sends(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    image = "data:image/png;base64," + base64.b64encode(tiny_png(0)).decode()
    parts = [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": image}}]
    status, body = post_raw(llama_server, {"model": "smollm2", "max_tokens": 8,
                                           "messages": [{"role": "user", "content": parts}]})
    assert (status, body) == (500, LLAMA_CPP_500)
    status, body = post_raw(llama_server, {"model": "smollm2", "max_tokens": 8,
                                           "messages": [{"role": "user", "content": "word " * 600}]})
    assert status == 400
    fields = ("type", "param", "code")
    assert {k: body["error"][k] for k in fields} == {k: CONTEXT_LENGTH_400["error"][k] for k in fields}
    assert body["error"]["message"].startswith(f"This model's maximum context length is {CONTEXT} tokens.")


def test_a_prompt_past_the_context_window_fails_once_with_the_servers_code(llama_server: LlamaServer) -> None:
    before = llama_server.posts()
    response = ask(llama_server, "word " * 600)
    assert llama_server.posts() - before == 1  # a 400 is the request's own error: never retried
    assert response.error_code == "HTTP 400 context_length_exceeded" and response.error_permanent
    assert response.error is not None and f"maximum context length is {CONTEXT} tokens" in response.error


def test_an_answer_cut_at_the_token_limit_is_marked(llama_server: LlamaServer) -> None:
    response = ask(llama_server, "Count from one to one hundred in words, separated by commas.")
    assert response.ok and response.truncated
    assert response.usage.completion_tokens == 8 and response.usage.prompt_tokens


def test_images_sent_to_a_text_only_model_fail_as_the_same_500_tried_twice_and_named_once(
    cli: Any, toy: None, llama_server: LlamaServer, tmp_path: Path
) -> None:
    data = write_toy_data(tmp_path / "data", 3)
    model = tmp_path / "model.yaml"
    model.write_text(f'spec: "openai:smollm2@{llama_server.url}"\n'
                     "settings:\n  backoff_base_s: 0.01\n  backoff_max_s: 0.02\n")
    before = llama_server.posts()
    done = cli("run", "--model", model, "--bench", "toy", "--data", data, "--out", tmp_path / "run",
               "--no-cache", "--concurrency", "1")
    assert done.code == 1
    assert llama_server.posts() - before == 2 * 3  # one try, and one retry that came back the same
    message = LLAMA_CPP_500["error"]["message"]
    for record in records(tmp_path / "run"):
        response = record["response"]
        assert response["error_code"] == "HTTP 500 internal_server_error" and response["error_permanent"]
        assert message in response["error"] and "not retried" in response["error"]
    assert "3 x HTTP 500 internal_server_error (the same on every run: fix the cause)" in done.out
    assert "would get the same errors" in done.out


def test_the_real_server_as_the_judge_reads_answers_and_a_rerun_asks_it_nothing(
    cli: Any, llama_server: LlamaServer, tmp_path: Path
) -> None:
    command = ("run", "--model", "mock:I am not sure", "--bench", "mmbench", "--limit", "8",
               "--judge", f"openai:smollm2@{llama_server.url}", "--out", tmp_path / "run")
    before = llama_server.posts()
    done = cli(*command)
    assert done.code == 0, done.out
    asked = llama_server.posts() - before
    results = json.loads((tmp_path / "run" / "results.json").read_text())["benchmarks"]["mmbench"]
    judged = [r["extraction"] for r in records(tmp_path / "run", "scored.jsonl")
              if r["extraction"]["method"] == "judge"]
    # CircularEval asks the judge about a group's copies in turn, up to the first wrong one: 2 groups here.
    assert results["judge_calls"] == asked == len(judged) == 2 and results["judge_failed"] == 0
    for extraction in judged:
        assert extraction["judge_reply"] and extraction["answer"] in "ABCDZ"
        assert extraction["detail"] == "try 1, reply read by rule-letter"
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["judge"]["base_url"] == llama_server.url and manifest["judge"]["model"] == "smollm2"

    again = cli(*command)
    assert again.code == 0, again.out
    assert llama_server.posts() - before == asked  # the judge's replies come from the response cache
    rerun = json.loads((tmp_path / "run" / "results.json").read_text())["benchmarks"]["mmbench"]
    assert rerun["result"] == results["result"] and rerun["judge_calls"] == 0


def test_a_model_name_the_server_does_not_list_is_a_warning_and_its_model_answers(
    cli: Any, llama_server: LlamaServer, tmp_path: Path
) -> None:
    # The sample's first two M3GIA questions are text only, which this text-only model can take.
    done = cli("run", "--model", f"openai:gpt-4o@{llama_server.url}", "--bench", "m3gia", "--limit", "2",
               "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out
    assert f"{llama_server.url} does not list model 'gpt-4o' (it lists smollm2)" in " ".join(done.out.split())
    answered = records(tmp_path / "run")
    assert len(answered) == 2 and all(r["response"]["text"] and r["response"]["error"] is None
                                      for r in answered)
