"""The hf backend against a bare transformers `generate` loop: same model, prompts and images (issue 25).

Builds a random-weight Llava offline: `LLAVA_1B` (CLIP-L/14 at 336 px, 576 image tokens, a 1.1B Llama),
initialised on the GPU and saved in bf16; with `--tiny`, the tests' tiny model on the CPU (a smoke run).
Writes MME data in the release-folder layout (`--images` images, two yes/no questions each, of different
lengths). Then, taking turns going first (`--repeat` rounds), each in its own process:

- mmgauge: `mmgauge run --model hf:MODEL --bench mme --data DATA --batch-size B --max-tokens T --no-cache`;
- bare: load the processor and model, read the same folder, write each prompt with the processor's chat
  template (one image, then the question: what mmgauge sends), batches of B in data order, left padding,
  greedy `generate`, one copy back and one batched decode per batch.

Both append one line per answer as they go (mmgauge to its run log); this process polls those files for the
time to the first answer and the steady throughput (answers/s between the 10% and 90% marks). Whole-process
time includes Python start-up, imports, loading, and (mmgauge) scoring. Each client's best round counts.
Prints a table, then one JSON object on its last line.

Usage: python bench/hf_gpu.py [--tiny] [--images 580] [--batch-size 32] [--max-tokens 32] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OBJECTS = ("dog", "red car", "wooden chair", "bicycle", "traffic light", "person holding an umbrella")
SIDES = ("left", "right", "top", "bottom")
SIZES = ((640, 480), (512, 384), (800, 600), (480, 640))
SUBTASKS = ("existence", "count", "position", "color", "OCR")
MMGAUGE = "from mmgauge.cli.main import main; main()"


def questions(number: int) -> tuple[str, str]:
    thing = OBJECTS[number % len(OBJECTS)]
    side = SIDES[number % len(SIDES)]
    # Unique per image (answers are matched by question text) and of different lengths, as MME's are.
    return (f"Is there a {thing} in image {number}? Please answer yes or no.",
            f"Is the {thing} on the {side} side of image {number}, next to the tall building with the "
            "blue sign? Please answer yes or no.")


def write_data(root: Path, images: int) -> Path:
    from PIL import Image, ImageDraw

    for number in range(images):
        folder = root / SUBTASKS[number % len(SUBTASKS)]
        folder.mkdir(parents=True, exist_ok=True)
        width, height = SIZES[number % len(SIZES)]
        image = Image.new("RGB", (width, height), ((number * 53) % 256, (number * 97) % 256, 120))
        draw = ImageDraw.Draw(image)
        for k in range(6):
            x, y = (number * 37 + k * 101) % width, (number * 61 + k * 67) % height
            colour = ((k * 80) % 256, 200, (number * 7) % 256)
            draw.ellipse((x, y, x + 60 + k * 10, y + 40 + k * 12), fill=colour)
        image.save(folder / f"{number:05d}.jpg", quality=90)
        yes, no = questions(number)
        (folder / f"{number:05d}.txt").write_text(f"{yes}\tYes\n{no}\tNo\n")
    return root


def build(model: Path, tiny: bool) -> None:
    from mmgauge.testing.tiny_vlm import LLAVA_1B, TINY, build_random_vlm

    if tiny:
        build_random_vlm(model, TINY)
    else:
        build_random_vlm(model, LLAVA_1B, dtype="bfloat16", device="cuda")


# -- the bare loop (its own process) -------------------------------------------------------------------------

def bare(model_dir: Path, data: Path, answers: Path, batch_size: int, max_tokens: int) -> None:
    import torch
    import transformers
    from PIL import Image

    hf: Any = transformers
    started = time.perf_counter()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    processor = hf.AutoProcessor.from_pretrained(model_dir)
    processor.tokenizer.padding_side = "left"
    dtype = torch.float32 if device == "cpu" else "auto"
    model = hf.AutoModelForImageTextToText.from_pretrained(model_dir, dtype=dtype, device_map={"": device})
    model.eval()
    eos = {processor.tokenizer.eos_token_id, model.generation_config.eos_token_id}
    load_s = time.perf_counter() - started
    work = []
    for text in sorted(data.rglob("*.txt")):
        for line in text.read_text().splitlines():
            work.append((text.with_suffix(".jpg"), line.split("\t")[0]))
    generate_s, tokens = 0.0, 0
    with answers.open("w") as out:
        for start in range(0, len(work), batch_size):
            batch = work[start:start + batch_size]
            images = []
            for path, _ in batch:
                with Image.open(path) as image:
                    images.append(image.convert("RGB"))
            prompts = [processor.apply_chat_template(
                [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}],
                add_generation_prompt=True, tokenize=False) for _, question in batch]
            # The template writes the BOS token itself.
            inputs = processor(text=prompts, images=images, padding=True, return_tensors="pt",
                               add_special_tokens=False).to(device)
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


# -- driving and measuring -----------------------------------------------------------------------------------

def timed(command: list[str], answers: Path, log: Path) -> tuple[float, list[tuple[float, int]]]:
    """Run `command`, polling `answers` for its line count: (seconds, [(time, count) at each change])."""
    started = time.perf_counter()
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        timeline: list[tuple[float, int]] = []
        while True:
            finished = process.poll() is not None
            count = answers.read_bytes().count(b"\n") if answers.exists() else 0
            if count and (not timeline or timeline[-1][1] != count):
                timeline.append((time.perf_counter() - started, count))
            if finished:
                break
            time.sleep(0.01)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({process.returncode}); see {log}")
    return seconds, timeline


def steady_rps(timeline: list[tuple[float, int]], total: int) -> float | None:
    def mark(share: float) -> tuple[float, int]:
        return next(point for point in timeline if point[1] >= share * total)

    (t0, c0), (t1, c1) = mark(0.1), mark(0.9)
    if t1 <= t0:  # a run of a batch or two: from the first answer to the last instead
        (t0, c0), (t1, c1) = timeline[0], timeline[-1]
    return (c1 - c0) / (t1 - t0) if t1 > t0 else None


def run_mmgauge(model: Path, data: Path, out: Path, args: argparse.Namespace, total: int) -> dict[str, Any]:
    from mmgauge.store.run_folder import RunFolder

    command = [sys.executable, "-c", MMGAUGE, "run", "--model", f"hf:{model}", "--bench", "mme", "--data",
               str(data), "--out", str(out), "--batch-size", str(args.batch_size), "--max-tokens",
               str(args.max_tokens), "--no-cache"]
    seconds, timeline = timed(command, out / RunFolder.name_of("records"), out.with_suffix(".log"))
    folder = RunFolder(out)
    manifest = folder.read_manifest()
    stats = manifest.invocations[-1].generation if manifest is not None else None
    return {"seconds": seconds, "first_answer_s": timeline[0][0], "steady_rps": steady_rps(timeline, total),
            "tokens_per_s": stats.tokens_per_s if stats else None,
            "peak_gpu_memory_bytes": stats.peak_gpu_memory_bytes if stats else None,
            "device_name": stats.device_name if stats else None,
            "answers": {record.prompt: record.response.text for record in folder.raw_records().values()}}


def run_bare(model: Path, data: Path, answers: Path, args: argparse.Namespace, total: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--role", "bare", "--model", str(model), "--data", str(data),
               "--answers", str(answers), "--batch-size", str(args.batch_size), "--max-tokens",
               str(args.max_tokens)]
    seconds, timeline = timed(command, answers, answers.with_suffix(".log"))
    figures = json.loads(answers.with_suffix(".figures").read_text())
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    return {"seconds": seconds, "first_answer_s": timeline[0][0], "steady_rps": steady_rps(timeline, total),
            "load_s": figures["load_s"], "generate_s": figures["generate_s"],
            "tokens_per_s": figures["completion_tokens"] / figures["generate_s"],
            "peak_gpu_memory_bytes": figures["peak_gpu_memory_bytes"], "device_name": figures["device_name"],
            "answers": {line["question"]: line["answer"] for line in lines}}


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    top = min(runs, key=lambda run: run["seconds"])
    steady = [run["steady_rps"] for run in runs if run["steady_rps"] is not None]
    return {**top, "steady_rps": max(steady) if steady else None,
            "first_answer_s": min(run["first_answer_s"] for run in runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="the tests' tiny model on the CPU (smoke run)")
    parser.add_argument("--images", type=int, default=580, help="two questions each")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2, help="rounds, each client once a round")
    parser.add_argument("--work", type=Path, help="keep the model, data and runs here (default: a temp dir)")
    parser.add_argument("--role", choices=("bare",), help=argparse.SUPPRESS)
    parser.add_argument("--model", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--answers", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "bare":
        bare(args.model, args.data, args.answers, args.batch_size, args.max_tokens)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        model, data = work / ("model-tiny" if args.tiny else "model-llava-1b"), work / f"mme-{args.images}"
        if not (model / "config.json").exists():
            build(model, args.tiny)
        if not data.exists():
            write_data(data, args.images)
        total = 2 * args.images
        runs: dict[str, list[dict[str, Any]]] = {"mmgauge": [], "bare": []}
        stamp = time.strftime("%H%M%S")
        for round_ in range(args.repeat):
            # Taking turns going first: the page cache and the machine's load favour neither.
            for name in ("mmgauge", "bare") if round_ % 2 == 0 else ("bare", "mmgauge"):
                target = work / f"{name}-{stamp}-{round_}"
                runs[name].append(run_mmgauge(model, data, target, args, total) if name == "mmgauge"
                                  else run_bare(model, data, target.with_suffix(".jsonl"), args, total))
        report(args, best(runs["mmgauge"]), best(runs["bare"]), total)


def report(args: argparse.Namespace, ours: dict[str, Any], theirs: dict[str, Any], total: int) -> None:
    same = sum(ours["answers"].get(question) == answer for question, answer in theirs["answers"].items())
    steady = (ours["steady_rps"] / theirs["steady_rps"]
              if ours["steady_rps"] and theirs["steady_rps"] else None)
    print(f"{total} requests, batch {args.batch_size}, {args.max_tokens} new tokens, "
          f"{'tiny model' if args.tiny else 'Llava 1B shape'} on {ours['device_name']}")
    print(f"{'client':>8} {'seconds':>8} {'first s':>8} {'steady/s':>9} {'tokens/s':>9} {'peak GiB':>9}")
    for name, row in (("mmgauge", ours), ("bare", theirs)):
        peak = row["peak_gpu_memory_bytes"]
        print(f"{name:>8} {row['seconds']:>8.2f} {row['first_answer_s']:>8.2f} "
              f"{row['steady_rps'] or 0:>9.2f} {row['tokens_per_s'] or 0:>9.1f} "
              f"{peak / 2**30 if peak else 0:>9.2f}")
    print(f"steady throughput ratio {steady or 0:.3f} (target >= 1.0, then >= 1.5); end to end ratio "
          f"{ours['seconds'] / theirs['seconds']:.3f} (target <= 1.1); identical answers {same} of {total}")
    keys = ("seconds", "first_answer_s", "steady_rps", "tokens_per_s", "peak_gpu_memory_bytes", "device_name")
    print(json.dumps({
        "tiny": args.tiny, "requests": total, "batch_size": args.batch_size, "max_tokens": args.max_tokens,
        "repeat": args.repeat, "mmgauge": {key: ours[key] for key in keys},
        "bare": {key: theirs[key] for key in (*keys, "load_s", "generate_s")},
        "steady_throughput_ratio": steady, "end_to_end_ratio": ours["seconds"] / theirs["seconds"],
        "identical_answers": same,
    }))


if __name__ == "__main__":
    main()
