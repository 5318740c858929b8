"""Trivial baselines are shown wherever a headline number is: the run's summary, results.json, the report's
cards and charts, and `compare` (text and --json)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import mmgauge

    base = tmp_path_factory.mktemp("baseline-runs")
    found = {}
    for key, model in (("yes", "mock:Yes"), ("letter", "mock:A")):
        found[key] = base / key
        mmgauge.evaluate(model=model, out=found[key], cache=False)
    return found


def test_the_run_summary_shows_baselines_under_the_headline_numbers(tmp_path: Path, cli: Any) -> None:
    done = cli("run", "--model", "mock:Yes", "--bench", "mme", "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.err
    # The rows between the perception and cognition lines, their wrapped cells joined.
    block = done.out.split("MME perception", 1)[1].split("MME cognition", 1)[0]
    words = " ".join(block.replace("│", " ").split())
    assert "baselines always-yes 500.00 · always-no 500.00 · chance 750.00" in words
    stored = json.loads((tmp_path / "run" / "results.json").read_text())["benchmarks"]["mme"]["baselines"]
    assert stored["always-yes"]["headline"]["MME perception"] == 500.0
    assert stored["chance"]["headline"] == {"MME perception": 750.0, "MME cognition": 300.0}
    assert stored["chance"]["expected"] is True


def test_the_report_puts_baselines_on_the_cards_and_marks_them_on_the_charts(
    folders: dict[str, Path], tmp_path: Path, cli: Any
) -> None:
    out = tmp_path / "report.html"
    assert cli("report", folders["letter"], "--out", out).code == 0
    html = out.read_text(encoding="utf-8")
    cards = re.findall(r'<div class="baselines">([^<]*)</div>', html)
    assert "baselines: always-yes 500.00 · always-no 500.00 · chance 750.00" in cards
    assert any(card.startswith("baselines: always-A 30.00%") for card in cards)  # MMBench vanilla
    charts = [base64.b64decode(data).decode("utf-8")
              for data in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", html)]
    marked = [svg for svg in charts if 'id="baseline-0"' in svg]
    assert len(marked) >= 3  # MME subtasks, MMBench by L2 and by L3, M3GIA clusters
    assert any("baseline: chance" in svg for svg in marked)


def test_compare_prints_the_baselines_under_each_table_and_in_json(
    folders: dict[str, Path], cli: Any
) -> None:
    done = cli("compare", folders["yes"], folders["letter"], "--headline")
    assert done.code == 0, done.err
    assert "MME perception: always-yes 500.00 · always-no 500.00 · chance 750.00" in done.out
    assert "MMBench vanilla: always-A 30.00%" in done.out
    as_json = cli("compare", folders["yes"], folders["letter"], "--json")
    document = json.loads(as_json.out)
    assert document["baselines"]["mme"]["chance"]["headline"]["MME cognition"] == 300.0
    assert {"mme", "mmbench", "m3gia"} <= set(document["baselines"])


def test_a_numbers_baselines_stand_with_the_row_and_card_that_give_it(tmp_path: Path, cli: Any) -> None:
    # POPE's row for a split gives its F1 beside its accuracy: the F1's baselines follow that row, not a
    # list of leftovers after the last split.
    done = cli("run", "--model", "mock:Yes", "--bench", "pope", "--out", tmp_path / "run", "--no-cache")
    assert done.code == 0, done.err
    rows = [" ".join(line.replace("│", " ").split()) for line in done.out.splitlines() if "│" in line]
    for split in ("random", "popular", "adversarial", "overall"):
        at = next(i for i, row in enumerate(rows) if row.startswith(f"pope POPE {split} "))
        below = [row for row in rows[at + 1 : at + 8] if "baselines" in row]
        assert below[0].startswith("baselines always-yes 50.00%")
        assert below[1] == "F1 baselines always-yes 66.67%"
    assert not [row for row in rows if ": baselines" in row]
    out = tmp_path / "report.html"
    assert cli("report", tmp_path / "run", "--out", out).code == 0
    cards = re.findall(r'<div class="baselines">([^<]*)</div>', out.read_text(encoding="utf-8"))
    assert cards.count("baselines: always-yes 50.00% · always-no 50.00% · chance 50.00%; "
                       "F1: always-yes 66.67%") == 4
