"""The embedded engine's text model weights: the bundled GGUF, converted once to safetensors, loaded.

Parsing and dequantizing the GGUF takes ~30 s (minutes on a slow machine); the same float32 weights saved as
safetensors load in about a second, with identical answers. The copy is made once, atomically.
torch and transformers are imported only inside these functions.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mmgauge.backends._quiet import no_transformers_progress_bars


def _set_threads(threads: int | None) -> None:
    import torch

    if threads is not None:
        torch.set_num_threads(threads)


#: Told (steps done, steps in all) as the conversion goes: reading the tokenizer, dequantizing each of the
#: GGUF's tensors, saving the copy.
TensorProgress = Callable[[int, int], None]


def convert_gguf(
    path: Path, converted: Path, threads: int | None, progress: TensorProgress | None = None
) -> tuple[Any, Any]:
    """(tokenizer, model) read from the GGUF at `path`, also kept as safetensors at `converted`; `progress`
    is told how far it has come, in steps: the tokenizer, each tensor dequantized, the copy saved. (Parsing
    the GGUF's metadata before the first tensor is about half the time and cannot be counted.)"""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    total = gguf_tensor_count(path) + 2

    def tell(done: int) -> None:
        if progress is not None:
            progress(min(done, total), total)

    _set_threads(threads)
    directory, name = str(path.parent), path.name
    tell(0)
    with no_transformers_progress_bars():
        tokenizer: Any = AutoTokenizer.from_pretrained(directory, gguf_file=name, local_files_only=True)
        tell(1)
        with _counting_tensors(lambda tensors, _: tell(1 + tensors)):
            model: Any = AutoModelForCausalLM.from_pretrained(directory, gguf_file=name,
                                                              local_files_only=True)
    model.to(torch.float32)  # the GGUF is dequantized; float32 keeps answers the same on every CPU
    _save_converted(tokenizer, model, converted)
    tell(total)
    return tokenizer, model


def gguf_tensor_count(path: Path) -> int:
    """How many tensors the GGUF file holds, from its header (0 when the header cannot be read)."""
    try:
        with path.open("rb") as handle:
            magic, _version, count = struct.unpack("<4sIQ", handle.read(16))
    except (OSError, struct.error):
        return 0
    return int(count) if magic == b"GGUF" else 0


@contextmanager
def _counting_tensors(progress: TensorProgress | None) -> Iterator[None]:
    """Count the tensors transformers dequantizes, for `progress`.

    transformers walks the GGUF's tensors in one loop wrapped in tqdm, its own bar on stderr that its logging
    switch does not silence, and reports nowhere else. For the conversion alone that module's `tqdm` is
    swapped for a counter that draws nothing; a transformers without that name converts uncounted.
    """
    import importlib

    gguf_utils: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    original = getattr(gguf_utils, "tqdm", None)
    if original is None:
        yield
        return

    def counting(iterable: Iterable[Any], *args: Any, **kwargs: Any) -> Iterator[Any]:
        items = list(iterable)
        for done, item in enumerate(items):
            if progress is not None:
                progress(done, len(items))
            yield item
        if progress is not None:
            progress(len(items), len(items))

    gguf_utils.tqdm = counting
    try:
        yield
    finally:
        gguf_utils.tqdm = original


def load_converted(converted: Path, threads: int | None) -> tuple[Any, Any]:
    """(tokenizer, model) from the safetensors copy `convert_gguf` made."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _set_threads(threads)
    tokenizer: Any = AutoTokenizer.from_pretrained(str(converted), local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(str(converted), local_files_only=True,
                                                      dtype=torch.float32)
    return tokenizer, model


def _save_converted(tokenizer: Any, model: Any, target: Path) -> None:
    """Keep a safetensors copy for fast loads; a failure only costs speed next time."""
    from safetensors.torch import save_model

    staging = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    try:
        staging.mkdir(parents=True, exist_ok=True)
        # transformers refuses save_pretrained on a GGUF-loaded model; the weights are plain float32 tensors,
        # so the config (without the GGUF marker) and the tensors are written directly.
        config = model.config.to_dict()
        config.pop("quantization_config", None)
        (staging / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        save_model(model, str(staging / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(str(staging))
        os.replace(staging, target)
    except (OSError, ValueError, RuntimeError):
        shutil.rmtree(staging, ignore_errors=True)
