"""A full disk ends a run with one line naming the file that could not be written (status 2)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

#: Every write to it fails with ENOSPC (Linux): a file linked there acts as a file on a full disk.
FULL = Path("/dev/full")

pytestmark = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full (Linux)")


def run(cli: Any, out: Path) -> Any:
    return cli("run", "--bench", "mme", "--model", "mock:yes", "--no-cache", "--out", out)


def test_a_full_disk_under_the_record_log_names_it(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    os.symlink(FULL, out / "samples.jsonl")
    line = run(cli, out).error_line()
    assert line == f"error: {out / 'samples.jsonl'}: No space left on device"


def test_a_full_disk_under_the_results_names_the_results_file(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    os.symlink(FULL, out / "results.json.tmp")  # results.json is written through this twin, then renamed
    line = run(cli, out).error_line()
    assert line == f"error: {out / 'results.json'}: No space left on device"
    assert not (out / "results.json.tmp").exists()
