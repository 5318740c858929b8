"""A hub cache's `refs/<branch>` is read as a commit name, never followed as a path; a `hf:` selection names
something inside the dataset. Anything else is one line naming the file, status 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from layouts.lmms_lab_mmbench import write_lmms_lab_mmbench
from mmgauge.core.errors import UserError
from mmgauge.datasources.hf_cache import parse_hf_spec

EN_DEV = "hf:lmms-lab/MMBench/en/dev"


def run(cli: Any, data: str, tmp_path: Path) -> Any:
    return cli("run", "--model", "mock:A", "--bench", "mmbench", "--data", data, "--limit", "2",
               "--out", tmp_path / "run", "--no-cache")


@pytest.fixture
def ref(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`refs/main` of a cached lmms-lab/MMBench, with the cache in the environment."""
    write_lmms_lab_mmbench(tmp_path / "hub")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub" / "datasets--lmms-lab--MMBench" / "refs" / "main"


def test_the_commit_in_refs_main_is_the_snapshot_read(cli: Any, tmp_path: Path, ref: Path) -> None:
    ref.write_text(ref.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # a hand-edited ref
    assert run(cli, EN_DEV, tmp_path).code == 0


def test_a_ref_leading_out_of_the_snapshots_is_refused(cli: Any, tmp_path: Path, ref: Path) -> None:
    snapshots = ref.parents[1] / "snapshots"
    # What `snapshots/../../../x` names: a copy of the data outside the dataset's folder, which would load.
    copy = tmp_path / "x" / "en" / "dev-00000-of-00001.parquet"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(next(snapshots.glob("*/en/dev-00000-of-00001.parquet")).read_bytes())
    assert (snapshots / "../../../x").resolve() == tmp_path / "x"
    ref.write_text("../../../x", encoding="utf-8")
    assert run(cli, EN_DEV, tmp_path).error_line() == (
        f"error: {ref}: holds '../../../x', not a commit naming a folder in {snapshots}; "
        "refusing to follow it")


def test_binary_bytes_in_a_ref_are_one_line(cli: Any, tmp_path: Path, ref: Path) -> None:
    ref.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    line = run(cli, EN_DEV, tmp_path).error_line()
    assert line.startswith(f"error: {ref}: holds binary bytes, not a commit")
    ref.write_bytes(b"\x00\x01")  # ASCII, but no name: shown escaped, on the one line
    line = run(cli, EN_DEV, tmp_path).error_line()
    assert line.startswith(f"error: {ref}: holds '\\x00\\x01', not a commit")


def test_a_ref_linking_out_of_the_dataset_is_refused(cli: Any, tmp_path: Path, ref: Path) -> None:
    outside = tmp_path / "main"
    outside.write_text(ref.read_text(encoding="utf-8"), encoding="utf-8")
    ref.unlink()
    ref.symlink_to(outside)
    line = run(cli, EN_DEV, tmp_path).error_line()
    assert line.startswith(f"error: {ref}: is a link, or inside one, that leads outside the data folder")


def test_a_revision_or_selection_naming_a_parent_folder_is_refused(
    cli: Any, tmp_path: Path, ref: Path
) -> None:
    # `hf:ORG/NAME/../../../../x.parquet` would otherwise name a file beside the hub cache.
    dev = next(ref.parents[1].joinpath("snapshots").rglob("dev-*.parquet"))
    (tmp_path / "x.parquet").write_bytes(dev.read_bytes())
    line = run(cli, "hf:lmms-lab/MMBench/../../../../x.parquet", tmp_path).error_line()
    assert line.endswith("'.' and '..' name no config, split or file of a dataset")
    line = run(cli, "hf:lmms-lab/MMBench@../en/dev", tmp_path).error_line()
    assert "[no snapshot for revision ..]" in line
    with pytest.raises(UserError, match="name no config"):
        parse_hf_spec("lmms-lab/MMBench/en/./dev")
