"""Charts of a General-Level report: level bars per modality, and the model against the specialist per task.

Functions return matplotlib Figures drawn on the Agg canvas without pyplot, so nothing touches global
plotting state and no display is needed. matplotlib is imported only here, when a chart is asked for; it is
in the ``report`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmgauge.core.errors import UserError
from mmgauge.scoring.general_level.records import LevelReport, TaskOutcome

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LEVELS = ("Level-2", "Level-3", "Level-4")
LEVEL_COLOURS = ("#4c72b0", "#55a868", "#c44e52", "#8172b2")  # Level-2 .. Level-5
WIN_COLOUR, LOSS_COLOUR, SOTA_COLOUR = "#2e8b57", "#d1495b", "#b0b0b0"
TASK_LIMIT = 40  # beyond this many bars the task names stop being readable
NAME_WIDTH = 48


def _figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UserError("charts need matplotlib: pip install 'mmgauge[report]'") from None
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def scored_tasks(report: LevelReport) -> list[TaskOutcome]:
    """The tasks with a score, in table order: the ones the per-task chart draws."""
    return [o for o in report.tasks if o.supported and o.score is not None]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"


def _sheet_tag(sheet: str) -> str:
    return sheet.replace("-Comprehension", " comp.").replace("-Generation", " gen.")


def draw_levels(ax: Axes, report: LevelReport) -> None:
    """Grouped bars: Levels 2 to 4 per modality, and Levels 2 to 5 overall, with each value on its bar."""
    groups = [*report.modalities, "Overall"]
    width = 0.2
    per_group: list[list[float]] = [[m.level2, m.level3, m.level4] for m in report.modalities.values()]
    per_group.append([report.level2, report.level3, report.level4, report.level5])
    for k, name in enumerate((*LEVELS, "Level-5")):
        xs = [g + (k - 1.5) * width for g, values in enumerate(per_group) if k < len(values)]
        values = [v[k] for v in per_group if k < len(v)]
        bars = ax.bar(xs, values, width, label=name, color=LEVEL_COLOURS[k])
        # A row of "0.00" labels under empty modalities reads as one garbled number.
        ax.bar_label(bars, labels=[f"{v:.2f}" if v else "" for v in values], fontsize=7, padding=1)
    labels = [
        f"{name}\n{m.supported}/{m.total} scored\n{m.wins} wins" for name, m in report.modalities.items()
    ]
    labels.append(
        f"Overall\nNLP {report.nlp.supported}/{report.nlp.total} scored\nw_L {report.nlp.weight:.3f}"
    )
    ax.set_xticks(range(len(groups)), labels, fontsize=8)
    top = max((v for values in per_group for v in values), default=0.0)
    ax.set_ylim(min(0.0, *(v for values in per_group for v in values)), max(1.0, top * 1.2))
    ax.set_ylabel("score (0-100)")
    highest = "none" if report.highest_level is None else f"Level-{report.highest_level}"
    ax.set_title(f"General-Level of {report.model} ({report.mode} mode); highest level: {highest}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)


def draw_tasks(ax: Axes, report: LevelReport, limit: int = TASK_LIMIT) -> None:
    """Per scored task, the model's normalised score (green: matches the specialist, red: below) beside it."""
    tasks = scored_tasks(report)
    wins = sum(o.win for o in tasks)
    shown = tasks[:limit]
    if not shown:
        ax.text(0.5, 0.5, "no task has a score", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    ys = list(range(len(shown)))
    height = 0.38
    ax.barh(
        [y - height / 2 for y in ys], [o.sota for o in shown], height, color=SOTA_COLOUR, label="specialist"
    )
    colours = [WIN_COLOUR if o.win else LOSS_COLOUR for o in shown]
    ax.barh(
        [y + height / 2 for y in ys], [o.score or 0.0 for o in shown], height, color=colours, label="model"
    )
    ax.set_yticks(ys, [f"{_short(o.task)} [{_sheet_tag(o.sheet)}]" for o in shown], fontsize=7)
    ax.invert_yaxis()  # table order from the top
    # Official mode keeps the release's normalisation, which can leave 0..100 (WER SoTA percentages).
    ax.set_xlabel(
        "normalised score (0-100)" if report.mode == "corrected" else "score as the release normalises it"
    )
    more = f" (first {len(shown)} shown)" if len(tasks) > len(shown) else ""
    ax.set_title(f"Model vs specialist: {wins} of {len(tasks)} scored tasks at or above the specialist{more}")
    from matplotlib.patches import Patch

    handles = [
        Patch(color=WIN_COLOUR, label="model, win"),
        Patch(color=LOSS_COLOUR, label="model, below"),
        Patch(color=SOTA_COLOUR, label="specialist"),
    ]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="x", alpha=0.3)


def level_bars(report: LevelReport) -> Figure:
    """Levels per modality and overall."""
    figure = _figure(11.0, 4.5)
    draw_levels(figure.add_subplot(), report)
    return figure


def task_wins(report: LevelReport, limit: int = TASK_LIMIT) -> Figure:
    """The model against the specialist on every scored task (at most ``limit``)."""
    rows = min(len(scored_tasks(report)), limit)
    figure = _figure(11.0, max(2.0, 1.2 + 0.28 * rows))
    draw_tasks(figure.add_subplot(), report, limit)
    return figure


def level_figure(report: LevelReport, limit: int = TASK_LIMIT) -> Figure:
    """Both charts in one figure: level bars on top, per-task wins below (what ``--plot`` writes)."""
    rows = min(len(scored_tasks(report)), limit)
    tasks_height = max(1.5, 0.8 + 0.28 * rows)
    figure = _figure(11.0, 4.5 + tasks_height)
    # Subfigures lay out separately, so long task names below do not squeeze the level bars above.
    parts = figure.subfigures(2, 1, height_ratios=[4.5, tasks_height], squeeze=False)
    draw_levels(parts[0, 0].add_subplot(), report)
    draw_tasks(parts[1, 0].add_subplot(), report, limit)
    return figure
