"""A local Hugging Face transformers vision-language model, run in-process and offline.

The model comes from a local folder or from the local Hugging Face cache by repo id; nothing is downloaded.
Prompts go through the processor's own chat template, batches are left-padded, and generation runs in a
worker thread so that the event loop (progress bars, run log writes) keeps going. torch and transformers are
imported only when the model is loaded, so this module imports without the `hf` extra.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import io
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmgauge.backends._quiet import no_transformers_progress_bars
from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.checkpoints import EXTRA_HINT, hash_model_files, one_line, resolve_model_dir
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import GenerationConfig, ImagePart, ModelResponse, ModelSpec, Usage

DTYPES = {"auto", "float32", "fp32", "bfloat16", "bf16", "float16", "fp16", "half"}

#: One request ready for the chat template: messages in transformers' format, and its decoded images in order.
_Item = tuple[list[dict[str, Any]], list[Any]]


@dataclass
class _Loaded:
    model: Any
    processor: Any
    tokenizer: Any
    multimodal: bool
    chat_template: str
    device: str
    eos_ids: frozenset[int]
    pad_id: int | None


class HFBackend(Backend):
    """`hf:PATH_OR_REPO_ID`; options `device` (auto|cpu|cuda[:N]|mps), `dtype`, `trust_remote_code`."""

    def __init__(self, path: str, *, batch_size: int = 1, device: str = "auto", dtype: str = "auto",
                 trust_remote_code: bool = False) -> None:
        if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
            raise UserError(EXTRA_HINT)
        if batch_size < 1:
            raise UserError("the batch size must be at least 1", field="--batch-size")
        if dtype not in DTYPES:
            raise UserError(f"unknown dtype '{dtype}'; use one of {', '.join(sorted(DTYPES))}", field="dtype")
        self.path = path
        self.batch_size = batch_size
        # One model in one process: a second batch in flight would only wait for the first.
        self.concurrency = 1
        self.device = device
        self.dtype = dtype
        self.trust_remote_code = trust_remote_code
        # Resolved now, not at first use, so that a wrong path stops the run before anything starts.
        self.directory = resolve_model_dir(path)
        self._fingerprint: str | None = None
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> HFBackend:
        if not spec.path:
            raise UserError("the hf backend needs a model folder or repo id: hf:PATH", field="--model")
        options = dict(spec.options)
        unknown = sorted(set(options) - {"device", "dtype", "trust_remote_code"})
        if unknown:
            raise UserError(f"unknown hf option(s): {', '.join(unknown)}", field="options")
        trust = options.get("trust_remote_code", False)
        if not isinstance(trust, bool):  # a YAML "no" in quotes must not turn into True
            raise UserError("trust_remote_code must be true or false", field="options.trust_remote_code")
        return cls(spec.path, batch_size=settings.batch_size or 1, device=str(options.get("device", "auto")),
                   dtype=str(options.get("dtype", "auto")), trust_remote_code=trust)

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            digest = hashlib.sha256(b"mmgauge-hf-v1\0")
            # The dtype changes the numbers the model computes, hence its answers; the device is left out.
            digest.update(f"dtype={self.dtype}\0".encode())
            hash_model_files(digest, self.directory)
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "fingerprint": self.fingerprint(), "path": self.path, "directory": str(self.directory),
            "batch_size": self.batch_size, "device": self.device, "dtype": self.dtype,
            "trust_remote_code": self.trust_remote_code,
        }
        if self._loaded is not None:
            import transformers

            model = self._loaded.model
            info.update(resolved_device=self._loaded.device, resolved_dtype=str(model.dtype).split(".")[-1],
                        model_class=type(model).__name__, transformers=transformers.__version__)
        return info

    def load(self) -> None:
        """Load the model and processor now (otherwise the first `generate` does it)."""
        with self._lock:
            if self._loaded is None:
                self._loaded = _load(self.directory, self.device, self.dtype, self.trust_remote_code)

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        if not batch:
            return []
        await asyncio.to_thread(self.load)
        return await asyncio.to_thread(self._generate_all, list(batch))

    async def aclose(self) -> None:
        with self._lock:
            loaded, self._loaded = self._loaded, None
        if loaded is not None and loaded.device.startswith("cuda"):
            import torch

            del loaded
            torch.cuda.empty_cache()

    def _generate_all(self, requests: list[Request]) -> list[ModelResponse]:
        assert self._loaded is not None
        answers: dict[int, ModelResponse] = {}
        for start in range(0, len(requests), self.batch_size):
            chunk = range(start, min(start + self.batch_size, len(requests)))
            # One generate call takes one decoding setting, so a chunk with mixed configs is split further.
            for config in dict.fromkeys(requests[i].config for i in chunk):
                indices = [i for i in chunk if requests[i].config == config]
                group = _run_group(self._loaded, [requests[i] for i in indices], config)
                answers.update(zip(indices, group, strict=True))
        return [answers[i] for i in range(len(requests))]


def _pick_device(torch: Any, requested: str) -> str:
    if requested != "auto":
        if requested.startswith("cuda") and not torch.cuda.is_available():
            raise EndpointError(f"device '{requested}' requested but CUDA is not available", field="device")
        return requested
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def _pick_dtype(torch: Any, requested: str, device: str) -> Any:
    if requested != "auto":
        aliases = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
        return getattr(torch, aliases.get(requested, requested))
    # Half-precision matmuls on CPU are slow or missing; accelerators take the checkpoint's own dtype.
    return torch.float32 if device == "cpu" else "auto"


def _load(directory: Path, device_request: str, dtype_request: str, trust_remote_code: bool) -> _Loaded:
    try:
        import torch
        import transformers
    except ImportError:
        raise UserError(EXTRA_HINT) from None
    hf: Any = transformers  # only partly annotated; strict mypy would reject calls into it
    device = _pick_device(torch, device_request)
    dtype = _pick_dtype(torch, dtype_request, device)
    common: dict[str, Any] = {"local_files_only": True, "trust_remote_code": trust_remote_code}
    stage = "the processor"
    try:
        with no_transformers_progress_bars():
            processor = hf.AutoProcessor.from_pretrained(directory, **common)
            stage = "the model"
            model = _load_model(hf, directory, dtype, common)
            stage = f"the model onto {device}"
            model.to(device).eval()
    except Exception as error:
        raise EndpointError(f"cannot load {stage}: {one_line(error)}", file=str(directory)) from None

    tokenizer = getattr(processor, "tokenizer", processor)
    chat_template = _find_chat_template(processor, tokenizer)
    if chat_template is None:
        # Without the model's own template the prompt format would be a guess, and so would the scores.
        raise EndpointError("the model has no chat template (processor or tokenizer)", file=str(directory))
    # Decoder-only models continue the last token of each row, so padding must go on the left.
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    eos = model.generation_config.eos_token_id
    eos_ids = {eos} if isinstance(eos, int) else set(eos or [])
    if tokenizer.eos_token_id is not None:
        eos_ids.add(tokenizer.eos_token_id)
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = model.generation_config.pad_token_id
    multimodal = hasattr(processor, "image_processor")
    return _Loaded(model, processor, tokenizer, multimodal, chat_template, device, frozenset(eos_ids), pad_id)


def _load_model(hf: Any, directory: Path, dtype: Any, common: dict[str, Any]) -> Any:
    version = tuple(int(part) for part in re.findall(r"\d+", hf.__version__)[:2])
    dtype_option = {"dtype" if version >= (4, 56) else "torch_dtype": dtype}
    failures = []
    # Older releases call the vision-language auto class Vision2Seq; text-only chat models are CausalLM.
    for name in ("AutoModelForImageTextToText", "AutoModelForVision2Seq", "AutoModelForCausalLM"):
        if hasattr(hf, name):
            try:
                return getattr(hf, name).from_pretrained(directory, **common, **dtype_option)
            except ValueError as error:  # this auto class does not know the architecture: try the next
                failures.append(f"{name}: {one_line(error)}")
    raise ValueError("no transformers auto class can load it; " + "; ".join(failures))


def _find_chat_template(processor: Any, tokenizer: Any) -> str | None:
    for owner in (processor, tokenizer):
        template = getattr(owner, "chat_template", None)
        if isinstance(template, dict):  # named templates: the unnamed chat one is "default"
            template = template.get("default")
        if isinstance(template, str) and template:
            return template
    return None


def _run_group(loaded: _Loaded, requests: list[Request], config: GenerationConfig) -> list[ModelResponse]:
    started = time.perf_counter()
    items: dict[int, _Item] = {}
    responses: dict[int, ModelResponse] = {}
    for index, request in enumerate(requests):
        try:
            items[index] = _conversation(request, config, loaded.multimodal)
        except Exception as error:  # a broken image spoils its own request only
            responses[index] = ModelResponse(error=f"cannot prepare the request: {one_line(error)}")
    if items:
        responses.update(zip(items, _answer(loaded, list(items.values()), config), strict=True))
    latency = time.perf_counter() - started
    return [responses[i].model_copy(update={"latency_s": latency}) for i in range(len(requests))]


def _answer(loaded: _Loaded, items: list[_Item], config: GenerationConfig) -> list[ModelResponse]:
    try:
        return _generate(loaded, items, config)
    except Exception as error:
        if loaded.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
        out_of_memory = "out of memory" in str(error).lower() or "OutOfMemory" in type(error).__name__
        if len(items) > 1 and out_of_memory:
            # Memory ran out for the whole batch; alone, each request may still fit.
            return [answer for item in items for answer in _answer(loaded, [item], config)]
        return [ModelResponse(error=f"generation failed: {one_line(error)}") for _ in items]


def _conversation(request: Request, config: GenerationConfig, multimodal: bool) -> _Item:
    from PIL import Image

    messages: list[dict[str, Any]] = []
    images: list[Any] = []
    if config.system_prompt and not any(m.role == "system" for m in request.messages):
        messages.append({"role": "system", "content": [{"type": "text", "text": config.system_prompt}]})
    for message in request.messages:
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, ImagePart):
                if not multimodal:
                    raise ValueError("this model has no image processor, so it cannot take images")
                with Image.open(io.BytesIO(part.image.load())) as image:
                    images.append(image.convert("RGB"))
                parts.append({"type": "image"})
            else:
                parts.append({"type": "text", "text": part.text})
        messages.append({"role": message.role, "content": parts})
    if not multimodal:
        # Text-only chat templates expect plain strings as content.
        for entry in messages:
            entry["content"] = "\n".join(p["text"] for p in entry["content"])
    return messages, images


def _generate(loaded: _Loaded, items: list[_Item], config: GenerationConfig) -> list[ModelResponse]:
    import torch

    tokenizer = loaded.tokenizer
    template = loaded.processor.apply_chat_template
    prompts = [
        template(messages, chat_template=loaded.chat_template, add_generation_prompt=True, tokenize=False)
        for messages, _ in items
    ]
    # Templates that already write the BOS token must not get a second one from the tokenizer.
    bos = tokenizer.bos_token
    add_special = not (bos and all(p.startswith(bos) for p in prompts))
    encode: dict[str, Any] = {"text": prompts, "padding": True, "return_tensors": "pt",
                              "add_special_tokens": add_special}
    if any(images for _, images in items):
        encode["images"] = [images for _, images in items]
    inputs = loaded.processor(**encode) if loaded.multimodal else tokenizer(**encode)
    model = loaded.model
    # Pixel values arrive as float32 and must match the model's dtype; token ids stay integers.
    tensors = {
        key: value.to(loaded.device, dtype=model.dtype if value.is_floating_point() else value.dtype)
        for key, value in inputs.items()
        if isinstance(value, torch.Tensor)
    }

    options: dict[str, Any] = {"max_new_tokens": config.max_tokens, "pad_token_id": loaded.pad_id}
    if config.deterministic:
        # The checkpoint's generation_config may ask for sampling; temperature 0 means greedy regardless.
        options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    else:
        # Knobs the config does not set (top_k, repetition penalty) keep the checkpoint's defaults, like vLLM.
        options.update(do_sample=True, temperature=config.temperature)
        if config.top_p is not None:
            options["top_p"] = config.top_p
        if config.seed is not None:
            # transformers' generate takes no generator object, so the global RNGs are seeded per batch.
            torch.manual_seed(config.seed)
    with torch.inference_mode():
        output = model.generate(**tensors, **options)

    prompt_width = 0 if model.config.is_encoder_decoder else tensors["input_ids"].shape[1]
    mask = tensors.get("attention_mask")
    answers = []
    for row in range(len(items)):
        new_tokens = output[row, prompt_width:].tolist()
        # Rows that stop early are padded to the longest; everything after the first EOS is padding.
        stop = next((i for i, token in enumerate(new_tokens) if token in loaded.eos_ids), None)
        kept = new_tokens if stop is None else new_tokens[:stop]
        prompt_tokens = int(mask[row].sum()) if mask is not None else tensors["input_ids"].shape[1]
        answers.append(ModelResponse(
            text=tokenizer.decode(kept, skip_special_tokens=True).strip(),
            usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(kept) + (stop is not None)),
        ))
    return answers
