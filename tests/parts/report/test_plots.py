"""The chart builders, read from their SVG (whiskers, zeros, radar centre markers, the diagonal, n kept) and
from their saved layout (legends beside the data, never on it; every word inside the picture)."""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING

import pytest

from mmgauge.parts.report import plots
from mmgauge.parts.report.breakdown import with_n

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox


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


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Figure]:
    """The figures the chart builders save, laid out as in the report (kept after `_img` saves each)."""
    figures: list[Figure] = []
    save = plots._img

    def keep(fig: Figure, alt: str) -> str:
        image = save(fig, alt)
        figures.append(fig)
        return image

    monkeypatch.setattr(plots, "_img", keep)
    return figures


def _boxes(fig: Figure) -> tuple[list[Bbox], list[tuple[str, Bbox]], list[Bbox]]:
    """Window extents in the saved layout: the legends, every visible text outside them, and the data drawn
    (each bar, each point of a line or marker series, each whisker or baseline segment)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    canvas = FigureCanvasAgg(fig)  # the figure as laid out when saved, measured in pixels
    fig.draw_without_rendering()
    renderer = canvas.get_renderer()
    legends = [*fig.legends, *(legend for ax in fig.axes if (legend := ax.get_legend()) is not None)]
    in_legend = {id(artist) for legend in legends for artist in legend.findobj()}
    texts = [(text.get_text(), text.get_window_extent(renderer)) for text in fig.findobj(Text)
             if text.get_visible() and text.get_text().strip() and id(text) not in in_legend]
    data: list[Bbox] = []
    for ax in fig.axes:
        for artist in ax.findobj():
            if id(artist) in in_legend or artist is ax.patch or not artist.get_visible():
                continue
            if isinstance(artist, Rectangle):
                data.append(artist.get_window_extent(renderer))
            elif isinstance(artist, Line2D):
                points = artist.get_transform().transform(artist.get_xydata())
                data += [Bbox.from_extents(x, y, x, y) for x, y in points]
            elif isinstance(artist, LineCollection):
                data += [Bbox(artist.get_transform().transform(segment)) for segment in artist.get_segments()
                         if len(segment) == 2]
    return [legend.get_window_extent(renderer) for legend in legends], texts, data


def _crowded_hbars() -> str:
    labels = [with_n(f"structuralized_imagetext_understanding_{i}", [1]) for i in range(6)]
    values = {"circular": [100.0, 0.0, 50.0, 100.0, 100.0, 100.0],
              "vanilla": [100.0, 100.0, 50.0, 0.0, 100.0, 100.0]}
    whiskers = {name: [(max(0.0, v - 60), min(100.0, v + 40)) for v in series]
                for name, series in values.items()}
    return plots.hbars(labels, values, errors=whiskers, xmax=100, title="MMBench by L3 category",
                       xlabel="accuracy (%) (whiskers: 95% CI; n: questions; baselines: circular accuracy of "
                              "trivial answerers)",
                       baselines={"always-A": {"circular": [0.0] * 6}, "chance": {"circular": [6.0] * 6},
                                  "most-frequent": {"circular": [25.0] * 6}})


def test_a_bar_charts_legend_covers_no_bar_and_its_words_stay_inside_the_picture(drawn: list[Figure]) -> None:
    _crowded_hbars()
    fig = drawn[-1]
    legends, texts, data = _boxes(fig)
    assert legends and data
    assert not [box for box in data for legend in legends if box.overlaps(legend)]
    assert not [text for text, box in texts for legend in legends if box.overlaps(legend)]
    outside = [text for text, box in texts if box.x0 < fig.bbox.x0 - 1 or box.x1 > fig.bbox.x1 + 1
               or box.y0 < fig.bbox.y0 - 1 or box.y1 > fig.bbox.y1 + 1]
    assert outside == []


def test_a_scatters_legend_leaves_the_corners_to_the_points(drawn: list[Figure]) -> None:
    # The corners are where two runs differ most: 0 for one, 100 for the other.
    plots.scatter(["up (n=1)", "down (n=1)"], [0.0, 100.0], [100.0, 0.0], title="t", xlabel="run 1",
                  ylabel="run 2", top=100)
    legends, _, data = _boxes(drawn[-1])
    assert legends and data
    assert not [box for box in data for legend in legends if box.overlaps(legend)]


def test_scatter_labels_of_points_side_by_side_do_not_cover_each_other(drawn: list[Figure]) -> None:
    # Three languages with one score in run 2 and close scores in run 1: their labels sat on one line.
    names = ["english (n=18)", "french (n=6)", "chinese (n=6)", "spanish (n=6)"]
    plots.scatter(names, [22.2, 33.3, 50.0, 38.0], [16.7, 16.7, 16.7, 16.7], title="t", xlabel="run 1",
                  ylabel="run 2", top=100)
    _, texts, _ = _boxes(drawn[-1])
    labels = [box for text, box in texts if text in names]
    assert len(labels) == 4
    assert not [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:] if a.overlaps(b)]


def test_a_radars_long_axis_names_stay_apart_and_inside_the_picture(drawn: list[Figure]) -> None:
    capabilities = ("coarse perception", "fine-grained perception", "instance reasoning", "logical reasoning",
                    "science & technology", "math")
    names = [with_n(name, [3]) for name in capabilities]
    runs = {"run 1": [33.0, 67.0, 0.0, 67.0, 0.0, 0.0], "run 2": [33.0, 0.0, 67.0, 0.0, 0.0, 33.0]}
    plots.radar(names, runs, title="MMStar by core capability\nprofile per run", rmax=100)
    fig = drawn[-1]
    _, texts, _ = _boxes(fig)
    labels = [box for text, box in texts if "(n=3)" in text]
    assert len(labels) == 6
    assert not [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:] if a.overlaps(b)]
    assert not [text for text, box in texts if box.x0 < fig.bbox.x0 - 1 or box.x1 > fig.bbox.x1 + 1]
