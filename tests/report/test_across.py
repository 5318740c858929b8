"""Charts across runs, read from the SVG they embed: one bar series per run with interval whiskers, n on
every category, an ability radar where a run of zeros is still seen, scatters against run 1 around the
diagonal; long tables folded under a count."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from mmgauge.report import build_report
from mmgauge.report.compare import compare
from mmgauge.report.load import load_runs


def _charts(html: str) -> dict[str, str]:
    """alt text -> SVG source of every chart in `html`."""
    found = re.findall(r'<img class="chart" alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"', html)
    return {alt: base64.b64decode(data).decode("utf-8") for alt, data in found}


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def _across(html: str) -> str:
    return html[html.index('<section id="across"'):html.index('<section id="compare"')]


@pytest.fixture(scope="module")
def two(runs: tuple[Path, Path]) -> str:
    return build_report(list(runs), images=False).html


def test_grouped_bars_have_one_series_per_run_with_whiskers(two: str) -> None:
    charts = _charts(_across(two))
    for title, categories in (("MMBench circular by L2 ability", 6), ("MME acc per subtask", 14),
                              ("M3GIA accuracy per language", 3)):
        svg = charts[title]
        for run in (0, 1):
            assert len(re.findall(rf'id="series-{run}-\d+"', svg)) == categories, (title, run)
            assert f'id="whiskers-{run}"' in svg, (title, run)
        assert 'id="series-2-' not in svg
        assert {"run 1: mock:Yes", "run 2: mock:A"} <= set(_texts(svg))


def test_every_category_label_carries_its_n(two: str) -> None:
    charts = _charts(_across(two))
    labels = _texts(charts["MMBench circular by L2 ability"])
    # The sample holds one question group of FP-C: its bar says so instead of passing for a sure score.
    assert "FP-C (n=1)" in labels and "AR (n=2)" in labels
    assert any(re.fullmatch(r"existence \(n=\d+\)", text) for text in _texts(charts["MME acc per subtask"]))
    assert all("n=" in "".join(_texts(svg)) for svg in charts.values()), [
        alt for alt, svg in charts.items() if "n=" not in "".join(_texts(svg))]


def test_per_run_charts_carry_whiskers_and_n(runs: tuple[Path, Path]) -> None:
    html = build_report([runs[1]], images=False).html
    charts = _charts(html)
    mme = charts["MME subtasks: acc and acc+"]
    assert 'id="whiskers-0"' in mme and 'id="whiskers-1"' in mme
    assert any(re.fullmatch(r"existence \(n=\d+ q, \d+ img\)", text) for text in _texts(mme))
    assert "FP-C (n=1)" in _texts(charts["MMBench by L2 ability"])
    assert all("n=" in "".join(_texts(svg)) for svg in charts.values())


def test_ability_radar_shows_a_run_of_zeros(two: str) -> None:
    charts = _charts(_across(two))
    radar = charts["MMBench circular by L2 ability: profile per run"]
    # Both mock models miss every MMBench question: each is a marker at the centre, named in the legend.
    assert 'id="radar-0"' in radar and 'id="radar-1"' in radar
    assert "run 1: mock:Yes (0 on every axis)" in _texts(radar)
    factors = charts["M3GIA CHC factors (all languages run): profile per run"]
    assert 'id="radar-0"' in factors and "run 1: mock:Yes (0 on every axis)" in _texts(factors)
    assert "run 2: mock:A" in _texts(factors)  # not all zero: a plain polygon


def test_zero_bars_without_interval_stay_visible(two: str) -> None:
    factors = _charts(_across(two))["M3GIA CHC factors (all languages run)"]
    assert 'id="whiskers-0"' not in factors  # no interval is stored for factors
    assert 'id="zeros-0"' in factors


def test_two_runs_get_a_scatter_with_the_diagonal(two: str) -> None:
    charts = _charts(_across(two))
    scatters = {alt: svg for alt, svg in charts.items() if "vs run 1" in alt}
    assert "MMBench circular by L2 ability: run 2 vs run 1: 6 categories, n=1–2 each" in scatters
    for svg in scatters.values():
        assert 'id="diagonal"' in svg and 'id="points"' in svg


def test_each_later_run_is_scattered_against_the_first(runs: tuple[Path, Path]) -> None:
    html = build_report([runs[0], runs[1], runs[0]], images=False).html
    alts = list(_charts(_across(html)))
    assert any(alt.startswith("MME acc per subtask: run 2 vs run 1") for alt in alts)
    assert any(alt.startswith("MME acc per subtask: run 3 vs run 1") for alt in alts)
    svg = _charts(_across(html))["MME acc per subtask"]
    assert all(f'id="whiskers-{run}"' in svg for run in range(3))


def test_changed_samples_are_folded_under_their_count(two: str, runs: tuple[Path, Path]) -> None:
    views = load_runs(list(runs))
    _, changed = compare(views[0], views[1], 1)
    assert changed.rows
    assert f"<details><summary>{len(changed.rows)} changed samples</summary>" in two
    assert "samples changed outcome</h4>" not in two
    across = _across(two)
    assert "<details><summary>6 categories: the values behind the charts</summary>" in across


def test_one_run_has_no_cross_run_section(runs: tuple[Path, Path]) -> None:
    html = build_report([runs[0]], images=False).html
    assert 'id="across"' not in html
