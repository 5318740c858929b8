"""`mmgauge export table`: CSV on stdout or to a file, parquet, and one-line errors."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge import export_table


@pytest.fixture(scope="module")
def mme_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import mmgauge

    out = tmp_path_factory.mktemp("export-cli") / "run"
    mmgauge.evaluate(model="mock:Yes", benchmarks="mme", out=out, cache=False)
    return out


def test_csv_to_stdout_file_and_parquet(mme_run: Path, tmp_path: Path, cli: Any) -> None:
    frame = export_table(mme_run)
    assert len(frame) == 2 + 4 * 14
    result = cli("export", "table", mme_run)
    assert result.code == 0, result.err
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(result.out), dtype={"n": "Int64"}), frame)
    for name in ("t.csv", "t.parquet"):
        result = cli("export", "table", mme_run, "-o", tmp_path / "sub" / name)
        assert result.code == 0, result.err
        assert result.err.strip() == f"table: {tmp_path / 'sub' / name} ({len(frame)} rows)"
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "sub" / "t.csv", dtype={"n": "Int64"}), frame)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "sub" / "t.parquet"), frame)


def test_user_errors_are_one_line(mme_run: Path, tmp_path: Path, cli: Any) -> None:
    line = cli("export", "table", mme_run, "--out", tmp_path / "t.json").error_line()
    assert "t.json" in line and ".csv or .parquet" in line
    line = cli("export", "table", mme_run, "--out", tmp_path).error_line()
    assert "--out names a folder" in line
    assert "no such run folder" in cli("export", "table", tmp_path / "nothing").error_line()
    assert cli("export", "table", mme_run, "--log", "mlflow").code == 2
