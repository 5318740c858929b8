"""A run with a judge: calls are counted, shown, cached, and recorded as the deciding step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def outcome(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())["benchmarks"]["mmbench"]
    return data


def test_judge_resolves_what_rules_cannot_and_is_cached(cli: Any, tmp_path: Path) -> None:
    args = ["run", "--bench", "mmbench", "--model", "mock:I really cannot tell from this picture",
            "--judge", "mock:B", "--cache-path", tmp_path / "c.sqlite"]
    first = cli(*args, "--out", tmp_path / "a")
    assert first.code == 0, first.out + first.err
    assert "judge (mmbench)" in first.out
    result = outcome(tmp_path / "a")
    # Every copy is unresolved by the rules, so each group costs judge calls until its first wrong copy.
    assert result["judge_calls"] > 0
    assert result["result"]["extraction"].get("judge", 0) > 0
    scored = [json.loads(line) for line in (tmp_path / "a" / "scored.jsonl").read_text().splitlines()]
    judged = [r for r in scored if r["extraction"]["method"] == "judge"]
    assert judged and all(r["extraction"]["judge_reply"] == "B" and r["extraction"]["answer"] == "B"
                          for r in judged)
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["judge"]["backend"] == "mock"

    again = cli(*args, "--out", tmp_path / "b")
    assert again.code == 0
    assert outcome(tmp_path / "b")["judge_calls"] == 0  # the judge's answers come from the cache
    assert outcome(tmp_path / "b")["result"]["overall"] == result["result"]["overall"]


def test_a_failing_judge_leaves_answers_waiting_never_wrong(cli: Any, tmp_path: Path) -> None:
    from mmgauge.testing.server import Action, FakeOpenAIServer

    with FakeOpenAIServer(answer=lambda text: "B") as server:
        config = tmp_path / "judge.yaml"
        config.write_text(f"spec: openai:judge@{server.base_url}\nsettings: {{max_retries: 0}}\n")
        args = ["run", "--bench", "mmbench", "--model", "mock:I really cannot tell from this picture",
                "--judge", str(config), "--cache-path", tmp_path / "c.sqlite", "--out", tmp_path / "a"]
        server.default = Action("500")
        failing = cli(*args)
        assert failing.code == 1 and "judge calls" in failing.out
        result = outcome(tmp_path / "a")
        assert result["failed"] == result["judge_failed"] > 0
        assert result["result"]["overall"] is None or result["result"]["pending_groups"] > 0
        # A 500 with a request id is an outage, not a refusal: running again may get answers.
        assert [e["label"] for e in result["errors"]] == ["judge failed"]
        assert "Run the same command again to retry only the failed ones" in failing.out
        manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
        assert manifest["finished_at"] is None and manifest["invocations"][-1]["status"] == "failed"

        server.default = Action("ok")
        healed = cli(*args)
        assert healed.code == 0, healed.out
        assert outcome(tmp_path / "a")["judge_failed"] == 0
        assert cli(*args[:-1], tmp_path / "clean").code == 0
        healed_overall = outcome(tmp_path / "a")["result"]["overall"]
        assert healed_overall == outcome(tmp_path / "clean")["result"]["overall"]


def test_a_judge_whose_server_refuses_every_prompt_is_named_so_and_asked_again_next_run(
    cli: Any, tmp_path: Path
) -> None:
    from mmgauge.testing.server import Action, FakeOpenAIServer

    with FakeOpenAIServer(answer=lambda text: "B") as server:
        args = ["run", "--bench", "mmbench", "--model", "mock:I really cannot tell from this picture",
                "--judge", f"openai:judge@{server.base_url}", "--cache-path", tmp_path / "c.sqlite",
                "--out", tmp_path / "a"]
        server.default = Action("context_length")
        refused = cli(*args)
        assert refused.code == 1
        result = outcome(tmp_path / "a")
        assert result["failed"] == result["judge_failed"] > 0
        assert [(e["label"], e["permanent"]) for e in result["errors"]] == [("judge refused", True)]
        waiting = [json.loads(line)["response"] for line in (tmp_path / "a" / "scored.jsonl").read_text()
                   .splitlines() if json.loads(line)["extraction"]["method"] == "judge-failed"]
        assert len(waiting) == result["judge_failed"]
        assert all(r["error"].startswith("judge failed: the judge's server refused every try: try 1: ")
                   and "context_length_exceeded" in r["error"] for r in waiting)
        assert "would get the same errors" in refused.out and "may succeed" not in refused.out

        server.default = Action("ok")  # a judge with a longer context: the same command now judges them
        healed = cli(*args)
        assert healed.code == 0, healed.out
        assert outcome(tmp_path / "a")["judge_failed"] == 0 and outcome(tmp_path / "a")["judge_calls"] > 0
