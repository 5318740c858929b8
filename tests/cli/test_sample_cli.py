"""`mmgauge sample BENCH --out X` writes X, and `mmgauge run --bench BENCH --data X` reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize("bench", ["mme", "mmbench", "m3gia"])
def test_run_reads_what_sample_wrote(cli: Any, tmp_path: Path, bench: str) -> None:
    out = tmp_path / "samples" / bench
    written = cli("sample", bench, "--out", out)
    assert written.code == 0 and written.out.strip() == str(out), written.err
    assert (out.is_dir() if bench != "mmbench" else out.is_file())
    assert [p.name for p in out.parent.iterdir()] == [bench]  # no staging folder left behind
    run = cli("run", "--model", "mock:Yes", "--bench", bench, "--data", out, "--limit", "2",
              "--out", tmp_path / "run", "--no-cache")
    assert run.code == 0, run.err
    again = cli("sample", bench, "--out", out)  # writing the sample again replaces it
    assert again.code == 0 and again.out.strip() == str(out)


def test_a_file_sample_into_an_existing_folder_says_what_to_pass(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    written = cli("sample", "mmbench", "--out", folder)
    assert written.code == 0 and written.out.strip() == str(folder / "mmbench_sample.tsv")
    assert f"run with --data {folder / 'mmbench_sample.tsv'}" in written.err
    blocked = tmp_path / "file"
    blocked.write_text("x")
    assert "file: exists and is not a folder" in cli("sample", "mme", "--out", blocked).error_line()


@pytest.mark.parametrize("bench", ["mme", "mmbench", "m3gia"])
def test_the_sample_given_back_with_data_is_labelled_as_sample_data(
    cli: Any, tmp_path: Path, bench: str
) -> None:
    out = tmp_path / "moved" / bench  # anywhere: recognised by content, not by path
    assert cli("sample", bench, "--out", out).code == 0
    run = cli("run", "--model", "mock:Yes", "--bench", bench, "--data", out, "--out", tmp_path / "run",
              "--no-cache")
    assert run.code == 0, run.err
    assert "built-in synthetic sample data" in " ".join((run.out + run.err).split())
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["labels"] == ["sample data"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert [entry["builtin_sample"] for entry in manifest["datasets"]] == [True]


def test_an_edited_sample_is_not_the_built_in_one(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "mmbench.tsv"
    assert cli("sample", "mmbench", "--out", out).code == 0
    text = out.read_text(encoding="utf-8")
    out.write_text(text.replace("sign?", "signpost?"), encoding="utf-8")  # reworded: the user's data now
    run = cli("run", "--model", "mock:A", "--bench", "mmbench", "--data", out, "--out", tmp_path / "run",
              "--no-cache")
    assert run.code == 0, run.err
    assert json.loads((tmp_path / "run" / "results.json").read_text())["labels"] == []
