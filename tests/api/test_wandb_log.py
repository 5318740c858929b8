"""`log_wandb` and `--log wandb`, against the real wandb package in its offline mode (nothing leaves here).

Assertions are on what wandb writes locally: the run's transaction log (`run-<id>.wandb`), the table file
under `files/media/table/`, and the report file staged for the artifact upload under `WANDB_DATA_DIR`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge import export_table, log_wandb
from mmgauge.core.errors import UserError


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """wandb in offline mode with every folder it writes inside the test's tmp dir.

    wandb reads its settings once per process (`wandb.setup`); `teardown` makes the next test read its own.
    """
    wandb = pytest.importorskip("wandb")
    wandb.teardown()
    root = tmp_path / "wb"
    for variable, folder in (("WANDB_DIR", "runs"), ("WANDB_DATA_DIR", "data"), ("WANDB_CACHE_DIR", "cache"),
                             ("WANDB_CONFIG_DIR", "config")):
        (root / folder).mkdir(parents=True)
        monkeypatch.setenv(variable, str(root / folder))
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_CONSOLE", "off")
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    yield root
    wandb.teardown()


def table_file(run_dir: Path) -> dict[str, Any]:
    files = list((run_dir / "files" / "media" / "table").glob("tidy_table_*.table.json"))
    assert len(files) == 1
    data: dict[str, Any] = json.loads(files[0].read_text(encoding="utf-8"))
    return data


def staged_html(root: Path) -> list[str]:
    files = [p for p in (root / "data").rglob("*") if p.is_file()]
    staged = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    return [text for text in staged if text.startswith("<!doctype html>")]


def test_logs_headline_metrics_table_and_report_per_run(mock_runs: dict[str, Path], offline: Path) -> None:
    runs = [mock_runs["yes"], mock_runs["letter"]]
    logged = log_wandb(runs, project="mmgauge-tests")
    assert [entry.source for entry in logged] == [str(run) for run in runs]
    for entry, run in zip(logged, runs, strict=True):
        frame = export_table(run)
        headline = frame[frame["headline"]]
        # The metrics are the headline rows, under benchmark/metric[/breakdown names].
        assert entry.metrics == {
            "/".join([r.benchmark, r.metric, *([] if r.breakdown == "overall" else
                                              [p.split("=")[1] for p in r.breakdown.split("; ")])]): r.value
            for r in headline.itertuples()}
        assert {"mme/perception", "mme/cognition", "mmbench/circular_acc", "mmbench/vanilla_acc",
                "m3gia/acc/english", "m3gia/acc"} <= set(entry.metrics)
        assert entry.url is None and entry.directory is not None
        assert entry.directory.parent == offline / "runs" / "wandb"
        assert entry.directory.name.startswith("offline-run-")
        # wandb's own summary holds the metrics and the intervals' ends.
        perception = frame[(frame["benchmark"] == "mme") & (frame["metric"] == "perception")].iloc[0]
        assert entry.summary["mme/perception"] == perception["value"]
        assert entry.summary["mme/perception_ci_low"] == perception["ci_low"]
        assert entry.summary["mme/perception_ci_high"] == perception["ci_high"]
        # The transaction log wandb sync would upload holds the metrics, the table and the config.
        log = (entry.directory / f"run-{entry.run_id}.wandb").read_bytes()
        for key in [*entry.metrics, "tidy_table", "model_fingerprint", "toolkit_version"]:
            assert key.encode() in log, key
        # The table, cell for cell.
        table = table_file(entry.directory)
        assert table["columns"] == list(frame.columns)
        assert entry.table_rows == len(frame) == len(table["data"])
        expected = frame.astype(object).where(frame.notna(), None).values.tolist()
        assert table["data"] == expected
        assert entry.artifact == f"report-{run.name}"
    reports = staged_html(offline)
    assert len(reports) == 2
    assert all('id="run1-mme"' in html for html in reports)
    assert any("mock:A" in html for html in reports) and any("mock:Yes" in html for html in reports)


def test_a_given_report_file_is_the_artifact(
    mock_runs: dict[str, Path], offline: Path, tmp_path: Path
) -> None:
    report = tmp_path / "mine.html"
    report.write_text("<!doctype html><title>my own report</title>", encoding="utf-8")
    [entry] = log_wandb(mock_runs["yes"], project="mmgauge-tests", name="custom name", report=report,
                        tags=["smoke"])
    assert entry.name == "custom name" and entry.artifact == "report-yes"
    assert staged_html(offline) == ["<!doctype html><title>my own report</title>"]
    [entry] = log_wandb(mock_runs["yes"], project="mmgauge-tests", report=False)
    assert entry.artifact is None and len(staged_html(offline)) == 1
    # A results.json stands for its folder, whose report is built.
    [entry] = log_wandb(mock_runs["letter"] / "results.json", project="mmgauge-tests")
    assert entry.source == str(mock_runs["letter"]) and entry.artifact == "report-letter"
    assert sum("mock:A" in html for html in staged_html(offline)) == 1
    with pytest.raises(UserError, match="no such report file"):
        log_wandb(mock_runs["yes"], report=tmp_path / "absent.html")


def test_missing_wandb_names_the_extra(mock_runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                       cli: Any) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb now raises ImportError
    with pytest.raises(UserError, match=r"pip install 'mmgauge\[wandb\]'") as caught:
        log_wandb(mock_runs["yes"])
    assert caught.value.field == "--log"
    line = cli("export", "table", mock_runs["yes"], "--log", "wandb").error_line()
    assert "pip install 'mmgauge[wandb]'" in line


def test_cli_log_wandb_offline(mock_runs: dict[str, Path], offline: Path, tmp_path: Path, cli: Any) -> None:
    result = cli("export", "table", mock_runs["yes"], "--out", tmp_path / "t.csv", "--log", "wandb",
                 "--wandb-project", "mmgauge-tests")
    assert result.code == 0, result.err
    frame = export_table(mock_runs["yes"])
    headline = int(frame["headline"].sum())
    assert f"wandb: mock:Yes (yes): {headline} metrics, {len(frame)} table rows, report; offline, in" \
        in result.out
    [run_dir] = (offline / "runs" / "wandb").glob("offline-run-*")
    assert len(table_file(run_dir)["data"]) == len(frame)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.csv", dtype={"n": "Int64"}), frame)


def test_the_calls_mmgauge_run_makes(mock_runs: dict[str, Path], offline: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from mmgauge.cli.export_table import log_results, require_log_targets

    require_log_targets(["wandb"])
    require_log_targets(None)
    log_results(None, [mock_runs["yes"]])  # no --log: nothing is logged
    assert not (offline / "runs" / "wandb").exists()
    log_results(["wandb"], [mock_runs["letter"]], project="mmgauge-tests")
    line = capsys.readouterr().out.strip()
    assert line.startswith("wandb: mock:A (letter): 10 metrics, ") and "report; offline, in " in line
    assert len(list((offline / "runs" / "wandb").glob("offline-run-*"))) == 1


def test_run_logs_to_wandb_when_asked(offline: Path, tmp_path: Path, cli: Any) -> None:
    result = cli("run", "--bench", "mme", "--model", "mock:Yes", "--out", tmp_path / "run", "--no-cache",
                 "--log", "wandb", "--wandb-project", "mmgauge-tests")
    assert result.code == 0, result.err
    assert "wandb: mock:Yes (run)" in result.out and "report; offline, in " in result.out
    assert len(list((offline / "runs" / "wandb").glob("offline-run-*"))) == 1


def test_log_wandb_writes_nothing_outside_the_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any
) -> None:
    # Without the user's own W&B folders, wandb wrote ./wandb, ~/.cache/wandb and staged copies of the
    # report in ~/.local/share/wandb.
    wandb = pytest.importorskip("wandb")
    wandb.teardown()  # wandb's service reads the environment when it starts: a fresh one for this test
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    for variable in ("WANDB_DIR", "WANDB_DATA_DIR", "WANDB_CACHE_DIR", "WANDB_CONFIG_DIR",
                     "WANDB_ARTIFACT_DIR", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                     "XDG_STATE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))  # the report's plots: not W&B's
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_CONSOLE", "off")
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    run = tmp_path / "run"
    try:
        result = cli("run", "--bench", "mme", "--model", "mock:Yes", "--limit", "4", "--out", run,
                     "--no-cache", "--log", "wandb", "--wandb-project", "mmgauge-tests")
    finally:
        wandb.teardown()
    assert result.code == 0, result.err
    assert [str(p.relative_to(tmp_path)) for p in (*home.rglob("*"), *cwd.rglob("*"))] == []
    [logged] = (run / "wandb").glob("offline-run-*")
    assert f"offline, in {logged} " in result.out
    staged = [p for p in (run / "wandb" / "data").rglob("*") if p.is_file()]
    assert any(p.read_bytes().startswith(b"<!doctype html>") for p in staged)
    assert "WANDB_DATA_DIR" not in os.environ and "WANDB_CACHE_DIR" not in os.environ
