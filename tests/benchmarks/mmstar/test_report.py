"""MMStar in the HTML report: its card with the interval and baselines, accuracy per core capability and per
detailed axis as charts with n, whiskers and baseline marks, and both lined up across runs (bars, a radar of
the capabilities, scatters), from two runs on VLMEvalKit's TSV layout."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def report(cli: Any, tsv: Path, tmp_path: Path) -> str:
    for answer in ("A", "B"):
        done = cli("run", "--bench", "mmstar", "--data", tsv, "--model", f"mock:{answer}", "--out",
                   tmp_path / answer, "--no-cache")
        assert done.code == 0, done.err
    out = tmp_path / "report.html"
    assert cli("report", tmp_path / "A", tmp_path / "B", "--out", out).code == 0, "report failed"
    return out.read_text(encoding="utf-8")


def _charts(page: str) -> list[str]:
    return [base64.b64decode(data).decode("utf-8")
            for data in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)]


def test_the_card_gives_accuracy_its_interval_and_the_baselines(report: str) -> None:
    cards = re.findall(r'<div class="label">MMStar overall</div><div class="value">([^<]*)</div>'
                       r'<div class="ci">([^<]*)</div><div class="baselines">([^<]*)</div>', report)
    # mock:A hits the 3 questions of 12 whose key is A, mock:B the 5 whose key is B (Clopper-Pearson).
    assert [(value, html.unescape(ci)) for value, ci, _ in cards] == [
        ("25.00%", "95% CI 5.5%–57.2%, 12 questions"), ("41.67%", "95% CI 15.2%–72.3%, 12 questions")]
    # The same questions, so the same baselines: B is the most frequent key (5 of 12).
    assert {trivial for _, _, trivial in cards} == {
        "baselines: always-A 25.00% · most-frequent 41.67% · chance 25.00%"}


def test_capabilities_and_axes_are_charted_per_run_and_across_runs(report: str) -> None:
    charts = _charts(report)
    by_capability = [svg for svg in charts if "MMStar by core capability" in svg]
    by_axis = [svg for svg in charts if "MMStar by detailed axis" in svg]
    # Per run: one bar chart each (2 runs); across runs: grouped bars, a radar and a scatter.
    assert len(by_capability) == 2 + 3 and len(by_axis) == 2 + 2
    per_run = [svg for svg in by_capability if 'id="baseline-0"' in svg]  # trivial answerers marked
    assert len(per_run) == 2 and all('id="whiskers-0"' in svg for svg in per_run)  # and the intervals
    assert "science &amp; technology (n=2)" in per_run[0] and "math (n=2)" in per_run[0]
    assert sum('id="radar-1"' in svg for svg in by_capability) == 1  # one polygon per run
    assert "geometry (n=1)" in by_axis[0]


def test_the_leaderboard_marks_runs_the_paired_test_cannot_tell_apart(report: str) -> None:
    # 3 against 5 right of 12 paired answers: McNemar's exact test cannot tell them apart.
    mark = re.search(r'>25\.00? <span class="tie" title="([^"]*)">≈</span>', report)
    assert mark is not None, "no mark on the lower run's MMStar column"
    assert html.unescape(mark[1]).startswith("not distinguishable from run 2 (mock:B")
    assert "on 12 answers, p = " in mark[1]
