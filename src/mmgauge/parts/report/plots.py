"""Charts as inline images: matplotlib figures saved as SVG and embedded as `<img src="data:...">`.

An SVG shown through `<img>` never runs scripts, whatever text (category names come from datasets) ends up
inside it. Figures are built on `matplotlib.figure.Figure` directly, so no pyplot state and no global backend
switch; settings go through `rc_context`: mathtext off (a `$` in a label is text, not a formula that can fail
to parse), text kept as text (smaller files), a fixed hash salt and no date (same data, same bytes).

Artists carry SVG ids (`series-<j>-<i>` bars, `whiskers-<j>` intervals, `radar-<j>`, `diagonal`): the tests
read a chart's structure from its SVG, and a reader's tools can too.
"""

from __future__ import annotations

import base64
import io
import math
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from html import escape
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colour-blind-safe palette (Okabe-Ito).
PALETTE: Final = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
WARN: Final = "#D55E00"
_RC: Final[dict[Any, Any]] = {
    "text.parse_math": False,
    "svg.fonttype": "none",
    "svg.hashsalt": "mmgauge",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


#: Shown where charts would be when matplotlib is not installed.
MISSING: Final = "charts need the 'report' extra: pip install 'mmgauge[report]'"


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def _figure(width: float, height: float, polar: bool = False) -> Iterator[tuple[Figure, Axes]]:
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    with rc_context(_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot(projection="polar" if polar else None)
        yield fig, ax


def _legend_below(fig: Figure, columns: int = 3) -> None:
    """The legend under the chart, outside the axes: inside, it covered the bars near 100% and the points in
    a scatter's corners (where two runs differ most), wherever it was put."""
    entries = len(fig.axes[0].get_legend_handles_labels()[1])
    ncols = max(1, min(columns, entries))
    # The picture grows by the legend's rows, so the chart keeps the height its rows were given.
    fig.set_figheight(fig.get_figheight() + 0.12 + 0.18 * math.ceil(entries / ncols))
    fig.legend(loc="outside lower center", ncols=ncols, fontsize=8)


def _img(fig: Figure, alt: str) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    alt = escape(alt.replace("\n", ": "))  # a title's line break, on one line
    return f'<img class="chart" alt="{alt}" src="data:image/svg+xml;base64,{data}">'


def _title(ax: Axes, title: str, width: int = 56) -> None:
    """Left-aligned title, wrapped: a title wider than its chart is cut off by the SVG's edge."""
    lines = [line for part in title.split("\n") for line in (textwrap.wrap(part, width) or [part])]
    ax.set_title("\n".join(lines), loc="left")


_N_SUFFIX: Final = re.compile(r"^(.*?)( \(n=[^()]*\))$", re.S)


def _short(label: str, limit: int = 38) -> str:
    """The label cut to `limit` characters; a trailing `(n=...)` is kept whole (it is what must be read)."""
    match = _N_SUFFIX.match(label)
    name, suffix = (match[1], match[2]) if match else (label, "")
    return (name if len(name) <= limit else name[: limit - 1] + "…") + suffix


#: One interval per value (None: no interval for that value), in the values' unit.
Whiskers = Sequence[tuple[float, float] | None]
#: A rectangle (left, bottom, right, top).
Box = tuple[float, float, float, float]


def hbars(
    labels: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    xlabel: str,
    xmax: float | None = None,
    reference: tuple[float, str] | None = None,
    colors: Sequence[str] | None = None,
    errors: Mapping[str, Whiskers] | None = None,
    baselines: Mapping[str, Mapping[str, Sequence[float | None]]] | None = None,
) -> str:
    """Horizontal grouped bars, one group per label (top to bottom); None values are left out.

    `colors` colours the bars of a single series one by one (to flag outliers); `reference` draws a dashed
    vertical line with a legend label; `errors[name]` draws each value's interval as a whisker;
    `baselines[baseline][name]` marks what a trivial answerer scores on each bar of series `name`, as a
    short line across that bar (one line style per baseline, named in the legend).
    """
    n = len(labels)
    k = max(1, len(series))
    with _figure(5.6, 0.9 + 0.22 * n * max(1, k * 0.75)) as (fig, ax):
        height = 0.8 / k
        for j, (name, values) in enumerate(series.items()):
            ys = [i + (j - (k - 1) / 2) * height for i in range(n) if values[i] is not None]
            xs = [float(v) for v in values if v is not None]
            color: str | list[str] = PALETTE[j % len(PALETTE)]
            if colors is not None and k == 1:
                color = [c for c, v in zip(colors, values, strict=True) if v is not None]
            bars = ax.barh(ys, xs, height=height, label=_short(name, 40), color=color)
            for i, patch in enumerate(bars.patches):
                patch.set_gid(f"series-{j}-{i}")
            zeros = [y for y, x in zip(ys, xs, strict=True) if x == 0]
            if zeros:  # a bar of width 0 is not drawn at all: a tick at 0 shows the value is there, and 0
                ax.plot([0.0] * len(zeros), zeros, linestyle="none", marker="|", markersize=9 * height / 0.4,
                        markeredgewidth=2, color=PALETTE[j % len(PALETTE)], gid=f"zeros-{j}", clip_on=False)
            whiskers = (errors or {}).get(name)
            if whiskers is not None:
                _whiskers(ax, j, [(i + (j - (k - 1) / 2) * height, v, w)
                                  for i, (v, w) in enumerate(zip(values, whiskers, strict=True))])
        if reference is not None:
            ax.axvline(reference[0], color="#444444", linestyle="--", linewidth=1, label=reference[1])
        for m, (baseline, by_series) in enumerate((baselines or {}).items()):
            _baseline_marks(ax, m, baseline, [(j, by_series.get(name)) for j, name in enumerate(series)], n,
                            k, height)
        ax.set_yticks(range(n), [_short(label) for label in labels])
        ax.invert_yaxis()
        # Ending at the axes' right edge, not centred under them: long category names push the axes right, and
        # a centred label wider than the axes ran past the picture's right edge and was cut off there.
        ax.set_xlabel("\n".join(textwrap.wrap(xlabel, 72)), loc="right")
        _title(ax, title, 48)
        if xmax is not None:
            ax.set_xlim(0, xmax)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        if k > 1 or reference is not None or baselines:
            _legend_below(fig)
        return _img(fig, title)


#: Line styles of baseline marks, one per baseline in order (dark, so they read over any bar colour).
_BASELINE_STYLES: Final[tuple[tuple[str, Literal["--", ":", "-.", "-"]], ...]] = (
    ("#000000", "--"), ("#555555", ":"), ("#000000", "-."), ("#555555", "-"))


def _baseline_marks(ax: Axes, m: int, name: str, values: Sequence[tuple[int, Sequence[float | None] | None]],
                    n: int, k: int, height: float) -> None:
    """Baseline `m` (`name`) as a short vertical line across each bar it has a value for (svg id
    `baseline-<m>`)."""
    xs: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    for j, series in values:
        for i in range(n):
            value = series[i] if series is not None and i < len(series) else None
            if value is None:
                continue
            y = i + (j - (k - 1) / 2) * height
            xs.append(float(value))
            lows.append(y - height / 2)
            highs.append(y + height / 2)
    if not xs:
        return
    color, style = _BASELINE_STYLES[m % len(_BASELINE_STYLES)]
    ax.vlines(xs, lows, highs, colors=color, linestyles=style, linewidth=1.4, label=f"baseline: {name}",
              gid=f"baseline-{m}")


def _whiskers(
    ax: Axes, j: int, points: Sequence[tuple[float, float | None, tuple[float, float] | None]]
) -> None:
    """Interval whiskers of series `j` at (y, value, (low, high)); a value without an interval gets none."""
    kept = [(y, float(v), w) for y, v, w in points if v is not None and w is not None]
    if not kept:
        return
    ys = [y for y, _, _ in kept]
    xs = [v for _, v, _ in kept]
    # Clamped at 0: a rounding step may put an end a hair past the value, which errorbar refuses.
    below = [max(0.0, v - w[0]) for _, v, w in kept]
    above = [max(0.0, w[1] - v) for _, v, w in kept]
    drawn = ax.errorbar(xs, ys, xerr=[below, above], fmt="none", ecolor="#333333", elinewidth=0.9,
                        capsize=2.5)
    for part in drawn.lines[2]:
        part.set_gid(f"whiskers-{j}")


def vbars(labels: Sequence[str], values: Sequence[float], *, title: str, ylabel: str,
          ymax: float | None = None) -> str:
    with _figure(max(3.2, 0.7 * len(labels) + 1.5), 2.8) as (fig, ax):
        ax.bar(range(len(labels)), values, color=[PALETTE[i % len(PALETTE)] for i in range(len(labels))])
        ax.set_xticks(range(len(labels)), [_short(label, 16) for label in labels])
        ax.set_ylabel(ylabel)
        _title(ax, title)
        if ymax is not None:
            ax.set_ylim(0, ymax)
        ax.grid(axis="y", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        return _img(fig, title)


def radar(
    axes: Sequence[str], series: Mapping[str, Sequence[float | None]], *, title: str, rmax: float = 1.0
) -> str:
    """One closed polygon per series over the same axes (at least three axes).

    A None value (no data) is left out: that series' polygon joins its other axes directly, so a missing
    value never looks like 0; an axis no series has a value for is labelled "(no data)". A series that is 0
    on every axis it has collapses to the centre: it gets a large marker there and says so in the legend,
    so it is seen rather than lost under the other polygons.
    """
    angles = [2 * math.pi * i / len(axes) for i in range(len(axes))]
    markers = ("o", "s", "^", "D", "v", "P", "X", "*")
    with _figure(4.6, 4.0, polar=True) as (fig, ax):
        for j, (name, values) in enumerate(series.items()):
            color = PALETTE[j % len(PALETTE)]
            points = [(a, float(v)) for a, v in zip(angles, values, strict=True) if v is not None]
            if not points:
                continue
            xs = [a for a, _ in points] + [points[0][0]]
            ys = [v for _, v in points] + [points[0][1]]
            marker = markers[j % len(markers)]
            if all(v == 0 for _, v in points):
                line = ax.plot([0.0], [0.0], color=color, linestyle="none", marker=marker, markersize=9,
                               markerfacecolor="none", markeredgewidth=1.8,
                               label=_short(name, 24) + " (0 on every axis)")[0]
            else:
                line = ax.plot(xs, ys, color=color, linewidth=1.5, marker=marker, markersize=3.5,
                               label=_short(name, 24))[0]
                ax.fill(xs, ys, color=color, alpha=0.12)
            line.set_gid(f"radar-{j}")
        empty = [all(values[i] is None for values in series.values()) for i in range(len(axes))]
        ax.set_xticks(angles, [_radar_label(a) + ("\n(no data)" if e else "")
                               for a, e in zip(axes, empty, strict=True)])
        # Each name reaches away from the circle (left of it on the left, right of it on the right): centred
        # on their axes, long names ran into each other at the top and past the picture's edge at the sides.
        for label, angle in zip(ax.get_xticklabels(), angles, strict=True):
            side = math.cos(angle)
            label.set_horizontalalignment("left" if side > 0.2 else "right" if side < -0.2 else "center")
        ax.set_ylim(0, rmax)
        _title(ax, title, 44)
        _legend_below(fig, columns=2)
        return _img(fig, title)


def _radar_label(name: str) -> str:
    """An axis name on lines of at most 16 characters, its `(n=...)` on a line of its own when it is long."""
    match = _N_SUFFIX.match(name)
    base, suffix = (match[1], match[2].strip()) if match else (name, "")
    lines = textwrap.wrap(_short(base, 30), 16) or [base]
    if suffix and len(lines[-1]) + len(suffix) < 16:
        lines[-1] += " " + suffix
    elif suffix:
        lines.append(suffix)
    return "\n".join(lines)


def scatter(
    labels: Sequence[str],
    xs: Sequence[float | None],
    ys: Sequence[float | None],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    top: float,
    xerr: Whiskers | None = None,
    yerr: Whiskers | None = None,
    named: int = 10,
) -> str:
    """One point per label at (x, y) with its intervals both ways, and the diagonal y = x (no difference).

    Labels (with their n) name the `named` points farthest from the diagonal; a label missing either value is
    left out. Points above the diagonal are where the y run scores higher.
    """
    kept = [i for i in range(len(labels)) if xs[i] is not None and ys[i] is not None]
    with _figure(4.4, 4.4) as (fig, ax):
        ax.plot([0, top], [0, top], color="#888888", linestyle="--", linewidth=1, gid="diagonal",
                label="equal (y = x)")
        if kept:
            px = [float(xs[i] or 0.0) for i in kept]
            py = [float(ys[i] or 0.0) for i in kept]
            drawn = ax.errorbar(px, py, xerr=_spans(px, [xerr[i] if xerr else None for i in kept]),
                                yerr=_spans(py, [yerr[i] if yerr else None for i in kept]), fmt="o",
                                color=PALETTE[0], ecolor="#9aa3b2", elinewidth=0.7, markersize=4)
            drawn.lines[0].set_gid("points")
            # Points on the same spot share one label ("6 categories"), rather than printing over each other.
            spots: dict[tuple[float, float], list[int]] = {}
            for m in range(len(kept)):
                spots.setdefault((round(px[m], 6), round(py[m], 6)), []).append(m)
            far = sorted(spots.items(), key=lambda item: -abs(item[0][1] - item[0][0]))[:named]
            placed: list[Box] = []
            for (x, y), members in far:
                text = (_short(labels[kept[members[0]]], 22) if len(members) == 1
                        else f"{len(members)} categories")
                ax.annotate(text, (x, y), xytext=(4, _label_rise(x, y, text, top, placed)),
                            textcoords="offset points", fontsize=7)
        # A little room past both ends, so points at 0 or at the top are drawn whole.
        ax.set_xlim(-0.02 * top, 1.02 * top)
        ax.set_ylim(-0.02 * top, 1.02 * top)
        ax.set_aspect("equal")
        ax.set_xlabel(_short(xlabel, 48))
        ax.set_ylabel(_short(ylabel, 48))
        _title(ax, title)
        ax.grid(color="#eeeeee", linewidth=0.6)
        _legend_below(fig)
        return _img(fig, title)


#: A scatter's axes in points (its 4.4-inch figure less the axis labels) and a 7-point label's character width
#: and line height: estimates, enough to keep labels apart without laying the figure out first.
_AXES_PT: Final = 235.0
_CHAR_PT: Final = 4.2
_LINE_PT: Final = 9.0


def _label_rise(x: float, y: float, text: str, top: float, placed: list[Box]) -> int:
    """How far above its point (in points) a scatter label goes so as not to cover a label placed before it:
    points with the same score in one run sit side by side and their labels ran into each other. The box it
    takes is added to `placed`."""
    scale = _AXES_PT / (1.04 * top)
    left, width = x * scale + 4, len(text) * _CHAR_PT
    rise = 3
    for step in range(8):
        # 3 points above the point, then a line higher, a line lower, two lines higher, ...
        rise = 3 + (step + 1) // 2 * int(_LINE_PT) * (1 if step % 2 else -1)
        bottom = y * scale + rise
        if not any(left < x1 and left + width > x0 and bottom < y1 and bottom + _LINE_PT > y0
                   for x0, y0, x1, y1 in placed):
            break
    placed.append((left, y * scale + rise, left + width, y * scale + rise + _LINE_PT))
    return rise


def _spans(values: Sequence[float], whiskers: Whiskers) -> list[list[float]] | None:
    """errorbar's [below, above] from intervals; 0 where a value has none (None: no interval at all)."""
    if all(w is None for w in whiskers):
        return None
    below = [0.0 if w is None else max(0.0, v - w[0]) for v, w in zip(values, whiskers, strict=True)]
    above = [0.0 if w is None else max(0.0, w[1] - v) for v, w in zip(values, whiskers, strict=True)]
    return [below, above]
