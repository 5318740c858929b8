"""The vllm backend: input building without vLLM; the engine's control flow against vLLM 0.33's `LLM`.

The engine tests run twice where vLLM imports: once on `mmgauge.testing.vllm_standin` (vLLM 0.33's
classes and checks, rebuilt from its sources) and once on the real `vllm.LLM`, `SamplingParams` and
exceptions with only the GPU engine replaced; without vLLM the second run is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mmgauge.backends import vllm as vllm_backend
from mmgauge.backends._vllm_options import validate_options
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.registry import BACKENDS, backend_class
from mmgauge.backends.spec import parse_spec
from mmgauge.backends.vllm import (
    VLLMBackend,
    chat_messages,
    config_groups,
    sampling_kwargs,
    to_response,
)
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse, ModelSpec
from mmgauge.testing import vllm_standin
from mmgauge.testing.toy import tiny_png

GREEDY = GenerationConfig(max_tokens=8)
SAMPLED = GenerationConfig(temperature=0.7, top_p=0.9, seed=3, max_tokens=8)


def request(text: str, images: int = 0, config: GenerationConfig = GREEDY) -> Request:
    refs = [ImageRef(data=tiny_png(i)) for i in range(images)]
    return Request(messages=[Message.user(text, refs)], config=config)


# -- input building, without vLLM -------------------------------------------------------------------------


def test_sampling_params_greedy_at_zero_else_seeded() -> None:
    assert sampling_kwargs(GREEDY) == {"temperature": 0.0, "max_tokens": 8}
    assert sampling_kwargs(GREEDY.model_copy(update={"top_p": 0.5, "seed": 9})) == {
        "temperature": 0.0, "max_tokens": 8
    }
    assert sampling_kwargs(SAMPLED) == {"temperature": 0.7, "top_p": 0.9, "seed": 3, "max_tokens": 8}
    assert "seed" not in sampling_kwargs(SAMPLED.model_copy(update={"seed": None}))


def test_chat_messages_are_openai_style_with_data_urls() -> None:
    with_system = request("is it red?", images=2, config=GREEDY.model_copy(update={"system_prompt": "brief"}))
    messages = chat_messages(with_system, image_limit=2)
    assert messages[0] == {"role": "system", "content": "brief"}
    parts = messages[1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]
    assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert parts[2] == {"type": "text", "text": "is it red?"}
    assert chat_messages(request("plain"), image_limit=None) == [{"role": "user", "content": "plain"}]


def test_chat_messages_refuse_too_many_or_unreadable_images(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="limit_mm_per_prompt"):
        chat_messages(request("q", images=3), image_limit=2)
    gone = ImageRef(path=str(tmp_path / "gone.png"))
    missing = Request(messages=[Message.user("q", [gone])], config=GREEDY)
    with pytest.raises(ValueError, match="cannot read an image"):
        chat_messages(missing, image_limit=None)


def test_requests_are_grouped_by_decoding_setting_in_order() -> None:
    requests = [request("a"), request("b", config=SAMPLED), request("c"), request("d", config=SAMPLED)]
    assert config_groups(requests) == [(GREEDY, [0, 2]), (SAMPLED, [1, 3])]


def test_engine_options_are_validated_and_passed_through() -> None:
    options = {
        "tensor_parallel_size": 4, "pipeline_parallel_size": 2, "gpu_memory_utilization": 0.85,
        "max_model_len": 8192, "dtype": "bfloat16",
        "limit_mm_per_prompt": {"image": {"count": 4, "width": 64}},
        "trust_remote_code": True, "chat_template": "t.jinja",
    }
    engine = validate_options(options)
    assert "chat_template" not in engine
    assert engine == {k: v for k, v in options.items() if k != "chat_template"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tensor_parallel": 2}, "unknown vllm option"),
        ({"tensor_parallel_size": 0}, "positive integer"),
        ({"tensor_parallel_size": True}, "positive integer"),
        ({"gpu_memory_utilization": 1.5}, r"\(0, 1\]"),
        ({"limit_mm_per_prompt": {"image": -1}}, "mapping of modality"),
        ({"limit_mm_per_prompt": 2}, "mapping of modality"),
        ({"enforce_eager": "yes"}, "true or false"),
        ({"dtype": ""}, "a string"),
    ],
)
def test_bad_engine_options_are_user_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        validate_options(options)


def test_output_becomes_a_response_with_usage() -> None:
    completion = SimpleNamespace(text="B", token_ids=[7, 2])
    output = SimpleNamespace(prompt_token_ids=[1, 2, 3], outputs=[completion])
    response = to_response(output, 0.5)
    assert response.ok and response.text == "B" and response.latency_s == 0.5
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (3, 2)


def test_spec_and_registry() -> None:
    spec, _ = parse_spec("vllm:/models/qwen2-vl")
    assert (spec.backend, spec.path) == ("vllm", "/models/qwen2-vl")
    with pytest.raises(UserError, match="vllm:PATH"):
        parse_spec("vllm:")
    assert "vllm" in BACKENDS


def test_missing_vllm_is_a_user_error_with_the_pip_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vllm_backend, "_vllm_installed", lambda: False)
    with pytest.raises(UserError, match=r"pip install 'mmgauge\[vllm\]'"):
        backend_class("vllm").from_spec(ModelSpec(backend="vllm", path="/models/x"), BackendSettings())
    # A bad option is reported first: it needs fixing whether or not vLLM is there.
    with pytest.raises(UserError, match="unknown vllm option"):
        VLLMBackend("/models/x", options={"tp": 2})


# -- the whole backend against vLLM 0.33's LLM: the stand-in, and the real one where vLLM imports -----------


class _Renderer:
    """The real `LLM.chat` renders through this: each conversation to its last text and its image count."""

    tokenizer = None
    default_chat_tok_params = SimpleNamespace(with_kwargs=lambda **kwargs: None)

    def render_chat(self, conversations: list[Any], *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
        prompts = [vllm_standin.prompt_of(conversation) for conversation in conversations]
        return conversations, [{"type": "token", "prompt_token_ids": [], "prompt": text, "images": images}
                               for text, images in prompts]


class _Engine:
    """The real `LLM`'s `llm_engine`, on a StandinEngine raising vLLM's own VLLMValidationError."""

    def __init__(self, engine: vllm_standin.StandinEngine) -> None:
        self.engine = engine
        self.vllm_config = SimpleNamespace(lora_config=None)
        self.done: list[Any] = []

    def add_request(self, request_id: str, prompt: dict[str, Any], params: Any, **kwargs: Any) -> str:
        self.engine.add(request_id, prompt["prompt"], prompt["images"])
        return request_id

    def abort_request(self, request_ids: list[str], internal: bool = False) -> None:
        self.engine.abort(request_ids)

    def get_num_unfinished_requests(self) -> int:
        return len(self.engine.queued)

    def has_unfinished_requests(self) -> bool:
        return bool(self.engine.queued)

    def step(self) -> list[Any]:
        return self.engine.run()


def _real_vllm(monkeypatch: pytest.MonkeyPatch) -> type:
    """vllm.LLM running its own argument checks and `chat`; a StandinEngine replaces the GPU engine."""
    pytest.importorskip("vllm")
    llm_module = pytest.importorskip("vllm.entrypoints.llm")
    from vllm.exceptions import VLLMValidationError
    from vllm.outputs import CompletionOutput, RequestOutput
    from vllm.utils.counter import Counter

    class EngineReplaced(Exception):
        pass

    def no_gpu_engine(*args: Any, **kwargs: Any) -> None:
        raise EngineReplaced

    def output(request_id: str, ids: list[int], text: str, finish: str) -> Any:
        completion = CompletionOutput(0, text, [1], None, None, finish_reason=finish)
        return RequestOutput(request_id, None, ids, None, [completion], finished=True)

    cls = llm_module.LLM
    original_init, original_chat = cls.__init__, cls.chat

    @functools.wraps(original_init)
    def init(self: Any, model: str, **kwargs: Any) -> None:
        with contextlib.suppress(EngineReplaced):
            original_init(self, model, **kwargs)  # vLLM's own checks of the arguments, up to the engine
        limit = kwargs.get("limit_mm_per_prompt", {}).get("image", 999)
        engine = vllm_standin.StandinEngine(
            max_model_len=kwargs.get("max_model_len") or 4096, error=VLLMValidationError, output=output,
            image_limit=limit.get("count", 999) if isinstance(limit, dict) else limit,
        )
        self.__dict__.update(
            model_config=SimpleNamespace(runner_type="generate", enable_prompt_embeds=False),
            renderer=_Renderer(), chat_template=None, request_counter=Counter(), default_sampling_params=None,
            llm_engine=_Engine(engine), engine=engine, calls=[], kwargs={"model": model, **kwargs},
        )
        vllm_standin.LLM.instances.append(self)

    @functools.wraps(original_chat)
    def chat(self: Any, messages: list[Any], params: Any, **kwargs: Any) -> Any:
        self.calls.append((len(messages), params, kwargs.get("chat_template")))
        return original_chat(self, messages, params, **kwargs)

    monkeypatch.setattr(llm_module.LLMEngine, "from_engine_args", no_gpu_engine)
    monkeypatch.setattr(cls, "__init__", init)
    monkeypatch.setattr(cls, "chat", chat)
    return cls


@pytest.fixture(params=["standin", "vllm"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which vLLM the backend imports: the stand-in, or the installed vLLM (skipped where it is absent)."""
    vllm_standin.LLM.instances.clear()
    monkeypatch.setattr(vllm_backend, "_vllm_installed", lambda: True)
    if request.param == "vllm":
        _real_vllm(monkeypatch)
    else:
        modules: dict[str, Any] = {}
        vllm_standin.install(modules)
        for name, module in modules.items():
            monkeypatch.setitem(sys.modules, name, module)
    yield request.param
    vllm_standin.LLM.instances.clear()


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlavaForConditionalGeneration"]}))
    (folder / "model.safetensors").write_bytes(b"\0" * 64)
    return folder


def generate(backend: VLLMBackend, batch: list[Request]) -> list[ModelResponse]:
    async def go() -> list[ModelResponse]:
        try:
            return await backend.generate(batch)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def only_llm() -> Any:
    (llm,) = vllm_standin.LLM.instances
    return llm


def test_batch_goes_to_the_engine_once_per_setting(engine: str, model_dir: Path) -> None:
    spec = ModelSpec(backend="vllm", path=str(model_dir),
                     options={"tensor_parallel_size": 2, "limit_mm_per_prompt": {"image": 1}})
    backend = VLLMBackend.from_spec(spec, BackendSettings(batch_size=16))
    assert backend.batch_size == 16 and backend.concurrency == 2
    batch = [request("a", images=1), request("b", config=SAMPLED), request("c"), request("two", images=2)]
    responses = generate(backend, batch)
    llm = only_llm()
    assert llm.kwargs == {"model": str(model_dir.resolve()), "tensor_parallel_size": 2,
                          "limit_mm_per_prompt": {"image": 1}}
    assert [(n, p.temperature, p.seed) for n, p, _ in llm.calls] == [(2, 0.0, None), (1, 0.7, 3)]
    assert [r.text for r in responses[:3]] == ["echo a", "echo b", "echo c"]
    assert not responses[3].ok and "limit_mm_per_prompt" in (responses[3].error or "")


def test_a_request_vllm_refuses_fails_alone_and_the_batch_stays_batched(
    engine: str, model_dir: Path, tmp_path: Path
) -> None:
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages }}")
    backend = VLLMBackend(str(model_dir), options={"chat_template": str(template), "max_model_len": 32})
    batch = [request(f"q{i}") for i in range(64)]
    batch[37] = request("word " * 40)  # 0.33 raises VLLMValidationError, which is no ValueError
    responses = generate(backend, batch)
    assert [r.ok for r in responses] == [i != 37 for i in range(64)]
    assert "maximum model length of 32" in (responses[37].error or "")
    assert [r.text for r in responses[:2]] == ["echo q0", "echo q1"]
    llm = only_llm()
    # Halving: the whole batch, then both halves at each of 6 levels (not 1 + 64 calls one by one).
    assert len(llm.calls) == 1 + 2 * 6 and llm.calls[0][2] == "{{ messages }}"
    assert not llm.engine.queued  # what vLLM had queued before refusing was aborted, never answered twice


def test_too_many_images_in_the_dict_form_of_the_limit_fail_before_the_engine(
    engine: str, model_dir: Path
) -> None:
    options = {"limit_mm_per_prompt": {"image": {"count": 1, "width": 448, "height": 448}}}
    backend = VLLMBackend(str(model_dir), options=options)
    assert backend.image_limit == 1
    responses = generate(backend, [request("a", images=1), request("b", images=2)])
    assert responses[0].ok and "limit_mm_per_prompt allows (1)" in (responses[1].error or "")
    assert [n for n, _, _ in only_llm().calls] == [1]


def test_an_aborted_completion_is_a_failed_request_not_an_answer(engine: str, model_dir: Path) -> None:
    responses = generate(VLLMBackend(str(model_dir)), [request("a"), request("ABORT me")])
    assert responses[0].ok and not responses[1].ok
    assert "finish_reason abort" in (responses[1].error or "") and responses[1].text is None


def test_a_decoding_setting_vllm_refuses_fails_its_requests_not_the_run(engine: str, model_dir: Path) -> None:
    hot = GREEDY.model_copy(update={"temperature": 2.5})
    responses = generate(VLLMBackend(str(model_dir)), [request("a"), request("b", config=hot)])
    assert responses[0].ok and "temperature of at most 2" in (responses[1].error or "")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"swap_space": 4}, "swap_space was removed"),
        ({"data_parallel_size": 2}, "data_parallel_size > 1"),
    ],
)
def test_options_vllm_033_refuses_are_named_before_loading(
    engine: str, model_dir: Path, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UserError, match=message) as raised:
        VLLMBackend(str(model_dir), options=options)
    assert raised.value.field == f"options.{next(iter(options))}" and "\n" not in str(raised.value)


def test_an_option_the_installed_vllm_lacks_is_named_at_load(engine: str, model_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    vllm = importlib.import_module("vllm")
    fields = [(f.name, Any, None) for f in dataclasses.fields(vllm.EngineArgs) if f.name != "kv_cache_dtype"]
    older = dataclasses.make_dataclass("EngineArgs", fields)
    monkeypatch.setattr(vllm, "EngineArgs", older)
    backend = VLLMBackend(str(model_dir), options={"kv_cache_dtype": "fp8"})
    with pytest.raises(UserError, match="takes no option kv_cache_dtype") as raised:
        backend.load()
    assert raised.value.field == "options.kv_cache_dtype" and not vllm_standin.LLM.instances


def test_fingerprint_follows_weights_and_numerics_not_parallelism(engine: str, model_dir: Path) -> None:
    base = VLLMBackend(str(model_dir)).fingerprint()
    assert VLLMBackend(str(model_dir), options={"tensor_parallel_size": 8}).fingerprint() == base
    assert VLLMBackend(str(model_dir), options={"dtype": "float16"}).fingerprint() != base
    (model_dir / "model.safetensors").write_bytes(b"\1" * 64)
    assert VLLMBackend(str(model_dir)).fingerprint() != base


def test_engine_that_cannot_load_stops_the_run(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("CUDA out of memory\nmore lines")

    monkeypatch.setattr(vllm_backend, "_vllm_installed", lambda: True)
    monkeypatch.setattr(vllm_backend, "_import_vllm", lambda: SimpleNamespace(LLM=broken))
    with pytest.raises(EndpointError, match="CUDA out of memory"):
        generate(VLLMBackend(str(model_dir)), [request("a")])


# -- the real engine ---------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None,
    reason="vLLM is not installed (optional extra 'vllm'; it needs Linux with a CUDA GPU)",
)
def test_real_engine_on_a_tiny_model(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("vLLM's engine needs a CUDA GPU and none is available")
    from mmgauge.testing.tiny_vlm import build_tiny_vlm

    model = build_tiny_vlm(tmp_path / "tiny")
    options = {"gpu_memory_utilization": 0.3, "max_model_len": 512, "enforce_eager": True}
    backend = VLLMBackend(str(model), batch_size=4, options=options)
    batch = [request("Is there a red circle?", images=1), request("Describe the picture.")]

    async def twice() -> tuple[list[ModelResponse], list[ModelResponse]]:
        try:
            return await backend.generate(batch), await backend.generate(batch)
        finally:
            await backend.aclose()

    first, again = asyncio.run(twice())
    assert all(r.ok for r in first) and [r.text for r in first] == [r.text for r in again]
    assert first[0].usage.prompt_tokens and backend.describe()["engine_options"]["max_model_len"] == 512


def test_the_engine_starts_and_runs_on_one_thread_that_is_not_the_callers(
    engine: str, model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: dict[str, set[int]] = {"load": set(), "chat": set()}
    load, chat = VLLMBackend.load, VLLMBackend._chat

    def loading(self: VLLMBackend) -> None:
        threads["load"].add(threading.get_ident())
        load(self)

    def chatting(self: VLLMBackend, *args: Any) -> list[ModelResponse]:
        threads["chat"].add(threading.get_ident())
        return chat(self, *args)

    monkeypatch.setattr(VLLMBackend, "load", loading)
    monkeypatch.setattr(VLLMBackend, "_chat", chatting)
    backend = VLLMBackend.from_spec(ModelSpec(backend="vllm", path=str(model_dir)), BackendSettings())

    async def go() -> list[list[ModelResponse]]:
        try:  # more batches in flight at once than any default pool would keep on one thread
            return list(await asyncio.gather(*(backend.generate([request(f"q{n}")]) for n in range(8))))
        finally:
            await backend.aclose()

    answers = asyncio.run(go())
    assert [batch[0].text for batch in answers] == [f"echo q{n}" for n in range(8)]
    assert len(threads["chat"]) == 1 and threads["load"] == threads["chat"]
    assert threading.get_ident() not in threads["chat"]
