"""``mmgauge report``: writes the page and exports; user mistakes are UserErrors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError


@pytest.fixture
def run_dir(cli: Any, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    result = cli("run", "--model", "mock:Yes", "--out", out, "--no-cache", "--bench", "mme")
    assert result.code == 0, result.err
    return out


def test_report_writes_html_csv_and_xlsx(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "report.html"
    result = CliRunner().invoke(mounted_app(), ["report", str(run_dir), "--out", str(out), "--csv",
                                                str(tmp_path / "csv"), "--xlsx", str(tmp_path / "t.xlsx")])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"report: {out}"
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert (tmp_path / "csv" / "run1_mme_subtasks.csv").exists() and (tmp_path / "t.xlsx").exists()


def test_no_images_reads_no_dataset(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(mounted_app(), ["report", str(run_dir), "--out", str(out), "--no-images"])
    assert result.exit_code == 0, result.output
    assert "data:image/jpeg" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("make", ["empty", "missing", "out-is-dir"])
def test_user_mistakes(make: str, run_dir: Path, tmp_path: Path) -> None:
    target, out = run_dir, tmp_path / "r.html"
    if make == "empty":
        target = tmp_path / "empty"
        target.mkdir()
    elif make == "missing":
        target = tmp_path / "nope"
    else:
        out = tmp_path
    result = CliRunner().invoke(mounted_app(), ["report", str(target), "--out", str(out)])
    assert isinstance(result.exception, UserError), result.output
    assert str(target if make != "out-is-dir" else out) in str(result.exception)
