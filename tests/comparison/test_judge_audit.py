"""The judge audit of a run: its judge-free bounds are the scores of the same answers with no judge (all
unreadable answers wrong) and with a judge that is always right; it is stored in the run folder and shown in
the `run` summary."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.audit import judge_audit
from mmgauge.benchmarks.mmbench.sample import sample_frame
from mmgauge.store.run_folder import RunFolder
from mmgauge.testing.server import FakeOpenAIServer
from oracles.mme_release import write_release

UNSURE = "Hmm, I cannot say from this picture."


def _mme_model(text: str) -> str:
    if "yes/no question about an image" in text:  # the MME judge's prompt: an oracle judge
        return "yes" if "first kind" in text else "no"
    if zlib.crc32(text.encode()) % 3 == 0:
        return UNSURE
    truth = "yes" if "first kind" in text else "no"
    return truth if zlib.crc32(text.encode()) % 4 else ("no" if truth == "yes" else "yes")


def _mmbench_truth() -> dict[str, str]:
    frame = sample_frame()
    first = frame[frame["index"].astype(int) < 1_000_000]
    return {str(row["question"]): str(row[row["answer"]]) for _, row in first.iterrows()}


TRUTH = _mmbench_truth()


def _mmbench_model(text: str) -> str:
    if "grade a multiple-choice exam" in text:  # the judge's prompt: pick the option holding the truth
        question = next(q for q in TRUTH if q in text)
        for line in text.splitlines():
            letter, _, option = line.partition(". ")
            if len(letter) == 1 and option == TRUTH[question]:
                return letter
        return "Z"
    code = zlib.crc32(text.encode())
    return UNSURE if code % 3 == 0 else "ABCD"[code % 4]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    def answer(text: str) -> str:
        return _mmbench_model(text) if "Options" in text or "grade a multiple" in text else _mme_model(text)

    with FakeOpenAIServer(answer=answer) as running:
        yield running


def _run(cli: Any, out: Path, *args: str | Path) -> dict[str, Any]:
    done = cli("run", "--out", out, "--no-cache", *args)
    assert done.code == 0, done.out + done.err
    results: dict[str, Any] = json.loads((out / "results.json").read_text())["benchmarks"]
    return results


def test_mme_bounds_are_the_no_judge_and_the_right_judge_scores(server: FakeOpenAIServer, cli: Any,
                                                                tmp_path: Path) -> None:
    data = write_release(tmp_path / "release", 30)
    model = f"openai:model@{server.base_url}"
    common = ("--bench", "mme", "--data", data, "--model", model, "--parser", "words")
    judged = _run(cli, tmp_path / "judged", *common, "--judge", "mock:yes")["mme"]["result"]
    alone = _run(cli, tmp_path / "alone", *common, "--judge", "none")["mme"]["result"]
    oracle = _run(cli, tmp_path / "oracle", *common, "--judge", f"openai:judge@{server.base_url}")
    audit = RunFolder(tmp_path / "judged").read_judge_audit()
    assert audit is not None and audit.judge == "mock:yes"
    entry = audit.benchmarks["mme"]
    records = [json.loads(line) for line in (tmp_path / "judged" / "scored.jsonl").read_text().splitlines()]
    judged_records = [r for r in records if r["extraction"]["method"] == "judge"]
    assert entry.judged == entry.rule_unresolved == len(judged_records) > 0
    assert entry.answers == len(records)
    for bounds in entry.bounds:
        total = bounds.measure.split()[1]
        assert bounds.value == pytest.approx(judged[total]["score"])
        assert bounds.all_wrong == pytest.approx(alone[total]["score"])
        assert bounds.all_right == pytest.approx(oracle["mme"]["result"][total]["score"])
        assert bounds.all_wrong <= bounds.value <= bounds.all_right
        images = {(r["metadata"]["subtask"], r["metadata"]["image"]) for r in judged_records
                  if (r["metadata"]["category"] == total)}
        assert bounds.decided == len(images)


def test_mmbench_bounds_and_the_groups_the_judge_decided(server: FakeOpenAIServer, cli: Any,
                                                         tmp_path: Path) -> None:
    model = f"openai:model@{server.base_url}"
    judged = _run(cli, tmp_path / "judged", "--bench", "mmbench", "--model", model, "--judge", "mock:B")
    alone = _run(cli, tmp_path / "alone", "--bench", "mmbench", "--model", model, "--judge", "none")
    oracle = _run(cli, tmp_path / "oracle", "--bench", "mmbench", "--model", model, "--judge",
                  f"openai:judge@{server.base_url}")
    entry = judge_audit(tmp_path / "judged").benchmarks["mmbench"]
    circular, vanilla = entry.bounds
    assert circular.value == pytest.approx(100 * judged["mmbench"]["result"]["overall"])
    assert circular.all_wrong == pytest.approx(100 * alone["mmbench"]["result"]["overall"])
    assert circular.all_right == pytest.approx(100 * oracle["mmbench"]["result"]["overall"])
    # Vanilla counts first copies never sent to the judge (their group already lost) wrong, so even a
    # judge that is always right may stay below the all-right bound; never above it.
    assert vanilla.all_wrong == pytest.approx(100 * alone["mmbench"]["result"]["vanilla"])
    assert 100 * oracle["mmbench"]["result"]["vanilla"] <= vanilla.all_right + 1e-9
    assert 0 < circular.decided == round((circular.all_right - circular.all_wrong) / 100 * circular.units)
    records = [json.loads(line) for line in (tmp_path / "judged" / "scored.jsonl").read_text().splitlines()]
    assert entry.rule_unresolved == sum(r["extraction"]["method"] in ("judge", "unresolved") for r in records)


def test_a_run_without_a_judge_still_has_bounds_and_the_summary_shows_them(cli: Any, tmp_path: Path) -> None:
    done = cli("run", "--out", tmp_path / "run", "--no-cache", "--bench", "mmbench,m3gia", "--model",
               f"mock:{UNSURE}")
    assert done.code == 0, done.err
    assert "Answers no rule could read, and what no judge made of them" in done.out
    audit = judge_audit(tmp_path / "run")
    assert audit.judge is None and audit.relevant
    for entry in audit.benchmarks.values():
        assert entry.judged == 0 and entry.unresolved == entry.rule_unresolved == entry.answers
        for bounds in entry.bounds:
            assert (bounds.all_wrong, bounds.value, bounds.all_right) == (0.0, 0.0, 100.0)
            assert bounds.decided == bounds.units
