"""Offline batched generation with vLLM's engine (`vllm:PATH_OR_REPO_ID`), for machines with CUDA GPUs.

Each request becomes an OpenAI-style conversation (images as data URLs, as the `openai` backend sends them)
that `LLM.chat` renders with the model's own chat template, so prompts match what a vLLM server would see.
A batch from the runner goes to the engine in one call per decoding setting; vLLM schedules it internally
(continuous batching), so large batches (`--batch-size`, default 64) keep the GPUs busy.

Spec options pass through to `vllm.LLM` (see ENGINE_OPTIONS): tensor_parallel_size, pipeline_parallel_size,
gpu_memory_utilization, max_model_len, dtype, limit_mm_per_prompt, ... Only `chat_template` (a Jinja file
replacing the model's template) is this backend's own. vllm is imported when the model is loaded, so this
module imports without the `vllm` extra, and everything up to the engine call is testable without it.

Decoding: temperature 0 is greedy; otherwise sampling is seeded with the generation config's seed.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.checkpoints import hash_model_files, one_line, resolve_model_dir
from mmgauge.backends.openai import to_openai_messages
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImagePart, ModelResponse, ModelSpec, Usage

EXTRA_HINT = "the vllm backend needs the 'vllm' extra (Linux with a CUDA GPU): pip install 'mmgauge[vllm]'"
DEFAULT_BATCH_SIZE = 64

_POSITIVE_INT = "a positive integer"
#: vllm.LLM arguments a spec may set, with what each must be. Anything else is refused, not passed blindly.
ENGINE_OPTIONS: dict[str, str] = {
    "tensor_parallel_size": _POSITIVE_INT,
    "pipeline_parallel_size": _POSITIVE_INT,
    "data_parallel_size": _POSITIVE_INT,
    "max_model_len": _POSITIVE_INT,
    "max_num_seqs": _POSITIVE_INT,
    "max_num_batched_tokens": _POSITIVE_INT,
    "gpu_memory_utilization": "a number in (0, 1]",
    "swap_space": "a number >= 0",
    "cpu_offload_gb": "a number >= 0",
    "dtype": "a string",
    "quantization": "a string",
    "kv_cache_dtype": "a string",
    "tokenizer_mode": "a string",
    "revision": "a string",
    "distributed_executor_backend": "a string",
    "seed": "an integer",
    "trust_remote_code": "true or false",
    "enforce_eager": "true or false",
    "enable_prefix_caching": "true or false",
    "limit_mm_per_prompt": "a mapping of modality to a count, e.g. {image: 2}",
    "mm_processor_kwargs": "a mapping",
}
OWN_OPTIONS = {"chat_template"}
#: Options that change the numbers the model computes, hence its answers: part of the fingerprint.
_NUMERIC_OPTIONS = ("dtype", "quantization", "kv_cache_dtype", "revision")


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The engine keyword arguments of a spec's options, or a UserError naming the bad option."""
    unknown = sorted(set(options) - set(ENGINE_OPTIONS) - OWN_OPTIONS)
    if unknown:
        raise UserError(
            f"unknown vllm option(s): {', '.join(unknown)}; known: {', '.join(sorted(ENGINE_OPTIONS))}, "
            "chat_template",
            field="options",
        )
    engine: dict[str, Any] = {}
    for name, value in options.items():
        if name in OWN_OPTIONS:
            continue
        if not _valid(ENGINE_OPTIONS[name], value):
            raise UserError(f"{name} must be {ENGINE_OPTIONS[name]}, not {value!r}", field=f"options.{name}")
        engine[name] = dict(value) if isinstance(value, Mapping) else value
    return engine


def _valid(kind: str, value: Any) -> bool:
    # bool is an int in Python: a YAML `true` must not pass as a size of 1.
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == _POSITIVE_INT:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "a number in (0, 1]":
        return number and 0 < value <= 1
    if kind == "a number >= 0":
        return number and value >= 0
    if kind == "a string":
        return isinstance(value, str) and bool(value)
    if kind == "true or false":
        return isinstance(value, bool)
    if kind.startswith("a mapping of modality"):
        return isinstance(value, Mapping) and all(
            isinstance(k, str) and (isinstance(v, Mapping) or (isinstance(v, int) and not isinstance(v, bool)
                                                               and v >= 0))
            for k, v in value.items()
        )
    return isinstance(value, Mapping)


def sampling_kwargs(config: GenerationConfig) -> dict[str, Any]:
    """vllm.SamplingParams arguments for one decoding setting."""
    if config.deterministic:
        # Greedy: vLLM ignores top_p and the seed at temperature 0, so leave them out of the request.
        return {"temperature": 0.0, "max_tokens": config.max_tokens}
    kwargs: dict[str, Any] = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.seed is not None:
        kwargs["seed"] = config.seed
    return kwargs


def image_count(request: Request) -> int:
    return sum(isinstance(part, ImagePart) for message in request.messages for part in message.content)


def chat_messages(request: Request, image_limit: int | None) -> list[dict[str, Any]]:
    """The conversation `LLM.chat` takes for one request; ValueError when it cannot be built."""
    images = image_count(request)
    if image_limit is not None and images > image_limit:
        raise ValueError(
            f"{images} images in one prompt, more than limit_mm_per_prompt allows ({image_limit}); "
            "raise options.limit_mm_per_prompt.image"
        )
    try:
        return to_openai_messages(request.messages, request.config.system_prompt)
    except (OSError, ValueError, UserError) as error:
        raise ValueError(f"cannot read an image: {one_line(error)}") from None


def config_groups(requests: Sequence[Request]) -> list[tuple[GenerationConfig, list[int]]]:
    """Indices of the requests sharing each decoding setting, in order of first appearance."""
    groups: dict[GenerationConfig, list[int]] = {}
    for index, request in enumerate(requests):
        groups.setdefault(request.config, []).append(index)
    return list(groups.items())


def to_response(output: Any, latency_s: float) -> ModelResponse:
    """A vLLM RequestOutput -> ModelResponse."""
    completion = output.outputs[0]
    prompt_ids = getattr(output, "prompt_token_ids", None)
    return ModelResponse(
        text=completion.text,
        usage=Usage(
            prompt_tokens=None if prompt_ids is None else len(prompt_ids),
            completion_tokens=len(completion.token_ids),
        ),
        latency_s=latency_s,
    )


def _import_vllm() -> Any:
    try:
        return importlib.import_module("vllm")
    except ImportError:
        raise UserError(EXTRA_HINT) from None


def _vllm_installed() -> bool:
    # Looking the package up is instant; importing it initialises CUDA and takes seconds.
    return importlib.util.find_spec("vllm") is not None


class VLLMBackend(Backend):
    """`vllm:PATH_OR_REPO_ID` with engine options (see the module docstring)."""

    def __init__(self, path: str, *, batch_size: int = DEFAULT_BATCH_SIZE,
                 options: Mapping[str, Any] | None = None) -> None:
        options = dict(options or {})
        self.engine_options = validate_options(options)
        template = options.get("chat_template")
        if template is not None and not isinstance(template, str):
            raise UserError("chat_template must be the path of a Jinja file", field="options.chat_template")
        if not _vllm_installed():
            raise UserError(EXTRA_HINT)
        if batch_size < 1:
            raise UserError("the batch size must be at least 1", field="--batch-size")
        self.path = path
        self.batch_size = batch_size
        # Two batches in flight: the next one's images are encoded while the engine works on the current one.
        self.concurrency = 2
        self.chat_template_file = template
        self.chat_template = _read_template(template) if template else None
        # Resolved now (a local folder or the local Hugging Face cache) so a wrong path fails before the run.
        self.directory = resolve_model_dir(path)
        limits = self.engine_options.get("limit_mm_per_prompt", {})
        image_limit = limits.get("image")
        self.image_limit: int | None = image_limit if isinstance(image_limit, int) else None
        self._fingerprint: str | None = None
        self._llm: Any = None
        self._load_lock = threading.Lock()
        self._engine_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> VLLMBackend:
        if not spec.path:
            raise UserError("the vllm backend needs a model folder or repo id: vllm:PATH", field="--model")
        return cls(spec.path, batch_size=settings.batch_size or DEFAULT_BATCH_SIZE, options=spec.options)

    def engine_kwargs(self) -> dict[str, Any]:
        """What `vllm.LLM(...)` is called with."""
        return {"model": str(self.directory), **self.engine_options}

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            digest = hashlib.sha256(b"mmgauge-vllm-v1\0")
            for name in _NUMERIC_OPTIONS:
                digest.update(f"{name}={self.engine_options.get(name, '')}\0".encode())
            if self.chat_template is not None:
                digest.update(b"template\0" + self.chat_template.encode() + b"\0")
            hash_model_files(digest, self.directory)
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "fingerprint": self.fingerprint(), "path": self.path, "directory": str(self.directory),
            "batch_size": self.batch_size, "engine_options": self.engine_options,
            "chat_template": self.chat_template_file,
        }
        if self._llm is not None:
            info["vllm"] = getattr(_import_vllm(), "__version__", None)
        return info

    def load(self) -> None:
        """Start the engine now (otherwise the first `generate` does it)."""
        with self._load_lock:
            if self._llm is None:
                vllm = _import_vllm()
                try:
                    self._llm = vllm.LLM(**self.engine_kwargs())
                except Exception as error:
                    raise EndpointError(f"vLLM could not load {self.directory}: {one_line(error)}") from None

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        if not batch:
            return []
        await asyncio.to_thread(self.load)
        return await asyncio.to_thread(self._generate_all, list(batch))

    def _generate_all(self, requests: list[Request]) -> list[ModelResponse]:
        sampling_params = _import_vllm().SamplingParams
        answers: dict[int, ModelResponse] = {}
        ready: list[tuple[GenerationConfig, list[int], list[list[dict[str, Any]]]]] = []
        for config, indices in config_groups(requests):
            usable, conversations = [], []
            for index in indices:
                try:
                    conversations.append(chat_messages(requests[index], self.image_limit))
                    usable.append(index)
                except ValueError as error:
                    answers[index] = ModelResponse(error=str(error))
            if usable:
                ready.append((config, usable, conversations))
        # Conversations are built outside the lock, so the other batch in flight overlaps the engine's work.
        with self._engine_lock:
            for config, indices, conversations in ready:
                params = sampling_params(**sampling_kwargs(config))
                answers.update(zip(indices, self._chat(conversations, params), strict=True))
        return [answers[i] for i in range(len(requests))]

    def _chat(self, conversations: list[list[dict[str, Any]]], params: Any) -> list[ModelResponse]:
        started = time.perf_counter()
        try:
            outputs = self._llm.chat(conversations, params, use_tqdm=False, chat_template=self.chat_template)
        except (ValueError, TypeError, KeyError) as error:
            # The engine refused an input (too long, too many images, template error): find which, alone.
            if len(conversations) > 1:
                return [answer for one in conversations for answer in self._chat([one], params)]
            return [ModelResponse(error=f"vLLM refused the request: {one_line(error)}")]
        # Every request of the call waited for the whole call, as with the hf backend.
        latency = time.perf_counter() - started
        return [to_response(output, latency) for output in outputs]

    async def aclose(self) -> None:
        with self._load_lock:
            # Dropping the engine frees its GPU memory when nothing else holds it.
            self._llm = None


def _read_template(path: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read the chat template: {one_line(error)}", file=path) from None
