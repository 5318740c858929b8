"""The hf backend against a bare transformers `generate` loop: same model, prompts and images (issue 25).

Builds a random-weight Llava offline: `LLAVA_1B` (CLIP-L/14 at 336 px, 576 image tokens, a 1.1B Llama),
initialised on the GPU and saved in bf16; with `--tiny`, the tests' tiny model on the CPU (a smoke run).
Writes MME data in the release-folder layout (`--images` images, two yes/no questions each, of different
lengths). Then, taking turns going first (`--repeat` rounds), each in its own process:

- mmgauge: `mmgauge run --model hf:MODEL --bench mme --data DATA --batch-size B --max-tokens T --no-cache`;
- bare: a plain transformers loop over the same folder, batches of B in data order (`hf_bare.py`).

Both append one line per answer as they go (mmgauge to its run log); this process polls those files for the
time to the first answer and the steady throughput (answers/s between the 10% and 90% marks). Whole-process
time includes Python start-up, imports, loading, and (mmgauge) scoring; CPU time (the process's user + system)
is printed beside it. Each round gives a pair ratio; the median over the rounds is reported, never the best.

`--profile` then takes the bare loop apart on a few batches (its own process): opening the images, the
processor (also split over four threads), the copy to the device, `generate` with one new token (the
prefill) and with all of them, so that the per-step decoding cost shows, and `generate` again while another
thread runs the processor (what preparing the next batch beside the model costs it).

With `--py-spy DIR`, py-spy samples the last round's two processes from outside (`py_spy.py`; where it is
installed) and a summary of where their time went follows the table.

Prints a table, then one JSON object on its last line (also `--json-out`).

After the rounds, both answer `--check-images` images' questions one at a time, and the bare loop once more
in a second process (what the device repeats of itself): nothing is padded, so the answers must be identical
(in batches, rows are padded differently and random weights' greedy answers sit on near ties, so about half
of them flip in bf16).

Usage: python bench/hf_gpu.py [--tiny] [--images 580] [--batch-size 32] [--max-tokens 32] [--repeat 2]
       [--check-images 16] [--profile] [--py-spy DIR] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import py_spy

OBJECTS = ("dog", "red car", "wooden chair", "bicycle", "traffic light", "person holding an umbrella")
SIDES = ("left", "right", "top", "bottom")
SIZES = ((640, 480), (512, 384), (800, 600), (480, 640))
SUBTASKS = ("existence", "count", "position", "color", "OCR")
MMGAUGE = "from mmgauge.cli.main import main; main()"
#: The bare loop and its profile, each run as its own process.
BARE = Path(__file__).with_name("hf_bare.py")


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


# -- driving and measuring -----------------------------------------------------------------------------------

def timed(command: list[str], answers: Path, log: Path, sampled: Path | None = None,
          ) -> tuple[float, float, list[tuple[float, int]]]:
    """Run `command`, polling `answers` for its line count: (seconds, CPU seconds, [(time, count)]); with
    `sampled`, py-spy samples it into that file meanwhile, where py-spy is installed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        sampler = py_spy.attach(process.pid, sampled) if sampled is not None else None
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
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the child is reaped by poll(), so it is counted
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if sampler is not None:  # reaped after the CPU time is read: py-spy's own is not the process's
        py_spy.finish(sampler)
    if process.returncode != 0:
        tail = log.read_text()[-3000:]
        raise SystemExit(f"{command[:4]} failed ({process.returncode}); see {log}:\n{tail}")
    return seconds, cpu, timeline


def steady_rps(timeline: list[tuple[float, int]], total: int) -> float | None:
    def mark(share: float) -> tuple[float, int]:
        return next(point for point in timeline if point[1] >= share * total)

    (t0, c0), (t1, c1) = mark(0.1), mark(0.9)
    if t1 <= t0:  # a run of a batch or two: from the first answer to the last instead
        (t0, c0), (t1, c1) = timeline[0], timeline[-1]
    return (c1 - c0) / (t1 - t0) if t1 > t0 else None


def run_mmgauge(model: Path, data: Path, out: Path, args: argparse.Namespace, total: int,
                sampled: Path | None = None) -> dict[str, Any]:
    from mmgauge.store.run_folder import RunFolder

    command = [sys.executable, "-c", MMGAUGE, "run", "--model", f"hf:{model}", "--bench", "mme", "--data",
               str(data), "--out", str(out), "--batch-size", str(args.batch_size), "--max-tokens",
               str(args.max_tokens), "--no-cache"]
    records = out / RunFolder.name_of("records")
    seconds, cpu, timeline = timed(command, records, out.with_suffix(".log"), sampled)
    folder = RunFolder(out)
    manifest = folder.read_manifest()
    stats = manifest.invocations[-1].generation if manifest is not None else None
    return {"seconds": seconds, "cpu_s": cpu, "first_answer_s": timeline[0][0],
            "steady_rps": steady_rps(timeline, total), "tokens_per_s": stats.tokens_per_s if stats else None,
            "generate_s": stats.generate_s if stats else None,
            "peak_gpu_memory_bytes": stats.peak_gpu_memory_bytes if stats else None,
            "device_name": stats.device_name if stats else None,
            "answers": {record.prompt: record.response.text for record in folder.raw_records().values()}}


def run_bare(model: Path, data: Path, answers: Path, args: argparse.Namespace, total: int,
             sampled: Path | None = None) -> dict[str, Any]:
    command = [sys.executable, str(BARE), "bare", str(model), str(data), str(answers), str(args.batch_size),
               str(args.max_tokens)]
    seconds, cpu, timeline = timed(command, answers, answers.with_suffix(".log"), sampled)
    figures = json.loads(answers.with_suffix(".figures").read_text())
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    return {"seconds": seconds, "cpu_s": cpu, "first_answer_s": timeline[0][0],
            "steady_rps": steady_rps(timeline, total), "load_s": figures["load_s"],
            "generate_s": figures["generate_s"],
            "tokens_per_s": figures["completion_tokens"] / figures["generate_s"],
            "peak_gpu_memory_bytes": figures["peak_gpu_memory_bytes"], "device_name": figures["device_name"],
            "answers": {line["question"]: line["answer"] for line in lines}}


FIGURES = ("seconds", "cpu_s", "first_answer_s", "steady_rps", "tokens_per_s", "generate_s")


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (the device and the memory peak are the same every round)."""
    middle = {key: statistics.median(run[key] for run in runs) for key in FIGURES
              if all(run[key] is not None for run in runs)}
    return {**runs[-1], **{key: middle.get(key) for key in FIGURES}}


def pair_ratios(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> dict[str, float | None]:
    """The median over rounds of each round's ratio, mmgauge over the bare loop (steady: throughput ratio)."""
    def median(values: list[float | None]) -> float | None:
        known = [value for value in values if value is not None]
        return statistics.median(known) if len(known) == len(values) else None

    return {
        "end_to_end_ratio": median([a["seconds"] / b["seconds"] for a, b in zip(ours, theirs, strict=True)]),
        "cpu_ratio": median([a["cpu_s"] / b["cpu_s"] for a, b in zip(ours, theirs, strict=True)]),
        "steady_throughput_ratio": median([
            a["steady_rps"] / b["steady_rps"] if a["steady_rps"] and b["steady_rps"] else None
            for a, b in zip(ours, theirs, strict=True)]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="the tests' tiny model on the CPU (smoke run)")
    parser.add_argument("--images", type=int, default=580, help="two questions each")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=2, help="rounds, each client once a round")
    parser.add_argument("--check-images", type=int, default=16,
                        help="then compare answers at batch 1 on this many images (0: skip)")
    parser.add_argument("--profile", action="store_true", help="then time the bare loop's steps")
    parser.add_argument("--json-out", type=Path, help="also write the final JSON object here")
    parser.add_argument("--py-spy", type=Path, metavar="DIR",
                        help="sample the last round's two processes with py-spy into DIR (where installed)")
    parser.add_argument("--work", type=Path, help="keep the model, data and runs here (default: a temp dir)")
    args = parser.parse_args()
    if args.py_spy:
        args.py_spy.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        model, data = work / ("model-tiny" if args.tiny else "model-llava-1b"), work / f"mme-{args.images}"
        began = time.perf_counter()
        if not (model / "config.json").exists():
            build(model, args.tiny)
        if not data.exists():
            write_data(data, args.images)
        print(f"model and data ready in {time.perf_counter() - began:.1f} s", flush=True)
        total = 2 * args.images
        runs: dict[str, list[dict[str, Any]]] = {"mmgauge": [], "bare": []}
        stamp = time.strftime("%H%M%S")
        for round_ in range(args.repeat):
            # Taking turns going first: the page cache and the machine's load favour neither.
            for name in ("mmgauge", "bare") if round_ % 2 == 0 else ("bare", "mmgauge"):
                target = work / f"{name}-{stamp}-{round_}"
                sampled = args.py_spy / f"{name}.txt" if args.py_spy and round_ == args.repeat - 1 else None
                run = (run_mmgauge(model, data, target, args, total, sampled) if name == "mmgauge"
                       else run_bare(model, data, target.with_suffix(".jsonl"), args, total, sampled))
                runs[name].append(run)
                print(f"round {round_} {name}: {run['seconds']:.2f} s, CPU {run['cpu_s']:.2f} s, "
                      f"steady {run['steady_rps'] or 0:.2f}/s", flush=True)
        unpadded = check_unpadded(model, work, stamp, args) if args.check_images else None
        broken_down = None
        if args.profile:
            figures = work / f"profile-{stamp}.json"
            subprocess.run([sys.executable, str(BARE), "profile", str(model), str(data), str(figures),
                            str(args.batch_size), str(args.max_tokens)], check=True)
            broken_down = json.loads(figures.read_text())
        report(args, runs["mmgauge"], runs["bare"], total, unpadded, broken_down)
        if args.py_spy:
            found = [args.py_spy / f"{name}.txt" for name in ("mmgauge", "bare")]
            for line in [line for raw in found if raw.exists() for line in py_spy.summary(raw)] or [
                    f"no py-spy samples in {args.py_spy} (py-spy not installed, or it could not attach)"]:
                print(line)


def check_unpadded(model: Path, work: Path, stamp: str, args: argparse.Namespace) -> tuple[int, int]:
    """How many answers of `--check-images` images agree at batch 1: mmgauge with the bare loop, and the
    bare loop with itself in a second process (what the device itself reproduces).

    In batches the two pad rows differently (mmgauge cuts batches by prompt length), and a random-weight
    model's greedy answers flip with that padding's rounding; one request at a time nothing is padded, so
    the same prompt, image and settings must give the same answer, as far as the device repeats itself.
    """
    data = work / f"mme-check-{args.check_images}"
    if not data.exists():
        write_data(data, args.check_images)
    one = argparse.Namespace(**{**vars(args), "batch_size": 1})
    total = 2 * args.check_images
    ours = run_mmgauge(model, data, work / f"mmgauge-{stamp}-one", one, total)["answers"]
    theirs = run_bare(model, data, work / f"bare-{stamp}-one.jsonl", one, total)["answers"]
    again = run_bare(model, data, work / f"bare-{stamp}-again.jsonl", one, total)["answers"]
    return (sum(ours.get(question) == answer for question, answer in theirs.items()),
            sum(again.get(question) == answer for question, answer in theirs.items()))


def report(args: argparse.Namespace, ours_runs: list[dict[str, Any]], theirs_runs: list[dict[str, Any]],
           total: int, unpadded: tuple[int, int] | None, broken_down: dict[str, Any] | None) -> None:
    ours, theirs = median_run(ours_runs), median_run(theirs_runs)
    ratios = pair_ratios(ours_runs, theirs_runs)
    # Greedy answers of the last round: the batches differ (mmgauge orders by length), the answers should not.
    same = sum(ours["answers"].get(question) == answer for question, answer in theirs["answers"].items())
    print(f"{total} requests, batch {args.batch_size}, {args.max_tokens} new tokens, "
          f"{'tiny model' if args.tiny else 'Llava 1B shape'} on {ours['device_name']}; "
          f"medians of {args.repeat} rounds")
    print(f"{'client':>8} {'seconds':>8} {'CPU s':>8} {'first s':>8} {'steady/s':>9} {'tokens/s':>9} "
          f"{'generate s':>10} {'peak GiB':>9}")
    for name, row in (("mmgauge", ours), ("bare", theirs)):
        peak = row["peak_gpu_memory_bytes"]
        print(f"{name:>8} {row['seconds']:>8.2f} {row['cpu_s']:>8.2f} {row['first_answer_s']:>8.2f} "
              f"{row['steady_rps'] or 0:>9.2f} {row['tokens_per_s'] or 0:>9.1f} "
              f"{row['generate_s'] or 0:>10.2f} "
              f"{peak / 2**30 if peak else 0:>9.2f}")
    print(f"median pair ratios: steady throughput {ratios['steady_throughput_ratio'] or 0:.3f} "
          f"(target >= 1.0, then >= 1.5); end to end {ratios['end_to_end_ratio'] or 0:.3f} (target <= 1.1); "
          f"CPU {ratios['cpu_ratio'] or 0:.3f}; identical answers {same} of {total}")
    if unpadded is not None:
        print(f"identical answers one request at a time (nothing padded): {unpadded[0]} of "
              f"{2 * args.check_images} (target: all); the bare loop in two processes: {unpadded[1]}")
    if broken_down is not None:
        print("bare loop per batch (median): " + ", ".join(
            f"{key} {value:.4f} s" for key, value in broken_down["per_batch_s"].items())
            + f"; {broken_down['image_processor']}; answers identical alone and in a batch: "
            f"{broken_down['identical_alone_and_batched_of_8']} of 8")
    keys = (*FIGURES, "peak_gpu_memory_bytes", "device_name")
    line = json.dumps({
        "tiny": args.tiny, "requests": total, "batch_size": args.batch_size, "max_tokens": args.max_tokens,
        "repeat": args.repeat, "mmgauge": {key: ours[key] for key in keys},
        "bare": {key: theirs[key] for key in (*keys, "load_s")},
        "rounds": {"mmgauge": [{key: run[key] for key in FIGURES} for run in ours_runs],
                   "bare": [{key: run[key] for key in FIGURES} for run in theirs_runs]},
        **ratios, "identical_answers": same,
        "identical_answers_batch_1": None if unpadded is None else {
            "same": unpadded[0], "bare_with_itself": unpadded[1], "of": 2 * args.check_images},
        "profile": broken_down,
    })
    print(line)
    if args.json_out:
        args.json_out.write_text(line + "\n")


if __name__ == "__main__":
    main()
