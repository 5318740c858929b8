"""The benchmark end to end without a runner: sample data, prompts, CircularEval judge economy, submission."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark, MMBenchOptions
from mmgauge.benchmarks.mmbench.prompts import build_prompt
from mmgauge.benchmarks.mmbench.sample import ITEMS
from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.core.types import ModelResponse, Sample, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.testing.scripted import ScriptedBackend


def records(bench: MMBenchBenchmark, samples: list[Sample], texts: dict[str, str]) -> list[SampleRecord]:
    """What the runner stores: rules-only extraction, `correct` when a letter was read."""
    out = []
    for sample in samples:
        text = texts.get(sample.id, sample.answer or "")
        extraction = bench.extract(sample, text)
        correct = None if extraction.answer is None else extraction.answer == sample.answer
        out.append(
            SampleRecord(
                benchmark="mmbench",
                sample_id=sample.id,
                fingerprint="f",
                prompt="p",
                response=ModelResponse(text=text),
                extraction=extraction,
                target=sample.answer,
                correct=correct,
                metadata=bench.record_metadata(sample),
            )
        )
    return out


def test_sample_loads_with_circular_copies(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    assert len(dataset.samples) == sum(len(item.options) for item in ITEMS)
    assert dataset.fingerprint == bench.load(bench.sample_data(tmp_path / "again")).fingerprint
    first = dataset.samples[0]
    assert first.id == "1" and first.answer == "A" and first.options["A"] == "HARBOR"
    text = bench.build_messages(first)[0].text()
    assert text.splitlines()[0] == "Question: Which word is written on the sign?"
    assert "A. HARBOR" in text and text.endswith("Answer with the letter of the correct option only.")
    result = bench.score(records(bench, dataset.samples, {}))
    assert result.overall == 1.0 and result.vanilla == 1.0 and result.n_groups == len(ITEMS)


def test_prompt_templates() -> None:
    en = build_prompt("Q?", {"A": "x", "B": "y"}, hint="look")
    assert en.splitlines() == [
        "Hint: look",
        "Question: Q?",
        "Options:",
        "A. x",
        "B. y",
        "Answer with the letter of the correct option only.",
    ]
    cn = build_prompt("问题?", {"A": "x", "B": "y"}, lang="cn")
    assert cn.splitlines()[0] == "问题：问题?" and cn.splitlines()[1] == "选项："


def run_group(texts: dict[str, str], reply: str) -> tuple[MMBenchResult, int, list[SampleRecord]]:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(Path(_tmp)))
    group = [sample for sample in dataset.samples if sample.metadata["g_index"] == 1]  # 4 copies, HARBOR
    backend = ScriptedBackend(reply)
    resolved = asyncio.run(
        bench.resolve(records(bench, group, texts), {s.id: s for s in group}, Judge(backend))
    )
    return bench.score(resolved), backend.requests, resolved


_tmp = ""


def test_judge_economy(tmp_path: Path) -> None:
    global _tmp
    _tmp = str(tmp_path)
    vague = "It could be several of these, hard to say really from this picture alone."
    # a copy read as wrong by the rules: the group is wrong, no judge call at all
    result, calls, _ = run_group({"1": vague, "1000001": "A"}, "Z")
    assert (calls, result.overall) == (0, 0.0)
    # all read right by rules: right, no call
    result, calls, _ = run_group({}, "Z")
    assert (calls, result.overall) == (0, 1.0)
    # two unresolved copies, judge says the right letter each time: 2 calls, group right
    result, calls, resolved = run_group({"1": vague, "3000001": vague}, "HARBOR")
    assert (calls, result.overall) == (2, 1.0)
    assert result.extraction["judge"] == 2
    assert resolved[0].extraction is not None and resolved[0].extraction.judge_reply == "HARBOR"
    # the judge reads copy 0 as wrong: stop there, copy 3 is never judged
    result, calls, resolved = run_group({"1": vague, "3000001": vague}, "Z")
    assert (calls, result.overall, result.unresolved) == (1, 0.0, 1)
    assert resolved[3].extraction is not None and "not judged" in (resolved[3].extraction.detail or "")


def test_no_judge_counts_unresolved_and_says_so(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    texts = {"1": "Maybe HARBOR or maybe GARDEN, it is hard to tell from here."}
    resolved = asyncio.run(
        bench.resolve(records(bench, dataset.samples, texts), {s.id: s for s in dataset.samples}, None)
    )
    result = bench.score(resolved)
    assert result.unresolved == 1 and result.unresolved_groups == 1
    assert result.overall == (len(ITEMS) - 1) / len(ITEMS)
    assert result.vanilla == result.overall
    assert any("1 answers left unresolved with no judge" in line for line in result.headline())
    seeded = MMBenchBenchmark(MMBenchOptions(random_fallback=True, seed=1))
    guessed = asyncio.run(seeded.resolve(resolved, {s.id: s for s in dataset.samples}, None))
    assert seeded.score(guessed).extraction.get("random") == 1


def test_test_split_submission(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    frame = pd.read_csv(bench.sample_data(tmp_path), sep="\t", dtype=str, keep_default_na=False)
    plain = frame[frame["index"].astype(int) < 1_000_000].drop(columns=["answer", "g_index"])
    data = tmp_path / "test.tsv"
    plain.to_csv(data, sep="\t", index=False)
    dataset = bench.load(data)
    assert all(sample.answer is None for sample in dataset.samples)
    runs = records(bench, dataset.samples, {s.id: "A" for s in dataset.samples})
    runs[0] = runs[0].model_copy(update={"response": ModelResponse(error="timeout"), "extraction": None})
    result = bench.score(runs)
    assert result.overall is None and "evaluation server" in result.headline()[0]
    written = bench.write_submission(runs, data, tmp_path / "out" / "submission.xlsx")
    assert written.missing == [int(dataset.samples[0].id)]
    sheet = pd.read_excel(written.path, dtype=str).fillna("")
    assert len(sheet) == len(dataset.samples)
    assert "image" not in sheet.columns and sheet.columns[-1] == "prediction"
    assert list(sheet.columns[:-1]) == [c for c in plain.columns if c != "image"]
    assert set(sheet["prediction"][1:]) == {"A"} and sheet["prediction"][0] == ""


def test_prediction_file_with_scripted_judge(tmp_path: Path) -> None:
    from mmgauge.benchmarks.mmbench.predictions import load_predictions, score_predictions

    frame = pd.read_csv(MMBenchBenchmark().sample_data(tmp_path), sep="\t", dtype=str, keep_default_na=False)
    frame["prediction"] = frame["answer"]
    frame.loc[frame["index"] == "1", "prediction"] = "Hmm, a harbor or a garden, hard to say from this."
    frame.loc[frame["index"] == "2", "prediction"] = "C"  # read as wrong: group 2 needs no call
    frame.loc[frame["index"] == "1000002", "prediction"] = "Hmm, it is hard to say from this picture."
    path = tmp_path / "pred.tsv"
    frame.to_csv(path, sep="\t", index=False)
    backend = ScriptedBackend("A")
    judge = Judge(backend)
    result = asyncio.run(score_predictions(load_predictions(path), judge))
    assert backend.requests == 1 and result.groups["1"] == 1 and result.groups["2"] == 0
    assert result.extraction["judge"] == 1 and result.unresolved == 1
