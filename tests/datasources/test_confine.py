"""Links inside a data folder that lead outside it are refused, naming the link; hub caches (links into
blobs/) still load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from layouts.lmms_lab_mmbench import write_lmms_lab_mmbench
from mmgauge.benchmarks.m3gia.sample import write_sample as write_m3gia_sample
from mmgauge.benchmarks.mmbench.sample import write_sample as write_mmbench_sample
from mmgauge.benchmarks.mme.sample import write_sample as write_mme_sample
from mmgauge.core.errors import UserError
from mmgauge.datasources.confine import confined, data_root
from mmgauge.datasources.tables import table_files
from mmgauge.testing.hf_layouts import parquet_bytes, write_hub_dataset


def outside_file(tmp_path: Path, name: str, data: bytes) -> Path:
    secret = tmp_path / "elsewhere" / name
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(data)
    return secret


def run(cli: Any, bench: str, data: Path | str, tmp_path: Path) -> str:
    line: str = cli("run", "--model", "mock:Yes", "--bench", bench, "--data", data, "--limit", "2",
                    "--out", tmp_path / f"run-{bench}", "--no-cache").error_line()
    return line


def test_mme_release_folder_refuses_a_linked_image_or_subtask_folder(cli: Any, tmp_path: Path) -> None:
    root = write_mme_sample(tmp_path / "data")
    image = sorted((root / "color").glob("*.png"))[0]
    secret = outside_file(tmp_path, "private.png", image.read_bytes())
    image.unlink()
    image.symlink_to(secret)
    line = run(cli, "mme", root, tmp_path)
    assert f"{image}: is a link, or inside one, that leads outside the data folder {root}" in line
    assert str(secret) in line
    image.unlink()
    image.write_bytes(secret.read_bytes())
    celebrity = root / "celebrity"
    celebrity.rename(tmp_path / "elsewhere" / "celebrity")
    celebrity.symlink_to(tmp_path / "elsewhere" / "celebrity")
    assert f"{celebrity}: is a link, or inside one, that leads outside the data folder" in run(
        cli, "mme", root, tmp_path
    )


def test_mmbench_image_path_may_not_leave_the_tables_folder(cli: Any, tmp_path: Path) -> None:
    import base64

    import pandas as pd

    tsv = write_mmbench_sample(tmp_path / "data")
    frame = pd.read_csv(tsv, sep="\t", dtype=str, keep_default_na=False)
    secret = outside_file(tmp_path, "private.png", base64.b64decode(frame.loc[0, "image"]))
    (tsv.parent / "img.png").symlink_to(secret)
    frame["image_path"] = "img.png"
    frame = frame.drop(columns=["image"])
    frame.to_csv(tsv, sep="\t", index=False)
    line = run(cli, "mmbench", tsv, tmp_path)
    assert f"{tsv}:2, field 'image_path'" in line
    assert f"{tsv.parent / 'img.png'}: is a link, or inside one, that leads outside the data folder" in line
    frame["image_path"] = "../elsewhere/private.png"
    frame.to_csv(tsv, sep="\t", index=False)
    assert "points outside the data folder" in run(cli, "mmbench", tsv, tmp_path)


def test_m3gia_folder_refuses_a_linked_parquet(cli: Any, tmp_path: Path) -> None:
    root = write_m3gia_sample(tmp_path / "data")
    english = root / "english_v1.parquet"
    secret = outside_file(tmp_path, "english_v1.parquet", english.read_bytes())
    english.unlink()
    english.symlink_to(secret)
    assert f"{english}: is a link, or inside one, that leads outside the data folder" in run(
        cli, "m3gia", root, tmp_path
    )


def test_parquet_folder_refuses_a_linked_shard_but_hub_snapshots_load(tmp_path: Path) -> None:
    import pyarrow as pa

    shard = parquet_bytes(pa.table({"index": [0, 1]}))
    folder = tmp_path / "table"
    folder.mkdir()
    (folder / "test-00000-of-00002.parquet").write_bytes(shard)
    secret = outside_file(tmp_path, "test-00001-of-00002.parquet", shard)
    (folder / "test-00001-of-00002.parquet").symlink_to(secret)
    for given in (folder, folder / "test-00000-of-00002.parquet"):
        with pytest.raises(UserError, match=r"test-00001-of-00002\.parquet: is a link"):
            table_files(given)
    files = {"data/test-00000-of-00001.parquet": shard}
    snapshot = write_hub_dataset(tmp_path / "hub", "lmms-lab/MME", files)
    repo = snapshot.parents[1]
    assert data_root(snapshot / "data") == repo
    [file] = table_files(snapshot / "data")
    assert file.is_symlink() and file.resolve().parent == repo / "blobs"


def test_confined_accepts_a_linked_root_and_links_within(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "sub" / "a.png").write_bytes(b"x")
    (real / "b.png").symlink_to(real / "sub" / "a.png")
    linked_root = tmp_path / "linked"
    linked_root.symlink_to(real)
    assert confined(linked_root / "b.png", linked_root) == linked_root / "b.png"
    assert confined(real / "sub" / "a.png", real) == real / "sub" / "a.png"


@pytest.mark.parametrize("named", ["hf", "path"])
def test_a_hub_snapshot_file_linking_out_of_its_dataset_is_refused(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    snapshot = write_lmms_lab_mmbench(tmp_path / "hub")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    dev = snapshot / "en" / "dev-00000-of-00001.parquet"
    secret = outside_file(tmp_path, "dev.parquet", dev.read_bytes())  # a table that would load
    dev.unlink()
    dev.symlink_to(secret)
    line = run(cli, "mmbench", dev if named == "path" else "hf:lmms-lab/MMBench/en/dev", tmp_path)
    repo = tmp_path / "hub" / "datasets--lmms-lab--MMBench"
    assert line == (f"error: {dev}: is a link, or inside one, that leads outside the data folder {repo} "
                    f"(to {secret}); refusing to read it")
