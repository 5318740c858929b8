"""Toolkit overhead and endpoint throughput.

(a) overhead per sample: 10,000 toy samples through the whole runner (prompt, fingerprint, cache lookup and
    write, extraction, run-log append, scoring) with an instant in-process backend;
(b) requests/s against the local test server (a separate process) with a fixed 200 ms latency at concurrency
    32, next to the ideal concurrency / latency;
(c) a re-run into a fresh folder with the same cache: requests made (target 0).

Prints one JSON object on its last line. Usage: python bench/throughput.py [--samples N] [--requests N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mmgauge.backends.base import BackendSettings
from mmgauge.backends.mock import MockBackend
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.benchmarks.base import Benchmark
from mmgauge.core.types import GenerationConfig, ModelSpec
from mmgauge.runner.run import BenchmarkRun, Runner
from mmgauge.store.cache import ResponseCache
from mmgauge.store.results import RunResults
from mmgauge.testing.toy import ToyBenchmark, toy_manifest, write_toy_data


def run_once(
    benchmark: Benchmark, data: Path, backend: object, out: Path, cache: ResponseCache
) -> RunResults:
    dataset = benchmark.load(data)
    config = GenerationConfig(max_tokens=4)
    assert isinstance(backend, MockBackend | OpenAIBackend)
    manifest = toy_manifest(out, ModelSpec(backend="bench"), backend.fingerprint(), dataset, config)
    runner = Runner(backend, config, out, cache=cache)

    async def go() -> RunResults:
        try:
            return await runner.run([BenchmarkRun(benchmark, dataset)], manifest)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def overhead(samples: int, work: Path) -> float:
    data = write_toy_data(work / "overhead-data", samples)
    cache = ResponseCache(work / "overhead.sqlite")
    backend = MockBackend("yes")
    started = time.perf_counter()
    outcome = run_once(ToyBenchmark(), data, backend, work / "overhead-run", cache)
    elapsed = time.perf_counter() - started
    assert outcome.benchmarks["toy"].requested == samples
    return 1000 * elapsed / samples


def endpoint(requests: int, concurrency: int, latency: float, work: Path) -> tuple[float, int]:
    server = subprocess.Popen(
        [sys.executable, "-m", "mmgauge.testing.server", "0", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        data = write_toy_data(work / "endpoint-data", requests)
        cache = ResponseCache(work / "endpoint.sqlite")
        settings = BackendSettings(concurrency=concurrency, timeout_s=30)
        started = time.perf_counter()
        outcome = run_once(
            ToyBenchmark(),
            data,
            OpenAIBackend(base_url, "bench", settings=settings),
            work / "endpoint-run",
            cache,
        )
        elapsed = time.perf_counter() - started
        assert outcome.benchmarks["toy"].requested == requests and outcome.failed == 0
        rerun = OpenAIBackend(base_url, "bench", settings=settings)
        run_once(ToyBenchmark(), data, rerun, work / "endpoint-rerun", cache)
        return requests / elapsed, rerun.requests_sent
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=960)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        per_sample = overhead(args.samples, work)
        print(f"overhead: {per_sample:.3f} ms per sample over {args.samples} samples (target < 2 ms)")
        rate, rerun_requests = endpoint(args.requests, args.concurrency, args.latency, work)
    ideal = args.concurrency / args.latency
    print(f"endpoint: {rate:.1f} req/s vs ideal {ideal:.1f} req/s = {rate / ideal:.3f} (target >= 0.85)")
    print(f"cached re-run: {rerun_requests} requests (target 0)")
    print(
        json.dumps(
            {
                "overhead_ms_per_sample": round(per_sample, 4),
                "requests_per_s": round(rate, 2),
                "ideal_requests_per_s": round(ideal, 2),
                "ratio_to_ideal": round(rate / ideal, 4),
                "cached_rerun_requests": rerun_requests,
            }
        )
    )


if __name__ == "__main__":
    main()
