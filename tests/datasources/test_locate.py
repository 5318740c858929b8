"""`--data` by path, VLMEvalKit name or Hugging Face id, found in the exact local layouts, not downloaded."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from mmgauge.core.errors import UserError
from mmgauge.datasources.hf_cache import parse_hf_spec, snake_case
from mmgauge.datasources.locate import resolve_data
from mmgauge.datasources.tables import read_arrow, table_files
from mmgauge.testing.hf_layouts import parquet_bytes, write_arrow_cache, write_hub_dataset

COMMIT = "9" * 40


def small(split: str, rows: int = 2) -> pa.Table:
    return pa.table({"index": list(range(rows)), "split": [split] * rows})


def mmbench_hub(hub: Path) -> Path:
    files = {f"{config}/{split}-00000-of-00001.parquet": parquet_bytes(small(f"{config}-{split}"))
             for config in ("en", "cn") for split in ("dev", "test")}
    files["cc/test-00000-of-00001.parquet"] = parquet_bytes(small("cc-test"))
    files["README.md"] = b"---\ndataset_info: ...\n---\n"
    return write_hub_dataset(hub, "lmms-lab/MMBench", files, commit=COMMIT)


def test_a_path_that_exists_is_returned_as_it_is(tmp_path: Path) -> None:
    tsv = tmp_path / "my.tsv"
    tsv.write_text("index\n")
    assert resolve_data("mmbench", str(tsv), env={}) == tsv
    assert resolve_data("mme", str(tmp_path), env={}) == tmp_path


def test_vlmevalkit_names_are_found_in_lmudata(tmp_path: Path) -> None:
    lmu = tmp_path / "LMUData"
    lmu.mkdir()
    for name in ("MMBench_DEV_EN", "CCBench", "MMBench_DEV_CN_V11", "MME"):
        (lmu / f"{name}.tsv").write_text("index\n")
    env = {"LMUData": str(lmu)}
    assert resolve_data("mmbench", "MMBench_DEV_EN", env=env) == lmu / "MMBench_DEV_EN.tsv"
    assert resolve_data("mmbench", "ccbench", env=env) == lmu / "CCBench.tsv"  # letter case is ignored
    assert resolve_data("mmbench", "MMBench_DEV_CN_V11", env=env) == lmu / "MMBench_DEV_CN_V11.tsv"
    assert resolve_data("mme", "MME", env=env) == lmu / "MME.tsv"
    with pytest.raises(UserError, match="'MME' is a VLMEvalKit mme dataset, not mmbench"):
        resolve_data("mmbench", "MME", env=env)


def test_lmudata_defaults_to_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Path, "home", lambda: tmp_path)
    (tmp_path / "LMUData").mkdir()
    (tmp_path / "LMUData" / "MMBench_TEST_EN.tsv").write_text("index\n")
    # VLMEvalKit ignores an LMUData that is not an existing folder, and so do we.
    env = {"LMUData": str(tmp_path / "nowhere")}
    assert resolve_data("mmbench", "MMBench_TEST_EN", env=env) == tmp_path / "LMUData" / "MMBench_TEST_EN.tsv"


def test_a_missing_name_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as caught:
        resolve_data("mmbench", "MMBench_DEV_EN", env={"LMUData": str(tmp_path)})
    message = str(caught.value)
    assert "\n" not in message
    assert str(tmp_path / "MMBench_DEV_EN") in message and str(tmp_path / "MMBench_DEV_EN.tsv") in message
    with pytest.raises(UserError, match="VLMEvalKit names for mme: MME"):
        resolve_data("mme", "MyOwnMME", env={"LMUData": str(tmp_path)})
    with pytest.raises(UserError, match="no such file or folder"):
        resolve_data("mme", "some/where.tsv", env={})


def test_hub_cache_snapshot_by_config_and_split(tmp_path: Path) -> None:
    snapshot = mmbench_hub(tmp_path / "hub")
    env = {"HF_HUB_CACHE": str(tmp_path / "hub")}
    found = resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env=env)
    assert found == snapshot / "en" / "dev-00000-of-00001.parquet"
    assert read_arrow(table_files(found)).column("split").to_pylist() == ["en-dev", "en-dev"]
    assert resolve_data("mmbench", "hf:lmms-lab/MMBench/cc", env=env) == snapshot / "cc"  # one split in it
    assert resolve_data("mmbench", f"hf:lmms-lab/MMBench@{COMMIT[:8]}/cn/test", env=env).parent.name == "cn"
    with pytest.raises(UserError) as caught:
        resolve_data("mmbench", "hf:lmms-lab/MMBench", env=env)
    assert "choose one: hf:lmms-lab/MMBench/cc/test, hf:lmms-lab/MMBench/cn/dev" in str(caught.value)
    both = "choose one: hf:lmms-lab/MMBench/en/dev, hf:lmms-lab/MMBench/en/test"
    with pytest.raises(UserError, match=both):
        resolve_data("mmbench", "hf:lmms-lab/MMBench/en", env=env)


def test_hub_cache_location_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = mmbench_hub(tmp_path / "home" / "hub")
    wanted = snapshot / "en" / "dev-00000-of-00001.parquet"
    home = {"HF_HOME": str(tmp_path / "home")}
    assert resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env=home) == wanted
    legacy = {"HUGGINGFACE_HUB_CACHE": str(tmp_path / "home" / "hub")}
    assert resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env=legacy) == wanted
    xdg = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    mmbench_hub(tmp_path / "xdg" / "huggingface" / "hub")
    assert resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env=xdg).is_file()
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "user")
    mmbench_hub(tmp_path / "user" / ".cache" / "huggingface" / "hub")
    assert resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env={}).is_file()


def test_sharded_split_in_its_own_folder_is_the_folder(tmp_path: Path) -> None:
    files = {f"data/test-0000{i}-of-00002-{i}a2b3c4d5e6f7.parquet": parquet_bytes(small(f"t{i}"))
             for i in range(2)}
    snapshot = write_hub_dataset(tmp_path, "lmms-lab/MME", files)
    found = resolve_data("mme", "hf:lmms-lab/MME", env={"HF_HUB_CACHE": str(tmp_path)})
    assert found == snapshot / "data"
    assert read_arrow(table_files(found)).column("split").to_pylist() == ["t0", "t0", "t1", "t1"]
    # One shard stands for its split: its siblings are read with it, a missing one is named.
    assert len(table_files(snapshot / "data" / "test-00001-of-00002-1a2b3c4d5e6f7.parquet")) == 2
    (snapshot / "data" / "test-00001-of-00002-1a2b3c4d5e6f7.parquet").unlink()
    with pytest.raises(UserError, match=r"shard\(s\) 1 of 2 missing"):
        table_files(snapshot / "data" / "test-00000-of-00002-0a2b3c4d5e6f7.parquet")


def test_arrow_cache_of_the_datasets_library(tmp_path: Path) -> None:
    build = write_arrow_cache(tmp_path / "datasets", "lmms-lab/MMBench", "en",
                              {"dev": small("dev", 5), "test": small("test", 3)}, shards=1)
    write_arrow_cache(tmp_path / "datasets", "lmms-lab/MME", "default", {"test": small("mme", 4)}, shards=2)
    env = {"HF_DATASETS_CACHE": str(tmp_path / "datasets"), "HF_HUB_CACHE": str(tmp_path / "hub")}
    found = resolve_data("mmbench", "hf:lmms-lab/MMBench/en/dev", env=env)
    assert found == build / "mm_bench-dev.arrow"
    assert read_arrow(table_files(found)).num_rows == 5
    mme = resolve_data("mme", "hf:lmms-lab/MME", env=env)
    assert mme.is_dir() and read_arrow(table_files(mme)).num_rows == 4
    with pytest.raises(UserError, match="choose one"):
        resolve_data("mmbench", "hf:lmms-lab/MMBench/en", env=env)


def test_absent_dataset_lists_every_place_looked(tmp_path: Path) -> None:
    env = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_DATASETS_CACHE": str(tmp_path / "ds")}
    with pytest.raises(UserError) as caught:
        resolve_data("mme", "hf:lmms-lab/MME", env=env)
    message = str(caught.value)
    assert "\n" not in message and "nothing is downloaded" in message
    assert str(tmp_path / "hub" / "datasets--lmms-lab--MME") + " (HF_HUB_CACHE)" in message
    assert str(tmp_path / "ds" / "lmms-lab___mme") + " (HF_DATASETS_CACHE)" in message
    mmbench_hub(tmp_path / "hub")
    with pytest.raises(UserError, match=r"MMBench \(HF_HUB_CACHE\) \[no snapshot for revision v9\]"):
        resolve_data("mmbench", "hf:lmms-lab/MMBench@v9/en/dev", env=env)
    skipped = "at revision v2 .*skipped: the arrow cache does not record revisions"
    with pytest.raises(UserError, match=skipped):
        resolve_data("mme", "hf:lmms-lab/MME@v2", env=env)


def test_m3gia_gets_the_whole_snapshot(tmp_path: Path) -> None:
    files = {f"{lang}_v1.parquet": parquet_bytes(small(lang)) for lang in ("english", "chinese")}
    snapshot = write_hub_dataset(tmp_path, "Songweii/M3GIA", files)
    assert resolve_data("m3gia", "hf:Songweii/M3GIA", env={"HF_HUB_CACHE": str(tmp_path)}) == snapshot
    assert resolve_data("m3gia", "hf", env={}) == Path("hf")  # the M3GIA loader's own word, unchanged


def test_spec_grammar() -> None:
    spec = parse_hf_spec("lmms-lab/MMBench@refs-pr-1/en/dev")
    assert (spec.repo, spec.revision, spec.selection) == ("lmms-lab/MMBench", "refs-pr-1", ("en", "dev"))
    with pytest.raises(UserError, match="hf:ORG/NAME"):
        parse_hf_spec("MME")
    assert [snake_case(n) for n in ("MMBench", "MME", "M3GIA", "MMBench_EN")] == [
        "mm_bench", "mme", "m3_gia", "mm_bench_en"]
