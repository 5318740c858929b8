"""`mmgauge run` and `evaluate()` with a `gemini:` model against the local fake Gemini API: answers scored,
each image sent inline once with its media type, blocked requests recorded as errors and never scored, the key
sent as a header and nowhere in the run folder, several endpoints, and a cached re-run that asks nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.benchmarks.mme.scoring import MMEResult
from mmgauge.testing.gemini_server import Action, FakeGeminiServer

KEY = "AIzaSy-run-key-0123456789"
MODEL = "gemini-2.0-flash"


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGeminiServer]:
    monkeypatch.setenv("GEMINI_KEY", KEY)
    with FakeGeminiServer(api_key=KEY, answer=lambda text: "Yes") as server:
        yield server


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def run_folder_text(out: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in out.rglob("*") if path.is_file())


def test_a_run_scores_answers_and_sends_each_image_inline_once(cli: Any, gemini: FakeGeminiServer,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = cli("run", "--model", f"gemini:{MODEL}@{gemini.root_url}", "--api-key-env", "GEMINI_KEY",
               "--bench", "mme", "--out", out, "--no-cache")
    assert done.code == 0, done.out + done.err
    answered = records(out)
    assert gemini.requests == len(answered) == gemini.images_seen  # one image per MME question, sent once
    assert set(gemini.image_types) <= {"image/png", "image/jpeg"} and gemini.image_types
    assert all(r["response"]["text"] == "Yes" and r["response"]["error"] is None for r in answered)
    result = mmgauge.load_run(out).result("mme")
    assert isinstance(result, MMEResult) and result.perception.score > 0
    assert gemini.last_headers["x-goog-api-key"] == KEY and "key=" not in gemini.last_path
    assert KEY not in run_folder_text(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"]["served"][gemini.root_url]["served"]["version"] == "2.0"
    assert "warning:" not in done.out


def test_blocked_requests_are_errors_and_never_scored(cli: Any, gemini: FakeGeminiServer,
                                                      tmp_path: Path) -> None:
    gemini.script(Action("safety"), Action("prompt_blocked"))
    out = tmp_path / "run"
    done = cli("run", "--model", f"gemini:{MODEL}@{gemini.root_url}", "--api-key-env", "GEMINI_KEY",
               "--bench", "mme", "--out", out, "--no-cache", "--concurrency", "1")
    assert done.code == 1
    failed = [r for r in records(out) if r["response"]["error"] is not None]
    codes = sorted(r["response"]["error_code"] for r in failed)
    assert codes == ["blockReason SAFETY", "finishReason SAFETY"]
    assert all(r["response"]["error_permanent"] and r["response"]["text"] is None for r in failed)
    assert gemini.requests == len(records(out))  # neither block was sent again
    blocked = {r["sample_id"] for r in failed}
    verdicts = [json.loads(line) for line in (out / "scored.jsonl").read_text().splitlines()]
    assert [v["correct"] for v in verdicts if v["sample_id"] in blocked] == [None, None]
    assert all(v["correct"] is not None for v in verdicts if v["sample_id"] not in blocked)
    assert "finishReason SAFETY" in done.out and KEY not in run_folder_text(out)


def test_evaluate_over_two_endpoints_then_a_cached_rerun_asks_nothing(gemini: FakeGeminiServer,
                                                                      tmp_path: Path) -> None:
    with FakeGeminiServer(api_key=KEY, answer=lambda text: "Yes", latency_s=0.01) as other:
        model = f"gemini:{MODEL}@{gemini.root_url}|{other.root_url}"
        settings: dict[str, Any] = {"benchmarks": ["mme"], "api_key_env": "GEMINI_KEY", "concurrency": 2}
        first = mmgauge.evaluate(model=model, out=tmp_path / "a", **settings)
        sent = gemini.requests + other.requests
        again = mmgauge.evaluate(model=model, out=tmp_path / "b", **settings)
        assert gemini.requests + other.requests == sent  # every answer came from the cache
    entry = first.benchmarks["mme"]
    assert entry.status == "complete" and sent == entry.requested > 0
    assert gemini.requests > 0 and other.requests > 0
    assert again.result_as("mme", MMEResult) == first.result_as("mme", MMEResult)
    cached = again.benchmarks["mme"]
    assert cached.requested == 0 and cached.cache_hits == entry.records
    assert KEY not in run_folder_text(tmp_path / "a")


def test_a_model_the_api_does_not_know_is_warned_once(cli: Any, gemini: FakeGeminiServer,
                                                      tmp_path: Path) -> None:
    done = cli("run", "--model", f"gemini:gemini-9@{gemini.root_url}", "--api-key-env", "GEMINI_KEY",
               "--bench", "mme", "--limit", "2", "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out
    warnings = [line for line in done.out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "does not know model 'gemini-9'" in warnings[0]
    assert gemini.generated["gemini-9"] == 2
