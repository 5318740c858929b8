"""One MMBench in three layouts (VLMEvalKit TSV in LMUData, lmms-lab parquet in the hub cache, the datasets
arrow cache): identical sample ids, options and answers, and identical scores for identical answers."""

from __future__ import annotations

import hashlib
from pathlib import Path

from layouts.lmms_lab_mmbench import lmms_lab_mmbench_table
from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.sample import sample_frame
from mmgauge.core.types import ModelResponse, Sample, SampleRecord
from mmgauge.datasources.locate import resolve_data
from mmgauge.testing.hf_layouts import parquet_bytes, write_arrow_cache, write_hub_dataset


def records(bench: MMBenchBenchmark, samples: list[Sample]) -> list[SampleRecord]:
    out = []
    for sample in samples:
        digest = hashlib.sha256(sample.id.encode()).digest()[0]
        text = sample.answer if digest % 3 else "B"  # mostly right, sometimes B: some groups fail
        extraction = bench.extract(sample, text or "")
        out.append(SampleRecord(
            benchmark="mmbench", sample_id=sample.id, fingerprint="f", prompt="p",
            response=ModelResponse(text=text), extraction=extraction, target=sample.answer,
            correct=extraction.answer == sample.answer, metadata=bench.record_metadata(sample)))
    return out


def test_every_layout_gives_the_same_samples_and_scores(tmp_path: Path) -> None:
    frame = sample_frame()
    rows = [{k: str(v) for k, v in row.items()} for row in frame.to_dict("records")]
    lmu = tmp_path / "LMUData"
    lmu.mkdir()
    frame.to_csv(lmu / "MMBench_DEV_EN.tsv", sep="\t", index=False)
    table = lmms_lab_mmbench_table(rows)
    write_hub_dataset(tmp_path / "hub", "lmms-lab/MMBench", {
        "en/dev-00000-of-00001.parquet": parquet_bytes(table),
        "en/test-00000-of-00001.parquet": parquet_bytes(table.slice(0, 3)),
        "cn/dev-00000-of-00001.parquet": parquet_bytes(table.slice(0, 3))})
    splits = {"dev": table, "test": table.slice(0, 2)}
    write_arrow_cache(tmp_path / "datasets", "lmms-lab/MMBench", "en", splits)
    env = {"LMUData": str(lmu), "HF_HUB_CACHE": str(tmp_path / "hub")}
    arrow_env = {"HF_DATASETS_CACHE": str(tmp_path / "datasets"), "HF_HUB_CACHE": str(tmp_path / "nothing")}

    bench = MMBenchBenchmark()
    reference = bench.load(resolve_data("mmbench", "MMBench_DEV_EN", env=env))
    expected = bench.score(records(bench, reference.samples)).model_dump()
    assert 0 < expected["overall"] < 1 and expected["l2"]
    for spec, variables in (("hf:lmms-lab/MMBench/en/dev", env), ("hf:lmms-lab/MMBench/en/dev", arrow_env)):
        loaded = MMBenchBenchmark().load(resolve_data("mmbench", spec, env=variables))
        assert [s.id for s in loaded.samples] == [s.id for s in reference.samples]
        def described(samples: list[Sample]) -> list[object]:  # "line" is where the row sits in its own file
            return [(s.options, s.answer, {k: v for k, v in s.metadata.items() if k != "line"})
                    for s in samples]

        assert described(loaded.samples) == described(reference.samples)
        images = [s.images[0].sha256() for s in reference.samples]
        assert [s.images[0].sha256() for s in loaded.samples] == images
        prompts = [bench.build_messages(s)[0].text() for s in loaded.samples]
        # No "nan" hint reaches a prompt.
        assert prompts == [bench.build_messages(s)[0].text() for s in reference.samples]
        assert bench.score(records(bench, loaded.samples)).model_dump() == expected
