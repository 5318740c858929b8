"""General-Level charts: level bars per modality and the per-task comparison with the specialist."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("matplotlib")

from matplotlib.colors import to_hex

from mmgauge.general_level.charts import (
    LOSS_COLOUR,
    SOTA_COLOUR,
    WIN_COLOUR,
    level_bars,
    level_figure,
    task_wins,
)
from mmgauge.scoring.general_level import ResultTable, TaskRow, score_levels
from mmgauge.scoring.general_level.records import LevelReport


def row(sheet: str, number: int, task: str, sota: float, score: float | None) -> TaskRow:
    modality, paradigm = sheet.split("-") if sheet != "NLP" else (None, None)
    return TaskRow(
        sheet=sheet, row=number, modality=modality, paradigm=paradigm,  # type: ignore[arg-type]
        task=task, metric="Acc", sota=sota, score=score,
    )  # fmt: skip


def report() -> LevelReport:
    tasks = [
        row("NLP", 2, "Commonsense Reasoning", 80.0, None),
        row("Image-Comprehension", 2, "Object Hallucination Detection", 60.0, 70.0),  # win
        row("Image-Comprehension", 3, "Art Image Visual Question Answering", 30.0, 20.0),  # below
        row("Image-Comprehension", 4, "Geometry Visual Question Answering", 78.0, None),
        row("Image-Generation", 2, "Text-to-Image", 30.0, 40.0),  # win
        row("Video-Comprehension", 2, "Action Recognition", 70.0, None),
        row("Video-Generation", 2, "Text-to-Video", 30.0, None),
        row("Audio-Comprehension", 2, "Speech", 90.0, None),
        row("Audio-Generation", 2, "Text-to-Audio", 40.0, None),
        row("3D-Comprehension", 2, "3D Classification", 80.0, None),
        row("3D-Generation", 2, "Text-to-3D", 30.0, None),
    ]
    return score_levels(ResultTable(model="demo", tasks=tasks))


def test_level_bars() -> None:
    figure = level_bars(report())
    (ax,) = figure.axes
    # Levels 2-4 for four modalities and Levels 2-5 overall.
    assert len(ax.patches) == 4 * 3 + 4
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert [label.split("\n")[0] for label in labels] == ["Image", "Video", "Audio", "3D", "Overall"]
    assert labels[0] == "Image\n3/4 scored\n2 wins" and labels[1] == "Video\n0/2 scored\n0 wins"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Level-2", "Level-3", "Level-4", "Level-5"]
    # Image: L2 = ((70 + 20) / 3 + 40) / 2 = 35; the first bar of the first group carries that height.
    assert ax.patches[0].get_height() == pytest.approx(35.0)
    values = [t.get_text() for t in ax.texts]
    assert "35.00" in values and "0.00" not in values  # zero bars carry no label
    assert "demo" in ax.get_title() and "highest level: Level-4" in ax.get_title()


def test_task_wins() -> None:
    figure = task_wins(report())
    (ax,) = figure.axes
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names == [
        "Object Hallucination Detection [Image comp.]",
        "Art Image Visual Question Answering [Image comp.]",
        "Text-to-Image [Image gen.]",
    ]
    sota, model = ax.containers
    assert [b.get_width() for b in sota] == [60.0, 30.0, 30.0]
    assert [b.get_width() for b in model] == [70.0, 20.0, 40.0]
    assert [to_hex(b.get_facecolor()) for b in model] == [WIN_COLOUR, LOSS_COLOUR, WIN_COLOUR]
    assert {to_hex(b.get_facecolor()) for b in sota} == {SOTA_COLOUR}
    assert ax.get_title() == "Model vs specialist: 2 of 3 scored tasks at or above the specialist"


def test_task_limit_and_empty() -> None:
    limited = task_wins(report(), limit=2).axes[0]
    assert len(limited.get_yticklabels()) == 2 and "(first 2 shown)" in limited.get_title()
    empty = score_levels(
        ResultTable(model="none", tasks=[row("NLP", 2, "Commonsense Reasoning", 80.0, None)])
    )
    ax = task_wins(empty).axes[0]
    assert [t.get_text() for t in ax.texts] == ["no task has a score"]


def test_level_figure_writes_a_png() -> None:
    figure = level_figure(report())
    assert len(figure.axes) == 2
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")
