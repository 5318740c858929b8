"""Offline batched generation with vLLM's engine (`vllm:PATH_OR_REPO_ID`), for machines with CUDA GPUs.

Each request becomes an OpenAI-style conversation (images as data URLs, as the `openai` backend sends them)
that `LLM.chat` renders with the model's own chat template, so prompts match what a vLLM server would see.
A batch from the runner goes to the engine in one call per decoding setting; vLLM schedules it internally
(continuous batching), so large batches (`--batch-size`, default 64) keep the GPUs busy.

Spec options pass through to `vllm.LLM` (see `_vllm_options.ENGINE_OPTIONS`): tensor_parallel_size,
pipeline_parallel_size, gpu_memory_utilization, max_model_len, dtype, limit_mm_per_prompt, ... Only
`chat_template` (a Jinja file replacing the model's template) is this backend's own; `revision` picks the
snapshot of a repo id in the local Hugging Face cache. vllm is imported when the model is loaded, so this
module imports without the `vllm` extra, and everything up to the engine call is testable without it.

Decoding: temperature 0 is greedy; otherwise sampling is seeded with the generation config's seed.
A request vLLM refuses (too long for max_model_len, too many images) fails alone: the batch is split in
halves until the refused ones are found, so the others keep their batching.
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

from mmgauge.backends._vllm_options import (
    check_generation,
    check_installed,
    image_limit,
    refusal_types,
    validate_options,
)
from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.checkpoints import hash_model_files, one_line, resolve_model_dir
from mmgauge.backends.model_thread import ModelThread
from mmgauge.backends.openai import to_openai_messages
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ModelResponse, ModelSpec, Usage

EXTRA_HINT = "the vllm backend needs the 'vllm' extra (Linux with a CUDA GPU): pip install 'mmgauge[vllm]'"
DEFAULT_BATCH_SIZE = 64

#: Options that change the numbers the model computes, hence its answers: part of the fingerprint.
_NUMERIC_OPTIONS = ("dtype", "quantization", "kv_cache_dtype", "revision")
#: What a completion that vLLM ended this way holds is no answer (aborted, or a request-level engine error).
_FAILED_FINISH = {"abort", "error"}


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


def chat_messages(request: Request, image_limit: int | None) -> list[dict[str, Any]]:
    """The conversation `LLM.chat` takes for one request; ValueError when it cannot be built."""
    images = request.image_count()
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
    """A vLLM RequestOutput -> ModelResponse; one vLLM ended as aborted or failed is a failed request."""
    completion = output.outputs[0]
    error = getattr(output, "error", None)
    finish = getattr(completion, "finish_reason", None)
    if error is not None or finish in _FAILED_FINISH:
        # Cached or scored, such a text would stand as the model's answer; a later run must ask again.
        detail = getattr(error, "message", None) or error or "no reason given"
        return ModelResponse(error=f"vLLM ended the request with finish_reason {finish}: {detail}"[:500],
                             latency_s=latency_s)
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


#: Requests of one decoding setting ready for the engine: its sampling parameters, their positions in the
#: batch, and their conversations.
_Ready = tuple[Any, list[int], list[list[dict[str, Any]]]]


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
        # vLLM ignores `revision` for a folder, so the revision's snapshot is the folder it gets.
        self.directory = resolve_model_dir(path, revision=self.engine_options.get("revision"))
        self.image_limit = image_limit(self.engine_options)
        self.gpus = (self.engine_options.get("tensor_parallel_size", 1)
                     * self.engine_options.get("pipeline_parallel_size", 1))
        self._fingerprint: str | None = None
        self._llm: Any = None
        self._refused: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError)
        self._load_lock = threading.Lock()
        #: Starts the engine and runs every call into it, one after the other: the engine and its processor
        #: run torch on the calling thread (`model_thread` says why that is one thread).
        self._engine_thread = ModelThread("mmgauge-vllm-engine")

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        return cls.path_spec(name, rest, "PATH_OR_REPO_ID")

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> VLLMBackend:
        if not spec.path:
            raise UserError("the vllm backend needs a model folder or repo id: vllm:PATH", field="--model")
        return cls(spec.path, batch_size=settings.batch_size or DEFAULT_BATCH_SIZE, options=spec.options)

    def engine_kwargs(self) -> dict[str, Any]:
        """What `vllm.LLM(...)` is called with (the revision is already in the resolved folder)."""
        options = {k: v for k, v in self.engine_options.items() if k != "revision"}
        return {"model": str(self.directory), **options}

    def check_generation(self, config: GenerationConfig) -> None:
        check_generation(config)

    def ray_gpus(self, requested: float | None) -> float:
        if self.engine_options.get("distributed_executor_backend") == "ray":
            # vLLM then places its own GPU workers in the cluster; GPUs the actor held would sit idle.
            if requested:
                raise UserError(
                    "distributed_executor_backend: ray makes vLLM reserve its own GPUs in the cluster; a Ray "
                    f"worker holding {requested:g} GPU(s) as well would leave them idle: use "
                    "--ray-gpus-per-worker 0 or leave distributed_executor_backend out",
                    field="--ray-gpus-per-worker",
                )
            return 0.0
        if requested is None:
            return float(self.gpus)
        if requested < self.gpus:
            raise UserError(
                f"tensor_parallel_size x pipeline_parallel_size needs {self.gpus} GPUs per engine, but each "
                f"Ray worker reserves {requested:g}: use --ray-gpus-per-worker {self.gpus}",
                field="--ray-gpus-per-worker",
            )
        return requested

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
                check_installed(vllm, self.engine_kwargs())
                self._refused = refusal_types()
                try:
                    self._llm = vllm.LLM(**self.engine_kwargs())
                except Exception as error:
                    raise EndpointError(f"vLLM could not load {self.directory}: {one_line(error)}") from None

    async def load_model(self) -> None:
        await self._engine_thread.run(self.load)

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        if not batch:
            return []
        await self._engine_thread.run(self.load)
        # Conversations are built beside the engine (no torch there), so the other batch in flight overlaps
        # the engine's work.
        ready, answers = await asyncio.to_thread(self._conversations, list(batch))
        answers.update(await self._engine_thread.run(self._run_engine, ready))
        return [answers[i] for i in range(len(batch))]

    def _conversations(
        self, requests: list[Request]
    ) -> tuple[list[_Ready], dict[int, ModelResponse]]:
        """(sampling params, request positions, conversations) per decoding setting, and the refused ones."""
        sampling_params = _import_vllm().SamplingParams
        answers: dict[int, ModelResponse] = {}
        refused: tuple[type[BaseException], ...] = (UserError, *self._refused)
        ready: list[_Ready] = []
        for config, indices in config_groups(requests):
            try:
                # The run refused such settings up front; a caller that skipped that check loses these alone.
                check_generation(config)
                params = sampling_params(**sampling_kwargs(config))
            except refused as error:
                answers.update((i, ModelResponse(error=f"vLLM refused the decoding setting: {error}"))
                               for i in indices)
                continue
            usable, conversations = [], []
            for index in indices:
                try:
                    conversations.append(chat_messages(requests[index], self.image_limit))
                    usable.append(index)
                except ValueError as error:
                    answers[index] = ModelResponse(error=str(error))
            if usable:
                ready.append((params, usable, conversations))
        return ready, answers

    def _run_engine(self, ready: list[_Ready]) -> dict[int, ModelResponse]:
        answers: dict[int, ModelResponse] = {}
        for params, indices, conversations in ready:
            answers.update(zip(indices, self._chat(conversations, params), strict=True))
        return answers

    def _chat(self, conversations: list[list[dict[str, Any]]], params: Any) -> list[ModelResponse]:
        started = time.perf_counter()
        try:
            outputs = self._llm.chat(conversations, params, use_tqdm=False, chat_template=self.chat_template)
        except self._refused as error:
            # vLLM refused an input and aborted what it had queued of this call, so the rest can be asked
            # again. Halving finds k refusals among n in about 2k*log2(n) calls; the others stay batched.
            if len(conversations) > 1:
                half = len(conversations) // 2
                return self._chat(conversations[:half], params) + self._chat(conversations[half:], params)
            return [ModelResponse(error=f"vLLM refused the request: {one_line(error)}")]
        # Every request of the call waited for the whole call, as with the hf backend.
        latency = time.perf_counter() - started
        return [to_response(output, latency) for output in outputs]

    async def aclose(self) -> None:
        with self._load_lock:
            # Dropping the engine frees its GPU memory when nothing else holds it.
            self._llm = None
        self._engine_thread.close()


def _read_template(path: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read the chat template: {one_line(error)}", file=path) from None
