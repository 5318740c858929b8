"""The bare transformers loop that `hf_gpu.py` measures mmgauge against, and its step profile.

Each runs as its own process, started by `hf_gpu.py`:

- `bare`: load the processor and model, read the MME folder, write each prompt with the processor's chat
  template (one image, then the question: what mmgauge sends), batches of B in data order, left padding,
  greedy `generate`, one copy back and one batched decode per batch; one JSON line per answer as it goes,
  and the load time, generate time, tokens, peak GPU memory and device beside it (`.figures`);
- `profile`: the same loop's steps timed on a warm-up batch and three more (see `hf_gpu.py`).

Usage: python bench/hf_bare.py {bare,profile} MODEL DATA OUT BATCH_SIZE MAX_TOKENS
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def load_bare(model_dir: Path) -> tuple[Any, Any, str]:
    import torch
    import transformers

    hf: Any = transformers
    device = "cuda" if torch.cuda.is_available() else "cpu"
    processor = hf.AutoProcessor.from_pretrained(model_dir)
    processor.tokenizer.padding_side = "left"
    dtype = torch.float32 if device == "cpu" else "auto"
    model = hf.AutoModelForImageTextToText.from_pretrained(model_dir, dtype=dtype, device_map={"": device})
    model.eval()
    return processor, model, device


def read_work(data: Path) -> list[tuple[Path, str]]:
    work = []
    for text in sorted(data.rglob("*.txt")):
        for line in text.read_text().splitlines():
            work.append((text.with_suffix(".jpg"), line.split("\t")[0]))
    return work


def open_images(batch: list[tuple[Path, str]]) -> list[Any]:
    from PIL import Image

    images = []
    for path, _ in batch:
        with Image.open(path) as image:
            images.append(image.convert("RGB"))
    return images


def encode(processor: Any, batch: list[tuple[Path, str]], images: list[Any]) -> Any:
    prompts = [processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}],
        add_generation_prompt=True, tokenize=False) for _, question in batch]
    # The template writes the BOS token itself.
    return processor(text=prompts, images=images, padding=True, return_tensors="pt", add_special_tokens=False)


def bare(model_dir: Path, data: Path, answers: Path, batch_size: int, max_tokens: int) -> None:
    import torch

    started = time.perf_counter()
    processor, model, device = load_bare(model_dir)
    eos = {processor.tokenizer.eos_token_id, model.generation_config.eos_token_id}
    load_s = time.perf_counter() - started
    work = read_work(data)
    generate_s, tokens = 0.0, 0
    with answers.open("w") as out:
        for start in range(0, len(work), batch_size):
            batch = work[start:start + batch_size]
            inputs = encode(processor, batch, open_images(batch)).to(device)
            inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
            began = time.perf_counter()
            with torch.inference_mode():
                output = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False,
                                        pad_token_id=processor.tokenizer.pad_token_id)
            rows = output[:, inputs["input_ids"].shape[1]:].cpu().tolist()
            generate_s += time.perf_counter() - began
            kept = [next((row[:i] for i, t in enumerate(row) if t in eos), row) for row in rows]
            tokens += sum(len(row) + (len(row) < len(full)) for row, full in zip(kept, rows, strict=True))
            texts = processor.tokenizer.batch_decode(kept, skip_special_tokens=True)
            for (_, question), text in zip(batch, texts, strict=True):
                out.write(json.dumps({"question": question, "answer": text.strip()}) + "\n")
            out.flush()
    peak = int(torch.cuda.max_memory_allocated()) if device == "cuda" else None
    # Named as the hf backend names it in the manifest.
    name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or platform.machine()
    answers.with_suffix(".figures").write_text(json.dumps({
        "load_s": load_s, "generate_s": generate_s, "completion_tokens": tokens,
        "peak_gpu_memory_bytes": peak, "device_name": name}))


def profile(model_dir: Path, data: Path, figures: Path, batch_size: int, max_tokens: int) -> None:
    """Time each step of the bare loop on a warm-up batch and three more; the medians go to `figures`."""
    from concurrent.futures import ThreadPoolExecutor

    import torch

    processor, model, device = load_bare(model_dir)

    def synced() -> float:
        if device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter()

    work = read_work(data)
    samples: dict[str, list[float]] = {}
    for number in range(4):
        batch = work[number * batch_size:(number + 1) * batch_size]
        t0 = synced()
        images = open_images(batch)
        t1 = synced()
        inputs = encode(processor, batch, images)
        t2 = synced()
        # The same processor work in four slices on four threads: what a parallel preparation could save.
        parts = [(batch[k::4], images[k::4]) for k in range(4)]
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda part: encode(processor, *part), parts))
        t3 = synced()
        inputs = inputs.to(device)
        inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
        t4 = synced()
        with torch.inference_mode():
            model.generate(**inputs, max_new_tokens=1, do_sample=False,
                           pad_token_id=processor.tokenizer.pad_token_id)
            t5 = synced()
            model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False,
                           pad_token_id=processor.tokenizer.pad_token_id)
            t6 = synced()
            # The same generate while another thread runs the processor (as a prepared-ahead batch would).
            with ThreadPoolExecutor(1) as pool:
                beside = pool.submit(encode, processor, batch, images)
                model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False,
                               pad_token_id=processor.tokenizer.pad_token_id)
                t7 = synced()
                beside.result()
        if number == 0:  # warm-up
            continue
        for key, value in (("open_images", t1 - t0), ("processor", t2 - t1), ("processor_4_threads", t3 - t2),
                           ("to_device", t4 - t3), ("prefill", t5 - t4), ("generate", t6 - t5),
                           ("per_decode_step", (t6 - t5 - (t5 - t4)) / max(max_tokens - 1, 1)),
                           ("generate_beside_processor", t7 - t6)):
            samples.setdefault(key, []).append(value)
    # Greedy answers of a random-weight model sit on near ties, so rounding that depends on the batch's shape
    # (its padding, its other rows) can flip them: how often, for eight requests alone against in a batch.
    batch = work[batch_size:2 * batch_size]
    with torch.inference_mode():
        inputs = encode(processor, batch, open_images(batch)).to(device)
        inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
        width = inputs["input_ids"].shape[1]
        together = model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False,
                                  pad_token_id=processor.tokenizer.pad_token_id)[:, width:].tolist()
        alone_same = 0
        for row, item in enumerate(batch[:8]):
            single = encode(processor, [item], open_images([item])).to(device)
            single["pixel_values"] = single["pixel_values"].to(model.dtype)
            output = model.generate(**single, max_new_tokens=max_tokens, do_sample=False,
                                    pad_token_id=processor.tokenizer.pad_token_id)
            alone_same += output[0, single["input_ids"].shape[1]:].tolist() == together[row]
    figures.write_text(json.dumps({
        "identical_alone_and_batched_of_8": alone_same,
        "per_batch_s": {key: statistics.median(values) for key, values in samples.items()},
        "image_processor": type(processor.image_processor).__name__, "torch_threads": torch.get_num_threads(),
        "attention": getattr(model.config, "_attn_implementation", None)}))


if __name__ == "__main__":
    role, model_dir, data, out, batch_size, max_tokens = sys.argv[1:7]
    run = {"bare": bare, "profile": profile}[role]
    run(Path(model_dir), Path(data), Path(out), int(batch_size), int(max_tokens))
