"""POPE in the HTML report: a card per split with accuracy, its interval, F1 and the yes share beside the
trivial baselines (F1's too), accuracy and F1 per split charted with whiskers and baseline marks, the yes
share against the answer key's, and both scores lined up across runs, from two runs on the built-in sample."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import mmgauge
from mmgauge.benchmarks.pope.result import PopeResult

from .conftest import tsv_rows


@pytest.fixture
def report(cli: Any, tmp_path: Path) -> str:
    for answer in ("Yes", "No"):
        done = cli("run", "--bench", "pope", "--model", f"mock:{answer}", "--out", tmp_path / answer,
                   "--no-cache")
        assert done.code == 0, done.err
    out = tmp_path / "report.html"
    assert cli("report", tmp_path / "Yes", tmp_path / "No", "--out", out).code == 0, "report failed"
    return out.read_text(encoding="utf-8")


def test_each_split_has_a_card_with_its_scores_and_baselines(report: str) -> None:
    found = re.findall(r'<div class="label">POPE (\w+)</div><div class="value">([^<]*)</div>'
                       r'<div class="ci">([^<]*)</div><div class="baselines">([^<]*)</div>', report)
    cards = [(split, value, html.unescape(ci), trivial) for split, value, ci, trivial in found]
    always = "baselines: always-yes 50.00% · always-no 50.00% · chance 50.00%; F1: always-yes 66.67%"
    # The sample's splits hold 12 questions each, half of them "yes": answering "yes" to all is always-yes.
    split = "95% CI 21.1%–78.9%, n=12; F1 66.67 (95% CI 66.7–66.7); yes 100.0%"
    assert cards[:4] == [
        ("random", "50.00%", split, always), ("popular", "50.00%", split, always),
        ("adversarial", "50.00%", split, always),
        ("overall", "50.00%", "95% CI 32.9%–67.1%, n=36; F1 66.67 (95% CI 66.7–66.7); yes 100.0%", always)]
    # Answering "no" to all has no F1 (no "yes" answers: precision divides by zero).
    assert cards[7][:3] == ("overall", "50.00%", "95% CI 32.9%–67.1%, n=36; F1 –; yes 0.0%")


def _charts(page: str) -> list[str]:
    return [base64.b64decode(data).decode("utf-8")
            for data in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)]


def test_accuracy_f1_and_the_yes_share_are_charted_per_run_and_across_runs(report: str) -> None:
    charts = _charts(report)
    per_run = [svg for svg in charts if "POPE accuracy and F1 per split" in svg]
    assert len(per_run) == 2
    assert all('id="whiskers-0"' in svg and 'id="baseline-0"' in svg for svg in per_run)
    assert "adversarial (n=12)" in per_run[0] and "overall (n=36)" in per_run[0]
    assert len([svg for svg in charts if "Share of &#39;yes&#39; answers per split" in svg
                or "Share of 'yes' answers per split" in svg]) == 2
    assert any("POPE accuracy per split" in svg for svg in charts)  # across runs
    assert any("POPE F1 per split" in svg for svg in charts)
    assert "POPE accuracy %" in report and "POPE F1" in report  # leaderboard columns


def _bar_widths(svg: str, series: int) -> list[float]:
    """The widths of a chart's bars of one series, in the order drawn (each bar a closed path)."""
    widths = []
    for path in re.findall(rf'<g id="series-{series}-\d+">\s*<path d="([^"]*)"', svg):
        xs = [float(x) for x in re.findall(r"([-\d.]+) [-\d.]+", path)]
        widths.append(max(xs) - min(xs))
    return widths


def test_the_answer_keys_yes_share_counts_the_answers_no_reader_could_read(
        cli: Any, vlmevalkit_tsv: Path, tmp_path: Path) -> None:
    # VLMEvalKit's reader leaves "Maybe" unread (neither TP nor FN): the key's share of "yes" is still half
    # of every split's entries, not (TP + FN) / entries. Answers in VLMEvalKit's predictions layout.
    rows = tsv_rows()
    unsure = next(i for i, row in enumerate(rows) if row["answer"] == "Yes")
    answers = tmp_path / "Model_POPE.xlsx"
    pd.DataFrame([{**row, "prediction": "Maybe" if i == unsure else row["answer"]}
                  for i, row in enumerate(rows)]).drop(columns=["image"]).to_excel(answers, index=False)
    out = tmp_path / "run"
    done = cli("run", "--bench", "pope", "--data", vlmevalkit_tsv, "--model", f"replay:{answers}",
               "--parser", "vlmevalkit", "--out", out, "--no-cache")
    assert done.code == 0, done.err
    result = mmgauge.load_run(out).result("pope")
    assert isinstance(result, PopeResult) and result.overall is not None
    assert result.overall.unknown > 0 and result.overall.tp + result.overall.fn < result.overall.entries / 2
    report = tmp_path / "report.html"
    assert cli("report", out, "--out", report).code == 0
    (chart,) = [svg for svg in _charts(report.read_text(encoding="utf-8")) if "Share of" in svg]
    said, key = _bar_widths(chart, 0), _bar_widths(chart, 1)
    named = [*result.splits.values(), result.overall]
    assert len(said) == len(key) == len(named) == 4
    for scores, yes_width, key_width in zip(named, said, key, strict=True):
        assert key_width / yes_width == pytest.approx(0.5 / scores.yes_ratio.value, rel=1e-4)
