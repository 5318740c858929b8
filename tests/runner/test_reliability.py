"""Runs under real trouble: a dead endpoint, a new checkpoint under an old name, a judge with its own key,
an endpoint that echoes the key, and every server fault at once. Each through `mmgauge run`."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from mmgauge.testing.faults import FaultSchedule
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data


def toy_answer(text: str) -> str:
    """Right on two questions in three: answers that differ by question, so a mix-up would show."""
    number = int(text[2:8])
    truth = "yes" if number % 2 == 0 else "no"
    return ("no" if truth == "yes" else "yes") if number % 3 == 0 else truth


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


@pytest.mark.parametrize("concurrency", ["1", "16"])
def test_a_dead_endpoint_ends_the_run_at_once_naming_it(cli: Any, toy: None, tmp_path: Path,
                                                        concurrency: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    data = write_toy_data(tmp_path / "data", 8)
    started = time.monotonic()
    line = cli("run", "--model", f"openai:m@{url}", "--bench", "toy", "--data", data,
               "--out", tmp_path / "run", "--concurrency", concurrency, "--no-cache").error_line()
    assert time.monotonic() - started < 10
    assert url in line


def test_a_new_checkpoint_under_the_same_name_is_never_served_old_answers(cli: Any, toy: None,
                                                                          tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 6)
    cache = tmp_path / "c.sqlite"
    with FakeOpenAIServer(answer=lambda text: "yes") as server:
        args = ["run", "--model", f"openai:m@{server.base_url}", "--bench", "toy", "--data", data,
                "--cache-path", cache]
        server.cards = [{"id": "m", "object": "model", "root": "/ckpt/step-1000"}]
        assert cli(*args, "--out", tmp_path / "a").code == 0
        # The same URL and model name now serve another checkpoint, answering otherwise.
        server.cards = [{"id": "m", "object": "model", "root": "/ckpt/step-2000"}]
        server.answer = lambda text: "no"
        assert cli(*args, "--out", tmp_path / "b").code == 0
        assert cli(*args, "--out", tmp_path / "c").code == 0
    second = results(tmp_path / "b")["benchmarks"]["toy"]
    assert second["cache_hits"] == 0 and second["requested"] == 6
    answers = {json.loads(line)["response"]["text"] for line in (tmp_path / "b" / "samples.jsonl").open()}
    assert answers == {"no"}
    assert results(tmp_path / "c")["benchmarks"]["toy"]["cache_hits"] == 6  # the same checkpoint: cached


def test_the_judge_gets_its_own_key(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_KEY", "model-secret-123456")
    monkeypatch.setenv("JUDGE_KEY", "judge-secret-654321")
    with FakeOpenAIServer(answer=lambda text: "B", api_key="judge-secret-654321") as judge:
        done = cli("run", "--bench", "mmbench", "--model", "mock:I cannot tell", "--judge",
                   f"openai:judge@{judge.base_url}", "--judge-api-key-env", "JUDGE_KEY", "--api-key-env",
                   "MODEL_KEY", "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out + done.err
    assert results(tmp_path / "run")["benchmarks"]["mmbench"]["judge_calls"] > 0
    manifest = (tmp_path / "run" / "manifest.json").read_text()
    assert '"api_key_env": "JUDGE_KEY"' in manifest and "judge-secret" not in manifest


def test_an_echoed_key_is_written_nowhere(cli: Any, toy: None, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-this-must-never-be-stored-42"
    monkeypatch.setenv("KEY", secret)
    data = write_toy_data(tmp_path / "data", 4)
    with FakeOpenAIServer(api_key="another-key-entirely") as server:  # 401 bodies echo the key sent
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--api-key-env", "KEY", "--bench", "toy",
                   "--data", data, "--out", tmp_path / "run", "--no-cache", "--max-retries", "0")
    assert done.code in (1, 2)
    assert secret not in done.out + done.err
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_every_fault_at_once_loses_nothing_and_scores_no_failure(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 60)
    kinds = ("429", "500", "hang", "malformed", "close", "empty_choices", "null_content", "401")
    args = ["--bench", "toy", "--data", data, "--no-cache", "--timeout", "1", "--max-retries", "1"]
    with FakeOpenAIServer(answer=toy_answer) as server:
        clean = cli("run", "--model", f"openai:toy@{server.base_url}", *args, "--out", tmp_path / "clean")
        assert clean.code == 0
        # Each fault on one request in ten: four in five requests meet one on their first try.
        server.faults = FaultSchedule(dict.fromkeys(kinds, 0.1), seed=3, skip_first=1)
        model = f"openai:toy@{server.base_url}"
        assert cli("run", "--model", model, *args, "--out", tmp_path / "run").code == 1
        server.faults = None
        before = server.requests
        assert cli("run", "--model", model, *args, "--out", tmp_path / "run").code == 0
        retried = server.requests - before
    first = results(tmp_path / "run")
    records = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert {r["sample_id"] for r in records} == {f"q{i:06d}" for i in range(60)}  # nothing lost
    failed_first = sum(1 for r in records if r["response"]["error"] is not None)
    assert failed_first > 0 and retried == failed_first  # the re-run asked exactly the failed ones again
    assert first["benchmarks"]["toy"]["result"] == results(tmp_path / "clean")["benchmarks"]["toy"]["result"]
