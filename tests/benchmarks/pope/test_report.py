"""POPE in the HTML report: a card per split with accuracy, its interval, F1 and the yes share beside the
trivial baselines (F1's too), accuracy and F1 per split charted with whiskers and baseline marks, the yes
share against the answer key's, and both scores lined up across runs, from two runs on the built-in sample."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pytest


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


def test_accuracy_f1_and_the_yes_share_are_charted_per_run_and_across_runs(report: str) -> None:
    charts = [base64.b64decode(data).decode("utf-8")
              for data in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", report)]
    per_run = [svg for svg in charts if "POPE accuracy and F1 per split" in svg]
    assert len(per_run) == 2
    assert all('id="whiskers-0"' in svg and 'id="baseline-0"' in svg for svg in per_run)
    assert "adversarial (n=12)" in per_run[0] and "overall (n=36)" in per_run[0]
    assert len([svg for svg in charts if "Share of &#39;yes&#39; answers per split" in svg
                or "Share of 'yes' answers per split" in svg]) == 2
    assert any("POPE accuracy per split" in svg for svg in charts)  # across runs
    assert any("POPE F1 per split" in svg for svg in charts)
    assert "POPE accuracy %" in report and "POPE F1" in report  # leaderboard columns
