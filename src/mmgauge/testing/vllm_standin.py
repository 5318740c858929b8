"""A stand-in for vLLM 0.33's offline API, for testing the `vllm` backend where vLLM cannot be installed.

It refuses what vLLM 0.33 refuses, with vLLM's exception classes and checks as its sources have them:
`LLM(...)` raises ValueError for data_parallel_size > 1 and TypeError for an argument `EngineArgs` lacks
(swap_space is gone); `SamplingParams` raises `VLLMValidationError` (a `VLLMClientError`, no ValueError) for a
temperature outside [0, 2] and reads seed -1 as unseeded; `LLM.chat` raises `VLLMValidationError` for a
prompt at or over max_model_len or with more images than limit_mm_per_prompt allows, after aborting the
requests of that call it had queued. Only the GPU work is imitated: a completion echoes the prompt's last
text.

`install(modules)` puts `vllm` and `vllm.exceptions` stand-in modules into a `sys.modules`-like mapping.
`StandinEngine` is the queue-and-answer part alone, which a test can put under the real `vllm.LLM`.
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, ClassVar

__version__ = "0.33.0-standin"
#: Prompt tokens each image takes in this stand-in (a real model's count depends on the image's size).
IMAGE_TOKENS = 16


class VLLMError(Exception):
    """vllm.exceptions.VLLMError."""


class VLLMClientError(VLLMError):
    """vllm.exceptions.VLLMClientError: the request's fault (HTTP 4xx)."""


class VLLMValidationError(VLLMClientError):
    """vllm.exceptions.VLLMValidationError, with its message layout."""

    def __init__(self, message: str, *, parameter: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.value = value

    def __str__(self) -> str:
        named = (("parameter", self.parameter), ("value", self.value))
        extras = [f"{k}={v}" for k, v in named if v is not None]
        base = super().__str__()
        return f"{base} ({', '.join(extras)})" if extras else base


@dataclasses.dataclass
class SamplingParams:
    """The fields mmgauge sets, checked as vLLM 0.33's `SamplingParams._verify_args` checks them."""

    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    max_tokens: int | None = 16

    def __post_init__(self) -> None:
        if self.seed == -1:
            self.seed = None  # as vLLM does: -1 means "no seed"
        if not math.isfinite(self.temperature) or not 0.0 <= self.temperature <= 2.0:
            raise VLLMValidationError(f"temperature must be in [0, 2], got {self.temperature}.",
                                      parameter="temperature", value=self.temperature)
        if not 0.0 < self.top_p <= 1.0:
            raise VLLMValidationError(f"top_p must be in (0, 1], got {self.top_p}.", parameter="top_p",
                                      value=self.top_p)
        if self.max_tokens is not None and self.max_tokens < 1:
            raise VLLMValidationError(f"max_tokens must be at least 1, got {self.max_tokens}.",
                                      parameter="max_tokens", value=self.max_tokens)


@dataclasses.dataclass
class EngineArgs:
    """vLLM 0.33's `EngineArgs` fields that mmgauge's options map to (there is no swap_space any more)."""

    model: str
    tokenizer_mode: str = "auto"
    trust_remote_code: bool = False
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    distributed_executor_backend: str | None = None
    dtype: str = "auto"
    quantization: str | None = None
    kv_cache_dtype: str = "auto"
    revision: str | None = None
    seed: int = 0
    gpu_memory_utilization: float = 0.92
    cpu_offload_gb: float = 0
    enforce_eager: bool = False
    enable_prefix_caching: bool | None = None
    max_model_len: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    limit_mm_per_prompt: dict[str, Any] = dataclasses.field(default_factory=dict)
    mm_processor_kwargs: dict[str, Any] | None = None
    disable_log_stats: bool = False


@dataclasses.dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list[int]
    finish_reason: str | None = "stop"


@dataclasses.dataclass
class RequestOutput:
    request_id: str
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput]
    finished: bool = True
    error: Any = None


def prompt_of(conversation: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The last text of a conversation and the images it holds."""
    text, images = "", 0
    for message in conversation:
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for part in parts:
            if part["type"] == "text":
                text = part["text"]
            else:
                images += 1
    return text, images


def answer_for(text: str) -> tuple[str, str]:
    """(text, finish_reason) the stand-in engine answers a prompt with: "ABORT" in it makes vLLM abort it."""
    return f"echo {text}", "abort" if "ABORT" in text else "stop"


class StandinEngine:
    """vLLM's request queue with its input checks; the GPU's part is `answer_for`.

    `error` is the exception class a refused request raises and `output` builds one finished request's
    output (request id, prompt token ids, text, finish reason), so the real vLLM's classes can be used.
    """

    def __init__(self, *, max_model_len: int, image_limit: int, error: type[Exception],
                 output: Callable[[str, list[int], str, str], Any]) -> None:
        self.max_model_len, self.image_limit = max_model_len, image_limit
        self.error, self.output = error, output
        self.queued: dict[str, tuple[list[int], str]] = {}
        self.aborted: list[str] = []

    def add(self, request_id: str, text: str, images: int) -> None:
        if images > self.image_limit:
            raise self.error(f"At most {self.image_limit} image(s) may be provided in one prompt.")
        length = len(text.split()) + IMAGE_TOKENS * images
        if length >= self.max_model_len:
            raise self.error(f"The decoder prompt (length {length}) plus the requested output tokens "
                             f"(at least 1) is longer than the maximum model length of {self.max_model_len}.")
        self.queued[request_id] = (list(range(length)), text)

    def abort(self, request_ids: Sequence[str]) -> None:
        for request_id in request_ids:
            if self.queued.pop(request_id, None) is not None:
                self.aborted.append(request_id)

    def run(self) -> list[Any]:
        done = [self.output(rid, ids, *answer_for(text)) for rid, (ids, text) in self.queued.items()]
        self.queued.clear()
        return done


def _output(request_id: str, prompt_ids: list[int], text: str, finish: str) -> RequestOutput:
    return RequestOutput(request_id, prompt_ids, [CompletionOutput(0, text, [1], finish)])


class LLM:
    """vLLM 0.33's `LLM` as far as mmgauge uses it: its constructor's checks and `chat`."""

    instances: ClassVar[list[LLM]] = []

    def __init__(self, model: str, **kwargs: Any) -> None:
        if int(kwargs.get("data_parallel_size", 1)) > 1:
            raise ValueError(f"LLM(data_parallel_size={kwargs['data_parallel_size']}) is not supported for "
                             "single-process usage and may hang.")
        self.kwargs = {"model": model, **kwargs}
        args = EngineArgs(model=model, **kwargs)  # TypeError for an argument vLLM 0.33 does not take
        limit = args.limit_mm_per_prompt.get("image", 999)
        self.engine = StandinEngine(
            max_model_len=args.max_model_len or 4096, error=VLLMValidationError, output=_output,
            image_limit=limit.get("count", 999) if isinstance(limit, dict) else limit,
        )
        #: (conversations, sampling params, chat template) of each `chat` call.
        self.calls: list[tuple[int, SamplingParams, str | None]] = []
        self._counter = 0
        LLM.instances.append(self)

    def chat(self, messages: Sequence[list[dict[str, Any]]], sampling_params: SamplingParams | None = None,
             use_tqdm: bool = True, chat_template: str | None = None) -> list[Any]:
        if not isinstance(sampling_params, SamplingParams):
            raise TypeError("the stand-in takes one SamplingParams for all conversations")
        self.calls.append((len(messages), sampling_params, chat_template))
        added: list[str] = []
        try:
            for conversation in messages:
                request_id = str(self._counter)
                self._counter += 1
                self.engine.add(request_id, *prompt_of(conversation))
                added.append(request_id)
        except Exception:
            self.engine.abort(added)  # what vLLM does before it raises
            raise
        return self.engine.run()


def install(modules: MutableMapping[str, Any]) -> types.ModuleType:
    """Put stand-in `vllm` and `vllm.exceptions` modules into `modules` (sys.modules, through monkeypatch)."""
    vllm = types.ModuleType("vllm")
    exceptions = types.ModuleType("vllm.exceptions")
    for cls in (VLLMError, VLLMClientError, VLLMValidationError):
        setattr(exceptions, cls.__name__, cls)
    vllm.__dict__.update(LLM=LLM, SamplingParams=SamplingParams, EngineArgs=EngineArgs,
                         __version__=__version__, exceptions=exceptions)
    modules["vllm"] = vllm
    modules["vllm.exceptions"] = exceptions
    return vllm
