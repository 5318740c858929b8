"""A whole `mmgauge run` against a bare aiohttp client, on a real-layout MMBench TSV, at a local server.

Data: a VLMEvalKit MMBench dataset TSV (`inputs.write_mmbench_images`): `--requests` rows (4 circular copies
per question, index + k * 1,000,000), non-ASCII text, quoted multi-line cells, over `--distinct-images` noise
PNGs (default 50 of ~38 KB), each stored once as base64 and referenced by row index everywhere else; and a
variant with `--big-image-kb` images (default 1 MB, `--big-requests` rows).

Server: `latency_server.py` in its own process at each `--latencies` value (default 20 ms and 200 ms). It
notes when each request arrived and when it was answered, on one clock for both clients.

Both clients are whole processes, run in turns (bare, mmgauge, bare, mmgauge, ...), `--concurrency` in flight:
- bare (the floor): `bare_client.py`, sending the very bodies mmgauge's encoder makes for these rows (built
  before its turn, in the order mmgauge sends them: grouped by image);
- mmgauge: `mmgauge run --model openai:bench@URL --bench mmbench --data TSV --no-cache --judge none`:
  start-up, loading and hashing the data, planning, the requests, the record log, thumbnails, scoring,
  results.

Per turn, mmgauge over bare: steady throughput (answers/s between the 10% and 90% marks, server side),
end-to-end wall time, CPU per request (user + sys of the child, `wait4`); per client, the longest gap with
nothing in flight at the server between the first and the last 1% of requests. Reported: medians of the
pair ratios (never a best run). Separately, in a fresh process per turn: time to plan (load the TSV, build
every request's messages, hash them for the cache key), imports not counted.
Targets: steady >= 0.95, end to end <= 1.2, CPU +0.25 ms a request at 38 KB and <= 1.5x at 1 MB, plan < 1 s,
gap <= 50 ms. Prints a table, then one JSON object on its last line.

Usage: python bench/endpoint.py [--requests 10000] [--big-requests 2000] [--repeat 3] [--latencies 0.02,0.2]
  [--concurrency 32] [--distinct-images 50] [--image-kb 38] [--big-image-kb 1000] [--no-big]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Run, mmgauge_command, run_once

HERE = Path(__file__).resolve().parent
PY = sys.executable
MAX_TOKENS = 16
#: argv: TSV. Seconds (and CPU seconds) to load the data and build and hash every request, as a run plans.
PLAN = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from mmgauge.benchmarks.registry import get_benchmark\n"
    "from mmgauge.core.types import GenerationConfig\n"
    "from mmgauge.store.cache import config_part, request_fingerprint\n"
    "wall, cpu = time.perf_counter(), time.process_time()\n"
    "bench = get_benchmark('mmbench')\n"
    f"config = config_part(GenerationConfig(max_tokens={MAX_TOKENS}))\n"
    "dataset = bench.load(Path(sys.argv[1]))\n"
    "keys = {request_fingerprint('f' * 64, config, bench.build_messages(s, 0)) for s in dataset.samples}\n"
    "print(time.perf_counter() - wall, time.process_time() - cpu, len(dataset.samples), len(keys))\n"
)


def prepare(tsv: Path, out: Path) -> None:
    """Write the bare client's bodies file: mmgauge's encoder's bodies for `tsv`, split around the image."""
    from mmgauge.backends.base import Request
    from mmgauge.backends.openai import OpenAIBackend
    from mmgauge.benchmarks.registry import get_benchmark
    from mmgauge.core.types import GenerationConfig

    bench = get_benchmark("mmbench")
    encoder = OpenAIBackend("http://127.0.0.1:1/v1", "bench")
    config = GenerationConfig(max_tokens=MAX_TOKENS)
    images: dict[str, int] = {}
    parts: list[tuple[int, str, str]] = []
    for sample in bench.load(tsv).samples:
        request = Request(messages=bench.build_messages(sample, 0), config=config)
        body = bytes(encoder.encode(request)).decode()
        start = body.index('"data:image/') + 1
        end = body.index('"', start)
        number = images.setdefault(body[start:end], len(images))
        parts.append((number, body[:start], body[end:]))
    parts.sort(key=lambda part: part[0])  # as the runner sends them: grouped by image, else in order
    with out.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(list(images)) + "\n")
        handle.writelines(json.dumps([before, number, after]) + "\n" for number, before, after in parts)


@dataclass
class Turn:
    run: Run
    seen: list[tuple[float, float, int]]  # (arrived, answered, body bytes) per request, server side

    @property
    def steady_rps(self) -> float:
        done = sorted(answered for _, answered, _ in self.seen)
        lo, hi = len(done) // 10, len(done) * 9 // 10
        return (hi - lo) / (done[hi] - done[lo])

    @property
    def idle_gap_s(self) -> float:
        """The longest time with nothing in flight between the first and the last 1% of requests."""
        count = len(self.seen)
        edge = count // 100
        begin = sorted(arrived for arrived, _, _ in self.seen)[edge]
        end = sorted(answered for _, answered, _ in self.seen)[count - 1 - edge]
        longest, covered = 0.0, begin
        for arrived, answered, _ in sorted(self.seen):
            if arrived > covered and arrived <= end:
                longest = max(longest, arrived - covered)
            covered = max(covered, answered)
        return longest

    def cpu_ms(self) -> float:
        return 1000 * self.run.cpu / len(self.seen)


def _stats(base_url: str) -> list[tuple[float, float, int]]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    with opener.open(base_url.removesuffix("/v1") + "/stats") as reply:
        return [tuple(item) for item in json.loads(reply.read())]  # type: ignore[misc]


def bench_case(tsv: Path, bodies: Path, latency: float, concurrency: int, repeat: int,
               work: Path) -> dict[str, Any]:
    server = subprocess.Popen([PY, str(HERE / "latency_server.py"), str(latency)], stdout=subprocess.PIPE,
                              text=True)
    turns: dict[str, list[Turn]] = {"bare": [], "mmgauge": []}
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        url = base_url + "/chat/completions"
        bare = [PY, str(HERE / "bare_client.py"), url, str(bodies), str(concurrency)]
        for number in range(repeat):
            out = work / f"run-{number}"
            ours = [*mmgauge_command(), "run", "--model", f"openai:bench@{base_url}", "--bench", "mmbench",
                    "--data", str(tsv), "--out", str(out), "--no-cache", "--judge", "none", "--concurrency",
                    str(concurrency), "--max-tokens", str(MAX_TOKENS), "--timeout", "120"]
            for name, argv in (("bare", bare), ("mmgauge", ours)):
                _stats(base_url)  # forget the start-up probes of the previous turn
                found = run_once(argv)
                turns[name].append(Turn(found, [s for s in _stats(base_url) if s[2] > 0]))
            shutil.rmtree(out, ignore_errors=True)
    finally:
        server.terminate()
        server.wait()
    sent = {name: statistics.median(sum(s[2] for s in t.seen) for t in found)
            for name, found in turns.items()}
    pairs = list(zip(turns["mmgauge"], turns["bare"], strict=True))
    return {
        "latency_s": latency,
        "requests": len(turns["bare"][0].seen),
        "body_bytes_ratio": sent["mmgauge"] / sent["bare"],  # the same bodies: 1.0
        "steady_ratio": statistics.median(m.steady_rps / b.steady_rps for m, b in pairs),
        "end_to_end_ratio": statistics.median(m.run.seconds / b.run.seconds for m, b in pairs),
        "cpu_ratio": statistics.median(m.cpu_ms() / b.cpu_ms() for m, b in pairs),
        "cpu_extra_ms": statistics.median(m.cpu_ms() - b.cpu_ms() for m, b in pairs),
        **{f"{name}_{key}": statistics.median(value(t) for t in found)
           for name, found in turns.items()
           for key, value in (("seconds", lambda t: t.run.seconds), ("steady_rps", lambda t: t.steady_rps),
                              ("cpu_ms", Turn.cpu_ms), ("gap_ms", lambda t: 1000 * t.idle_gap_s))},
        "mmgauge_gap_ms_max": max(1000 * t.idle_gap_s for t in turns["mmgauge"]),
    }


def plan_time(tsv: Path, repeat: int) -> dict[str, float]:
    runs = [run_once([PY, "-c", PLAN, str(tsv)]).stdout.split() for _ in range(repeat)]
    return {"wall_s": statistics.median(float(r[0]) for r in runs),
            "cpu_s": statistics.median(float(r[1]) for r in runs), "requests": int(runs[0][2])}


def _verdict(good: bool) -> str:
    return "ok" if good else "MISSED"


def show(size: str, result: dict[str, Any], big: bool) -> None:
    r = result
    cpu_ok = r["cpu_ratio"] <= 1.5 if big else r["cpu_extra_ms"] <= 0.25
    cpu_target = "<= 1.5x" if big else "<= +0.25 ms"
    steady, whole = r["steady_ratio"], r["end_to_end_ratio"]
    print(f"{size}, {r['latency_s'] * 1000:.0f} ms, {r['requests']} requests (bodies sent mmgauge/bare "
          f"{r['body_bytes_ratio']:.4f}):")
    print(f"  seconds bare {r['bare_seconds']:.2f} mmgauge {r['mmgauge_seconds']:.2f}; steady/s bare "
          f"{r['bare_steady_rps']:.0f} mmgauge {r['mmgauge_steady_rps']:.0f}; CPU ms/request bare "
          f"{r['bare_cpu_ms']:.3f} mmgauge {r['mmgauge_cpu_ms']:.3f}")
    print(f"  steady throughput ratio {steady:.3f} (>= 0.95 {_verdict(steady >= 0.95)}); end to end "
          f"{whole:.3f} (<= 1.2 {_verdict(whole <= 1.2)}); CPU {r['cpu_ratio']:.2f}x, "
          f"{r['cpu_extra_ms']:+.3f} ms/request ({cpu_target} {_verdict(cpu_ok)})")
    gap = r["mmgauge_gap_ms"]
    print(f"  longest idle gap (median of turns) bare {r['bare_gap_ms']:.1f} ms, mmgauge {gap:.1f} ms, "
          f"worst turn {r['mmgauge_gap_ms_max']:.1f} ms (<= 50 {_verdict(gap <= 50)})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--big-requests", type=int, default=2_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latencies", default="0.02,0.2")
    parser.add_argument("--distinct-images", type=int, default=50)
    parser.add_argument("--image-kb", type=float, default=38)
    parser.add_argument("--big-image-kb", type=float, default=1000)
    parser.add_argument("--no-big", action="store_true", help="skip the large-image variant")
    parser.add_argument("--repeat", type=int, default=3, help="turns of each client per case")
    parser.add_argument("command", nargs="*", help=argparse.SUPPRESS)  # prepare TSV OUT (internal)
    args = parser.parse_args()
    if args.command[:1] == ["prepare"]:
        prepare(Path(args.command[1]), Path(args.command[2]))
        return
    variants = [("small", args.requests, args.image_kb)]
    if not args.no_big:
        variants.append(("big", args.big_requests, args.big_image_kb))
    report: dict[str, Any] = {"concurrency": args.concurrency, "distinct_images": args.distinct_images,
                              "cases": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, requests, kb in variants:
            tsv, bodies = work / f"mmbench-{name}.tsv", work / f"bodies-{name}.jsonl"
            subprocess.run([PY, str(HERE / "inputs.py"), "mmbench-images", str(tsv), str(requests),
                            str(args.distinct_images), str(int(kb * 1000))], check=True)
            subprocess.run([PY, str(Path(__file__).resolve()), "prepare", str(tsv), str(bodies)], check=True)
            size = f"{kb:g} KB images ({tsv.stat().st_size / 1e6:.1f} MB TSV)"
            if name == "small":
                plan = plan_time(tsv, args.repeat)
                report["plan"] = plan
                print(f"plan (load + build + hash) {plan['requests']} requests over {args.distinct_images} "
                      f"images: {plan['wall_s']:.3f} s, CPU {plan['cpu_s']:.3f} s (< 1 s "
                      f"{_verdict(plan['wall_s'] < 1)})", flush=True)
            for latency in (float(value) for value in args.latencies.split(",")):
                result = bench_case(tsv, bodies, latency, args.concurrency, args.repeat, work)
                result["images"] = name
                result["image_kb"] = kb
                show(size, result, name == "big")
                report["cases"].append(result)
    print(json.dumps({key: value for key, value in report.items()}, default=str))


if __name__ == "__main__":
    main()
