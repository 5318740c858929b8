"""The two-run report driven in a real headless chromium (DevTools protocol): typing in the search box narrows
the sample browser to the rows holding the text, the filters narrow it, the charts load, nothing is logged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.report import write_report
from mmgauge.report.browser import outcome
from mmgauge.report.load import load_runs
from mmgauge.report.sections import category_of

INFO = "document.querySelector('#browser-root .pager .note').textContent"


def _shown(devtools: Any) -> int:
    """The sample count the browser's pager reports ("page 1 of 5 · 244 samples")."""
    text = devtools.evaluate(INFO)
    return int(text.rsplit("·", 1)[1].split()[0])


def _wait_count(devtools: Any, count: int) -> None:
    devtools.wait_for(f"/ {count} samples$/.test({INFO})", timeout=20)


def _haystacks(runs: tuple[Path, Path]) -> list[tuple[int, str, int, str]]:
    """(run, benchmark, outcome, lower-cased searchable text) of every row the page holds, in its order."""
    out = []
    for number, view in enumerate(load_runs(list(runs))):
        for bench in view.benchmarks.values():
            for row in bench.rows:
                category = category_of(row)
                name = f"{row.benchmark}: {category}" if category else row.benchmark
                texts = [name, row.sample_id, row.prompt, row.text, row.error, row.answer, row.detail,
                         row.target]
                out.append((number, row.benchmark, outcome(row), "\n".join(filter(None, texts)).lower()))
    return out


@pytest.fixture
def page(runs: tuple[Path, Path], tmp_path: Path) -> Path:
    return write_report(list(runs), tmp_path / "report.html")


def test_search_narrows_the_browser_to_rows_holding_every_word(
    page: Path, runs: tuple[Path, Path], devtools: Any
) -> None:
    rows = _haystacks(runs)
    devtools.open(page)
    assert _shown(devtools) == len(rows)

    devtools.type_into("#mmg-search", "CAPITAL city")
    expected = sum(1 for *_, text in rows if "capital" in text and "city" in text)
    assert 0 < expected < len(rows)
    _wait_count(devtools, expected)
    cards = devtools.evaluate("Array.from(document.querySelectorAll('#browser-root .sample'))"
                              ".map(c => c.textContent.toLowerCase())")
    assert len(cards) == min(expected, 50) and all("capital" in card for card in cards)

    # Search and filters combine: the second run only.
    devtools.evaluate("var s = document.querySelector('#browser-root select'); s.value = '1';"
                      "s.dispatchEvent(new Event('change')); 1")
    _wait_count(devtools, sum(1 for run, *_, t in rows if run == 1 and "capital" in t and "city" in t))

    devtools.evaluate("var q = document.getElementById('mmg-search'); q.value = '';"
                      "q.dispatchEvent(new Event('input')); 1")
    _wait_count(devtools, sum(1 for run, *_ in rows if run == 1))

    devtools.type_into("#mmg-search", "no sample holds this text")
    _wait_count(devtools, 0)
    assert devtools.problems == []


def test_filters_narrow_the_rows(page: Path, runs: tuple[Path, Path], devtools: Any) -> None:
    rows = _haystacks(runs)
    devtools.open(page)
    names = devtools.evaluate(
        "Array.from(document.querySelectorAll('#browser-root select')).map(s => s.parentNode.firstChild"
        ".textContent.trim())")
    assert names == ["run", "benchmark", "category", "outcome", "extraction"]

    def choose(position: int, option_text: str) -> None:
        devtools.evaluate(
            f"var s = document.querySelectorAll('#browser-root select')[{position}];"
            f"s.value = Array.from(s.options).find(o => o.text === {json.dumps(option_text)}).value;"
            "s.dispatchEvent(new Event('change')); 1")

    choose(1, "mme")
    _wait_count(devtools, sum(1 for _, bench, *_ in rows if bench == "mme"))
    choose(3, "right")
    _wait_count(devtools, sum(1 for _, bench, code, _ in rows if bench == "mme" and code == 0))
    choose(1, "all benchmarks")
    choose(3, "any outcome")
    _wait_count(devtools, len(rows))
    devtools.evaluate("document.getElementById('mmg-changed').click(); 1")
    assert 0 < _shown(devtools) < len(rows)
    assert devtools.problems == []


def test_charts_load_and_long_tables_stay_folded(page: Path, devtools: Any) -> None:
    devtools.open(page)
    charts = devtools.evaluate("Array.from(document.querySelectorAll('#across img.chart'))"
                               ".map(i => [i.alt, i.complete, i.naturalWidth])")
    assert len(charts) >= 10
    assert all(done and width > 0 for _, done, width in charts), charts
    assert any(alt.startswith("MMBench circular by L2 ability: profile per run") for alt, _, _ in charts)
    seen = ("Array.from(document.querySelectorAll('#compare details')).map(d => [d.open,"
            " d.querySelector('summary').textContent, d.querySelector('table').checkVisibility()])")
    folded = devtools.evaluate(seen)
    assert folded and all(not is_open and not visible for is_open, _, visible in folded)
    assert any(summary.endswith("changed samples") for _, summary, _ in folded)
    devtools.evaluate("document.querySelector('#compare details summary').click(); 1")
    assert devtools.evaluate(seen)[0][2] is True
    assert devtools.problems == []
