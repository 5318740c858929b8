"""`mmgauge.evaluate()`: the library call behind `mmgauge run`, in notebooks (a running loop) and scripts."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.benchmarks.mme.scoring import MMEResult
from mmgauge.core.errors import UserError


def test_evaluate_inside_a_running_event_loop(tmp_path: Path) -> None:
    async def notebook_cell() -> Any:
        # Jupyter runs cells inside a loop: the synchronous call must still work there.
        return mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "a", cache=False)

    results = asyncio.run(notebook_cell())
    assert results.benchmarks["mme"].status == "complete"
    awaited = asyncio.run(mmgauge.evaluate_async(model="mock:Yes", benchmarks="mme", out=tmp_path / "b",
                                                 cache=False))
    assert awaited.result_as("mme", MMEResult) == results.result_as("mme", MMEResult)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_evaluate_leaves_the_callers_collector_as_it_found_it(tmp_path: Path) -> None:
    # A notebook's frozen objects went from 209,367 to 0 after one call: the collector is the process's.
    kept = [_Cycle() for _ in range(100)]
    gc.freeze()
    thresholds = gc.get_threshold()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        gc.disable()
        mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "off", cache=False)
        assert not gc.isenabled()
        gc.enable()
        gc.set_threshold(500, 7, 9)
        mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "on", cache=False)
        assert gc.isenabled()
        assert gc.get_threshold() == (500, 7, 9)
        # The caller's objects stay frozen (the permanent generation is not in get_objects), and nothing of
        # the call's was frozen behind its back (frozen objects freed by reference counting leave the count).
        mine = {id(cycle) for cycle in kept}
        assert not any(id(thing) in mine for thing in gc.get_objects())
        assert 0.99 * frozen <= gc.get_freeze_count() <= frozen
    finally:
        gc.enable()
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    assert len(kept) == 100


def test_load_run_gives_typed_results_and_a_dataframe(tmp_path: Path) -> None:
    mmgauge.evaluate(model="mock:Yes", benchmarks=["mme", "m3gia"], out=tmp_path / "r", cache=False)
    run = mmgauge.load_run(tmp_path / "r")
    mme = run.result("mme")
    assert isinstance(mme, MMEResult) and mme.perception.score == 500.0
    frame = run.records
    assert set(frame["benchmark"]) == {"mme", "m3gia"}
    assert {"answer", "method", "correct", "meta.subtask", "meta.language"} <= set(frame.columns)
    assert frame.loc[frame["benchmark"] == "mme", "answer"].eq("yes").all()
    with pytest.raises(UserError, match="not a run folder"):
        mmgauge.load_run(tmp_path)


def test_a_narrower_run_never_loses_results(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "run"
    full = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme", "mmbench"], out=out, cache=False)
    subset = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=out, cache=False, limit=4)
    assert subset.benchmarks["mme"].result == full.benchmarks["mme"].result
    assert subset.benchmarks["mmbench"].result == full.benchmarks["mmbench"].result
    assert subset.benchmarks["mme"].status == "complete" and subset.benchmarks["mme"].resumed == 4
    assert subset.benchmarks["mmbench"].requested == 0  # not asked again, still scored
    scored = [json.loads(line) for line in (out / "scored.jsonl").read_text().splitlines()]
    assert {r["benchmark"] for r in scored} == {"mme", "mmbench"}
    manifest = json.loads((out / "manifest.json").read_text())
    history = manifest["invocations"]
    assert [entry["status"] for entry in history] == ["finished", "finished"]
    assert history[1]["limit"] == 4 and history[1]["benchmarks"] == ["mme"]
    assert history[0]["counts"]["mme"]["requested"] > 0 and history[1]["counts"]["mme"]["requested"] == 0


def test_a_limited_run_builds_only_the_requests_it_asks_and_those_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mmgauge.benchmarks.mme.bench import MMEBenchmark

    built: list[str] = []
    original = MMEBenchmark.build_messages

    def counting(self: MMEBenchmark, sample: Any, round: int) -> Any:
        built.append(sample.id)
        return original(self, sample, round)

    monkeypatch.setattr(MMEBenchmark, "build_messages", counting)
    out = tmp_path / "run"
    first = mmgauge.evaluate(model="mock:Yes", benchmarks="mme", out=out, cache=False, limit=4)
    assert len(built) == 4 and first.benchmarks["mme"].requested == 4
    built.clear()
    # The 4 stored answers are checked against their requests again (same fingerprints: resumed).
    second = mmgauge.evaluate(model="mock:Yes", benchmarks="mme", out=out, cache=False, limit=6)
    mme = second.benchmarks["mme"]
    assert len(built) == 6 and mme.resumed == 4 and mme.requested == 2


def test_a_limited_run_is_partial_everywhere(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "run"
    done = cli("run", "--bench", "mme", "--model", "mock:Yes", "--limit", "4", "--out", out, "--no-cache")
    assert done.code == 0
    assert "(partial)" in done.out and "partial: 4 of" in done.out
    entry = json.loads((out / "results.json").read_text())["benchmarks"]["mme"]
    assert entry["status"] == "partial" and entry["records"] == 4 and entry["expected"] > 4
    assert mmgauge.load_run(out).partial() == {"mme": f"4/{entry['expected']}"}
    assert cli("report", out, "--out", tmp_path / "r.html").code == 0
    assert "partial" in (tmp_path / "r.html").read_text()
    rest = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=out, cache=False)
    assert rest.benchmarks["mme"].status == "complete" and rest.benchmarks["mme"].resumed == 4


def test_stored_verdicts_are_recomputed_from_the_raw_answers(tmp_path: Path) -> None:
    out = tmp_path / "run"
    honest = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=out, cache=False)
    log = out / "samples.jsonl"
    forged = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        record["extraction"]["answer"] = record["target"]  # every answer "right"
        record["correct"] = True
        forged.append(json.dumps(record))
    log.write_text("\n".join(forged) + "\n")
    again = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=out, cache=False)
    assert again.benchmarks["mme"].requested == 0
    assert again.benchmarks["mme"].result == honest.benchmarks["mme"].result


def test_another_model_cannot_take_over_a_folder_without_its_manifest(tmp_path: Path) -> None:
    out = tmp_path / "run"
    mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=out, cache=False)
    (out / "manifest.json").unlink()
    other = mmgauge.evaluate(model="mock:No", benchmarks=["mme"], out=out, cache=False)
    entry = other.benchmarks["mme"]
    assert entry.resumed == 0 and entry.requested == entry.records  # every answer asked of the new model
    assert other.result_as("mme", MMEResult).subtasks["existence"].yes_ratio == 0.0


def test_options_belong_to_the_benchmarks_that_declare_them(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"no benchmark of this run .*'shuffle_options'"):
        mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "x",
                         options={"shuffle_options": True})
    with pytest.raises(UserError, match=r"mme\.pasrer.*not an option of mme"):
        mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "y",
                         options={"mme": {"pasrer": "words"}})
    words = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme"], out=tmp_path / "z", cache=False,
                             options={"parser": "words"})
    assert words.result_as("mme", MMEResult).parser == "words"


def test_sample_data_is_labelled_wherever_its_numbers_are_shown(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "demo"
    done = cli("run", "--bench", "mme", "--model", "mock:Yes", "--out", out, "--no-cache")
    assert "note: mme: built-in synthetic sample data" in done.out.replace("\n", " ")
    results = json.loads((out / "results.json").read_text())
    assert results["labels"] == ["sample data"]
    assert "not comparable with published ones" in results["notes"][0]
    assert cli("report", out, "--out", tmp_path / "r.html").code == 0
    html = (tmp_path / "r.html").read_text()
    assert "[sample data]" in html and "not comparable with published ones" in html


def test_reasoning_is_removed_before_reading_the_answer_and_kept_in_the_record(tmp_path: Path) -> None:
    thinking = "mock:<think>The sign says stop, but no... let me think. No.</think> Yes"
    results = mmgauge.evaluate(model=thinking, benchmarks=["mme"], out=tmp_path / "a", cache=False)
    assert results.result_as("mme", MMEResult).subtasks["existence"].yes_ratio == 1.0
    record = mmgauge.load_run(tmp_path / "a").record_list("mme")[0]
    assert record.response.text is not None and record.response.text.startswith("<think>")
    assert record.extraction is not None and record.extraction.reasoning_removed
    kept = mmgauge.evaluate(model=thinking, benchmarks=["mme"], out=tmp_path / "b", cache=False,
                            keep_reasoning=True)
    # The official parser reads the first four characters: "<thi" is neither yes nor no.
    assert kept.result_as("mme", MMEResult).subtasks["existence"].yes_ratio is None


@pytest.mark.parametrize("bench", ["mme", "mmbench", "m3gia"])
def test_a_judge_reads_the_answer_without_the_reasoning_the_rules_were_kept_from(tmp_path: Path,
                                                                                bench: str) -> None:
    from mmgauge.testing.server import FakeOpenAIServer

    seen: list[str] = []

    def judge_reply(text: str) -> str:
        seen.append(text)
        return "Yes" if bench == "mme" else "A"

    thinking = "mock:<think>Yes, it is A; or B? No.</think> Hard to say"
    with FakeOpenAIServer(answer=judge_reply) as server:
        mmgauge.evaluate(model=thinking, benchmarks=[bench], out=tmp_path / "run", cache=False,
                         judge=f"openai:judge@{server.base_url}", options={"parser": "words"}
                         if bench == "mme" else None)
    assert seen, "the rules read no answer in 'Hard to say', so the judge is asked"
    assert all("Hard to say" in text and "think" not in text and "or B?" not in text for text in seen)
    judged = [record.extraction for record in mmgauge.load_run(tmp_path / "run").record_list(bench)
              if record.extraction is not None and record.extraction.judge_reply is not None]
    assert judged and all(extraction.reasoning_removed for extraction in judged)
