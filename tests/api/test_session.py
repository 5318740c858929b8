"""The data an evaluation session loads is the file the user named: a hub snapshot's `.parquet` keeps its
name (its link target, `blobs/<sha256>`, has no extension), in the loading and in the run's record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from layouts.lmms_lab_mmbench import write_lmms_lab_mmbench


def recorded_data(out: Path) -> str:
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    [entry] = manifest["datasets"]
    data: str = entry["data"]
    return data


@pytest.mark.parametrize("config", ["en/dev", "en/test", "cn/dev", "cn/test"])
def test_mmbench_runs_from_a_real_hub_cache_by_id_and_by_snapshot_path(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    snapshot = write_lmms_lab_mmbench(tmp_path / "hub")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    parquet = snapshot / f"{config}-00000-of-00001.parquet"
    assert parquet.is_symlink() and not parquet.resolve().suffix  # what huggingface_hub writes
    for name, data in (("by-id", f"hf:lmms-lab/MMBench/{config}"), ("by-path", str(parquet))):
        out = tmp_path / name
        result = cli("run", "--model", "mock:A", "--bench", "mmbench", "--data", data, "--out", out,
                     "--no-cache")
        assert result.code == 0, result.err
        assert recorded_data(out) == str(parquet)


def test_evaluate_reads_mmbench_from_a_real_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = write_lmms_lab_mmbench(tmp_path / "hub")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    results = mmgauge.evaluate(model="mock:A", benchmarks="mmbench", data="hf:lmms-lab/MMBench/en/dev",
                               out=tmp_path / "run", cache=False)
    reference = mmgauge.evaluate(model="mock:A", benchmarks="mmbench", out=tmp_path / "sample", cache=False)
    assert results.benchmarks["mmbench"].status == "complete"
    assert results.benchmarks["mmbench"].result == reference.benchmarks["mmbench"].result
    assert recorded_data(tmp_path / "run") == str(snapshot / "en" / "dev-00000-of-00001.parquet")
