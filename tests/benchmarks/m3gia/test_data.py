"""Loading M3GIA parquet files: columns, images, ground truth, the Hugging Face cache and bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mmgauge
from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark, M3GIAOptions
from mmgauge.benchmarks.m3gia.data import answer_table, find_files, hub_snapshot
from mmgauge.core.errors import UserError
from mmgauge.testing.hf_layouts import write_hub_dataset

PNG = b"\x89PNG\r\n\x1a\nfake image bytes"
IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])


def release_rows() -> list[dict[str, Any]]:
    return [
        # Options stop at the first empty one: D is ignored because C is empty.
        {"index": 211, "question": "2, 4, 8, ?", "hint": None, "A": "16", "B": "12", "C": None, "D": "9",
         "E": None, "F": None, "image": None, "QuestionTypes": "Number Seres"},
        {"index": 251, "question": "Which completes it?", "hint": "Look at the rows.", "A": "x", "B": "y",
         "C": "z", "D": "w", "E": "v", "F": "u", "image": {"bytes": PNG, "path": "a.png"},
         "QuestionTypes": "Raven's Matrices"},
        # A struct whose bytes are null is text-only too; 'nan' counts as empty, as in the official reader.
        {"index": 1, "question": "Big means?", "hint": "nan", "A": "large", "B": "small", "C": "", "D": None,
         "E": None, "F": None, "image": {"bytes": None, "path": None}, "QuestionTypes": "Oral Vocabulary"},
    ]


def write(path: Path, rows: list[dict[str, Any]], metadata: dict[bytes, bytes] | None = None,
          drop: tuple[str, ...] = ()) -> Path:
    fields = [("index", pa.int64()), ("question", pa.string()), ("hint", pa.string()),
              *((c, pa.string()) for c in "ABCDEF"), ("image", IMAGE), ("QuestionTypes", pa.string())]
    if rows and "answer" in rows[0]:
        fields.append(("answer", pa.string()))
    schema = pa.schema([f for f in fields if f[0] not in drop], metadata=metadata)
    table = pa.Table.from_pylist([{k: v for k, v in r.items() if k not in drop} for r in rows], schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def test_loader_joins_truth_types_factors_and_reads_images(tmp_path: Path) -> None:
    write(tmp_path / "english_v1.parquet", release_rows())
    dataset = M3GIABenchmark().load(tmp_path)
    series, raven, vocab = dataset.samples
    truths = answer_table("english")
    assert [s.id for s in dataset.samples] == ["english/211", "english/251", "english/1"]
    assert series.options == {"A": "16", "B": "12"}
    assert series.images == [] and vocab.images == []
    assert raven.images[0].load() == PNG
    assert list(raven.options) == list("ABCDEF")
    assert raven.metadata["hint"] == "Look at the rows." and vocab.metadata["hint"] == ""
    assert series.answer == truths["211"].answer and raven.answer == truths["251"].answer
    assert series.metadata["question_type"] == "Number Seres"  # the release's spelling, matched as is
    assert series.metadata["cluster"] == "Reasoning" and series.metadata["count_column"] == "Number_Series"
    assert set(series.metadata["factors"]) == {"Gf", "RQ", "I"}
    assert series.metadata["truth_source"] == "answer_dict"


def test_answer_column_counts_only_in_files_marked_as_carrying_their_own_truth(tmp_path: Path) -> None:
    rows = [dict(release_rows()[0], answer="B")]
    truth = answer_table("english")["211"].answer
    plain = M3GIABenchmark().load(write(tmp_path / "a" / "english_v1.parquet", rows))
    assert plain.samples[0].answer == truth
    marked = write(tmp_path / "b" / "english_v1.parquet", rows, {b"mmgauge.ground_truth": b"answer-column"})
    own = M3GIABenchmark().load(marked).samples[0]
    assert own.answer == "B" and own.metadata["truth_source"] == "sample"


def test_folder_with_several_languages_and_language_selection(tmp_path: Path) -> None:
    write(tmp_path / "english_v1.parquet", release_rows())
    write(tmp_path / "sub" / "korean_v1.parquet", release_rows()[:1])
    both = M3GIABenchmark().load(tmp_path)
    assert [s.id for s in both.samples][-1] == "korean/211"
    only = M3GIABenchmark(M3GIAOptions(languages=["ko"])).load(tmp_path)
    assert [s.id for s in only.samples] == ["korean/211"]
    with pytest.raises(UserError, match="no data for french"):
        M3GIABenchmark(M3GIAOptions(languages=["fr"])).load(tmp_path)


def test_single_file_without_a_language_in_its_name(tmp_path: Path) -> None:
    path = write(tmp_path / "questions.parquet", release_rows())
    with pytest.raises(UserError, match="cannot tell the language"):
        M3GIABenchmark().load(path)
    dataset = M3GIABenchmark(M3GIAOptions(languages=["spanish"])).load(path)
    assert dataset.samples[0].id == "spanish/211"


def fake_hub(root: Path, revision: str = "abc123") -> Path:
    repo = root / "datasets--Songweii--M3GIA"
    write(repo / "snapshots" / revision / "english_v1.parquet", release_rows())
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision + "\n")
    (root / "datasets--someone--other").mkdir()
    return repo


def test_hugging_face_cache_lookup(tmp_path: Path) -> None:
    repo = fake_hub(tmp_path)
    (repo / "snapshots" / "older").mkdir()  # refs/main settles which snapshot is current
    assert hub_snapshot(tmp_path) == repo / "snapshots" / "abc123"
    assert find_files(tmp_path) == {"english": repo / "snapshots" / "abc123" / "english_v1.parquet"}
    assert len(M3GIABenchmark().load(tmp_path).samples) == 3
    assert len(M3GIABenchmark().load(repo).samples) == 3


def test_the_word_hf_runs_on_the_hub_cache_huggingface_hub_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cache as huggingface_hub writes it (blobs, links, refs/main), where HF_HOME puts it; the run starts
    # in another folder, so a path made of the word would not find it.
    parquet = write(tmp_path / "made" / "english_v1.parquet", release_rows()).read_bytes()
    snapshot = write_hub_dataset(tmp_path / "home" / "hub", "Songweii/M3GIA", {"english_v1.parquet": parquet})
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    results = mmgauge.evaluate(model="mock:A", benchmarks="m3gia", data={"m3gia": "hf"}, out=tmp_path / "run",
                               cache=False, judge="none")
    assert results.benchmarks["m3gia"].records == 3
    source = mmgauge.load_run(tmp_path / "run").manifest.datasets[0].data
    assert Path(source) == snapshot.resolve()


def test_hugging_face_cache_problems(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no M3GIA dataset"):
        hub_snapshot(tmp_path)
    repo = tmp_path / "datasets--x--M3GIA"
    (repo / "snapshots" / "one").mkdir(parents=True)
    (repo / "snapshots" / "two").mkdir()
    with pytest.raises(UserError, match="several snapshots"):
        hub_snapshot(tmp_path)


def test_wrong_language_name_lists_the_valid_ones() -> None:
    with pytest.raises(UserError) as caught:
        M3GIABenchmark(M3GIAOptions(languages=["german"]))
    assert "german" in str(caught.value) and "english" in str(caught.value) and "korean" in str(caught.value)


def test_missing_columns_are_named_with_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "english_v1.parquet", release_rows(), drop=("hint", "image"))
    with pytest.raises(UserError) as caught:
        M3GIABenchmark().load(path)
    message = str(caught.value)
    assert "missing columns hint, image" in message and str(path) in message


def test_question_without_ground_truth(tmp_path: Path) -> None:
    rows = [dict(release_rows()[0], index=301)]
    path = write(tmp_path / "english_v1.parquet", rows)
    with pytest.raises(UserError) as caught:
        M3GIABenchmark().load(path)
    assert "question id 301 has no ground truth" in str(caught.value) and f"{path}:1" in str(caught.value)


def test_duplicate_ids_and_files_that_are_not_parquet(tmp_path: Path) -> None:
    path = write(tmp_path / "english_v1.parquet", release_rows()[:1] * 2)
    with pytest.raises(UserError, match="appears twice"):
        M3GIABenchmark().load(path)
    bad = tmp_path / "x" / "french_v1.parquet"
    bad.parent.mkdir()
    bad.write_text("not parquet")
    with pytest.raises(UserError, match="cannot read as parquet"):
        M3GIABenchmark().load(bad)
