"""What llama-cpp-python's and OpenAI's real servers do, played by the shipped test server, through
`mmgauge run`: an identical instant 500 is not retried over and over, the console says why requests failed
and advises a re-run only where one can help, the server's JSON error survives shortening, answers cut at
the token limit are marked and counted, a dead endpoint among live ones fails no request, and a model name the
server does not list is a warning."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from mmgauge.testing.faults import CONTEXT_LENGTH_400, Action
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


def fast_model(tmp_path: Path, url: str, model: str = "m") -> Path:
    """A model config with short backoffs: the old behaviour (retry everything five times) stays quick."""
    path = tmp_path / "model.yaml"
    settings = "settings:\n  backoff_base_s: 0.01\n  backoff_max_s: 0.02\n"
    path.write_text(f'spec: "openai:{model}@{url}"\n{settings}')
    return path


def test_an_identical_instant_500_is_not_retried_again_and_again(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 10)
    with FakeOpenAIServer() as server:
        server.default = Action("500_same")
        done = cli("run", "--model", fast_model(tmp_path, server.base_url), "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache", "--concurrency", "1")
        sent = server.requests
    assert done.code == 1
    assert sent == 2 * 10  # one try, one retry that came back the same: not five retries each
    for record in records(tmp_path / "run"):
        response = record["response"]
        assert response["error_permanent"] is True and "not retried" in response["error"]


def test_the_default_backoff_no_longer_sleeps_through_identical_500s(cli: Any, toy: None,
                                                                     tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 4)
    with FakeOpenAIServer() as server:
        server.default = Action("500_same")
        started = time.monotonic()
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache", "--concurrency", "1")
        took = time.monotonic() - started
    assert done.code == 1 and server.requests == 2 * 4
    assert took < 8  # one backoff of at most backoff_base_s (1 s) per request; five took ~15 s each


def test_the_console_names_each_error_with_its_count_and_no_rerun_for_permanent_ones(
    cli: Any, toy: None, tmp_path: Path
) -> None:
    data = write_toy_data(tmp_path / "data", 8)
    with FakeOpenAIServer() as server:
        server.by_text = {f"q{i:06d}": Action("context_length") for i in (0, 1, 2)}
        server.by_text.update({f"q{i:06d}": Action("500_same") for i in (3, 4)})
        done = cli("run", "--model", fast_model(tmp_path, server.base_url), "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache")
    assert done.code == 1
    lines = done.out.splitlines()
    assert any("3 x HTTP 400 context_length_exceeded" in line and "maximum context length" in line
               for line in lines), done.out
    assert any("2 x HTTP 500" in line and "can only concatenate str (not \"list\") to str" in line
               for line in lines), done.out
    assert "5 request(s) failed" in done.out
    assert "run the same command again" not in done.out.lower()



@pytest.mark.parametrize("bench", ["mmbench", "mmstar", "mme", "pope"])
def test_no_benchmark_note_advises_a_rerun_that_would_meet_the_same_refusal(
    cli: Any, tmp_path: Path, bench: str
) -> None:
    with FakeOpenAIServer() as server:
        server.default = Action("500_same")
        done = cli("run", "--model", fast_model(tmp_path, server.base_url), "--bench", bench, "--limit", "4",
                   "--out", tmp_path / "run", "--no-cache", "--judge", "none")
    assert done.code == 1
    assert "Running the same command again would get the same errors" in done.out
    notes = " ".join(value for _, value in results(tmp_path / "run")["benchmarks"][bench]["headline"])
    assert "same command again" not in notes

def test_a_transient_error_keeps_the_advice_to_run_again(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 6)
    with FakeOpenAIServer() as server:
        server.by_text = {"q000001": Action("503"), "q000002": Action("context_length")}
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache", "--max-retries", "0")
    assert done.code == 1
    assert "1 x HTTP 503" in done.out and "1 x HTTP 400 context_length_exceeded" in done.out
    assert "Run the same command again to retry only the failed ones (1 may succeed)" in done.out


def test_the_servers_json_error_keeps_its_code_past_200_characters(cli: Any, toy: None,
                                                                  tmp_path: Path) -> None:
    assert json.dumps(CONTEXT_LENGTH_400).index("context_length_exceeded") > 200
    data = write_toy_data(tmp_path / "data", 2)
    with FakeOpenAIServer() as server:
        server.default = Action("context_length")
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache")
        assert server.requests == 2  # a 400 is the request's own error: never retried
    assert done.code == 1
    for record in records(tmp_path / "run"):
        error = record["response"]["error"]
        assert "context_length_exceeded" in error and "invalid_request_error" in error
        assert error.startswith("HTTP 400") and "maximum context length is 4096 tokens" in error
        assert record["response"]["error_code"] == "HTTP 400 context_length_exceeded"


def test_answers_cut_at_the_token_limit_are_marked_and_counted(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 6)
    with FakeOpenAIServer() as server:
        server.by_text = {f"q{i:06d}": Action("length") for i in (0, 2, 4)}
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out
    marked = {r["sample_id"] for r in records(tmp_path / "run") if r["response"]["truncated"]}
    assert marked == {"q000000", "q000002", "q000004"}
    assert results(tmp_path / "run")["benchmarks"]["toy"]["truncated"] == 3
    assert "3 answer(s) stopped at the token limit" in done.out
    report = cli("report", tmp_path / "run", "--out", tmp_path / "r.html", "--no-images")
    assert report.code == 0, report.err
    assert "truncated 3" in (tmp_path / "r.html").read_text()


def test_a_dead_endpoint_among_live_ones_fails_no_request(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 40)
    with FakeOpenAIServer() as live, FakeOpenAIServer() as dead:
        dead.kill()
        done = cli("run", "--model", f"openai:m@{dead.base_url}|{live.base_url}", "--bench", "toy",
                   "--data", data, "--out", tmp_path / "run", "--no-cache", "--concurrency", "1",
                   "--max-retries", "0")
        answered = live.completed
    assert done.code == 0, done.out
    assert answered == 40
    assert all(r["response"]["error"] is None for r in records(tmp_path / "run"))


def test_a_model_name_the_server_does_not_list_is_a_warning_once(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 3)
    with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
        done = cli("run", "--model", f"openai:llava@{one.base_url}|{two.base_url}", "--bench", "toy",
                   "--data", data, "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out  # the server answers any name...
    warnings = [line for line in done.out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, done.out  # ...so it is said, once for both endpoints
    assert "does not list model 'llava'" in warnings[0] and "it lists m" in warnings[0]
    assert one.base_url in warnings[0] and two.base_url in warnings[0]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert "does not list model 'llava'" in manifest["backend"]["notices"][0]


def test_the_judges_server_identity_is_in_the_manifest(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 2)
    with FakeOpenAIServer() as model, FakeOpenAIServer() as judge:
        judge.cards = [{"id": "judge-m", "object": "model", "root": "/ckpt/judge-7"}]
        done = cli("run", "--model", f"openai:m@{model.base_url}", "--judge",
                   f"openai:judge-x@{judge.base_url}", "--bench", "toy", "--data", data,
                   "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out
    assert sum("warning: judge:" in line and "'judge-x'" in line for line in done.out.splitlines()) == 1
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["backend"]["served"][model.base_url]["served"]["id"] == "m"
    judged = manifest["judge_backend"]
    assert judged["model"] == "judge-x" and judged["served"][judge.base_url]["listed"] == ["judge-m"]
    assert "does not list model 'judge-x'" in judged["notices"][0]


def test_the_judge_audit_counts_unreadable_answers_cut_at_the_token_limit(cli: Any, tmp_path: Path) -> None:
    with FakeOpenAIServer(answer=lambda text: "Let me think about the options one by one") as server:
        server.default = Action("length")
        done = cli("run", "--model", f"openai:m@{server.base_url}", "--bench", "mmbench", "--judge", "none",
                   "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.out
    audit = json.loads((tmp_path / "run" / "judge_audit.json").read_text())["benchmarks"]["mmbench"]
    assert audit["rule_unresolved"] > 0 and audit["truncated"] == audit["rule_unresolved"]
    table = re.sub(r"[\s│┃]", "", done.out)  # the audit table wraps its cells
    assert f"{audit['truncated']}cutatthetokenlimit" in table
