"""One MME, four layouts (release folder, VLMEvalKit TSV, lmms-lab parquet in the hub cache, the datasets
arrow cache): identical sample ids, and identical scores for identical answers."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pyarrow as pa
import pytest

from mmgauge.benchmarks.mme.bench import MMEBenchmark
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, Sample, SampleRecord
from mmgauge.datasources.locate import resolve_data
from mmgauge.testing.hf_layouts import image_column, parquet_bytes, write_arrow_cache, write_hub_dataset


def lmms_lab_table(samples: list[Sample]) -> pa.Table:
    """lmms-lab/MME's columns: question_id `<subtask>/<image>` (one per image), image struct, Yes/No."""
    return pa.table({
        "question_id": [f"{s.metadata['subtask']}/{s.metadata['image']}" for s in samples],
        "image": image_column([s.images[0].load() for s in samples], [s.metadata["image"] for s in samples]),
        "question": [s.question for s in samples],
        "answer": ["Yes" if s.answer == "yes" else "No" for s in samples],
        "category": [s.metadata["subtask"] for s in samples],
    })


def vlmevalkit_tsv(samples: list[Sample], path: Path) -> Path:
    """VLMEvalKit's MME.tsv form: base64 image on the first row of a pair, the second names its index."""
    lines = ["index\timage\tquestion\tanswer\tcategory\timage_path"]
    first_row: dict[str, int] = {}
    for number, s in enumerate(samples):
        key = f"{s.metadata['subtask']}/{s.metadata['image']}"
        image = str(first_row[key]) if key in first_row else base64.b64encode(s.images[0].load()).decode()
        first_row.setdefault(key, number)
        answer = "Yes" if s.answer == "yes" else "No"
        lines.append(f"{number}\t{image}\t{s.question}\t{answer}\t{s.metadata['subtask']}\tMME/{key}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def answers_for(sample_id: str) -> str:
    """A fixed, varied answer per sample: yes, no, or something the official parser reads as other."""
    choice = hashlib.sha256(sample_id.encode()).digest()[0] % 5
    return ("Yes", "No", "No.", "yes, it is", "I cannot tell")[choice]


def records(bench: MMEBenchmark, samples: list[Sample]) -> list[SampleRecord]:
    out = []
    for sample in samples:
        text = answers_for(sample.id)
        extraction = bench.extract(sample, text)
        out.append(SampleRecord(
            benchmark="mme", sample_id=sample.id, fingerprint="f", prompt=sample.question,
            response=ModelResponse(text=text), extraction=extraction, target=sample.answer,
            correct=extraction.answer == sample.answer, metadata=bench.record_metadata(sample)))
    return out


def test_every_layout_gives_the_same_ids_and_scores(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    release = bench.load(bench.sample_data(tmp_path / "release"))
    samples = release.samples
    table = lmms_lab_table(samples)
    half = table.num_rows // 2 + 1  # an odd split: a pair may straddle two shards
    hub = tmp_path / "hub"
    write_hub_dataset(hub, "lmms-lab/MME", {
        "data/test-00000-of-00002-a25dbe3b44c4fda6.parquet": parquet_bytes(table.slice(0, half)),
        "data/test-00001-of-00002-7d22c7f1aba6fca4.parquet": parquet_bytes(table.slice(half)),
        "README.md": b"---\n---\n", ".gitattributes": b"*.parquet filter=lfs\n"})
    write_arrow_cache(tmp_path / "datasets", "lmms-lab/MME", "default", {"test": table}, shards=2)
    lmu = tmp_path / "LMUData"
    lmu.mkdir()
    vlmevalkit_tsv(samples, lmu / "MME.tsv")
    env = {"HF_HUB_CACHE": str(hub), "HF_DATASETS_CACHE": str(tmp_path / "datasets"), "LMUData": str(lmu)}

    expected = bench.score(records(bench, samples)).model_dump()
    sources = {
        "tsv": resolve_data("mme", "MME", env=env),
        "hub": resolve_data("mme", "hf:lmms-lab/MME", env=env),
        "arrow": resolve_data("mme", "hf:lmms-lab/MME", env={"HF_DATASETS_CACHE": env["HF_DATASETS_CACHE"],
                                                             "HF_HUB_CACHE": str(tmp_path / "empty")}),
    }
    assert sources["arrow"].parent.parent.parent.name == "lmms-lab___mme"
    for name, path in sources.items():
        loaded = MMEBenchmark().load(path)
        assert [s.id for s in loaded.samples] == [s.id for s in samples], name
        assert [s.answer for s in loaded.samples] == [s.answer for s in samples], name
        assert [s.images[0].sha256() for s in loaded.samples] == [s.images[0].sha256() for s in samples], name
        assert bench.score(records(bench, loaded.samples)).model_dump() == expected, name
    assert expected["perception"]["score"] > 0 and expected["other"] > 0


def test_a_single_shard_reads_its_whole_split_and_fingerprints_it(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    samples = bench.load(bench.sample_data(tmp_path / "release")).samples
    table = lmms_lab_table(samples)
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "test-00000-of-00002.parquet").write_bytes(parquet_bytes(table.slice(0, 10)))
    (folder / "test-00001-of-00002.parquet").write_bytes(parquet_bytes(table.slice(10)))
    whole = bench.load(folder)
    one = bench.load(folder / "test-00001-of-00002.parquet")
    assert len(one.samples) == len(samples) and one.fingerprint == whole.fingerprint
    assert bench.load_notes == []


def test_lmms_lab_table_problems_name_file_row_and_column(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    samples = bench.load(bench.sample_data(tmp_path / "release")).samples[:4]
    table = lmms_lab_table(samples)
    path = tmp_path / "mme.parquet"
    path.write_bytes(parquet_bytes(table.drop_columns(["category"])))
    with pytest.raises(UserError, match=r"missing column\(s\) category of the lmms-lab/MME layout"):
        bench.load(path)
    answers = table.column("answer").to_pylist()
    answers[2] = "Maybe"
    path.write_bytes(parquet_bytes(table.set_column(3, "answer", pa.array(answers))))
    with pytest.raises(UserError) as caught:
        bench.load(path)
    assert caught.value.line == 3 and "Yes or No" in str(caught.value)
