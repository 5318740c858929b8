"""The Ray executor: same results as a local run, nothing lost when a worker dies, resume across executors.

One local Ray cluster (2 CPUs) serves the whole module; each run starts and kills its own two actors.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.util
import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.spec import parse_spec
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse, ModelSpec
from mmgauge.runner import ray_executor, ray_worker
from mmgauge.store.runlog import read_records
from mmgauge.testing.server import Action, FakeOpenAIServer
from mmgauge.testing.toy import tiny_png, write_toy_data

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="Ray is not installed (pip install 'mmgauge[ray]')"
)
BENCHES = "toy,mme,mmbench,m3gia"


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def scripted_answer(text: str) -> str:
    # Deterministic, and varied enough that every benchmark gets right, wrong and unparseable answers.
    choices = ["Yes", "No", "A", "B", "C", "The answer is D.", "no idea"]
    return choices[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(choices)]


def args(server: FakeOpenAIServer, data: Path, out: Path, *extra: str) -> list[str | Path]:
    return [
        "run", "--model", f"openai:scripted@{server.base_url}", "--bench", BENCHES, "--data", f"toy={data}",
        "--out", out, "--no-cache", "--max-retries", "0", "--timeout", "5", *extra,
    ]  # fmt: skip


def ray_args(*extra: str) -> list[str]:
    return ["--executor", "ray", "--ray-workers", "2", *extra]


def results(out: Path) -> dict[str, Any]:
    data = json.loads((out / "results.json").read_text())
    return {name: bench["result"] for name, bench in data["benchmarks"].items()}


def keys(out: Path) -> Counter[tuple[str, str, int]]:
    return Counter(record.key for record in read_records(out / "samples.jsonl"))


# ---- without Ray -----------------------------------------------------------------------------------------


def test_requests_cross_as_json_with_their_images(tmp_path: Path) -> None:
    png = tiny_png(3)
    (tmp_path / "a.png").write_bytes(png)
    images = [
        ImageRef(data=png),
        ImageRef(b64=base64.b64encode(png).decode()),
        ImageRef(path=str(tmp_path / "a.png")),
        ImageRef(b64=base64.encodebytes(png).decode()),  # line-broken, as in some TSVs: escaped, not spliced
    ]
    batch = [Request(messages=[Message.user("q", images)], config=GenerationConfig(), sample_id="s1")]
    for inline in (False, True):
        text = ray_worker.encode_call([batch, batch], inline_images=inline)
        sent = json.loads(text)[0][0]["messages"][0]["content"]
        shapes = [["b64"], ["b64"], ["b64", "path"][not inline :], ["b64"]]
        assert [sorted(part["image"]) for part in sent[:4]] == shapes
        decoded = ray_worker.decode_call(text)
        assert len(decoded) == 2
        assert [image.load() for image in decoded[1][0].messages[0].images()] == [png] * 4
        assert decoded[0][0].model_dump() == batch[0].model_dump()


def test_missing_ray_is_a_user_error_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(UserError, match=r"pip install 'mmgauge\[ray\]'"):
        ray_executor.import_ray()


def test_ray_options_need_the_ray_executor(toy: None, tmp_path: Path, cli: Any) -> None:
    data = write_toy_data(tmp_path / "data", 2)
    result = cli("run", "--model", "mock", "--bench", "toy", "--data", data, "--ray-workers", "2")
    assert result.code == 2 and "--ray-workers needs --executor ray" in result.err


# ---- on a local Ray cluster ------------------------------------------------------------------------------


@needs_ray
def test_ray_run_equals_the_local_run(toy: None, ray_cluster: None, tmp_path: Path, cli: Any) -> None:
    data = write_toy_data(tmp_path / "data", 40)
    with FakeOpenAIServer(answer=scripted_answer) as server:
        local = cli(*args(server, data, tmp_path / "local"))
        assert local.code == 0, local.err
        images_local, requests_local = server.images_seen, server.requests
        distributed = cli(*args(server, data, tmp_path / "ray", *ray_args()))
        assert distributed.code == 0, distributed.err
        assert server.images_seen - images_local == images_local  # every image reached the endpoint
        assert server.requests - requests_local == requests_local
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert set(results(tmp_path / "ray")) == set(BENCHES.split(","))
    counts = keys(tmp_path / "ray")
    assert counts == keys(tmp_path / "local") and set(counts.values()) == {1}


@needs_ray
def test_a_worker_killed_mid_run_loses_nothing(
    toy: None, ray_cluster: None, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    executors: list[ray_executor.RayExecutor] = []

    class Recorded(ray_executor.RayExecutor):
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            executors.append(self)

    monkeypatch.setattr(ray_executor, "RayExecutor", Recorded)
    samples = 200
    data = write_toy_data(tmp_path / "data", samples)
    out = tmp_path / "ray"
    killed: list[int] = []

    def kill_one_worker_mid_run() -> None:
        deadline = time.monotonic() + 60
        log = out / "samples.jsonl"
        while time.monotonic() < deadline and not killed:
            if executors and log.exists() and log.read_bytes().count(b"\n") >= 60:
                pid = executors[0].worker_pids()[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.005)

    with FakeOpenAIServer(latency_s=0.05, answer=scripted_answer) as server:
        killer = threading.Thread(target=kill_one_worker_mid_run)
        killer.start()
        run = cli(*args(server, data, out, "--bench", "toy", "--concurrency", "4", *ray_args()))
        killer.join()
        assert run.code == 0, run.err
        server.latency_s = 0.0
        assert cli(*args(server, data, tmp_path / "local", "--bench", "toy")).code == 0
    stats = executors[0].stats()
    assert stats is not None and killed and stats["workers_lost"] == 1 and stats["workers_started"] == 3
    assert stats["batches_resubmitted"] >= 1 and stats["batches_given_up"] == 0
    counts = keys(out)
    assert len(counts) == samples and set(counts.values()) == {1}  # every sample exactly once
    assert all(record.response.ok for record in read_records(out / "samples.jsonl"))
    assert results(out) == results(tmp_path / "local")


@needs_ray
def test_resume_across_executors(toy: None, ray_cluster: None, tmp_path: Path, cli: Any) -> None:
    data = write_toy_data(tmp_path / "data", 30)
    with FakeOpenAIServer(answer=scripted_answer) as server:
        clean = tmp_path / "clean"
        assert cli(*args(server, data, clean)).code == 0
        total = sum(keys(clean).values())

        # Local run with failures, finished on Ray: only the failures are requested again.
        server.by_text = {"q00000": Action("500")}  # q000000 .. q000009
        first = cli(*args(server, data, tmp_path / "a"))
        assert first.code == 1 and "10 request(s) failed" in first.out
        server.by_text = {}
        before = server.requests
        assert cli(*args(server, data, tmp_path / "a", *ray_args())).code == 0
        assert server.requests - before == 10

        # Ray run cut short (the log keeps its first lines, as after a kill -9), finished locally.
        assert cli(*args(server, data, tmp_path / "b", *ray_args())).code == 0
        log = tmp_path / "b" / "samples.jsonl"
        lines = log.read_bytes().splitlines(keepends=True)
        log.write_bytes(b"".join(lines[:50]) + lines[50][:20])  # and a torn last line
        before = server.requests
        assert cli(*args(server, data, tmp_path / "b")).code == 0
        assert server.requests - before == total - 50
    assert results(tmp_path / "a") == results(clean)
    assert sum(keys(tmp_path / "a").values()) == total + 10  # failures stay logged before their retries
    assert results(tmp_path / "b") == results(clean)
    assert keys(tmp_path / "b") == keys(clean)


@needs_ray
def test_an_unreachable_endpoint_on_a_worker_exits_2_with_the_url(
    toy: None, ray_cluster: None, tmp_path: Path, cli: Any
) -> None:
    data = write_toy_data(tmp_path / "data", 4)
    result = cli(
        "run", "--model", "openai:m@http://127.0.0.1:9/v1", "--bench", "toy", "--data", data,
        "--out", tmp_path / "down", "--no-cache", "--max-retries", "0", *ray_args(),
    )  # fmt: skip
    assert result.code == 2
    assert "http://127.0.0.1:9/v1" in result.err and "Traceback" not in result.err


def execute(executor: ray_executor.RayExecutor, count: int, seen: list[int | None] | None = None) -> None:
    """`count` one-request batches through `executor`; `seen` gets its live concurrency at each delivery."""
    batches = [[Request(messages=[Message.user(f"q{i}")], config=GenerationConfig(max_tokens=2))]
               for i in range(count)]  # fmt: skip
    delivered: dict[int, list[ModelResponse]] = {}

    def deliver(number: int, responses: list[ModelResponse]) -> None:
        delivered[number] = responses
        if seen is not None:
            seen.append(executor.live_concurrency())

    async def go() -> None:
        try:
            await executor.execute(batches, deliver)
        finally:
            await executor.aclose()

    asyncio.run(go())
    assert sorted(delivered) == list(range(count)) and all(r[0].ok for r in delivered.values())


@needs_ray
def test_live_concurrency_is_the_workers_endpoint_limits(ray_cluster: None) -> None:
    with FakeOpenAIServer(latency_s=0.005) as one, FakeOpenAIServer(latency_s=0.005) as two:
        spec = parse_spec(f"openai:m@{one.base_url}|{two.base_url}")[0]
        settings = BackendSettings(concurrency=8, timeout_s=5)
        executor = ray_executor.RayExecutor(spec, settings, address=None, workers=2)
        asyncio.run(executor.start())
        # Each worker's two endpoints start at their ceiling: 2 workers x 2 endpoints x 8.
        assert executor.live_concurrency() == 32
        seen: list[int | None] = []
        stats: list[dict[str, Any]] = []
        real_finish = executor._finish

        def finish(*a: Any) -> int:
            done = real_finish(*a)
            stats[:] = executor.endpoint_stats()
            return done

        executor._finish = finish  # type: ignore[method-assign]
        execute(executor, 400, seen)
    # Grown to the ceilings while healthy, and still reported with nothing in flight (not requests sent).
    assert seen[-1] == 2 * 2 * 8
    assert len(stats) == 2 and all(len(worker["endpoints"]) == 2 for worker in stats)
    assert {endpoint["limit"] for worker in stats for endpoint in worker["endpoints"]} == {8}


@needs_ray
def test_fixed_concurrency_backends_count_requests_sent(ray_cluster: None) -> None:
    executor = ray_executor.RayExecutor(
        ModelSpec(backend="mock", model="yes"), BackendSettings(), address=None, workers=2
    )
    seen: list[int | None] = []
    execute(executor, 300, seen)
    assert max(v or 0 for v in seen) > 0 and executor.live_concurrency() == 0


@needs_ray
def test_describe_and_stats_say_where_requests_ran() -> None:
    options = ray_executor.RayOptions(gpus_per_worker=0.5, inline_images=True)
    spec = ModelSpec(backend="mock", model="yes")
    executor = ray_executor.RayExecutor(
        spec, BackendSettings(), address="head:6379", workers=3, options=options
    )
    described = executor.describe()
    assert described["executor"] == "ray" and described["workers"] == 3
    assert described["address"] == "head:6379" and described["gpus_per_worker"] == 0.5
    assert described["inline_images"] is True and described["max_restarts"] == 6
    json.dumps(described)
    assert executor.stats() == {
        "workers_started": 0, "workers_lost": 0, "batches_resubmitted": 0, "batches_given_up": 0, "calls": 0,
    }  # fmt: skip


def test_an_unreachable_cluster_address_fails_fast() -> None:
    import time

    from mmgauge.runner.ray_executor import check_reachable

    started = time.monotonic()
    with pytest.raises(UserError, match=r"cannot reach the Ray cluster at 127\.0\.0\.1:9"):
        check_reachable("127.0.0.1:9")
    assert time.monotonic() - started < 6
    with pytest.raises(UserError, match="is not HOST:PORT"):
        check_reachable("127.0.0.1:port")
    check_reachable("auto")  # Ray finds the address itself
