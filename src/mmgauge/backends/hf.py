"""A local Hugging Face transformers vision-language model, run in-process and offline.

The model comes from a local folder or from the local Hugging Face cache by repo id; nothing is downloaded.
Prompts go through the processor's own chat template, batches are left-padded, and all work runs off the
event loop's thread, so that progress bars and run log writes keep going. torch and transformers are imported
only when the model is loaded, so this module imports without the `hf` extra.

Where the time goes, and what keeps the device busy:

- loading starts in a thread at `warm_up` (the session calls it before reading the data), processor first;
- requests are cut into batches in order of (settings, image count, prompt tokens), so a batch pads little;
- each batch is read (images decoded), prepared (chat template, processor) and generated on the model's
  thread, as in a plain loop (`model_thread` says why); two batches are in flight, so that the previous one
  is detokenised and recorded on the event loop while the next one is on the model's thread (`_hf_batch`).

Continuous batching (`generate_batch`, `ContinuousBatchingManager`) is not used: in transformers 5 it takes
token ids only, with no pixel values, so a Llava-type model would answer without seeing its images.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mmgauge.backends import _hf_batch as batching
from mmgauge.backends._hf_load import Loaded, Loading, load_processor
from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.checkpoints import EXTRA_HINT, hash_model_files, one_line, resolve_model_dir
from mmgauge.backends.model_thread import ModelThread
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, GenerationStats, ModelResponse, ModelSpec

DTYPES = {"auto", "float32", "fp32", "bfloat16", "bf16", "float16", "fp16", "half"}

#: A batch's requests of one generation setting (their positions in the batch), ready for the model.
_Group = tuple[list[int], batching.Prepared]


@dataclass
class _Tally:
    requests: int = 0
    completion_tokens: int = 0
    generate_s: float = 0.0


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
        # One batch on the model's thread and the next one queued for it (the previous one is detokenised and
        # recorded meanwhile): a third would only wait.
        self.concurrency = 2
        self.device = device
        self.dtype = dtype
        self.trust_remote_code = trust_remote_code
        # Resolved now, not at first use, so that a wrong path stops the run before anything starts.
        self.directory = resolve_model_dir(path)
        self._fingerprint: str | None = None
        self._loading: Loading | None = None
        self._lock = threading.Lock()
        #: Makes each batch's inputs and generates them, in turn.
        self._model_thread = ModelThread("mmgauge-hf-model")
        self._tally = _Tally()

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        return cls.path_spec(name, rest)

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
        loaded = self._finished()
        if loaded is not None:
            import transformers

            model = loaded.model
            info.update(resolved_device=loaded.device, device_name=loaded.device_name,
                        resolved_dtype=str(model.dtype).split(".")[-1], model_class=type(model).__name__,
                        transformers=transformers.__version__)
        return info

    def warm_up(self) -> None:
        self._begin()

    def load(self) -> Loaded:
        """The loaded model and processor, loading them now if no `warm_up` did (waits for one that did)."""
        return self._begin().loaded.result()

    def batch_order(self, requests: Sequence[Request]) -> list[int]:
        if self.batch_size == 1:  # nothing is padded
            return list(range(len(requests)))
        # Rows are padded to the batch's longest prompt: neighbours of similar length waste little. A batch
        # holds one generation setting, and a model's image tokens are counted per image, hence the key.
        settings: dict[GenerationConfig, int] = {}
        images = [r.image_count() for r in requests]
        texts = ["\n".join(message.text() for message in r.messages) for r in requests]
        tokenizer = self._tokenizer()
        lengths = ([len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]
                   if tokenizer is not None and texts else [len(text) for text in texts])
        keys = [(settings.setdefault(r.config, len(settings)), n, length)
                for r, n, length in zip(requests, images, lengths, strict=True)]
        return sorted(range(len(requests)), key=keys.__getitem__)

    def generation_stats(self) -> GenerationStats | None:
        loaded = self._finished()
        tally = self._tally
        if loaded is None or tally.requests == 0:
            return None
        peak = None
        if loaded.device.startswith("cuda"):
            import torch

            peak = int(torch.cuda.max_memory_allocated(loaded.device))
        return GenerationStats(
            device=loaded.device, device_name=loaded.device_name, requests=tally.requests,
            completion_tokens=tally.completion_tokens, generate_s=round(tally.generate_s, 6),
            tokens_per_s=round(tally.completion_tokens / tally.generate_s, 3) if tally.generate_s else 0.0,
            peak_gpu_memory_bytes=peak,
        )

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        if not batch:
            return []
        loaded = await asyncio.to_thread(self.load)
        # Reading the images, the processor and the model all run on the model's thread, one batch after the
        # other as in a plain loop (`model_thread` says why; with the images decoded on a thread beside it,
        # generate lost a third of its speed on a 2-core machine and the run gained nothing).
        groups, failed, outcomes, work_s = await self._model_thread.run(self._prepare_and_run, loaded,
                                                                        list(batch))
        started = time.perf_counter()
        answers = dict(failed)
        for (indices, prepared), rows in zip(groups, outcomes, strict=True):
            # Preparing, generating and decoding; not the wait for the model's thread.
            latency = work_s + time.perf_counter() - started
            answers.update(zip(indices, batching.decode(loaded, prepared, rows, latency), strict=True))
        return [answers[i] for i in range(len(batch))]

    async def aclose(self) -> None:
        loaded = self._finished()
        with self._lock:
            self._loading = None
        self._model_thread.close()
        # A load still running is dropped when its thread ends; nothing refers to it any more.
        if loaded is not None and loaded.device.startswith("cuda"):
            import torch

            del loaded
            torch.cuda.empty_cache()

    # -- parts -----------------------------------------------------------------------------------------------

    def _begin(self) -> Loading:
        with self._lock:
            if self._loading is None or self._failed(self._loading):
                self._loading = Loading(self.directory, self.device, self.dtype, self.trust_remote_code)
            return self._loading

    @staticmethod
    def _failed(loading: Loading) -> bool:
        # A failed load is tried again at the next call, as a model that failed to load at first use was.
        return loading.loaded.done() and loading.loaded.exception() is not None

    def _finished(self) -> Loaded | None:
        loading = self._loading
        if loading is None or not loading.loaded.done() or loading.loaded.exception() is not None:
            return None
        return loading.loaded.result()

    def _tokenizer(self) -> Any:
        """The tokenizer: the warm-up's (waiting for the processor only), else loaded alone (a Ray driver)."""
        loading = self._loading
        try:
            processor = (loading.processor.result() if loading is not None
                         else load_processor(self.directory, self.trust_remote_code))
        except Exception:  # the model's first batch reports it; the order only loses its length key
            return None
        return getattr(processor, "tokenizer", processor)

    def _prepare_and_run(
        self, loaded: Loaded, requests: list[Request]
    ) -> tuple[list[_Group], dict[int, ModelResponse], list[list[batching.Row]], float]:
        """Make the model's inputs and generate, on the model's thread."""
        started = time.perf_counter()
        groups: list[_Group] = []
        failed: dict[int, ModelResponse] = {}
        for start in range(0, len(requests), self.batch_size):
            chunk = range(start, min(start + self.batch_size, len(requests)))
            # One generate call takes one decoding setting, so a chunk with mixed configs is split further; so
            # is one whose rows hold different numbers of images, for a model whose answers then depend on the
            # batch (`Loaded.equal_image_counts`; `batch_order` keeps equal counts together).
            keys = {i: (requests[i].config, requests[i].image_count() if loaded.equal_image_counts else 0)
                    for i in chunk}
            for key in dict.fromkeys(keys.values()):
                config = key[0]
                items: dict[int, batching.Item] = {}
                for i in (i for i in chunk if keys[i] == key):
                    try:
                        items[i] = batching.conversation(requests[i], config, loaded.multimodal)
                    except Exception as error:  # a broken image spoils its own request only
                        failed[i] = ModelResponse(error=f"cannot prepare the request: {one_line(error)}")
                if not items:
                    continue
                try:
                    groups.append((list(items), batching.prepare(loaded, list(items.values()), config)))
                except Exception as error:  # the processor refused the batch: it fails, as in generation
                    message = f"generation failed: {one_line(error)}"
                    failed.update({i: ModelResponse(error=message) for i in items})
        return groups, failed, self._run(loaded, groups), time.perf_counter() - started

    def _run(self, loaded: Loaded, groups: list[_Group]) -> list[list[batching.Row]]:
        """Generate every group and count what was generated."""
        started = time.perf_counter()
        outcomes = [batching.run(loaded, prepared) for _, prepared in groups]
        tally = self._tally
        tally.generate_s += time.perf_counter() - started
        for rows in outcomes:
            done = [row for row in rows if row.error is None]
            tally.requests += len(done)
            tally.completion_tokens += sum(row.completion_tokens for row in done)
        return outcomes
