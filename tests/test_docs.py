"""The documentation site builds from `docs/` with warnings as errors, and its pages say what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_docs_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data = (site / "data" / "index.html").read_text(encoding="utf-8")
    for name in ("MMBench_DEV_EN", "hf:lmms-lab/MME", "$LMUData", "english_v1.parquet", "CCBench"):
        assert name in data, name
    assert (site / "plugins" / "index.html").is_file()
    assert "fonts.googleapis.com" not in (site / "index.html").read_text(encoding="utf-8")


def test_every_docs_page_is_in_the_site_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f": {p}" not in config] == []


def test_vlmevalkit_names_in_the_data_page_are_the_names_mmgauge_accepts() -> None:
    from mmgauge.datasources.locate import VLMEVALKIT_NAMES

    data = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    missing = [n for names in VLMEVALKIT_NAMES.values() for n in names if f"`{n}`" not in data]
    assert missing == []
