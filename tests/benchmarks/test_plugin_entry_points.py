"""Benchmarks and backends plug in from outside: the example package in tests/plugins/squares, installed with
pip and found through its entry points (`mmgauge.benchmarks`, `mmgauge.backends`), never imported by name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mmgauge

PLUGIN = Path(__file__).parents[1] / "plugins" / "squares"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The plug-in pip-installed into a folder put on sys.path (as a site directory would be)."""
    work = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PLUGIN, work / "src")  # pip builds in the source tree: keep the repo clean
    target = work / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True)
    sys.path.insert(0, str(target))
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        sys.modules.pop("mmgauge_squares", None)


def test_the_plugin_module_stays_small() -> None:
    assert len((PLUGIN / "mmgauge_squares.py").read_text().splitlines()) <= 80


def test_list_shows_the_plugins(installed: Path, cli: Any) -> None:
    result = cli("list")
    assert result.code == 0
    assert "squares (plug-in)" in result.out and "parrot (plug-in)" in result.out
    assert "POPE-style" in result.out


def test_a_plugin_benchmark_runs_scores_and_resumes(installed: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    results = mmgauge.evaluate(model="parrot:red", benchmarks=["squares"], out=out, cache=False)
    entry = results.benchmarks["squares"]
    assert entry.status == "complete" and entry.records == 9 and entry.requested == 9
    scores = mmgauge.load_run(out).result("squares")
    # The parrot says yes exactly when asked about red: right for red on red (1) and for green or blue
    # asked about an image of another colour (4); wrong for red asked elsewhere (2) and for green or blue
    # asked about themselves (2).
    assert scores.overall.accuracy == pytest.approx(5 / 9)  # type: ignore[attr-defined]
    assert scores.overall.yes_ratio == pytest.approx(3 / 9)  # type: ignore[attr-defined]
    again = mmgauge.evaluate(model="parrot:red", benchmarks=["squares"], out=out, cache=False)
    assert again.benchmarks["squares"].requested == 0 and again.benchmarks["squares"].resumed == 9


def test_the_command_line_finds_the_plugin_in_a_fresh_process(installed: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "mmgauge.cli.main", "run", "--bench", "squares", "--model", "parrot:blue",
         "--out", str(tmp_path / "cli"), "--no-cache"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "cli" / "results.json").read_text())
    assert results["benchmarks"]["squares"]["records"] == 9


def test_a_plugin_yes_no_benchmark_exports_accuracy_as_its_headline(installed: Path, tmp_path: Path) -> None:
    # What a built-in yes/no benchmark exports: accuracy in percent with its interval heads the table.
    mmgauge.evaluate(model="parrot:red", benchmarks=["squares"], out=tmp_path / "run", cache=False)
    frame = mmgauge.export_table([tmp_path / "run"])
    headline = frame[frame["headline"]]
    assert headline["metric"].tolist() == ["accuracy"]
    [row] = headline.to_dict("records")
    assert (row["breakdown"], row["unit"], row["n"]) == ("overall", "percent", 9)
    assert row["value"] == pytest.approx(100 * 5 / 9)
    assert row["ci_low"] < row["value"] < row["ci_high"]
    overall = frame[frame["breakdown"] == "overall"].set_index("metric")["value"]
    assert overall["yes_ratio"] == pytest.approx(100 * 3 / 9)
    assert frame[frame["metric"] != "accuracy"]["n"].isna().all()  # n: what an interval rests on; none here
    splits = {f"category={name}" for name in ("random", "popular", "adversarial")}
    assert set(frame["breakdown"]) == {"overall", *splits}
