"""One `generate` call of the `hf` backend in steps.

`conversation` and `prepare` (on the model's thread): decode the images, write the prompts with the chat
template, run the processor, convert floats to the model's dtype and pin the tensors for a CUDA copy. `run`
(the model's thread, next): copy without blocking, generate, and bring the new tokens back in one copy.
`decode` (on the event loop, while the next batch is on the model's thread): one batched detokenisation.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from mmgauge.backends._hf_load import Loaded
from mmgauge.backends.base import Request
from mmgauge.backends.checkpoints import one_line
from mmgauge.core.types import GenerationConfig, ImagePart, ModelResponse, Usage

#: One request ready for the chat template: messages in transformers' format, and its decoded images in order.
Item = tuple[list[dict[str, Any]], list[Any]]


@dataclass
class Prepared:
    """The inputs of one generate call, made before the model's turn."""

    config: GenerationConfig
    #: Kept to retry one by one when the whole batch does not fit in memory.
    items: list[Item]
    #: On the CPU: floats already in the model's dtype, pinned when the model is on a CUDA device.
    tensors: dict[str, Any]
    prompt_tokens: list[int]


@dataclass
class Row:
    """What one request generated: its tokens up to the first end-of-sequence, or why it failed."""

    tokens: list[int]
    stopped: bool = False
    error: str | None = None

    @property
    def completion_tokens(self) -> int:
        return len(self.tokens) + self.stopped


def conversation(request: Request, config: GenerationConfig, multimodal: bool) -> Item:
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


def prepare(loaded: Loaded, items: list[Item], config: GenerationConfig) -> Prepared:
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
    with loaded.text_lock:
        inputs = loaded.processor(**encode) if loaded.multimodal else tokenizer(**encode)
    pin = loaded.device.startswith("cuda")
    dtype = loaded.model.dtype
    tensors = {}
    for key, value in inputs.items():
        if not hasattr(value, "is_floating_point"):
            continue
        # Pixel values arrive as float32 and must match the model's dtype (half the bytes to copy, too).
        value = value.to(dtype) if value.is_floating_point() else value
        tensors[key] = value.pin_memory() if pin else value
    mask = tensors.get("attention_mask")
    width = int(tensors["input_ids"].shape[1])
    prompt_tokens = mask.sum(dim=1).tolist() if mask is not None else [width] * len(items)
    return Prepared(config, items, tensors, [int(n) for n in prompt_tokens])


def run(loaded: Loaded, prepared: Prepared) -> list[Row]:
    """Generate (the model's turn); a batch that runs out of memory is retried one request at a time."""
    try:
        return _generate(loaded, prepared)
    except Exception as error:
        if loaded.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
        out_of_memory = "out of memory" in str(error).lower() or "OutOfMemory" in type(error).__name__
        if len(prepared.items) > 1 and out_of_memory:
            # Memory ran out for the whole batch; alone, each request may still fit.
            return [row for item in prepared.items
                    for row in run(loaded, prepare(loaded, [item], prepared.config))]
        return [Row([], error=f"generation failed: {one_line(error)}") for _ in prepared.items]


def _generate(loaded: Loaded, prepared: Prepared) -> list[Row]:
    import torch

    config = prepared.config
    model = loaded.model
    # From pinned memory the copies are queued behind whatever runs and the host does not wait for them.
    tensors = {key: value.to(loaded.device, non_blocking=True) for key, value in prepared.tensors.items()}
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
    # One copy back for the whole batch (a copy per row would wait on the device once per row).
    rows: list[list[int]] = output[:, prompt_width:].cpu().tolist()
    result = []
    for tokens in rows:
        # Rows that stop early are padded to the longest; everything after the first EOS is padding.
        stop = next((i for i, token in enumerate(tokens) if token in loaded.eos_ids), None)
        result.append(Row(tokens if stop is None else tokens[:stop], stopped=stop is not None))
    return result


def decode(loaded: Loaded, prepared: Prepared, rows: list[Row], latency_s: float) -> list[ModelResponse]:
    with loaded.text_lock:
        texts = loaded.tokenizer.batch_decode([row.tokens for row in rows], skip_special_tokens=True)
    return [
        ModelResponse(error=row.error, latency_s=latency_s) if row.error is not None else ModelResponse(
            text=text.strip(), latency_s=latency_s,
            usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=row.completion_tokens))
        for row, text, prompt_tokens in zip(rows, texts, prepared.prompt_tokens, strict=True)
    ]
