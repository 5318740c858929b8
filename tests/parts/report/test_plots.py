"""The chart builders, read from their SVG: whiskers, zeros, radar centre markers, the diagonal, n kept."""

from __future__ import annotations

import base64
import re

from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import with_n


def _svg(image: str) -> str:
    found = re.search(r'base64,([^"]+)', image)
    assert found is not None
    return base64.b64decode(found[1]).decode("utf-8")


def test_hbars_draw_a_whisker_per_interval_and_a_tick_for_zero() -> None:
    svg = _svg(plots.hbars(["a (n=1)", "b (n=9)"], {"x": [0.0, 50.0], "y": [100.0, None]},
                           errors={"x": [(0.0, 97.5), (20.0, 80.0)], "y": [(2.5, 100.0), None]},
                           title="t", xlabel="%", xmax=100))
    assert len(re.findall(r'id="series-0-\d+"', svg)) == 2 and len(re.findall(r'id="series-1-\d+"', svg)) == 1
    assert 'id="whiskers-0"' in svg and 'id="whiskers-1"' in svg
    assert 'id="zeros-0"' in svg and 'id="zeros-1"' not in svg


def test_long_labels_are_cut_but_keep_their_n() -> None:
    label = with_n("a category name far longer than any chart has room for", [40])
    svg = _svg(plots.hbars([label], {"x": [1.0]}, title="t", xlabel="%"))
    assert any(text.endswith("… (n=40)") for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg))


def test_with_n_names_each_runs_count_when_they_differ() -> None:
    assert with_n("OCR", [40, 40]) == "OCR (n=40)"
    assert with_n("OCR", [40, None, 38]) == "OCR (n=40/–/38)"
    assert with_n("OCR", [None]) == "OCR"


def test_radar_puts_an_all_zero_series_at_the_centre_with_a_legend_entry() -> None:
    svg = _svg(plots.radar(["a", "b", "c"], {"zero": [0.0, 0.0, None], "some": [0.5, 0.2, 0.1]}, title="t"))
    assert 'id="radar-0"' in svg and 'id="radar-1"' in svg
    assert "zero (0 on every axis)" in svg and "some (0 on every axis)" not in svg


def test_scatter_draws_the_diagonal_and_skips_half_missing_points() -> None:
    svg = _svg(plots.scatter(["p (n=3)", "q (n=5)", "r (n=2)"], [10.0, 20.0, None], [30.0, 20.0, 5.0],
                             xerr=[(1.0, 30.0), None, None], yerr=None, title="t", xlabel="x", ylabel="y",
                             top=100))
    assert 'id="diagonal"' in svg and 'id="points"' in svg
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "p (n=3)" in texts and "r (n=2)" not in texts
